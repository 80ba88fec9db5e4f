"""Dice in context: which of the dice reader's finds are dice, given what the table pipeline knows.

With the board in view the dice reader also "finds" the game's pieces: character stands, owls, magpie
discs, cards, the printed markers (issue 20). No look of a find tells them apart reliably -- on the
project's renders pieces read as dice at up to 1.00 confidence, and read the same when the crop is
shifted or scaled -- so this stage uses what the pipeline knows instead (``docs/vision-notes.md``,
dice reader ruling 15):

- the **board pose and map**: a find on one of the board's markers is the marker; a find on a space
  that holds a piece (or, with no settled reading, on any space, which may hold one) is suspect;
- the board's **last settled reading** (``settled``): which spaces hold pieces, so a die on an empty
  space or on the bare board between the spaces is kept;
- **what changed since the frame before the roll** (``before``): a die thrown onto the table changed the
  pixels where it lies; a stand that stood there all along did not. A find where nothing changed is
  not a thrown die; a suspect find where its die-sized middle changed is one (a die thrown onto a
  space that holds a piece is kept);
- **how many dice of which kinds the roll has** (``expected``): more finds than that, the ones that
  changed most and read most clearly are kept and the clearly worse rest is rejected. When the extras
  are as good as the rest nothing is dropped: only the players know which die is out of play.

Every rejection carries a reason in plain words. :func:`filter_dice` is pure (it keeps nothing between
calls); :func:`find_boards` poses the bundled boards in a single picture for ``companion dice``.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from companion.vision.boardmap import BoardMap, BoardMapError, Region, load_board_map
from companion.vision.reader import Reading

# Thresholds (measured on rendered boards, docs/vision-notes.md dice reader ruling 15):
CHANGE_LEVEL = 30  # grey levels (after matching the two frames' exposure) a changed pixel differs by
CORE = 0.5  # the middle of a find's box (this share of its sides) is where a die lies: a die's box holds
#             its shadow and the table around it
CHANGED_MIN = 0.25  # share of the middle that changed: a die thrown there
UNCHANGED_MAX = 0.08  # at most this share changed: nothing new lies there
MARKER_MARGIN_MM = 5.0  # a marker's white quiet zone
SAME_FIT = 1.5  # two maps whose fits to the same markers are within this ratio (and 2 % of a side) both fit
MAX_DIE_MM = 90.0  # a find whose box spans more of the table than this is no die (dice are 12-25 mm;
#                    the detector's boxes of small dice hold two to three times that)


@dataclass
class DiceInContext:
    """The finds that are dice (``dice``), and the others with the reason (``rejected``)."""

    dice: list[Reading] = field(default_factory=list)
    rejected: list[tuple[Reading, str]] = field(default_factory=list)
    ms: float = 0.0

    def as_json(self) -> dict[str, Any]:
        return {"dice": [r.as_json() for r in self.dice],
                "rejected": [{**r.as_json(), "reason": why} for r, why in self.rejected]}


@dataclass(frozen=True)
class _Find:
    reading: Reading
    changed: float | None  # share of the box's middle that changed since before the roll; None: unknown
    region: Region | None = None
    marker: int | None = None
    size_mm: float | None = None
    relit: float | None = None  # the same share once the change of light round the find is taken out


# -- the filter -------------------------------------------------------------------------------------


def filter_dice(
    readings: Sequence[Reading],
    frame: np.ndarray,
    *,
    pose: Any = None,
    board: BoardMap | None = None,
    settled: Any = None,
    before: Any = None,
    expected: Mapping[str, int] | None = None,
) -> DiceInContext:
    """Split ``readings`` (the dice reader's finds in ``frame``) into dice and rejected finds.

    ``pose``: the board's :class:`~companion.vision.pose.PoseResult` in ``frame`` (or a 3x3 homography,
    board mm -> frame px); ``board``: its :class:`~companion.vision.boardmap.BoardMap`. Both are needed for
    the board's markers and spaces to count. ``settled``: the board's last settled
    :class:`~companion.vision.readers.Observation` (spaces with pieces; hidden and uncertain spaces count
    as holding one); without it every space may hold a piece. ``before``: the frame before the roll, as
    an image taken from where ``frame`` is (same size), or ``(image, pose)`` to have it aligned to
    ``frame`` through the two poses. ``expected``: dice kind -> how many the roll has (``{"d6": 2}``).
    """
    t0 = time.perf_counter()
    out = DiceInContext()
    H = _homography(pose)
    finds = [_locate(r, H, pose, board) for r in readings]
    changes = _changes(frame, before, [f.reading.box for f in finds], H)
    if changes is not None:
        finds = [dataclasses.replace(f, changed=c, relit=r) for f, (c, r) in zip(finds, changes, strict=True)]
    kept: list[_Find] = []
    for f in finds:
        why = _why_not(f, settled)
        if why:
            out.rejected.append((f.reading, why))
        else:
            kept.append(f)
    if expected is not None:
        kept = _trim_to_roll(kept, expected, out.rejected)
    out.dice = [f.reading for f in kept]
    out.ms = (time.perf_counter() - t0) * 1000
    return out


def _why_not(f: _Find, settled: Any) -> str:
    """Why the find is no thrown die ("" when it may be one)."""
    if f.changed is not None and f.changed <= UNCHANGED_MAX:
        return "nothing changed here since the frame before the roll: it is part of the board or a piece that stood there all along"
    if f.size_mm is not None and f.size_mm > MAX_DIE_MM:
        return f"too large for a die ({f.size_mm:.0f} mm across on the table)"
    # on a marker or a piece, a change that the light of the place alone explains (a shadow gone) is no die thrown
    new_here = f.changed is not None and f.changed >= CHANGED_MIN and (f.relit is None or f.relit >= CHANGED_MIN)
    if f.marker is not None and not new_here:
        return f"lies on the board's marker {f.marker}: its printed squares, not a die"
    if f.region is not None and not new_here:
        held = _held(settled, f.region.id)
        if held is None:
            return (f"lies on the board's space {f.region.id}, which may hold a piece; without the frame before "
                    "the roll a die there cannot be told from a piece")
        if held:
            return (f"lies on the board's space {f.region.id}, which holds {held}; without a change there since "
                    "before the roll it is taken for the piece")
    return ""


def _held(settled: Any, region_id: str) -> str | None:
    """What the settled reading has on a space, in words; "" when it is empty, None when unknown."""
    if settled is None or not getattr(settled, "usable", True):
        return None
    hidden = getattr(settled, "hidden", frozenset())
    if region_id in hidden:
        return None
    uncertain = getattr(settled, "is_uncertain", None)
    if uncertain is not None and uncertain(region_id):
        return None
    pieces = list((getattr(settled, "regions", None) or {}).get(region_id) or [])
    if not pieces:
        return ""
    return ", ".join(_piece_words(p) for p in pieces)


def _piece_words(piece: Any) -> str:
    """A piece of a reading in a few words: ``{"stand": 7}`` -> "a stand (7)", ``{"owl": {...}}`` -> "an owl"."""
    if isinstance(piece, Mapping):
        if len(piece) == 1:
            (name, value), = piece.items()
            detail = f" ({value})" if isinstance(value, (str, int, float)) and not isinstance(value, bool) else ""
        else:
            name, detail = str(piece.get("kind", "piece")), ""
    else:
        name, detail = str(piece), ""
    return f"{'an' if str(name)[:1] in 'aeiou' else 'a'} {name}{detail}"


def _trim_to_roll(kept: list[_Find], expected: Mapping[str, int], rejected: list[tuple[Reading, str]]) -> list[_Find]:
    """Keep, kind by kind, the roll's number of dice, best first (changed most, read most clearly); the
    rest is rejected when it is clearly worse than the last one kept, else kept (the family decides).
    A find of a kind the roll does not have fills a place the roll's dice leave empty, marked uncertain
    (a die whose kind was misread), and is rejected otherwise."""
    want = {k: int(n) for k, n in expected.items() if int(n) > 0}
    ranked = sorted(range(len(kept)), key=lambda i: _rank(kept[i]))
    out: dict[int, _Find] = {}
    for kind, n in want.items():
        mine = [i for i in ranked if kept[i].reading.kind == kind]
        out.update((i, kept[i]) for i in mine[:n])
        for i in mine[n:]:
            if _tier(kept[i]) > _tier(kept[mine[n - 1]]):
                rejected.append((kept[i].reading, f"one {kind} more than the roll has ({n}); the others "
                                 f"{'changed more and ' if kept[i].changed is not None else ''}read more clearly"))
            else:
                out[i] = kept[i]
    missing = sum(want.values()) - len(out)
    for i in (i for i in ranked if kept[i].reading.kind not in want):
        f = kept[i]
        if missing > 0 and _tier(f) < 2:
            out[i] = dataclasses.replace(f, reading=dataclasses.replace(f.reading, uncertain=True))
            missing -= 1
        else:
            rejected.append((f.reading, f"the roll has no {f.reading.kind} dice"))
    return [out[i] for i in sorted(out)]


def _tier(f: _Find) -> int:
    """0: new since before the roll (or unknown) and read confidently; 1: read uncertainly; 2: barely changed."""
    if f.changed is not None and f.changed < CHANGED_MIN:
        return 2
    return 1 if f.reading.uncertain else 0


def _rank(f: _Find) -> tuple[int, float]:
    return _tier(f), -(f.changed if f.changed is not None else 1.0) * f.reading.confidence


# -- where a find lies ------------------------------------------------------------------------------


def _homography(pose: Any) -> np.ndarray | None:
    if pose is None:
        return None
    if isinstance(pose, np.ndarray):
        return pose.astype(np.float64) if pose.shape == (3, 3) else None
    if not getattr(pose, "usable", False):
        return None
    H = getattr(pose, "homography", None)
    return None if H is None else np.asarray(H, np.float64)


def _locate(r: Reading, H: np.ndarray | None, pose: Any, board: BoardMap | None) -> _Find:
    """Where a find lies on the board: the marker its middle is on, the space its middle touches (the
    space under its centre first: pieces overhang their spaces, and a card lies off its cell by a few mm),
    and how large its box is on the table."""
    if H is None or board is None:
        return _Find(r, None)
    x, y, w, h = r.box
    cx, cy, dx, dy = x + w / 2, y + h / 2, w * CORE / 2, h * CORE / 2
    pts = np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h], [cx, cy],
                    [cx - dx, cy - dy], [cx + dx, cy - dy], [cx + dx, cy + dy], [cx - dx, cy + dy]], np.float64)
    try:
        mm = _to_board(pts, H, pose)
    except np.linalg.LinAlgError:
        return _Find(r, None)
    size = float(np.sqrt(abs(cv2.contourArea(mm[:4].astype(np.float32)))))
    mx, my = mm[4]
    marker = None
    for f in board.fiducials:  # all of them: a marker the search missed in this frame still looks like a die
        half = f.side_mm / 2 + MARKER_MARGIN_MM
        if abs(mx - f.center_mm[0]) <= half and abs(my - f.center_mm[1]) <= half:
            marker = f.id
            break
    bw, bh = board.size_mm
    region = None
    for px_mm, py_mm in mm[4:]:
        if 0 <= px_mm <= bw and 0 <= py_mm <= bh:
            region = _region_at(board, px_mm, py_mm)
            if region is not None:
                break
    return _Find(r, None, region, marker, size)


_RASTERS: dict[int, tuple[BoardMap, np.ndarray]] = {}


def _region_at(board: BoardMap, x_mm: float, y_mm: float) -> Region | None:
    """``board.region_at`` from a 1 px/mm raster of the map's spaces, drawn once per map (the polygon
    test in Python costs a few ms per frame on a map of 65 spaces)."""
    cached = _RASTERS.get(id(board))
    if cached is None or cached[0] is not board:
        w, h = (int(np.ceil(v)) + 1 for v in board.size_mm)
        raster = np.full((h, w), -1, np.int16)
        for i, r in reversed(list(enumerate(board.regions))):  # the first region wins, as in region_at
            if r.circle_center_mm is not None:
                (cx, cy), rad = r.circle_center_mm, float(r.radius_mm or 0)
                cv2.circle(raster, (round(cx * 16), round(cy * 16)), round(rad * 16), i, -1, shift=4)
            else:
                pts = np.round(np.asarray(r.polygon_mm, np.float64) * 16).astype(np.int32)
                cv2.fillPoly(raster, [pts], i, shift=4)
        if len(_RASTERS) > 16:
            _RASTERS.clear()
        cached = _RASTERS[id(board)] = (board, raster)
    raster = cached[1]
    i = int(raster[min(raster.shape[0] - 1, max(0, round(y_mm))), min(raster.shape[1] - 1, max(0, round(x_mm)))])
    return board.regions[i] if i >= 0 else None


def _to_board(px: np.ndarray, H: np.ndarray, pose: Any) -> np.ndarray:
    image_to_board = getattr(pose, "image_to_board", None)
    if image_to_board is not None:
        return np.asarray(image_to_board(px), np.float64)
    return cv2.perspectiveTransform(px.reshape(-1, 1, 2), np.linalg.inv(H)).reshape(-1, 2)


# -- what changed since before the roll ---------------------------------------------------------------


def _changes(frame: np.ndarray, before: Any, boxes: Sequence[Sequence[float]], H_now: np.ndarray | None
             ) -> list[tuple[float, float]] | None:
    """For each box, the share of its middle that changed since ``before``: once the whole frame's exposure is taken
    out, and once the light round the box too (:func:`_changed_shares`); None: no usable frame before."""
    if before is None or not len(boxes):
        return None if before is None else []
    image, H_before = (before if isinstance(before, tuple) else (before, None))
    if H_before is not None and not isinstance(H_before, np.ndarray):
        H_before = _homography(H_before)
    image = np.asarray(image)
    if image.shape != frame.shape:
        return None  # another camera or size: no pixel comparison
    now_to_before = None
    if H_before is not None and H_now is not None:
        M = np.asarray(H_before, np.float64) @ np.linalg.inv(H_now)
        if _moves(M, frame.shape) > 0.5:
            now_to_before = M
    gain = _exposure_gain(frame, image)
    out = []
    for box in boxes:
        out.append(_changed_shares(frame, image, box, gain, now_to_before))
    return out


def _moves(M: np.ndarray, shape: Sequence[int]) -> float:
    h, w = shape[:2]
    c = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)
    return float(np.abs(cv2.perspectiveTransform(c.reshape(-1, 1, 2), M).reshape(-1, 2) - c).max())


def _exposure_gain(frame: np.ndarray, before: np.ndarray) -> np.ndarray:
    """Per-channel gain that brings ``before`` to ``frame``'s exposure (the camera's automatic exposure
    and white balance move between frames): the ratio of the two frames' medians."""
    a = frame[::16, ::16].reshape(-1, frame.shape[2] if frame.ndim == 3 else 1).astype(np.float32)
    b = before[::16, ::16].reshape(-1, before.shape[2] if before.ndim == 3 else 1).astype(np.float32)
    ratio = (np.median(a, axis=0) + 1.0) / (np.median(b, axis=0) + 1.0)
    return np.clip(ratio, 0.5, 2.0).astype(np.float32)


