"""Write the finding codes of docs/findings.md and the repairs of docs/fix.md from the
rule registry.

    python tools/findings_table.py          # rewrite the generated parts of the pages
    python tools/findings_table.py --check  # exit 1 if a page is not what it gives

The parts between the markers are generated: in findings.md the table of codes (code,
severity, title) and, for each code, its explanation, severity, default hint and repair,
as ``dspark-ckpt explain`` prints them; in fix.md the table of repairs (each with its
safety, the codes it repairs and what it does), then the format conversions of
``fix --to`` (dspark_ckpt/commands/formats.py). Edit a code or a repair where it is
registered (dspark_ckpt/rules/), or a conversion's docstring, then run this.
"""

from __future__ import annotations

import sys
from pathlib import Path

from dspark_ckpt.rules.codes import CODES
from dspark_ckpt.rules.registry import RULES

DOCS = Path(__file__).resolve().parent.parent / "docs"
PAGE = DOCS / "findings.md"
BEGIN = "<!-- begin codes: generated from the rule registry by tools/findings_table.py -->"
END = "<!-- end codes -->"
FIX_PAGE = DOCS / "fix.md"
FIX_BEGIN = "<!-- begin repairs: generated from the rule registry by tools/findings_table.py -->"
FIX_END = "<!-- end repairs -->"


def repairs() -> dict[str, tuple]:
    """Each repair by name: the repair and the codes it answers, in code order."""
    out: dict[str, tuple] = {}
    for code, rule in sorted(RULES.items()):
        if rule.repair is not None:
            out.setdefault(rule.repair.name, (rule.repair, []))[1].append(code)
    return out


def generated_repairs() -> str:
    """The repairs, then the conversions ``fix --to`` asks for (commands/formats.py)."""
    from dspark_ckpt.commands.formats import CONVERSIONS

    lines = [FIX_BEGIN, "", "| repair | safety | codes | what it does |", "|---|---|---|---|"]
    for name, (r, codes) in repairs().items():
        shown = ", ".join(f"`{c}`" for c in codes)
        lines.append(f"| `{name}` | {r.safety} | {shown} | {r.doc} |")
    for name, convert in CONVERSIONS.items():
        doc = " ".join((convert.__doc__ or "").split())
        lines.append(f"| `--to {name}` | conversion | (asked) | {doc} |")
    return "\n".join([*lines, "", FIX_END])


def generated() -> str:
    """The generated part of the page, markers included."""
    lines = [BEGIN, "", "| code | severity | title |", "|---|---|---|"]
    lines += [f"| `{c.code}` | {c.severity} | {c.title} |" for c in CODES.values()]
    for c in CODES.values():
        fix = f" Fix: {c.hint}." if c.hint else ""
        r = RULES[c.code].repair
        repair = f" Repair: `{r.name}` ({r.safety}, [fix.md](fix.md#repairs))." if r else ""
        lines += [
            "",
            f"### {c.code}: {c.title}",
            "",
            c.explanation,
            "",
            f"Severity: {c.severity}.{fix}{repair}",
        ]
    return "\n".join([*lines, "", END])


def page(text: str, begin_marker=BEGIN, end_marker=END, make=generated) -> str:
    """``text`` (the page) with its generated part as the registry gives it."""
    head, begin, rest = text.partition(begin_marker)
    _, end, tail = rest.partition(end_marker)
    if not (begin and end):
        raise SystemExit(f"no {begin_marker!r} ... {end_marker!r} markers")
    return head + make() + tail


def fix_page(text: str) -> str:
    return page(text, FIX_BEGIN, FIX_END, generated_repairs)


def main(argv: list[str]) -> int:
    status = 0
    for path, make in ((PAGE, page), (FIX_PAGE, fix_page)):
        text = path.read_text(encoding="utf-8")
        want = make(text)
        if "--check" in argv:
            if want != text:
                print(f"{path} differs from the registry: run python tools/findings_table.py")
                status = 1
            continue
        path.write_text(want, encoding="utf-8")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
