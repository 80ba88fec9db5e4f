"""Durable writes, in one place: every file the program keeps goes through here.

- :func:`write_atomic` -- a whole file replaced at once (settings, fitted board maps, camera
  profiles, the dice registry): written to a temporary file in the same folder, fsync'ed, renamed
  over the old one, and the folder fsync'ed, so a crash leaves either the old file or the new one,
  never half of either.
- :func:`make_dirs` -- folders created with their parents fsync'ed, so a new folder survives a crash.
- :func:`create_exclusive` -- a new file that must not exist yet (a journal), created with
  ``O_EXCL`` (no race between "does it exist?" and "create it") and its folder fsync'ed.
- :func:`lock_file` -- one writer per file: an OS lock (``flock``) held for as long as the file is
  open. The kernel drops it when the process ends, however it ends, so a killed process never blocks
  the next one. Who holds it is written beside the file (``.<name>.lock``, hidden) so a refusal can name the
  process; on Linux ``/proc/locks`` names it too when that side file is missing.

Every failure is an :class:`OSError` or a :class:`LockedError`; :func:`plain_os_error` turns an
``OSError`` into words for a one-line message.
"""

from __future__ import annotations

import errno
import json
import os
import stat
import sys
import tempfile
from datetime import datetime
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows: no flock; files are written, but not locked
    fcntl = None  # type: ignore[assignment]

program_name = ""
"""What this process is, in the lock's side file (``companion.cli`` sets e.g. "companion play")."""


class LockedError(Exception):
    """Another process holds the file's lock; ``str()`` names it in one line."""

    def __init__(self, path: Path, holder: str, pid: int | None = None):
        where = "elsewhere in this program" if pid == os.getpid() else "in another process"
        super().__init__(f"{path} is open {where} ({holder}); close it there first.")
        self.path = path
        self.holder = holder


def plain_os_error(exc: OSError) -> str:
    """'permission denied', 'no space left on device', ... (no errno numbers, no traceback)."""
    reasons = {
        errno.ENOSPC: "the disk is full",
        errno.EDQUOT: "the disk quota is used up",
        errno.EACCES: "permission denied",
        errno.EPERM: "permission denied",
        errno.EROFS: "the disk is read-only",
        errno.ENOTDIR: "a part of the path is a file, not a folder",
        errno.EISDIR: "it is a folder",
        errno.ENOENT: "no such file or folder",
        errno.ENAMETOOLONG: "the name is too long",
        errno.ELOOP: "too many symbolic links",
        errno.EIO: "the disk reported an input/output error",
    }
    return reasons.get(exc.errno or 0, (exc.strerror or str(exc) or exc.__class__.__name__).lower())


def fsync_dir(path: str | os.PathLike) -> None:
    """fsync a folder, so that a file created, renamed or removed in it stays so after a crash.
    A no-op where folders cannot be opened (Windows)."""
    if os.name == "nt":
        return
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    except OSError as exc:  # some file systems cannot fsync a folder; nothing more can be done there
        if exc.errno not in (errno.EINVAL, errno.ENOTSUP, errno.EBADF):
            raise
    finally:
        os.close(fd)


def make_dirs(path: str | os.PathLike) -> Path:
    """``mkdir -p`` that fsyncs the parent of every folder it creates."""
    path = Path(path)
    missing = []
    probe = path
    while not probe.exists():
        missing.append(probe)
        if probe.parent == probe:
            break
        probe = probe.parent
    for folder in reversed(missing):
        try:
            folder.mkdir()
        except FileExistsError:
            if not folder.is_dir():
                raise
            continue
        fsync_dir(folder.parent)
    if not path.is_dir():
        raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(path))
    return path


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def write_atomic(path: str | os.PathLike, data: bytes | str, mode: int = 0o644) -> Path:
    """Replace ``path`` with ``data`` (text is written as UTF-8) so that a crash at any moment leaves
    the old file or the new one. The folder is created when missing."""
    path = Path(path)
    if isinstance(data, str):
        data = data.encode("utf-8")
    make_dirs(path.parent)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        try:
            write_all(fd, data)
            if hasattr(os, "fchmod"):  # mkstemp makes the file private (0600); keep files as readable as before
                os.fchmod(fd, mode)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    fsync_dir(path.parent)
    return path


def write_json_atomic(path: str | os.PathLike, data, indent: int | None = 1) -> Path:
    return write_atomic(path, json.dumps(data, indent=indent) + "\n")


