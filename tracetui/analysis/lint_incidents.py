"""Lint rules TT019–TT025: the patterns of real incidents, where the agent acted on a partial
document (see docs/lint.md for the incident behind each).

The contract rules (:mod:`tracetui.analysis.lint_rules`) check that a span is honest. These
check what the agent could have known from it: a failure whose summary was cut away, a cut of
unknown size, a retry that could not see more, a note that predicted success, a call that never
returned, a marker copied into a file, a failure the agent's format recorded as a success.

Each rule is one decorated function; the checks they share with the summary and the viewer
(:mod:`tracetui.analysis.suspicions`) are the plain functions here. Importing this module
registers the rules, after those of ``lint_rules``: their findings come after the others on a
line.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from typing import Any

# The contract rules register first, so their findings come first on a line.
from tracetui.analysis import lint_rules  # noqa: F401
from tracetui.analysis import record_evidence as evidence
from tracetui.analysis.chains import cut_parents
from tracetui.analysis.lint_registry import ERROR, WARNING, rule
from tracetui.analysis.notes import predicted_success
from tracetui.analysis.raw_lines import RawLines, load_json
from tracetui.analysis.record_evidence import NotPlain
from tracetui.model.markers import Marker, find_marker
from tracetui.model.spans import NotASpan, Span, detect_dialect
from tracetui.store.index import RunIndex

Located = tuple[str, int, str]

CLIPS = ("head", "tail", "head_tail")


def stated_clip(rec: dict[str, Any], stream: str, marker: Marker | None) -> str | None:
    """Which part of cut stream ``stream`` was kept, as the record or the ``marker`` found in its
    preview says (None: unsaid).

    Not ``StreamFacts.clip``, which falls back to ``head`` when nothing says: these rules judge
    what the agent saw, so they take no default. An importer's ``{s}_clip`` beside a marker that
    names no clip is such a default too.
    """
    if marker is not None and marker.clip is not None:
        return marker.clip
    if marker is not None and imported_record(rec):
        return None
    clip = rec.get(f"{stream}_clip")
    return clip if clip in CLIPS else None


def imported_record(rec: dict[str, Any]) -> bool:
    schema = rec.get("schema")
    return isinstance(schema, str) and schema.startswith("import/")


# --------------------------------------------------------------- TT019
@rule(
    "TT019",
    WARNING,
    "a failed command's stream kept only its head: the end, where failures are summarised, unseen",
)
def failure_past_head(rec: dict[str, Any], span: Span) -> Iterator[str]:
    code = span.exit_code
    if code is None or code == 0:
        return
    for st in span.streams:
        if st.truncated and stated_clip(rec, st.name, st.marker) == "head":
            yield head_kept(code, st.name, st.hidden_bytes)


def head_kept(code: int, stream: str, hidden: int | None) -> str:
    """TT019's finding: a failed command (exit ``code``) whose ``stream`` kept only its head."""
    lost = "an unknown amount" if hidden is None else f"{hidden} bytes"
    return (
        f"exit {code} and {stream} kept only its head: {lost} at its end, where a failure is "
        "summarised, never seen"
    )


# --------------------------------------------------------------- TT020
def unknown_size_reason(
    stream: str,
    truncated: bool | None,
    nbytes: int | None,
    hidden: int | None,
    marker: Marker | None,
) -> str | None:
    """Why nobody can say how much of a cut stream was lost, or None when someone can (its
    judgement, byte count, hidden bytes and marker as :class:`StreamFacts` holds them)."""
    if not truncated or nbytes is not None or hidden is not None:
        return None
    if marker is None:
        return f"only {stream}_truncated says so, and no {stream}_bytes"
    if marker.count is None:
        return f"the {marker.family} marker states no count, and no {stream}_bytes"
    return (
        f"the {marker.family} marker counts {marker.count} {marker.unit}, not bytes, and no "
        f"{stream}_bytes"
    )


@rule("TT020", WARNING, "a stream was cut but its original size is unknown")
def cut_of_unknown_size(rec: dict[str, Any], span: Span) -> Iterator[str]:
    for st in span.streams:
        why = unknown_size_reason(st.name, st.truncated, st.bytes, st.hidden_bytes, st.marker)
        if why is not None:
            yield f"{st.name} was cut but its original size is unknown ({why})"


