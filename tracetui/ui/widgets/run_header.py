"""The header: the run's facts at a glance, plus LIVE/PAUSED and indexing progress."""

from __future__ import annotations

from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual.widgets import Static

from tracetui.analysis.rows import fmt_size
from tracetui.analysis.unknown_cuts import truncation_unknown
from tracetui.model.text import neutralize_line
from tracetui.store.index import RunIndex
from tracetui.store.members import Stats as RunStats
from tracetui.ui.widgets.styles import component_style


class RunHeader(Static):
    """Run name, files, spans, failed, truncated, hidden bytes, bad lines, state."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "header--name",
        "header--failed",
        "header--trunc",
        "header--bad",
        "header--state",
        "header--paused",
        "header--new",
        "header--dim",
    }

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self.name_text = ""
        self.index: RunIndex | None = None
        self.state = ""
        """LIVE, PAUSED or empty; set by the follow feature."""
        self.progress = ""
        """``indexing 48 MB…`` while the run is being read."""
        self.filter_note = ""
        self.new_rows = 0
        """Rows that arrived below while the cursor was elsewhere (live follow): "N new"."""
        self.running = 0
        """Calls of a followed session that started and have no result yet: "N running"."""
        self._styles: dict[str, Style] = {}
        self._shown: Text | None = None
        """The line last drawn: the same line again is not redrawn."""
        self._unknown: tuple[int, int, int, int] = (0, -1, -1, 0)
        """``(index id, rows, generation, count)`` of the last truncation-unknown count."""

    def st(self, name: str) -> Style:
        style = self._styles.get(name)
        if style is None:
            # Looked up in the CSS once per theme: a live run redraws this line on every batch.
            style = component_style(self, f"header--{name}")
            if style is None:
                return Style()  # not styled yet: kept only once it is
            self._styles[name] = style
        return style

    def set_facts(
        self,
        *,
        name: str | None = None,
        index: RunIndex | None = None,
        state: str | None = None,
        progress: str | None = None,
        new: int | None = None,
        running: int | None = None,
    ) -> None:
        if name is not None:
            self.name_text = name
        if index is not None:
            self.index = index
        if state is not None:
            self.state = state
        if progress is not None:
            self.progress = progress
        if new is not None:
            self.new_rows = new
        if running is not None:
            self.running = running
        self.refresh_facts()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles.clear()
        self._shown = None
        if self.is_mounted:  # after the refresh: the component styles take the theme after this
            self.call_after_refresh(self.refresh_facts)

    def on_resize(self) -> None:
        self.refresh_facts()  # the line is fitted to the width: a new width, a new fit

    def refresh_facts(self) -> None:
        width = self.size.width
        t = self._line(short=False)
        if width and t.cell_len > width:
            t = self._line(short=True)  # 80 columns: abbreviated facts, still one line
        if width and t.cell_len > width:
            t = self._line(short=True, room=width)  # then the name gives up its start
        if width and t.cell_len > width:
            # Last, the zero counts go: the live state and the "N new" hint must stay in sight.
            t = self._line(short=True, room=width, terse=True)
        if t == self._shown:
            return
        self._shown = t
        # One line high whatever it says (tracetui.tcss): no layout of the screen for it.
        self.update(t, layout=False)

    def _line(self, *, short: bool, room: int = 0, terse: bool = False) -> Text:
        """The header's one line; ``short`` abbreviates the facts, ``room`` also crops the name,
        ``terse`` leaves out the counts that are zero."""
        t = Text(no_wrap=True, overflow="ellipsis")
        tail = self._facts_text(short, terse)
        name = neutralize_line(self.name_text)
        if room:
            # The name keeps 8 columns, but in the last step all it takes is what is left: the
            # live state at the end matters more than the rest of a name already cropped.
            keep = max(1 if terse else 8, room - tail.cell_len)
            if len(name) > keep:
                name = "…" + name[-(keep - 1) :] if keep > 1 else "…"
        t.append(name, self.st("name"))
        t.append_text(tail)
        return t

    def _facts_text(self, short: bool, terse: bool = False) -> Text:
        t = Text()
        ix = self.index
        if ix is not None:
            snap = ix.snapshot()  # totals that agree, while the follower appends
            s = snap.stats
            # Only members still on disk: one rotated past the keep count is gone (readable "").
            files = sum(1 for m in ix.members if m.member.number >= 0 and m.readable)
            unknown = self._truncation_unknown(ix, snap.rows, snap.generation)
            facts = (
                _short_facts(s, files, terse, unknown) if short else _full_facts(s, files, unknown)
            )
            if self.running:
                # Beside the spans: calls under way are not spans yet, nor failures.
                at = next(i for i, (text, _) in enumerate(facts) if " span" in text) + 1
                facts.insert(at, (f"{self.running:,} running", "name"))
            if ix.run.source_format is not None:
                facts.insert(0, (f"{ix.run.source_format}{'' if short else ' trace'}", "name"))
            for text, style in facts:
                t.append(" · ", self.st("dim"))
                t.append(text, self.st(style) if style else Style())
        if self.progress:
            t.append(f"  {self.progress}", self.st("dim"))
        if self.state:
            t.append("  ")
            t.append(f" {self.state} ", self.st("paused" if self.state == "PAUSED" else "state"))
        if self.new_rows:
            t.append("  ")
            t.append(f" {self.new_rows:,} new ↓ G ", self.st("new"))
        return t

    def _truncation_unknown(self, ix: RunIndex, rows: int, generation: int) -> int:
        """Spans whose truncation cannot be told, counted again only when the rows changed."""
        key = (id(ix), rows, generation)
        if self._unknown[:3] != key:
            self._unknown = (*key, truncation_unknown(ix, rows))
        return self._unknown[3]


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'s' if n != 1 else ''}"


def _hidden_fact(s: RunStats, said: str, unknown: int = 0) -> tuple[str, str]:
    """The bytes hidden; ``? hidden`` when spans were cut but no cut says how much (markers with
    no count, as OpenHands writes), or whether they were cut cannot be told (``unknown`` spans):
    ``0B hidden`` beside ``2 trunc`` or ``3 trunc ?`` would say nothing was."""
    if (s.truncated or unknown) and not s.hidden_bytes:
        return ("? hidden", "trunc" if s.truncated else "dim")
    return (said, "trunc" if s.hidden_bytes else "dim")


def _full_facts(s: RunStats, files: int, unknown: int = 0) -> list[tuple[str, str]]:
    """Every fact in words: ``1 file · 10 spans · 3 failed · …``."""
    return [
        (_plural(files, "file"), ""),
        (_plural(s.spans, "span"), ""),
        (f"{s.failed:,} failed", "failed" if s.failed else "dim"),
        # Only where some exit was not recorded (another agent's format): never the error colour.
        *([(f"{s.exit_unknown:,} exit unknown", "dim")] if s.exit_unknown else []),
        (f"{s.truncated:,} truncated", "trunc" if s.truncated else "dim"),
        # Whether these were cut cannot be told (no byte counts, no marker): not counted above.
        *([(f"{unknown:,} truncation unknown", "dim")] if unknown else []),
        _hidden_fact(s, f"{s.hidden_bytes:,} B hidden", unknown),
        (_plural(s.bad_lines, "bad line"), "bad" if s.bad_lines else "dim"),
    ]


def _short_facts(
    s: RunStats, files: int, terse: bool = False, unknown: int = 0
) -> list[tuple[str, str]]:
    """The same facts for 80 columns: a lone file and no bad lines go unsaid, sizes abbreviated;
    ``terse``: no failures, no cuts and nothing hidden go unsaid too."""
    facts: list[tuple[str, str]] = []
    unknown_said = False
    if files != 1:
        facts.append((_plural(files, "file"), ""))
    facts.append((_plural(s.spans, "span"), ""))
    if s.failed or not terse:
        facts.append((f"{s.failed:,} failed", "failed" if s.failed else "dim"))
    if s.exit_unknown:
        facts.append((f"{s.exit_unknown:,} exit ?", "dim"))
    if s.truncated or not terse:
        if terse and unknown:  # the tightest fit: one fact for both, ``54+7? trunc``
            facts.append((f"{s.truncated:,}+{unknown:,}? trunc", "trunc"))
            unknown_said = True
        else:
            facts.append((f"{s.truncated:,} trunc", "trunc" if s.truncated else "dim"))
    if unknown and not unknown_said:
        facts.append((f"{unknown:,} trunc ?", "dim"))
    if s.hidden_bytes or s.truncated or unknown or not terse:
        facts.append(_hidden_fact(s, f"{fmt_size(s.hidden_bytes)}B hidden", unknown))
    if s.bad_lines:
        facts.append((f"{s.bad_lines:,} bad", "bad"))
    return facts
