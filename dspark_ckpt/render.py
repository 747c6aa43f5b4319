"""Every output format, in one place: plain data in, text out.

``to_json_obj`` is the versioned public schema (documented in the README); the
table view is for people. Nothing here decides anything: it only shows a report.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from dspark_ckpt.check import CheckResult, CheckRun
from dspark_ckpt.findings import CODES, ERROR, INFO, WARNING, Code, Finding
from dspark_ckpt.inspect import UNREADABLE, Report
from dspark_ckpt.profiles import PROFILES

INSPECT_SCHEMA = "dspark-ckpt/inspect/v1"
PROFILES_SCHEMA = "dspark-ckpt/profiles/v1"
EXPLAIN_SCHEMA = "dspark-ckpt/explain/v1"
SEVERITY_STYLE = {ERROR: "bold red", WARNING: "yellow", INFO: "cyan"}


def finding_obj(f: Finding) -> dict[str, Any]:
    return {
        "code": f.code,
        "severity": f.severity,
        "title": f.title,
        "message": f.message,
        "tensor": f.tensor,
        "file": f.file,
        "hint": f.fix_hint,
        "profile": f.profile,
    }


def inspect_obj(r: Report) -> dict[str, Any]:
    """The ``dspark-ckpt/inspect/v1`` object. Add fields freely; never rename or drop one."""
    d, t, ck = r.drafter, r.target, r.checkpoint
    return {
        "schema": INSPECT_SCHEMA,
        "profile": r.profile,
        "drafter": {
            "source": r.drafter_source,
            "architectures": list(d.architectures) if d else [],
            "model_type": d.model_type if d else None,
            "vocab_size": d.vocab_size if d else None,
            "draft_vocab_size": d.draft_vocab_size if d else None,
            "draft_vocab_size_defaulted": d.draft_vocab_size_defaulted if d else None,
            "hidden_size": d.hidden_size if d else None,
            "markov_rank": d.markov_rank if d else None,
            "files": len(ck.files) if ck else 0,
            "tensors": len(ck.tensors) if ck else 0,
        },
        "target": {
            "source": t.source if t else None,
            "vocab_size": t.vocab_size if t else None,
            "vocab_key": t.vocab_key if t else None,
            "embedding_rows": t.embedding_rows if t else None,
            "embedding_tensor": t.embedding_tensor if t else None,
        },
        "classification": r.classification,
        "padded_rows": r.padded_rows,
        "expanded_input_vocab": r.expanded_input_vocab,
        "findings": [finding_obj(f) for f in r.findings],
        "verdicts": r.verdicts,
        "ok": r.ok,
        "profiles": r.profiles,
        "family": r.family,
        "checks": r.checks,
    }


class DataConsole(Console):
    """A console for text that comes from files and paths: it prints it as given.

    No Rich markup (``[bold]``) and no emoji codes (``:cat:``) are interpreted, and control
    characters (a tensor name holding ``ESC[2J``) are shown escaped before layout, never sent
    to the terminal; Rich's own styling and cursor control are untouched.
    """

    def __init__(self, file, **options) -> None:
        super().__init__(file=file, markup=False, emoji=False, **options)

    def render_str(self, text: str, **options) -> Text:
        return super().render_str(_printable(text), **options)

    def render(self, renderable, options=None):
        if isinstance(renderable, Text) and _printable(renderable.plain) != renderable.plain:
            shown, start = renderable.blank_copy(), 0
            for i, c in enumerate(renderable.plain):
                if _printable(c) != c:
                    shown.append_text(renderable[start:i])
                    shown.append(one_line(c), renderable.get_style_at_offset(self, i))
                    start = i + 1
            renderable = shown.append_text(renderable[start:])
        return super().render(renderable, options)


def _printable(text: str) -> str:
    """``text`` with every control character but the newline escaped."""
    return "\n".join(map(one_line, text.split("\n")))


def one_line(text: str) -> str:
    """``text`` with control characters (newlines, terminal escapes) shown escaped."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def error_lines(r: Report) -> list[str]:
    """``dspark-ckpt: error: FILE: problem`` for each unreadable input (DSC001), for stderr."""
    return [
        one_line(f"dspark-ckpt: error: {f.file + ': ' if f.file else ''}{f.message}")
        for f in r.findings
        if f.code == UNREADABLE
    ]


def error_obj(schema: str, err) -> dict[str, Any]:
    """The one JSON object of a command that could not read its input (``fix``, ``verify``)."""
    return {"schema": schema, "ok": False, "error": {"file": err.path, "message": err.message}}


def to_json(obj: dict[str, Any]) -> str:
    return json.dumps(obj, indent=2)


def _verdict(ok: bool) -> Text:
    return Text("PASS", style="bold green") if ok else Text("FAIL", style="bold red")


def findings_table(findings: list[Finding], show_profile: bool = False) -> Table:
    table = Table(show_header=True, header_style="bold", expand=False, pad_edge=False)
    table.add_column("severity")
    table.add_column("code")
    table.add_column("tensor / key / file", overflow="fold")
    table.add_column("finding", overflow="fold")
    for f in findings:
        msg = Text(f"[{f.profile}] " if show_profile and f.profile else "")
        msg.append(f.message)
        if f.fix_hint:
            msg.append(f"\nfix: {f.fix_hint}", style="dim")
        table.add_row(
            Text(f.severity, style=SEVERITY_STYLE[f.severity]),
            f.code,
            f.tensor or f.file or "",
            msg,
        )
    return table


def print_inspect(r: Report, console: Console) -> None:
    d, t, ck = r.drafter, r.target, r.checkpoint
    head = Table.grid(padding=(0, 2))
    head.add_column(style="bold")
    head.add_column(overflow="fold")
    about = ""
    if ck:
        about = f"  ({len(ck.files)} file(s), {len(ck.tensors)} tensors"
        about += f", {', '.join(d.architectures)})" if d and d.architectures else ")"
    head.add_row("drafter", r.drafter_source + about)
    if d:
        head.add_row("family", r.family or "unknown (every profile applies)")
    if t:
        et = f", Et {t.embedding_rows} ({t.embedding_tensor})" if t.embedding_rows else ""
        key = f" ({t.vocab_key})" if t.vocab_key else ""
        head.add_row("target", f"{t.source}: Vt {t.vocab_size}{key}{et}")
    if d and r.classification:
        extra = f" (+{r.padded_rows} padded rows)" if r.padded_rows else ""
        defaulted = " (defaulted)" if d.draft_vocab_size_defaulted else ""
        expanded = ", expanded input vocab" if r.expanded_input_vocab else ""
        head.add_row(
            "vocab",
            Text.assemble(
                f"V {d.vocab_size}, Vd {d.draft_vocab_size}{defaulted}, Vt {t.vocab_size} -> ",
                (r.classification, "bold"),
                extra + expanded,
            ),
        )
    verdicts = Text()
    for name, ok in r.verdicts.items():
        verdicts.append(f"{name}: ")
        verdicts.append_text(_verdict(ok))
        verdicts.append("   ")
    head.add_row("verdict", verdicts)
    console.print(head)
    if r.findings:
        console.print(findings_table(r.findings, show_profile=len(r.profiles) > 1))
    else:
        console.print("no findings", style="green")
    if r.checks:
        console.print(checks_matrix(r))
    console.print(inspect_summary(r))


def checks_matrix(r: Report) -> Table:
    """Rows = the checks that found something, columns = runtime profiles."""
    table = Table(show_header=True, header_style="bold", expand=False, pad_edge=False)
    table.add_column("check", overflow="fold")
    for name in r.verdicts:
        table.add_column(name, justify="center", overflow="fold")
    for code, row in r.checks.items():
        cells = [
            Text(row[n], style=SEVERITY_STYLE[row[n]]) if n in row else Text("ok", style="green")
            for n in r.verdicts
        ]
        table.add_row(f"{code} {CODES[code].title}", *cells)
    table.add_row("verdict", *(_verdict(ok) for ok in r.verdicts.values()))
    return table


def profile_obj(name: str) -> dict[str, Any]:
    p = PROFILES[name]
    rules = {k: v for k, v in asdict(p).items() if k not in ("name", "runtime", "family")}
    rules.pop("versions")
    rules.pop("sources")
    return {
        "name": p.name,
        "runtime": p.runtime,
        "family": p.family,
        "versions": p.versions,
        "sources": list(p.sources),
        "rules": rules,
    }


def profiles_obj() -> dict[str, Any]:
    """The ``dspark-ckpt/profiles/v1`` object: every profile with its rules and sources."""
    return {"schema": PROFILES_SCHEMA, "profiles": [profile_obj(n) for n in PROFILES]}


def print_profiles(console: Console) -> None:
    table = Table(show_header=True, header_style="bold", expand=False, pad_edge=False)
    table.add_column("profile", style="bold")
    table.add_column("runtime / family")
    table.add_column("versions and the source files its rules mirror", overflow="fold")
    for name in PROFILES:
        o = profile_obj(name)
        text = Text(o["versions"])
        for src in o["sources"]:
            text.append(f"\n- {src}", style="dim")
        table.add_row(name, f"{o['runtime']} / {o['family']}", text)
    console.print(table)


def explain_obj(code: Code) -> dict[str, Any]:
    """The ``dspark-ckpt/explain/v1`` object for one finding code."""
    return {
        "schema": EXPLAIN_SCHEMA,
        "code": code.code,
        "severity": code.severity,
        "title": code.title,
        "explanation": code.explanation,
        "hint": code.hint,
    }


def print_explain(code: Code, console: Console) -> None:
    console.print(
        Text.assemble(
            (code.code, "bold"),
            " ",
            (code.severity, SEVERITY_STYLE[code.severity]),
            ": ",
            code.title,
        )
    )
    console.print(code.explanation)
    if code.hint:
        console.print(Text.assemble(("fix: ", "bold"), code.hint))


def inspect_summary(r: Report) -> Text:
    """The one-line verdict (all that ``--quiet`` prints)."""
    counts = {s: sum(f.severity == s for f in r.findings) for s in (ERROR, WARNING, INFO)}
    summary = ", ".join(f"{n} {s}(s)" for s, n in counts.items() if n) or "clean"
    failing = [p for p in r.profiles if not r.verdicts.get(p)]
    named = failing if failing else r.profiles  # name the profiles that fail
    passing = [p for p in r.profiles if p not in failing]
    also = f" (passes {', '.join(passing)})" if failing and passing else ""
    return Text.assemble(
        ("deployable" if r.ok else "NOT deployable", "bold green" if r.ok else "bold red"),
        f" under profile{'s' if len(named) > 1 else ''} {', '.join(named)}{also}: {summary}",
    )


# ---------------------------------------------------------------- CI formats
#
# github, junit and sarif report on a list of ``CheckRun`` (check.py): ``inspect``
# gives one, ``check`` one per pair and profile. Any command can reuse them.

SARIF_SCHEMA = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
SARIF_LEVEL = {ERROR: "error", WARNING: "warning", INFO: "note"}
GITHUB_COMMAND = {ERROR: "error", WARNING: "warning", INFO: "notice"}


def _gh_data(s: str) -> str:
    return _printable(s).replace("%", "%25").replace("\n", "%0A")


def _gh_prop(s: str) -> str:
    return _gh_data(s).replace(":", "%3A").replace(",", "%2C")


def _with_hint(f: Finding) -> str:
    """A finding's one-line text for CI formats: which runtime's rule found it (none for a
    check every runtime shares), the message and the hint."""
    text = f"[{f.profile}] {f.message}" if f.profile else f.message
    return f"{text} (fix: {f.fix_hint})" if f.fix_hint else text


def github_lines(runs: list[CheckRun]) -> list[str]:
    """GitHub Actions workflow commands: one annotation per finding, on its file."""
    lines = []
    for run in runs:
        for f in run.findings:
            props = (
                f"file={_gh_prop(_repo_path(f.file))},title={_gh_prop(f.code)}"
                if f.file
                else f"title={_gh_prop(f.code)}"
            )
            lines.append(f"::{GITHUB_COMMAND[f.severity]} {props}::{_gh_data(_with_hint(f))}")
        if run.failure:
            lines.append(
                f"::error title={_gh_prop(run.profile)}::{_gh_data(run.title + ': ' + run.failure)}"
            )
    return list(dict.fromkeys(lines))  # a finding common to several profiles: annotated once


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
            ).text = "\n".join(f"{f.code} {f.file}: {_with_hint(f)}" for f in errs)
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
    return '<?xml version="1.0" encoding="utf-8"?>\n' + _printable(xml) + "\n"  # XML 1.0 has no ESC


