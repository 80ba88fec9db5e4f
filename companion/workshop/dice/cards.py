"""Model cards (markdown) beside the models, written from the evaluation results."""

from __future__ import annotations

import math
from pathlib import Path

CREDITS = """\
Real photos (from `../shared/datasets/`, never copied into this repository). Every set trains, and every set
keeps photos it never trained on (`realdata.SPLITS`): its own validation splits, or, for a set that comes as one
folder, a part of it (`realdata.PARTS`). 10% of each training split (by a hash of the file name) calibrates.

- `dice-photos-matteop65`: 396 webcam photos of white d6 on wood (MIT licence, Copyright (c) 2021 Matteo
  Anthony Penlington). `train` trains, `valid` is reported.
- `dice-photos-roboflow-catan`: 436 photos of many small dice of many colours on a white table and a Catan
  board, from Roboflow Universe (CC BY 4.0). `train` trains, `valid` and `test` are reported. Not every die is
  labelled, so its "extra detections" are partly real dice (and it gives no "none" crops).
- `dice-photos-aws-reinvent2019`: 290 phone photos of coloured d6 on wood, boards, carpet and stone (AWS
  re:Invent 2019 dice set, Apache License 2.0). One folder: the last 30% of each sequence of photos by file name
  is reported (`all/valid`), the rest trains (`all/train`), with the reviewed labels of its training part (a die
  whose top face the photo does not show trains as unreadable). Until these models it was never trained on.
- `dice-photos-rune55`: 765 photos, Pixel phone photos of marbled d6 in felt trays and grey tray, table and
  fisheye-rig frames (Rune55 v3 by Roboflow user rune-zkmvl, CC BY 4.0, via github.com/N3VERS4YDIE/dice-recognition).
  `train` trains, `valid` and `test` are reported.
- `dice-photos-skovy-catan`: 49 webcam photos of a red and a yellow Catan die on a wood-effect floor
  (github.com/skovy/tensorflow-dice-model, MIT licence). `train` trains, `valid` is reported.
- `dice-crops-tomitomi3-gray`: 1,200 greyscale top-down crops of one white d6 (Copyright (c) 2018 N.Tomi,
  github.com/tomitomi3/DiceRecognitionDatasetForML, MIT licence; copy from gilleshermans/FirstNeuralNetwork).
  One folder: a 20% hash of the file names is reported (`train/valid`).
- `dice-crops-chase-casino`: 279 crops of red and blue casino dice on green felt (Copyright (c) 2024 Chase,
  github.com/chaseelliottpatterson/dice-reader, MIT licence). `train` trains, `val` and `test` are reported.
- `dice-crops-skovy-catan`: 151 crops of the Catan dice above (skovy, MIT licence). Crops of the webcam set's
  validation photos, and a 20% hash of the photos that set does not have, are reported (`train/valid`).
- `dice-crops-burks-polyhedral`: 86 photos of one numeral die per photo on black felt (Copyright (c) 2024 Andrew
  Burks, github.com/burksbuilds/dicetower-dev, MIT licence). Its d6 and its 8 d8 faces (the only real d8 photos)
  train; its other dice (d4, d10, d12, d20) are kinds the reader does not read. Too small to report.

Hard negatives: the four games' boards with their pieces (`companion/workshop/dice/boards.py`): rendered by the
board benchmarks' scene painters at states of simulated games, bare (the detector's scenes without a die, and
"none" crops where a blob detector says a die could be) and as the table of synthetic dice scenes.
"""



def _always_confirm(cls: dict) -> str:
    kinds = cls["config"].get("always_confirm_kinds") or []
    return f", and so is every reading of {', '.join(kinds)} (`always_confirm_kinds`), whatever its confidence" if kinds else ""


def _embedding(cls: dict) -> str:
    dim = cls.get("embedding_dim")
    if not dim:
        return ""
    return (f"\nSecond output `embedding`: Nx{dim} unit vectors from a second head on the same features, trained beside the "
            "logits on episodes (a few dice per face of one set of dice as prototypes, other dice of that set read by the "
            "nearest prototype): what a taught dice profile compares (`companion/vision/profile_match.py`).")


