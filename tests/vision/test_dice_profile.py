"""Dice profiles (teach your dice): files, the store, teaching at the table and from folders, reading with one."""

import json
import os

import cv2
import numpy as np
import pytest

from companion.cli import main
from companion.vision.profile import MAX_PER_FACE, DiceProfile, ProfileError, ProfileStore, check_face
from companion.vision.profile_match import Match, ProfileMatcher
from companion.workshop.dice.synth import random_material, render_scene


def _crop(seed: int, size: int = 48) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, (size, size, 3), dtype=np.uint8)


def _profile(name: str = "Eagle Kingdoms") -> DiceProfile:
    p = DiceProfile.new(name)
    p.add("d6", 3, _crop(1))
    p.add("d6", 5, _crop(2), "confirmed")
    p.add("d8", "7", _crop(3), "corrected")
    p.add_negative(_crop(4))
    return p


@pytest.fixture
def reader(thumbnails):
    from companion.vision.reader import DiceReader

    return DiceReader(kinds=("d6",), threads=1, backend="onnxruntime")


# ---------------------------------------------------------------- the file
def test_a_profile_round_trips_through_its_file(tmp_path):
    p = _profile()
    path = p.save(tmp_path / "ek.json")
    q = DiceProfile.load(path)
    assert (q.name, q.crop_size, q.crop_scale) == ("Eagle Kingdoms", 48, 1.3)
    assert [(e.kind, e.value, e.source) for e in q.examples] == [("d6", 3, "taught"), ("d6", 5, "confirmed"),
                                                                  ("d8", 7, "corrected")]
    assert all(np.array_equal(a.crop, b.crop) for a, b in zip(p.examples, q.examples, strict=True))
    assert np.array_equal(q.negatives[0], p.negatives[0])
    assert q.kinds() == ("d6", "d8")
    assert oct(path.stat().st_mode & 0o777) == "0o644"  # a user's file, not mkstemp's private one
    assert not [f for f in tmp_path.iterdir() if f.name != "ek.json"]  # no temporary file left


def test_missing_faces_are_listed_per_kind():
    p = _profile()
    assert p.missing_faces() == {"d6": [1, 2, 4, 6], "d8": [1, 2, 3, 4, 5, 6, 8]}
    assert p.missing_faces(("magpie",)) == {"magpie": ["yellow", "blue", "red", "green", "magpie"]}
    assert p.summary()["faces"]["d6"] == {"1": 0, "2": 0, "3": 1, "4": 0, "5": 1, "6": 0}


@pytest.mark.parametrize("kind,value,words", [("d6", 7, "a d6 cannot show 7 (its faces: 1-6)"),
                                              ("d8", 0, "a d8 cannot show 0"),
                                              ("magpie", "purple", "cannot show 'purple'"),
                                              ("d20", 3, "unknown die kind 'd20'")])
def test_a_face_the_kind_cannot_show_is_refused(kind, value, words):
    with pytest.raises(ProfileError, match=words.replace("(", r"\(").replace(")", r"\)")):
        check_face(kind, value)
    p = _profile()
    with pytest.raises(ProfileError):
        p.add(kind, value, _crop(9))
    assert len(p.examples) == 3


def test_each_face_keeps_a_bounded_number_of_examples_dropping_confirmed_ones_before_corrections():
    p = DiceProfile.new("x")
    p.add("d6", 2, _crop(0), "corrected")
    for i in range(MAX_PER_FACE + 5):
        p.add("d6", 2, _crop(i + 1), "confirmed")
    sources = [e.source for e in p.examples]
    assert len(sources) == MAX_PER_FACE and sources.count("corrected") == 1


