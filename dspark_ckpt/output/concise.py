"""``inspect``'s default output, for people: ruff's and mypy's concise shape.

The header (drafter, target, vocab class, verdicts) in at most four lines at 80 columns,
then one line per distinct finding (``CODE [*|!] subject: message [profiles]``: a
finding several profiles share is shown once, with them), the hint once per code, what
the profiles that do not decide fail on where it differs, what ``fix`` repairs, and the
decision as the last line, never wrapped (``| tail -1`` gives all of it): at a narrow
width it is shortened, never folded. A message too long for its line is cut at a word
(``…``); nothing is cut inside a word, a key or a path (``flow``). The boxed tables are
``--format full`` (``table.py``).
"""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from dspark_ckpt.commands.inspect import Report
from dspark_ckpt.output.summary import inspect_summary, release_name
from dspark_ckpt.output.table import (
    REPAIR_MARK,
    SEVERITY_STYLE,
    failing_elsewhere,
    flow,
    target_line,
)
from dspark_ckpt.output.text import one_line
from dspark_ckpt.rules.findings import ERROR, INFO, SEVERITY_ORDER, WARNING, Finding

LABEL = 9  # "drafter  ": the header's label column
ELLIPSIS = "…"


def print_concise(r: Report, console: Console) -> None:
    width = max(console.width, 20)
    for label, parts in header(r, width - LABEL):
        lines = flow(parts, width - LABEL).split("\n")
        for i, line in enumerate(lines):
            console.print(Text(f"{label if not i else '':<{LABEL}}", "bold") + line, soft_wrap=True)
    groups = distinct(r)
    hints: dict[str, str] = {}
    for f, _ in groups:
        if f.fix_hint:
            hints.setdefault(f.code, f.fix_hint)
    cut = False
    for i, (f, names) in enumerate(groups):
        line = finding_line(f, names, r, width)
        cut |= one_line(f.message) not in line.plain
        console.print(line, soft_wrap=True)
        last = i + 1 == len(groups) or groups[i + 1][0].code != f.code
        if last and f.code in hints:  # the hint once per code, after its findings
            text = one_line(hints.pop(f.code))
            hint = fitted(Text("  fix:", "dim"), width, text, style="dim")
            cut |= text not in hint.plain
            console.print(hint, soft_wrap=True)
    if not groups:
        console.print("no findings", style="green")
    if cut:
        console.print(Text("(… shortened: -v shows every message whole)", "dim"), soft_wrap=True)
    for parts in notes(r):  # a note too long for its line goes on indented
        lines = flow(parts, width).split("\n")
        if len(lines) > 1:
            lines = flow(parts, width - 2).split("\n")
        for i, line in enumerate(lines):
            console.print(Text("  " if i else "") + line, soft_wrap=True)
    console.print(decision(r, width), soft_wrap=True)


def header(r: Report, width: int) -> list[tuple[str, list[str | Text]]]:
    """The labelled lines of the header, as the parts ``flow`` lays out in ``width``: the
    drafter's and the target's details left out from the last where a long path leaves
    them no room on its line."""
    d, t, ck = r.drafter, r.target, r.checkpoint
    about = [r.family or "unknown family"] if d else []
    if ck:
        files = len(ck.files)
        about += [f"{files} file{'s' if files != 1 else ''}", f"{len(ck.tensors)} tensors"]
    if d and d.architectures:
        about.append(", ".join(d.architectures))
    rows: list[tuple[str, list[str | Text]]] = [
        ("drafter", _fit([r.drafter_source], about, width, "(", ")"))
    ]
    if t:
        parts = [f"Vt {t.vocab_size}"]
        if t.embedding_rows and t.embedding_rows != t.vocab_size:
            parts.append(f"Et {t.embedding_rows}")
        if (line := target_line(r)) is not None:
            parts += line.split(", ")
        rows.append(("target", _fit([f"{t.source}:"], parts, width)))
    if d and r.classification and t:
        defaulted = " (defaulted)" if d.draft_vocab_size_defaulted else ""
        parts = [f"V {d.vocab_size},", f"Vd {d.draft_vocab_size}{defaulted},"]
        parts += [f"Vt {t.vocab_size}", "->", Text(r.classification, "bold")]
        notes = [f"+{r.padded_rows} padded rows"] if r.padded_rows else []
        notes += ["expanded input vocab"] if r.expanded_input_vocab else []
        rows.append(("vocab", parts + _listed(notes, "(", ")")))
    if not r.covered:
        rows.append(("verdict", ["none:", "no", "profile", "covers", "this", "family"]))
    elif r.verdicts:  # FAIL a (decides), b; PASS c
        deciding = set(r.profiles) if set(r.verdicts) - set(r.profiles) else set()
        parts: list[str | Text] = []
        for ok, mark in ((False, "FAIL"), (True, "PASS")):
            names = [n for n, passed in r.verdicts.items() if passed is ok]
            if names:
                if parts:
                    parts[-1].append(";")
                shown = [n + (" (decides)" if n in deciding else "") for n in names]
                parts += [Text(mark, "bold green" if ok else "bold red"), *_listed(shown)]
        rows.append(("verdict", parts))
    return rows


