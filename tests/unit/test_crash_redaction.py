"""A crash report holds no secret the recorder would have redacted: not in tracetui's own argv
(`run --note …`, `-- mysql --password …`), not in an exception message."""

from __future__ import annotations

import datetime

from tracetui.crash import report_text

WHEN = datetime.datetime(2026, 11, 2, 9, 0, tzinfo=datetime.timezone.utc)


def test_crash_report_redacts_argv_and_message() -> None:
    argv = [
        "tracetui",
        "run",
        "--note",
        "DB_PASSWORD=hunter2",
        "--",
        "mysql",
        "--password",
        "s3cret",
    ]
    text = report_text(
        RuntimeError("bad header Authorization: Bearer abcdefgh12345678"), argv, WHEN
    )
    lines = text.splitlines()
    assert (
        'argv: ["tracetui", "run", "--note", "DB_PASSWORD=[REDACTED]", "--", "mysql", '
        '"--password", "[REDACTED]"]'
    ) in lines
    assert "RuntimeError: bad header Authorization: Bearer [REDACTED]" in lines
    assert "hunter2" not in text and "s3cret" not in text and "abcdefgh" not in text
