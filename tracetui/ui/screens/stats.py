"""The trends screen (``s``): how a run changed over its course.

Three charts over the run's buckets (:func:`tracetui.analysis.trends.trend_summary`): the share of
bytes hidden from the agent, failures, and the typical tool response size; above them the
headline numbers and whether the hidden share drifted between the first and last quarter of
the run, the thing a reviewer most needs to see at a glance. The summary may read spans (bytes
produced are not an index column), so it is computed on a thread worker.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Footer, Static
from textual.worker import get_current_worker

from tracetui.analysis.rows import fmt_size
from tracetui.analysis.trends import BUCKETS, trend_summary
from tracetui.model.text import neutralize_line
from tracetui.store.index import RunIndex
from tracetui.ui.widgets.trend_chart import TrendChart

DRIFT = 0.10
"""A change of the hidden share by this much (10 points) between the first and last quarter is
called rising / falling rather than steady."""

_WHEN = re.compile(r"^(\d{4}-\d\d-\d\d)[T ](\d\d:\d\d:\d\d)")


@dataclass(frozen=True, slots=True)
class Headline:
    """The run's figures, summed over the trend's buckets (bad lines and re-runs left out)."""

    spans: int
    failed: int
    truncated: int
    hidden_bytes: int
    produced_bytes: int | None
    """Bytes the tools produced; estimated when ``exact`` is False; None when no span records any."""
    hidden_share: float | None
    """Hidden over produced, 0…1; None when no span records byte counts."""
    early_share: float | None
    """Hidden share over the first quarter of the buckets; None for runs of under 4 buckets."""
    late_share: float | None
    """Hidden share over the last quarter of the buckets; None for runs of under 4 buckets."""
    exact: bool


def _share(summary: dict[str, Any], lo: int, hi: int) -> float | None:
    """Hidden share over buckets ``lo:hi``, weighted by bytes produced."""
    exact = summary["produced_exact"]
    hidden = got = 0.0
    known = False
    for i in range(lo, hi):
        share, produced = summary["hidden_share"][i], summary["produced_bytes"][i]
        if share is None or produced is None:
            continue
        known = True
        # Sampled buckets: their share is a true ratio over the sample, their hidden bytes are
        # over the whole bucket; weight the share rather than mix the two.
        hidden += summary["hidden_bytes"][i] if exact else share * produced
        got += produced
    if not known:
        return None
    return min(1.0, hidden / got) if got else 0.0


def headline(summary: dict[str, Any]) -> Headline:
    """The headline figures of a :func:`trend_summary` result."""
    n = summary["buckets"]
    produced = [p for p in summary["produced_bytes"] if p is not None]
    quarter = n // 4
    return Headline(
        spans=sum(summary["spans"]),
        failed=sum(summary["failed"]),
        truncated=sum(summary["truncated"]),
        hidden_bytes=sum(summary["hidden_bytes"]),
        produced_bytes=sum(produced) if produced else None,
        hidden_share=_share(summary, 0, n),
        early_share=_share(summary, 0, quarter) if quarter else None,
        late_share=_share(summary, n - quarter, n) if quarter else None,
        exact=summary["produced_exact"],
    )


def pct(share: float | None) -> str:
    """``62%``; ``<1%`` for a sliver; ``?`` when unknown."""
    if share is None:
        return "?"
    if 0 < share < 0.005:
        return "<1%"
    return f"{round(share * 100)}%"


def when(stamp: str | None, same_day_as: str | None = None) -> str:
    """``2026-11-01 22:22:56`` from an RFC 3339 stamp; the time alone on the day of
    ``same_day_as``. Stamps come from the trace: anything else is shown neutralised and cut."""
    if stamp is None:
        return "?"
    m = _WHEN.match(stamp)
    if not m:
        return neutralize_line(stamp)[:25]
    if same_day_as is not None and same_day_as.startswith(m.group(1)):
        return m.group(2)
    return f"{m.group(1)} {m.group(2)}"


def drift_words(early: float | None, late: float | None) -> tuple[str, str]:
    """``("▲ rising", "$tt-warning bold")`` and the like, for the hidden share's drift."""
    if early is None or late is None:
        return "", ""
    if late - early >= DRIFT:
        return "▲ rising", "$tt-warning bold"
    if early - late >= DRIFT:
        return "▼ falling", "$tt-success"
    return "≈ steady", "$tt-faint"


