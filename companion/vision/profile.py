"""Dice profiles: the dice of one family's box, taught at the table (few-shot; no UI here).

A profile holds crops of the family's own dice, each with the face it shows, and crops of things on their
table that are not dice. The reader compares each die it finds with them in the classifier's embedding
space (``companion.vision.profile_match``), so a profile needs no training: teaching is adding crops.

    profile = DiceProfile.new("Eagle Kingdoms, kitchen table")
    profile.add("d6", 5, crop)                 # crop: the classifier's crop of the die (classify.crop)
    profile.missing_faces(("d6", "d8"))        # {"d6": [1, 2, 3, 4, 6], "d8": [1, ..., 8]}
    store = ProfileStore(user_dir / "dice_profiles")
    store.save(profile)                        # atomic: temp file, fsync, rename
    store.list(); store.rename(old, new); store.delete(name); store.load(name)

A profile file is JSON (never pickle): {"format", "version", "name", "crop": {"size", "scale"}, "created",
"updated", "examples": [{"kind", "value", "source", "crop": PNG as base64}], "negatives": [PNG as base64]}.
Loading checks every field; a damaged file gives one ProfileError with its reason, never a half profile.
"""

from __future__ import annotations

import base64
import datetime as _dt
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from companion.storage import write_atomic
from companion.vision.classes import COLOUR_FACES
from companion.vision.errors import VisionError

FORMAT = "companion-dice-profile"
VERSION = 1
# the faces each kind of die can show (a kind the reader reads; a label of another kind cannot be taught)
FACES: dict[str, tuple] = {"d6": tuple(range(1, 7)), "d8": tuple(range(1, 9)), "magpie": COLOUR_FACES}
SOURCES = ("taught", "confirmed", "corrected")  # shown at set-up; confirmed or corrected during play
MAX_PER_FACE = 24  # examples kept per face: the oldest confirmed ones go first, corrections last
MAX_NEGATIVES = 96
SUFFIX = ".json"


class ProfileError(VisionError):
    """A profile that cannot be used: damaged, of another format, or an impossible face."""


def check_face(kind: str, value) -> int | str:
    """The face as the profile keeps it (1-8 or a colour name); ProfileError when ``kind`` cannot show it."""
    if kind not in FACES:
        raise ProfileError(f"unknown die kind {kind!r}; the reader knows {', '.join(FACES)}")
    faces = FACES[kind]
    if isinstance(value, str) and value.isdigit() and kind != "magpie":
        value = int(value)
    if isinstance(value, bool) or value not in faces:
        shown = f"{faces[0]}-{faces[-1]}" if kind != "magpie" else ", ".join(faces)
        raise ProfileError(f"a {kind} cannot show {value!r} (its faces: {shown})")
    return value


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


def encode_crop(crop: np.ndarray) -> str:
    ok, png = cv2.imencode(".png", crop)
    if not ok:
        raise ProfileError("cannot encode a crop")
    return base64.b64encode(png.tobytes()).decode("ascii")


def decode_crop(text: str, size: int) -> np.ndarray:
    try:
        img = cv2.imdecode(np.frombuffer(base64.b64decode(text, validate=True), np.uint8), cv2.IMREAD_COLOR)
    except (ValueError, TypeError, cv2.error) as exc:
        raise ProfileError(f"a crop is not base64 PNG ({exc})") from exc
    if img is None or img.shape != (size, size, 3):
        raise ProfileError(f"a crop is not a {size}x{size} colour image")
    return img


@dataclass
class Example:
    kind: str
    value: int | str
    crop: np.ndarray  # size x size x 3 uint8, as classify.crop cuts it
    source: str = "taught"


