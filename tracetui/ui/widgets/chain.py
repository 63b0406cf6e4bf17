"""The chain pane: the selected span's retry tree (root → attempts → branches).

Each node shows its attempt number, id, exit and truncation; the selected row is marked at the
start of its line (a long line ends in an ellipsis, never past the pane's edge). The
app steps along :attr:`ChainPane.order` (depth-first, the order drawn) with ``[`` and ``]``.

A chain of thousands of attempts draws a window of :data:`WINDOW` attempts either side of the
selected one, with a line saying how many are left out before and after, and indents at most
:data:`DEEPEST` levels (deeper nodes keep their last levels behind a ``┆`` mark): drawing all of
a 6,000-attempt chain, its indentation growing by three columns an attempt, took 26 s.
"""

from __future__ import annotations

from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from tracetui.analysis.chains import Chain, ChainIndex, ChainNode
from tracetui.analysis.rows import fmt_exit, span_hidden_words
from tracetui.model.flags import BAD, EXIT_UNKNOWN, NULL_EXIT, SIDECAR, TRUNC_UNKNOWN, TRUNCATED
from tracetui.model.text import neutralize_line
from tracetui.store.ids import shown_id
from tracetui.store.index import RunIndex
from tracetui.ui.widgets.redraw import show_text
from tracetui.ui.widgets.styles import style_or_plain

WINDOW = 200
"""Attempts drawn either side of the selected one."""
DEEPEST = 8
"""Levels of indentation drawn; a deeper node keeps its last ones."""
MARKER = "▶ "
"""Leads the selected attempt's line (other lines lead with as many spaces)."""
_FOLD = "┆  "
"""Stands for the levels of indentation left out (one level's width)."""


def _fold(lead: str) -> str:
    """``lead`` with its oldest levels replaced by one fold mark once it is over DEEPEST levels."""
    if len(lead) <= 3 * DEEPEST:
        return lead
    return _FOLD + lead[-3 * (DEEPEST - 1) :]


def _attempts(n: int, kind: str = "") -> str:
    """``"1 attempt"``, ``"2,800 earlier attempts"``."""
    return f"{n:,} {kind + ' ' if kind else ''}attempt{'s' if n != 1 else ''}"


class ChainBody(Static):
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "chain--failed",
        "chain--null",
        "chain--trunc",
        "chain--dim",
        "chain--selected",
        "chain--warn",
        "chain--heading",
    }

    def st(self, name: str) -> Style:
        return style_or_plain(self, f"chain--{name}")