def _repo_path(path: str) -> str:
    """A relative path as GitHub reads it: from the repository root. In a GitHub Actions
    job run in a subfolder (the action's working-directory), it is re-rooted at
    ``GITHUB_WORKSPACE``; elsewhere, and for absolute paths and Hub URIs, it is kept."""
    import os

    workspace = os.environ.get("GITHUB_WORKSPACE")
    if not workspace or "://" in path or os.path.isabs(path):
        return path
    return os.path.relpath(os.path.abspath(path), os.path.abspath(workspace))


def _sarif_uri(path: str) -> str:
    """A file as a URI: relative ones stay relative (to the repository), percent-encoded."""
    from pathlib import Path
    from urllib.parse import quote

    if "://" in path:  # a Hub file, hf://org/name@commit/file: already a URI
        return path
    p = Path(_repo_path(path))
    return p.resolve().as_uri() if p.is_absolute() else quote(p.as_posix())


def _sarif_result(f: Finding, run: CheckRun, index: dict[str, int]) -> dict[str, Any]:
    location: dict[str, Any] = {}
    if f.file:
        location["physicalLocation"] = {"artifactLocation": {"uri": _sarif_uri(f.file)}}
    if f.tensor:
        location["logicalLocations"] = [{"name": f.tensor, "kind": "member"}]
    result: dict[str, Any] = {
        "ruleId": f.code,
        "ruleIndex": index[f.code],
        "level": SARIF_LEVEL[f.severity],
        "message": {"text": _with_hint(f)},
        "locations": [location] if location else [],
        "properties": {"check": run.title, "profile": run.profile},
    }
    return result