def create_exclusive(path: str | os.PathLike) -> int:
    """Create ``path`` for appending; ``FileExistsError`` if it exists. The new entry is fsync'ed
    into its folder before this returns. Returns the file descriptor."""
    path = Path(path)
    make_dirs(path.parent)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND | getattr(os, "O_CLOEXEC", 0), 0o644)
    try:
        fsync_dir(path.parent)
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_regular(path: str | os.PathLike, flags: int) -> int:
    """``os.open`` that never blocks on a FIFO or a device and refuses anything but a regular file
    (``IsADirectoryError`` / ``OSError(EINVAL)`` with a reason)."""
    fd = os.open(path, flags | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(errno.EISDIR, "it is a folder", str(path))
        if not stat.S_ISREG(info.st_mode):
            raise OSError(errno.EINVAL, "not a regular file (a pipe, a device or a socket)", str(path))
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_fd(fd: int) -> bytes:
    """The whole file behind ``fd`` from its start (the fd's own position is not used)."""
    size = os.fstat(fd).st_size
    chunks: list[bytes] = []
    offset = 0
    while True:
        chunk = os.pread(fd, max(size - offset, 1 << 16), offset)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        offset += len(chunk)


def read_small_text(path: str | os.PathLike, limit: int = 1 << 20) -> str:
    """A small UTF-8 file (settings, a profile, a map): a FIFO or a device is refused, not waited on.
    OSError if it cannot be read; ValueError if too big or not UTF-8."""
    fd = open_regular(path, os.O_RDONLY)
    try:
        if os.fstat(fd).st_size > limit:
            raise ValueError(f"{Path(path).name} is over {limit // 1024} KB: too big for this kind of file")
        return read_fd(fd).decode("utf-8")
    finally:
        os.close(fd)


# --- one writer per file ------------------------------------------------------------------------------


def lock_path(path: Path) -> Path:
    """The lock's side file: who holds it (hidden, so a folder of journals lists only journals)."""
    return path.with_name(f".{path.name}.lock")


def lock_file(fd: int, path: str | os.PathLike, program: str = "") -> None:
    """Take the exclusive lock on the open file ``fd`` without waiting; :class:`LockedError` naming
    the holder when another process has it. The lock lasts until ``fd`` is closed (or the process
    ends, however it ends). Call :func:`unlock_file` before closing to remove the side file."""
    path = Path(path)
    if fcntl is None:
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise LockedError(path, *_holder(path, os.fstat(fd))) from None
    except OSError as exc:
        if exc.errno in (errno.ENOLCK, errno.ENOTSUP, errno.EINVAL):  # a file system without locks
            return
        raise
    note = {"pid": os.getpid(), "program": program or program_name or Path(sys.argv[0]).name,
            "since": datetime.now().strftime("%Y-%m-%d %H:%M:%S")}
    try:  # only a courtesy for the message above: a folder where it cannot be written still plays
        side = lock_path(path)
        side.write_text(json.dumps(note) + "\n", encoding="utf-8")
    except OSError:
        pass


def unlock_file(fd: int, path: str | os.PathLike) -> None:
    """Remove the side file (while the lock is still held, so no other holder's note is removed)."""
    try:
        lock_path(Path(path)).unlink(missing_ok=True)
    except OSError:
        pass


def _holder(path: Path, info: os.stat_result) -> tuple[str, int | None]:
    """Who holds the lock on ``path`` in words (and the pid): from the side file, else ``/proc/locks``."""
    pid, program, since = None, "", ""
    try:
        note = json.loads(lock_path(path).read_text(encoding="utf-8"))
        pid, program, since = int(note["pid"]), str(note.get("program", "")), str(note.get("since", ""))
    except (OSError, ValueError, KeyError, TypeError):
        pid = _proc_locks_pid(info)
    if pid is None:
        return "a process that could not be named", None
    words = f"process {pid}"
    if program:
        words += f", {program}"
    if since:
        words += f", since {since}"
    return words, pid


def _proc_locks_pid(info: os.stat_result) -> int | None:
    """The pid holding a lock on the file with ``info``'s inode, from Linux's /proc/locks."""
    try:
        lines = Path("/proc/locks").read_text().splitlines()
    except OSError:
        return None
    wanted = f"{os.major(info.st_dev):02x}:{os.minor(info.st_dev):02x}:{info.st_ino}"
    for line in lines:
        parts = line.split()
        if "->" in parts:  # a waiter, not a holder
            continue
        if len(parts) >= 6 and parts[5] == wanted:
            try:
                return int(parts[4])
            except ValueError:
                return None
    return None
