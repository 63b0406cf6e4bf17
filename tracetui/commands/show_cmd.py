"""``tracetui show PATH --id ID [--stream stdout|stderr] [--unseen]``: print a kept stream.

``tracetui run`` keeps each stream whole, redacted, beside the run (``B.kept/``,
:mod:`tracetui.record.kept`). This prints one of them — whole, or with ``--unseen`` only the bytes
the agent never saw — after checking all of it against the hash in its record: a file that was
changed or damaged is reported, never printed. Bytes go out as they are when stdout is not a
terminal (a pipe gets binary output byte for byte); on a terminal the text is neutralised.

An imported call the trace says was never cut prints its preview, which is the whole stream
(said on stderr); its unseen part is empty.

Exit 0 printed (also an empty unseen part, said on stderr); 1 with one line when the stream was
not kept (``--no-keep``, over the budget, evicted, an imported trace that kept no copy of a cut
or possibly cut call), fails its check, or could not be written whole (a full disk); 2 for
usage errors (no such run, no such id).
"""

from __future__ import annotations

import argparse
import codecs
import errno
import sys
from collections.abc import Iterable
from typing import BinaryIO

STREAMS = ("stdout", "stderr")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "show",
        help="print a span's kept stdout or stderr, whole or only what the agent never saw",
        description="Print the whole stream tracetui run kept for one span (redacted, checked "
        "against its recorded hash), or with --unseen only the bytes past the cap that the "
        "agent never saw. Exit 1 when it was not kept or does not match its hash.",
    )
    p.add_argument("path", metavar="PATH", help="run file, rotated member or directory")
    p.add_argument(
        "--id", required=True, metavar="ID", help="the span's id (any form the viewer shows)"
    )
    p.add_argument(
        "--stream",
        choices=STREAMS,
        help="which stream (default: stdout; with --unseen the first stream that was cut)",
    )
    p.add_argument(
        "--unseen",
        action="store_true",
        help="only the bytes outside the preview: after a head, before a tail, between the two",
    )
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from tracetui.commands.common import load_runs
    from tracetui.errors import UsageError
    from tracetui.model.text import neutralize_line
    from tracetui.record.kept_read import NotKept, find_kept, open_verified
    from tracetui.store.ids import IdError, resolve, shown_id

    indexes = load_runs([args.path])
    try:
        index, row = resolve(indexes, args.id)
    except IdError as exc:
        raise UsageError(f"show: {exc}") from None
    span = index.span(row)
    if span is None:
        raise UsageError(f"show: the line with id {args.id!r} is not a readable span")
    stream = args.stream or _default_stream(span.streams, args.unseen)
    who = neutralize_line(shown_id(index, span.command_id))
    try:
        kept = find_kept(index.run.base, span.raw, stream, imported=index.run.source_format)
        with open_verified(kept) as verified:
            start, end = (kept.unseen_start, kept.unseen_end) if args.unseen else (0, kept.size)
            if args.unseen and start == end:
                print(
                    f"tracetui: show: nothing unseen: the agent saw all {kept.size:,} bytes "
                    f"of its {stream}",
                    file=sys.stderr,
                )
                return 0
            if kept.note is not None:  # another agent's copy: no hash to check it against
                print(f"tracetui: show: {neutralize_line(kept.note)}", file=sys.stderr)
            try:
                _write(verified.chunks(start, end))
            except BrokenPipeError:
                raise  # `show … | head`: the reader left (the entry point exits 0)
            except OSError as exc:  # a full disk: never a cut file and exit 0
                why = f"cannot write the output: {exc.strerror or exc}"
                line = neutralize_line(f"{stream} of {who} not printed whole: {why}")
                print(f"tracetui: show: {line}", file=sys.stderr)
                return 1
    except NotKept as exc:
        line = neutralize_line(f"{stream} of {who} not shown: {exc}")
        print(f"tracetui: show: {line}", file=sys.stderr)
        return 1
    return 0


def _default_stream(streams: Iterable[object], unseen: bool) -> str:
    """stdout, or with ``--unseen`` the first stream that was cut (stdout first)."""
    if unseen:
        for facts in streams:
            if getattr(facts, "truncated", False):
                return str(getattr(facts, "name", "stdout"))
    return "stdout"


def _write(chunks: Iterable[bytes]) -> None:
    """Bytes as they are to a pipe or file; neutralised text on a terminal."""
    out: BinaryIO = sys.stdout.buffer
    if not sys.stdout.isatty():
        for chunk in chunks:
            _write_all(out, chunk)
        out.flush()
        return
    from tracetui.model.text import neutralize

    # surrogateescape keeps undecodable bytes apart; neutralize() shows them as \xNN.
    decoder = codecs.getincrementaldecoder("utf-8")("surrogateescape")
    for chunk in chunks:
        _write_all(out, neutralize(decoder.decode(chunk)).encode("utf-8"))
    _write_all(out, neutralize(decoder.decode(b"", final=True)).encode("utf-8"))
    out.flush()


def _write_all(out: BinaryIO, data: bytes) -> None:
    """Write all of ``data``. A buffered stdout may take only part of a chunk bigger than its
    buffer when the disk fills (it returns the count, raising nothing): write the rest again,
    which raises the error, so that a cut output is never reported as printed."""
    view = memoryview(data)
    while view:
        n = out.write(view)
        if not n:
            raise OSError(errno.EIO, "the output took no more bytes")
        view = view[n:]
