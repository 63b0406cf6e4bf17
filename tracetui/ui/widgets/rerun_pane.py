"""The re-run side pane (SPEC §5 "Re-run pane", §6; docs/rerun.md, docs/viewer.md).

Flow: ``r`` → :func:`tracetui.ui.screens.confirm_rerun.start_rerun` finds the target (refusing rows with no argv, a cwd that is
not there, or ``"rerunnable": false``) → :class:`ConfirmRerun` (nothing runs without a yes) →
a :class:`RerunPane` mounted in place of the detail pane runs :func:`tracetui.rerun.runner.rerun`
on a thread worker: elapsed time and byte counts while it runs, Esc cancels (the core kills the
process group). Then exit and bytes then/now, the hash verdict per stream, and per stream tab
the normalised diff of the stored preview against the same window of the new output, and what
the agent never saw (an excerpt, then pages with ``>`` / ``<``). Keys 1–5 switch the
normalisation rules; the diff is re-rendered from the result, nothing runs again.

The result owns spool files: the pane closes it when it closes, and a result that arrives
after the pane closed is closed by the worker itself (the handover is under a lock).

The pane never changes the run's state: when the re-run was recorded in the run's re-runs
file it posts :class:`RerunPane.Recorded`, and the app (the index's owner) shows the new row.
Everything the command printed is untrusted like the trace: neutralised before it is drawn.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.dom import DOMNode
from textual.message import Message
from textual.widgets import Checkbox, Static, TabbedContent, TabPane

from tracetui.model.spans import STREAMS
from tracetui.model.text import neutralize, neutralize_line
from tracetui.rerun import landmark
from tracetui.rerun import runner as rerun
from tracetui.rerun.normalize import RULE_NAMES
from tracetui.rerun.spool import MAX_OUTPUT
from tracetui.ui.host import ViewerHost
from tracetui.ui.widgets.rerun_text import VERDICT_STYLE, diff_style, exit_text
from tracetui.ui.widgets.rerun_unseen import FIRST_FAILURE, PAGE, draw_unseen
from tracetui.ui.widgets.still_scroll import StillScroll
from tracetui.ui.widgets.styles import style_or_plain

DEFAULT_TIMEOUT = 120.0
"""Seconds before the pane's re-run is killed (the CLI's default is longer: nobody watches it)."""
MAX_DIFF_CHARS = 100_000
"""Characters of a diff drawn; the rest is counted, not drawn (a 64 KiB window can differ whole)."""
RULE_LABELS = {"ansi": "ansi", "timestamps": "time", "durations": "dur", "hex": "hex", "tmp": "tmp"}
"""Short checkbox labels (the pane is narrow); the full names are listed above each diff."""


class RerunBody(Static):
    """Text of the pane (a Static so it wraps); styles come from the theme via the .tcss."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "rerun--label",
        "rerun--heading",
        "rerun--added",
        "rerun--removed",
        "rerun--hunk",
        "rerun--good",
        "rerun--bad",
        "rerun--warn",
        "rerun--dim",
    }

    def st(self, name: str) -> Style:
        return style_or_plain(self, f"rerun--{name}")