class ChainPane(VerticalScroll):
    """Draws the chain of the selected row; remembers its node order for stepping."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.body = ChainBody("", id="chain-body")
        self.order: list[int] = []
        """Rows of the current chain, depth-first (the drawn order)."""
        self.chain: Chain | None = None
        self._position: dict[int, int] = {}
        """Row → its place in :attr:`order`."""
        self.selected_line = 0
        """Line of the drawn text holding the selected attempt (the pane scrolls to show it)."""
        self._shown: tuple[RunIndex | None, ChainIndex | None, int | None] = (None, None, None)
        self._shown_subtitle = ""

    def compose(self):  # type: ignore[no-untyped-def]
        yield self.body

    def notify_style_update(self) -> None:
        super().notify_style_update()
        if self.is_mounted and self._shown[0] is not None:
            # After the refresh: the body's component styles take the new theme after this call.
            self.call_after_refresh(lambda: self.show(*self._shown))

    def show(self, index: RunIndex | None, chains: ChainIndex | None, row: int | None) -> None:
        self._shown = (index, chains, row)
        if index is not None and chains is None and row is not None:  # ui/messages.post_ready
            self.chain, self.order, self._position = None, [], {}
            show_text(self.body, Text("Linking the retry chains…", style=self.body.st("dim")))
            self._subtitle("")
            return
        # A row of another index (the run was re-read) or not yet committed draws nothing.
        if (
            index is None
            or chains is None
            or row is None
            or not 0 <= row < len(index)
            or index.flags[row] & BAD
            or chains.index is not index
        ):
            self.chain, self.order, self._position = None, [], {}
            show_text(self.body, Text("No retry chain for this row.", style=self.body.st("dim")))
            self._subtitle("")
            return
        chain = chains.chain(row)
        if chain is not self.chain:  # the chain index hands back the same tree while it holds
            self.chain = chain
            self.order = [n.row for n in chain.nodes()]
            self._position = {r: i for i, r in enumerate(self.order)}
        show_text(self.body, self.render_chain(index, chain, row))  # ui/widgets/redraw.py
        self._subtitle(_attempts(len(self.order)))
        if self.is_mounted:
            self.call_after_refresh(self._show_selected_line)

    def _subtitle(self, text: str) -> None:
        """Set the attempt count under the pane: setting it redraws the whole pane, border too,
        and following a run redraws the pane ten times a second with the same count."""
        if text != self._shown_subtitle:
            self._shown_subtitle = text
            self.border_subtitle = text

    def _show_selected_line(self) -> None:
        """Scroll just enough to bring the selected attempt into view (centred when it jumps)."""
        height = self.scrollable_content_region.height
        line, top = self.selected_line, int(self.scroll_y)
        if height > 0 and not top <= line < top + height:
            self.scroll_to(y=max(0, line - height // 2), animate=False)

    def render_chain(self, index: RunIndex, chain: Chain, selected: int) -> Text:
        """The tree drawn around ``selected``: WINDOW attempts either side of it at most."""
        st = self.body.st
        if chain is self.chain:
            position, total = self._position, len(self.order)
        else:
            nodes = chain.nodes()
            position, total = {n.row: i for i, n in enumerate(nodes)}, len(nodes)
        here = position.get(selected, 0)
        first, stop = max(0, here - WINDOW), min(total, here + WINDOW + 1)
        t = Text(no_wrap=True, overflow="ellipsis")
        if chain.missing_parent is not None:
            t.append("⚠ parent not in set (rotated away?): ", st("warn"))
            t.append(neutralize_line(chain.missing_parent) + "\n", st("warn"))
        if chain.cycle:
            t.append("↻ the parent links form a cycle; cut at the earliest row\n", st("warn"))
        if first:
            t.append(f"… {_attempts(first, 'earlier')}\n", st("dim"))
        self.selected_line = 0
        # Depth-first in drawn order; the nodes before the window are walked (their leads carry
        # the tree's lines into it) but not read from disk or drawn, and the walk stops after it.
        stack: list[tuple[ChainNode, str, str]] = [(chain.root, "", "")]
        seen = 0
        while stack and seen < stop:
            node, lead, child_lead = stack.pop()
            if seen >= first:
                if node.row == selected:
                    self.selected_line = t.plain.count("\n")
                # The marker leads the line: at the end, the ellipsis of a long argv ate it.
                t.append(MARKER if node.row == selected else "  ", st("selected"))
                t.append(lead, st("dim"))
                self._node(t, index, node, node.row == selected)
            seen += 1
            kids = node.children
            for i in range(len(kids) - 1, -1, -1):
                last = i == len(kids) - 1
                stack.append(
                    (
                        kids[i],
                        child_lead + ("└─ " if last else "├─ "),
                        _fold(child_lead + ("   " if last else "│  ")),
                    )
                )
        if stop < total:
            t.append(f"… {_attempts(total - stop, 'later')}\n", st("dim"))
        t.rstrip()
        return t

    def _node(self, t: Text, index: RunIndex, node: ChainNode, selected: bool) -> None:
        st = self.body.st
        row = node.row
        flags = index.flags[row]
        span = index.span(row)
        start = len(t)
        code = index.exit_code(row)
        t.append(f"#{node.attempt} ")
        exit_style = st("failed") if code else Style()
        if flags & NULL_EXIT:  # no exit: "?" (unknown, never the error colour) or ERR (failed)
            exit_style = st("dim") if flags & EXIT_UNKNOWN else st("null")
        t.append(f"exit {fmt_exit(code, flags):<4}", exit_style)
        if flags & TRUNCATED:
            hidden = index.hidden_bytes(row)
            amount = span_hidden_words(span) if span is not None else f"{hidden:,} B"
            t.append(" ✂ " + (f"{amount} hidden" if hidden else "cut"), st("trunc"))
        elif flags & TRUNC_UNKNOWN:
            t.append(" ? truncation unknown", st("dim"))
        if flags & SIDECAR:
            t.append(" ↻ re-run", st("dim"))
        t.append("  " + shown_id(index, index.ids[row]), st("dim"))
        if span is not None:
            t.append("  " + neutralize_line(" ".join(span.argv)))
        if selected:
            t.stylize(st("selected"), start, len(t))
        t.append("\n")