def sarif_obj(runs: list[CheckRun]) -> dict[str, Any]:
    """SARIF 2.1.0: one rule per finding code, one result per finding (ignored ones suppressed)."""
    from dspark_ckpt import __version__
    from dspark_ckpt.findings import CODES

    index = {code: i for i, code in enumerate(CODES)}
    rules = [
        {
            "id": c.code,
            "shortDescription": {"text": c.title},
            "fullDescription": {"text": c.explanation},
            **({"help": {"text": c.hint}} if c.hint else {}),
            "defaultConfiguration": {"level": SARIF_LEVEL[c.severity]},
        }
        for c in CODES.values()
    ]
    results: dict[str, dict[str, Any]] = {}  # a finding common to several profiles: once
    notes = []
    for run in runs:
        found = [(_sarif_result(f, run, index), None) for f in run.findings]
        found += [(_sarif_result(f, run, index), why) for f, why in run.ignored]
        for res, why in found:
            if why is not None:
                res["suppressions"] = [{"kind": "external", "justification": why}]
            same = {k: v for k, v in res.items() if k != "properties"}
            key = json.dumps([run.name, same], sort_keys=True)
            if key in results:
                results[key]["properties"]["profiles"].append(run.profile)
            else:
                res["properties"]["profiles"] = [run.profile]
                results[key] = res
        if run.failure:
            notes.append({"level": "error", "message": {"text": f"{run.title}: {run.failure}"}})
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": {"name": "dspark-ckpt", "version": __version__, "rules": rules}},
                "invocations": [
                    {
                        "executionSuccessful": True,
                        "toolExecutionNotifications": notes,
                    }
                ],
                "results": list(results.values()),
            }
        ],
    }


