"""``fix``'s repair plan and result for people (``fix --diff``, ``--out``, ``--in-place``),
drawn without Rich on a ``PlainConsole`` (``styled.py``): the same lines, byte for byte
and colours included, that a Rich grid of labels and values draws on the ``DataConsole``
(``test_repair_drawn_without_rich_byte_for_byte_as_rich_draws_it``), without Rich's
import (a third of ``fix --diff``'s start-up; ``benchmarks/startup_bench.py``).

A value wider than its column wraps as Rich wraps it: between words, a word wider than
the column folded. Text holding characters a terminal may draw other than one cell wide
(wide East Asian characters, combining marks) is drawn by Rich itself (``rich_cells``),
which measures cells as a terminal does.
"""

from __future__ import annotations

import json
import re

from dspark_ckpt.output.styled import Styled, _escaped
from dspark_ckpt.output.summary import repair_summary, verdict_text, verify_summary
from dspark_ckpt.output.text import one_line

SEVERITY_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}
_WORD = re.compile(r"\s*\S+\s*")  # Rich's words: a word with the blanks around it
GAP = 2  # the blanks between the label and its value


def repair_rows(r) -> list[tuple[str, Styled]]:
    """The head of a repair's output: ``label, value`` rows."""
    p, req = r.plan, r.request
    where = {"diff": "plan only (--diff): nothing written", "out": f"to {req.out}"}
    rows = [
        ("drafter", Styled(f"{r.before.drafter_source} ({where.get(req.mode, 'in place')})")),
        ("profiles", Styled(", ".join(p.profiles))),
    ]
    for a in p.applied:
        who = f" [{', '.join(a.profiles)}]" if a.profiles else ""
        rows.append(("repair", Styled.assemble((a.code, "bold"), f" {a.safety}{who}: {a.summary}")))
    for x in p.left:
        who = f" [{', '.join(x.profiles)}]" if x.profiles else ""
        style = SEVERITY_STYLE[x.severity]
        rows.append(
            ("left", Styled.assemble((x.code, "bold"), " ", (x.severity, style), f"{who}: {x.why}"))
        )
    rows += [("conflict", Styled(c, "bold red")) for c in p.conflicts]
    return rows + verdict_rows(r)


def verdict_rows(r) -> list[tuple[str, Styled]]:
    """A fix's verdicts before -> after, per profile, and its notes."""
    rows = []
    for name, ok in r.after.verdicts.items():
        before = r.before.verdicts.get(name)  # not evaluated before: none to show
        was = Styled("n/a") if before is None else verdict_text(before)
        rows.append(("verdict", Styled(f"{name}: ") + was + " -> " + verdict_text(ok)))
    return rows + [("note", Styled(note)) for note in r.notes]


def rich_cells(rows: list[tuple[str, Styled]]) -> bool:
    """Whether any text of ``rows`` may take other than one terminal cell a character."""
    return any(not (label + value.plain).isascii() for label, value in rows)


def grid_lines(rows: list[tuple[str, Styled]], width: int) -> list[Styled]:
    """``rows`` as Rich's ``Table.grid(padding=(0, 2))`` with a bold, unwrapped label
    column draws them ``width`` wide (ASCII text: ``rich_cells``)."""
    rows = [(one_line(label), _escaped(value)) for label, value in rows]
    labels = max((len(label) for label, _ in rows), default=0)
    room = max(width - labels - GAP, 1)
    out = []
    for label, value in rows:
        for i, line in enumerate(_wrapped(value, room)):
            label = "" if i else label  # the label, then its padding: as Rich draws them
            pad = " " * (labels - len(label) + GAP)
            out.append(Styled.assemble((label, "bold"), (pad, "bold"), line))
    return out


def _wrapped(text: Styled, width: int) -> list[Styled]:
    """``text`` wrapped to ``width`` as Rich's ``Text.wrap`` (overflow ``fold``) does."""
    lines, at = [], 0
    for part in text.plain.split("\n"):
        line = text[at : at + len(part)]
        at += len(part) + 1
        cuts = _breaks(part, width)
        for start, end in zip([0, *cuts], [*cuts, len(part)], strict=True):
            lines.append(line[start:end][:width])  # Rich's truncate: only blanks go
    return lines


def _breaks(text: str, width: int) -> list[int]:
    """Where a line breaks (``rich._wrap.divide_line``, one cell a character)."""
    breaks, used = [], 0
    for m in _WORD.finditer(text):
        start, word = m.start(), m.group()
        length = len(word.rstrip())
        if width - used >= length:
            used += len(word)
        elif length > width:
            chunks = [word[i : i + width] for i in range(0, len(word), width)]
            for last, chunk in enumerate(chunks, 1 - len(chunks)):
                if start:
                    breaks.append(start)
                if last == 0:
                    used = len(chunk)
                else:
                    start += len(chunk)
        else:
            breaks.append(start)
            used = len(word)
    return breaks


def plan_lines(p) -> list[Styled]:
    """A repair plan as a diff: config keys and tensors before (-) and after (+)."""
    lines = []
    for c in p.config:
        if not c.added:
            lines.append(Styled(f"- config.json {c.key}: {json.dumps(c.before)}", "red"))
        if not c.removed:
            lines.append(Styled(f"+ config.json {c.key}: {json.dumps(c.after)}", "green"))
    for t in p.tensors:
        if t.values is not None:
            lines += _value_lines(t)
            continue
        if t.before is not None:
            lines.append(Styled(f"- {t.renamed_from or t.name} {_shape(t.before)}", "red"))
        if t.after is not None:
            lines.append(Styled(f"+ {t.name} {_shape(t.after)}", "green"))
    return lines


def _shape(t) -> str:
    return f"{t[0]} {list(t[1])} ({t[2]})"


def _value_lines(t) -> list[Styled]:
    """A replaced tensor whose shape stays: one ``~`` line, then its first differences and
    its range before -> after (its dtype and shape alone would say nothing to review)."""
    v, (dtype, shape, file) = t.values, t.after
    was = f"{t.before[0]} -> " if t.before[0] != dtype else ""
    head = (
        f"~ {t.name} {was}{dtype} {list(shape)} ({file}): {v.changed} of {v.total} entries changed"
    )
    lines = [Styled(head, "yellow")]
    for index, a, b in v.first:
        lines.append(Styled(f"    {t.name}[{', '.join(map(str, index))}]: {a} -> {b}"))
    if v.changed > len(v.first):
        lines.append(Styled(f"    ... {v.changed - len(v.first)} more"))
    (lo, hi), (lo2, hi2) = v.before_range, v.after_range
    lines.append(Styled(f"    range: [{lo}, {hi}] -> [{lo2}, {hi2}]"))
    return lines


def tail_lines(r) -> list[Styled]:
    """What follows the head: the plan's diff, verify's line, the result's line."""
    lines = plan_lines(r.plan)
    if r.verify is not None:
        lines.append(Styled.assemble(("verify  ", "bold"), verify_summary(r.verify)))
    return [*lines, repair_summary(r)]


def print_repair(r, console) -> None:
    """The repair's result on a ``PlainConsole`` (``rich_cells``: ``fix_table``'s)."""
    for line in grid_lines(repair_rows(r), console.width):
        console.print(line, soft_wrap=True)
    for line in tail_lines(r):
        console.print(line, soft_wrap=True)
