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

    def open_when_granted(self, spec: str, open_source: Callable[[str], None], say: Callable[[str], None],
                          on_ui_thread: Callable[[Callable[[], None]], None]) -> None:
        """Open the source ``spec``; one that needs the camera waits for the permission: the demo shows while
        the family is asked (``say`` a text key), the camera opens on a yes, and a no is said with the way back
        (set-up's "Open the camera" calls this again). The answer may come on another thread: ``on_ui_thread``."""
        if not needs_camera(spec) or self.granted():
            open_source(spec)
            return
        open_source("demo")
        say("table:camera_asked")

        def answered(granted: bool) -> None:
            on_ui_thread(lambda: open_source(spec) if granted else say("table:camera_refused"))

        self.ask(answered)
