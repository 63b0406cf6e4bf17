"""Growing runs for the stress tests: a plan of records, and a thread that writes it.

:func:`plan` makes the records of a run from a seed: a third fail (exit 1), some are retries
naming a parent (an earlier span, a later one, or one never written), some were truncated,
some carry an escaped id (the C scanner leaves those to the Python parser: "slow" rows), and
some lines are not JSON at all. :class:`Writer` appends them to a run's base file from its own
thread in random-sized writes, often ending a write in the middle of a line, and can rotate the
base (rename, or copy-and-truncate) between whole lines, as a harness does.

Whatever a thread raises is kept (``Writer.error``) so a test can fail on it: an exception on a
thread nobody joins is otherwise only printed.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import threading
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from records import tool


@dataclass(frozen=True, slots=True)
class Planned:
    """One line of a planned run."""

    data: bytes
    """The line as written, newline included."""
    cid: str | None
    """Its command id as a reader decodes it; None for a bad line."""
    failed: bool
    parent: str | None = None


VARYING = {"command_id", "parent_command_id", "argv", "exit_code", "ok_preview"}
VARYING |= {"stdout_bytes", "stdout_cap", "stdout_truncated"}
FULL_REST = json.dumps({k: v for k, v in tool().items() if k not in VARYING})[1:-1]
"""The fields of a whole recorder record that are the same in every planned record, dumped
once: dumping 30 fields per record was most of the cost of planning a big run."""


def plan(
    count: int,
    seed: int,
    *,
    prefix: str = "s",
    full: bool = False,
    bad_every: int = 0,
    pad: int = 0,
) -> list[Planned]:
    """``count`` spans (plus a bad line every ``bad_every`` spans), reproducible from ``seed``.

    ``full`` writes whole recorder records (about 700 bytes, the size real runs have); otherwise
    a compact record (about 150 bytes plus ``pad``) that is quicker to write and to read.
    """
    rnd = random.Random(seed)
    out: list[Planned] = []
    ids: list[str] = []
    for i in range(count):
        # An escaped character in the id makes the row "slow" for the C scanner.
        cid = f"{prefix}{i:07d}" + ("-é" if rnd.random() < 0.03 else "")
        failed = rnd.random() < 1 / 3
        parent = None
        roll = rnd.random()
        if ids and roll < 0.10:
            parent = ids[max(0, len(ids) - 1 - int(rnd.expovariate(0.2)))]  # a recent attempt
        elif roll < 0.11:
            parent = f"{prefix}{i + 3:07d}"  # written a little later (or never, near the end)
        elif roll < 0.115:
            parent = f"{prefix}-rotated-away-{i}"
        truncated = rnd.random() < 0.12
        fields: dict[str, Any] = {
            "command_id": cid,
            "argv": ["make" if failed else "echo", str(i)],
            "exit_code": 1 if failed else 0,
        }
        if parent is not None or full:
            fields["parent_command_id"] = parent
        if truncated:
            fields.update(stdout_bytes=20_000, stdout_cap=8192, stdout_truncated=True)
        elif full:
            fields.update(stdout_bytes=3, stdout_cap=8192, stdout_truncated=False)
        if pad:
            fields["pad"] = "x" * rnd.randrange(pad)
        if full:
            fields["ok_preview"] = not failed
            line = "{" + json.dumps(fields)[1:-1] + ", " + FULL_REST + "}\n"
        else:
            line = json.dumps({"schema": "tracetui/1", "span_type": "tool", **fields}) + "\n"
        out.append(Planned(line.encode(), cid, failed, parent))
        ids.append(cid)
        if bad_every and i % bad_every == bad_every // 2:
            bad = b'{"schema": "tracetui/1", "command_id": ' + str(i).encode() + b"\n"
            out.append(Planned(bad, None, False))
    return out


def spans_of(lines: list[Planned]) -> list[Planned]:
    return [p for p in lines if p.cid is not None]


def write_all(path: Path, lines: list[Planned]) -> None:
    with open(path, "ab") as fh:
        fh.write(b"".join(p.data for p in lines))


def rotate(base: Path, mode: str) -> None:
    """Shift ``B.k`` to ``B.k+1`` (keeping all), then move the base's content to ``B.1``."""
    numbered = []
    for name in os.listdir(base.parent):
        head, _, num = name.rpartition(".")
        if head == base.name and num.isdigit():
            numbered.append(int(num))
    for k in sorted(numbered, reverse=True):
        os.rename(f"{base}.{k}", f"{base}.{k + 1}")
    if mode == "rename":
        os.rename(base, f"{base}.1")
    elif mode == "copytruncate":
        shutil.copyfile(base, f"{base}.1")
        with open(base, "r+b") as fh:
            fh.truncate(0)
    else:
        raise ValueError(mode)


class Writer(threading.Thread):
    """Appends ``lines`` to ``base`` from a thread, ``rate`` lines a second (None: flat out).

    Each write takes 1 to ``max_lines`` lines; with probability ``split`` it also takes the
    start of the next line, whose rest comes with the next write. With ``rotate_every``, the
    base is rotated (``rotate_mode``) after about that many lines, between whole lines.
    """

    def __init__(
        self,
        base: Path,
        lines: list[Planned],
        seed: int,
        *,
        rate: float | None = None,
        max_lines: int = 60,
        split: float = 0.3,
        rotate_every: int = 0,
        rotate_mode: str = "rename",
    ) -> None:
        super().__init__(name="stress-writer", daemon=True)
        self.base, self.lines, self.rnd = base, lines, random.Random(seed)
        self.rate, self.max_lines, self.split = rate, max_lines, split
        self.rotate_every, self.rotate_mode = rotate_every, rotate_mode
        self.written = 0
        """Lines written whole so far."""
        self.rotations = 0
        self.error: str | None = None
        """The traceback of what the thread raised, if it raised."""
        self.halt = threading.Event()

    def run(self) -> None:
        try:
            self._write()
        except BaseException:
            self.error = traceback.format_exc()

    def stop(self) -> None:
        """Stop after the current write; the line it split is finished first."""
        self.halt.set()
        self.join(timeout=30)

    def _write(self) -> None:
        rnd, lines = self.rnd, self.lines
        started = time.monotonic()
        since_rotation = 0
        carry = b""
        i = 0
        while i < len(lines) and not self.halt.is_set():
            k = rnd.randint(1, self.max_lines)
            chunk = carry + b"".join(p.data for p in lines[i : i + k])
            i = min(len(lines), i + k)
            carry = b""
            if i < len(lines) and rnd.random() < self.split:
                nxt = lines[i].data
                cut = rnd.randrange(1, len(nxt))
                chunk, carry = chunk + nxt[:cut], nxt[cut:]
                i += 1
            with open(self.base, "ab") as fh:
                fh.write(chunk)
            self.written = i - (1 if carry else 0)
            since_rotation += k
            if self.rotate_every and not carry and since_rotation >= self.rotate_every:
                rotate(self.base, self.rotate_mode)
                self.rotations += 1
                since_rotation = 0
            if self.rate is not None:
                ahead = started + i / self.rate - time.monotonic()
                if ahead > 0:
                    self.halt.wait(ahead)
        if carry:
            with open(self.base, "ab") as fh:
                fh.write(carry)
        self.written = i