def _sure_calibration(cls: dict) -> str:
    cal = cls.get("sure_calibration")
    if not cal:
        return ""
    return (f"\nThat threshold is calibrated (`evaluate.calibrate_uncertain_below`): on the {cal['dice']} dice of the held-out "
            f"10% of the real training photos it costs least when a sure wrong reading costs {cal['cost']:g} taps "
            f"({cal['sure']} sure, {cal['wrong_sure']} of them wrong).")


def _d8_second_look(manifest: dict) -> str:
    if "dice_d8_reader" not in manifest:
        return ""
    return ("Each die this classifier reads as a d8 is read again by the d8 reader (`dice_d8_reader.md`), which "
            "takes the value from a larger crop; the reader's d8 figures below are the two together, and the "
            "confusion matrix shows this classifier alone.\n\n")


def _faint_finds(det: dict) -> str:
    sure = det["config"].get("sure_above")
    return (f"one scoring below {sure} is kept only when the classifier reads its face confidently "
            "(`sure_above`); " if sure else "")


def _architecture(cls: dict) -> str:
    layers = {"separable": "a conv layer and five depthwise-separable ones",
              "separable-deep": "a conv layer and seven depthwise-separable ones"}.get(cls.get("layers"), "six conv layers")
    if cls.get("pooling") == "3x3 grid":
        return f"{layers}, features averaged over a 3x3 grid of cells so that where on the die a pip is counts"
    return f"{layers}, features averaged over the whole crop"


def _pct(v: float) -> str:
    return f"{100 * v:.1f}%"


def pct_with_interval(share: float, n: int) -> str:
    """A share with its 95% interval half-width (normal approximation): how far a figure on n dice or photos
    moves by chance alone; a difference between two candidate models smaller than this can be chance."""
    return f"{_pct(share)} ± {196 * math.sqrt(share * (1 - share) / max(1, n)):.1f}"


