"""JUnit XML: one test case per check run (commands/runs.py), a failure for its errors."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dspark_ckpt.output.text import finding_text, printable
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
    for run in runs:
        case = ET.SubElement(ts, "testcase", classname=f"{suite}.{run.name}", name=run.profile)
        if run.report is not None:
            case.set("file", run.report.drafter_source)
        if run.failure:
            ET.SubElement(case, "failure", type=run.profile, message=run.failure).text = run.failure
        elif run.errors:
            errs = run.errors
            ET.SubElement(
                case,
                "failure",
                type=errs[0].code,
                message=f"{len(errs)} error(s): {', '.join(f.code for f in errs)}",
            ).text = "\n".join(f"{f.code} {f.file}: {finding_text(f)}" for f in errs)
        rest = [
            f"{f.severity} {f.code} {f.file}: {f.message}"
            for f in run.findings
            if f.severity != ERROR
        ]
        rest += [
            f"ignored {f.code} {f.file}: {f.message} (reason: {why})" for f, why in run.ignored
        ]
        if rest:
            ET.SubElement(case, "system-out").text = "\n".join(rest)
    ET.indent(root)
    xml = ET.tostring(root, encoding="unicode")
    return '<?xml version="1.0" encoding="utf-8"?>\n' + printable(xml) + "\n"  # XML 1.0 has no ESC


def text(runs: list[CheckRun]) -> str:
    return junit_xml(runs)
