"""Reviewed labels of the shared dice photos (label_review.py): what a review changes in the evaluation,
the blind sheets and the reviewer's notes, and the committed review file itself."""

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.workshop.dice import evaluate, label_review, realdata
from companion.workshop.dice.label_review import NOT_A_DIE, TOP_HIDDEN, UNCLEAR

DS, SPLIT = "set", "valid"


def _photo(*dice):
    return realdata.Photo(Path("/x/p.jpg"), [realdata.LabelledDie(v, b) for v, b in dice])


def _review(box, seen, label=3, **extra):
    return {"dataset": DS, "split": SPLIT, "image": "p.jpg", "box": list(box), "label": label, "reading": 5,
            "why": "misread", "seen": seen, **extra}


def _reviews(*entries):
    return {label_review._key(e["dataset"], e["split"], e["image"], e["box"]): e for e in entries}


def test_a_review_changes_a_wrong_value_drops_what_is_no_die_and_keeps_a_label_whose_top_is_hidden():
    a, b, c, d, e = (10, 10, 40, 40), (100, 10, 40, 40), (200, 10, 40, 40), (300, 10, 40, 40), (400, 10, 40, 40)
    photos = [_photo((3, a), (3, b), (3, c), (3, d), (2, e))]
    reviews = _reviews(_review(a, 5), _review(b, NOT_A_DIE), _review(c, UNCLEAR), _review(d, TOP_HIDDEN))
    [out], changed = label_review.apply_reviews(photos, DS, SPLIT, reviews)
    assert [(x.value, x.box) for x in out.dice] == [(5, a), (None, c), (3, d), (2, e)]
    assert changed == 3  # the top-hidden die keeps its label: it is not a change
    # another split's photo of the same name is not touched
    [same], none = label_review.apply_reviews(photos, DS, "test", reviews)
    assert [x.value for x in same.dice] == [3, 3, 3, 3, 2] and none == 0


def test_a_box_drawn_around_one_pip_is_replaced_by_the_face_the_review_gives():
    pip, face = (118, 118, 12, 12), (100, 100, 48, 48)
    [out], changed = label_review.apply_reviews([_photo((1, pip))], DS, SPLIT,
                                                _reviews(_review(pip, 1, label=1, seen_box=list(face))))
    assert out.dice[0].box == face and out.dice[0].value == 1 and changed == 1
    assert label_review.outcome(_review(pip, 1, label=1, seen_box=list(face))) == "box wrong"


def test_outcomes_tell_the_reader_wrong_from_the_label_wrong():
    assert label_review.outcome(_review((0, 0, 9, 9), 3, label=3)) == "label right"
    assert label_review.outcome(_review((0, 0, 9, 9), 4, label=3)) == "value wrong"
    assert label_review.outcome(_review((0, 0, 9, 9), TOP_HIDDEN)) == TOP_HIDDEN
    rows = label_review.summary_rows(_reviews(_review((0, 0, 9, 9), 3), _review((9, 0, 9, 9), 4),
                                              _review((0, 9, 9, 9), TOP_HIDDEN)))
    assert rows == [{"dataset": DS, "split": SPLIT, "why": "misread", "dice": 3, "label right": 1,
                     "value wrong": 1, "box wrong": 0, TOP_HIDDEN: 1, UNCLEAR: 0, NOT_A_DIE: 0}]
    with pytest.raises(ValueError):
        label_review.outcome(_review((0, 0, 9, 9), 7))


class _FixedReader:
    """Reads one die at a fixed box with a fixed value, whatever the image."""

    def __init__(self, box, value):
        self.box, self.value = box, value

    def read(self, img):
        from types import SimpleNamespace

        return [SimpleNamespace(box=self.box, value=self.value, kind="d6", uncertain=False)]


def _dataset(root: Path, dice: list[dict]) -> None:
    folder = root / DS / SPLIT
    folder.mkdir(parents=True)
    cv2.imwrite(str(folder / "p.jpg"), np.full((200, 200, 3), 128, np.uint8))
    (folder / "labels.json").write_text(json.dumps({"p.jpg": dice}))


