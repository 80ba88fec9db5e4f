"""The arm over the board's edge (``companion.vision.readers.occlusion.ArmWatch``): told where it crosses both table
rings round the board, and where the outer ring lies outside the picture (an upright phone, the board filling the
picture's width), from the inner ring alone -- but never from a die lying there."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from companion.vision.boardmap import load_board_map
from companion.vision.readers.occlusion import ArmWatch

BOARD = load_board_map(Path(__file__).resolve().parents[2] / "calibration" / "boards" / "mighty-magpies.json")
TABLE, PRINT, SKIN = (40, 72, 110), (150, 205, 235), (165, 190, 240)  # BGR: brown wood, pale print, pale skin


class FlatPose:
    """A camera straight above: board mm -> pixels by a scale and an offset."""

    def __init__(self, scale: float, offset: tuple[float, float]):
        self.scale, self.offset = scale, np.asarray(offset, np.float64)

    def board_to_image(self, points_mm):
        return np.asarray(points_mm, np.float64) * self.scale + self.offset


def table_with_board(left_px: int) -> tuple[np.ndarray, FlatPose]:
    """A 1-px-per-mm view of the board, its left edge ``left_px`` from the picture's (the outer ring, 36 mm out,
    then lies outside the picture where left_px < 36)."""
    w, h = BOARD.size_mm
    frame = np.zeros((int(h) + 120, int(w) + left_px + 60, 3), np.uint8)
    frame[:] = TABLE
    frame[60:60 + int(h), left_px:left_px + int(w)] = PRINT
    return frame, FlatPose(1.0, (left_px, 60))


def test_an_arm_from_the_picture_edge_is_seen_though_the_outer_ring_lies_outside_the_picture():
    frame, pose = table_with_board(left_px=24)
    assert not ArmWatch(BOARD).crossings(frame, pose)
    arm = frame.copy()
    cv2.rectangle(arm, (0, 260), (24 + 150, 330), SKIN, -1)  # a 70-mm arm over the left edge, its hand on the board
    assert ArmWatch(BOARD).crossings(arm, pose)


def test_a_die_by_the_board_where_the_outer_ring_lies_outside_the_picture_is_no_arm():
    frame, pose = table_with_board(left_px=24)
    for y in (260, 278):  # two dice side by side on the inner ring, 16 mm each
        cv2.rectangle(frame, (0, y), (16, y + 16), (235, 235, 235), -1)
    assert not ArmWatch(BOARD).crossings(frame, pose)


def test_with_both_rings_in_the_picture_an_arm_crosses_both():
    frame, pose = table_with_board(left_px=80)
    arm = frame.copy()
    cv2.rectangle(arm, (0, 260), (80 + 150, 330), SKIN, -1)
    assert ArmWatch(BOARD).crossings(arm, pose)
    only_inner = frame.copy()
    cv2.rectangle(only_inner, (80 - 30, 260), (80 + 150, 330), SKIN, -1)  # something lying on the inner ring only
    assert not ArmWatch(BOARD).crossings(only_inner, pose)
