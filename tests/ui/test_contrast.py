"""Every text colour of tracetui's styles reaches WCAG AA (4.5:1) in every theme it offers.

The pairs (a text colour and what it is drawn on) are read from the stylesheet itself, so a new
rule is checked as soon as it is written; the ratio is computed here from the theme's colours
with the WCAG 2 formula, independently of ui/palette.py.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
from functools import cache
from pathlib import Path

import pytest
from rich.style import Style
from viewer_helpers import make_app, settle

import tracetui.ui
from tracetui.ui.app import TraceApp
from tracetui.ui.widgets.chain import ChainPane
from tracetui.ui.widgets.detail import DetailPane
from tracetui.ui.widgets.run_header import RunHeader
from tracetui.ui.widgets.span_list import SpanList

TCSS = Path(TraceApp.CSS_PATH)
GROUNDS = ("background", "surface", "panel", "primary-muted")
"""A rule with no background of its own is drawn on the panes, modal boxes, header or cursor."""


def srgb_to_linear(value: int) -> float:
    c = value / 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def relative_luminance(hex_colour: str) -> float:
    digits = hex_colour.lstrip("#")[:6]
    r, g, b = (srgb_to_linear(int(digits[i : i + 2], 16)) for i in (0, 2, 4))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(a: str, b: str) -> float:
    high, low = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def offered_themes() -> list[str]:
    return sorted(TraceApp([]).available_themes)


@cache
def theme_colours(theme: str) -> dict[str, str]:
    app = TraceApp([])
    app.theme = theme
    return app.get_css_variables()


def style_sources() -> list[tuple[str, str]]:
    """(where, CSS text) of every stylesheet tracetui ships: the .tcss and the DEFAULT_CSS of
    every widget and screen defined in tracetui.ui (found by walking the package)."""
    sources = [(TCSS.name, TCSS.read_text())]
    for info in pkgutil.walk_packages(tracetui.ui.__path__, "tracetui.ui."):
        module = importlib.import_module(info.name)
        for name, obj in sorted(vars(module).items()):
            css = getattr(obj, "__dict__", {}).get("DEFAULT_CSS")
            if inspect.isclass(obj) and obj.__module__ == module.__name__ and css:
                sources.append((f"{info.name.rsplit('.', 1)[1]}.{name}", css))
    return sources


def text_pairs() -> list[tuple[str, str, str | None]]:
    """(selector, text colour variable, background variable or None) of every rule with text."""
    pairs: list[tuple[str, str, str | None]] = []
    for where, css in style_sources():
        css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
        for selector, body in re.findall(r"([^{}]+)\{([^{}]*)\}", css):
            decls = dict(
                (k.strip(), v.strip())
                for k, _, v in (d.partition(":") for d in body.split(";"))
                if v.strip()
            )
            ground = decls.get("background", "").removeprefix("$") or None
            for prop in ("color", "border-title-color", "border-subtitle-color"):
                if prop in decls:
                    name = f"{where} {' '.join(selector.split())} {prop}"
                    pairs.append((name, decls[prop], ground))
    return pairs


PAIRS = text_pairs()
THEMES = offered_themes()


def test_the_stylesheet_has_text_pairs_to_check() -> None:
    # The parser found the rules that matter, the known light-theme failure among them.
    assert ("tracetui.tcss DetailBody > .detail--banner color", "$tt-on-warning", "warning") in (
        PAIRS
    )
    assert len(PAIRS) > 40
    assert {"ask.AskScreen", "run_picker.RunRows"} <= {where for where, _ in style_sources()}


def test_text_colours_are_only_the_checked_ones() -> None:
    # A theme's own text colours are not guaranteed readable on our grounds: only $tt-* are.
    unchecked = [(where, colour) for where, colour, _ in PAIRS if not colour.startswith("$tt-")]
    assert unchecked == []
    assert all("text-style: dim" not in css for _, css in style_sources())


def test_the_ansi_themes_are_not_offered() -> None:
    # Their colours are the terminal's, so their contrast cannot be computed.
    assert "ansi-dark" not in THEMES and "ansi-light" not in THEMES
    assert {"textual-dark", "textual-light", "solarized-light", "nord"} <= set(THEMES)


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize(("where", "colour", "ground"), PAIRS, ids=[p[0] for p in PAIRS])
def test_text_reaches_aa(theme: str, where: str, colour: str, ground: str | None) -> None:
    colours = theme_colours(theme)
    fg = colours[colour.removeprefix("$")]
    for name in [ground] if ground else GROUNDS:
        ratio = contrast_ratio(fg, colours[name])
        assert ratio >= 4.5, f"{where}: {fg} on {name} {colours[name]} is {ratio:.2f}:1 in {theme}"


def test_light_never_shown_badge_was_the_known_failure_and_is_fixed() -> None:
    colours = theme_colours("textual-light")
    assert contrast_ratio(colours["background"], colours["warning"]) < 1.5  # the old pairing
    assert colours["tt-on-warning"] == "#000000"
    assert contrast_ratio(colours["tt-on-warning"], colours["warning"]) > 10


def pane_colours(app: TraceApp) -> dict[str, set[str]]:
    """The foreground colours drawn in each pane's region of the screen."""
    strips = app.screen._compositor.render_strips()
    out: dict[str, set[str]] = {}
    for pane in (RunHeader, SpanList, DetailPane, ChainPane):
        region = app.query_one(pane).region
        found: set[str] = set()
        for strip in strips[region.y : region.bottom]:
            x = 0
            for seg in strip:
                style = seg.style or Style()
                if region.x <= x < region.right and style.color is not None and seg.text.strip():
                    found.add(style.color.get_truecolor().hex.upper())
                x += len(seg.text)
        out[pane.__name__] = found
    return out


