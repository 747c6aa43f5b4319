"""JUnit XML: one test case per check run (commands/runs.py), a failure for its errors
and for a partial verdict the gate does not allow; a partial verdict it allows (or
``inspect``'s) is said in ``system-out``, with the checks not made and why.

Each value is escaped and bounded as ``output/text.py`` shows it on one line (XML 1.0
cannot hold an ESC; a value is at most ``MAX_LINE`` characters) before the document is
built: the document itself is never cut.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dspark_ckpt.output.text import finding_text, one_line, partial_line
from dspark_ckpt.rules.findings import ERROR

if TYPE_CHECKING:
    from dspark_ckpt.commands.runs import CheckRun


def junit_xml(runs: list[CheckRun], suite: str = "dspark-ckpt") -> str:
    """JUnit XML: one test case per check run, a failure for its errors."""
    import xml.etree.ElementTree as ET

    failed = sum(not r.ok for r in runs)
    root = ET.Element(
        "testsuites", name=suite, tests=str(len(runs)), failures=str(failed), errors="0"
    )
    ts = ET.SubElement(
        root,
        "testsuite",
        name=suite,
        tests=str(len(runs)),
        failures=str(failed),
        errors="0",
        skipped="0",
    )
    v = one_line  # every value, attribute or a line of text, as the table shows it
    for run in runs:
        case = ET.SubElement(
            ts, "testcase", classname=v(f"{suite}.{run.name}"), name=v(run.profile)
        )
        if run.report is not None:
            case.set("file", v(run.report.drafter_source))
        partial = partial_line(run)
        if run.failure:
            failure = v(run.failure)
            ET.SubElement(case, "failure", type=v(run.profile), message=failure).text = failure
        elif run.errors or run.partial_fails:
            errs = run.errors
            said = [f"{len(errs)} error(s): {', '.join(f.code for f in errs)}"] if errs else []
            said += [run.partial_text] if run.partial_fails else []
            lines = [v(f"{f.code} {f.file}: {finding_text(f)}") for f in errs]
            lines += [v(partial)] if run.partial_fails else []
            ET.SubElement(
                case,
                "failure",
                type=errs[0].code if errs else "partial",
                message="; ".join(said),
            ).text = "\n".join(lines)
        rest = [
            f"{f.severity} {f.code} {f.file}: {f.message}"
            for f in run.findings
            if f.severity != ERROR
        ]
        rest += [
            f"ignored {f.code} {f.file}: {f.message} (reason: {why})" for f, why in run.ignored
        ]
        rest += [partial] if partial is not None and not run.partial_fails else []
        if rest:
            ET.SubElement(case, "system-out").text = "\n".join(map(v, rest))
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def text(runs: list[CheckRun]) -> str:
    return junit_xml(runs)
