"""Write the README's example output from what ``inspect`` prints at 80 columns.

    python tools/readme_example.py          # rewrite the example block of README.md
    python tools/readme_example.py --check  # exit 1 if the README is not what it gives

The block follows the line ``$ dspark-ckpt inspect fixtures/padded --target
fixtures/targets/small`` and ends at the closing fence; ``tests/cli/test_docs.py`` holds the
README to it. A new release of a DSpark loader adds a verdict to that output: run this.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
COMMAND = "$ dspark-ckpt inspect fixtures/padded --target fixtures/targets/small\n"


def example() -> str:
    """What the README's command prints at 80 columns, each line right-stripped."""
    env = {**os.environ, "COLUMNS": "80", "NO_COLOR": "1", "PYTHONPATH": str(ROOT)}
    argv = [sys.executable, "-m", "dspark_ckpt", *COMMAND.split()[2:]]
    out = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True).stdout
    return "".join(line.rstrip() + "\n" for line in out.splitlines())


def main(argv: list[str]) -> int:
    text = README.read_text(encoding="utf-8")
    head, rest = text.split(COMMAND, 1)
    shown, tail = rest.split("```", 1)
    new = head + COMMAND + example() + "```" + tail
    if "--check" in argv:
        return 0 if new == text else 1
    README.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
