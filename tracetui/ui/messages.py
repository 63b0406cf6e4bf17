"""Messages the app's workers send back to the UI thread (``post_message`` is thread-safe),
and the indexing threads' last step (:func:`after_ready`).

Progress is a latest-value message, so a newer one may replace an older one still queued;
results are never replaced.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from textual.message import Message

from tracetui.analysis.chains import ChainIndex
from tracetui.store.index import RunIndex


@dataclass
class IndexProgress(Message):
    """Bytes indexed so far, out of the run's total size."""

    done: int
    total: int

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, IndexProgress)


@dataclass
class IndexReady(Message):
    """The run is indexed and can be shown."""

    index: RunIndex
    chains: ChainIndex | None = None
    """The index's chains, linked on the indexing thread (None: see ``linking``)."""
    linking: bool = False
    """True when the chains come after, in a :class:`ChainsReady` (:func:`after_ready`);
    False with no ``chains``: the app links them itself."""


@dataclass
class ChainsReady(Message):
    """The chains of an index shown by an :class:`IndexReady` with ``linking``, linked."""

    index: RunIndex
    chains: ChainIndex


def after_ready(index: RunIndex, post: Callable[[Message], object]) -> None:
    """What an indexing thread does once it posted ``IndexReady(index, linking=True)``: link
    the index's retry chains and post them in a :class:`ChainsReady`.

    The first screen does not draw a chain's links (the chain pane says they are being linked),
    so a million-row run's list shows without waiting for them (0.1-0.2 s at 1M rows). The id
    registry must be settled first (``ids.table_for`` does it): linking then reads a plain dict
    and never holds the index's lock for long, so the UI thread reading rows meanwhile does not
    wait on it.
    """
    post(ChainsReady(index, ChainIndex(index).prepare()))


@dataclass
class IndexFailed(Message):
    """Indexing stopped with an error a person should read."""

    reason: str
