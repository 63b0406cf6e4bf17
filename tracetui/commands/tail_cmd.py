"""`tracetui tail PATH… [--json] [--from-start|-n N] [--once]`: follow runs without the UI.

Prints the last spans already there (10 by default), then each new span once, in order, across
rotations, as it is written — like ``tail -f`` for traces. One line per span: time, short id,
exit, bytes, ✂ when truncated, argv; or with ``--json`` one normalised span object per line.
Every string from the trace is neutralised: a trace cannot drive the terminal.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time
from collections import deque
from collections.abc import Sequence
from typing import Any

from tracetui.commands.latest import add_latest_options, session_paths

DEFAULT_LAST = 10


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "tail",
        help="follow runs headless: print each new span once, in order, across rotations",
        description="Print the last spans of each run, then follow it: each new span once, in "
        "order, across rotations (Ctrl-C to stop).",
    )
    p.add_argument("paths", nargs="*", metavar="PATH", help="run file, rotated member or directory")
    add_latest_options(p)
    p.add_argument("--json", action="store_true", help="one normalised span object per line")
    start = p.add_mutually_exclusive_group()
    start.add_argument(
        "--from-start", action="store_true", help="print every span already there first"
    )
    start.add_argument(
        "-n",
        "--lines",
        type=int,
        default=DEFAULT_LAST,
        metavar="N",
        help=f"print the last N spans already there first (default {DEFAULT_LAST})",
    )
    p.add_argument(
        "--once", action="store_true", help="print what is there and exit (no following)"
    )
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from tracetui.errors import UsageError

    if args.lines < 0:
        raise UsageError("tail: -n must be 0 or more")
    args.paths = session_paths(args, args.paths, "tail")
    # A shell starts background jobs with SIGINT ignored, and Python then installs no handler:
    # Ctrl-C (or `kill -INT`) must still end the follow loop.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return _tail(args)
    except KeyboardInterrupt:
        return 0  # Ctrl-C is how one stops following: not an error
    except BrokenPipeError:
        _silence_stdout()  # `tracetui tail … | head`: the reader left
        return 0


def _tail(args: argparse.Namespace) -> int:
    from tracetui.errors import UsageError
    from tracetui.live.watch import POLL_MIN, DirWatch, make_waiter
    from tracetui.store.runset import RunSetError, open_path, open_paths

    try:
        runs = open_paths(args.paths)
    except RunSetError as exc:
        raise UsageError(str(exc)) from None
    out = _Printer(args.json, several=len(runs) > 1)
    new_runs: list[str] = []
    dirs = [p for p in args.paths if os.path.isdir(p)]
    # Watch folders before reading them: a run created meanwhile must not be missed.
    followed = {os.path.normpath(r.base) for r in runs}
    dirwatches = [DirWatch(p, new_runs.append, known=_bases_in(p, followed)) for p in dirs]
    # What is already there: all of it with --from-start, else only the last N rows (a big
    # run's rows then come from build_index and the persistent index, not a read of every line).
    keep = None if args.from_start else args.lines
    followers = [_Source(run, out, seed=keep is not None) for run in runs]
    for src in followers:
        src.catch_up(keep, once=args.once)
    out.flush()
    if args.once:
        return 0

    waiter = make_waiter(sorted({s.follower.folder for s in followers} | set(dirs)))
    try:
        while True:
            busy = False
            for src in followers:
                busy = src.poll() or busy
            for dw in dirwatches:
                dw.poll()
            while new_runs:
                path = new_runs.pop(0)
                try:
                    run = open_path(path)[0]
                except RunSetError as exc:
                    out.note(str(exc))
                    continue
                out.several = True
                followers.append(_Source(run, out))  # a new run: printed from its start
                busy = True
            out.flush()
            if any(s.settling for s in followers):
                time.sleep(POLL_MIN)  # a foreign document changed: read it once it settles
            elif not busy:
                waiter.wait(busy=False)
    finally:
        waiter.close()
        for src in followers:
            src.follower.stop()


def _bases_in(folder: str, followed: set[str]) -> set[str]:
    from tracetui.live.watch import run_bases

    return {b for b in run_bases(folder) if os.path.normpath(b) in followed}


class _Source:
    """One followed run: its follower and the rows it produced that are still to print."""

    def __init__(self, run: Any, out: _Printer, *, seed: bool = False) -> None:
        from tracetui.live.follow import Follower
        from tracetui.live.foreign import ForeignFollower
        from tracetui.store.live_import import empty_run

        self.out = out
        self.pending: deque[tuple[int, Any]] = deque()
        self.follower: Follower | ForeignFollower
        # A file still empty cannot be told from a new run of ours: named at its first line.
        self.undecided = run.source_format is None and empty_run(run)
        if run.source_format is None:
            # A big run's first read by build_index (live/seed.py): only its last rows print.
            self.follower = Follower(run, on_rows=self._collect, on_note=out.note, seed=seed)
        else:
            # Another agent's session: each call is a row once its result is in (running calls
            # are not printed). A trace converted again from its start prints only new calls.
            self.follower = ForeignFollower(run, on_rows=self._collect, on_note=out.note)

    @property
    def settling(self) -> bool:
        return getattr(self.follower, "unsettled", False) is True

    def _collect(self, first: int, items: Sequence[Any]) -> None:
        from tracetui.live.foreign import ForeignFollower
        from tracetui.model.flags import SIDECAR

        f = self.follower
        flags = f.index.flags
        foreign = f if isinstance(f, ForeignFollower) else None
        for r, it in enumerate(items, first):
            if flags[r] & SIDECAR:
                continue  # a re-run from the sidecar is a row of the index, not a span of the trace
            if foreign is not None and foreign.seen_before(r):
                continue  # the trace was converted again from its start: printed already
            self.pending.append((r, it))

    def catch_up(self, keep: int | None, *, once: bool = False) -> None:
        from tracetui.live.follow import Follower
        from tracetui.live.foreign import ForeignFollower

        if self.undecided and not self._decide():
            return  # nothing in it yet
        f = self.follower
        if keep is not None:
            self.pending = deque(maxlen=keep) if keep else deque(maxlen=0)
        f.poll_once()
        if keep and isinstance(f, Follower) and f.seeded:
            # Seeded rows never went through _collect: the last of them come before its rows.
            start = max(0, f.seeded - keep)
            rows = [(r, f.index.get(r)) for r in range(start, f.seeded)]
            self.pending = deque([*rows, *self.pending], maxlen=keep)
        while f.more:
            if keep is None:
                self._print()
            f.poll_once()
        if once and isinstance(f, ForeignFollower):
            f.finish()  # read as it is: a call still waiting ends as in a whole conversion
        self._print()
        self.pending = deque()

    def poll(self) -> bool:
        if self.undecided and not self._decide():
            return False
        added = self.follower.poll_once()
        self._print()
        return added > 0 or self.follower.more

    def _decide(self) -> bool:
        """Whether the first line of a file empty at the start is there; another agent's session
        is then followed as one (from its start), a run of ours as before."""
        from tracetui.live.foreign import ForeignFollower
        from tracetui.store.live_import import first_line_format

        run = self.follower.run
        ready, fmt = first_line_format(run.base)
        if not ready:
            return False
        self.undecided = False
        if fmt is not None:
            self.follower.stop()
            run.source_format = fmt
            self.follower = ForeignFollower(run, on_rows=self._collect, on_note=self.out.note)
        return True

    def _print(self) -> None:
        while self.pending:
            row, item = self.pending.popleft()
            self.out.row(self.follower, row, item)


class _Printer:
    """Formats rows as text or JSON lines on stdout; notes go to stderr."""

    def __init__(self, as_json: bool, several: bool) -> None:
        self.as_json = as_json
        self.several = several

    def note(self, text: str) -> None:
        from tracetui.model.text import neutralize_line

        print(f"tracetui: {neutralize_line(text)}", file=sys.stderr)

    def flush(self) -> None:
        sys.stdout.flush()

    def row(self, f: Any, row: int, item: Any) -> None:
        path, line = f.index.location(row)
        if self.as_json:
            sys.stdout.buffer.write(_json_line(item, path, line))
            return
        from tracetui.store.ids import cell_id

        text = _text_line(item, path, line, cell_id(f.index, getattr(item, "command_id", None), 12))
        if self.several:
            from tracetui.model.text import neutralize_line

            text = f"{neutralize_line(f.run.name)}  {text}"
        sys.stdout.write(text + "\n")


def span_object(span: Any, path: str, line: int) -> dict[str, Any]:
    """A span flattened for ``--json``: ids, command, timing, exit, per-stream facts, location."""
    obj: dict[str, Any] = {
        "command_id": span.command_id,
        "parent_command_id": span.parent_command_id,
        "dialect": span.dialect,
        "tool_name": span.tool_name,
        "argv": list(span.argv),
        "cwd": span.cwd,
        "started_at": span.started_at,
        "duration_ms": span.duration_ms,
        "exit_code": span.exit_code,
        "exit_unknown": span.exit_unknown,
        "error": span.error,
        "agent_note": span.agent_note,
        "truncated": span.truncated,
        "hidden_bytes": span.hidden_bytes,
    }
    for s in span.streams:
        obj[f"{s.name}_bytes"] = s.bytes
        obj[f"{s.name}_cap"] = s.cap
        obj[f"{s.name}_truncated"] = s.truncated
        obj[f"{s.name}_clip"] = s.clip
    obj["file"] = path
    obj["line"] = line
    return obj


def _json_line(item: Any, path: str, line: int) -> bytes:
    # dump_json escapes C1, bidi and zero-width characters too: `tail --json` on a terminal is inert.
    from tracetui.model.text import dump_json
    from tracetui.store.reader import BadLine

    if isinstance(item, BadLine):
        obj: dict[str, Any] = {"bad_line": True, "file": path, "line": line, "error": item.reason}
    else:
        obj = span_object(item, path, line)
    return dump_json(obj) + b"\n"


def _text_line(item: Any, path: str, line: int, sid: str) -> str:
    """One span as a text row; ``sid`` is its displayed id (store/ids.py), already neutralised."""
    from tracetui.model.text import neutralize_line, quote_argv
    from tracetui.store.reader import BadLine

    if isinstance(item, BadLine):
        return neutralize_line(f"!! {path}:{line}: {item.reason}")
    when = _short_time(item.started_at)
    exit_ = "exit —" if item.exit_code is None else f"exit {item.exit_code}"
    if item.exit_unknown:  # no exit and no error: not a failure
        exit_ = "exit sub" if item.is_submission else "exit ?"
    sizes = [s.bytes for s in item.streams]
    total = "?" if all(b is None for b in sizes) else _human(sum(b or 0 for b in sizes))
    cut = "✂" if item.truncated else ("?" if item.truncated is None else " ")
    argv = quote_argv(item.argv) if item.argv else neutralize_line(item.display_name)
    text = f"{when}  {sid:<12}  {exit_:<8} {total:>8} {cut}  {argv}"
    if item.exit_code is None and item.error:
        text += f"  ({neutralize_line(item.error)[:80]})"
    return text


def _short_time(started_at: str | None) -> str:
    if not started_at:
        return "-" * 19
    from tracetui.model.text import neutralize_line

    # RFC 3339 → "YYYY-MM-DD HH:MM:SS"; anything else is shown as it is (neutralised).
    text = neutralize_line(started_at)
    if len(text) >= 19 and text[10] in "Tt ":
        return f"{text[:10]} {text[11:19]}"
    return text[:19].ljust(19)


def _human(n: int) -> str:
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{n} B" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except OSError:
        pass