def _fit(head: list, details: list, width: int, opening: str = "", closing: str = "") -> list:
    """``head`` and as many of ``details`` as one line of ``width`` holds (at least one)."""
    for n in range(len(details), 1, -1):
        parts = head + _listed(details[:n], opening, closing)
        if "\n" not in flow(parts, width).plain:
            return parts
    return head + _listed(details[:1], opening, closing)


def _listed(parts: list, opening: str = "", closing: str = "") -> list:
    """``parts`` with commas between them, ``opening`` and ``closing`` around them all."""
    if not parts:
        return []
    out = []
    for i, p in enumerate(parts):
        p = Text(p) if isinstance(p, str) else p.copy()
        if i == 0 and opening:
            p = Text(opening) + p
        p.append("," if i < len(parts) - 1 else closing)
        out.append(p)
    return out


def distinct(r: Report) -> list[tuple[Finding, list[str]]]:
    """Each distinct finding (its code, subject and severity) with the profiles that found
    it: the deciding profiles' first, then the others', each by severity, then code."""
    every = list(r.verdicts) or list(r.profiles)
    grouped: dict[tuple, tuple[Finding, list[str]]] = {}

    def add(f: Finding, names: list[str]) -> None:
        key = (f.code, f.tensor or f.file or "", f.severity)
        seen = grouped.setdefault(key, (f, []))[1]
        seen.extend(n for n in names if n not in seen)

    for f in r.findings:
        add(f, every if f.profile is None else [f.profile])
    for name, found in r.others.items():
        for f in found:
            add(f, [name])
    order = {n: i for i, n in enumerate(every)}
    for _, names in grouped.values():
        names.sort(key=lambda n: order.get(n, len(order)))
    deciding = set(r.profiles)

    def key(group: tuple[Finding, list[str]]) -> tuple:
        f, names = group
        return (not deciding & set(names), SEVERITY_ORDER[f.severity], f.code)

    return sorted(grouped.values(), key=key)


def finding_line(f: Finding, names: list[str], r: Report, width: int) -> Text:
    """``DSC107 * dflash_config.markov_rank: message [profiles]`` in ``width``."""
    head = Text(f.code, style=SEVERITY_STYLE[f.severity] if f.severity != INFO else "cyan")
    head.append(REPAIR_MARK.get(f.repair, ""))
    subject = f.tensor or f.file
    if subject:
        head.append(f" {one_line(subject)}:", "bold")
    shown = profile_list(names, list(r.verdicts) or list(r.profiles))
    tail = Text(f" [{shown}]" if shown else "", "dim")
    return fitted(head, width, one_line(f.message), tail)


def profile_list(names: list[str], every: list[str]) -> str:
    """The profiles a finding line names: ``all`` (every profile judged), ``all but X`` where
    that is shorter than the list, else the list."""
    listed = ", ".join(names)
    if len(every) < 2 or not names:
        return listed
    left = [n for n in every if n not in names]
    if not left:
        return "all"
    but = f"all but {', '.join(left)}"
    return but if len(left) < len(names) and len(but) < len(listed) else listed


