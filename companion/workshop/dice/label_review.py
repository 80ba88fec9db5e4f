"""Review the labels of the shared dice photos where they and the reader disagree.

The app reads the face on top of a die (a camera above the table). A label can disagree with the reader
because the reader is wrong, because the label is (a wrong value; matteop65 boxes a face showing 1 by its
pip alone, which the centre matching can miss), or because the photo does not show the face on top (a
die seen from the side, blurred or hidden: the label then names the face towards the camera). A person
looks at each disagreement and writes down what they see; ``label_review.json`` (beside this module, a
data file) keeps each look, and the benchmark reports the figures both as labelled and with the labels
reviewed, and how the disagreements split between those causes.

The review is blind: a contact sheet shows each die with its labelled box and a number, never the label
or the reading, and a few dice where the two agree are mixed in (they tell how often the reviewer
differs from a label the reader confirmed).

    python -m companion.workshop.dice.label_review sheet DATASET SPLIT --out DIR   # DIR/sheet_*.png, DIR/seen.txt
    (note each die in DIR/seen.txt: its number and 1-6, h: top hidden, u: unclear or n: not a die)
    python -m companion.workshop.dice.label_review merge DIR                       # into label_review.json
    python -m companion.workshop.dice.label_review second --out DIR2               # a second look, then merge DIR2

A first look that reads a found die otherwise than its label is looked at a second time, larger, before
it changes the label: first looks at small dice were often wrong (half of them, on the first 34).

Only a wrong value or box, a box that is not a die, and a die nobody can make out change a label.
"top hidden" changes nothing: only the disagreements were looked at, so dropping those dice (and not the
agreeing dice whose top is hidden too) would favour the reader. Training never uses the reviews (the
committed models were trained on the labels as published).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

from companion.vision.errors import VisionError
from companion.workshop.dice import realdata

REVIEW_FILE = Path(__file__).with_name("label_review.json")
NOT_A_DIE = "not a die"
UNCLEAR = "unclear"  # as the published "unclear": neither counted nor blamed
TOP_HIDDEN = "top hidden"  # a die whose upward face the photo does not show or blurs: the label stays
SHEET = (1280, 960)  # pixels of a contact sheet (width, height)
ENTRY_KEYS = ("dataset", "split", "image", "box", "label", "reading", "why")  # what a review records of a die


def _key(dataset: str, split: str, image: str, box) -> tuple:
    return dataset, split, image, tuple(int(c) for c in box)


def load_reviews(path: Path | None = None) -> dict[tuple, dict]:
    """(dataset, split, image, box) -> review entry; {} when there is no file."""
    path = path or REVIEW_FILE
    if not path.is_file():
        return {}
    entries = json.loads(path.read_text())["reviews"]
    return {_key(e["dataset"], e["split"], e["image"], e["box"]): e for e in entries}


def _seen_value(seen) -> int | None | str:
    """A review's "seen" checked: 1-6, None (unclear), TOP_HIDDEN or NOT_A_DIE."""
    if seen in (NOT_A_DIE, TOP_HIDDEN):
        return seen
    if isinstance(seen, int) and 1 <= seen <= 6:
        return seen
    if seen == UNCLEAR:
        return None
    raise ValueError(f"a review's 'seen' must be 1-6, {TOP_HIDDEN!r}, {NOT_A_DIE!r} or {UNCLEAR!r}, not {seen!r}")


