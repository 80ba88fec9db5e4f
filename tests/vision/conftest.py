"""Shared stand-ins for the dice tests."""

import numpy as np
import pytest


class _Output:
    def __init__(self, name):
        self.name = name


class ThumbnailEmbedding:
    """The committed classifier's logits, and as its "embedding" each crop itself, averaged over 8x8 blocks and scaled to
    unit length: the same crop of the same die gives the same vector, other crops others. The mechanism of a
    profile (what it keeps, what it reads as taught, what it flags) does not depend on how good the trained
    embedding is; the model's own embedding is tested in test_dice_backend and the teach-dice command's tests."""

    def __init__(self, session):
        self.session = session

    def get_inputs(self):
        return self.session.get_inputs()

    def get_outputs(self):
        return [_Output("logits"), _Output("embedding")]

    def run(self, names, feed):
        (x,) = feed.values()
        n, c, h, w = x.shape  # 8x8 block means: a shift of a pixel or two (a box rounded) barely changes them
        thumb = x[:, :, : h // 8 * 8, : w // 8 * 8].reshape(n, c, h // 8, 8, w // 8, 8).mean(axis=(3, 5))
        thumb = thumb.reshape(n, -1).astype(np.float32)
        thumb /= np.linalg.norm(thumb, axis=1, keepdims=True) + 1e-6
        logits = self.session.run(["logits"], feed)[0] if "logits" in names else None
        return [logits if n == "logits" else thumb for n in names]


@pytest.fixture
def thumbnails(monkeypatch):
    """Every dice classifier made while the test runs answers with ThumbnailEmbedding's embedding."""
    from companion.vision import reader as reader_module

    real = reader_module.backend_session

    def wrapped(name, *args, **kwargs):
        session, entry, backend = real(name, *args, **kwargs)
        return (ThumbnailEmbedding(session) if name == "dice_classifier" else session), entry, backend

    monkeypatch.setattr(reader_module, "backend_session", wrapped)