# --------------------------------------------------------------- TT021
def blind_retry(retry: Span, parent: Span) -> str | None:
    """Why ``retry`` could not see more of its parent's cut output, or None when it could.

    Blind: the same argv, the same (known) cwd, and every stream cut in the parent cut again,
    with the same clip and a cap no larger (both known). A retry whose output fitted saw all of
    it; a cap or cwd nobody recorded says nothing.
    """
    if not retry.argv or retry.argv != parent.argv or retry.cwd is None:
        return None
    if retry.cwd != parent.cwd:
        return None
    cut = [st for st in parent.streams if st.truncated]
    caps = []
    for was in cut:
        now = retry.stream(was.name)
        if now.truncated is not True or was.cap is None or now.cap is None or now.cap > was.cap:
            return None
        said = stated_clip(retry.raw, now.name, now.marker)
        if said not in (None, stated_clip(parent.raw, was.name, was.marker)):
            return None  # another window of the output: it may show what the first hid
        if now.cap < was.cap:
            caps.append(f"a smaller {was.name}_cap ({now.cap} < {was.cap})")
        else:
            caps.append(f"the same {was.name}_cap {now.cap}")
    if not caps:
        return None
    return (
        f"retries {parent.command_id!r}, whose output was cut, with the same argv and cwd under "
        f"{' and '.join(caps)}: it could not see more"
    )


def may_retry_blind(retry: Any, parent: Any) -> bool:
    """False when :func:`blind_retry` is sure to find nothing in these two parsed records: the
    retry names no argv or cwd, or the argv or cwd differ, as their spans would read them. True
    when it may find something, or when only their spans can tell (a field of another type)."""
    if not isinstance(retry, dict) or not isinstance(parent, dict):
        return True
    try:
        said = evidence.argv(retry, detect_dialect(retry)), evidence.text(retry, "cwd")
        was = evidence.argv(parent, detect_dialect(parent)), evidence.text(parent, "cwd")
    except (NotPlain, NotASpan):
        return True
    return bool(said[0]) and said[1] is not None and said == was


@rule(
    "TT021",
    WARNING,
    "a retry of a cut attempt runs the same argv in the same cwd under the same or a smaller cap",
    on="run",
)
def retry_under_same_cap(index: RunIndex, gated: frozenset[int]) -> Iterator[Located]:
    # Both rows cut, or blind_retry says None: it asks the retry to cut what the parent cut.
    pairs = [(r, p) for r, p in cut_parents(index, index.parent_ids).items() if r not in gated]
    with RawLines(index) as raw:
        for row, prow in pairs:
            # Most retries change the command: their records say so before any Span is built.
            data, parent_data = raw.line(row), raw.line(prow)
            if (
                data is not None
                and parent_data is not None
                and not may_retry_blind(load_json(data), load_json(parent_data))
            ):
                continue
            retry, parent = index.span(row), index.span(prow)
            why = blind_retry(retry, parent) if retry and parent else None
            if why is not None:
                path, line = index.location(row)
                yield path, line, why


# --------------------------------------------------------------- TT022
@rule(
    "TT022",
    WARNING,
    "the agent's note predicted success while the exit was nonzero or a stream was cut",
)
def success_believed(rec: dict[str, Any], span: Span) -> Iterator[str]:
    found = success_against(
        span.exit_code, [st.name for st in span.streams if st.truncated], span.agent_note
    )
    if found is not None:
        yield found


def success_against(code: int | None, cut: list[str], note: str | None) -> str | None:
    """TT022's finding, or None: ``note`` predicts success while the exit ``code`` is nonzero
    or the streams ``cut`` were cut."""
    failed = code is not None and code != 0
    if not (failed or cut):
        return None
    word = predicted_success(note)
    if word is None:
        return None
    what = [f"the command exited {code}"] if failed else []
    what += [f"{' and '.join(cut)} {'was' if len(cut) == 1 else 'were'} cut"] if cut else []
    return f'the note predicted success ("{word}") but {" and ".join(what)}'


# --------------------------------------------------------------- TT023
@rule(
    "TT023",
    WARNING,
    "a tool call has no result (the session ended or the result was lost)",
    formats="imported",
)
def call_without_result(rec: dict[str, Any], span: Span) -> Iterator[str]:
    if rec.get("result_missing") is True:
        yield f"the {span.display_name} call has no result (the session ended or it was lost)"


# --------------------------------------------------------------- TT024
WRITE_TOOLS = frozenset(
    {
        "write",
        "edit",
        "multiedit",
        "notebookedit",
        "str_replace_editor",
        "str_replace_based_edit_tool",
        "text_editor",
        "edit_file",
        "write_file",
        "create_file",
        "apply_patch",
        "patch",
    }
)
"""Tools that write files (by tool name or argv[0], case ignored)."""
CONTENT_KEYS = ("content", "contents", "new_string", "new_str", "file_text", "new_source")
"""Arguments of a write tool that hold text written into the file (never ``old_string``: text
to be replaced is already in the file)."""
PATCH_KEYS = ("patch", "diff", "input")
"""Arguments holding a patch: only its added lines are written."""
SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh"})

