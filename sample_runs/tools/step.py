"""One step of a CI-like session (test, build, lint or typecheck a target): a parametrised tool.

Output and exit status are a pure function of the argv, so any recorded step can be re-run and
its hashes compared. Some targets are flaky: they pass only with enough ``--reruns``.
Usage: step.py {test,build,lint,typecheck} TARGET [--reruns N]
"""

import hashlib
import sys


def knob(*parts: str) -> int:
    """A stable pseudo-random number from the parts (no dependence on PYTHONHASHSEED)."""
    return int.from_bytes(hashlib.sha256(":".join(parts).encode()).digest()[:4], "big")


def test(target: str, reruns: int) -> tuple[list[str], list[str], int]:
    n = 300 if target == "integration" else 6 + knob("n", target) % 60
    needed = knob("flaky", target) % 3 if knob("f", target) % 3 == 0 else 0
    bad = knob("bad", target) % n if reruns < needed else -1
    out = [f"collected {n} items", ""]
    for i in range(n):
        name = f"tests/{target}/test_{target.replace('-', '_')}_{i // 8:02d}.py::test_case_{i:03d}"
        out.append(f"{name} {'FAILED' if i == bad else 'PASSED'}")
    if bad >= 0:
        out += ["", "=" * 30 + " FAILURES " + "=" * 30, f"E   TimeoutError: {target} fixture "
                f"did not become ready within 5.0s (attempt {reruns + 1})"]
    summary = f"{1 if bad >= 0 else 0} failed, {n - (bad >= 0)} passed"
    out.append(f"{'=' * 10} {summary}, {reruns} reruns in {knob('t', target) % 90 / 10 + 1:.1f}s")
    return out, [], 1 if bad >= 0 else 0


def build(target: str) -> tuple[list[str], list[str], int]:
    n = 40 + knob("b", target) % 160
    out = [f"[{i + 1:>3}/{n}] Compiling {target}/src/unit_{i:03d}.c" for i in range(n)]
    broken = knob("broken", target) % 5 == 0
    if broken:
        err = [f"{target}/src/unit_{n - 1:03d}.c:88:5: error: implicit declaration of function "
               "'ledger_post_fx'", "make: *** [Makefile:41: all] Error 1"]
        return out, err, 2
    out.append(f"Linking {target} ... done ({n} objects)")
    return out, [], 0


def lint(target: str) -> tuple[list[str], list[str], int]:
    issues = max(0, knob("l", target) % 6 - 3)
    out = [f"src/{target}/module_{i}.py:{10 + i}:1: F401 `os` imported but unused"
           for i in range(issues)]
    out.append(f"Found {issues} errors." if issues else "All checks passed!")
    return out, [], 1 if issues else 0


def typecheck(target: str) -> tuple[list[str], list[str], int]:
    files = 10 + knob("tc", target) % 50
    return [f"Success: no issues found in {files} source files"], [], 0


def main(argv: list[str]) -> int:
    if len(argv) < 2 or argv[0] not in ("test", "build", "lint", "typecheck"):
        sys.stderr.write("usage: step.py {test,build,lint,typecheck} TARGET [--reruns N]\n")
        return 2
    task, target = argv[0], argv[1]
    reruns = int(argv[argv.index("--reruns") + 1]) if "--reruns" in argv else 0
    if task == "test":
        out, err, rc = test(target, reruns)
    else:
        out, err, rc = {"build": build, "lint": lint, "typecheck": typecheck}[task](target)
    sys.stdout.buffer.write(("\n".join(out) + "\n").encode("utf-8"))
    if err:
        sys.stderr.buffer.write(("\n".join(err) + "\n").encode("utf-8"))
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
