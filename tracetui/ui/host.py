"""What the viewer's parts may use of the app, as a Protocol (they never import the app).

:class:`tracetui.ui.app.TraceApp` imports the live follower, the re-run flow and the widgets;
if they imported it back, the modules would form a cycle. Instead the parts that are handed
the app (:class:`tracetui.ui.live.LiveFollow`, :func:`tracetui.ui.screens.confirm_rerun.start_rerun`)
are typed against :class:`ViewerHost`, which lists only what they use; mypy checks that
``TraceApp`` has all of it. Widgets do not get the app at all: they post messages.

The Textual methods below are narrowed to the arguments the parts pass, so that
``App``'s own, wider signatures satisfy them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, TypeVar, overload

from textual.css.query import DOMQuery
from textual.message import Message
from textual.notifications import SeverityLevel
from textual.screen import Screen, ScreenResultCallbackType
from textual.widget import Widget
from textual.worker import Worker

from tracetui.store.index import RunIndex
from tracetui.store.runset import Run
from tracetui.ui.widgets.span_list import SpanList

W = TypeVar("W", bound=Widget)
R = TypeVar("R")


class ViewerHost(Protocol):
    """The app as its parts see it: the open run's state and a few of Textual's methods."""

    follow: bool
    """False with ``--no-follow``; the live follower sets it when ``f`` starts following."""
    runs: list[Run]
    """The runs the viewer can open; the live follower adds run files that appear."""
    run_: Run | None
    """The open run; None before one is chosen."""
    index: RunIndex | None
    """The open run's index; None while it is being built."""

    @property
    def selected_row(self) -> int | None:
        """The index row under the cursor; None when nothing is selected."""
        ...

    @property
    def spans(self) -> SpanList:
        """The span list of the main screen."""
        ...

    @property
    def screen(self) -> Screen[object]:
        """The screen on top (a modal, when one is open)."""
        ...

    def open_run(self, number: int | None) -> None:
        """Open ``runs[number]``; None (a closed picker) keeps the current run."""

    def select_row(self, row: int) -> None:
        """Put the cursor on index row ``row``, clearing a filter that hides it."""

    def rows_appended(self) -> int:
        """Take rows appended to ``index`` into the list; returns how many it took."""
        ...

    # Textual's own (App has them, with more arguments).
    def notify(
        self,
        message: str,
        *,
        title: str = ...,
        severity: SeverityLevel = ...,
        timeout: float | None = ...,
        markup: bool = ...,
    ) -> None: ...

    def post_message(self, message: Message) -> bool: ...

    def run_worker(
        self,
        work: Callable[[], object],
        *,
        name: str | None = ...,
        group: str = ...,
        exit_on_error: bool = ...,
        exclusive: bool = ...,
        thread: bool = ...,
    ) -> Worker[object]: ...

    def push_screen(
        self, screen: Screen[R], callback: ScreenResultCallbackType[R] | None = ...
    ) -> object: ...

    def query(self, selector: type[W]) -> DOMQuery[W]: ...

    # In App's order: mypy matches overloads one by one.
    @overload
    def query_one(self, selector: str) -> Widget: ...

    @overload
    def query_one(self, selector: type[W]) -> W: ...
