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
from dspark_ckpt.inspect import Report

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
        "mask": {"source": r.mask_source, "masked_rows": r.masked_rows},
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
    head.add_row("mask", f"{r.mask_source}: {r.masked_rows} row(s) set to -inf")
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
    risk = sum(m.unmasked_illegal for m in r.modes.values())
    console.print(
        Text.assemble(
            _verdict(r.ok),
            ": with the mask no sampled id leaves [0, Vt)"
            if r.ok
            else ": with the mask, sampled ids still leave [0, Vt)",
            f"; without it {risk} did" if risk else "; none did without it either",
        )
    )
