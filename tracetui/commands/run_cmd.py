"""``tracetui run [options] -- ARGV…``: run one command, print the capped view, record the span.

What goes to our stdout/stderr is exactly the record's ``preview_stdout``/``preview_stderr``
(marker included). When the record carries an ``error`` (could not start, timed out,
interrupted) one more line, ``tracetui run: <error>``, follows on stderr. The exit status is the
command's, shell style (128+N for signal N, 127 not found, 126 not executable).
"""

from __future__ import annotations

import argparse
import errno
import os
import re
import sys
from typing import TextIO

from tracetui.errors import UsageError
from tracetui.streams import to_null


def _cap(text: str) -> int | None:
    if text.lower() == "none":
        return None
    return _count(text)


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0: {text}")
    return value


def _budget(text: str) -> int:
    # The same parsing as tracetui.record.kept.parse_size (a test checks); repeated so that the
    # parser does not import the recorder.
    units = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
    raw = text.strip().upper().removesuffix("IB").removesuffix("B")
    unit = raw[-1:] if raw[-1:] in units else ""
    number = raw[: len(raw) - len(unit)]
    if not number.isdigit():
        raise argparse.ArgumentTypeError(
            f"not a size in bytes (like 268435456, 256M or 1G): {text!r}"
        )
    return int(number) * units[unit]


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be > 0: {text}")
    return value


# Same values as tracetui.record.recorder's DEFAULT_* (a test checks); repeated here so that building
# the parser for every `tracetui` invocation does not import the recorder.
DEFAULT_LOG = "feedback_record.jsonl"
DEFAULT_CAP = 8192
DEFAULT_CLIP = "head"
CLIPS = ("head", "tail", "head_tail")
DEFAULT_MAX_BYTES = 1 << 20
DEFAULT_KEEP = 4
DEFAULT_KEEP_BUDGET = 256 << 20
ID_FILE_ENV = "TRACETUI_ID_FILE"
"""Environment variable naming a file the recorded id is written to (for harnesses)."""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "run",
        help="record one command: print the capped view, append an honest span",
        description="Run ARGV (no shell, stdin closed), print to stdout/stderr exactly the capped "
        "view the consumer gets, append one tracetui/1 record to the log, and exit with the "
        "command's status.",
        usage="tracetui run [options] -- ARGV…",
    )
    p.add_argument(
        "--log",
        default=DEFAULT_LOG,
        metavar="B",
        help=f"base file of the run (default: ./{DEFAULT_LOG})",
    )
    p.add_argument(
        "--cap",
        type=_cap,
        default=DEFAULT_CAP,
        metavar="N",
        help=f"bytes shown per stream, or 'none' (default: {DEFAULT_CAP})",
    )
    p.add_argument(
        "--clip",
        choices=CLIPS,
        default=DEFAULT_CLIP,
        help="which part is shown when a stream exceeds the cap (default: head)",
    )
    p.add_argument("--note", metavar="S", help="one-line expectation, written before the result")
    p.add_argument("--parent", metavar="ID", help="command_id of the attempt this one retries")
    p.add_argument(
        "--max-bytes",
        type=_count,
        default=DEFAULT_MAX_BYTES,
        metavar="N",
        help="rotate the base file past this size (default: 1 MiB)",
    )
    p.add_argument(
        "--keep",
        type=_count,
        default=DEFAULT_KEEP,
        metavar="K",
        help=f"rotated members kept (default: {DEFAULT_KEEP})",
    )
    p.add_argument(
        "--timeout",
        type=_seconds,
        metavar="S",
        help="kill the command's process group after S seconds",
    )
    p.add_argument(
        "--redact",
        action="append",
        default=[],
        metavar="REGEX",
        help="extra secret pattern replaced in previews, argv and note (repeatable)",
    )
    p.add_argument("--tool-name", metavar="NAME", help="tool name (default: basename of ARGV[0])")
    p.add_argument(
        "--print-id",
        action="store_true",
        help="after the command's output, print 'tracetui: recorded SHORT (ID)' on stderr "
        f"(or set {ID_FILE_ENV}=PATH to have the id written to PATH)",
    )
    p.add_argument(
        "--keep-budget",
        type=_budget,
        default=DEFAULT_KEEP_BUDGET,
        metavar="BYTES",
        help="bytes on disk the run's kept outputs (B.kept/) may use; the oldest go first; "
        "K, M, G suffixes are binary units (default: 256M)",
    )
    p.add_argument(
        "--no-keep",
        action="store_true",
        help="do not keep the whole streams (only the capped view and the record)",
    )
    p.add_argument("argv", nargs=argparse.REMAINDER, help="the command, after --")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from tracetui.model.text import neutralize_line
    from tracetui.record.recorder import run_with_feedback
    from tracetui.record.redact import Redactor
    from tracetui.record.rotate import lock_path
    from tracetui.record.safe_files import UnsafeFile, check_existing, open_lock

    argv = list(args.argv)
    if argv and argv[0] == "--":
        argv = argv[1:]
    if not argv:
        raise UsageError("run: no command given (usage: tracetui run [options] -- ARGV…)")
    if args.max_bytes <= 0:
        raise UsageError("run: --max-bytes must be > 0")
    try:
        redactor = Redactor.with_patterns(args.redact)
    except re.error as exc:
        raise UsageError(f"run: bad --redact pattern: {exc}") from None
    log = os.path.abspath(args.log)
    # Fail before running anything when the record could not be written afterwards: a link,
    # a FIFO or someone else's file planted as the log or its lock is refused (safe_files).
    try:
        check_existing(log)
        os.close(open_lock(lock_path(log)))
    except UnsafeFile as exc:
        raise UsageError(f"run: {exc}") from None
    except OSError as exc:
        raise UsageError(f"run: cannot write the log {args.log}: {exc.strerror or exc}") from None
    parent = _whole_parent(log, args.parent) if args.parent else args.parent
    try:
        result = run_with_feedback(
            argv,
            log=log,
            cap=args.cap,
            clip=args.clip,
            note=args.note,
            parent=parent,
            timeout=args.timeout,
            max_bytes=args.max_bytes,
            keep=args.keep,
            redactor=redactor,
            tool_name=args.tool_name,
            handle_signals=True,
            keep_budget=None if args.no_keep else args.keep_budget,
        )
    except UnsafeFile as exc:  # the command ran, but a file was swapped in since the check
        print(f"tracetui run: {neutralize_line(str(exc))}", file=sys.stderr)
        return 2
    except OSError as exc:  # the command ran, but the record could not be appended
        print(
            f"tracetui run: cannot write the log {args.log}: {exc.strerror or exc}", file=sys.stderr
        )
        return 2
    for name, stream, view in (
        ("stdout", sys.stdout, result.stdout_view),
        ("stderr", sys.stderr, result.stderr_view),
    ):
        try:
            _emit(stream, view)
        except BrokenPipeError:
            # The reader went away (`tracetui run -- make | head`): the record is whole and the
            # command's status stands (under pipefail a failing command must not pass); what
            # is left for this stream goes nowhere.
            to_null(stream)
        except OSError as exc:  # a full disk under `> FILE`: the view the record holds was cut
            print(
                f"tracetui run: the capped {name} was not written whole: "
                f"{exc.strerror or exc} (the record holds all of it)",
                file=sys.stderr,
            )
            return 2
    if result.record["error"]:
        print(f"tracetui run: {result.record['error']}", file=sys.stderr)
    for problem in result.kept_problems:  # names files: neutralised
        print(f"tracetui run: {neutralize_line(problem)}", file=sys.stderr)
    # The id goes out only when asked: the agent's captured stdout and stderr stay exactly the
    # capped view (docs/recording.md, "Getting the id").
    cid = result.record.get("command_id")
    if isinstance(cid, str):
        if args.print_id:
            print(f"tracetui: recorded {_shown(log, cid)}", file=sys.stderr)
        id_file = os.environ.get(ID_FILE_ENV)
        if id_file:
            _write_id(id_file, cid)
    return result.exit_status