def _changed_shares(frame: np.ndarray, before: np.ndarray, box: Sequence[float], gain: np.ndarray,
                    now_to_before: np.ndarray | None) -> tuple[float, float]:
    """The share of the box's middle that differs from ``before`` by more than ``CHANGE_LEVEL``: a pixel
    outside the range its 3 x 3 neighbourhood had before (a camera on a stand jitters by a pixel), in any
    channel. With ``now_to_before`` (the two poses disagree) the frame before is compared both as it is
    and warped through the poses, and the smaller change counts: a camera that stood still and a pose a
    little off, or a camera that moved and a pose that follows it. Two shares: with the frame before brought
    to the whole frame's exposure (``gain``), and brought to the light of the place round the find as well
    (:func:`_place_light`, one gain for all channels): a shadow that came or went changes the place round a
    die-sized find as much as its middle, a die thrown there only its middle. (uint8 OpenCV operations
    throughout: a dozen finds cost about a millisecond.)"""
    x, y, w, h = (float(v) for v in box)
    cx, cy = x + w / 2, y + h / 2
    hw, hh = max(2.0, w * CORE / 2), max(2.0, h * CORE / 2)
    H_img, W_img = frame.shape[:2]
    x0, x1 = int(max(1, np.floor(cx - hw))), int(min(W_img - 1, np.ceil(cx + hw)))
    y0, y1 = int(max(1, np.floor(cy - hh))), int(min(H_img - 1, np.ceil(cy + hh)))
    if x1 - x0 < 2 or y1 - y0 < 2:
        return 0.0, 0.0
    now = cv2.GaussianBlur(frame[y0 - 1:y1 + 1, x0 - 1:x1 + 1], (3, 3), 0)[1:-1, 1:-1]
    thens = [_padded_crop(before, x0 - 2, y0 - 2, x1 + 2, y1 + 2)]
    if now_to_before is not None:
        shift = np.array([[1, 0, x0 - 2], [0, 1, y0 - 2], [0, 0, 1]], np.float64)
        thens.append(cv2.warpPerspective(before, now_to_before @ shift, (x1 - x0 + 4, y1 - y0 + 4),
                                         flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE))
    light = _place_light(frame, before, (cx, cy, w, h), gain)
    blurred = [cv2.GaussianBlur(then, (3, 3), 0) for then in thens]
    return _share_changed(now, blurred, gain, 1.0), _share_changed(now, blurred, gain, light)


