"""Optional spoken announcements: plyer's text-to-speech where the platform has it, else silently off."""

from __future__ import annotations

import threading


class Speaker:
    def __init__(self, enabled: bool = False):
        self._tts = None
        try:  # plyer is optional (on Android it is in the buildozer requirements)
            from plyer import tts

            self._tts = tts
        except Exception:
            self._tts = None
        self.enabled = enabled and self.available
        self.spoken: list[str] = []  # what was said (tests and the screenshot run read it)

    @property
    def available(self) -> bool:
        return self._tts is not None

    def say(self, text: str) -> None:
        if not self.enabled or not text:
            return
        self.spoken.append(text)
        tts = self._tts

        def run() -> None:
            try:
                tts.speak(text)
            except Exception:  # no engine installed after all: stay quiet
                pass

        threading.Thread(target=run, daemon=True).start()