@pytest.mark.parametrize("damage,words", [
    (lambda text: text[: len(text) // 2], "not JSON"),
    (lambda text: "", "not JSON"),
    (lambda text: json.dumps({"format": "something else"}), "not a dice profile"),
    (lambda text: text.replace('"version":1', '"version":99'), "version 99"),
    (lambda text: text.replace('"value":3', '"value":9'), "example 1: a d6 cannot show 9"),
    (lambda text: text.replace('"crop":"iVBOR', '"crop":"#BOR', 1), "not base64 PNG"),
    (lambda text: text.replace('"name":"Eagle Kingdoms"', '"name":""'), "needs a name"),
])
def test_a_damaged_profile_gives_one_clear_reason(tmp_path, capsys, damage, words):
    path = _profile().save(tmp_path / "p.json")
    path.write_text(damage(path.read_text()))
    with pytest.raises(ProfileError, match=words) as err:
        DiceProfile.load(path)
    assert "\n" not in err.value.reason and str(path) in err.value.reason
    image = tmp_path / "frame.png"
    cv2.imwrite(str(image), np.full((64, 64, 3), 90, np.uint8))
    assert main(["dice", str(image), "--profile", str(path), "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.strip().splitlines()) == 1 and words in captured.err


def test_a_save_that_fails_leaves_the_old_profile_whole(tmp_path, monkeypatch):
    path = _profile().save(tmp_path / "p.json")
    before = path.read_bytes()
    bigger = _profile()
    bigger.add("d6", 1, _crop(7))

    def broken_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError):
        bigger.save(path)
    assert path.read_bytes() == before
    assert [f.name for f in tmp_path.iterdir()] == ["p.json"]


# ---------------------------------------------------------------- the store
def test_the_store_lists_renames_and_deletes_profiles_per_box(tmp_path):
    store = ProfileStore(tmp_path / "profiles")
    assert store.list() == []
    store.save(_profile("Eagle Kingdoms"))
    store.save(_profile("Mighty Magpies"))
    (tmp_path / "profiles" / "broken.json").write_text("{")
    listed = store.list()
    assert [e.get("name") for e in listed] == [None, "Eagle Kingdoms", "Mighty Magpies"]
    assert "not JSON" in listed[0]["error"] and listed[1]["missing"]["d6"] == [1, 2, 4, 6]
    assert store.names() == ["Eagle Kingdoms", "Mighty Magpies"]
    store.rename("Eagle Kingdoms", "Eagle Kingdoms (grandma's box)")
    assert store.names() == ["Eagle Kingdoms (grandma's box)", "Mighty Magpies"]
    assert not store.path("Eagle Kingdoms").exists()
    with pytest.raises(ProfileError, match="already"):
        store.rename("Mighty Magpies", "eagle kingdoms grandma's box")  # the same file name
    store.delete("Mighty Magpies")
    assert store.names() == ["Eagle Kingdoms (grandma's box)"]
    with pytest.raises(ProfileError, match="no dice profile named"):
        store.delete("Mighty Magpies")
    with pytest.raises(ProfileError, match="no dice profile at"):
        store.load("Falconry")


# ---------------------------------------------------------------- deciding a reading
def _matcher_decide(config=None):
    m = ProfileMatcher.__new__(ProfileMatcher)
    from companion.vision.profile_match import DEFAULTS

    m.config = {**DEFAULTS, **(config or {})}
    m.left_out, m.sure_from = {}, {}  # nothing measured on taught dice: the rules alone
    return m


def _m(face, nearest, non_die=-1.0):
    return Match(face, nearest - 0.05, nearest - 0.3, non_die, 0.9, nearest, face, nearest)


def test_a_die_unlike_the_taught_ones_keeps_the_generic_reading():
    m = _matcher_decide()
    far = m.config["resembles"] - 0.2
    assert m.decide(_m(("d6", 4), far), ("d6", 5), 0.99, True) == (("d6", 5), True, "generic")
    assert m.decide(_m(("d6", 4), far), ("d6", 5), 0.7, False) == (("d6", 5), False, "generic")


def test_a_profile_that_reads_another_face_flags_the_reading_and_never_makes_one_sure_alone():
    m = _matcher_decide()
    like = (m.config["resembles"] + m.config["same"]) / 2
    assert m.decide(_m(("d6", 4), like), ("d6", 5), 0.999, True) == (("d6", 5), False, "taught")
    # another die the profile has never seen a face of: it cannot vouch, the generic reading stands
    assert m.decide(_m(None, -1.0), ("d6", 5), 0.999, True) == (("d6", 5), True, "generic")


def test_a_familiar_die_read_alike_by_both_is_sure_from_a_lower_confidence():
    m = _matcher_decide()
    familiar, bar = m.config["familiar"] + 0.01, m.config["agree_above"]
    assert m.decide(_m(("d6", 4), familiar), ("d6", 4), bar + 0.01, False) == (("d6", 4), True, "taught")
    assert m.decide(_m(("d6", 4), familiar), ("d6", 4), bar - 0.01, False) == (("d6", 4), False, "taught")
    # the d8 is always confirmed: agreement alone does not make it sure
    assert m.decide(_m(("d8", 4), familiar), ("d8", 4), 0.99, False, ("d8",))[1] is False


def test_the_taught_crop_itself_reads_as_taught_even_against_the_generic_reader():
    m = _matcher_decide()
    assert m.decide(_m(("d6", 4), 0.99), ("d6", 5), 0.999, True) == (("d6", 4), True, "taught")
    # a kind always confirmed (the d8) shows the taught face, for a tap
    assert m.decide(_m(("d8", 4), 0.99), ("d8", 5), 0.999, False, ("d8",)) == (("d8", 4), False, "taught")


def test_something_of_this_table_that_is_not_a_die_is_dropped_unless_the_generic_reader_is_sure():
    m = _matcher_decide()
    assert m.decide(_m(("d6", 4), 0.8, non_die=0.95), ("d6", 4), 0.7, False)[2] == "not a die"
    assert m.decide(_m(("d6", 4), 0.8, non_die=0.95), ("d6", 4), 0.99, True)[2] != "not a die"
    # a d8 whose faces the embedding mixes up: its face's mean similarity is low, but one taught d8 is nearer to
    # it than any non-die, so it is a die (asked), not dropped
    d8 = Match(("d8", 2), 0.85, 0.84, 0.92, 0.2, 0.9, ("d8", 2), 0.5, {"d8": 0.95})
    assert m.decide(d8, ("d8", 2), 0.6, False, ("d8",)) == (("d8", 2), False, "generic")


def test_an_agreeing_reading_far_more_like_its_face_than_any_other_is_sure():
    m = _matcher_decide()
    c = m.config
    clear = Match(("d6", 4), 0.8, 0.8 - c["margin"] - 0.01, -1.0, 0.9, c["margin_near"] + 0.01, ("d6", 4), 0.5)
    assert clear.nearest < c["familiar"]  # not familiar: before the margin rule, the generic reading stood
    assert m.decide(clear, ("d6", 4), c["margin_above"] + 0.001, False) == (("d6", 4), True, "taught")
    assert m.decide(clear, ("d6", 4), c["margin_above"] - 0.01, False)[1] is False
    close = Match(("d6", 4), 0.8, 0.8 - c["margin"] + 0.02, -1.0, 0.9, c["margin_near"] + 0.01, ("d6", 4), 0.5)
    assert m.decide(close, ("d6", 4), 0.97, False)[1] is False  # another face almost as like it
    alone = Match(("d6", 4), 0.8, -1.0, -1.0, 1.0, c["margin_near"] + 0.01, ("d6", 4), 0.5)
    assert m.decide(alone, ("d6", 4), 0.97, False)[1] is False  # no other face taught: no margin to measure


def _d8(face, nearest, kind_nearest):
    return Match(("d8", face), nearest - 0.05, nearest - 0.3, -1.0, 0.9, nearest, ("d8", face), 0.5,
                 {"d8": kind_nearest})


def test_a_taught_d8_is_sure_from_the_level_its_taught_dice_were_read_right_at():
    m = _matcher_decide()
    like = m.config["resembles"] + 0.05
    assert m.decide(_d8(3, 0.5, like), ("d8", 3), 0.999, False, ("d8",))[1] is False  # nothing checked: asked
    m.sure_from = {"d8": 0.98}
    assert m.decide(_d8(3, 0.5, like), ("d8", 3), 0.985, False, ("d8",)) == (("d8", 3), True, "taught")
    assert m.decide(_d8(3, 0.5, like), ("d8", 3), 0.975, False, ("d8",)) == (("d8", 3), False, "generic")
    # a d8 unlike every taught d8 (another box's die) is asked
    assert m.decide(_d8(3, 0.5, m.config["resembles"] - 0.1), ("d8", 3), 0.999, False, ("d8",))[1] is False
    # where the embedding tells d8 faces apart, a taught d8 of another face like the find flags it ...
    assert m.decide(_d8(5, like, like), ("d8", 3), 0.999, False, ("d8",))[1] is False
    # ... and where it cannot (measured on the taught dice), it has no say
    m.left_out = {"d8": 0.2}
    assert m.decide(_d8(5, like, like), ("d8", 3), 0.999, False, ("d8",))[1] is True


def test_an_embedding_that_cannot_tell_a_kinds_faces_apart_neither_flags_nor_vouches():
    m = _matcher_decide()
    like = (m.config["resembles"] + m.config["same"]) / 2
    m.left_out = {"d6": m.config["tells_apart"] - 0.1}
    assert m.decide(_m(("d6", 4), like), ("d6", 5), 0.999, True) == (("d6", 5), True, "generic")
    assert m.decide(_m(("d6", 5), 0.95), ("d6", 5), 0.92, False) == (("d6", 5), False, "generic")


class _StubClassifier:
    """Embeds and reads crops by the id in their first pixel: what the taught-dice checks are measured with."""

    has_embedding = True
    config = {"size": 48, "crop_scale": 1.3}

    def __init__(self, embeddings: dict, readings: dict):
        self.embeddings, self.readings = embeddings, readings

    def embed_crops(self, crops):
        return np.stack([self.embeddings[int(c[0, 0, 0])] for c in crops])

    def embedding_dim(self):
        return len(next(iter(self.embeddings.values())))

    def probabilities_of_crops(self, crops, kinds=None, once=False):
        from companion.vision.classes import CLASSES

        out = np.zeros((len(crops), len(CLASSES)), np.float32)
        for row, c in enumerate(crops):
            face, conf = self.readings[int(c[0, 0, 0])]
            out[row, CLASSES.index(face)] = conf
            out[row, -1] = 1 - conf
        return out


def _taught(faces, readings, embed):
    """A profile of one crop per (kind, value) in ``faces`` and a stub reading crop i as readings[i]."""
    p = DiceProfile.new("stub")
    embeddings = {}
    for i, (kind, value) in enumerate(faces):
        crop = np.full((48, 48, 3), 128, np.uint8)
        crop[0, 0, 0] = crop[0, -1, 0] = crop[-1, 0, 0] = crop[-1, -1, 0] = i  # its mirror image and its turns too
        p.add(kind, value, crop)
        e = embed(i, kind, value)
        embeddings[i] = e / np.linalg.norm(e)
    return p, _StubClassifier(embeddings, {i: r for i, r in enumerate(readings)})


def test_the_taught_dice_measure_whether_the_embedding_tells_faces_apart_and_how_surely_d8s_are_read():
    rng = np.random.default_rng(0)
    centres = np.eye(16)
    faces = [("d6", 1 + i % 6) for i in range(18)] + [("d8", 1 + i % 8) for i in range(16)]

    def embed(i, kind, value):  # d6 faces cluster; d8 crops lie anywhere in the d8 half of the space
        if kind == "d6":
            return centres[value] + 0.1 * rng.normal(size=16)
        return np.concatenate([np.zeros(8), rng.normal(size=8)])

    right = [(f, 0.99) for f in faces]
    profile, stub = _taught(faces, right, embed)
    m = ProfileMatcher(profile, stub)
    assert m.left_out["d6"] == 1.0 and m.tells_apart("d6")
    assert m.left_out["d8"] < m.config["tells_apart"] and not m.tells_apart("d8")
    assert m.sure_from == {"d6": 0.95, "d8": 0.95}
    # one taught d8 read as another face at 0.96: the d8 is sure only from 0.98 ...
    misread = list(right)
    misread[20] = (("d8", 4), 0.96)
    profile, stub = _taught(faces, misread, embed)
    assert ProfileMatcher(profile, stub).sure_from["d8"] == 0.98
    # ... and a taught d8 misread at 0.995 leaves the d8 always confirmed
    misread[20] = (("d8", 4), 0.995)
    profile, stub = _taught(faces, misread, embed)
    assert "d8" not in ProfileMatcher(profile, stub).sure_from


def test_too_few_taught_dice_to_measure_leave_the_embedding_its_say():
    faces = [("d6", v) for v in range(1, 7)] + [("d6", v) for v in range(1, 6)]  # 10 dice of faces taught twice
    profile, stub = _taught(faces, [(f, 0.99) for f in faces], lambda i, k, v: np.random.default_rng(i).normal(size=8))
    m = ProfileMatcher(profile, stub)
    assert m.left_out == {} and m.tells_apart("d6")


class _TurnStub(_StubClassifier):
    """Reads crop i as readings[i] as it is; turned by a quarter turn (its green corner marker gone from the
    top left), as ``turned_as`` says: the same face (a camera looking down) or the next one (a leaning camera)."""

    def __init__(self, embeddings, readings, turned_as):
        super().__init__(embeddings, readings)
        self.turned_as = turned_as

    def probabilities_of_crops(self, crops, kinds=None, once=False):
        from companion.vision.classes import CLASSES

        out = super().probabilities_of_crops(crops, kinds, once)
        for row, c in enumerate(crops):
            if c[0, 0, 1] != 200:  # turned
                face, conf = self.readings[int(c[0, 0, 0])]
                out[row] = 0
                out[row, CLASSES.index(self.turned_as(face))] = conf
                out[row, -1] = 1 - conf
        return out


def _taught_upright(n, turned_as):
    faces = [("d6", 1 + i % 6) for i in range(n)]
    profile, stub = _taught(faces, [(f, 0.99) for f in faces], lambda i, k, v: np.eye(16)[v] + 0.01 * i)
    for e in profile.examples:
        e.crop[0, 0, 1] = 200  # the top left corner's marker: which way up the crop is
    return profile, _TurnStub(stub.embeddings, stub.readings, turned_as)


def test_taught_dice_read_alike_at_every_quarter_turn_mean_the_camera_looks_down_on_the_table():
    """Issue 21 (docs/vision-notes.md, dice reader ruling 16): a face seen from above has no up and down; one
    seen by a leaning camera has, and the generic reader misreads it turned."""
    profile, stub = _taught_upright(12, lambda face: face)
    assert ProfileMatcher(profile, stub).seen_from_above
    profile, stub = _taught_upright(12, lambda face: ("d6", 1 + face[1] % 6))
    assert not ProfileMatcher(profile, stub).seen_from_above
    profile, stub = _taught_upright(7, lambda face: face)  # too few taught dice to tell
    assert not ProfileMatcher(profile, stub).seen_from_above


def test_crops_read_once_are_not_read_again_mirrored_when_doubtful(reader):
    """What the camera-looking-down share is measured with: one look per crop (with the mirrored second look the
    leaning sets' taught dice read alike turned too; docs/vision-notes.md, session 15)."""
    from companion.vision.classify import kind_mask, normalize
    from companion.vision.confidence import softmax

    scene = render_scene(np.random.default_rng(7), 360, 480, n_dice=3, size_range=(60, 90), kinds=("d6",),
                         allow_fingers=False, effects=False)
    crops = reader.classifier.crops(scene.image, [d.box for d in scene.dice])
    cls = reader.classifier
    logits = cls.session.run(["logits"], {cls.input: normalize(crops)})[0]
    one_look = softmax(np.where(kind_mask(("d6",))[None], logits, -1e9))
    doubtful = softmax(logits).max(1) < cls.config["mirror_below"]
    assert doubtful.any()
    once = cls.probabilities_of_crops(crops, ("d6",), once=True)
    np.testing.assert_allclose(once, one_look, atol=1e-6)
    twice = cls.probabilities_of_crops(crops, ("d6",))
    assert not np.allclose(twice[doubtful], one_look[doubtful], atol=1e-4)


def test_a_profile_taught_by_a_camera_looking_down_reads_every_die_as_seen_from_above(reader):
    """Without a board pose, the dice of a table whose taught dice read alike turned are read as the table
    pipeline reads dice it sees from above (turned as well when doubtful; models/dice_classifier.md)."""
    frame = render_scene(np.random.default_rng(7), 360, 480, n_dice=3, size_range=(60, 90), kinds=("d6",),
                         allow_fingers=False, effects=False).image
    side = {r.box: r.confidence for r in reader.read(frame)}
    above = {r.box: r.confidence for r in reader.read(frame, lambda centres: np.zeros(len(centres)))}
    assert side != above  # a doubtful die here reads otherwise turned
    taught = render_scene(np.random.default_rng(8), 360, 480, n_dice=3, size_range=(60, 90), kinds=("d6",),
                          allow_fingers=False, effects=False)
    profile = DiceProfile.new("t")
    profile.add("d6", taught.dice[0].value, reader.classifier.crops(taught.image, [taught.dice[0].box])[0])
    try:
        reader.set_profile(profile, {"above_min_dice": 0, "above_share": 0.0})  # measured: looking down
        assert reader.matcher.seen_from_above
        assert {r.box: r.confidence for r in reader.read(frame)} == above
        reader.set_profile(profile, {"above_min_dice": 0, "above_share": 1.01})  # measured: a leaning camera
        assert {r.box: r.confidence for r in reader.read(frame)} == side
    finally:
        reader.set_profile(None)


# ---------------------------------------------------------------- at the table
def _one_die_frame(rng, kind="d6"):
    s = render_scene(rng, 240, 320, n_dice=1, size_range=(70, 90), kinds=(kind,), allow_fingers=False,
                     effects=False, upright=False)
    return s.image, s.dice[0]


def test_a_corrected_mistake_is_not_made_again_with_the_same_die(reader):
    from companion.vision.teach_dice import DiceTeacher

    rng = np.random.default_rng(3)
    frames = [render_scene(rng, 360, 480, n_dice=3, size_range=(60, 90), kinds=("d6",), allow_fingers=False,
                           effects=False) for _ in range(3)]
    readings = reader.read(frames[0].image)
    assert readings
    wrong = readings[0]
    other = 1 + wrong.value % 6  # the family says it shows another face (whatever the die shows)
    teacher = DiceTeacher(reader, DiceProfile.new("t"))
    try:
        teacher.confirm(frames[0].image, readings, [("d6", other)] + [None] * (len(readings) - 1))
        again = {r.box: r for r in reader.read(frames[0].image)}
        assert (again[wrong.box].value, again[wrong.box].uncertain) == (other, False)
        assert [e.source for e in teacher.profile.examples].count("corrected") == 1
        assert len(teacher.profile.examples) == len(readings)
    finally:
        reader.set_profile(None)


def test_showing_one_face_teaches_it_and_two_dice_in_view_are_refused(reader):
    from companion.vision.teach_dice import DiceTeacher, TeachError

    rng = np.random.default_rng(5)
    image, die = _one_die_frame(rng)
    teacher = DiceTeacher(reader, DiceProfile.new("t"))
    try:
        shown = teacher.show(image, "d6", die.value)
        assert shown.value == die.value and teacher.missing(("d6",))["d6"] == [f for f in range(1, 7) if f != die.value]
        two = render_scene(rng, 240, 480, n_dice=2, size_range=(70, 90), kinds=("d6",), allow_fingers=False,
                           effects=False)
        if len(reader.read(two.image)) == 2:
            with pytest.raises(TeachError, match="one die at a time"):
                teacher.show(two.image, "d6", 2)
        with pytest.raises(TeachError, match="no die found"):
            teacher.show(np.full((240, 320, 3), 128, np.uint8), "d6", 2)
        with pytest.raises(ProfileError, match="cannot show 9"):
            teacher.show(image, "d6", 9)
        assert len(teacher.profile.examples) == 1
    finally:
        reader.set_profile(None)


# ---------------------------------------------------------------- companion teach-dice FOLDER... --out
@pytest.fixture(scope="module")
def teaching_folder(tmp_path_factory):
    """Six photos of one set of dice (one material) on one table, labelled as in ../shared/datasets."""
    folder = tmp_path_factory.mktemp("teach")
    rng = np.random.default_rng(21)
    material = random_material(rng)
    labels = {}
    for i in range(6):
        s = render_scene(rng, 360, 480, n_dice=3, size_range=(60, 90), kinds=("d6",), allow_fingers=False,
                         effects=False, material=material, upright=False)
        cv2.imwrite(str(folder / f"roll{i}.png"), s.image)
        labels[f"roll{i}.png"] = [{"value": d.value, "box": [int(v) for v in d.box]} for d in s.dice]
    labels["roll0.png"][0]["kind"] = "d20"  # a kind the reader does not read: left out, not an error
    (folder / "labels.json").write_text(json.dumps(labels))
    return folder


def test_teach_dice_writes_a_profile_and_dice_reads_with_it_in_todays_json(teaching_folder, tmp_path, capsys):
    out = tmp_path / "box.json"
    assert main(["teach-dice", str(teaching_folder), "--out", str(out), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["name"] == "box" and summary["taught_now"]["dice"] == 17
    assert summary["taught_now"]["skipped"] == {"d20": 1}
    profile = DiceProfile.load(out)
    assert profile.kinds() == ("d6",) and len(profile.examples) == 17
    assert main(["dice", str(teaching_folder / "roll5.png"), "--profile", str(out), "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert set(obj) == {"image", "dice", "ms"} and obj["dice"]
    for d in obj["dice"]:
        assert set(d) == {"kind", "value", "confidence", "box", "uncertain"} and d["kind"] == "d6"


def _folder_with(tmp_path, labels, images=("a.png",)):
    folder = tmp_path / "photos"
    folder.mkdir()
    for name in images:
        cv2.imwrite(str(folder / name), np.full((100, 120, 3), 80, np.uint8))
    if labels is not None:
        (folder / "labels.json").write_text(labels if isinstance(labels, str) else json.dumps(labels))
    return folder


@pytest.mark.parametrize("labels,images,words", [
    (None, ("a.png",), "no labels.json"),
    ({"a.png": [{"value": 2, "box": [1, 1, 20, 20]}], "gone.png": []}, ("a.png",), "labels 'gone.png', which is not in the folder"),
    ({"a.png": [{"value": 2, "box": [110, 10, 20, 20]}]}, ("a.png",), "lies outside the 120x100 image"),
    ({"a.png": [{"value": 2, "box": [-3, 10, 20, 20]}]}, ("a.png",), "lies outside"),
    ({"a.png": [{"value": 7, "box": [1, 1, 20, 20]}]}, ("a.png",), "a d6 cannot show 7"),
    ({"a.png": [{"value": 9, "box": [1, 1, 20, 20], "kind": "d8"}]}, ("a.png",), "a d8 cannot show 9"),
    ({"a.png": [{"value": "orange", "box": [1, 1, 20, 20], "kind": "magpie"}]}, ("a.png",), "cannot show 'orange'"),
    ({"a.png": [{"box": [1, 1, 20, 20]}]}, ("a.png",), 'needs "value" and "box"'),
    ("{not json", ("a.png",), "not readable JSON"),
    ({"a.png": []}, ("a.png",), "no labelled dice"),
    (None, (), "the folder is empty"),
])
def test_bad_teaching_input_gives_one_line_and_writes_nothing(tmp_path, capsys, labels, images, words):
    folder = _folder_with(tmp_path, labels, images)
    out = tmp_path / "box.json"
    assert main(["teach-dice", str(folder), "--out", str(out)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.strip().splitlines()) == 1 and words in captured.err
    assert not out.exists()


def test_a_bad_folder_among_good_ones_leaves_an_existing_profile_unchanged(teaching_folder, tmp_path, capsys):
    out = _profile().save(tmp_path / "box.json")
    before = out.read_bytes()
    missing = tmp_path / "nowhere"
    assert main(["teach-dice", str(teaching_folder), str(missing), "--out", str(out)]) == 2
    assert "no such folder" in capsys.readouterr().err
    assert out.read_bytes() == before


def test_a_profile_of_other_dice_still_loads_and_is_used(teaching_folder, tmp_path, capsys):
    """A profile taught on other dice (here: one colour die on another table) loads and reads; readings it
    would take otherwise than the generic reader are flagged (test above), never an error."""
    rng = np.random.default_rng(8)
    other = tmp_path / "other"
    other.mkdir()
    s = render_scene(rng, 240, 320, n_dice=1, size_range=(70, 90), kinds=("magpie",), allow_fingers=False, effects=False)
    cv2.imwrite(str(other / "m.png"), s.image)
    (other / "labels.json").write_text(json.dumps({"m.png": [{"value": s.dice[0].value, "kind": "magpie",
                                                              "box": [int(v) for v in s.dice[0].box]}]}))
    out = tmp_path / "magpies.json"
    assert main(["teach-dice", str(other), "--out", str(out)]) == 0
    capsys.readouterr()
    assert main(["dice", str(teaching_folder / "roll1.png"), "--profile", str(out), "--kinds", "d6", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["dice"]