def _whole_parent(log: str, parent: str) -> str:
    """The whole id ``--parent`` names in the log (a displayed form, prefix or substring works
    like every ``--id``); an id the log does not hold is recorded as given."""
    from tracetui.store.build import build_index
    from tracetui.store.ids import IdError, IdNotFound, resolve
    from tracetui.store.runset import RunSetError, open_path

    if not os.path.exists(log):
        return parent
    try:
        index = build_index(open_path(log)[0])
    except (OSError, RunSetError, IndexError):
        return parent
    if parent in index.id_rows:
        return parent
    try:
        _ix, row = resolve([index], parent)
    except IdNotFound:
        return parent
    except IdError as exc:
        raise UsageError(f"run: --parent: {exc}") from None
    return index.ids[row] or parent


def _shown(log: str, cid: str) -> str:
    """``1b5a (20261129T…-1b5a45f2)``: the id as the viewer shows it in this run, and whole."""
    from tracetui.model.text import neutralize_line
    from tracetui.store.build import build_index
    from tracetui.store.ids import shown_id
    from tracetui.store.runset import RunSetError, open_path

    whole = neutralize_line(cid)
    try:
        index = build_index(open_path(log)[0])
        short = shown_id(index, cid)
    except (OSError, RunSetError, IndexError):  # the log moved or went: the whole id still helps
        return whole
    return whole if short == whole else f"{short} ({whole})"


def _write_id(path: str, cid: str) -> None:
    try:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(cid + "\n")
    except OSError as exc:
        print(
            f"tracetui run: cannot write {ID_FILE_ENV}={path}: {exc.strerror or exc}",
            file=sys.stderr,
        )


def _emit(stream: TextIO, text: str) -> None:
    if not text:
        return
    buffer = getattr(stream, "buffer", None)
    if buffer is not None:
        # A buffered stream may take part of a write bigger than its buffer when the disk
        # fills, returning the count without raising: write the rest again (that raises).
        view = memoryview(text.encode("utf-8"))
        while view:
            taken = buffer.write(view)
            if not taken:
                raise OSError(errno.EIO, "the output took no more bytes")
            view = view[taken:]
        buffer.flush()
    else:  # a replaced sys.stdout (tests, embedding) without a byte buffer
        stream.write(text)
        stream.flush()
