"""The colours tracetui draws text with, made readable in every theme it offers (WCAG AA).

Textual's themes were not made for our badges: in ``textual-light`` the "never shown" badge was
the background grey on the warning orange, about 1.3:1. So the viewer's styles never use a
theme's colours for text directly. :func:`readable_variables` derives ``$tt-*`` variables from
the theme's own (``tt-error`` from ``text-error``…), each moved towards black or white just as far
as it takes to reach a contrast of 4.5:1 (WCAG 2 AA) on every ground text is drawn on here; a
badge's text (``tt-on-warning``…) is black or white, whichever reads better on the badge. The app
adds them to its CSS variables, so a theme change recomputes them and repaints every pane.

``tt-faint`` replaces ``text-style: dim``: a terminal dims by its own rule, often to half the
contrast, so faint text is the foreground moved towards the ground, then checked like the rest.
The two ANSI themes are not offered: their colours are the terminal's, not known here.
"""

from __future__ import annotations

from collections.abc import Mapping

from textual.color import Color

AA = 4.5
"""The contrast every text colour reaches (WCAG 2, level AA, normal text)."""

GROUNDS = ("background", "surface", "panel", "primary-muted")
"""What text is drawn on: the panes, the modal boxes, the header bar, the cursor row."""

TEXT = {
    "tt-text": "foreground",
    "tt-error": "text-error",
    "tt-warning": "text-warning",
    "tt-success": "text-success",
    "tt-secondary": "text-secondary",
    "tt-accent": "text-accent",
    "tt-primary": "text-primary",
}
"""Our text colour → the theme colour it starts from."""

BADGES = {
    "tt-on-error": "error",
    "tt-on-warning": "warning",
    "tt-on-success": "success",
    "tt-on-accent": "accent",
}
"""A badge's text colour → the theme colour the badge is filled with."""

FAINT_SHARE = 0.45
"""How far faint text starts from the foreground towards the ground (then made readable)."""

UNMEASURED_THEMES = ("ansi-dark", "ansi-light")
"""Themes whose colours are the terminal's own: their contrast cannot be known, so not offered."""

BLACK = Color(0, 0, 0)
WHITE = Color(255, 255, 255)


def _channel(value: int) -> float:
    c = value / 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def luminance(colour: Color) -> float:
    """Relative luminance (WCAG 2): 0 for black, 1 for white."""
    r, g, b = (_channel(v) for v in colour.rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: Color, b: Color) -> float:
    """The WCAG contrast ratio of two colours, 1 to 21."""
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def badge_text(fill: Color) -> Color:
    """Black or white, whichever reads better on ``fill`` (either reaches 4.58:1 at worst)."""
    return BLACK if contrast(BLACK, fill) >= contrast(WHITE, fill) else WHITE


def readable(colour: Color, grounds: list[Color]) -> Color:
    """``colour`` moved towards black or white until it reaches AA on every one of ``grounds``."""
    dark = sum(luminance(g) for g in grounds) / len(grounds) < 0.18
    target = WHITE if dark else BLACK
    for step in range(21):
        moved = colour.blend(target, step / 20)
        if min(contrast(moved, g) for g in grounds) >= AA:
            return moved
    return badge_text(grounds[0])  # grounds too far apart for one colour: the plainest choice


def _solid(value: str | None, under: Color) -> Color | None:
    """A theme variable's colour, alpha laid over ``under``; None when it is not a colour."""
    if not value:
        return None
    try:
        colour = Color.parse(value)
    except Exception:  # `auto 87%` and the like: not a colour of its own
        return None
    return under + colour if colour.a < 1 else colour


def readable_variables(variables: dict[str, str]) -> dict[str, str]:
    """The ``tt-*`` variables for a theme, from its generated CSS variables."""
    background = _solid(variables.get("background"), BLACK) or BLACK
    grounds = [_solid(variables.get(name), background) or background for name in GROUNDS]
    foreground = _solid(variables.get("foreground"), background) or badge_text(background)
    out: dict[str, str] = {}
    for ours, theirs in TEXT.items():
        start = _solid(variables.get(theirs), background) or foreground
        out[ours] = readable(start, grounds).hex
    faint = foreground.blend(background, FAINT_SHARE)
    out["tt-faint"] = readable(faint, grounds).hex
    for ours, fill_name in BADGES.items():
        fill = _solid(variables.get(fill_name), background) or foreground
        out[ours] = badge_text(fill).hex
    return out


def theme_style(variables: Mapping[str, str], spec: str) -> str:
    """A Rich style string for text drawn outside the stylesheet (``Text.append`` and the like).

    ``spec`` names colours as the stylesheet does (``"bold $tt-error"``, ``"$tt-on-warning on
    $warning"``); each ``$name`` becomes the theme's colour, so the text is drawn in a checked,
    readable colour (tests/ui/test_contrast.py forbids Rich's own colours and ``dim`` in ui/).
    A name the theme lacks is left out (the terminal's default colour), never an error.
    """
    words: list[str] = []
    for word in spec.split():
        if word.startswith("$"):
            colour = variables.get(word[1:])
            if colour is None:
                if words and words[-1] == "on":
                    words.pop()
                continue
            word = colour
        words.append(word)
    return " ".join(words)
