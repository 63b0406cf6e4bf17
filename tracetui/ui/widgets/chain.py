"""The chain pane: the selected span's retry tree (root → attempts → branches).

Each node shows its attempt number, id, exit and truncation; the selected row is marked. The
app steps along :attr:`ChainPane.order` (depth-first, the order drawn) with ``[`` and ``]``.
"""

from __future__ import annotations

from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from tracetui.analysis.chains import Chain, ChainIndex, ChainNode
from tracetui.analysis.rows import fmt_exit, short_id
from tracetui.model.flags import BAD, NULL_EXIT, SIDECAR, TRUNC_UNKNOWN, TRUNCATED
from tracetui.model.text import neutralize_line
from tracetui.store.index import RunIndex


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
        return self.get_component_rich_style(f"chain--{name}", partial=True)


class ChainPane(VerticalScroll):
    """Draws the chain of the selected row; remembers its node order for stepping."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.body = ChainBody("", id="chain-body")
        self.order: list[int] = []
        """Rows of the current chain, depth-first (the drawn order)."""
        self.chain: Chain | None = None
        self._shown: tuple[RunIndex | None, ChainIndex | None, int | None] = (None, None, None)

    def compose(self):  # type: ignore[no-untyped-def]
        yield self.body

    def notify_style_update(self) -> None:
        super().notify_style_update()
        if self.is_mounted and self._shown[0] is not None:
            self.show(*self._shown)

    def show(self, index: RunIndex | None, chains: ChainIndex | None, row: int | None) -> None:
        self._shown = (index, chains, row)
        # A row of another index (the run was re-read) or not yet committed draws nothing.
        if (
            index is None
            or chains is None
            or row is None
            or not 0 <= row < len(index)
            or index.flags[row] & BAD
            or chains.index is not index
        ):
            self.chain, self.order = None, []
            self.body.update(Text("No retry chain for this row.", style=self.body.st("dim")))
            self.border_subtitle = ""
            return
        chain = chains.chain(row)
        self.chain = chain
        self.order = [n.row for n in chain.nodes()]
        self.body.update(self.render_chain(index, chain, row))
        attempts = len(self.order)
        self.border_subtitle = f"{attempts} attempt{'s' if attempts != 1 else ''}"

    def render_chain(self, index: RunIndex, chain: Chain, selected: int) -> Text:
        st = self.body.st
        t = Text(no_wrap=True, overflow="ellipsis")
        if chain.missing_parent is not None:
            t.append("⚠ parent not in set (rotated away?): ", st("warn"))
            t.append(neutralize_line(chain.missing_parent) + "\n", st("warn"))
        if chain.cycle:
            t.append("↻ the parent links form a cycle; cut at the earliest row\n", st("warn"))
        stack: list[tuple[ChainNode, str, str]] = [(chain.root, "", "")]
        while stack:
            node, lead, child_lead = stack.pop()
            t.append(lead, st("dim"))
            self._node(t, index, node, node.row == selected)
            kids = node.children
            for i in range(len(kids) - 1, -1, -1):
                last = i == len(kids) - 1
                stack.append(
                    (
                        kids[i],
                        child_lead + ("└─ " if last else "├─ "),
                        child_lead + ("   " if last else "│  "),
                    )
                )
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
        exit_style = st("null") if flags & NULL_EXIT else st("failed") if code else Style()
        t.append(f"exit {fmt_exit(code):<4}", exit_style)
        if flags & TRUNCATED:
            hidden = index.hidden_bytes(row)
            t.append(" ✂ " + (f"{hidden:,} B hidden" if hidden else "cut"), st("trunc"))
        elif flags & TRUNC_UNKNOWN:
            t.append(" ? truncation unknown", st("dim"))
        if flags & SIDECAR:
            t.append(" ↻ re-run", st("dim"))
        t.append("  " + short_id(index.ids[row]), st("dim"))
        if span is not None:
            t.append("  " + neutralize_line(" ".join(span.argv)))
        if selected:
            t.append("  ◀")
            t.stylize(st("selected"), start, len(t))
        t.append("\n")
