"""Write the finding codes of docs/findings.md from the rule registry.

    python tools/findings_table.py          # rewrite the generated part of the page
    python tools/findings_table.py --check  # exit 1 if the page is not what it gives

The part between the two markers is generated: the table of codes (code, severity,
title) and, for each code, its explanation, severity and default hint, as
``dspark-ckpt explain`` prints them. Edit a code where it is registered (dspark_ckpt/rules/), then run this.
"""

from __future__ import annotations

import sys
from pathlib import Path

from dspark_ckpt.rules.codes import CODES

PAGE = Path(__file__).resolve().parent.parent / "docs" / "findings.md"
BEGIN = "<!-- begin codes: generated from the rule registry by tools/findings_table.py -->"
END = "<!-- end codes -->"


def generated() -> str:
    """The generated part of the page, markers included."""
    lines = [BEGIN, "", "| code | severity | title |", "|---|---|---|"]
    lines += [f"| `{c.code}` | {c.severity} | {c.title} |" for c in CODES.values()]
    for c in CODES.values():
        fix = f" Fix: {c.hint}." if c.hint else ""
        lines += [
            "",
            f"### {c.code}: {c.title}",
            "",
            c.explanation,
            "",
            f"Severity: {c.severity}.{fix}",
        ]
    return "\n".join([*lines, "", END])


def page(text: str) -> str:
    """``text`` (the page) with its generated part as the registry gives it."""
    head, begin, rest = text.partition(BEGIN)
    _, end, tail = rest.partition(END)
    if not (begin and end):
        raise SystemExit(f"{PAGE}: no {BEGIN!r} ... {END!r} markers")
    return head + generated() + tail


def main(argv: list[str]) -> int:
    text = PAGE.read_text(encoding="utf-8")
    want = page(text)
    if "--check" in argv:
        if want != text:
            print(f"{PAGE} differs from the registry: run python tools/findings_table.py")
            return 1
        return 0
    PAGE.write_text(want, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
