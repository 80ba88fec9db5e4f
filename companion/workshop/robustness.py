"""``companion bench robustness [--json]``: nothing lost, nothing crashes, measured.

Four measurements, each also used (small) by the test suite:

- **fuzz**: random and adversarial typed lines fed to the terminal referee of each game (numbers in
  and out of range, digits that are not 0-9, huge numbers, undo with odd counts, bytes that are not
  UTF-8, control characters, pasted JSON, long lines). Counted: lines, tracebacks (an exception out of
  the referee), lines a game's parser failed on other than with a plain refusal, and games whose
  journal, replayed, differs from what the screen showed.
- **kills**: ``companion play --auto`` processes killed (SIGKILL) at random moments -- while starting,
  playing, resuming and writing -- and resumed by the next process of a chain. Counted: acknowledged
  actions (printed ``> ...``) missing from the journal afterwards, and resumes refused.
- **tamper**: edits of middle journal lines (a digit changed, a bit flipped, lines swapped, dropped
  or repeated); counted: edits that resumed without :class:`~companion.journal.JournalDamaged`.
- **images**: small files whose header claims a huge picture, a big 16-bit RGBA PNG under the limit,
  a FIFO and a truncated JPEG, each read in a fresh process; counted: peak memory (max RSS) and answers.

Targets (issue 24): 0 tracebacks over 100,000 fuzzed lines per game, 0 acknowledged actions lost over
500 kills, every tampered middle line detected, <= 1 GB peak memory on any image.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from companion.games.registry import GAMES, load_game
from companion.journal import Journal, JournalDamaged, JournalError, Session

# --- fuzzing the terminal referee -------------------------------------------------------------------------

ODD_DIGITS = ["²", "٣", "１", "Ⅻ", "৪", "߂", "𝟗", "½"]
COMMANDS = ["undo", "undo 1", "undo 2", "undo 0", "undo -1", "undo ²", "undo 99999999999", "undo x", "undo 1 2",
            "board", "help", "roll", "r", ""]


def adversarial_line(rng: random.Random, choices: int = 6) -> str:
    """One line a careless or hostile person might type at any prompt (never 'quit'); one in four moves the
    game on (Enter, 'roll', a first choice), so the lines reach positions all through a game."""
    if rng.random() < 0.25:
        return rng.choice(["", "roll", "1", "2"])
    kind = rng.randrange(16)
    if kind <= 3:  # a plausible menu number or roll, in or out of range
        return " ".join(str(rng.randint(0, 9)) for _ in range(rng.choice((1, 1, 2, 3))))
    if kind == 4:
        return str(rng.randint(1, max(1, choices)))
    if kind == 5:
        return rng.choice(COMMANDS)
    if kind == 6:
        return rng.choice(ODD_DIGITS) * rng.randint(1, 3)
    if kind == 7:
        return str(rng.randint(10**6, 10**30)) if rng.random() < 0.8 else "9" * rng.randint(100, 5000)
    if kind == 8:  # bytes that are not UTF-8, as a surrogate-escaped stream gives them
        return bytes(rng.randrange(128, 256) for _ in range(rng.randint(1, 6))).decode("utf-8", "surrogateescape")
    if kind == 9:
        return "".join(chr(rng.choice([0, 7, 8, 27, 127, 0x200B, 0xFEFF, rng.randrange(1, 32)]))
                       for _ in range(rng.randint(1, 5)))
    if kind == 10:
        return rng.choice(['{"', "{}", "[]", '{"a": [1, 2]}', "[" * 50, "{" * 20 + "}" * 20, "null", '"x"',
                           '{"placement": 5}', '{"type": "roll", "dice": [7]}', "1e999", "nan", "-1", "0x10"])
    if kind == 11:
        return "".join(chr(rng.randrange(32, 127)) for _ in range(rng.randint(1, 40)))
    if kind == 12:
        return "".join(chr(rng.randrange(32, 0x2FFF)) for _ in range(rng.randint(1, 20)))
    if kind == 13:
        return "x" * rng.choice((2001, 10_000))
    if kind == 14:
        words = ["red", "blue", "green", "yellow", "black", "white", "king", "queen", "jester", "magpie", "owl",
                 "head", "body", "eye", "pass", "move", "to", "from", "capture", "place", "rot", "elster"]
        return " ".join(rng.choice(words + [str(rng.randint(0, 12))]) for _ in range(rng.randint(1, 4)))
    return rng.choice(["-5", "+3", "3,5", "3+5", "35", "3:5", "1 2 3 4 5 6 7", "0 0", "6 6 6", "  7  ", "\t2"])


def fuzz_game(game: str, lines: list[str], journal_dir: Path, seed: int = 0) -> dict[str, int]:
    """Feed ``lines`` to the terminal referee of ``game`` (a new game whenever one ends or stops),
    each game with a journal; then check every journal replays to the state the screen showed."""
    from companion.terminal import TerminalReferee, run_terminal

    module = load_game(game)
    cls = module.game_class
    result = {"lines": len(lines), "games": 0, "tracebacks": 0, "unreadable": 0, "journal_mismatches": 0}
    first_errors: list[str] = []
    position = 0
    while position < len(lines):
        result["games"] += 1
        journal = journal_dir / f"{game}-{seed}-{result['games']}.jsonl"
        session = Session.start(cls(players=[f"P{i + 1}" for i in range(cls.default_player_count())]), journal)
        stdin = _CountingInput(lines, position)
        referee = TerminalReferee(module, session, stdin=stdin, stdout=io.StringIO(), seed=seed + result["games"],
                                  coach=False)
        try:
            run_terminal(referee)
        except Exception as exc:  # what the family would see as a traceback
            result["tracebacks"] += 1
            if len(first_errors) < 3:
                first_errors.append(f"{game}: {exc.__class__.__name__}: {exc}"[:300])
        finally:
            session.close()
        result["unreadable"] += referee.unreadable
        position = max(stdin.position, position + 1)
        replayed = Session.resume(journal)
        try:
            if replayed.history != session.history or replayed.state.to_json() != session.state.to_json():
                result["journal_mismatches"] += 1
        finally:
            replayed.close()
        journal.unlink()
    if first_errors:
        result["first_errors"] = first_errors  # type: ignore[assignment]
    return result


class _CountingInput(io.TextIOBase):
    """``lines`` from ``start``, one per readline; '' once they run out."""

    def __init__(self, lines: list[str], start: int):
        self.lines = lines
        self.position = start

    def readline(self, size: int = -1) -> str:  # noqa: ARG002 (the referee reads whole lines)
        if self.position >= len(self.lines):
            return ""
        self.position += 1
        return self.lines[self.position - 1] + "\n"


# --- killing and resuming -----------------------------------------------------------------------------------


PACE = {"eagle-kingdoms": 0.01, "falconry": 0.2, "mighty-magpies": 0.04, "verzauberte-eulen": 0.04}
"""Seconds between automatic actions that spread a game over about 3 s (about 350, 15, 75 and 80 actions)."""


def _wait_for_first_action(proc: subprocess.Popen, out: Path, limit: float = 60.0) -> None:
    """Until the process has printed an acknowledged action (a line starting '> '), ended, or ``limit`` passed."""
    deadline = time.monotonic() + limit
    while proc.poll() is None and time.monotonic() < deadline:
        if b"\n> " in b"\n" + out.read_bytes():
            return
        time.sleep(0.02)


def kill_chain(game: str, seed: int, kills: int, workdir: Path, rng: random.Random,
               delay: float | None = None, kill_after: tuple[float, float] = (0.05, 1.0),
               from_first_action: bool = False) -> dict[str, Any]:
    """Start ``companion play GAME --auto``, kill it at a random moment, resume it in a new process,
    kill that one, ... ``kills`` times (or until the game ends), checking after each kill that every
    action the killed process acknowledged is in the journal. ``delay``: seconds between actions
    (default: for each process at random, none -- writing as fast as it can -- or the game's PACE);
    ``kill_after``: the range of seconds after its start each process is killed (``from_first_action``: after
    its first acknowledged action, so that a slow start on a loaded machine still kills a game mid-play).
    Ends by resuming once more in-process and playing to the end."""
    journal = workdir / f"{game}-{seed}.jsonl"
    out = workdir / f"{game}-{seed}.out"
    stats = {"kills": 0, "acknowledged": 0, "lost": 0, "refused": 0, "finished": False, "errors": []}
    for _ in range(kills):
        before = _records(journal, stats)
        resume = before is not None
        pace = delay if delay is not None else rng.choice((0.0, PACE.get(game, 0.01), PACE.get(game, 0.01), 0.002))
        argv = [sys.executable, "-m", "companion", "play", game, "--auto", "--seed", str(seed), "--delay",
                str(pace), "--no-coach"] + (["--resume", str(journal)] if resume else ["--journal", str(journal)])
        with open(out, "wb") as sink:
            proc = subprocess.Popen(argv, stdout=sink, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
            try:
                if from_first_action:
                    _wait_for_first_action(proc, out)
                proc.wait(timeout=rng.uniform(*kill_after))
                ended = True
            except subprocess.TimeoutExpired:
                proc.send_signal(signal.SIGKILL)
                proc.wait()
                ended = False
        text = out.read_bytes().decode("utf-8", "replace")
        if not ended:
            stats["kills"] += 1
        if "error:" in text and "Game over." not in text:
            stats["refused"] += 1
            stats["errors"].append(text.strip().splitlines()[-1][:300])
            break
        acknowledged = [line[2:] for line in text.splitlines() if line.startswith("> ")]
        after = _records(journal, stats) or []
        start = len(before or [])
        written = [r.get("text") for r in after]
        stats["acknowledged"] += len(acknowledged)
        missing = sum(1 for i, text_ in enumerate(acknowledged)
                      if start + i >= len(written) or written[start + i] != text_)
        kept = (before or []) == after[:start]
        stats["lost"] += missing + (0 if kept else len(before or []))
        if ended:
            break
    try:  # the journal must resume after the last kill (its lock gone with the killed process)
        session = Session.resume(journal) if journal.exists() and journal.stat().st_size else None
    except JournalError as exc:
        stats["refused"] += 1
        stats["errors"].append(str(exc)[:300])
        return stats
    if session is not None:
        try:
            from companion.terminal import TerminalReferee, run_terminal

            run_terminal(TerminalReferee(load_game(game), session, stdin=io.StringIO(), stdout=io.StringIO(),
                                         auto=True, seed=seed, coach=False))
            stats["finished"] = session.state.is_terminal()
        finally:
            session.close()
    return stats


def _records(journal: Path, stats: dict[str, Any]) -> list[dict[str, Any]] | None:
    """The journal's good records (None when there is no journal yet: killed before its header). A
    damaged line (a kill must never leave one) is counted as a refusal."""
    if not journal.exists() or not journal.stat().st_size:
        return None
    try:
        contents = Journal.read(journal)
    except JournalError as exc:
        stats["refused"] += 1
        stats["errors"].append(str(exc)[:300])
        return None
    if contents.damage is not None:
        stats["refused"] += 1
        stats["errors"].append(f"damaged after a kill: line {contents.damage.line}: {contents.damage.reason}")
    return contents.records


# --- tampering ----------------------------------------------------------------------------------------------


def tamper_cases(raw: bytes, rng: random.Random, bitflips: int = 3, digits: int = 3) -> Iterator[tuple[str, int, bytes]]:
    """(kind of edit, 1-based number of the edited line, the edited journal) for every middle line
    (neither the header nor the last line): digits changed, bits flipped, the line swapped with the next,
    dropped, or repeated."""
    lines = raw.split(b"\n")
    assert lines[-1] == b"", "a journal ends with a newline"
    lines = lines[:-1]

    def joined(new_lines: list[bytes]) -> bytes:
        return b"\n".join(new_lines) + b"\n"

    for i in range(1, len(lines) - 1):
        line = lines[i]
        spots = [j for j, c in enumerate(line) if 48 <= c <= 57]
        for j in rng.sample(spots, min(digits, len(spots))):
            edited = line[:j] + bytes([48 + (line[j] - 48 + rng.randint(1, 9)) % 10]) + line[j + 1:]
            yield "digit", i + 1, joined(lines[:i] + [edited] + lines[i + 1:])
        for _ in range(bitflips):
            j = rng.randrange(len(line) + 1)  # the newline after the line too
            whole = bytearray(joined(lines))
            offset = sum(len(x) + 1 for x in lines[:i]) + j
            whole[offset] ^= 1 << rng.randrange(8)
            yield "bit", i + 1, bytes(whole)
        if i + 1 < len(lines) - 1 and lines[i] != lines[i + 1]:
            yield "swap", i + 1, joined(lines[:i] + [lines[i + 1], lines[i]] + lines[i + 2:])
        yield "drop", i + 1, joined(lines[:i] + lines[i + 1:])
        yield "repeat", i + 1, joined(lines[:i + 1] + [line] + lines[i + 1:])


def tamper_detection(raw: bytes, workdir: Path, rng: random.Random, **kwargs) -> dict[str, Any]:
    """Resume every tampered copy: counts of edits, of those detected at the edited line (or the one
    after), and the undetected ones (resumed silently)."""
    stats: dict[str, Any] = {"edits": 0, "detected": 0, "undetected": []}
    path = workdir / "tampered.jsonl"
    for kind, line, data in tamper_cases(raw, rng, **kwargs):
        stats["edits"] += 1
        path.write_bytes(data)
        try:
            Session.resume(path).close()
        except JournalDamaged as exc:
            if line <= exc.damage.line <= line + 1:
                stats["detected"] += 1
                continue
        except JournalError:
            pass
        stats["undetected"].append(f"{kind} at line {line}")
    return stats


def recorded_game(game: str, seed: int, path: Path, max_actions: int = 200) -> bytes:
    """A journal of a seeded random game (with an undo in it), for tampering."""
    module = load_game(game)
    cls = module.game_class
    session = Session.start(cls(players=[f"P{i + 1}" for i in range(cls.default_player_count())]), path)
    rng = random.Random(seed)
    try:
        for n in range(max_actions):
            state = session.state
            if state.is_terminal():
                break
            session.apply(state.sample_chance(rng) if state.is_chance_node() else rng.choice(state.legal_actions()))
            if n == 5:
                session.undo(1)
    finally:
        session.close()
    return path.read_bytes()


# --- images -------------------------------------------------------------------------------------------------


def png_bytes(width: int, height: int, depth: int = 8, colour_type: int = 2, rows: bytes | None = None) -> bytes:
    """A PNG of one flat colour, made row by row (a 20000x20000 one is about 1 MB); ``rows`` replaces the
    picture data (a header that lies about its size needs only a few bytes of it)."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    channels = {0: 1, 2: 3, 4: 2, 6: 4}[colour_type]
    if rows is None:
        packer = zlib.compressobj(9)
        row = b"\0" + b"\x7f" * (width * channels * depth // 8)
        rows = b"".join(packer.compress(row) for _ in range(height)) + packer.flush()
    header = struct.pack(">IIBBBBB", width, height, depth, colour_type, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", rows) + chunk(b"IEND", b"")


def image_cases(folder: Path, big: bool = True) -> dict[str, Path]:
    """Files that once cost gigabytes or hung: lying headers, huge flat PNGs, a FIFO, a cut JPEG."""
    import zlib

    cases = {
        "lying-header-100000x100000.png": png_bytes(100_000, 100_000, rows=zlib.compress(b"\0" * 1000)),
        "one-pixel.png": png_bytes(1, 1),
        "truncated.jpg": b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00",
    }
    if big:
        cases["flat-20000x20000.png"] = png_bytes(20_000, 20_000)
        cases["16bit-16000x16000.png"] = png_bytes(16_000, 16_000, depth=16)
        cases["16bit-rgba-8000x6000.png"] = png_bytes(8000, 6000, depth=16, colour_type=6)  # 48 MP: under the limit
    paths = {}
    for name, data in cases.items():
        (folder / name).write_bytes(data)
        paths[name] = folder / name
    fifo = folder / "pipe.png"
    if hasattr(os, "mkfifo") and not fifo.exists():
        os.mkfifo(fifo)
        paths["pipe.png"] = fifo
    return paths


_PEAK = """
import json, resource, sys, time
from companion.vision import imageio
from companion.vision.errors import ImageError

def peak_mb():  # this program's own high-water mark (ru_maxrss also counts the parent's, from before exec)
    try:
        line = next(l for l in open("/proc/self/status") if l.startswith("VmHWM:"))
        return round(int(line.split()[1]) / 1024)
    except (OSError, StopIteration):
        return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)

t = time.perf_counter()
try:
    img, scale = imageio.load(sys.argv[1])
    answer = f"read {img.shape[1]}x{img.shape[0]}"
except ImageError as exc:
    answer = "refused: " + exc.reason
print(json.dumps({"answer": answer, "seconds": round(time.perf_counter() - t, 2), "peak_mb": peak_mb()}))
"""


_COMMAND_PEAK = """
import contextlib, io, json, sys
from companion.cli import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    code = main(sys.argv[1:])
line = next(l for l in open("/proc/self/status") if l.startswith("VmHWM:"))
print(json.dumps({"exit": code, "answers": len(out.getvalue().splitlines()), "peak_mb": round(int(line.split()[1]) / 1024)}))
"""


def command_peaks(files: list[Path], timeout: float = 300) -> dict[str, Any]:
    """``companion dice``, ``scan-kingdom`` and ``scan-tiles`` over ``files`` in one batch each, in a fresh
    process: exit status, answers (one per file expected) and peak memory (Linux)."""
    out = {}
    if not Path("/proc/self/status").exists():
        return out
    for command in (["dice", "--json"], ["scan-kingdom", "--json"], ["scan-tiles", "--json"]):
        done = subprocess.run([sys.executable, "-c", _COMMAND_PEAK, *command, *map(str, files)], capture_output=True,
                              text=True, timeout=timeout)
        try:
            out[command[0]] = json.loads(done.stdout.strip().splitlines()[-1])
        except (IndexError, ValueError):
            out[command[0]] = {"crashed": done.stderr.strip()[-300:]}
    return out


def image_peaks(paths: dict[str, Path], timeout: float = 60) -> dict[str, Any]:
    """Each file read by :func:`companion.vision.imageio.load` in a fresh process: its answer, time and peak RSS."""
    out = {}
    for name, path in paths.items():
        try:
            done = subprocess.run([sys.executable, "-c", _PEAK, str(path)], capture_output=True, text=True,
                                  timeout=timeout)
            out[name] = json.loads(done.stdout.strip().splitlines()[-1]) if done.returncode == 0 else {
                "answer": "crashed: " + done.stderr.strip()[-200:]}
        except subprocess.TimeoutExpired:
            out[name] = {"answer": f"hung (no answer in {timeout:g} s)"}
    return out


# --- the benchmark ------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="companion bench robustness", description=__doc__.split("\n\n")[0])
    parser.add_argument("--fuzz-lines", type=int, default=100_000, help="typed lines per game (default 100000)")
    parser.add_argument("--kills", type=int, default=500, help="SIGKILLs in all, spread over the games (default 500)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--games", default=",".join(GAMES), help="comma-separated games (default all four)")
    parser.add_argument("--skip", default="", help="comma-separated parts to leave out: fuzz,kills,tamper,images")
    parser.add_argument("--json", action="store_true", help="one JSON object as the last line")
    args = parser.parse_args(argv)
    games = [g for g in args.games.split(",") if g]
    skip = set(args.skip.split(","))
    report: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="companion-robustness-") as tmp:
        work = Path(tmp)
        if "fuzz" not in skip:
            report["fuzz"] = _fuzz_all(games, args.fuzz_lines, args.seed, work, args.json)
        if "tamper" not in skip:
            report["tamper"] = _tamper_all(games, args.seed, work, args.json)
        if "kills" not in skip:
            report["kills"] = _kills_all(games, args.kills, args.seed, work, args.json)
        if "images" not in skip:
            cases = image_cases(work)
            report["images"] = image_peaks(cases)
            _progress(f"images: {json.dumps(report['images'])}", args.json)
            report["image_commands"] = command_peaks(list(cases.values()))
            _progress(f"image commands: {json.dumps(report['image_commands'])}", args.json)
    ok = _targets_met(report)
    report["targets_met"] = ok
    print(json.dumps(report) if args.json else json.dumps(report, indent=1))
    return 0 if ok else 1


def _progress(text: str, quiet: bool) -> None:
    print(text, file=sys.stderr if quiet else sys.stdout, flush=True)


def _fuzz_all(games: list[str], lines: int, seed: int, work: Path, quiet: bool) -> dict[str, Any]:
    out = {}
    for game in games:
        rng = random.Random(f"{seed}:{game}")
        t = time.perf_counter()
        result = fuzz_game(game, [adversarial_line(rng) for _ in range(lines)], work, seed)
        result["seconds"] = round(time.perf_counter() - t, 1)
        out[game] = result
        _progress(f"fuzz {game}: {json.dumps(result)}", quiet)
    return out


def _tamper_all(games: list[str], seed: int, work: Path, quiet: bool) -> dict[str, Any]:
    out = {}
    for game in games:
        raw = recorded_game(game, seed, work / f"tamper-{game}.jsonl", max_actions=60)
        result = tamper_detection(raw, work, random.Random(seed))
        result["undetected"] = result["undetected"][:10]
        out[game] = result
        _progress(f"tamper {game}: {json.dumps(result)}", quiet)
    return out


def _kills_all(games: list[str], kills: int, seed: int, work: Path, quiet: bool) -> dict[str, Any]:
    rng = random.Random(seed)
    total = {"kills": 0, "acknowledged": 0, "lost": 0, "refused": 0, "chains": 0, "finished": 0, "errors": []}
    chain = 0
    t = time.perf_counter()
    while total["kills"] < kills:
        game = games[chain % len(games)]
        chain += 1
        result = kill_chain(game, seed * 1000 + chain, min(5, kills - total["kills"]), work, rng)
        for key in ("kills", "acknowledged", "lost", "refused"):
            total[key] += result[key]
        total["chains"] += 1
        total["finished"] += int(result["finished"])
        total["errors"] += result["errors"][:2]
        if chain % 10 == 0:
            _progress(f"kills: {total['kills']} so far, {total['lost']} acknowledged actions lost", quiet)
        if chain > 4 * kills:  # every process ended by itself: the kill moments are too late for these games
            break
    total["errors"] = total["errors"][:10]
    total["seconds"] = round(time.perf_counter() - t, 1)
    return total


def _targets_met(report: dict[str, Any]) -> bool:
    fuzz_ok = all(r["tracebacks"] == 0 and r["unreadable"] == 0 and r["journal_mismatches"] == 0
                  for r in report.get("fuzz", {}).values())
    tamper_ok = all(not r["undetected"] for r in report.get("tamper", {}).values())
    kills = report.get("kills")
    kills_ok = kills is None or (kills["lost"] == 0 and kills["refused"] == 0)
    images_ok = all(r.get("peak_mb", 0) <= 1024 and not str(r.get("answer", "")).startswith(("crashed", "hung"))
                    for r in report.get("images", {}).values())
    files = len(report.get("images", {}))
    images_ok = images_ok and all("crashed" not in r and r["peak_mb"] <= 1024 and r["answers"] == files
                                  for r in report.get("image_commands", {}).values())
    return fuzz_ok and tamper_ok and kills_ok and images_ok


if __name__ == "__main__":
    sys.exit(main())