def ci_text(fmt: str, runs: list[CheckRun]) -> str:
    """The text of a CI format (github, junit, sarif) for ``runs``."""
    if fmt == "github":
        return "".join(line + "\n" for line in github_lines(runs))
    if fmt == "junit":
        return junit_xml(runs)
    if fmt == "sarif":
        return to_json(sarif_obj(runs)) + "\n"
    raise ValueError(f"not a CI format: {fmt}")


# --------------------------------------------------------------------- check

CHECK_SCHEMA = "dspark-ckpt/check/v1"


def check_obj(result: CheckResult) -> dict[str, Any]:
    """The ``dspark-ckpt/check/v1`` object. Add fields freely; never rename or drop one."""
    return {
        "schema": CHECK_SCHEMA,
        "config": str(result.config_path),
        "runs": [
            {
                "name": run.name,
                "profile": run.profile,
                "ok": run.ok,
                "drafter": run.report.drafter_source if run.report else None,
                "target": run.report.target.source if run.report and run.report.target else None,
                "classification": run.report.classification if run.report else None,
                "findings": [finding_obj(f) for f in run.findings],
                "ignored": [{**finding_obj(f), "reason": why} for f, why in run.ignored],
                "failure": run.failure,
            }
            for run in result.runs
        ],
        "ok": result.ok,
    }


