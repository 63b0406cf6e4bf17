"""`tracetui rerun PATH --id ID [--yes] [--timeout S] [--max-output BYTES] [--json] [--no-normalize RULE…]`.

The side pane's re-run, headless: find the span, show its exact argv and cwd (a trace file is
untrusted input), ask on a terminal or require ``--yes``, run it uncapped (no shell, stdin
closed, output spooled to disk), then print exit and bytes then/now, the hash verdict per stream,
the normalised diff of the stored preview against the same window of the new output, and the
start of what the agent never saw. The re-run is appended to ``B.reruns.jsonl``.

Exit 0 when the re-run ran and was recorded (whatever its own exit), 1 when it could not start,
timed out, reached the output limit or its record could not be written, 2 for usage errors (unknown id, an argv that cannot be run, no
confirmation), 128 + the signal's number when SIGINT, SIGTERM or SIGHUP stopped it: the
process group and what it left running are killed and the spools freed first, on every one of
them (the default action of SIGTERM and SIGHUP would leave the child running).
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import threading
from typing import Any

DEFAULT_TIMEOUT = 600.0
_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "rerun",
        help="re-run one span's argv uncapped and diff it against the stored preview",
        description="Re-run one span's argv uncapped and compare it with what the trace stored. "
        "The command comes from a trace file: check it before confirming.",
    )
    p.add_argument("path", metavar="PATH", help="run file, rotated member or directory")
    p.add_argument(
        "--id",
        required=True,
        metavar="ID",
        help="command_id of the span (a unique prefix is enough)",
    )
    p.add_argument(
        "--yes", "-y", action="store_true", help="run without asking (required without a terminal)"
    )
    p.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        metavar="S",
        help=f"kill the re-run's process group after S seconds (default {DEFAULT_TIMEOUT:g})",
    )
    p.add_argument(
        "--max-output",
        type=_size,
        default=None,
        metavar="BYTES",
        help="stop the re-run (kill its process group) once both streams together reach BYTES; "
        "K, M, G suffixes are binary units (default 4G)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument(
        "--no-normalize",
        action="append",
        nargs="+",
        default=[],
        metavar="RULE",
        help="switch a diff normalisation rule off: ansi, timestamps, durations, hex, tmp, all",
    )
    p.add_argument(
        "--excerpt",
        type=int,
        default=8192,
        metavar="BYTES",
        help="how much of the never-seen part to print (default 8192)",
    )
    p.add_argument(
        "--no-sidecar", action="store_true", help="do not append the re-run to B.reruns.jsonl"
    )
    p.set_defaults(func=main)


def _size(text: str) -> int:
    """``--max-output``: bytes, or a number with a K/M/G/T suffix (binary units)."""
    raw = text.strip().upper().removesuffix("IB").removesuffix("B")
    unit = raw[-1:] if raw[-1:] in _UNITS else ""
    try:
        value = int(raw[: len(raw) - len(unit)]) * _UNITS[unit]
    except ValueError:
        value = 0
    if value <= 0:
        raise argparse.ArgumentTypeError(
            f"expected a number of bytes > 0 (like 1000000 or 4G), got {text!r}"
        )
    return value


def main(args: argparse.Namespace) -> int:
    from tracetui.commands.common import load_runs
    from tracetui.errors import UsageError
    from tracetui.rerun import runner as rerun
    from tracetui.rerun.normalize import RULE_NAMES, parse_rules
    from tracetui.rerun.spool import MAX_OUTPUT

    try:
        off = parse_rules(name for group in args.no_normalize for name in group)
    except ValueError as exc:
        raise UsageError(f"rerun: {exc}") from None
    rules = tuple(r for r in RULE_NAMES if r not in off)
    if args.timeout <= 0:
        raise UsageError("rerun: --timeout must be > 0")
    if args.excerpt < 0:
        raise UsageError("rerun: --excerpt must be >= 0")
    try:
        target = rerun.find_target(load_runs([args.path]), args.id)
    except rerun.RerunError as exc:
        # The message quotes trace text (ids, tool names): neutralised like everything else.
        raise UsageError(f"rerun: {_line(str(exc))}") from None

    _announce(target)
    if not args.yes and not _confirm():
        return 2

    cancel = threading.Event()
    interrupted: list[int] = []

    def on_signal(signum: int, _frame: object) -> None:
        # Only a flag here: the runner polls it, kills the group and what it left, and returns;
        # the spools are freed on the way out. A second signal changes nothing.
        interrupted.append(signum)
        cancel.set()

    # Installed until the result is closed, so no signal can land between the run and the
    # clean-up and end the process with the child still running.
    previous = {signo: signal.signal(signo, on_signal) for signo in _STOP_SIGNALS}
    try:
        return _run_and_report(rerun, target, args, rules, cancel, interrupted, MAX_OUTPUT)
    finally:
        for signo, handler in previous.items():
            signal.signal(signo, handler)


def _run_and_report(
    rerun: Any,
    target: Any,
    args: argparse.Namespace,
    rules: tuple[str, ...],
    cancel: threading.Event,
    interrupted: list[int],
    max_output: int,
) -> int:
    live = sys.stderr.isatty() and not args.json
    try:
        result = rerun.rerun(
            target,
            timeout=args.timeout,
            cancel=cancel,
            rules=rules,
            progress=_progress if live else None,
            write_sidecar=not args.no_sidecar,
            max_output=args.max_output or max_output,
        )
    finally:
        if live:
            with contextlib.suppress(OSError):  # the terminal may be gone (SIGHUP)
                sys.stderr.write("\r\x1b[K")
    with result:
        if interrupted and interrupted[0] != signal.SIGINT:
            # TERM or HUP: whoever sent it wants tracetui gone, and after a hang-up there is no
            # terminal to print the report on. One line where it can still go, then the exit.
            name = signal.Signals(interrupted[0]).name
            with contextlib.suppress(OSError):
                print(f"tracetui: rerun: stopped by {name}; process group killed", file=sys.stderr)
            return 128 + interrupted[0]
        if args.json:
            from tracetui.rerun.kept_diff import doc_fields

            doc = rerun.summary(result, rules, args.excerpt)
            doc.update(doc_fields(result, rules))  # the kept whole output against the re-run
            sys.stdout.write(_safe_json(doc) + "\n")
        else:
            _print_text(result, rules, args.excerpt)
        if result.sidecar_error:
            # The re-run ran but its record is lost (disk full, a file planted meanwhile): the
            # line names the file, and the exit is not 0 (a lost record is never a success).
            print(f"tracetui: rerun: not recorded: {_line(result.sidecar_error)}", file=sys.stderr)
        if interrupted:
            return 128 + interrupted[0]
        if result.captured.error:
            print(f"tracetui: re-run failed: {_line(result.captured.error)}", file=sys.stderr)
            return 1
        if result.sidecar_error:
            return 1
    return 0


def _line(text: str) -> str:
    from tracetui.model.text import neutralize_line

    return neutralize_line(text)


def _announce(target: Any) -> None:
    from tracetui.model.text import quote_argv
    from tracetui.rerun import review

    err = sys.stderr
    shown = quote_argv(target.argv)
    err.write("This command comes from a trace file (untrusted input). It will run uncapped:\n")
    for warning in review.warnings(target.argv, len(shown)):
        err.write(f"  warning: {warning}\n")
    err.write(f"  argv  {shown}\n")
    err.write(f"        {review.size_line(target.argv, len(shown))}\n")
    err.write(f"  cwd   {_line(target.cwd)}\n")
    err.write(f"  span  {_line(target.command_id or '?')}  ({_line(target.index.run.name)})\n")


def _confirm() -> bool:
    if not sys.stdin.isatty():
        print(
            "tracetui: rerun: refusing to run a command from a trace without confirmation; "
            "no terminal to ask on: pass --yes",
            file=sys.stderr,
        )
        return False
    sys.stderr.write("Run it? [y/N] ")
    sys.stderr.flush()
    try:
        answer = sys.stdin.readline().strip().lower()
    except (EOFError, KeyboardInterrupt):
        answer = ""
    if answer not in ("y", "yes"):
        print("tracetui: rerun: not confirmed; nothing was run", file=sys.stderr)
        return False
    return True


def _progress(elapsed: float, out: int, err: int) -> None:
    sys.stderr.write(f"\r\x1b[K  running {elapsed:6.1f}s   stdout {out:,} B   stderr {err:,} B")
    sys.stderr.flush()


def _safe_json(doc: dict[str, Any]) -> str:
    # The one JSON dumper: C0, C1, bidi and zero-width characters escaped, safe on a terminal.
    from tracetui.model.text import dump_json

    return dump_json(doc, indent=True).decode("utf-8")


def _fmt_bytes(n: int | None) -> str:
    return "?" if n is None else f"{n:,} B"


def _write_block(out: Any, text: str) -> None:
    from tracetui.model.text import neutralize

    out.write(neutralize(text))
    if text and not text.endswith("\n"):
        out.write("\n")


def _print_full_diff(out: Any, s: str, full: Any, label: str) -> None:
    """The kept whole stream against the whole re-run (when ``tracetui run`` kept it)."""
    from tracetui.model.text import neutralize

    if full is None:
        return
    note = f" ({_line(full.note)})" if full.note else ""
    if not full.compared:
        out.write(f"\n{s}: {_line(full.note or 'the kept output was not used')}\n")
    elif not full.lines:
        out.write(f"\n{s}: the kept whole output matches the whole re-run{note}\n")
    else:
        out.write(
            f"\n{s}: diff of the kept whole output against the whole re-run "
            f"(normalised: {label}){note}\n"
        )
        for line in full.lines:
            out.write(neutralize(line) + "\n")


def _print_text(result: Any, rules: tuple[str, ...], excerpt: int) -> None:
    from tracetui.model.spans import STREAMS
    from tracetui.model.text import neutralize
    from tracetui.rerun.kept_diff import result_diff

    out = sys.stdout
    span = result.target.span
    now = result.captured.exit_code
    out.write(
        f"exit      then {span.exit_code if span.exit_code is not None else 'null'}"
        f"   now {now if now is not None else 'null'}\n"
    )
    if result.captured.error:
        out.write(f"error     {_line(result.captured.error)}\n")
    for s in STREAMS:
        c = result.comparison(s)
        seen = "whole stream" if c.windows.clip == "whole" else f"{c.windows.clip} window"
        out.write(
            f"{s:9} then {_fmt_bytes(c.bytes_then):>14}   now {_fmt_bytes(c.bytes_now):>14}   "
            f"{c.verdict}   ({seen}; {c.windows.unseen_bytes:,} B never seen by the agent)\n"
        )
    for reason in sorted({c.reason for c in (result.stdout, result.stderr) if c.reason}):
        out.write(f"verdict   unknown: {_line(reason)}\n")
    if result.captured.leftovers:
        n = len(result.captured.leftovers)
        out.write(f"note      killed {n} process{'es' if n != 1 else ''} the re-run left running\n")
    label = ", ".join(rules) if rules else "none"
    for s in STREAMS:
        lines = result.stream_diff(s, rules)
        c = result.comparison(s)
        if not lines:
            note = " (differs only before normalisation)" if c.changed_raw else ""
            out.write(f"\n{s}: the stored preview matches the same window of the re-run{note}\n")
            continue
        out.write(
            f"\n{s}: diff of the stored preview against the same window (normalised: {label})\n"
        )
        for line in lines:
            out.write(neutralize(line) + "\n")
    for s in STREAMS:  # a cut stream: the window diff above covered only what the agent saw
        if result.comparison(s).windows.unseen_bytes:
            _print_full_diff(out, s, result_diff(result, s, rules), label)
    for s in STREAMS:
        c = result.comparison(s)
        if not c.windows.unseen_bytes:
            continue
        ex = result.unseen_excerpt(s, excerpt)
        out.write(
            f"\n{s}: never seen by the agent: {c.windows.unseen_bytes:,} B from byte "
            f"{c.windows.unseen_start:,}\n"
        )
        _write_block(out, ex.start)
        if ex.end or ex.skipped:
            out.write(f"[… {ex.skipped:,} B not shown here (--excerpt BYTES shows more) …]\n")
        _write_block(out, ex.end)
    if result.sidecar:
        out.write(
            f"\nrecorded as {_line(str(result.record.get('command_id')))} in {_line(result.sidecar)}\n"
        )
