"""Helpers for journal tests: older-format journals, and a "kill" of the process holding a journal."""

from __future__ import annotations

import json
from pathlib import Path


def as_format_1(path: Path, drop_metadata: bool = False) -> None:
    """Rewrite a journal as an older version wrote it (format 1: no ``h`` checks)."""
    lines = [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines()]
    lines[0]["version"] = 1
    if drop_metadata:
        lines[0].pop("metadata", None)
    for line in lines:
        line.pop("h", None)
    Path(path).write_text("".join(json.dumps(line, sort_keys=True, separators=(",", ":")) + "\n" for line in lines),
                          encoding="utf-8")


def kill(session) -> None:
    """What a SIGKILL leaves: the file closed by the kernel (so its lock is gone), the lock's side file
    still there, nothing else tidied up."""
    session.journal.close(unlock=False)
