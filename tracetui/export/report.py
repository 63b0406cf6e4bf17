"""A Markdown postmortem of one span's retry chain (``tracetui report``, the viewer's ``P`` key).

:func:`render_report` is pure: an index and a row in, GitHub-flavoured Markdown out. It reads only
the rows of one chain. Every string from the trace (and the run's file names) is untrusted: it is
neutralised (no control, bidi or zero-width character survives) and put in a code span or a
fenced block, never in running text: a note cannot add emphasis, HTML or a link, and a URL from a
trace shows as code, never as an autolink. Every fence is longer than any backtick run inside it,
so a preview cannot close its own code span or block.

Re-runs recorded in the run's sidecar (``B.reruns.jsonl``, rows flagged ``SIDECAR``) are read
for what they prove: exit and bytes now, a hash verdict against the original, and the lines of
the re-run's stored preview that lie beyond the window the agent was shown. A stream ``tracetui
run`` kept whole is quoted too, hash-checked, without a re-run (:mod:`tracetui.export.kept_unseen`):
so the report reads the kept output files beside the run.
"""

from __future__ import annotations

from collections.abc import Sequence

from tracetui.analysis.chains import PARENT_MISSING, ChainIndex
from tracetui.export.failures import failure_lines, strongest_failure, unseen_window
from tracetui.export.kept_unseen import kept_section, kept_strongest
from tracetui.export.markdown import bounded_lines, code_span, duration, fence, num, share
from tracetui.model.flags import SIDECAR
from tracetui.model.markers import split_preview
from tracetui.model.spans import FEEDBACK, STREAMS, TRACETUI, TRUNCATION_SPAN, Span, StreamFacts
from tracetui.model.text import neutralize_line, quote_argv
from tracetui.rerun import diff
from tracetui.store import ids
from tracetui.store.index import RunIndex

PREVIEW_LINES = 40
"""Preview lines shown per attempt (split between both sides of a head_tail cut)."""


class ReportError(Exception):
    """An id that names no span (or several): the CLI turns it into exit 2."""


def find_row(indexes: Sequence[RunIndex], ident: str) -> tuple[RunIndex, int]:
    """``(index, row)`` of the span ``ident`` names (the rule: :func:`tracetui.store.ids.resolve`)."""
    try:
        return ids.resolve(indexes, ident)
    except ids.IdError as err:
        raise ReportError(str(err)) from None


# ------------------------------------------------------------------ Markdown pieces
class RecordOutput:
    """A re-run's output as far as its sidecar record keeps it (a :class:`diff.Output`).

    The record stores the whole stream's hash and a preview that is the whole stream when it
    fits the re-run cap, else its kept head/tail windows around tracetui's marker. The preview
    equals the raw bytes only when nothing was redacted, replaced or rendered as binary.
    """

    def __init__(self, rerun: Span, stream: str) -> None:
        facts = rerun.stream(stream)
        before, withheld, after = split_preview(facts.preview)
        self.head = before.encode("utf-8", "surrogatepass")
        self.tail = after.encode("utf-8", "surrogatepass") if withheld is not None else b""
        self.total = facts.bytes if facts.bytes is not None else len(self.head)
        self.sha256 = (facts.full_sha256 or facts.sha256 or "").lower()
        self.faithful = (
            not rerun.redacted and rerun.encoding != "binary" and "\ufffd" not in facts.preview
        )

    def covers(self, start: int, size: int) -> bool:
        """True when bytes ``start … start+size`` are kept in the record."""
        return start + size <= len(self.head) or start >= self.total - len(self.tail)

    def read(self, start: int, size: int) -> bytes:
        start, size = max(0, start), max(0, size)
        if start < len(self.head):
            return self.head[start : start + size]
        tail_start = self.total - len(self.tail)
        return (
            self.tail[start - tail_start : start - tail_start + size]
            if start >= tail_start
            else b""
        )


def rerun_verdict(original: StreamFacts, rerun: Span) -> str:
    """How a sidecar re-run's stream relates to the original's (``diff.VERDICTS``), from hashes."""
    out = RecordOutput(rerun, original.name)
    full_then = (
        original.full_sha256 or (original.sha256 if original.truncated is False else None) or ""
    ).lower()
    if full_then and full_then == out.sha256:
        return diff.IDENTICAL
    # Window hashes can be checked only where the record keeps those bytes verbatim.
    needed = [(0, original.head_bytes or 0)] if original.head_sha256 else []
    if original.tail_sha256:
        needed.append((out.total - (original.tail_bytes or 0), original.tail_bytes or 0))
    if needed and out.faithful and all(out.covers(*w) for w in needed):
        return diff.verdict(original, out)
    return diff.DIFFERS if full_then and out.sha256 else diff.UNKNOWN


