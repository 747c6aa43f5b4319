"""The table format, for people: Rich tables and lines on a console.

This module draws inspect's ``--format full`` (its default, ``concise.py``, and every
verdict line, ``summary.py``, are drawn without Rich: ``styled.py``); with
``check_table.py`` (check's summary) and ``fix_table.py`` (fix, its repairs and verify),
built on this module's console and tables, the only modules that import Rich, and only
the commands that show a table import them (the machine formats, ``json.py`` and the CI
formats, start without it). Nothing here decides anything: it only shows a result.
"""

from __future__ import annotations

from dataclasses import replace

from rich.cells import cell_len
from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from dspark_ckpt.commands.inspect import Report, with_paths
from dspark_ckpt.output.console import (  # noqa: F401 - what the other table modules use
    PLAIN_WIDTH,
    DataConsole,
    verdict_text,
)
from dspark_ckpt.output.json import profile_obj
from dspark_ckpt.output.layout import (  # noqa: F401 - what the other table modules use
    REPAIR_MARK,
    SEVERITY_STYLE,
    failing_elsewhere,
    target_line,
)
from dspark_ckpt.output.layout import flow as _flow
from dspark_ckpt.output.summary import inspect_summary  # noqa: F401
from dspark_ckpt.output.text import one_line
from dspark_ckpt.profiles.registry import PROFILES
from dspark_ckpt.rules.codes import CODES
from dspark_ckpt.rules.findings import ERROR, WARNING, Code, Finding


def flow(parts: list[str | Text], width: int) -> Text:
    """``layout.flow`` of Rich ``Text`` parts (the tables')."""
    return _flow(parts, width, Text)


NARROW = 80  # below it, the findings table gives the finding column the tensor's place


