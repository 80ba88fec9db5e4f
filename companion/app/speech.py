"""Optional spoken announcements: plyer's text-to-speech where the platform has it, else silently off."""

from __future__ import annotations

import threading
from typing import Any


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


def announcement(message: Any, lang: str) -> str:
    """What to say for a message on the table (``companion.app.controller.Message``). In English its
    text, unchanged (an engine's refusal already says why in words). In another language a refusal's
    text names only the rule ID, so the rule's statement in that language (``rule_text``) is spoken
    in place of the ID: "... verstößt gegen Regel: <statement>"."""
    text = getattr(message, "text", "") or ""
    rule_id = getattr(message, "rule_id", None)
    statement = getattr(message, "rule_text", None)
    if lang == "en" or getattr(message, "level", "") != "illegal" or not (rule_id and statement):
        return text
    spoken = text.replace(f" {rule_id}", "").replace(rule_id, "").rstrip(" .:")
    return f"{spoken}: {statement}"
