"""The detail pane: everything one row says, and what the agent never saw.

Every trace string goes through :func:`tracetui.model.text.neutralize` before it becomes a
``rich.text.Text`` (never markup). Previews can be megabytes: each is drawn bounded, with a note
saying how much was left out of the drawing (the raw view is bounded the same way). The raw view
draws the record without recursion (:func:`tracetui.model.text.pretty_json`): a record nested
hundreds of levels deep shows a marker where the nesting is cut, and the rest of the record.
"""

from __future__ import annotations

from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from tracetui.analysis.rows import SUSPICION_GLYPH, banner, fmt_duration, items_note, never_shown
from tracetui.analysis.search import match_spans
from tracetui.analysis.suspicions import Suspicion, may_be_suspicious, suspicions_at
from tracetui.model.markers import split_preview
from tracetui.model.spans import Span, StreamFacts
from tracetui.model.text import neutralize, neutralize_line, pretty_json, quote_argv
from tracetui.store.index import RunIndex
from tracetui.store.reader import BadLine
from tracetui.store.runset import Run
from tracetui.ui.widgets.detail_summary import DetailSummary
from tracetui.ui.widgets.redraw import show_text
from tracetui.ui.widgets.styles import style_or_plain

MAX_DRAWN = 24_000
"""Characters of one preview part (or of the raw JSON) drawn; the rest is counted, not drawn."""


