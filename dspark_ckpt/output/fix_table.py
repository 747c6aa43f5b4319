"""The table format of ``fix`` (its plan, its repairs) and ``verify``: on the console and
with the tables of ``table.py``. Nothing here decides anything: it only shows a result.
"""

from __future__ import annotations

import os

from rich.console import Console
from rich.table import Table
from rich.text import Text

from dspark_ckpt.output.repair_text import repair_rows, tail_lines, verdict_rows
from dspark_ckpt.output.summary import (  # noqa: F401 - the one-line verdicts, also -q's
    fix_summary,
    repair_summary,
    verify_summary,
)
from dspark_ckpt.output.table import boxed_table, findings_table


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
    for label, value in verdict_rows(r):
        head.add_row(label, value)


def print_repair(r, console: Console) -> None:
    """A repair's result on Rich's console: where its text holds characters that may take
    other than one cell (``repair_text.rich_cells``; ``repair_text`` draws the others)."""
    head = Table.grid(padding=(0, 2))
    head.add_column(style="bold", no_wrap=True)
    head.add_column(overflow="fold")
    for label, value in repair_rows(r):
        head.add_row(label, value)
    console.print(head)
    for line in tail_lines(r):
        console.print(line, soft_wrap=True)
