"""Fixtures shared by the app's tests."""

from __future__ import annotations

import pytest

from companion.app import i18n


@pytest.fixture
def german():
    """The app in German for one test, English again afterwards (the language is process-wide)."""
    i18n.set_language("de")
    try:
        yield
    finally:
        i18n.set_language("en")
