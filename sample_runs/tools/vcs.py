"""A git-like status/diff/log for the sample runs: fixed, realistic output per argv.

Usage: vcs.py status | vcs.py diff [--stat] | vcs.py log [-n N]
"""

import sys

STATUS = """On branch fix/proration-rounding
Your branch is up to date with 'origin/fix/proration-rounding'.

Changes not staged for commit:
  (use "git add <file>..." to update what will be committed)
  (use "git restore <file>..." to discard changes in working directory)
\tmodified:   src/billing/clock.py
\tmodified:   src/billing/proration.py

Untracked files:
  (use "git add <file>..." to include in what will be committed)
\tnotes/incident-4412.md

no changes added to commit (use "git add" and/or "git commit -a")
"""

DIFF = """diff --git a/src/billing/clock.py b/src/billing/clock.py
index 3c1d2e0..8a7f9b1 100644
--- a/src/billing/clock.py
+++ b/src/billing/clock.py
@@ -38,7 +38,7 @@ def now() -> datetime:
     \"\"\"Current time as a naive UTC datetime (legacy callers compare naive values).\"\"\"
     if _frozen is not None:
         return _frozen
-    return datetime.utcnow().replace(tzinfo=None)
+    return datetime.now(timezone.utc).replace(tzinfo=None)
 
 
 def period_days(start: date, end: date) -> int:
"""

DIFF_STAT = """ src/billing/clock.py | 2 +-
 1 file changed, 1 insertion(+), 1 deletion(-)
"""

AUTHORS = ["Ana Sousa", "Jonas Müller", "Priya Raman", "agent-bot"]
SUBJECTS = ["proration: compute days in customer timezone", "ledger: post fx difference lines",
            "dunning: skip weekends in retry schedule", "invoices: render tax id on pdf",
            "webhooks: verify signature before parsing", "deps: bump httpx to 0.27",
            "tests: freeze clock in subscription tests", "refunds: move to next open period",
            "usage: reset counters on renewal", "ci: cache wheels between jobs"]


def log(n: int) -> str:
    lines = []
    for i in range(n):
        sha = format((0x9E3779B97F4A7C15 * (i + 7)) & 0xFFFFFFFFFF, "010x")[:7]
        day = 30 - (i // 3) % 30
        lines.append(f"{sha} 2026-10-{day:02d} {AUTHORS[i % 4]:<12} {SUBJECTS[(i * 7) % 10]}")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    cmd = argv[0] if argv else "status"
    if cmd == "status":
        text = STATUS
    elif cmd == "diff":
        text = DIFF_STAT if "--stat" in argv else DIFF
    elif cmd == "log":
        text = log(int(argv[argv.index("-n") + 1]) if "-n" in argv else 20)
    else:
        sys.stderr.write(f"vcs: '{cmd}' is not a vcs command. See 'vcs --help'.\n")
        return 1
    sys.stdout.buffer.write(text.encode("utf-8"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