def _share_changed(now: np.ndarray, thens: Sequence[np.ndarray], gain: np.ndarray, place_gain: float) -> float:
    """The least share of ``now`` changed beyond its neighbours in any of ``thens`` (blurred crops of the frame
    before, each a pixel shifted) brought to ``gain`` times ``place_gain``."""
    scale = tuple(float(g) * place_gain for g in gain) + (0.0,) * (4 - len(gain))
    share = 1.0
    for then in thens:
        t = cv2.multiply(then, scale)  # saturates at 255, as the camera does
        lo, hi = cv2.erode(t, _NEIGHBOURS)[2:-2, 2:-2], cv2.dilate(t, _NEIGHBOURS)[2:-2, 2:-2]
        diff = cv2.max(cv2.subtract(now, hi), cv2.subtract(lo, now))
        if diff.ndim == 3:
            diff = diff.max(axis=2)
        share = min(share, cv2.countNonZero((diff > CHANGE_LEVEL).astype(np.uint8)) / diff.size)
    return share


_NEIGHBOURS = np.ones((3, 3), np.uint8)


def _place_light(frame: np.ndarray, before: np.ndarray, centre_size: tuple[float, float, float, float],
                 gain: np.ndarray) -> float:
    """How much brighter the place round a find is now than before (beyond the whole frame's ``gain``): the ratio of
    the median brightness of a window twice the find's box (0.25-4). A die thrown there changes a quarter of that
    window at most; a shadow that came or went, all of it."""
    cx, cy, w, h = centre_size
    x0, y0, x1, y1 = (int(round(v)) for v in (cx - w, cy - h, cx + w, cy + h))
    now = _padded_crop(frame, x0, y0, x1, y1).astype(np.float32)
    then = _padded_crop(before, x0, y0, x1, y1).astype(np.float32) * np.asarray(gain, np.float32)
    return float(np.clip((np.median(now) + 1.0) / (np.median(then) + 1.0), 0.25, 4.0))