def test_evaluation_on_reviewed_labels_finds_the_die_boxed_by_its_pip(tmp_path, monkeypatch):
    _dataset(tmp_path, [{"value": 1, "box": [95, 95, 10, 10]}])
    monkeypatch.setenv("COMPANION_DATASETS", str(tmp_path))
    review = tmp_path / "label_review.json"
    label_review.write_reviews([_review((95, 95, 10, 10), 1, label=1, seen_box=[76, 76, 48, 48])], review)
    monkeypatch.setattr(label_review, "REVIEW_FILE", review)
    reader = _FixedReader((72, 82, 56, 56), 1)  # the whole die with a side face: its centre 10 px off the pip
    as_labelled = evaluate.evaluate_real(reader, DS, SPLIT)
    reviewed = evaluate.evaluate_real(reader, DS, SPLIT, reviewed=True)
    assert as_labelled["recall"] == 0 and as_labelled["extra_detections"] == 1
    assert reviewed["recall"] == 1 and reviewed["accuracy"] == 1 and reviewed["labels_changed"] == 1
    assert reviewed["photos_all_right"] == 1


def test_sheets_hide_label_and_reading_and_the_notes_merge_into_the_review_file(tmp_path, monkeypatch):
    _dataset(tmp_path, [{"value": 3, "box": [20, 20, 40, 40]}, {"value": 4, "box": [120, 120, 40, 40]}])
    monkeypatch.setenv("COMPANION_DATASETS", str(tmp_path))
    review = tmp_path / "label_review.json"
    monkeypatch.setattr(label_review, "REVIEW_FILE", review)
    items = label_review.disagreements(_FixedReader((20, 20, 40, 40), 5), DS, SPLIT, agreements=0.0)
    assert sorted((i["why"], i["label"]) for i in items) == [("misread", 3), ("missed", 4)]
    out = tmp_path / "sheets"
    [sheet] = label_review.write_sheets(items, out, tile=160)
    assert cv2.imread(str(sheet)).shape[:2] == (160, 1280)  # eight tiles a row, one row
    (out / "pending.json").write_text(json.dumps(items))
    (out / "seen.txt").write_text("# notes\n" + "\n".join(f"{i['number']} {'5' if i['label'] == 3 else 'h'}"
                                                          for i in items) + "\n")
    assert label_review.merge(out) == 2
    reviews = label_review.load_reviews()
    assert sorted(str(e["seen"]) for e in reviews.values()) == ["5", TOP_HIDDEN]
    assert label_review.merge(out) == 0  # a die already reviewed keeps its first look
    # the next sheet leaves out the dice already reviewed
    assert label_review.disagreements(_FixedReader((20, 20, 40, 40), 5), DS, SPLIT, agreements=0.0) == []


def test_a_bad_note_refuses_the_whole_file_and_changes_nothing(tmp_path, capsys):
    review = tmp_path / "label_review.json"
    label_review.write_reviews([_review((0, 0, 9, 9), 3)], review)
    before = review.read_text()
    out = tmp_path / "sheets"
    out.mkdir()
    items = [{**_review((50, 0, 9, 9), None), "number": 0}, {**_review((90, 0, 9, 9), None), "number": 1}]
    (out / "pending.json").write_text(json.dumps(items))
    for notes in ("0 4\n1 seven\n", "0 4\n1 9\n", "0 4\n5 3\n"):
        (out / "seen.txt").write_text(notes)
        with pytest.raises(ValueError):
            label_review.merge(out, review)
        assert review.read_text() == before
    (out / "seen.txt").write_text("1 seven\n")
    assert label_review.main(["merge", str(out)]) == 2 and "line 1" in capsys.readouterr().err
    (out / "pending.json").write_text("{not json")
    assert label_review.main(["merge", str(out)]) == 2