_HEREDOC = re.compile(r"<<-?\s*(['\"]?)([A-Za-z_]\w*)\1")
_WRITES = re.compile(r"(?<![<>&\d])>{1,2}\s*[^\s&>|;]|\btee\b|\bapply_patch\b|\bpatch\b")


def written_marker(span: Span) -> tuple[str, Marker] | None:
    """``(where, marker)`` when the call writes a truncation marker into a file, else None."""
    argv = span.argv
    if not argv:
        return None
    names = {os.path.basename(argv[0]).lower(), (span.tool_name or "").lower()}
    if names & WRITE_TOOLS:
        return _in_tool_input(argv)
    script = _shell_script(argv)
    return _in_heredoc(script) if script is not None else None


def _shell_script(argv: tuple[str, ...]) -> str | None:
    """The script of ``sh -c SCRIPT`` (``bash -lc``, ``bash --login -c``…), else None."""
    if os.path.basename(argv[0]) not in SHELLS:
        return None
    for i, arg in enumerate(argv[1:-1], 1):
        if not arg.startswith("-"):
            return None
        if not arg.startswith("--") and arg.endswith("c"):
            return argv[i + 1]
    return None


def _in_tool_input(argv: tuple[str, ...]) -> tuple[str, Marker] | None:
    rest = argv[1:]
    if len(rest) == 1 and rest[0].lstrip().startswith("{"):
        try:
            args = json.loads(rest[0])
        except ValueError:
            args = None
        if isinstance(args, dict):
            return _in_arguments(args)
    # An argv-style call (``apply_patch PATCH``): the text after the tool name is the patch.
    marker = find_marker(_added_lines("\n".join(rest)))
    return ("the patch", marker) if marker else None


def _in_arguments(args: dict[str, Any]) -> tuple[str, Marker] | None:
    for key in CONTENT_KEYS:
        text = args.get(key)
        marker = find_marker(text) if isinstance(text, str) else None
        if marker:
            return key, marker
    for key in PATCH_KEYS:
        text = args.get(key)
        marker = find_marker(_added_lines(text)) if isinstance(text, str) else None
        if marker:
            return key, marker
    edits = args.get("edits")
    for edit in edits if isinstance(edits, list) else []:
        found = _in_arguments(edit) if isinstance(edit, dict) else None
        if found:
            return f"edits[].{found[0]}", found[1]
    return None


def _added_lines(patch: str) -> str:
    """The lines a patch adds (``+`` lines, not ``+++`` headers); a text with none is all added."""
    lines = patch.splitlines()
    if not any(line.startswith(("+", "-", "@@", "***")) for line in lines):
        return patch
    return "\n".join(
        line[1:] for line in lines if line.startswith("+") and not line.startswith("+++")
    )


def _in_heredoc(script: str) -> tuple[str, Marker] | None:
    """A marker in the body of a here-document whose command writes a file (``cat > f <<EOF``,
    ``tee``, ``apply_patch <<EOF``)."""
    lines = script.splitlines()
    i = 0
    while i < len(lines):
        m = _HEREDOC.search(lines[i])
        if m is None:
            i += 1
            continue
        writes = _WRITES.search(lines[i][: m.start()] + " " + lines[i][m.end() :])
        end = i + 1
        while end < len(lines) and lines[end].strip() != m.group(2):
            end += 1
        body = "\n".join(lines[i + 1 : end])
        marker = find_marker(body) if writes else None
        if marker:
            return "a here-document", marker
        i = end + 1
    return None


@rule(
    "TT024",
    ERROR,
    "the agent wrote a truncation marker into a file (an edit, write or patch holds a marker)",
    formats="imported",
)
def marker_written_to_file(rec: dict[str, Any], span: Span) -> Iterator[str]:
    found = written_marker(span)
    if found is not None:
        where, marker = found
        yield (
            f"the {span.display_name} call writes a truncation marker ({marker.family}) into a "
            f"file, in {where}: it copied a cut output as if it were the file"
        )


# --------------------------------------------------------------- TT025
@rule(
    "TT025",
    WARNING,
    "the agent's format marks a call successful while its text or fields say it exited nonzero",
    formats="imported",
)
def failure_recorded_as_success(rec: dict[str, Any], span: Span) -> Iterator[str]:
    code = span.exit_code
    if rec.get("source_ok") is True and code is not None and code != 0:
        field = rec.get("source_ok_field")
        said = field if isinstance(field, str) and field else "the format"
        yield f"{said} marks the call successful, but it exited {code}"
