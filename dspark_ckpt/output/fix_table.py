"""The table format of ``fix`` (its plan, its repairs) and ``verify``: on the console and
with the tables of ``table.py``. Nothing here decides anything: it only shows a result.
"""

from __future__ import annotations

import json
import os

from rich.console import Console
from rich.table import Table
from rich.text import Text

from dspark_ckpt.output.summary import (  # noqa: F401 - the one-line verdicts, also -q's
    fix_summary,
    repair_summary,
    verify_summary,
)
from dspark_ckpt.output.table import SEVERITY_STYLE, boxed_table, findings_table, verdict_text


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
    table = boxed_table()
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


def print_fix(r, console: Console) -> None:
    head = Table.grid(padding=(0, 2))
    head.add_column(style="bold")
    head.add_column(overflow="fold")
    p = r.plan
    head.add_row("drafter", f"{r.before.drafter_source} ({r.request.mode})")
    head.add_row("vocab", Text.assemble(f"Vd {p.vd}, Vt {p.vt} -> ", (p.classification, "bold")))
    for w in r.written:  # the full path: a side file lands in the current folder
        where = os.path.abspath(w.path)
        head.add_row("wrote", f"{where}: {w.tensor} {w.dtype} {w.shape}  sha256 {w.sha256[:16]}...")
    _verdicts_and_notes(r, head)
    console.print(head)
    if r.after.findings:
        console.print(findings_table(r.after.findings, width=console.width))
    console.print(fix_summary(r))


def _verdicts_and_notes(r, head: Table) -> None:
    """A fix's verdicts before -> after, per profile, and its notes."""
    for name, ok in r.after.verdicts.items():
        line = Text(f"{name}: ")
        before = r.before.verdicts.get(name)  # not evaluated before: none to show
        line.append_text(Text("n/a") if before is None else verdict_text(before))
        line.append(" -> ")
        line.append_text(verdict_text(ok))
        head.add_row("verdict", line)
    for note in r.notes:
        head.add_row("note", note)


def _shape(t) -> str:
    return f"{t[0]} {list(t[1])} ({t[2]})"


def plan_lines(p) -> list[Text]:
    """A repair plan as a diff: config keys and tensors before (-) and after (+)."""
    lines = []
    for c in p.config:
        if not c.added:
            lines.append(Text(f"- config.json {c.key}: {json.dumps(c.before)}", style="red"))
        if not c.removed:
            lines.append(Text(f"+ config.json {c.key}: {json.dumps(c.after)}", style="green"))
    for t in p.tensors:
        if t.values is not None:
            lines += _value_lines(t)
            continue
        if t.before is not None:
            lines.append(Text(f"- {t.renamed_from or t.name} {_shape(t.before)}", style="red"))
        if t.after is not None:
            lines.append(Text(f"+ {t.name} {_shape(t.after)}", style="green"))
    return lines


def _value_lines(t) -> list[Text]:
    """A replaced tensor whose shape stays: one ``~`` line, then its first differences and
    its range before -> after (its dtype and shape alone would say nothing to review)."""
    v, (dtype, shape, file) = t.values, t.after
    was = f"{t.before[0]} -> " if t.before[0] != dtype else ""
    head = (
        f"~ {t.name} {was}{dtype} {list(shape)} ({file}): {v.changed} of {v.total} entries changed"
    )
    lines = [Text(head, style="yellow")]
    for index, a, b in v.first:
        lines.append(Text(f"    {t.name}[{', '.join(map(str, index))}]: {a} -> {b}"))
    if v.changed > len(v.first):
        lines.append(Text(f"    ... {v.changed - len(v.first)} more"))
    (lo, hi), (lo2, hi2) = v.before_range, v.after_range
    lines.append(Text(f"    range: [{lo}, {hi}] -> [{lo2}, {hi2}]"))
    return lines


def print_repair(r, console: Console) -> None:
    p = r.plan
    head = Table.grid(padding=(0, 2))
    head.add_column(style="bold", no_wrap=True)
    head.add_column(overflow="fold")
    req = r.request
    where = {"diff": "plan only (--diff): nothing written", "out": f"to {req.out}"}
    head.add_row("drafter", f"{r.before.drafter_source} ({where.get(req.mode, 'in place')})")
    head.add_row("profiles", ", ".join(p.profiles))
    for a in p.applied:
        who = f" [{', '.join(a.profiles)}]" if a.profiles else ""
        head.add_row("repair", Text.assemble((a.code, "bold"), f" {a.safety}{who}: {a.summary}"))
    for x in p.left:
        who = f" [{', '.join(x.profiles)}]" if x.profiles else ""
        style = SEVERITY_STYLE[x.severity]
        head.add_row(
            "left", Text.assemble((x.code, "bold"), " ", (x.severity, style), f"{who}: {x.why}")
        )
    for c in p.conflicts:
        head.add_row("conflict", Text(c, style="bold red"))
    _verdicts_and_notes(r, head)
    console.print(head)
    for line in plan_lines(p):
        console.print(line, soft_wrap=True)
    if r.verify is not None:
        console.print(Text.assemble(("verify  ", "bold"), verify_summary(r.verify).rich()))
    console.print(repair_summary(r))