def _unseen_text(original: Span, stream: str, rerun: Span) -> tuple[str, int, int, bool]:
    """``(text, unseen start, unseen bytes, complete)``: the re-run's bytes beyond the window seen."""
    out = RecordOutput(rerun, stream)
    windows = diff.plan_windows(original.stream(stream), original.dialect, out.total)
    start, size = windows.unseen_start, windows.unseen_bytes
    data = out.read(start, size)
    return data.decode("utf-8", "replace"), start, size, len(data) >= size


# ------------------------------------------------------------------ the chain
def _chain_rows(
    index: RunIndex, row: int
) -> tuple[list[int], dict[str, list[int]], str | None, bool]:
    """``(attempt rows, re-run rows by original id, missing parent, cycle)`` of ``row``'s chain."""
    chain = ChainIndex(index).chain(row)
    attempts: list[int] = []
    reruns: dict[str, list[int]] = {}
    for node in chain.nodes():
        r = node.row
        if index.flags[r] & SIDECAR:
            parent = index.parent_ids.get(r)
            if parent is not None:
                reruns.setdefault(parent, []).append(r)
        else:
            attempts.append(r)
    # Attempts in set (append) order: the order they happened in.
    attempts.sort()
    for rows in reruns.values():
        rows.sort()
    return attempts, reruns, chain.missing_parent, chain.cycle


def _stream_cell(f: StreamFacts) -> str:
    return f"{num(f.shown_bytes)} / {num(f.bytes)}"


def _produced(span: Span) -> int | None:
    known = [s.bytes for s in span.streams if s.bytes is not None]
    return sum(known) if known else None


def _exit_text(span: Span) -> str:
    if span.is_submission:
        return "unknown (the submission step)"
    if span.exit_unknown:
        return "unknown (not recorded)"
    if span.exit_code is None:
        own = span.dialect in (TRACETUI, TRUNCATION_SPAN, FEEDBACK)
        return "none (runner error)" if own else "none (the agent's format flagged an error)"
    if span.exit_code < 0:
        return f"{span.exit_code} (killed by signal {-span.exit_code})"
    return str(span.exit_code)


def render_report(index: RunIndex, row: int) -> str:
    """The postmortem of ``row``'s whole retry chain as GitHub-flavoured Markdown."""
    attempts, reruns, missing, cycle = _chain_rows(index, row)
    if not attempts:  # only sidecar rows (a re-run whose original was rotated away)
        attempts = [row]
    spans: list[tuple[int, Span | None]] = [(r, index.span(r)) for r in attempts]
    first = next((s for _r, s in spans if s is not None), None)
    tool = first.display_name if first else "?"
    n = len(attempts)
    path, line = index.location(row)
    out = [
        f"# Postmortem: {code_span(tool)}, {n} attempt{'s' if n != 1 else ''} (chain {code_span(index.ids[attempts[0]] or '?')})",
        "",
        f"Run {code_span(index.run.name)}, report asked for span {code_span(index.ids[row] or '?')} "
        f"({code_span(f'{path}:{line}')}).",
        "",
        _verdict(index, spans, reruns),
        "",
    ]
    if missing:
        out += [f"> The first attempt names parent {code_span(missing)}: {PARENT_MISSING}.", ""]
    if cycle:
        out += [
            "> The parent links of this chain loop back on themselves; the loop is cut at its first row.",
            "",
        ]
    out.extend(_table(index, spans))
    for k, (r, span) in enumerate(spans, 1):
        out.append("")
        out.extend(_attempt(index, k, r, span, reruns))
    return "\n".join(out).rstrip("\n") + "\n"


