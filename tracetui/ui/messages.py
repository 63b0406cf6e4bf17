"""Messages the app's workers send back to the UI thread (``post_message`` is thread-safe).

Progress is a latest-value message, so a newer one may replace an older one still queued;
results are never replaced.
"""

from __future__ import annotations

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
    """The index's chains, linked on the indexing thread (None: the app links them itself)."""


@dataclass
class IndexFailed(Message):
    """Indexing stopped with an error a person should read."""

    reason: str