def fitted(
    head: Text, width: int, message: str = "", tail: Text | None = None, style: str = ""
) -> Text:
    """``head message tail`` in one line of ``width``: the message cut after a word
    (``…``) where it is too long; where even ``head`` and ``tail`` are wider than the line,
    the whole laid out over several lines between its words (``flow``)."""
    tail = tail or Text()
    room = width - len(head) - len(tail) - 1
    words = message.split(" ") if message else []
    text = " ".join(words)
    if len(text) > room:
        kept: list[str] = []
        for w in words:
            if len(" ".join([*kept, w])) + len(ELLIPSIS) > room:
                break
            kept.append(w)
        text = " ".join([*kept, ELLIPSIS]) if kept else ELLIPSIS if room >= 1 else ""
        text = text.replace(f" {ELLIPSIS}", ELLIPSIS)
    line = head.copy()
    if text:
        line.append(" " + text, style)
    line.append_text(tail)
    if len(line) <= width:
        return line
    return flow([*head.plain.split(" "), *tail.plain.split(" ")[1:]], width)


def notes(r: Report) -> list[list[str | Text]]:
    """What the profiles that do not decide fail on (where it differs from the deciding
    profiles' failure), the checks not made, and what ``fix`` repairs: each as parts."""
    out: list[list[str | Text]] = []
    for why, names in failing_elsewhere(r).items():
        codes = ", ".join(dict.fromkeys(c.split(" ", 1)[0] for c in why.split("; ")))
        verb = "fails" if len(names) == 1 else "fail"
        them = ", ".join(names)
        out.append(
            [*f"{them} {verb} ({codes}), not deciding:".split(" "), f"--profile {','.join(names)}"]
        )
    if r.not_checked:  # which and why: --format full; the codes: the decision's line
        n = len(r.not_checked)
        out.append(f"not checked: {n} check(s), the verdict is partial (-v: why)".split())
    found = [f for f in r.findings if f.severity in (ERROR, WARNING)]
    safe = sum(f.repair == "safe" for f in found)
    unsafe = sum(f.repair == "unsafe" for f in found)
    asks = sum(f.repair == "asks" for f in found)
    if safe or unsafe or asks:
        what = f"{safe} of {len(found)} fixable (*)" if safe else ""
        if unsafe:
            what += ("; " if what else "") + f"{unsafe} with --unsafe-fixes (!)"
        if asks:  # the hint under each such code gives KEY and VALUE
            what += ("; " if what else "") + f"{asks} with a value you give (?)"
        cmd = "dspark-ckpt fix DRAFTER --target T --out DIR" + (" --set KEY=VALUE" if asks else "")
        out.append([*f"{what}:".split(" "), Text(cmd, "dim")])
    return out


def decision(r: Report, width: int) -> Text:
    """The decision (``inspect_summary``) in one line of ``width``: where the whole line
    does not fit, the shorter forms, down to the verdict and its counts."""
    full = inspect_summary(r)
    if len(full) <= width or not r.covered:
        return full
    counts = {s: sum(f.severity == s for f in r.findings) for s in (ERROR, WARNING, INFO)}
    summary = ", ".join(f"{n} {s}(s)" for s, n in counts.items() if n) or "clean"
    failing = [p for p in r.profiles if not r.verdicts.get(p)] or r.profiles
    word = ("deployable", "bold green") if r.ok else ("NOT deployable", "bold red")
    partial = "; partial" if r.not_checked else ""
    forms = [
        f" under {', '.join(release_name(p) for p in failing)}: {summary}{partial}",
        f" under {', '.join(failing)}: {summary}{partial}",
        f": {summary}{partial}",
        f": {counts[ERROR]} error(s)" if counts[ERROR] else "",
    ]
    for rest in forms:
        line = Text.assemble(word, rest)
        if len(line) <= width:
            return line
    return Text.assemble(word)
