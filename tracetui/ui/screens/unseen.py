"""The unseen screen (``u``): the kept bytes of a stream that the agent never saw.

``tracetui run`` keeps each stream whole (:mod:`tracetui.record.kept`). This screen checks the
selected span's kept stream against its hash and pages the part outside the preview from disk
(:class:`tracetui.record.kept_pages.UnseenPages`, loaded on a thread worker), with the clip point
marked: where the agent's head view ended, where its tail view began. ``/`` searches inside those
bytes, ``n``/``N`` walk the matches. Where nothing was kept, ``u`` says why and offers the re-run.
"""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Input, Static

from tracetui.model.spans import Span
from tracetui.model.text import neutralize, neutralize_line
from tracetui.record.kept_pages import UnseenPages
from tracetui.record.kept_read import NotKept, find_kept
from tracetui.ui.palette import theme_style

STREAMS = ("stdout", "stderr")


def _stream_for(span: Span) -> str | None:
    """The first stream that was cut and kept; else the first cut one (to say why it is not)."""
    cut = [s for s in span.streams if s.truncated]
    kept = [s for s in cut if s.kept is not None and s.kept.unseen_end > s.kept.unseen_start]
    chosen = kept or cut
    return chosen[0].name if chosen else None


def show_unseen(app: Any, row: int | None) -> None:
    """``u``: open the unseen screen for the span at ``row``, or say why there is nothing."""
    index = app.index
    if index is None or row is None:
        app.notify("no span selected", timeout=3)
        return
    span = index.span(row)
    if span is None:
        app.notify("this line is not a span", timeout=3)
        return
    stream = _stream_for(span)
    if stream is None:
        app.notify("the agent saw all of this span's output: nothing unseen", timeout=4)
        return
    try:
        kept = find_kept(index.run.base, span.raw, stream, imported=index.run.source_format)
    except NotKept as exc:
        app.notify(
            neutralize_line(f"{stream}: {exc}") + "\nr re-runs it uncapped to see the rest",
            title="nothing kept",
            severity="warning",
            timeout=8,
            markup=False,
        )
        return
    app.push_screen(UnseenScreen(kept, stream, span.streams, title=span.display_name))