def apply_reviews(photos: list[realdata.Photo], dataset: str, split: str,
                  reviews: dict[tuple, dict] | None = None,
                  top_hidden_unreadable: bool = False) -> tuple[list[realdata.Photo], int]:
    """The photos with reviewed labels: a value seen otherwise replaces the label, a die marked unclear is
    neither counted nor blamed, a box that is not a die is dropped, and a box drawn around one pip of a die
    (``seen_box``) is replaced by one around its face; a die whose top is hidden keeps its label (for the
    figures), or gets the value TOP_HIDDEN with ``top_hidden_unreadable`` (training: such a die is unreadable).
    ``split`` may be a part of a folder ("all/train"): the reviews name the folder. Returns (photos, labels changed)."""
    reviews = load_reviews() if reviews is None else reviews
    folder = realdata.folder_of(split)
    out, changed = [], 0
    for p in photos:
        dice = []
        for d in p.dice:
            entry = reviews.get(_key(dataset, folder, p.path.name, d.box))
            if entry is None:
                dice.append(d)
                continue
            seen = _seen_value(entry["seen"])
            if seen == TOP_HIDDEN:
                seen = TOP_HIDDEN if top_hidden_unreadable else d.value
            box = tuple(int(c) for c in entry.get("seen_box", d.box))
            changed += seen != d.value or box != d.box
            if seen != NOT_A_DIE:
                dice.append(replace(d, value=seen, box=box))
        out.append(replace(p, dice=dice))
    return out, changed


def outcome(entry: dict) -> str:
    """What a review found: "value wrong", "box wrong" (the value right), "label right", TOP_HIDDEN,
    UNCLEAR or NOT_A_DIE."""
    seen = _seen_value(entry["seen"])
    if seen in (TOP_HIDDEN, NOT_A_DIE):
        return seen
    if seen is None:
        return UNCLEAR
    if seen != entry["label"]:
        return "value wrong"
    return "box wrong" if list(entry.get("seen_box", entry["box"])) != list(entry["box"]) else "label right"


def summary(reviews: dict[tuple, dict] | None = None) -> dict[tuple[str, str], dict[str, dict[str, int]]]:
    """(dataset, split) -> why the die was looked at ("missed", "misread", "uncertain", "agreement",
    "pip box") -> outcome -> count."""
    reviews = load_reviews() if reviews is None else reviews
    out: dict = {}
    for e in reviews.values():
        by_why = out.setdefault((e["dataset"], e["split"]), {}).setdefault(e["why"], {})
        o = outcome(e)
        by_why[o] = by_why.get(o, 0) + 1
    return out


OUTCOMES = ("label right", "value wrong", "box wrong", TOP_HIDDEN, UNCLEAR, NOT_A_DIE)


def summary_rows(reviews: dict[tuple, dict] | None = None) -> list[dict]:
    """``summary`` as one row per split and reason: {"dataset", "split", "why", "dice", <outcome>: count}."""
    rows = []
    for (dataset, split), by_why in sorted(summary(reviews).items()):
        for why, counts in sorted(by_why.items()):
            rows.append({"dataset": dataset, "split": split, "why": why, "dice": sum(counts.values()),
                         **{o: counts.get(o, 0) for o in OUTCOMES}})
    return rows


def _tile(img: np.ndarray, box, number: int, tile: int, context: float = 2.0) -> np.ndarray:
    import cv2

    from companion.vision.classify import crop

    x, y, w, h = box
    # context: the neighbours and the table tell which way is up, and a box around one pip shows its die
    side = max(context * max(w, h), 80.0)
    t = crop(img, box, tile, side / max(w, h, 1))
    k = tile / side
    p0 = (int(tile / 2 - k * w / 2), int(tile / 2 - k * h / 2))
    p1 = (int(tile / 2 + k * w / 2), int(tile / 2 + k * h / 2))
    cv2.rectangle(t, p0, p1, (0, 255, 255), 1)
    cv2.rectangle(t, (0, 0), (34, 16), (0, 0, 0), -1)
    cv2.putText(t, str(number), (2, 13), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (255, 255, 255), 1)
    return t


