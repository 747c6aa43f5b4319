"""Every output format, in one place: plain data in, text out.

``to_json_obj`` is the versioned public schema (documented in the README); the
table view is for people. Nothing here decides anything: it only shows a report.
"""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from dspark_ckpt.findings import ERROR, INFO, WARNING, Finding
from dspark_ckpt.inspect import UNREADABLE, Report

INSPECT_SCHEMA = "dspark-ckpt/inspect/v1"
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
    }


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


def to_json(obj: dict[str, Any]) -> str:
    return json.dumps(obj, indent=2)


def _verdict(ok: bool) -> Text:
    return Text("PASS", style="bold green") if ok else Text("FAIL", style="bold red")


def findings_table(findings: list[Finding]) -> Table:
    table = Table(show_header=True, header_style="bold", expand=False, pad_edge=False)
    table.add_column("severity")
    table.add_column("code")
    table.add_column("tensor / key")
    table.add_column("finding", overflow="fold")
    for f in findings:
        msg = Text(f.message)
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
        console.print(findings_table(r.findings))
    else:
        console.print("no findings", style="green")
    counts = {s: sum(f.severity == s for f in r.findings) for s in (ERROR, WARNING, INFO)}
    summary = ", ".join(f"{n} {s}(s)" for s, n in counts.items() if n) or "clean"
    console.print(
        Text.assemble(
            ("deployable" if r.ok else "NOT deployable", "bold green" if r.ok else "bold red"),
            f" under profile {r.profile}: {summary}",
        )
    )
