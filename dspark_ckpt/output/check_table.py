"""The table format of ``check``: a row per pair and profile, what the partial runs did
not check (and why), and the one-line verdict. Built on ``table.py``'s console and
tables; nothing here decides anything: it only shows a result.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console, Group
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from dspark_ckpt.commands.inspect import UNREADABLE
from dspark_ckpt.output.summary import check_summary, release_name
from dspark_ckpt.output.table import boxed_table, fits, flow, verdict_text
from dspark_ckpt.output.text import one_line
from dspark_ckpt.rules.findings import WARNING, Finding

if TYPE_CHECKING:
    from dspark_ckpt.commands.runs import CheckResult, CheckRun

# what to do about a partial run that fails the gate (docs/ci.md says the same)
PARTIAL_HELP = (
    "a partial run fails the gate: check against the whole target (its folder with its "
    'weights, or target = "hf://org/name": config and headers only), or allow it with a '
    'written reason: allow-partial = "why" (globally or per pair), or --allow-partial'
)


def _detail(f: Finding) -> str:
    """A finding in the check table's detail column: its code, with the problem when an
    input is unreadable (nothing else says why the run failed)."""
    return f"{f.code} {f.file}: {f.message}" if f.code == UNREADABLE else f.code


def _partial_detail(run: CheckRun) -> str:
    if run.partial_fails:
        return "partial"
    return "partial (allowed)" if run.partial_allowed is not None else ""


def print_check(result: CheckResult, console: Console) -> None:
    """One summary table: a row per pair and profile (named by the release it judges by,
    ``vLLM 0.33.0 (vllm-eagle3)``, as inspect's verdict names it); where it does not fit the width
    with every cell whole, a row per run stacked (its verdict, then what the table holds).
    Then what the partial runs did not check, and the verdict line."""
    rows = []
    for run in result.runs:
        warnings = [f for f in run.findings if f.severity == WARNING]
        detail = run.failure or ", ".join(dict.fromkeys(map(_detail, run.errors + warnings)))
        if partial := _partial_detail(run):
            detail = f"{detail}; {partial}" if detail else partial
        cls = (run.report.classification or "") if run.report else ""
        counts = (len(run.errors), len(warnings), len(run.ignored))
        rows.append((run, cls, counts, detail))
    table = boxed_table()
    for col in ("pair", "profile", "result", "class", "errors", "warnings", "ignored"):
        table.add_column(col, no_wrap=True)
    table.add_column("detail", overflow="fold")
    for run, cls, counts, detail in rows:
        profile = release_name(run.profile)
        table.add_row(run.name, profile, verdict_text(run.ok), cls, *map(str, counts), detail)
    if not fits(table, console, wrapping=True):
        table = Table.grid(padding=(0, 2))
        table.add_column(no_wrap=True)
        table.add_column()
        for run, cls, (errors, warnings, ignored), detail in rows:
            parts = [run.name, "under", f"{release_name(run.profile)}{',' if cls else ':'}"]
            parts += [f"{cls}:"] if cls else []
            parts += [f"{errors} error(s),", f"{warnings} warning(s),", f"{ignored} ignored"]
            parts[-1] += ";" if detail else ""
            parts += detail.split(" ")
            table.add_row(verdict_text(run.ok), flow(parts, console.width - 6))
    console.print(table)
    if (block := not_checked_block(result)) is not None:
        console.print(block)
    console.print(check_summary(result))


def not_checked_block(result: CheckResult) -> Group | None:
    """The checks each partial run did not make, under why, and whether the gate lets
    it pass (with its written reason); runs that skipped the same checks with the same
    outcome are one entry (many pairs checked by vocab size alone: one list). None when
    every verdict is whole."""
    groups: dict[tuple, list[CheckRun]] = {}
    for run in result.runs:
        if run.partial:
            key = (tuple(run.not_checked), run.partial_fails, run.partial_allowed)
            groups.setdefault(key, []).append(run)
    if not groups:
        return None
    lines: list = [Text.assemble(("not checked", "bold yellow"), ": partial verdicts")]

    def line(text: Text, indent: int) -> None:  # folded lines keep the indent
        lines.append(Padding(text, (0, 0, 0, indent)))

    for (skipped, fails, allowed), runs in groups.items():
        by_pair: dict[str, list[str]] = {}
        for r in runs:
            by_pair.setdefault(r.name, []).append(r.profile)
        head = Text()
        for i, (name, profiles) in enumerate(by_pair.items()):
            head.append(", " if i else "").append(one_line(name), style="bold")
            head.append(f" [{', '.join(profiles)}]")
        head.append(": ")
        if fails:
            head.append("fails the gate (no allow-partial reason)", style="bold red")
        else:
            head.append("allowed: ", style="yellow").append(one_line(allowed or ""))
        line(head, 2)
        by_reason: dict[str, list] = {}
        for n in skipped:
            by_reason.setdefault(n.reason, []).append(n)
        for reason, checks in by_reason.items():
            line(Text(reason, style="italic"), 4)
            for n in checks:
                line(Text.assemble((n.code, "bold"), f" {n.title}"), 6)
    if any(r.partial_fails for r in result.runs):
        lines.append(Text(PARTIAL_HELP, style="dim"))
    return Group(*lines)