def disagreements(reader, dataset: str, split: str, agreements: float, seed: int = 0) -> list[dict]:
    """Every labelled die the reader missed or read otherwise, and a share of those it read as labelled,
    shuffled; each with the picture's tile kept aside in "_tile"."""
    import cv2

    rng = np.random.default_rng(seed)
    reviews = load_reviews()
    items = []
    for p in realdata.load_split(dataset, split):
        img = cv2.imread(str(p.path))
        if img is None:
            continue
        readings = reader.read(img)
        by_truth = {j: readings[i] for i, j in realdata.match([r.box for r in readings], [d.box for d in p.dice])}
        for j, d in enumerate(p.dice):
            if d.value is None or _key(dataset, split, p.path.name, d.box) in reviews:
                continue
            r = by_truth.get(j)
            if r is None:
                why = "missed"
            elif r.value != d.value or r.uncertain:
                why = "misread" if r.value != d.value else "uncertain"
            elif rng.random() < agreements:
                why = "agreement"
            else:
                continue
            items.append({"dataset": dataset, "split": split, "image": p.path.name, "box": list(d.box),
                          "label": d.value, "reading": None if r is None else r.value, "why": why,
                          "seen": None, "_tile": (img, d.box)})
    order = rng.permutation(len(items))
    return [items[i] for i in order]


def second_looks(dataset: str | None = None) -> list[dict]:
    """The found dice whose first look read a value other than the label's and that were not looked at a
    second time: each is looked at again, larger, before it changes a label (first looks at small dice
    are often wrong). Items as ``disagreements`` gives, with "second": True."""
    import cv2

    items = []
    for e in load_reviews().values():
        if outcome(e) != "value wrong" or e["why"] == "missed" or "second_look" in e:
            continue
        if dataset and e["dataset"] != dataset:
            continue
        img = cv2.imread(str(realdata.datasets_root() / e["dataset"] / e["split"] / e["image"]))
        if img is None:
            continue
        items.append({**{k: e[k] for k in ENTRY_KEYS},
                      "seen": None, "second": True, "_tile": (img, tuple(e["box"]))})
    return items


def write_sheets(items: list[dict], out: Path, tile: int = 320, context: float = 2.0) -> list[Path]:
    import cv2

    out.mkdir(parents=True, exist_ok=True)
    cols, per_sheet = SHEET[0] // tile, (SHEET[0] // tile) * (SHEET[1] // tile)
    paths = []
    for s in range(0, len(items), per_sheet):
        tiles = []
        for n, item in enumerate(items[s:s + per_sheet], start=s):
            img, box = item.pop("_tile")
            item["number"] = n
            tiles.append(_tile(img, box, n, tile, context))
        while len(tiles) % cols:
            tiles.append(np.zeros((tile, tile, 3), np.uint8))
        rows = [np.concatenate(tiles[k:k + cols], 1) for k in range(0, len(tiles), cols)]
        path = out / f"sheet_{s // per_sheet:02d}.png"
        cv2.imwrite(str(path), np.concatenate(rows, 0))
        paths.append(path)
    return paths


SHORTHAND = {"h": TOP_HIDDEN, "u": UNCLEAR, "n": NOT_A_DIE}


def read_seen(text: str) -> dict[int, int | str]:
    """The reviewer's notes, one die per line: its number on the sheet and what it shows on top (1-6, or
    h / "top hidden", u / "unclear", n / "not a die"). Raises ValueError naming the first bad line."""
    seen: dict[int, int | str] = {}
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        number, _, value = line.strip().partition(" ")
        value = value.strip()
        value = int(value) if value.isdigit() else SHORTHAND.get(value, value)
        try:
            _seen_value(value)
            seen[int(number)] = value
        except ValueError:
            raise ValueError(f"line {n} of the notes: {line.strip()!r} is not 'NUMBER 1-6|h|u|n'") from None
    return seen