class StatsScreen(ModalScreen[None]):
    """Trends of one run; Esc, q or s closes it.

    Modal (drawn opaque, full size) so the viewer's keys do not act on the list hidden below."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,s", "close", "Close", id="stats.close", tooltip="Back to the run"),
    ]

    @dataclass
    class Ready(Message):
        """The trend summary is computed."""

        summary: dict[str, Any]

    @dataclass
    class Failed(Message):
        """The trend summary could not be computed; the reason is for a person."""

        reason: str

    def __init__(self, index: RunIndex, buckets: int = BUCKETS) -> None:
        super().__init__()
        self.index = index
        self.buckets = buckets
        self.summary: dict[str, Any] | None = None
        """The last computed summary (None while computing)."""

    def compose(self) -> ComposeResult:
        yield Static(id="stats-title")
        yield Static(id="stats-headline")
        for name in ("hidden", "failed", "size"):
            with Vertical(id=f"stats-{name}", classes="stats-series"):
                yield TrendChart(id=f"chart-{name}", classes=f"-{name}")
        yield Footer()

    def on_mount(self) -> None:
        self._title("")
        self.query_one(
            "#stats-hidden"
        ).border_title = "hidden from the agent · share of bytes produced"
        self.query_one("#stats-failed").border_title = "failures"
        self.query_one("#stats-size").border_title = "tool response size · mean bytes per span"
        self.query_one("#stats-headline", Static).update(
            Content.assemble((f"computing trends over {len(self.index):,} rows…", "$tt-faint"))
        )
        for chart in self.query(TrendChart):
            chart.show_text("…")
        self._compute()

    @work(thread=True, exclusive=True, exit_on_error=False, group="stats")
    def _compute(self) -> None:
        try:
            summary = trend_summary(self.index, self.buckets)
        except Exception as exc:
            self.post_message(self.Failed(f"{type(exc).__name__}: {exc}"))
            return
        if not get_current_worker().is_cancelled:
            self.post_message(self.Ready(summary))

    def on_stats_screen_failed(self, msg: Failed) -> None:
        self.query_one("#stats-headline", Static).update(
            Content.assemble(
                (neutralize_line(f"cannot compute the trends: {msg.reason}"), "$tt-error")
            )
        )
        for chart in self.query(TrendChart):
            chart.show_text("")

    def on_stats_screen_ready(self, msg: Ready) -> None:
        self.summary = summary = msg.summary
        head = headline(summary)
        self.query_one("#stats-headline", Static).update(self._headline_text(summary, head))
        if summary["buckets"]:
            self._title(self._bucket_note(summary))
        else:
            for chart in self.query(TrendChart):
                chart.show_text("no spans in this run")
            return
        starts = [s for s in summary["start"] if s is not None]
        ends = [s for s in summary["end"] if s is not None]
        first = starts[0] if starts else None
        left = when(first) if first else "time not recorded"
        right = when(ends[-1], first) if ends else ""
        failed, sizes = summary["failed"], summary["mean_response_bytes"]
        # One gutter for every chart (the widest of their value labels), so a bucket starts at
        # the same column in all three: the charts share their x-axis.
        labels = ["100%", "0%", str(max(1, max(failed))), fmt_size(max(_known(sizes), default=0))]
        axis: dict[str, Any] = {
            "left_label": left,
            "right_label": right,
            "gutter": max(map(len, labels)) + 1,
        }

        shares = summary["hidden_share"]
        known = [s for s in shares if s is not None]
        self._series(
            "hidden",
            shares,
            top=1.0,
            top_label="100%",
            bottom_label="0%",
            sub=f"min {pct(min(known))} · max {pct(max(known))}" if known else "",
            empty="no byte counts recorded: the hidden share is unknown",
            **axis,
        )

        self._series(
            "failed",
            failed,
            top=max(1, max(failed)),
            top_label=str(max(1, max(failed))),
            sub=f"per bucket: min {min(failed)} · max {max(failed)} · {head.failed:,} in all",
            **axis,
        )

        known_sizes = _known(sizes)
        top = max(known_sizes, default=0)
        self._series(
            "size",
            sizes,
            top=max(1, top),
            top_label=fmt_size(top),
            sub=(
                f"min {fmt_size(min(known_sizes))} · max {fmt_size(top)}"
                + ("" if summary["produced_exact"] else " · sampled")
            )
            if known_sizes
            else "",
            empty="no byte counts recorded",
            **axis,
        )

    def _series(
        self,
        name: str,
        values: list[Any],
        *,
        top: float,
        top_label: str,
        sub: str,
        bottom_label: str = "0",
        empty: str = "no data",
        left_label: str = "",
        right_label: str = "",
        gutter: int = 0,
    ) -> None:
        self.query_one(f"#stats-{name}").border_subtitle = sub
        self.query_one(f"#chart-{name}", TrendChart).set_series(
            values,
            top=top,
            top_label=top_label,
            bottom_label=bottom_label,
            left_label=left_label,
            right_label=right_label,
            empty_text=empty,
            gutter=gutter,
        )

    def _headline_text(self, summary: dict[str, Any], head: Headline) -> Content:
        if not summary["buckets"]:
            return Content.assemble(("no spans in this run", "$tt-faint"))
        about = "≈" if not head.exact else ""
        parts: list[str | tuple[str, str]] = [
            f"{head.spans:,} spans",
            " · ",
            (f"{head.failed:,} failed", "$tt-error bold" if head.failed else "$tt-faint"),
            " · ",
            (f"{head.truncated:,} truncated", "$tt-warning" if head.truncated else "$tt-faint"),
            " · ",
            (
                f"{head.hidden_bytes:,} B hidden",
                "$tt-warning bold" if head.hidden_bytes else "$tt-faint",
            ),
        ]
        if head.produced_bytes is not None:
            parts.append(f" of {about}{head.produced_bytes:,} B ({about}{pct(head.hidden_share)})")
        words, style = drift_words(head.early_share, head.late_share)
        if words:
            parts += [
                "\nhidden share: first quarter ",
                (pct(head.early_share), "bold"),
                " → last quarter ",
                (pct(head.late_share), "bold"),
                "  ",
                (words, style),
            ]
        return Content.assemble(*parts)

    def _title(self, note: str) -> None:
        self.query_one("#stats-title", Static).update(
            Content.assemble(
                ("trends", "bold $tt-accent"),
                " · ",
                (neutralize_line(self.index.run.name), "bold"),
                (f" · {note}" if note else "", "$tt-faint"),
            )
        )

    def _bucket_note(self, summary: dict[str, Any]) -> str:
        sizes = summary["spans"]
        each = f"{min(sizes)}" if min(sizes) == max(sizes) else f"{min(sizes)}–{max(sizes)}"
        return (
            f"{summary['buckets']} buckets × {each} span{'s' if max(sizes) != 1 else ''},"
            " in order" + ("" if summary["produced_exact"] else ", bytes sampled")
        )

    def action_close(self) -> None:
        self.dismiss(None)


def show_stats(app: Any, index: RunIndex | None) -> None:
    """Open the trends screen over ``index`` (the viewer's ``s`` key)."""
    if index is None:
        app.notify("the run is still being indexed", timeout=3)
        return
    app.push_screen(StatsScreen(index))


def _known(values: list[Any]) -> list[Any]:
    return [v for v in values if v is not None]