def _verdict(
    index: RunIndex, spans: list[tuple[int, Span | None]], reruns: dict[str, list[int]]
) -> str:
    n = len(spans)
    last = spans[-1][1]
    sentence = f"{n} attempt{'s' if n != 1 else ''}"
    if last is not None:
        sentence += f"; {'the last one' if n > 1 else 'it'} exited {_exit_text(last)}"
    sentence += "."
    # The most telling cut: the first attempt that hid bytes, on its stream that hid the most.
    clipped = [
        (k, s) for k, (_r, s) in enumerate(spans, 1) if s is not None and (s.hidden_bytes or 0) > 0
    ]
    if not clipped:
        unknown = any(s is not None and s.truncated is None for _r, s in spans)
        if unknown:
            return (
                sentence
                + " Some attempts record no byte counts: whether the agent saw everything is unknown."
            )
        return sentence + " The agent was shown every byte of every attempt."
    k, span = clipped[0]
    stream = max(span.streams, key=lambda f: f.hidden_bytes or 0)
    hidden = stream.hidden_bytes or 0
    pct = share(hidden, stream.bytes)
    where = f"the agent never saw {num(hidden)} bytes{f' ({pct})' if pct else ''} of attempt {k}'s {stream.name}"
    sentence += " " + where[0].upper() + where[1:]
    rerun_spans = (index.span(rr) for rr in reruns.get(span.command_id or "", []))
    texts = (_unseen_text(span, stream.name, rs)[0] for rs in rerun_spans if rs is not None)
    found = next((f for f in map(strongest_failure, texts) if f), None)
    if found:
        sentence += f", where a re-run shows {code_span(found[:300])}"
    elif (kept := kept_strongest(index, span, stream.name)) is not None:
        sentence += f", where the kept output shows {code_span(kept[:300])}"
    sentence += "."
    others = len(clipped) - 1
    if others:
        sentence += f" {others} more attempt{'s were' if others != 1 else ' was'} clipped too."
    if last is not None and last.exit_code == 0 and (last.hidden_bytes or 0) > 0:
        sentence += (
            " The last attempt passed with output withheld: its exit code is the only"
            " evidence the agent had that nothing failed in the hidden part."
        )
    return sentence


def _named(index: RunIndex, cid: str | None) -> str:
    """An id in a heading: its displayed form (store/ids.py), then the whole id if that differs."""
    if not cid:
        return code_span("?")
    shown = ids.shown_id(index, cid)
    whole = neutralize_line(cid)
    return code_span(shown) if shown == whole else f"{code_span(shown)} ({code_span(whole)})"


