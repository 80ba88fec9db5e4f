"""The camera permission (no Kivy import): Android asks the family at run time, everywhere else it is granted.

python-for-android's ``android.permissions`` asks asynchronously: ``request_permissions`` returns at once and
calls back later, on another thread, with what the family chose. The app therefore does not open the camera
at start; it shows the demo, asks, and opens the camera when the answer is yes (and again from the set-up
screen's "Open the camera" when it was no, or the family changed it in the phone's settings).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def needs_camera(spec: str) -> bool:
    """Whether the source ``spec`` opens the camera ("auto", "camera:N")."""
    return spec == "auto" or spec.startswith("camera")


class CameraPermission:
    """Whether the app may open the camera, and asking for it. ``api``: python-for-android's
    ``android.permissions`` module (``check_permission``, ``request_permissions``, ``Permission``); None on a
    desktop, where the camera needs no permission."""

    def __init__(self, api: Any = None):
        self.api = api

    @classmethod
    def for_platform(cls) -> CameraPermission:
        """Android's permission flow inside the APK, else none to ask."""
        try:
            from kivy.utils import platform
        except ImportError:
            return cls()
        if platform != "android":
            return cls()
        from android import permissions  # type: ignore[import-not-found]  # python-for-android's module

        return cls(permissions)

    def granted(self) -> bool:
        if self.api is None:
            return True
        return bool(self.api.check_permission(self.api.Permission.CAMERA))

    def ask(self, then: Callable[[bool], None]) -> None:
        """Ask the family; ``then(granted)`` is called with the answer (at once when nothing is to be asked;
        on Android later, on another thread: the caller hands it to its UI thread)."""
        if self.api is None or self.granted():
            then(True)
            return

        def answered(_permissions, grants) -> None:
            then(bool(grants) and all(bool(g) for g in grants))

        self.api.request_permissions([self.api.Permission.CAMERA], answered)
