"""The user's keymap: ``$XDG_CONFIG_HOME/tracetui/keymap.toml`` (else ``~/.config/…``).

Each line maps a binding id (``ui/keys.py``: ``view.next_match``…) to the keys it should use,
comma-separated as Textual writes them::

    "view.next_match" = "n,ctrl+n"
    view.rerun = "ctrl+r"          # a bare dotted key is the same id

It is read once at start and handed to Textual's ``App.set_keymap``. A file that cannot be
read or parsed gives one warning and the default keys; ids that name no binding are warned
about and skipped. Python 3.11+ reads it with ``tomllib``; on 3.10 a small reader takes only
``key = "value"`` lines, comments and blank lines (anything else is reported as not read).
"""

from __future__ import annotations

import importlib
import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any


def _toml() -> Any:
    """The stdlib TOML reader (3.11+), or None on 3.10 (the project's mypy targets 3.10)."""
    try:
        return importlib.import_module("tomllib")
    except ModuleNotFoundError:
        return None


_LINE = re.compile(
    r'^\s*("(?P<quoted>[^"\\]*)"|(?P<bare>[A-Za-z0-9_.-]+))\s*=\s*"(?P<value>[^"\\]*)"\s*(#.*)?$'
)


class KeymapError(ValueError):
    """The keymap file is not ``id = "keys"`` lines."""


def keymap_path(env: Mapping[str, str] = os.environ) -> Path:
    """Where the keymap is looked for."""
    base = env.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "tracetui" / "keymap.toml"


def parse_keymap(text: str) -> dict[str, str]:
    """Binding id → keys; nested tables (``[view]`` or dotted keys) are joined with dots."""
    tomllib = _toml()
    if tomllib is not None:
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise KeymapError(str(exc)) from None
        return _flatten(data, "")
    out: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        m = _LINE.match(line)
        if m is None:
            raise KeymapError(f'line {number} is not id = "keys"')
        out[m["quoted"] if m["quoted"] is not None else m["bare"]] = m["value"]
    return out


def _flatten(data: dict[str, Any], prefix: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(_flatten(value, name + "."))
        elif isinstance(value, str):
            out[name] = value
        else:
            raise KeymapError(f"{name} is not a string of keys")
    return out


def load_keymap(path: Path, known: Iterable[str]) -> tuple[dict[str, str], list[str]]:
    """The keymap at ``path`` (empty when there is none) and the warnings to show."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}, []
    except (OSError, UnicodeDecodeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        return {}, [f"keymap {path} not read ({why}): default keys kept"]
    try:
        keymap = parse_keymap(text)
    except KeymapError as exc:
        return {}, [f"keymap {path} not read ({exc}): default keys kept"]
    ids = set(known)
    unknown = sorted(k for k in keymap if k not in ids)
    warnings = []
    if unknown:
        warnings.append(f"keymap {path}: no binding has the id {', '.join(unknown)} (skipped)")
    empty = sorted(k for k, v in keymap.items() if k in ids and not v.strip())
    if empty:
        warnings.append(f"keymap {path}: no keys given for {', '.join(empty)} (defaults kept)")
    return {k: v for k, v in keymap.items() if k in ids and v.strip()}, warnings