def _padded_crop(img: np.ndarray, x0: int, y0: int, x1: int, y1: int) -> np.ndarray:
    """``img[y0:y1, x0:x1]``, the edge pixels repeated where the window leaves the image."""
    h, w = img.shape[:2]
    inner = img[max(0, y0):min(h, y1), max(0, x0):min(w, x1)]
    pads = (max(0, -y0), max(0, y1 - h), max(0, -x0), max(0, x1 - w))
    return cv2.copyMakeBorder(inner, *pads, cv2.BORDER_REPLICATE) if any(pads) else inner


# -- boards in a single picture (companion dice) --------------------------------------------------------


def bundled_boards() -> list[BoardMap]:
    """The board maps shipped in ``calibration/boards`` (a damaged one is skipped)."""
    from companion.data import bundled

    out = []
    for path in sorted(bundled("calibration", "boards").glob("*.json")):
        try:
            out.append(load_board_map(path))
        except BoardMapError:
            continue
    return out


def find_boards(frame: np.ndarray, boards: Iterable[BoardMap]) -> list[tuple[BoardMap, Any]]:
    """The boards whose markers ``frame`` shows, each with its pose (a usable
    :class:`~companion.vision.pose.PoseResult`). The markers are searched once per dictionary; two maps
    that place the same markers alike (Eagle Kingdoms and Verzauberte Eulen) both fit and are both given."""
    from companion.vision.pose import MarkerDetector, PoseResult, PoseStatus, estimate_homography, load_pose_config

    cfg = load_pose_config()
    # no exposure check: a picture too dark to read pieces from still shows its markers, and where they are
    gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    found: dict[str, dict[int, np.ndarray]] = {}
    fits = []
    for board in boards:
        if board.dictionary not in found:
            found[board.dictionary] = MarkerDetector(board.dictionary, cfg["aruco"]).detect(gray)
        markers = {i: c for i, c in found[board.dictionary].items() if board.fiducial(i) is not None}
        if len(markers) < int(cfg["homography"]["min_markers"]):
            continue
        fit = estimate_homography(board, markers, cfg["homography"])
        if fit.homography is None or fit.reprojection_mm > float(cfg["homography"]["max_reprojection_mm"]):
            continue
        fits.append((board, fit, tuple(sorted(markers)), _corner_error(board, fit.homography, markers)))
    out: list[tuple[BoardMap, Any]] = []
    kept: list[tuple[set[tuple[str, int]], float]] = []
    for board, fit, seen, err in sorted(fits, key=lambda f: f[3]):
        used = {(board.dictionary, i) for i in fit.used_ids}
        # maps that read the same markers compete: another layout fits them worse (one that places them
        # alike fits them as well, and both are given)
        if any(used & other and err > SAME_FIT * best + 0.02 for other, best in kept):
            continue
        kept.append((used, err))
        status = PoseStatus.FOUND if len(fit.used_ids) == len(board.fiducials) else PoseStatus.PARTLY_HIDDEN
        out.append((board, PoseResult(status, fit.homography, 1.0, fit.reason, "markers", seen, fit.used_ids,
                                      board.fiducial_ids, fit.reprojection_mm)))
    return out