class RerunPane(Vertical):
    """Runs one confirmed target and shows how its output compares with the record."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "escape",
            "escape",
            "Cancel / close",
            id="rerun.escape",
            tooltip="Cancel the running re-run (kills its process group), else close the pane",
        ),
        Binding("q", "close", "Close re-run", id="rerun.close", tooltip="Close the re-run pane"),
        Binding(
            "s",
            "switch_stream",
            "stdout/stderr",
            id="rerun.switch_stream",
            tooltip="Show the other stream's tab",
        ),
        Binding(
            "greater_than_sign",
            "page(1)",
            "More unseen",
            key_display=">",
            id="rerun.next_page",
            tooltip="Next page of what the agent never saw",
        ),
        Binding(
            "less_than_sign",
            "page(-1)",
            "Back",
            key_display="<",
            id="rerun.prev_page",
            tooltip="Previous page of what the agent never saw (first: the excerpt)",
        ),
        *[
            Binding(
                str(i + 1),
                f"toggle_rule({i})",
                f"Rule {RULE_LABELS[name]}",
                show=False,
                id=f"rerun.rule_{name}",
                tooltip=f"Switch the {name} normalisation on/off",
            )
            for i, name in enumerate(RULE_NAMES)
        ],
    ]

    @dataclass
    class Progress(Message):
        """From the worker: elapsed seconds and bytes so far (latest value only)."""

        elapsed: float
        out: int
        err: int

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, RerunPane.Progress)

    @dataclass
    class Finished(Message):
        """The worker handed a result over (``RerunPane.result``), or failed with ``error``."""

        error: str | None = None

    @dataclass
    class Recorded(Message):
        """The re-run was appended to the run's re-runs file: the app shows the new row."""

        sidecar_path: str
        """The re-runs file (``<run>.reruns.jsonl``) the row was written to."""

    def __init__(
        self, target: rerun.Target, *, timeout: float = DEFAULT_TIMEOUT, write_sidecar: bool = True
    ) -> None:
        super().__init__(id="rerun")
        self.target = target
        self.timeout = timeout
        self.write_sidecar = write_sidecar
        """False only in tests that need a view free of the new row's clock-made id and time."""
        self.cancel = threading.Event()
        self.result: rerun.RerunResult | None = None
        """The finished re-run (owned: closed with the pane); None while running."""
        self.running = True
        self.rules: set[str] = set(RULE_NAMES)
        self.pages: dict[str, int | None] = {s: None for s in STREAMS}
        """Per stream: None shows the excerpt, an offset shows that page of the unseen part."""
        self.failures: dict[str, int | None] = {s: None for s in STREAMS}
        """Per stream: where the first failure line of the unseen part starts (rerun/landmark)."""
        self._lock = threading.Lock()
        self._closed = False
        self._last_progress = 0.0

    def compose(self) -> ComposeResult:
        yield RerunBody("", id="rerun-status")
        with Horizontal(id="rerun-rules"):
            for i, name in enumerate(RULE_NAMES):
                yield Checkbox(
                    f"{i + 1} {RULE_LABELS[name]}", True, id=f"rule-{name}", compact=True
                )
        with TabbedContent(id="rerun-tabs"):
            for s in STREAMS:
                with TabPane(s, id=f"tab-{s}"), StillScroll(classes="rerun-scroll"):
                    yield RerunBody("the diff appears when the re-run ends", id=f"rerun-{s}")

    def on_mount(self) -> None:
        cid = self.target.command_id or "?"
        # A Text, not a str: a border title string is read as markup, and an id is trace text.
        self.border_title = Text(f"re-run · {neutralize_line(cid[:16])}")
        self.border_subtitle = "Esc cancels"
        self.query_one("#rerun-rules").display = False
        self._status(self._running_text(0.0, 0, 0))
        self.query_one("#tab-stdout VerticalScroll").focus()
        self._worker()

    # ------------------------------------------------------------------ running
    # exit_on_error: an exception other than the two a re-run may meet is a bug in tracetui;
    # it stops the viewer like any other bug (crash report, exit 3: ui/launch.py) instead of
    # reading as "the re-run failed" while the viewer goes on and exits 0.
    @work(thread=True, exclusive=True, exit_on_error=True, group="rerun")
    def _worker(self) -> None:
        try:
            result = rerun.rerun(
                self.target,
                timeout=self.timeout,
                cancel=self.cancel,
                progress=self._progress,
                rules=tuple(self.rules),
                write_sidecar=self.write_sidecar,
                max_output=MAX_OUTPUT,  # read when it starts: the output limit (4 GiB)
            )
        except (rerun.RerunError, OSError) as exc:  # an argv it cannot run; a disk, a refused file
            self.post_message(self.Finished(f"{type(exc).__name__}: {exc}"))
            return
        with self._lock:
            if self._closed:  # nobody will show it: free its spool files here
                result.close()
                return
            self.result = result
        self.post_message(self.Finished())

    def _progress(self, elapsed: float, out: int, err: int) -> None:
        # Worker thread. The core reports about ten times a second; never more than that here.
        now = time.monotonic()
        if now - self._last_progress >= 0.1:
            self._last_progress = now
            self.post_message(self.Progress(elapsed, out, err))

    def on_rerun_pane_progress(self, msg: Progress) -> None:
        if self.running:
            self._status(self._running_text(msg.elapsed, msg.out, msg.err))

    def _running_text(self, elapsed: float, out: int, err: int) -> Text:
        st = self.status_body.st
        t = Text()
        t.append("cancelling…" if self.cancel.is_set() else "running", st("warn"))
        t.append(f"  {elapsed:5.1f} s   stdout {out:,} B   stderr {err:,} B\n")
        t.append(f"Esc cancels (kills the process group) · timeout {self.timeout:g} s", st("dim"))
        return t

    def on_rerun_pane_finished(self, msg: Finished) -> None:
        self.running = False
        self.border_subtitle = "Esc/q close · s stream · 1-5 rules · > < unseen"
        if msg.error is not None or self.result is None:
            self._status(
                Text(
                    "the re-run failed: " + neutralize_line(msg.error or "?"),
                    self.status_body.st("bad"),
                )
            )
            return
        self.query_one("#rerun-rules").display = True
        self._status(self.summary())
        for s in STREAMS:  # open on the first failure line the agent never saw, if there is one
            c = self.result.comparison(s)
            self.pages[s] = self.failures[s] = landmark.first_failure(
                self.result.captured.stream(s), c.windows
            )
        self.render_streams()
        self.call_after_refresh(self._show_failures)
        if self.result.sidecar:
            # The index is the app's: ask it to take the new row in, never index it here.
            self.post_message(self.Recorded(self.result.sidecar))
        elif self.result.sidecar_error:
            self.app.notify(
                neutralize_line(self.result.sidecar_error),
                severity="warning",
                timeout=8,
                markup=False,
            )

    # ------------------------------------------------------------------ drawing
    @property
    def status_body(self) -> RerunBody:
        return self.query_one("#rerun-status", RerunBody)

    def _status(self, text: Text) -> None:
        self.status_body.update(text)

    def summary(self) -> Text:
        """Exit and bytes then/now, the verdict per stream, where the re-run was recorded."""
        assert self.result is not None
        r, st = self.result, self.status_body.st
        span = r.target.span
        t = Text()
        now = r.captured.exit_code
        t.append("exit    ", st("label"))
        t.append(f"then {exit_text(span.exit_code)}   now ")
        t.append(exit_text(now), st("bad") if now is None or now != 0 else st("good"))
        dur = r.captured.outcome.duration_ms
        then = "" if span.duration_ms is None else f" (then {_secs(span.duration_ms)})"
        t.append(f"   took {_secs(dur)}{then}\n", st("dim"))
        if r.captured.error:
            t.append("error   ", st("label"))
            t.append(neutralize_line(r.captured.error) + "\n", st("bad"))
        for s in STREAMS:
            c = r.comparison(s)
            then_b = "?" if c.bytes_then is None else f"{c.bytes_then:,}"
            t.append(f"{s:<8}", st("label"))
            t.append(f"{then_b} → {c.bytes_now:,} B  ")
            t.append(c.verdict, st(VERDICT_STYLE.get(c.verdict, "dim")))
            # Second line: which part the agent saw, and how much of the new output it never saw.
            seen = (
                "saw the whole stream"
                if c.windows.clip == "whole"
                else f"saw the {c.windows.clip} window"
            )
            t.append(f"\n        {seen}", st("dim"))
            if c.windows.unseen_bytes:
                t.append(f" · {c.windows.unseen_bytes:,} B never seen", st("warn"))
            t.append("\n")
        for reason in sorted({c.reason for c in (r.stdout, r.stderr) if c.reason}):
            t.append(f"verdict unknown: {neutralize_line(reason)}\n", st("warn"))
        if r.captured.leftovers:
            n = len(r.captured.leftovers)
            t.append(f"killed {n} process{'es' if n != 1 else ''} it left running\n", st("dim"))
        if r.binary:
            t.append("binary output: bytes that are not UTF-8 show as \\xNN\n", st("dim"))
        if r.sidecar:
            # The chain pane shows the new attempt; its long id would only wrap here.
            t.append("recorded in " + neutralize_line(os.path.basename(r.sidecar)), st("dim"))
        elif (
            r.sidecar_error
        ):  # it ran, but its record is lost: said here for good, not only in a toast
            t.append("not recorded: " + neutralize_line(r.sidecar_error), st("bad"))
        t.rstrip()
        return t

    def render_streams(self) -> None:
        for s in STREAMS:
            self.query_one(f"#rerun-{s}", RerunBody).update(self.stream_text(s))

    def _show_failures(self) -> None:
        for s in STREAMS:
            body = self.query_one(f"#rerun-{s}", RerunBody)
            plain = str(body.render())
            if (
                self.failures[s] is not None
                and FIRST_FAILURE in plain
                and isinstance(body.parent, StillScroll)
            ):
                body.parent.scroll_to_line(plain, plain[: plain.index(FIRST_FAILURE)].count("\n"))

    def stream_text(self, name: str) -> Text:
        """One tab: the diff under the current rules, then what the agent never saw."""
        assert self.result is not None
        r = self.result
        body = self.query_one(f"#rerun-{name}", RerunBody)
        st = body.st
        c = r.comparison(name)
        t = Text()
        rules = [x for x in RULE_NAMES if x in self.rules]
        lines = r.stream_diff(name, rules)
        label = ", ".join(rules) if rules else "none"
        t.append("── diff: stored preview vs the same window now ──\n", st("heading"))
        t.append(f"normalised: {label}\n", st("dim"))
        if not lines:
            note = (
                " after normalisation: switch rules off (1-5) to see the raw change"
                if c.changed_raw
                else ""
            )
            t.append(f"no difference{note}\n", st("good") if not c.changed_raw else st("warn"))
        else:
            drawn = 0
            for i, line in enumerate(lines):
                if drawn > MAX_DIFF_CHARS:
                    t.append(f"[{len(lines) - i:,} more diff lines not drawn here]\n", st("dim"))
                    break
                drawn += len(line)
                kind = diff_style(line)
                t.append(neutralize(line) + "\n", st(kind) if kind else "")
        t.append("\n")
        offset, failure = self.pages[name], self.failures[name]
        draw_unseen(t, st, self.result, name, c, offset, failure)  # ui/widgets/rerun_unseen.py
        t.rstrip()
        return t

    # ------------------------------------------------------------------ actions
    def on_checkbox_changed(self, event: Checkbox.Changed) -> None:
        event.stop()
        name = (event.checkbox.id or "").removeprefix("rule-")
        if name not in RULE_NAMES:
            return
        if event.value:
            self.rules.add(name)
        else:
            self.rules.discard(name)
        if self.result is not None:
            self.render_streams()

    def action_toggle_rule(self, i: int) -> None:
        if self.result is None or not 0 <= i < len(RULE_NAMES):
            return
        box = self.query_one(f"#rule-{RULE_NAMES[i]}", Checkbox)
        box.value = not box.value  # posts Checkbox.Changed: one path for keys and clicks

    def action_page(self, step: int) -> None:
        if self.result is None:
            return
        name = self.active_stream
        total = self.result.comparison(name).windows.unseen_bytes
        if not total:
            self.app.notify(f"{name}: the agent saw all of it", timeout=3)
            return
        offset = self.pages[name]
        new: int | None
        if step > 0:
            new = 0 if offset is None else offset + PAGE
            if new >= total:
                self.app.notify("that was the last page", timeout=2)
                return
        else:
            if offset is None:
                return
            new = offset - PAGE if offset >= PAGE else None
        self.pages[name] = new
        self.query_one(f"#rerun-{name}", RerunBody).update(self.stream_text(name))
        body = self.query_one(f"#rerun-{name}", RerunBody)
        scroll = body.parent
        if isinstance(scroll, VerticalScroll):
            scroll.scroll_end(animate=False)  # the page is at the end of the tab

    def action_switch_stream(self) -> None:
        tabs = self.query_one(TabbedContent)
        other = "stderr" if self.active_stream == "stdout" else "stdout"
        tabs.active = f"tab-{other}"
        self.query_one(f"#tab-{other} VerticalScroll").focus()

    @property
    def active_stream(self) -> str:
        active = self.query_one(TabbedContent).active or "tab-stdout"
        return active.removeprefix("tab-")

    def action_escape(self) -> None:
        if self.running:
            self.cancel.set()
            self._status(
                Text("cancelling… (killing the process group)", self.status_body.st("warn"))
            )
            return
        self.action_close()

    def action_close(self) -> None:
        self.cancel.set()
        close_pane(self.screen)  # the pane's own screen: the main one

    def on_unmount(self) -> None:
        self.cancel.set()
        with self._lock:
            self._closed = True
            result, self.result = self.result, None
        if result is not None:
            result.close()


def _secs(ms: float | None) -> str:
    return "?" if ms is None else f"{ms / 1000:.1f} s"


# ---------------------------------------------------------------------- the flow, from the app
# ``root`` is the app (its queries search the main screen) or the main screen itself.
def current_pane(root: DOMNode | ViewerHost) -> RerunPane | None:
    found = root.query(RerunPane)
    return found.first() if found else None


async def open_pane(
    root: DOMNode | ViewerHost, target: rerun.Target, timeout: float, write_sidecar: bool = True
) -> None:
    """Show a new pane in place of the detail pane (closing a finished one first)."""
    for old in root.query(RerunPane):
        await old.remove()  # gone before the new one (same id) is mounted
    root.query_one("#main").add_class("-rerun")
    await root.query_one("#side").mount(
        RerunPane(target, timeout=timeout, write_sidecar=write_sidecar), before=0
    )


def close_pane(root: DOMNode | ViewerHost, *, refocus: bool = True) -> None:
    """Remove the pane (its result is closed on unmount) and bring the detail pane back."""
    for pane in root.query(RerunPane):
        pane.remove()
    root.query_one("#main").remove_class("-rerun")
    if refocus:
        root.query_one("#spans").focus()