class DetailBody(Static):
    """The text of the detail pane (a Static so it wraps; styles come from the theme)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "detail--label",
        "detail--heading",
        "detail--banner",
        "detail--failed",
        "detail--null",
        "detail--dim",
        "detail--warn",
        "detail--argv",
    }

    def st(self, name: str) -> Style:
        return style_or_plain(self, f"detail--{name}")


class DetailPane(VerticalScroll):
    """Shows one row: span facts and previews, a bad line, or the raw JSON."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.body = DetailBody("", id="detail-body")
        self.summary = DetailSummary("", id="detail-summary")
        """The compact header of narrow terminals (ui/widgets/detail_summary.py)."""
        self._shown: tuple[RunIndex | None, int | None, bool] = (None, None, False)
        self._text = Text()
        self._verdict_at: int | None = None
        """Offset in the drawn text of the first cut stream's "never shown" line, if any."""
        self.highlight = ""
        """The active search's query, highlighted wherever it occurs in the pane."""

    def compose(self) -> ComposeResult:
        yield self.summary
        yield self.body

    def show(self, index: RunIndex | None, row: int | None, raw: bool) -> None:
        """Draw ``row`` of ``index`` (the raw JSON when ``raw``); nothing when row is None."""
        if (index, row, raw) != self._shown:
            self.scroll_home(animate=False)
        self._shown = (index, row, raw)
        self._text = self._marked(self.render_row(index, row, raw))
        show_text(self.body, self._text)  # no layout while as tall (ui/widgets/redraw.py)
        self._show_summary()

    def _show_summary(self) -> None:
        index, row, raw = self._shown
        span = None if raw or index is None or row is None or row >= len(index) else index.span(row)
        self.summary.show_span(span)
        if self.is_mounted:
            self.call_after_refresh(self._pin_summary)

    def on_resize(self) -> None:
        self.call_after_refresh(self._pin_summary)

    def _pin_summary(self) -> None:
        """Pin the compact header on a wide terminal too when the "never shown" line would be
        out of sight as the pane opens (at 120×40 the facts and incident lines of a failure fill
        the side pane): what the agent missed stays on screen without a key, at every size."""
        at, width = self._verdict_at, self.body.content_region.width
        height = self.scrollable_content_region.height
        pinned = False
        if at is not None and width > 0 and height > 0:
            prefix = self._text[:at]
            rows = len(prefix.wrap(self.app.console, width))
            rows -= prefix.plain.endswith("\n")  # the empty line after the last newline
            pinned = rows >= height
        self.summary.set_class(pinned, "-pinned")

    def set_highlight(self, query: str) -> None:
        """Highlight ``query`` (the active search; empty: none) and redraw."""
        if query != self.highlight:
            self.highlight = query
            if self.is_mounted:
                self.show(*self._shown)

    def _marked(self, text: Text) -> Text:
        for a, b in match_spans(text.plain, self.highlight):
            text.stylize("reverse bold", a, b)
        return text

    def notify_style_update(self) -> None:
        super().notify_style_update()
        if self.is_mounted and self._shown[0] is not None:
            # After the refresh: the body's component styles take the new theme after this call.
            self.call_after_refresh(self._redraw)

    def _redraw(self) -> None:
        index, row, raw = self._shown
        self._text = self._marked(self.render_row(index, row, raw))
        show_text(self.body, self._text)  # no layout while as tall (ui/widgets/redraw.py)
        self._show_summary()

    # ------------------------------------------------------------- rendering
    def render_row(self, index: RunIndex | None, row: int | None, raw: bool) -> Text:
        self._verdict_at = None
        if index is not None and len(index) == 0:
            return Text("No spans yet.", style=self.body.st("dim"))
        if index is None or row is None or row >= len(index):
            return Text("No row selected.", style=self.body.st("dim"))
        item = index.get(row)
        if raw:
            return self._raw(item)
        if isinstance(item, BadLine):
            return self._bad(item)
        found = suspicions_at(index, row) if may_be_suspicious(index, row) else []
        return self._span(index.run, item, found)

    def _raw(self, item: Span | BadLine) -> Text:
        t = Text()
        if isinstance(item, BadLine):
            t.append("raw line (not JSON)\n", self.body.st("heading"))
            body = item.text
        else:
            # The dialect is the record's own `schema` for an importer's record: trace text.
            t.append(f"raw record ({neutralize_line(item.dialect)})\n", self.body.st("heading"))
            body = pretty_json(item.raw)
        self._bounded(t, neutralize(body), "")
        return t

    def _bad(self, item: BadLine) -> Text:
        t = Text()
        t.append("bad line  ", self.body.st("label"))
        t.append(neutralize_line(f"{item.file}:{item.line}"), self.body.st("failed"))
        t.append("\nreason    ", self.body.st("label"))
        t.append(neutralize_line(item.reason) + "\n\n")
        if item.text:
            t.append("line starts with\n", self.body.st("label"))
            self._bounded(t, neutralize(item.text), "")
        return t

    def _field(self, t: Text, label: str, value: str, style: Style | str = "") -> None:
        t.append(f"{label:<10}", self.body.st("label"))
        t.append(value, style)
        t.append("\n")

    def _span(self, run: Run, span: Span, suspicions: list[Suspicion] | None = None) -> Text:
        st = self.body.st
        t = Text()
        t.append(quote_argv(span.argv) if span.argv else "(no argv recorded)", st("argv"))
        t.append("\n")
        cwd = run.resolve_cwd(span.cwd)
        recorded = "" if span.cwd == cwd else f"   (recorded: {span.cwd or 'none'})"
        self._field(t, "cwd", neutralize_line(cwd + recorded))
        when = neutralize_line(span.started_at or "?")
        dur = "?" if span.duration_ms is None else f"{span.duration_ms:,.0f} ms"
        if span.duration_ms is not None and span.duration_ms >= 1000:
            dur = f"{fmt_duration(span.duration_ms)} ({dur})"
        self._field(t, "started", when)
        self._field(t, "duration", dur)
        if span.exit_unknown:  # no exit and no error: not a failure (docs/importers.md)
            what = "submission, exit unknown" if span.is_submission else "unknown"
            why = neutralize_line(span.exit_note or "no exit and no error recorded")
            self._field(t, "exit", f"{what}: {why}", st("dim"))
        elif span.exit_code is None:
            self._field(
                t, "exit", "none: " + neutralize_line(span.error or "no exit recorded"), st("null")
            )
        else:
            style = st("failed") if span.exit_code != 0 else ""
            err = f"   error: {neutralize_line(span.error)}" if span.error else ""
            self._field(t, "exit", f"{span.exit_code}{err}", style)
        if span.agent_note:
            self._field(t, "note", neutralize_line(span.agent_note))
        for code, reason in suspicions or ():
            # The incident rules' own words (docs/lint.md): why this span deserves a second look.
            self._field(t, SUSPICION_GLYPH, neutralize_line(f"{code} {reason}"), st("warn"))
        ids = f"{span.command_id or '-'}"
        if span.parent_command_id:
            ids += f"   retry of {span.parent_command_id}"
        self._field(t, "id", neutralize_line(ids))
        claims = [f"dialect {span.dialect}"]
        if span.ok_preview is not None:
            claims.append(f"ok_preview {str(span.ok_preview).lower()}")
        if span.encoding:
            claims.append(f"encoding {span.encoding}")
        if span.redacted:
            claims.append(f"{span.redacted} secrets redacted")
        self._field(t, "record", neutralize_line("   ".join(claims)), st("dim"))
        if span.ok_preview is True and span.truncated is True:
            # The record vouches for its preview while bytes were withheld: say so beside it.
            hidden = span.hidden_bytes
            lost = f"{hidden:,} bytes were" if hidden else "part of the output was"
            self._field(t, "record", f"ok_preview true  ⚠ but {lost} never shown", st("warn"))
        for problem in span.problems:
            self._field(t, "problem", neutralize_line(problem), st("warn"))
        self._imported(t, span)
        for s in span.streams:
            self._stream(t, s)
        return t

    def _imported(self, t: Text, span: Span) -> None:
        """What an importer says about another agent's record (docs/importers.md)."""
        raw, st = span.raw, self.body.st
        source = raw.get("source_format")
        if not isinstance(source, str):
            return
        kind = "line" if raw.get("source_line") else "step"
        where = raw.get("source_line") or raw.get("source_index")
        self._field(t, "source", neutralize_line(f"{source} trace, {kind} {where}"))
        full = raw.get("full_stdout")
        if isinstance(full, str):
            note = (
                f"the agent kept the whole output ({len(full.encode()):,} bytes here): R shows it"
            )
            self._field(t, "full", note, st("warn"))
        if raw.get("model_view_recorded") is False:
            note = "this agent did not record what the model saw: truncation unknown"
            self._field(t, "seen?", note, st("warn"))

    def _stream(self, t: Text, s: StreamFacts) -> None:
        st = self.body.st
        t.append("\n")
        size = "? bytes" if s.bytes is None else f"{s.bytes:,} bytes"
        cap = "uncapped" if s.cap is None else f"cap {s.cap:,}"
        head = f"── {s.name} ── {size} · {cap}"
        if s.clip:
            head += f" · clip {s.clip}"
        t.append(head + "\n", st("heading"))
        if s.bytes == 0 and not s.truncated and not s.preview:
            return  # an empty stream: nothing was hidden and there is nothing to show
        verdict = never_shown(s)
        if s.truncated is not False and self._verdict_at is None:
            self._verdict_at = len(t)
        style = st("warn") if s.truncated is None else st("banner") if s.truncated else st("dim")
        self._field(t, "unseen", verdict, style)
        items = items_note(s)
        if items:
            self._field(t, "items", items, st("warn") if s.truncated else "")
        for label, value in (
            ("sha256", s.sha256),
            ("full", s.full_sha256),
            ("head", s.head_sha256),
            ("tail", s.tail_sha256),
        ):
            if value:
                extra = ""
                if label == "head" and s.head_bytes is not None:
                    extra = f"  ({s.head_bytes:,} bytes)"
                if label == "tail" and s.tail_bytes is not None:
                    extra = f"  ({s.tail_bytes:,} bytes)"
                # A prefix is what people compare; the raw view (R) has the whole hash.
                short = value if len(value) <= 20 else value[:20] + "…"
                self._field(t, label, neutralize_line(short) + extra, st("dim"))
        if not s.preview:
            t.append("(empty preview)\n" if s.bytes != 0 else "", st("dim"))
            if s.truncated:
                self._banner(t, s)
            return
        self._preview(t, s)

    def _banner(self, t: Text, s: StreamFacts) -> None:
        t.append(f" ━━ {banner(s)} ━━ ", self.body.st("banner"))
        t.append("\n")

    def _preview(self, t: Text, s: StreamFacts) -> None:
        text = s.preview
        before, withheld, after = split_preview(text)
        if withheld is not None:
            self._bounded(t, neutralize(before), "\n")
            self._banner(t, s)
            self._bounded(t, neutralize(after), "")
        elif s.marker is not None:
            self._bounded(t, neutralize(text[: s.marker.start]), "\n")
            self._banner(t, s)
            t.append(
                neutralize_line(text[s.marker.start : s.marker.end]) + "\n", self.body.st("dim")
            )
            self._bounded(t, neutralize(text[s.marker.end :]), "")
        elif s.truncated and s.clip == "tail":
            self._banner(t, s)
            self._bounded(t, neutralize(text), "")
        else:
            self._bounded(t, neutralize(text), "")
            if s.truncated:
                if not text.endswith("\n"):
                    t.append("\n")
                self._banner(t, s)
        if not t.plain.endswith("\n"):
            t.append("\n")

    def _bounded(self, t: Text, text: str, sep: str) -> None:
        """Append at most MAX_DRAWN characters of already neutralised text."""
        if len(text) <= MAX_DRAWN:
            t.append(text)
        else:
            t.append(text[:MAX_DRAWN])
            more = len(text) - MAX_DRAWN
            t.append(f"\n[{more:,} more characters not drawn here]", self.body.st("dim"))
        if sep and not text.endswith(sep):
            t.append(sep)