def _corner_error(board: BoardMap, H: np.ndarray, markers: Mapping[int, np.ndarray]) -> float:
    """How far the found markers' corners lie from where the fit puts them, in marker sides (all of them:
    the fit's own error counts only its RANSAC inliers, and another map's layout can pass that test)."""
    errs = []
    for i, corners in markers.items():
        placed = cv2.perspectiveTransform(board.fiducial(i).corners_mm().reshape(-1, 1, 2), H).reshape(-1, 2)
        side = float(np.linalg.norm(corners[1] - corners[0])) or 1.0
        errs.append(float(np.linalg.norm(placed - corners, axis=1).mean()) / side)
    return float(np.mean(errs))


def filter_on_boards(readings: Sequence[Reading], frame: np.ndarray, posed: Sequence[tuple[BoardMap, Any]],
                     before: np.ndarray | None = None) -> DiceInContext:
    """:func:`filter_dice` for a single picture without the pipeline's context: each board in view
    (:func:`find_boards`) rejects the finds on its markers and its spaces (unless ``before``, the picture
    before the roll from the same place, shows that something new lies there); what is left are the dice."""
    t0 = time.perf_counter()
    out = DiceInContext(dice=list(readings))
    for board, pose in posed or [(None, None)]:  # no board in view: the frame before still counts
        step = filter_dice(out.dice, frame, pose=pose, board=board, before=before)
        out.dice = step.dice
        out.rejected += step.rejected
    out.ms = (time.perf_counter() - t0) * 1000
    return out


__all__ = ["DiceInContext", "bundled_boards", "filter_dice", "filter_on_boards", "find_boards"]