def test_the_committed_reviews_are_well_formed_and_name_labelled_dice():
    entries = json.loads(label_review.REVIEW_FILE.read_text())["reviews"]
    assert entries, "the review file ships with the reviews behind the card's figures"
    for e in entries:
        label_review.outcome(e)  # raises on a value that is not a review's
        assert (e["dataset"], e["split"]) in {(d, realdata.folder_of(s)) for d, s in realdata.SPLITS}
        assert e["why"] in ("missed", "misread", "uncertain", "agreement", "pip box")
    if not realdata.available():
        return
    for (dataset, split) in {(e["dataset"], e["split"]) for e in entries}:
        labelled = {(p.path.name, d.box): d.value for s in realdata.SPLITS if s[0] == dataset
                    and realdata.folder_of(s[1]) == split for p in realdata.load_split(*s) for d in p.dice}
        for e in (e for e in entries if (e["dataset"], e["split"]) == (dataset, split)):
            assert labelled[(e["image"], tuple(e["box"]))] == e["label"], e


def test_the_card_shows_the_reviewed_figures_and_what_the_review_found():
    from companion.workshop.dice.cards import review_text

    row = {"dataset": DS, "split": SPLIT, "role": "valid", "photos": 10, "dice": 40, "recall": 1.0,
           "accuracy": 0.95, "accuracy_confident": 0.95, "uncertain": 0.0, "photos_all_right": 0.9,
           "extra_detections": 0, "labels_changed": 2}
    rows = label_review.summary_rows(_reviews(_review((0, 0, 9, 9), 3), _review((9, 0, 9, 9), TOP_HIDDEN)))
    text = review_text({"real_reviewed": [row], "label_review": rows})
    assert "Labels changed:\nset / valid 2." in text and "| set / valid | validation (not trained on) | 10 | 40 |" in text
    assert f"| {DS} / {SPLIT} | misread | 2 | 1 | 0 | 0 | 1 | 0 | 0 |" in text
    assert review_text({"real": []}) == ""


def test_a_thin_top_face_label_matches_the_whole_die_but_not_its_neighbour():
    top_face = (298, 46, 50, 16)  # matteop65: the top face alone of an oblique die, a strip above its centre
    whole_die, neighbour = (285, 34, 53, 62), (350, 34, 53, 62)
    assert realdata.match([whole_die], [top_face]) == [(0, 0)]
    assert realdata.match([neighbour], [top_face]) == []
    # one label, two finds: the nearer centre takes it, the other stays an extra find
    assert realdata.match([neighbour, whole_die], [top_face]) == [(1, 0)]


def test_a_first_look_against_the_label_gets_a_second_look_which_decides(tmp_path, monkeypatch):
    _dataset(tmp_path, [{"value": 3, "box": [20, 20, 40, 40]}, {"value": 4, "box": [120, 120, 40, 40]}])
    monkeypatch.setenv("COMPANION_DATASETS", str(tmp_path))
    review = tmp_path / "label_review.json"
    monkeypatch.setattr(label_review, "REVIEW_FILE", review)
    misread = {**_review((20, 20, 40, 40), 5, label=3)}  # the first look read 5 where the label says 3
    agreed = {**_review((120, 120, 40, 40), 4, label=4), "why": "agreement"}
    label_review.write_reviews([misread, agreed], review)
    items = label_review.second_looks()
    assert [(i["box"], i["second"]) for i in items] == [([20, 20, 40, 40], True)]
    out = tmp_path / "second"
    label_review.write_sheets(items, out, tile=300, context=1.5)
    (out / "pending.json").write_text(json.dumps(items))
    (out / "seen.txt").write_text("0 3\n")  # the second look agrees with the label
    assert label_review.merge(out) == 1
    entry = label_review.load_reviews()[label_review._key(DS, SPLIT, "p.jpg", (20, 20, 40, 40))]
    assert entry["seen"] == 3 and entry["first_look"] == 5 and entry["second_look"] is True
    assert label_review.outcome(entry) == "label right"
    assert label_review.second_looks() == []  # looked at twice: not again