def check_summary(result: CheckResult) -> Text:
    failed = sum(not r.ok for r in result.runs)
    n = len(result.runs)
    if failed:
        return Text(f"{failed} of {n} check run(s) failed", style="bold red")
    return Text(f"all {n} check run(s) passed", style="bold green")


def check_error_lines(result: CheckResult) -> list[str]:
    """``error_lines`` of every run, each once (a pair unreadable under many profiles)."""
    return list(
        dict.fromkeys(line for r in result.runs if r.report for line in error_lines(r.report))
    )


def _detail(f: Finding) -> str:
    """A finding in the check table's detail column: its code, with the problem when an
    input is unreadable (nothing else says why the run failed)."""
    return f"{f.code} {f.file}: {f.message}" if f.code == UNREADABLE else f.code


def print_check(result: CheckResult, console: Console) -> None:
    """One summary table: a row per pair and profile."""
    table = Table(show_header=True, header_style="bold", expand=False, pad_edge=False)
    for col in ("pair", "profile", "result", "class", "errors", "warnings", "ignored"):
        table.add_column(col, overflow="fold")
    table.add_column("detail", overflow="fold")
    for run in result.runs:
        warnings = [f for f in run.findings if f.severity == WARNING]
        detail = run.failure or ", ".join(dict.fromkeys(map(_detail, run.errors + warnings)))
        table.add_row(
            run.name,
            run.profile,
            _verdict(run.ok),
            (run.report.classification or "") if run.report else "",
            str(len(run.errors)),
            str(len(warnings)),
            str(len(run.ignored)),
            detail,
        )
    console.print(table)
    console.print(check_summary(result))


# --- verify ---------------------------------------------------------------------------

VERIFY_SCHEMA = "dspark-ckpt/verify/v1"


