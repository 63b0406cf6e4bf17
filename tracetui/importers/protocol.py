"""What an importer is: a name, a sniffer, a converter, and the truncation markers its agent writes.

Each format module defines one :class:`Format` named ``IMPORTER``, and
:mod:`tracetui.importers.registry` lists them all. Sniffing asks every importer how sure it is
that a file's head is its format (a :data:`confidence`) and takes the surest; ties go to the
importer listed first.

Confidences: a line-oriented format (JSON Lines) that recognises line ``i`` of the head scores
``LINE - i`` (:meth:`Head.line_confidence`), so the format of the earliest recognisable line wins,
as a reader scanning from the top would decide. A whole-document format (one JSON value, a zip)
scores below :data:`DOCUMENT_MAX`: such evidence only counts when no line was recognised.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Protocol, runtime_checkable

from tracetui.importers._common import Problems, iter_jsonl

NO = 0
"""Not this format."""
HEAD_LINES = 30
"""Lines of the head that line-oriented sniffers look at."""
LINE = 100
"""Confidence for a recognised first line; each later line scores one less."""
DOCUMENT_MAX = LINE - HEAD_LINES
"""Whole-document evidence scores below this (so any recognised line beats it)."""


@dataclass(frozen=True, slots=True)
class Head:
    """The first bytes of a file, read once and shared by every sniffer."""

    text: str
    """The head as text (BOM and leading blanks stripped); empty for a zip."""
    lines: list[Any]
    """Up to :data:`HEAD_LINES` complete JSON lines, parsed (None for a line that is not JSON)."""
    zip_names: tuple[str, ...] | None = None
    """The entry names when the file is a zip, else None."""

    def has(self, *keys: str) -> bool:
        """Whether every one of ``keys`` appears as a JSON object key in the head's text."""
        return all(_key(k).search(self.text) for k in keys)

    def line_confidence(self, matches: Callable[[dict[str, Any]], bool]) -> int:
        """``LINE - i`` for the first line ``i`` (a JSON object) that ``matches``; else :data:`NO`."""
        for i, obj in enumerate(self.lines):
            if isinstance(obj, dict) and matches(obj):
                return LINE - i
        return NO


@lru_cache(maxsize=64)
def _key(name: str) -> re.Pattern[str]:
    return re.compile(r'"' + re.escape(name) + r'"\s*:')


@runtime_checkable
class Importer(Protocol):
    """One foreign trace format."""

    @property
    def name(self) -> str:
        """The format's name (``claude-code``…): ``source_format`` and ``import/<name>``."""
        ...

    @property
    def markers(self) -> tuple[str, ...]:
        """The marker families (:mod:`tracetui.model.markers`) this agent writes when it cuts."""
        ...

    def sniff(self, head: Head) -> int:
        """How sure the importer is that ``head`` is its format: :data:`NO` (0) when not."""
        ...

    def convert(self, path: str, problems: Problems) -> Iterator[dict[str, Any]]:
        """One ``import/<name>`` record per tool call; skipped parts go to ``problems``."""
        ...

    @property
    def feeder(self) -> FeederFactory | None:
        """Makes a :class:`Feeder` for a line-oriented format (followed live); None otherwise."""
        ...

    @property
    def folder_feeder(self) -> FolderFeederFactory | None:
        """Makes a :class:`FolderFeeder` for a trace kept as a folder of event files; or None."""
        ...

    @property
    def shape(self) -> Callable[[str], str | None] | None:
        """How the trace at a path is followed (:func:`shape_of`); None: by the feeders it has."""
        ...


class Feeder(Protocol):
    """A conversion fed one JSON line at a time, so a growing file can be followed live.

    Records come out in call order, each once: ``feed`` returns the calls it completed (and
    any finished ones that waited behind them), ``finish`` the rest when the input ends.
    """

    def feed(self, line_no: int, obj: Any) -> list[dict[str, Any]]:
        """Fold in line ``line_no`` (already parsed); the records it lets out, in call order."""
        ...

    def pending(self) -> list[dict[str, Any]]:
        """Copies of the calls not let out yet, in call order: each one without its result is
        marked ``running: true`` (no exit, no error); a finished one waiting behind it is as it
        will be let out. Nothing is consumed."""
        ...

    def finish(self) -> list[dict[str, Any]]:
        """The input ended: every call still held, as a whole-file conversion ends them."""
        ...


FeederFactory = Callable[[str, Problems], Feeder]
"""``factory(path, problems)``: a fresh :class:`Feeder` for the file at ``path``."""


class FolderFeeder(Feeder, Protocol):
    """A conversion fed one event file at a time, for a trace kept as a folder of them."""

    def entries(self, names: list[str]) -> list[str]:
        """The event files among a folder listing ``names``, in the order they are fed."""
        ...

    def feed_file(self, index: int, path: str, obj: Any) -> list[dict[str, Any]]:
        """Fold in entry ``index`` (its file ``path``, already parsed); the records let out."""
        ...


FolderFeederFactory = Callable[[str, Problems], FolderFeeder]
"""``factory(folder, problems)``: a fresh :class:`FolderFeeder` for the folder."""

LINES = "lines"
"""Followed line by line, through the importer's :attr:`Format.feeder`."""
FOLDER = "folder"
"""Followed file by file, through the importer's :attr:`Format.folder_feeder`."""
DOCUMENT = "document"
"""Read again whole when it changes."""


def shape_of(importer: Importer, path: str) -> str | None:
    """How the trace at ``path`` is followed: :data:`LINES`, :data:`FOLDER` or
    :data:`DOCUMENT`; None while its start does not tell yet (a first line still being
    written). The importer decides per file when it has a ``shape``; else a folder is fed by
    its folder feeder and a file by its line feeder, when it has them."""
    if importer.shape is not None:
        return importer.shape(path)
    if os.path.isdir(path):
        return FOLDER if importer.folder_feeder is not None else DOCUMENT
    return LINES if importer.feeder is not None else DOCUMENT


def feed_file(feeder: Feeder, path: str, problems: Problems) -> Iterator[dict[str, Any]]:
    """A whole-file conversion made of a feeder: every line fed, then the end."""
    for line_no, obj in iter_jsonl(path, problems):
        yield from feeder.feed(line_no, obj)
    yield from feeder.finish()


@dataclass(frozen=True, slots=True)
class Format:
    """An :class:`Importer` made of a format module's functions."""

    name: str
    sniff: Callable[[Head], int]
    convert: Callable[[str, Problems], Iterator[dict[str, Any]]]
    markers: tuple[str, ...]
    feeder: FeederFactory | None = None
    folder_feeder: FolderFeederFactory | None = None
    shape: Callable[[str], str | None] | None = None