@dataclass
class DiceProfile:
    name: str
    crop_size: int = 48
    crop_scale: float = 1.3
    examples: list[Example] = field(default_factory=list)
    negatives: list[np.ndarray] = field(default_factory=list)
    created: str = ""
    updated: str = ""

    @classmethod
    def new(cls, name: str, crop_size: int = 48, crop_scale: float = 1.3) -> DiceProfile:
        name = check_name(name)
        now = _now()
        return cls(name, crop_size, crop_scale, created=now, updated=now)

    # ------------------------------------------------------------- content
    def add(self, kind: str, value, crop: np.ndarray, source: str = "taught") -> Example:
        """Add one die's crop showing ``value``. ProfileError for a face the kind cannot show."""
        value = check_face(kind, value)
        if source not in SOURCES:
            raise ProfileError(f"unknown source {source!r}; one of {', '.join(SOURCES)}")
        self._check_crop(crop)
        ex = Example(kind, value, np.ascontiguousarray(crop, np.uint8), source)
        self.examples.append(ex)
        self._trim(kind, value)
        self.updated = _now()
        return ex

    def add_negative(self, crop: np.ndarray) -> None:
        """Something on this table that is not a die (a find the family said is no die)."""
        self._check_crop(crop)
        self.negatives.append(np.ascontiguousarray(crop, np.uint8))
        del self.negatives[:-MAX_NEGATIVES]
        self.updated = _now()

    def _check_crop(self, crop: np.ndarray) -> None:
        if not isinstance(crop, np.ndarray) or crop.shape != (self.crop_size, self.crop_size, 3):
            raise ProfileError(f"a crop must be {self.crop_size}x{self.crop_size}x3 (classify.crop)")

    def _trim(self, kind: str, value) -> None:
        same = [i for i, e in enumerate(self.examples) if e.kind == kind and e.value == value]
        extra = len(same) - MAX_PER_FACE
        if extra <= 0:
            return
        keep_last = {"corrected": 2, "taught": 1, "confirmed": 0}  # confirmed readings go first
        drop = sorted(same, key=lambda i: (keep_last[self.examples[i].source], i))[:extra]
        for i in sorted(drop, reverse=True):
            del self.examples[i]

    def kinds(self) -> tuple[str, ...]:
        return tuple(k for k in FACES if any(e.kind == k for e in self.examples))

    def counts(self) -> dict[str, dict]:
        """kind -> face -> examples (every face of each taught kind, 0 when missing)."""
        out: dict[str, dict] = {}
        for k in self.kinds():
            out[k] = {f: sum(1 for e in self.examples if e.kind == k and e.value == f) for f in FACES[k]}
        return out

    def missing_faces(self, kinds=None) -> dict[str, list]:
        """Faces with no example yet, per kind (``kinds``: the kinds of the box; default the taught ones)."""
        kinds = self.kinds() if kinds is None else tuple(kinds)
        out = {}
        for k in kinds:
            check_face(k, FACES.get(k, (None,))[0])  # an unknown kind raises
            out[k] = [f for f in FACES[k] if not any(e.kind == k and e.value == f for e in self.examples)]
        return out

    def summary(self) -> dict:
        return {"name": self.name, "dice": len(self.examples), "negatives": len(self.negatives),
                "faces": {k: {str(f): n for f, n in c.items()} for k, c in self.counts().items()},
                "missing": {k: v for k, v in self.missing_faces().items() if v}, "updated": self.updated}

    # ------------------------------------------------------------- files
    def to_json(self) -> dict:
        return {"format": FORMAT, "version": VERSION, "name": self.name,
                "crop": {"size": self.crop_size, "scale": self.crop_scale},
                "created": self.created, "updated": self.updated,
                "examples": [{"kind": e.kind, "value": e.value, "source": e.source, "crop": encode_crop(e.crop)}
                             for e in self.examples],
                "negatives": [encode_crop(c) for c in self.negatives]}

    @classmethod
    def from_json(cls, data) -> DiceProfile:
        """The profile in ``data``; ProfileError naming the first thing wrong."""
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ProfileError("not a dice profile (no \"format\": \"companion-dice-profile\")")
        if data.get("version") != VERSION:
            raise ProfileError(f"dice profile version {data.get('version')!r}; this reader reads version {VERSION}")
        try:
            size, scale = int(data["crop"]["size"]), float(data["crop"]["scale"])
            if not (8 <= size <= 256 and 0.5 <= scale <= 4):
                raise ValueError(f"crop size {size} / scale {scale}")
            profile = cls(check_name(data["name"]), size, scale, created=str(data.get("created", "")),
                          updated=str(data.get("updated", "")))
            for i, e in enumerate(data["examples"]):
                try:
                    value = check_face(e["kind"], e["value"])
                    if e.get("source", "taught") not in SOURCES:
                        raise ProfileError(f"unknown source {e.get('source')!r}")
                    profile.examples.append(Example(e["kind"], value, decode_crop(e["crop"], size),
                                                    e.get("source", "taught")))
                except ProfileError as exc:
                    raise ProfileError(f"example {i + 1}: {exc.reason}") from exc
            profile.negatives = [decode_crop(c, size) for c in data.get("negatives", [])]
        except ProfileError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ProfileError(f"damaged dice profile ({type(exc).__name__}: {exc})") from exc
        return profile

    def save(self, path) -> Path:
        """Write atomically: a temporary file beside ``path``, flushed to disk, then renamed over it."""
        path = Path(path)
        write_atomic(path, json.dumps(self.to_json(), separators=(",", ":")) + "\n")  # temp file, fsync, rename
        return path

    @classmethod
    def load(cls, path) -> DiceProfile:
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError as exc:
            raise ProfileError(f"no dice profile at {path}") from exc
        except (OSError, UnicodeDecodeError) as exc:
            raise ProfileError(f"cannot read dice profile {path}: {exc}") from exc
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise ProfileError(f"dice profile {path} is damaged (not JSON: {exc})") from exc
        try:
            return cls.from_json(data)
        except ProfileError as exc:
            raise ProfileError(f"dice profile {path}: {exc.reason}") from exc