def _table(index: RunIndex, spans: list[tuple[int, Span | None]]) -> list[str]:
    out = [
        "| attempt | id | exit | duration | stdout shown / produced | stderr shown / produced | hidden | share |",
        "|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    for k, (r, span) in enumerate(spans, 1):
        cid = code_span(ids.shown_id(index, index.ids[r]) if index.ids[r] else "?", cell=True)
        if span is None:
            out.append(f"| {k} | {cid} | ? | ? | ? | ? | ? | ? |")
            continue
        hidden = span.hidden_bytes
        produced = _produced(span)
        out.append(
            f"| {k} | {cid} | {_exit_text(span)} | {duration(span.duration_ms)} | "
            f"{_stream_cell(span.stdout)} | {_stream_cell(span.stderr)} | {num(hidden)} | "
            f"{share(hidden, produced) or '-'} |"
        )
    return out


def _attempt(
    index: RunIndex, k: int, row: int, span: Span | None, reruns: dict[str, list[int]]
) -> list[str]:
    cid = _named(index, index.ids[row])
    path, line = index.location(row)
    if span is None:
        return [
            f"## Attempt {k}: {cid}",
            "",
            f"This line cannot be read any more ({code_span(f'{path}:{line}')}).",
        ]
    out = [f"## Attempt {k}: {cid}, exit {_exit_text(span)}", ""]
    out.append(
        f"- **argv**: {code_span(quote_argv(span.argv)) if span.argv else '(none recorded)'}"
    )
    out.append(f"- **cwd**: {code_span(span.cwd) if span.cwd else 'unknown'}")
    out.append(
        f"- **started**: {code_span(span.started_at) if span.started_at else 'unknown'}, **duration**: {duration(span.duration_ms)}"
    )
    if span.error:
        out.append(f"- **runner error**: {code_span(span.error)}")
    out.append(f"- **agent note**: {code_span(span.agent_note) if span.agent_note else '(none)'}")
    out.append(f"- **recorded at**: {code_span(f'{path}:{line}')}")
    for f in span.streams:
        out.append(f"- **{f.name}**: {_stream_facts(f)}")
    for f in span.streams:
        out.append("")
        out.extend(_preview(f))
        out.extend(kept_section(index, span, f))  # what the agent never saw, if it was kept
    for rr in reruns.get(span.command_id or "", []):
        rspan = index.span(rr)
        if rspan is not None:
            out.append("")
            out.extend(_rerun(index, rr, span, rspan))
    return out


def _stream_facts(f: StreamFacts) -> str:
    if f.bytes is None and f.truncated is None:
        return "no byte count recorded: truncation unknown"
    bits = [f"{num(f.bytes)} bytes produced" if f.bytes is not None else "size unknown"]
    if f.cap is not None:
        bits.append(f"cap {num(f.cap)}")
    if not f.truncated:
        bits.append("nothing hidden")
    else:
        hidden = f.hidden_bytes
        pct = share(hidden, f.bytes)
        bits.append(f"clip {f.clip or '?'}")
        bits.append(f"{num(f.shown_bytes)} shown")
        bits.append(f"**{num(hidden)} never shown{f' ({pct})' if pct else ''}**")
    if f.items is not None:
        bits.append(
            f"{num(f.items)} JSON items at the source, {num(f.preview_items)} complete in what was shown"
        )
    return ", ".join(bits)


def _preview(f: StreamFacts) -> list[str]:
    """The stored preview, bounded, with the clip point marked."""
    head = f"**{f.name} as the agent saw it**"
    if not f.preview:
        return [f"{head}: (empty)"]
    before, after, marked = _split(f)
    hidden = f.hidden_bytes
    clip_line = (
        f"✂──── {num(hidden)} bytes the agent never saw ────✂"
        if hidden is not None
        else ("✂──── the agent never saw the rest ────✂")
    )
    if not f.truncated:
        lines = bounded_lines(
            f.preview, PREVIEW_LINES, keep="end", what="earlier lines of the preview"
        )
    elif f.clip == "tail":
        lines = [
            clip_line,
            *bounded_lines(
                after if marked else f.preview,
                PREVIEW_LINES,
                keep="start",
                what="later lines of the preview",
            ),
        ]
    elif f.clip == "head_tail" and marked:
        half = PREVIEW_LINES // 2
        lines = [
            *bounded_lines(before, half, keep="end", what="earlier lines of the preview"),
            clip_line,
            *bounded_lines(after, half, keep="start", what="later lines of the preview"),
        ]
    else:
        lines = [
            *bounded_lines(
                before if marked else f.preview,
                PREVIEW_LINES,
                keep="end",
                what="earlier lines of the preview",
            ),
            clip_line,
        ]
    return [f"{head}:", "", *fence(lines)]


def _split(f: StreamFacts) -> tuple[str, str, bool]:
    before, withheld, after = split_preview(f.preview)
    if withheld is not None:
        return before, after, True
    if f.marker is None:
        return f.preview, "", False
    rest = f.preview[f.marker.end :]
    return f.preview[: f.marker.start], rest[1:] if rest.startswith("\n") else rest, True


def _rerun(index: RunIndex, row: int, original: Span, rerun: Span) -> list[str]:
    rid = _named(index, index.ids[row])
    when = code_span(rerun.started_at) if rerun.started_at else "time unknown"
    out = [f"### Re-run {rid} ({when})", ""]
    then, now = _exit_text(original), _exit_text(rerun)
    out.append(
        f"- **exit**: then {then}, now {now}"
        + (f" ({code_span(rerun.error)})" if rerun.error else "")
    )
    for s in STREAMS:
        f_then, f_now = original.stream(s), rerun.stream(s)
        out.append(
            f"- **{s}**: then {num(f_then.bytes)} bytes, now {num(f_now.bytes)} bytes; "
            f"verdict **{rerun_verdict(f_then, rerun)}**"
        )
    for s in STREAMS:
        if not original.stream(s).truncated:
            continue
        text, start, size, complete = _unseen_text(original, s, rerun)
        out.append("")
        if size <= 0:
            out.append(f"The re-run's {s} fits in the window the agent saw: nothing new beyond it.")
            continue
        out.append(
            f"**{s} the agent never saw** (bytes {num(start)} to {num(start + size)} of the re-run)"
            + (
                ""
                if complete
                else "; the re-run record keeps only part of it, see `tracetui rerun`"
            )
            + ":"
        )
        fails = failure_lines(text)
        if fails:
            out.append("")
            out.extend(f"- {code_span(x[:300])}" for x in fails)
        out.append("")
        out.extend(fence(unseen_window(text)))
    return out
