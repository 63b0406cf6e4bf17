"""Ages in words for messages and lists: ``2 min ago`` (no clock is read here)."""

from __future__ import annotations


def ago(seconds: float) -> str:
    """``just now``, ``40 s ago``, ``2 min ago``, ``3 h ago``, ``5 days ago``."""
    s = max(0, int(seconds))
    if s < 5:
        return "just now"
    if s < 60:
        return f"{s} s ago"
    if s < 3600:
        return f"{s // 60} min ago"
    if s < 86400:
        return f"{s // 3600} h ago"
    days = s // 86400
    return f"{days} day{'s' if days != 1 else ''} ago"