def check_name(name) -> str:
    if not isinstance(name, str) or not name.strip():
        raise ProfileError("a dice profile needs a name")
    name = " ".join(name.split())
    if len(name) > 80:
        raise ProfileError("a dice profile's name is at most 80 characters")
    return name


def file_stem(name: str) -> str:
    """A file name for a profile's name: letters, digits and dashes ("Eagle Kingdoms!" -> "eagle-kingdoms")."""
    stem = re.sub(r"[^0-9a-z]+", "-", check_name(name).lower()).strip("-")
    return stem or "profile"


class ProfileStore:
    """The profiles of one user, one file per box in one folder: list, load, save, rename, delete."""

    def __init__(self, folder):
        self.folder = Path(folder)

    def path(self, name: str) -> Path:
        return self.folder / (file_stem(name) + SUFFIX)

    def names(self) -> list[str]:
        return [e["name"] for e in self.list() if "error" not in e]

    def list(self) -> list[dict]:
        """One entry per profile file: its summary, or {"file", "error"} for a damaged one."""
        out = []
        for path in sorted(self.folder.glob("*" + SUFFIX)) if self.folder.is_dir() else []:
            try:
                out.append({"file": path.name, **DiceProfile.load(path).summary()})
            except ProfileError as exc:
                out.append({"file": path.name, "error": exc.reason})
        return out

    def load(self, name: str) -> DiceProfile:
        return DiceProfile.load(self.path(name))

    def save(self, profile: DiceProfile) -> Path:
        return profile.save(self.path(profile.name))

    def rename(self, old: str, new: str) -> DiceProfile:
        """Rename a profile (its file follows): ProfileError when there is none, or the new name is taken."""
        profile = self.load(old)
        new = check_name(new)
        target, source = self.path(new), self.path(old)
        if target.exists() and target != source:
            raise ProfileError(f"there is already a dice profile named like {new!r}")
        profile.name = new
        profile.updated = _now()
        self.save(profile)
        if target != source:
            source.unlink()
        return profile

    def delete(self, name: str) -> None:
        path = self.path(name)
        if not path.is_file():
            raise ProfileError(f"no dice profile named {name!r}")
        path.unlink()