def real_table(real: list[dict]) -> str:
    lines = ["| dataset / split | role | photos | dice | found (recall) | read right (of found) | found and read right "
             "(of all dice; ± 95%) | right, confident only | uncertain | photos all right (± 95%) | extra detections |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in real:
        role = {"heldout": "**never used in training**", "valid": "validation (not trained on)",
                "train": "training split (seen)"}[r["role"]]
        lines.append(f"| {r['dataset']} / {r['split']} | {role} | {r['photos']} | {r['dice']} | {_pct(r['recall'])} | "
                     f"{_pct(r['accuracy'])} | {pct_with_interval(r['recall'] * r['accuracy'], r['dice'])} | "
                     f"{_pct(r['accuracy_confident'])} | {_pct(r['uncertain'])} | "
                     f"{pct_with_interval(r['photos_all_right'], r['photos'])} | {r['extra_detections']} |")
    return "\n".join(lines)


def review_text(results: dict) -> str:
    """The real photos again with their labels reviewed where they and the reader disagreed, and what the
    review found (label_review.py); "" when no split was reviewed."""
    reviewed, rows = results.get("real_reviewed") or [], results.get("label_review") or []
    if not reviewed:
        return ""
    outcomes = [k for k in rows[0] if k not in ("dataset", "split", "why", "dice")]
    lines = ["| dataset / split | looked at because | dice | " + " | ".join(outcomes) + " |",
             "|---|---|---|" + "---|" * len(outcomes)]
    for r in rows:
        lines.append(f"| {r['dataset']} / {r['split']} | {r['why']} | {r['dice']} | "
                     + " | ".join(str(r[o]) for o in outcomes) + " |")
    changed = ", ".join(f"{r['dataset']} / {r['split']} {r['labels_changed']}" for r in reviewed)
    return f"""### The same photos, labels reviewed

Where a label and the reader disagreed, a person looked at the die without seeing either (a blind contact
sheet, `python -m companion.workshop.dice.label_review`; a few agreeing dice mixed in) and wrote down the face on top;
a found die read otherwise than its label was looked at a second time, larger, and the second look decides.
Only a wrong value or box, a box that is no die, and a die nobody can make out change a label; a die whose top
face the photo does not show keeps its label, so that the reviewed figures do not drop only the reader's
failures. `companion/workshop/dice/label_review.json` holds every look (docs/vision-notes.md, dice reader ruling 13).
Labels changed:
{changed}.

{real_table(reviewed)}

What the review found ("label right": the label names the face on top, so a die missed, misread or read
uncertainly there is the reader's own failure; "top hidden": the photo does not show the face on top, seen from
the side, blurred or covered, and the label names the face towards the camera):

{chr(10).join(lines)}

"""


def _roll_cells(r: dict) -> str:
    rr = r["rolls"]
    return (f"{_pct(r['right_sure'])} / {r['wrong_of_sure'] * 100:.2f}% | {_pct(rr['right_without_tap'])} / "
            f"{_pct(rr['asked'])} / {rr['silently_wrong'] * 100:.2f}%")


def rolls_table(results: dict) -> str:
    """Two-dice rolls per set, untaught and taught (rolls.py), and the synthetic boxes."""
    rows = [(f"{r['dataset']} ({r['photos_counted']} {r['counted_on']})", r) for r in results.get("rolls") or []]
    rows += [(f"synthetic {kind} ({r['boxes']} boxes)", r) for kind, r in (results.get("rolls_synthetic") or {}).items()]
    if not rows:
        return ""
    lines = ["| set (counted on) | dice | untaught: right and sure / wrong of sure | untaught rolls: right without a tap / "
             "asked / silently wrong | taught: right and sure / wrong of sure | taught rolls | taught: missed / unsure |",
             "|---|---|---|---|---|---|---|"]
    for name, r in rows:
        u, t = _roll_cells(r["untaught"]).split(" | "), _roll_cells(r["taught"]).split(" | ")
        lost = f"{_pct(r['taught'].get('missed', 0))} / {_pct(r['taught'].get('unsure', 0))}"
        lines.append(f"| {name} | {r['untaught']['dice']} | {u[0]} | {u[1]} | {t[0]} | {t[1]} | {lost} |")
    return "\n".join(lines)


def from_above_table(results: dict) -> str:
    """The sets' photos taken from above, read untaught as seen from the side and as seen from above (rolls.py)."""
    rows = [r for r in results.get("rolls") or [] if "untaught_from_above" in r]
    if not rows:
        return ""
    lines = ["| set | dice from above | as seen from the side: right and sure / wrong of sure | rolls | as seen from "
             "above: right and sure / wrong of sure | rolls |", "|---|---|---|---|---|---|"]
    for r in rows:
        side, above = r["untaught"]["per_view"]["above"], r["untaught_from_above"]
        s, a = _roll_cells(side).split(" | "), _roll_cells(above).split(" | ")
        lines.append(f"| {r['dataset']} | {above['dice']} | {s[0]} | {s[1]} | {a[0]} | {a[1]} |")
    return ("### Photos taken from above, read as the table pipeline reads dice seen from above\n\n"
            "The table pipeline reads a die that the board's pose shows is seen from above turned as well and sure from"
            " its own threshold (`looking_down`); the photos carry no pose, so their set's view (`realdata.view_of`)"
            " stands for it. Untaught, on the validation photos counted above.\n\n" + "\n".join(lines))


def extra_real_text(results: dict) -> str:
    parts = []
    above = from_above_table(results)
    table = rolls_table(results)
    if table:
        parts.append("### Two-dice rolls, untaught and taught\n\nEach labelled die is right (found, read right, sure), "
                     "asked (missed: not found, or unsure: found but uncertain) or wrong (sure and wrong); a roll of two dice drawn from a set is right "
                     "without a tap when both are right and silently wrong when either is wrong (`rolls.py`). Taught: a "
                     "profile taught on the set's first 10 photos by file name, both figures counted on its validation "
                     "photos after them; synthetic boxes: one set of dice on one table each, taught on 10 scenes, counted "
                     "on 30 more.\n\n" + table)
    if above:
        parts.append(above)
    hidden = results.get("top_hidden")
    if hidden:
        parts.append(f"Dice whose face on top the photo does not show (reviewed \"top hidden\", validation photos): "
                     f"{hidden['dice']}, of them {hidden['sure']} read sure (a guess), {hidden['uncertain']} uncertain, "
                     f"{hidden['missed']} not found.")
    boards = results.get("board_frames_without_dice")
    if boards:
        parts.append(f"The four games' boards with their pieces and no dice ({boards['frames']} rendered 1280x720 frames, "
                     f"`boards.py`): {boards['finds_per_frame']:.2f} finds and {boards['sure_per_frame']:.2f} sure dice "
                     f"per frame; {_pct(boards['frames_with_a_sure_die'])} of the frames show a sure die.")
    return "".join(p + "\n\n" for p in parts)


def synth_table(syn: dict) -> str:
    lines = ["| kind | dice | found (recall) | read right (of found) | uncertain |", "|---|---|---|---|---|"]
    for kind, s in syn["per_kind"].items():
        lines.append(f"| {kind} | {s['dice']} | {_pct(s['recall'])} | {_pct(s['accuracy'])} | {_pct(s['uncertain'])} |")
    by_angle = syn.get("d6_by_view_angle")
    if by_angle:  # how the reading falls as the camera leans (docs/vision-notes.md, dice reader ruling 14)
        lines += ["", "Six-sided dice by the angle between the upward face's normal and the line of sight:", "",
                  "| degrees | " + " | ".join(a["degrees"] for a in by_angle) + " |",
                  "|---|" + "---|" * len(by_angle),
                  "| dice | " + " | ".join(str(a["dice"]) for a in by_angle) + " |",
                  "| read right (of found) | " + " | ".join(_pct(a["accuracy"]) for a in by_angle) + " |"]
    return "\n".join(lines)


def training_text(tr: dict, cls: dict) -> str:
    kept = tr.get("detector_kept_from")
    if not kept:
        return (f"`{tr['command'].strip()}` (or `make train`), seed {tr['seed']}, CPU only (torch {tr['torch']}, "
                f"1 thread),\n{tr['wall_seconds'] / 60:.1f} minutes wall time for both models, rendering included.")
    size = cls["config"]["size"]
    return (f"Classifier: `{tr['command'].strip()}` (trains the classifier only, {size}x{size} crops, and keeps the "
            f"detector of `models/`), seed {tr['seed']}, CPU only (torch {tr['torch']}, 1 thread), "
            f"{tr['wall_seconds'] / 60:.1f} minutes wall time, rendering included.\n"
            f"Detector: `{kept['command'].strip()}`, seed {kept['seed']} (torch {kept['torch']}, 1 thread).\n"
            "The classifier's command without `--keep-detector` (with the detector's default steps) repeats both "
            "in one run; the classifier does not depend on the detector run.")


HAND_SECTION = "## This run"


def _mirror(cls: dict) -> str:
    below = cls["config"].get("mirror_below", 0.0)
    return (f"\nA crop read less confidently than {below} is read a second time mirrored left to right, and the two"
            " readings' logits are averaged (`mirror_below`;\na mirrored pip face is a pip face, and the mirror keeps"
            " the camera's up and down)." if below > 0 else "")


def _shifted_looks(cls: dict) -> str:
    looks = cls["config"].get("shifted_looks")
    if not looks:
        return ""
    return (f"\nA crop of a frame whose best die reading is still from {looks['from']} to below {looks['below']} after"
            f" those looks is cut four more times, shifted by {looks['offset']} of its box right, left, down and"
            " up, each read as it is and mirrored, and all looks' logits are averaged (`shifted_looks`; not for faint"
            " finds, nor for crops already cut, such as a taught profile's).")


def _looking_down(cls: dict) -> str:
    down, cal = cls["config"].get("looking_down"), cls.get("looking_down_calibration")
    if not down:
        return ""
    text = (f"\nA die the board's pose shows is seen from within {down['within_deg']:g} degrees of straight above is read"
            f" turned as well when doubtful ({', '.join(down['views'])}: a face seen from above reads the same turned"
            f" by quarter turns) and is sure from {down['uncertain_below']} (`looking_down`; `companion dice`, with no"
            " pose, reads every die as seen from the side).")
    if cal:
        text += (f" Calibrated (`evaluate.calibrate_looking_down`) on the {cal['dice']} dice of the held-out photos taken"
                 f" from above: {cal['sure']} sure, {cal['wrong_sure']} of them wrong; the cheapest threshold there,"
                 f" {cal['cheapest']}, is floored at the threshold of a die seen from the side.")
    return text


def kept_hand_section(card: Path, sha256: str) -> str:
    """The hand-written "## This run" section of an existing card (what changed, every candidate and why
    this one was chosen), up to the next section: kept when the card is rewritten for the same model file
    (its SHA-256 is in the card), dropped for a new model, whose run it does not describe."""
    if not card.is_file():
        return ""
    text = card.read_text()
    start = text.find("\n" + HAND_SECTION + "\n")
    if sha256 not in text or start < 0:
        return ""
    end = text.find("\n## ", start + 1)
    return text[start + 1:end if end >= 0 else None].rstrip() + "\n\n"


def write_model_cards(out: Path, manifest: dict, results: dict, cm) -> None:
    det, cls, tr = manifest["dice_detector"], manifest["dice_classifier"], manifest["training"]
    det_hand = kept_hand_section(out / "dice_detector.md", det["sha256"])
    cls_hand = kept_hand_section(out / "dice_classifier.md", cls["sha256"])
    timing = results["ms_1280x720_one_thread"]
    common = f"""\
## Training

{training_text(tr, cls)}
Synthetic scenes come from `companion/workshop/dice/synth.py` (cubes and octahedra with random body and pip colours,
pip shapes, translucent, marbled and glittery bodies, numerals, colour faces and a magpie symbol; perspective,
rotation, scale 15-120 px, lighting, shadows, highlights, motion blur, JPEG noise; tables of wood, felt, paper,
stone, carpet, patterned cloth and plain or illustrated game boards with printed dots and tokens; clutter,
neighbouring dice, fingers).

{CREDITS}
## Evaluation on real photos (six-sided dice only, read with `--kinds d6`; boxes matched by centres; sets of single-die crops read at their labelled box)

{real_table(results['real'])}

{review_text(results)}{extra_real_text(results)}## Evaluation on fresh synthetic scenes (seed never used in training, {results['synthetic']['scenes']} scenes)

{synth_table(results['synthetic'])}

Median time per 1280x720 frame, detector + classifier{" + d8 reader (on the d8 finds)" if "dice_d8_reader" in manifest else ""}, onnxruntime with one thread:
{', '.join(f"{k.replace('_', ' ')}: {v:.1f} ms" for k, v in timing.items())}; per 640x640 photo with 25 dice:
{results['ms_640x640_25_dice_one_thread']:.1f} ms (this shared 2-core machine, other jobs running).
"""
    failures = """\
## Known failure cases

- The d8 (Enchanted Die) numerals are the hardest class: check its synthetic accuracy above before relying on it
  (every d8 reading is shown for confirmation).
- Dice much smaller than about 12 px in the detector's input (long side 416 px) are missed; on a
  1280x720 frame that is dice under about 35 px.
- Strongly oblique views, where a side face looks as large as the top face, can be read from the wrong face;
  the reader assumes an upright camera (the upward face is the one at the top of the die's image), so a
  picture turned by a quarter turn is misread. From low, phone-height angles the upward face is a thin strip
  above a large side face, and the large face is often read instead (most of the misreads on the AWS set).
  Even where the upward face shows plainly, a camera leaning 52-63 degrees from straight down gets only about
  61% of single synthetic d6 right (92% from above). Most misreads on the Catan validation photos are such
  close-ups: 6 read as 4 or 5, 4 read as 5.
- Dice stacked or leaning on another die are usually reported as uncertain, sometimes misread.
- A face showing 1 whose die shows a side face's pips beside it can be read as 2 (two of the three misreads
  left on the matteop65 validation photos once their labels were reviewed).
- A side face showing its pips beside the top face can be found as a second die, often read confidently:
  most extra finds on the matteop65 validation photos are such side faces. The app then sees a die too
  many and waits (or sets the extra aside when it is uncertain: docs/vision-notes.md, dice reader ruling 11).
- A die filling much of the frame (a close-up) can be found as its pips rather than as a die, each pip read as
  a 1, when the die itself is not also found (`detect.drop_contained` drops the pips when it is).
- The d8, colour-face and magpie classes were trained on synthetic renders and, for the d8, the 8 faces of one
  real numeral die (no other real photos of those dice were available): expect lower accuracy on real ones than
  the synthetic figures. A taught profile helps the d8 little: its embedding tells numerals apart no better than
  chance, so with a profile a d8 is sure only where the generic reader is (from 0.95-0.99, as it read the taught
  d8 dice): 7.1% of synthetic d8 (ruling 16 in docs/vision-notes.md).
- Glare that washes out a pip, and pips the same colour as the body, cause misreads.
- On fine, high-contrast textures (loop-pile carpet, speckled cloth) the detector still proposes dozens of
  candidates: small dice there are missed more often, some texture is reported as uncertain dice, and
  reading takes up to twice as long (more candidates to classify).
"""
    (out / "dice_detector.md").write_text(f"""\
# dice_detector.onnx

Finds dice in a frame: a tiny fully convolutional CenterNet-style network (stride-4 heatmap of die centres,
sub-cell offset and log box size), {det['bytes'] / 1024:.0f} KiB, SHA-256 `{det['sha256']}`.
Input `image`: 1x3xHxW float32 BGR in 0..1, the frame letterboxed to a long side of {det['config']['long_side']} px
and padded to a multiple of 32 (dynamic H, W). Outputs `heat` (1x1xH/4xW/4, probability) and `reg`
(1x4xH/4xW/4: x/y offset in cells, log width/height in cells). Peaks above {det['config']['threshold']} are
candidate dice; {_faint_finds(det)}a find whose centre lies well inside a much larger find is dropped (a pip of a close die).
Opset 13, exported with `torch.onnx.export(..., dynamo=False)`; loads in onnxruntime and OpenCV DNN.
Trained {det['trained_steps']} steps on 256x256 patches (30% real training photos, 10% bare rendered game boards with their
pieces and no die, 60% synthetic scenes, some of them laid on those boards).

{det_hand}{common}
{failures}""")
    (out / "dice_classifier.md").write_text(f"""\
# dice_classifier.onnx

Reads the upward face of one found die: a small CNN ({_architecture(cls)}, one linear layer)
on a {cls['config']['size']}x{cls['config']['size']} crop centred on the detection ({cls['config']['crop_scale']}x its longer side), standardized per crop.
{cls['bytes'] / 1024:.0f} KiB, SHA-256 `{cls['sha256']}`.
Input `crops`: Nx3x{cls['config']['size']}x{cls['config']['size']} float32; output `logits`: Nx{len(cls['classes'])}
temperature-scaled logits (T = {cls['temperature']:.3f} baked in) over:
{', '.join(cls['classes'])}. "none" means not a die, or its upward face cannot be read.{_embedding(cls)}
Trained {cls['trained_steps']} steps. A reading whose calibrated confidence is below {cls['config']['uncertain_below']}
is marked uncertain{_always_confirm(cls)}.{_sure_calibration(cls)}{_mirror(cls)}{_shifted_looks(cls)}{_looking_down(cls)}

Calibration (synthetic crops + 10% of the real training photos, held out of training): expected calibration
error {cls['ece_calibration_before']:.4f} before and {cls['ece_calibration_after']:.4f} after temperature scaling.
On fresh synthetic crops of the true boxes: accuracy {100 * results['classifier']['accuracy']:.2f}% over
{results['classifier']['crops']} crops, ECE {results['classifier']['ece']:.4f}.

![confusion matrix](dice_classifier_confusion.png)

{_d8_second_look(manifest)}{cls_hand}{common}
{failures}""")