def verify_obj(r) -> dict[str, Any]:
    """The ``dspark-ckpt/verify/v1`` object. Add fields freely; never rename or drop one."""
    t, d = r.target, r.drafter
    sampled_time = r.timings_s["logits"] + r.timings_s["sampling"]
    return {
        "schema": VERIFY_SCHEMA,
        "drafter": {
            "source": r.drafter_source,
            "vocab_size": d.vocab_size,
            "draft_vocab_size": d.draft_vocab_size,
            "hidden_size": d.hidden_size,
        },
        "target": {
            "source": t.source,
            "vocab_size": t.vocab_size,
            "embedding_rows": t.embedding_rows,
        },
        "classification": r.classification,
        "head": {"source": r.head_source, "shape": list(r.head_shape), "bytes": r.head_bytes},
        "device": r.device,
        "dtype": r.dtype,
        "compute_dtype": r.compute_dtype,
        "tokens": r.tokens,
        "random_tokens": r.random_tokens,
        "adversarial_tokens": r.adversarial_tokens,
        "seed": r.seed,
        "topk": r.topk,
        "markov": r.markov,
        "d2t": r.d2t,
        "mask": {
            "source": r.mask_source,
            "masked_rows": r.masked_rows,
            "hidden_tokens": r.hidden_tokens,
            "leaked_rows": r.leaked_rows,
        },
        "illegal_rows": r.illegal_rows,
        "modes": {
            name: {
                "unmasked_illegal": m.unmasked_illegal,
                "masked_illegal": m.masked_illegal,
                "unmasked_out_of_bounds": m.unmasked_out_of_bounds,
                "masked_out_of_bounds": m.masked_out_of_bounds,
                "sampled": m.sampled,
            }
            for name, m in r.modes.items()
        },
        "timings_s": dict(r.timings_s),
        "tokens_per_s": r.tokens / sampled_time if sampled_time > 0 else None,
        "bandwidth_gbs": r.bandwidth_gbs,
        "peak_memory_bytes": r.peak_memory_bytes,
        "peak_memory_kind": r.peak_memory_kind,
        "notes": list(r.notes),
        "ok": r.ok,
    }


def _count(n: int | None) -> Text:
    if n is None:
        return Text("-", style="dim")
    return Text(str(n), style="bold red" if n else "green")


def verify_summary(r) -> Text:
    """The verdict line (all that ``verify -q`` prints in the table format)."""
    risk = sum(m.unmasked_illegal for m in r.modes.values())
    why = "; ".join(r.problems) or "with the mask no sampled id leaves [0, Vt)"
    unmasked = f"without the mask {risk} sampled id(s) left it" if risk else "none left it unmasked"
    return Text.assemble(_verdict(r.ok), ": ", why, "; ", unmasked)


def print_verify(r, console: Console) -> None:
    t, d = r.target, r.drafter
    head = Table.grid(padding=(0, 2))
    head.add_column(style="bold")
    head.add_column(overflow="fold")
    et = f", Et {t.embedding_rows}" if t.embedding_rows else ""
    head.add_row("drafter", r.drafter_source)
    head.add_row("target", f"{t.source}: Vt {t.vocab_size}{et}")
    head.add_row(
        "vocab",
        f"V {d.vocab_size}, Vd {d.draft_vocab_size} -> {r.classification}; "
        f"{r.illegal_rows} row(s) map outside [0, {t.vocab_size})",
    )
    head.add_row(
        "head",
        f"lm_head {list(r.head_shape)} {r.dtype} from the {r.head_source}, computed in "
        f"{r.compute_dtype} on {r.device}; markov bias {'on' if r.markov else 'off'}; "
        f"d2t {'applied' if r.d2t else 'none (identity)'}",
    )
    hidden = (
        f"; it also hides {r.hidden_tokens} real token(s) (a mask for another checkpoint?)"
        if r.hidden_tokens
        else ""
    )
    leaked = (
        f"; it lets {r.leaked_rows} illegal row(s) through (those rows can be sampled)"
        if r.leaked_rows
        else ""
    )
    head.add_row("mask", f"{r.mask_source}: {r.masked_rows} row(s) set to -inf{leaked}{hidden}")
    head.add_row(
        "tokens",
        f"{r.tokens} ({r.random_tokens} random, {r.adversarial_tokens} aimed at illegal rows), "
        f"seed {r.seed}, top-k {r.topk}",
    )
    ts = r.timings_s
    bw = f", {r.bandwidth_gbs:.3g} GB/s over the head" if r.bandwidth_gbs else ""
    head.add_row(
        "time",
        f"load {ts['load']:.3f}s, logits {ts['logits']:.3f}s, sampling {ts['sampling']:.3f}s"
        f"{bw}; peak memory {r.peak_memory_bytes / 2**20:.0f} MiB ({r.peak_memory_kind})",
    )
    for note in r.notes:
        head.add_row("note", note)
    console.print(head)
    table = Table(show_header=True, header_style="bold", expand=False, pad_edge=False)
    for col in (
        "mode",
        "sampled",
        "illegal (no mask)",
        "out of bounds (no mask)",
        "illegal (mask)",
    ):
        table.add_column(col, justify="left" if col == "mode" else "right")
    for name, m in r.modes.items():
        table.add_row(
            name,
            str(m.sampled),
            _count(m.unmasked_illegal),
            _count(m.unmasked_out_of_bounds),
            _count(m.masked_illegal),
        )
    console.print(table)
    console.print(verify_summary(r))
    console.print(VERIFY_PROVES["computed" if r.mask_source == "computed" else "file"], style="dim")


