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

from dspark_ckpt.findings import CODES, ERROR, INFO, WARNING, Code, Finding
from dspark_ckpt.inspect import Report
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


def to_json(obj: dict[str, Any]) -> str:
    return json.dumps(obj, indent=2)


def _verdict(ok: bool) -> Text:
    return Text("PASS", style="bold green") if ok else Text("FAIL", style="bold red")


def findings_table(findings: list[Finding], show_profile: bool = False) -> Table:
    table = Table(show_header=True, header_style="bold", expand=False, pad_edge=False)
    table.add_column("severity")
    table.add_column("code")
    table.add_column("tensor / key")
    table.add_column("finding", overflow="fold")
    for f in findings:
        msg = Text(f"[{f.profile}] " if show_profile and f.profile else "")
        msg.append(f.message)
        if f.fix_hint:
            msg.append(f"\nfix: {f.fix_hint}", style="dim")
        table.add_row(
            Text(f.severity, style=SEVERITY_STYLE[f.severity]), f.code, f.tensor or "", msg
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
    counts = {s: sum(f.severity == s for f in r.findings) for s in (ERROR, WARNING, INFO)}
    summary = ", ".join(f"{n} {s}(s)" for s, n in counts.items() if n) or "clean"
    console.print(
        Text.assemble(
            ("deployable" if r.ok else "NOT deployable", "bold green" if r.ok else "bold red"),
            f" under profile{'s' if len(r.profiles) > 1 else ''} {', '.join(r.profiles)}: "
            f"{summary}",
        )
    )


def checks_matrix(r: Report) -> Table:
    """Rows = the checks that found something, columns = runtime profiles."""
    table = Table(show_header=True, header_style="bold", expand=False, pad_edge=False)
    table.add_column("check")
    for name in r.verdicts:
        table.add_column(name, justify="center")
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