def findings_table(
    findings: list[Finding], show_profile: bool = False, width: int = PLAIN_WIDTH
) -> Table:
    """The findings, the message column taking the width: at 60 columns the tensor or
    file column gets a quarter of it, a path broken at its ``/``."""
    narrow = width < NARROW
    where_width = width - 25 if narrow else max(12, min(40, width // 4))
    table = boxed_table()
    table.add_column("severity", no_wrap=True)
    table.add_column("code", no_wrap=True)
    if not narrow:
        table.add_column("tensor / key / file", overflow="fold", max_width=where_width)
    table.add_column("tensor / file: finding" if narrow else "finding", overflow="fold")
    for f in findings:
        where = flow([f.tensor or f.file or ""], where_width)
        msg = Text(f"[{f.profile}] " if show_profile and f.profile else "")
        msg.append(one_line(f.message))
        if f.fix_hint:
            msg.append(f"\nfix: {one_line(f.fix_hint)}", style="dim")
        cells = [msg] if not narrow else [where.append(":\n", "bold").append_text(msg)]
        if not narrow:
            cells.insert(0, where)
        code = f.code + REPAIR_MARK.get(f.repair, "")
        table.add_row(Text(f.severity, style=SEVERITY_STYLE[f.severity]), code, *cells)
    return table


LABEL_WIDTH = len("drafter") + 2  # the head's label column and its padding


def print_inspect(r: Report, console: Console) -> None:
    d, t, ck = r.drafter, r.target, r.checkpoint
    width = console.width - LABEL_WIDTH
    head = Table.grid(padding=(0, 2))
    head.add_column(style="bold", no_wrap=True)
    head.add_column(overflow="fold")
    about = []
    if ck:
        about = [f"({len(ck.files)} file(s),", f"{len(ck.tensors)} tensors"]
        about[-1] += "," if d and d.architectures else ")"
        if d and d.architectures:
            about.append(f"{', '.join(d.architectures)})")
    head.add_row("drafter", flow([r.drafter_source + " ", *about], width))  # two spaces
    if d:
        head.add_row("family", r.family or "unknown")
    if t:
        parts = [f"{t.source}:", f"Vt {t.vocab_size}"]
        if t.vocab_key:
            parts.append(f"({t.vocab_key})")
        if t.embedding_rows:
            parts[-1] += ","
            parts += [f"Et {t.embedding_rows}", f"({t.embedding_tensor})"]
        head.add_row("target", flow(parts, width))
        if (line := target_line(r)) is not None:
            facts = line.split(", ")
            head.add_row("", flow([f + "," for f in facts[:-1]] + facts[-1:], width))
    if d and r.classification:
        defaulted = " (defaulted)" if d.draft_vocab_size_defaulted else ""
        parts = [f"V {d.vocab_size},", f"Vd {d.draft_vocab_size}{defaulted},"]
        parts += [f"Vt {t.vocab_size}", "->", Text(r.classification, "bold")]
        if r.padded_rows:
            parts.append(f"(+{r.padded_rows} padded rows)")
        if r.expanded_input_vocab:
            parts[-1] += ","
            parts.append("expanded input vocab")
        head.add_row("vocab", flow(parts, width))
    verdicts = []
    mark = set(r.verdicts) - set(r.profiles)  # mark the deciding ones where others are not
    for name, ok in r.verdicts.items():
        deciding = " (decides)" if mark and name in r.profiles else ""
        verdicts.append(Text.assemble(f"{name}: ", verdict_text(ok), deciding) + "  ")
    if r.covered:
        head.add_row("verdict", flow(verdicts, width))
    else:
        head.add_row("verdict", "none: no profile covers this family (not judged)")
    for why, names in failing_elsewhere(r).items():
        them = ", ".join(names)
        words = f"{them} {'fails' if len(names) == 1 else 'fail'}, not deciding: {why}."
        to = f"--profile {','.join(names)}"
        head.add_row("", flow([*words.split(" "), "To", "decide", "by", "it:", to], width))
    if r.not_applicable:
        head.add_row(
            "not applicable",
            f"{', '.join(r.not_applicable)}: profile(s) of another family, no verdict",
        )
    console.print(head)
    if r.findings:
        found = _with_paths(r.findings, r)
        console.print(findings_table(found, show_profile=len(r.profiles) > 1, width=console.width))
    else:
        console.print("no findings", style="green")
    if elsewhere := r.elsewhere:
        console.print(Text("found under the profiles that do not decide:", style="bold"))
        found = [replace(f, profile=", ".join(names)) for f, names in elsewhere]
        console.print(findings_table(_with_paths(found, r), show_profile=True, width=console.width))
    if r.checks and r.verdicts:
        console.print(checks_matrix(r, console))
    if (skipped := not_checked_block(r)) is not None:
        console.print(skipped)
    if (line := repairs_line(r)) is not None:
        console.print(line)
    console.print(inspect_summary(r))


def _with_paths(findings: list[Finding], r: Report) -> list[Finding]:
    """``findings`` whose hints' commands name the drafter and target the user named."""
    return [replace(f, hint=with_paths(f.fix_hint, r)) if f.fix_hint else f for f in findings]


def repairs_line(r: Report) -> Text | None:
    """What ``fix`` repairs of the deciding profiles' findings, counted by severity (the
    marks of the findings table); None when it repairs none."""
    found = [f for f in r.findings if f.severity in (ERROR, WARNING)]
    safe = [f for f in found if f.repair == "safe"]
    unsafe = [f for f in found if f.repair == "unsafe"]
    asks = [f for f in found if f.repair == "asks"]
    if not safe and not unsafe and not asks:
        return None
    if not safe and not unsafe:  # only values you give: the hints give the commands
        return Text(
            f"fix repairs {_counts(asks, found)} under {', '.join(r.profiles)} with a value you "
            + with_paths("give (?): `dspark-ckpt fix DRAFTER --target T --out DIR --set ", r)
            + "KEY=VALUE` (each hint gives KEY and VALUE; --diff shows the plan)",
            style="dim",
        )
    more = f"; {len(unsafe)} more with --unsafe-fixes (!)" if unsafe else ""
    more += f"; {len(asks)} more with a value you give, --set KEY=VALUE (?)" if asks else ""
    return Text(
        f"fix repairs {_counts(safe, found)} under {', '.join(r.profiles)} (*){more}: "
        + with_paths("`dspark-ckpt fix DRAFTER --target T --out DIR` (--diff shows the plan)", r),
        style="dim",
    )


def _counts(repaired: list[Finding], found: list[Finding]) -> str:
    """``1 of 2 error(s) and 0 of 1 warning(s)``: of ``found``, those ``repaired``."""
    return " and ".join(
        f"{sum(f.severity == s for f in repaired)} of {n} {s}(s)"
        for s in (ERROR, WARNING)
        if (n := sum(f.severity == s for f in found))
    )


def checks_matrix(r: Report, console: Console) -> Table:
    """Rows = the checks that found something, columns = runtime profiles; turned the
    other way (rows = profiles, columns = codes) where the profiles do not fit the width,
    and stacked (a profile, its verdict and its checks that are not ok, wrapped between
    them) where the codes do not fit either: a code or a profile name is never cut."""
    cell = {
        (code, n): Text(row[n], style=SEVERITY_STYLE[row[n]])
        if n in row
        else Text("ok", style="green")
        for code, row in r.checks.items()
        for n in r.verdicts
    }
    table = boxed_table()
    table.add_column("check", overflow="fold", min_width=24)
    for name in r.verdicts:
        table.add_column(name, justify="center", overflow="fold")
    for code in r.checks:
        table.add_row(f"{code} {CODES[code].title}", *(cell[code, n] for n in r.verdicts))
    table.add_row("verdict", *(verdict_text(ok) for ok in r.verdicts.values()))
    if fits(table, console, wrapping=True):
        return table
    table = boxed_table()
    table.add_column("profile", no_wrap=True)
    for code in r.checks:
        table.add_column(code, justify="center", no_wrap=True)
    table.add_column("verdict", justify="center", no_wrap=True)
    for n, ok in r.verdicts.items():
        table.add_row(n, *(cell[code, n] for code in r.checks), verdict_text(ok))
    if fits(table, console):
        return table
    names = max(map(len, r.verdicts))
    names = max(names, len("profile"))
    table = Table(box=None, header_style="bold", pad_edge=False, padding=(0, 1))
    table.add_column("profile", no_wrap=True)
    table.add_column("verdict", no_wrap=True)
    table.add_column("checks that are not ok")
    for n, ok in r.verdicts.items():
        found = [(code, cell[code, n]) for code in r.checks if n in r.checks[code]]
        parts = [
            Text.assemble(f"{code} ", c, "," if i < len(found) - 1 else "")
            for i, (code, c) in enumerate(found)
        ]
        table.add_row(n, verdict_text(ok), flow(parts or ["none"], console.width - names - 11))
    return table


def boxed_table() -> Table:
    return Table(show_header=True, header_style="bold", expand=False, pad_edge=False)


def fits(table: Table, console: Console, wrapping: bool = False) -> bool:
    """Whether ``table`` (a boxed table, no outer padding) shows on ``console`` with no
    cell cut: every column at its natural width, or (``wrapping``) with its fold
    columns wrapped between words only."""
    widths = []
    for col in table.columns:
        texts = [col.header, *col.cells]
        plain = [t.plain if isinstance(t, Text) else str(t) for t in texts]
        if wrapping and not col.no_wrap:
            words = [w for t in plain for line in t.split("\n") for w in line.split(" ")]
            widths.append(max(col.min_width or 0, *map(cell_len, words)))
        else:
            widths.append(max(cell_len(line) for t in plain for line in t.split("\n")))
    n = len(widths)
    return sum(widths) + 2 * n - 2 + n + 1 <= console.width


SOURCES_SHOWN = 1  # a profile's source files listed by name; the rest counted


def print_profiles(console: Console) -> None:
    """Each profile in a few lines (80 columns hold them all in under 80 lines): its
    names, runtime and family; its release and the ``--runtime`` releases it covers; a
    line per source file its rules mirror, the first ``SOURCES_SHOWN`` and how many more
    (each, and the file:line of each rule: ``--format json``, ``sources`` and ``cites``). Laid out between words, a path broken only after a ``/`` where it is
    wider than the line. The profiles of variant architectures (``Profile.variant``, reached
    by --profile) close the list by their release-qualified names only."""
    width = max(console.width, 20)
    variants = [p.qualified_name for p in PROFILES.values() if p.variant]
    for name in (n for n, p in PROFILES.items() if not p.variant):
        o = profile_obj(name)
        others = [
            n + ("," if i < len(o["names"]) - 2 else ")") for i, n in enumerate(o["names"][1:])
        ]
        head = [Text(name, "bold"), *(["(also", *others] if others else [])]
        head += [f"{o['runtime']} / {o['family']}"]
        console.print(flow(head, width), soft_wrap=True)
        release = o["release"].split(" ")
        release[-1] += ";"
        release += ["--runtime", f"{o['runtime'].lower()}==VERSION", "for", o["releases"]]
        for line in flow(release, width - 2).split("\n"):
            console.print(Text("  ") + line, soft_wrap=True)
        shown, left = o["sources"][:SOURCES_SHOWN], len(o["sources"]) - SOURCES_SHOWN
        for src in shown:
            for line in flow(src.split(" "), width - 4).split("\n"):
                console.print(Text("  - " if src else "    ", "dim") + line, soft_wrap=True)
        if left > 0:
            console.print(Text(f"  + {left} more (--format json)", "dim"), soft_wrap=True)
    if variants:
        head = "variant profiles (--format json):"
        words = [*head.split(" "), *(n + "," for n in variants[:-1]), variants[-1]]
        console.print(flow(words, width), soft_wrap=True)


def explain_line(code: Code) -> Text:
    """``DSC401 warning: padded rows reachable by sampling``."""
    return Text.assemble(
        (code.code, "bold"), " ", (code.severity, SEVERITY_STYLE[code.severity]), ": ", code.title
    )


def print_codes(console: Console) -> None:
    table = boxed_table()
    table.add_column("code", no_wrap=True)
    table.add_column("severity", no_wrap=True)
    table.add_column("what it means", overflow="fold")
    for c in CODES.values():
        table.add_row(c.code, Text(c.severity, style=SEVERITY_STYLE[c.severity]), c.title)
    console.print(table)
    console.print("dspark-ckpt explain CODE says why the runtime cares and how to fix it")


def print_explain(code: Code, console: Console) -> None:
    console.print(explain_line(code))
    console.print(code.explanation)
    if code.hint:
        console.print(Text.assemble(("fix: ", "bold"), code.hint))


def not_checked_block(r: Report) -> Group | None:
    """The checks the target as given left undecided, under why (the verdict is
    partial); None when every check was made."""
    if not r.not_checked:
        return None
    block = Table.grid(padding=(0, 1))
    block.add_column(no_wrap=True)
    block.add_column(overflow="fold")
    by_reason: dict[str, list] = {}
    for n in r.not_checked:
        by_reason.setdefault(n.reason, []).append(n)
    for reason, checks in by_reason.items():
        block.add_row(" ", Text(reason, style="italic"))
        for n in checks:
            under = f" ({', '.join(n.profiles)})" if n.profiles else ""
            block.add_row(" ", Text.assemble(("  " + n.code, "bold"), f" {n.title}{under}"))
    return Group(Text.assemble(("not checked", "bold yellow"), ": the verdict is partial"), block)