async def test_a_theme_change_repaints_every_pane_at_once() -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        dark = pane_colours(app)
        app.theme = "textual-light"
        await pilot.pause()
        switched = pane_colours(app)
    fresh = make_app()
    fresh.theme = "textual-light"
    async with fresh.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        started_light = pane_colours(fresh)
    # Every pane now draws exactly what an app started in the light theme draws.
    assert switched == started_light
    assert all(dark[name] != switched[name] for name in dark)


# Rich styles written in the code (Text.append, style=…) are not in any stylesheet: a colour or
# "dim" there escapes the checks above (Rich's "dim" halves the contrast in a light theme). So the
# code may only use attributes and $tt-* names there (resolved by ui/palette.py theme_style), or a
# component-class name resolved through the stylesheet (st("dim"), Cell(…, "dim")).
UI = Path(tracetui.ui.__path__[0])
ATTRIBUTES = {"bold", "italic", "underline", "reverse", "strike", "not", "none", "link"}
STYLE_ARG = {"append": 1, "stylize": 0, "stylize_before": 0, "highlight_words": 1, "parse": 0}
STYLE_PARAMS = {"style", "label", "dim", "faint"}


def literals(node: ast.AST) -> list[ast.Constant]:
    """The string constants of an expression, not looking inside calls (their own business)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node]
    if isinstance(node, ast.Call):
        return []
    return [c for child in ast.iter_child_nodes(node) for c in literals(child)]


def style_literals(tree: ast.AST) -> list[ast.Constant]:
    """String constants written where Rich reads a style."""
    found: list[ast.Constant] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = getattr(node.func, "attr", getattr(node.func, "id", ""))
            found += [c for k in node.keywords if k.arg == "style" for c in literals(k.value)]
            at = STYLE_ARG.get(name, 1 if name == "Text" else None)
            if at is not None and len(node.args) > at:
                found += literals(node.args[at])
            first = node.args[0] if node.args else None
            if name == "get" and isinstance(first, ast.Constant) and str(first.value)[:3] == "tt-":
                found += [c for arg in node.args[1:] for c in literals(arg)]
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args.posonlyargs + node.args.args
            pairs = list(
                zip(args[len(args) - len(node.args.defaults) :], node.args.defaults, strict=True)
            )
            pairs += [
                (a, d)
                for a, d in zip(node.args.kwonlyargs, node.args.kw_defaults, strict=True)
                if d
            ]
            found += [c for a, d in pairs if a.arg in STYLE_PARAMS for c in literals(d)]
    return found


def unchecked_words(spec: str) -> list[str]:
    words = spec.split()
    bad = [w for w in words if w not in ATTRIBUTES and w != "on" and not w.startswith("$tt-")]
    # "$tt-on-warning on $warning": a theme fill only under its own checked badge text.
    for i, word in enumerate(words):
        if word == "on" and i + 1 < len(words) and words[i + 1].startswith("$"):
            fill = words[i + 1][1:]
            if f"$tt-on-{fill}" in words:
                bad.remove(words[i + 1])
    return bad


def code_styles() -> list[tuple[str, str]]:
    out = []
    for path in sorted(UI.rglob("*.py")):
        for const in style_literals(ast.parse(path.read_text())):
            out.append((f"{path.relative_to(UI)}:{const.lineno}", const.value))
    return out


@pytest.mark.parametrize(
    ("spec", "bad"),
    [
        ("bold", []),
        ("dim", ["dim"]),
        ("bold red", ["red"]),
        ("reverse yellow", ["yellow"]),
        ("bold $tt-error", []),
        ("$tt-on-warning on $warning", []),
        ("$tt-text on $warning", ["$warning"]),
        ("#777777", ["#777777"]),
    ],
    ids=["attribute", "dim", "named-colour", "reverse-colour", "tt", "badge", "fill-alone", "hex"],
)
def test_a_code_style_may_name_only_checked_colours(spec: str, bad: list[str]) -> None:
    assert unchecked_words(spec) == bad


def test_the_code_styles_are_found() -> None:
    # The scanner sees the places Rich styles are written (so an empty result means clean).
    tree = ast.parse(
        "def f(t, dim='dim'):\n t.append('x', 'dim')\n Text('y', 'red')\n t.stylize('blue')\n"
        " Text('z', style='bold' if t else 'green')\n v.get('tt-faint', 'dim')\n t.append('w', st('dim'))\n"
    )
    assert sorted(c.value for c in style_literals(tree)) == sorted(
        ["dim", "dim", "red", "blue", "bold", "green", "dim"]
    )


def test_code_styles_use_only_checked_colours() -> None:
    unchecked = [(where, spec) for where, spec in code_styles() if unchecked_words(spec)]
    assert unchecked == []