class UnseenScreen(Screen[None]):
    """A pager over one kept stream's unseen bytes."""

    DEFAULT_CSS = """
    UnseenScreen { layout: vertical; }
    UnseenScreen #unseen-head { height: auto; padding: 0 1; background: $boost; }
    UnseenScreen #unseen-body { height: 1fr; padding: 0 1; }
    UnseenScreen #unseen-find { display: none; }
    UnseenScreen #unseen-find.shown { display: block; }
    UnseenScreen #unseen-keys { height: 1; padding: 0 1; color: $tt-faint; }
    """

    AUTO_FOCUS = ""  # the search box is the only focusable widget: keys go to the pager
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,u", "close", "Close", id="unseen.close"),
        Binding("pagedown,space,f", "page(1)", "Page down", id="unseen.page_down"),
        Binding("pageup,b", "page(-1)", "Page up", id="unseen.page_up"),
        Binding("down,j", "line(1)", "Line down", id="unseen.line_down"),
        Binding("up,k", "line(-1)", "Line up", id="unseen.line_up"),
        Binding("g,home", "top", "Top", id="unseen.top"),
        Binding("G,end", "bottom", "Bottom", id="unseen.bottom"),
        Binding("slash", "search", "Search", id="unseen.search"),
        Binding("n", "match(1)", "Next match", id="unseen.next"),
        Binding("N", "match(-1)", "Previous match", id="unseen.prev"),
    ]

    def __init__(self, kept: Any, stream: str, streams: Any, *, title: str) -> None:
        super().__init__()
        self.kept = kept
        self.stream = stream
        self.facts = next(s for s in streams if s.name == stream)
        self.what = title
        self.pages: UnseenPages | None = None
        self.top = 0
        self.needle = b""
        self.hit: int | None = None
        self.problem: str | None = None

    def compose(self) -> ComposeResult:
        yield Static(self._head_text(), id="unseen-head", markup=False)
        yield Static(Text("checking the kept bytes against their hash…"), id="unseen-body")
        yield Input(placeholder="search the unseen bytes; Enter finds", id="unseen-find")
        yield Static(
            Text("space/b page · j/k line · g/G ends · / search · n/N matches · q close"),
            id="unseen-keys",
        )

    def on_mount(self) -> None:
        self._load()

    def on_unmount(self) -> None:
        if self.pages is not None:
            self.pages.close()

    @work(thread=True, exclusive=True, exit_on_error=False, group="unseen")
    def _load(self) -> None:
        try:
            pages = UnseenPages.load(self.kept)
        except NotKept as exc:
            self.app.call_from_thread(self._failed, str(exc))
            return
        self.app.call_from_thread(self._loaded, pages)

    def _failed(self, why: str) -> None:
        self.problem = why
        self.query_one("#unseen-body", Static).update(
            Text(
                neutralize_line(f"not shown: {why}"),
                style=theme_style(self.app.theme_variables, "bold $tt-error"),
            )
        )

    def _loaded(self, pages: UnseenPages) -> None:
        if not self.is_attached:
            pages.close()
            return
        self.pages = pages
        self.refresh_page()
        self.call_after_refresh(self.refresh_page)  # again once the body has its height

    def on_resize(self) -> None:
        self.refresh_page()

    # ------------------------------------------------------------------ drawing
    def _head_text(self) -> Text:
        unseen = self.kept.unseen_end - self.kept.unseen_start
        clip = self.facts.clip or "head"
        where = {
            "head": "after the head it saw",
            "tail": "before the tail it saw",
            "head_tail": "between the head and the tail it saw",
        }.get(clip, "outside the preview")
        head = Text(f"{neutralize_line(self.what)} · {self.stream} · ", style="bold")
        head.append(f"{unseen:,} bytes the agent never saw, {where}", style="bold")
        if self.kept.note:  # another agent's copy: no hash recorded, say what was checked
            head.append(f" · {neutralize_line(self.kept.note)}")
        else:
            head.append(" · kept, redacted, checked against its hash")
        return head

    def _rows(self) -> int:
        body = self.query_one("#unseen-body", Static)
        return max(3, (body.size.height or 20) - 2)

    def refresh_page(self) -> None:
        pages = self.pages
        if pages is None:
            return
        page = pages.page(self.top, self._rows())
        if pages.problem is not None:  # the kept file changed or broke since it was checked
            self._failed(pages.problem)
            return
        clip = self.facts.clip or "head"
        variables = self.app.theme_variables  # readable colours (ui/palette.py)
        faint = theme_style(variables, "$tt-faint")
        match = theme_style(variables, "bold $tt-on-warning on $warning")
        text = Text()
        if page.start == 0 and clip in ("head", "head_tail"):
            text.append("▲ the agent's view ended here: it never saw anything below\n", "reverse")
        for number, line in enumerate(page.lines):
            shown = neutralize(line.decode("utf-8", "surrogateescape")).replace("\n", "")
            row = Text(shown)
            if self.needle:
                row.highlight_words(
                    [self.needle.decode("utf-8", "replace")], match, case_sensitive=False
                )
            text.append_text(row)
            if number + 1 < len(page.lines):
                text.append("\n")
        if page.end >= pages.size and clip in ("tail", "head_tail"):
            text.append("\n▼ the agent's view began here: it never saw anything above", "reverse")
        if page.end >= pages.size and clip == "head":
            text.append("\n■ end of the stream", faint)
        self.query_one("#unseen-body", Static).update(text)

    # ------------------------------------------------------------------ keys
    def action_close(self) -> None:
        find = self.query_one("#unseen-find", Input)
        if find.has_class("shown"):
            find.remove_class("shown")
            self.set_focus(None)
            return
        self.dismiss(None)

    def action_page(self, step: int) -> None:
        if self.pages is None:
            return
        rows = self._rows()
        if step > 0:
            end = self.pages.page(self.top, rows).end
            self.top = end if end < self.pages.size else self.top
        else:
            self.top = self.pages.back(self.top, rows)
        self.refresh_page()

    def action_line(self, step: int) -> None:
        if self.pages is None:
            return
        if step > 0:
            end = self.pages.page(self.top, 1).end
            self.top = end if end < self.pages.size else self.top
        else:
            self.top = self.pages.back(self.top, 1)
        self.refresh_page()

    def action_top(self) -> None:
        self.top = 0
        self.refresh_page()

    def action_bottom(self) -> None:
        if self.pages is not None:
            self.top = self.pages.back(self.pages.size, self._rows())
            self.refresh_page()

    def action_search(self) -> None:
        find = self.query_one("#unseen-find", Input)
        find.add_class("shown")
        find.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.needle = event.value.encode("utf-8")
        self.query_one("#unseen-find", Input).remove_class("shown")
        self.set_focus(None)
        self.hit = None
        self.action_match(1)

    def action_match(self, step: int) -> None:
        pages = self.pages
        if pages is None or not self.needle:
            return
        if self.hit is None:
            start = self.top if step > 0 else pages.size
        else:
            start = self.hit + 1 if step > 0 else self.hit
        found = pages.find(self.needle, start, forward=step > 0)
        if pages.problem is not None:
            self._failed(pages.problem)
            return
        if found is None:
            shown = neutralize_line(self.needle.decode("utf-8", "replace"))
            self.notify(
                f"no more matches for {shown!r} in the unseen bytes", timeout=3, markup=False
            )
            return
        self.hit = found
        self.top = pages.line_start(found)
        self.refresh_page()
