"""Queue payment reminders for the given invoice ids (sample tool; prints what it queued).

Usage: send_reminders.py --template NAME INVOICE_ID...
"""

import sys


def main(argv: list[str]) -> int:
    template = argv[argv.index("--template") + 1] if "--template" in argv else "friendly"
    ids = [a for a in argv if a.startswith("in_")]
    out = [f"queued reminder {template!r} for {inv}" for inv in ids]
    out.append(f"{len(ids)} reminders queued; next batch run at 2026-11-02T10:00:00Z")
    sys.stdout.buffer.write(("\n".join(out) + "\n").encode("utf-8"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