# what a verify run proves, by where its mask came from (README, `verify`)
VERIFY_PROVES = {
    "computed": "The mask applied is the one computed from Vt and d2t (what fix --emit-mask "
    "writes): this run shows that its semantics hold on real logits, and how often the "
    "unmasked head samples ids outside the target vocab (the risk the mask removes). It "
    "does not check a shipped mask file: give --mask FILE for that.",
    "file": "The mask applied is the --mask file: this run checks that the shipped file "
    "removes every id outside the target vocab on real logits.",
}


# --- fix ---------------------------------------------------------------------------

FIX_SCHEMA = "dspark-ckpt/fix/v1"


def fix_obj(r) -> dict[str, Any]:
    """The ``dspark-ckpt/fix/v1`` object (``r``: a ``fix.FixResult``). Add fields freely;
    never rename or drop one."""
    p, req = r.plan, r.request
    return {
        "schema": FIX_SCHEMA,
        "profile": req.profile,
        "drafter": r.before.drafter_source,
        "mode": req.mode,
        "classification": p.classification,
        "draft_vocab_size": p.vd,
        "target_vocab_size": p.vt,
        "mask": None
        if p.mask is None
        else {
            "style": req.mask_style,
            "masked_rows": p.masked_rows,
            "masking_needed": p.masked_rows > 0,
        },
        "d2t_origin": p.d2t_origin,
        "written": [
            {
                "path": w.path,
                "tensor": w.tensor,
                "dtype": w.dtype,
                "shape": w.shape,
                "sha256": w.sha256,
            }
            for w in r.written
        ],
        "files": r.files,
        "notes": r.notes,
        "verdicts_before": r.before.verdicts,
        "verdicts_after": r.after.verdicts,
        "findings_after": [finding_obj(f) for f in r.after.findings],
        "ok": r.ok,
    }


def print_fix(r, console: Console) -> None:
    head = Table.grid(padding=(0, 2))
    head.add_column(style="bold")
    head.add_column(overflow="fold")
    p = r.plan
    head.add_row("drafter", f"{r.before.drafter_source} ({r.request.mode})")
    head.add_row("vocab", Text.assemble(f"Vd {p.vd}, Vt {p.vt} -> ", (p.classification, "bold")))
    for w in r.written:
        head.add_row(
            "wrote", f"{w.path}: {w.tensor} {w.dtype} {w.shape}  sha256 {w.sha256[:16]}..."
        )
    for name, ok in r.after.verdicts.items():
        line = Text(f"{name}: ")
        before = r.before.verdicts.get(name)  # not evaluated before: none to show
        line.append_text(Text("n/a") if before is None else _verdict(before))
        line.append(" -> ")
        line.append_text(_verdict(ok))
        head.add_row("verdict", line)
    for note in r.notes:
        head.add_row("note", note)
    console.print(head)
    if r.after.findings:
        console.print(findings_table(r.after.findings))
    console.print(
        Text.assemble(
            ("deployable" if r.ok else "NOT deployable", "bold green" if r.ok else "bold red"),
            f" after fix under profile {r.request.profile}",
        )
    )