def merge(folder: Path, path: Path | None = None) -> int:
    """Add the reviewer's notes (``folder``/seen.txt) on the dice of ``folder``/pending.json to the review
    file; returns how many were added. A bad line refuses the whole file before anything is written; dice
    already reviewed are kept as they were."""
    path = path or REVIEW_FILE
    items = json.loads((folder / "pending.json").read_text())
    seen = read_seen((folder / "seen.txt").read_text())
    numbers = {item["number"] for item in items}
    if unknown := sorted(set(seen) - numbers):
        raise ValueError(f"the notes name dice that are not on the sheets: {unknown[:5]}")
    data = json.loads(path.read_text()) if path.is_file() else {"reviews": []}
    known = {_key(e["dataset"], e["split"], e["image"], e["box"]): e for e in data["reviews"]}
    added = 0
    for item in items:
        key = _key(item["dataset"], item["split"], item["image"], item["box"])
        if item["number"] not in seen:
            continue
        if item.get("second") and key in known:  # the second look decides; the first is kept beside it
            entry = known[key]
            if "second_look" not in entry:
                if seen[item["number"]] != entry["seen"]:
                    entry["first_look"] = entry["seen"]
                entry["seen"], entry["second_look"] = seen[item["number"]], True
                added += 1
            continue
        if key in known:
            continue
        entry = {k: item[k] for k in ENTRY_KEYS if k in item}
        known[key] = {**entry, "seen": seen[item["number"]]}
        data["reviews"].append(known[key])
        added += 1
    data["reviews"].sort(key=lambda e: (e["dataset"], e["split"], e["image"], e["box"]))
    write_reviews(data["reviews"], path)
    return added


def write_reviews(entries: list[dict], path: Path) -> None:
    """One review per line (a diff shows which looks changed); written whole, then moved into place."""
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text('{"reviews": [\n' + ",\n".join(json.dumps(e) for e in entries) + "\n]}\n")
    os.replace(tmp, path)  # never a half-written review file


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m companion.workshop.dice.label_review", description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    sh = sub.add_parser("sheet", help="contact sheets of the dice to review, and the files to note them in")
    sh.add_argument("dataset")
    sh.add_argument("split")
    sh.add_argument("--out", type=Path, required=True)
    sh.add_argument("--agreements", type=float, default=0.03, help="share of agreeing dice mixed in (default 0.03)")
    sh.add_argument("--seed", type=int, default=0)
    sh.add_argument("--tile", type=int, default=320, help="pixels per die on a sheet (default 320)")
    sc = sub.add_parser("second", help="sheets for a second, larger look at the found dice whose first look "
                                       "read another value than the label")
    sc.add_argument("--out", type=Path, required=True)
    sc.add_argument("--dataset", default=None)
    mg = sub.add_parser("merge", help="add the notes of a reviewed folder (seen.txt) to label_review.json")
    mg.add_argument("folder", type=Path)
    args = ap.parse_args(argv)
    try:
        if args.command == "merge":
            print(f"added {merge(args.folder)} reviews to {REVIEW_FILE}")
            return 0
        if args.command == "second":
            items, tile, context = second_looks(args.dataset), 300, 1.5
        else:
            from companion.vision.reader import DiceReader

            reader = DiceReader(kinds=("d6",))
            items = disagreements(reader, args.dataset, args.split, args.agreements, args.seed)
            tile, context = args.tile, 2.0
    except (OSError, ValueError, KeyError, VisionError) as exc:  # a missing folder or split, a bad note,
        print(f"error: {exc}", file=sys.stderr)  # a damaged file, the reader's models missing
        return 2
    sheets = write_sheets(items, args.out, tile, context)
    # the labels and readings stay in pending.json; the reviewer writes only seen.txt, from the sheets
    (args.out / "pending.json").write_text(json.dumps(items, indent=1) + "\n")
    (args.out / "seen.txt").write_text("# one line per die: its number on the sheets and the face on top\n"
                                       "# (1-6, h: top hidden, u: unclear, n: not a die)\n")
    print(f"{len(items)} dice on {len(sheets)} sheets in {args.out}; note each in {args.out / 'seen.txt'}, then "
          f"python -m companion.workshop.dice.label_review merge {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
