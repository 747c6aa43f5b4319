"""``inspect``'s default output, for people: ruff's and mypy's concise shape, drawn
without Rich (``styled.py``: its import would be a fifth of the start-up).

The header (drafter, target, vocab class, verdicts) in at most four lines at any width
of 60 columns or more (a long path shortened in its middle, names counted),
then one line per distinct finding (``CODE [*|!|?] subject: message [profiles]``: a
finding several profiles share, word for word, is shown once, with them), the hint once
per code (a hint that differs by profile once per text, naming its profiles), with the
drafter and target the user named filled into its command, what
the profiles that do not decide fail on where it differs, what ``fix`` repairs, and the
decision as the last line, never wrapped (``| tail -1`` gives all of it): at a narrow
width it is shortened, never folded. A message too long for its line is cut at a word
(``…``); nothing is cut inside a word, a key or a path (``flow``). The boxed tables are
``--format full`` (``table.py``).
"""

from __future__ import annotations

import re
from dataclasses import replace

from dspark_ckpt.commands.inspect import Report, with_paths
from dspark_ckpt.output.layout import (
    REPAIR_MARK,
    SEVERITY_STYLE,
    failing_elsewhere,
    flow,
    target_line,
)
from dspark_ckpt.output.styled import PlainConsole, Styled
from dspark_ckpt.output.summary import inspect_summary, release_name
from dspark_ckpt.output.text import one_line
from dspark_ckpt.profiles.registry import PROFILES
from dspark_ckpt.rules.findings import ERROR, INFO, SEVERITY_ORDER, WARNING, Finding

LABEL = 9  # "drafter  ": the header's label column
ELLIPSIS = "…"
SHORTENED = "(… shortened: -v shows every message whole)"


def print_concise(r: Report, console: PlainConsole) -> None:
    width = max(console.width, 20)
    for label, parts in header(r, width - LABEL):
        lines = flow(parts, width - LABEL).split("\n")
        for i, line in enumerate(lines):
            console.print(
                Styled(f"{label if not i else '':<{LABEL}}", "bold") + line, soft_wrap=True
            )
    groups = distinct(r)
    cut, shown = False, set()
    for i, (f, names, hints) in enumerate(groups):
        line = finding_line(f, names, r, width)
        cut |= one_line(f.message) not in line.plain
        console.print(line, soft_wrap=True)
        shared = shared_hint(groups, f.code)
        if shared is not None and groups[i + 1 : i + 2] and groups[i + 1][0].code == f.code:
            continue  # one hint for every line of the code: once, after its last line
        for text, who in (hints if shared is None else {shared: names}).items():
            if (f.code, text) in shown:
                continue
            shown.add((f.code, text))
            text = one_line(with_paths(text, r))
            label = "  fix:" if len(hints) < 2 else f"  fix ({', '.join(who)}):"
            hint = fitted(Styled(label, "dim"), width, text, style="dim")
            cut |= text not in hint.plain
            console.print(hint, soft_wrap=True)
    if not groups:
        console.print("no findings", style="green")
    block, carried = fix_block(r, width, cut)
    if cut and not carried:
        console.print(Styled(SHORTENED, "dim"), soft_wrap=True)
    for parts in notes(r, width):  # a note too long for its line goes on indented
        lines = flow(parts, width).split("\n")
        if len(lines) > 1:
            lines = flow(parts, width - 2).split("\n")
        for i, line in enumerate(lines):
            console.print(Styled("  " if i else "") + line, soft_wrap=True)
    for line in block:
        console.print(line, soft_wrap=True)
    console.print(decision(r, width), soft_wrap=True)


def header(r: Report, width: int) -> list[tuple[str, list[str | Styled]]]:
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
    rows: list[tuple[str, list[str | Styled]]] = [
        ("drafter", _fit(r.drafter_source, about, width, "(", ")"))
    ]
    if t:
        parts = [f"Vt {t.vocab_size}"]
        if t.embedding_rows and t.embedding_rows != t.vocab_size:
            parts.append(f"Et {t.embedding_rows}")
        if (line := target_line(r)) is not None:
            parts += line.split(", ")
        rows.append(("target", _fit(t.source, parts, width, after=":")))
    if d and r.classification and t:
        defaulted = " (defaulted)" if d.draft_vocab_size_defaulted else ""
        parts = [f"V {d.vocab_size},", f"Vd {d.draft_vocab_size}{defaulted},"]
        parts += [f"Vt {t.vocab_size}", "->", Styled(r.classification, "bold")]
        notes = [f"+{r.padded_rows} padded rows"] if r.padded_rows else []
        notes += ["expanded input vocab"] if r.expanded_input_vocab else []
        while notes and "\n" in flow(parts + _listed(notes, "(", ")"), width).plain:
            notes.pop()  # the last note first (-v gives them all)
        rows.append(("vocab", parts + _listed(notes, "(", ")")))
    if not r.covered:
        rows.append(("verdict", ["none:", "no", "profile", "covers", "this", "family"]))
    elif r.verdicts:
        rows.append(("verdict", verdict_parts(r, width)))
    return rows


def verdict_parts(r: Report, width: int) -> list[str | Styled]:
    """``FAIL a (decides), b; PASS c`` in one line of ``width``: where the names do not
    fit, the last ones are counted in their own verdict (``PASS c, 2 more``: ``-v`` and
    the findings name them), those that do not decide first."""
    deciding = set(r.profiles) if set(r.verdicts) - set(r.profiles) else set()
    named = [n for ok in (False, True) for n, passed in r.verdicts.items() if passed is ok]
    mine = [n for n in named if n in r.profiles]
    order = [n for n in reversed(named) if n not in r.profiles] + mine[:0:-1]  # counted first
    for dropped in range(len(order) + 1):
        left = set(order[:dropped])
        parts: list[str | Styled] = []
        for ok, mark in ((False, "FAIL"), (True, "PASS")):
            group = [n for n in named if r.verdicts[n] is ok]
            if group:
                if parts:
                    parts[-1].append(";")
                shown = [
                    n + (" (decides)" if n in deciding else "") for n in group if n not in left
                ]
                if hidden := sum(n in left for n in group):
                    shown.append(f"{hidden} more")
                parts += [Styled(mark, "bold green" if ok else "bold red"), *_listed(shown)]
        if "\n" not in flow(parts, width).plain:
            break
    return parts


def _fit(
    path: str, details: list, width: int, opening: str = "", closing: str = "", after: str = ""
) -> list:
    """``path`` (then ``after``) and as many of ``details`` as one line of ``width``
    holds, at least one; where even that one does not fit, the path shortened in its
    middle (``…``), the only place anything is cut."""
    for n in range(len(details), 0, -1):
        parts = [path + after, *_listed(details[:n], opening, closing)]
        if "\n" not in flow(parts, width).plain:
            return parts
    kept = _listed(details[:1], opening, closing)
    room = width - len(after) - sum(len(p) + 1 for p in kept)
    return [middle(path, room) + after, *kept]


def middle(path: str, room: int) -> str:
    """``path`` in ``room`` characters: its middle left out (``…``) where it is longer,
    more of its end kept than of its start (the end names the folder)."""
    if len(path) <= room:
        return path
    room = max(room - 1, 2)
    start = room // 3
    return path[:start] + ELLIPSIS + path[len(path) - (room - start) :]


def _listed(parts: list, opening: str = "", closing: str = "") -> list:
    """``parts`` with commas between them, ``opening`` and ``closing`` around them all."""
    if not parts:
        return []
    out = []
    for i, p in enumerate(parts):
        p = Styled(p) if isinstance(p, str) else p.copy()
        if i == 0 and opening:
            p = Styled(opening) + p
        p.append("," if i < len(parts) - 1 else closing)
        out.append(p)
    return out


def distinct(r: Report) -> list[tuple[Finding, list[str], dict[str, list[str]]]]:
    """Each distinct finding with the profiles that found it and its hints, each with the
    profiles that give it: the deciding profiles' findings first, then the others', each
    by severity, then code. Findings are one line where their code, subject, severity and
    message are the same but for the name of each one's own runtime (``neutral``); where
    those names differ, the line says ``the runtime``, so that every word of it is true
    for every profile it names (a hint alike)."""
    every = list(r.verdicts) or list(r.profiles)
    grouped: dict[tuple, tuple[Finding, list[str], set[str], dict[str, tuple]]] = {}

    def add(f: Finding, names: list[str], profile: str | None) -> None:
        said = neutral(f.message, profile)
        key = (f.code, f.tensor or f.file or "", f.severity, said)
        _, seen, messages, hints = grouped.setdefault(key, (f, [], set(), {}))
        seen.extend(n for n in names if n not in seen)
        messages.add(f.message)
        if f.fix_hint:
            texts, gave = hints.setdefault(neutral(f.fix_hint, profile), (set(), []))
            texts.add(f.fix_hint)
            gave.extend(n for n in names if n not in gave)

    for f in r.findings:
        add(f, every if f.profile is None else [f.profile], f.profile)
    for name, found in r.others.items():
        for f in found:
            add(f, [name], name)
    order = {n: i for i, n in enumerate(every)}
    out = []
    for (*_, said), (f, names, messages, hints) in grouped.items():
        shown = {
            (next(iter(t)) if len(t) == 1 else text): gave for text, (t, gave) in hints.items()
        }
        for those in (names, *shown.values()):
            those.sort(key=lambda n: order.get(n, len(order)))
        out.append((f if len(messages) == 1 else replace(f, message=said), names, shown))
    deciding = set(r.profiles)

    def key(group: tuple) -> tuple:
        f, names, _ = group
        return (not deciding & set(names), SEVERITY_ORDER[f.severity], f.code)

    return sorted(out, key=key)


def shared_hint(groups: list[tuple], code: str) -> str | None:
    """The one hint every line of ``code`` shares: the same text, or the same once each
    line's own subject in it is written ``it`` (``copy it to the top level of
    config.json``); None where they differ otherwise (each line then shows its own)."""
    run = [(f, hints) for f, _, hints in groups if f.code == code]
    for form in (lambda text, f: text, _it):
        texts = {form(text, f) for f, hints in run for text in hints}
        if len(texts) == 1:
            return texts.pop()
    return None


def _it(text: str, f: Finding) -> str:
    subject = f.tensor or f.file
    if not subject:
        return text
    return re.sub(rf"(?<![\w.-]){re.escape(subject)}(?![\w-]|\.\w)", "it", text)


NEUTRAL = "the runtime"  # what a line names in place of each of several runtimes


def neutral(text: str, profile: str | None) -> str:
    """``text`` with the names of ``profile``'s runtime (its release, the runtime, the
    profile's own names) written ``the runtime``: how several profiles' findings that
    differ only there say the same of each."""
    if profile not in PROFILES:
        return text
    names = runtime_names(profile)
    out, start, at = [], 0, 0
    while found := [i for n in names if (i := text.find(n, at)) >= 0]:
        at = min(found)  # the first place a name stands: the longest one standing alone
        name = next((n for n in names if text.startswith(n, at) and _alone(text, at, n)), None)
        if name is None:
            at += 1
            continue
        out += (text[start:at], NEUTRAL)
        start = at = at + len(name)
    return "".join(out) + text[start:] if out else text


def runtime_names(profile: str) -> list[str]:
    """The names of ``profile``'s runtime ``neutral`` writes, the longest first."""
    p = PROFILES[profile]
    names = {" ".join(p.release.split(" ")[:2]), p.runtime, p.name, p.qualified_name}
    return sorted(names, key=len, reverse=True)


def _alone(text: str, at: int, name: str) -> bool:
    """Whether ``name`` at ``at`` stands as a word of its own (not in a longer name, a
    path or a version): no word character, ``.``, ``@`` or ``-`` before it, and after it
    none but ``.`` and only where no word character follows (the end of a sentence). A
    word character is the regular expressions' ``\\w`` (``str.isalnum`` or ``_``)."""
    before, end = text[at - 1 : at], at + len(name)
    after, then = text[end : end + 1], text[end + 1 : end + 2]
    if before and (_word(before) or before in ".@-"):
        return False
    if after and (_word(after) or after in "@-"):
        return False
    return not (after == "." and then and _word(then))


def _word(c: str) -> bool:
    return c.isalnum() or c == "_"


def finding_line(f: Finding, names: list[str], r: Report, width: int) -> Styled:
    """``DSC107 * dflash_config.markov_rank: message [profiles]`` in ``width``."""
    head = Styled(f.code, style=SEVERITY_STYLE[f.severity] if f.severity != INFO else "cyan")
    head.append(REPAIR_MARK.get(f.repair, ""))
    subject = f.tensor or f.file
    if subject:
        head.append(f" {one_line(subject)}:", "bold")
    shown = profile_list(names, list(r.verdicts) or list(r.profiles))
    tail = Styled(f" [{shown}]" if shown else "", "dim")
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
    head: Styled, width: int, message: str = "", tail: Styled | None = None, style: str = ""
) -> Styled:
    """``head message tail`` in one line of ``width``: the message cut after a word
    (``…``) where it is too long; where even ``head`` and ``tail`` are wider than the line,
    the whole laid out over several lines between its words (``flow``)."""
    tail = tail or Styled()
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


def notes(r: Report, width: int) -> list[list[str | Styled]]:
    """What the profiles that do not decide fail on (where it differs from the deciding
    profiles' failure; the ``--profile`` that decides by them where it fits the line),
    and the checks not made: each as parts (what ``fix`` repairs: ``fix_block``)."""
    out: list[list[str | Styled]] = []
    for why, names in failing_elsewhere(r).items():
        codes = ", ".join(dict.fromkeys(c.split(" ", 1)[0] for c in why.split("; ")))
        verb = "fails" if len(names) == 1 else "fail"
        them = ", ".join(names)
        words = f"{them} {verb} ({codes}), not deciding".split(" ")
        advice = f"--profile {','.join(names)}"  # dropped where the line would wrap: -v has it
        fits = len(" ".join(words)) + 2 + len(advice) <= width
        out.append([*words[:-1], f"{words[-1]}:", advice] if fits else words)
    if r.not_checked:  # which and why: --format full; the codes: the decision's line
        n = len(r.not_checked)
        out.append(f"not checked: {n} check(s), the verdict is partial (-v: why)".split())
    return out


def fix_block(r: Report, width: int, cut: bool) -> tuple[list[Styled], bool]:
    """What ``fix`` repairs (``N of M fixable (*)``) and the command that repairs it, filled
    with the drafter and target given, as lines a shell runs when pasted whole: the count
    and the command on one line where they fit; else the count on a line of its own (with
    the ``(… shortened ...)`` note, where messages were cut: one line for both) and the
    command on the next; else the command over several lines joined by `` \\``
    (``continued``), the count and the note after it as a shell comment where they fit the
    last line (left to ``-v`` where they do not: the ``*`` marks say what is fixable). Only
    a path that cannot break keeps its placeholder (``DRAFTER``, ``T``). Also returned:
    whether the note is in the block."""
    found = [f for f in r.findings if f.severity in (ERROR, WARNING)]
    safe = sum(f.repair == "safe" for f in found)
    unsafe = sum(f.repair == "unsafe" for f in found)
    asks = sum(f.repair == "asks" for f in found)
    if not (safe or unsafe or asks):
        return [], False
    what = f"{safe} of {len(found)} fixable (*)" if safe else ""
    if unsafe:
        what += ("; " if what else "") + f"{unsafe} with --unsafe-fixes (!)"
    if asks:  # the hint under each such code gives KEY and VALUE
        what += ("; " if what else "") + f"{asks} with a value you give (?)"
    units = command_units(r, asks=bool(asks))
    one = " ".join(units)
    if len(what) + 2 + len(one) <= width:
        return [Styled(f"{what}: ") + Styled(one, "dim")], False
    merged = f"{what} {SHORTENED}:"
    label, carried = (merged, True) if cut and len(merged) <= width else (f"{what}:", False)
    if len(one) <= width:
        lines = flow(label.split(" "), width).split("\n")
        return [*(Styled(line.plain) for line in lines), Styled(one, "dim")], carried
    lines = continued(units, width)
    if lines is None:  # a path no line holds that cannot break: its placeholder
        units = [u if len(u) <= width - 4 else _placeholder(u) for u in units]
        lines = continued(units, width) or [" ".join(units)]
    comments = [f"  # {what}; … shortened: -v"] if cut else []
    for comment in [*comments, f"  # {what}"]:
        if len(lines[-1]) + len(comment) <= width:
            lines[-1] += comment
            break
    return [Styled(text, "dim") for text in lines], True  # the note, if not here: -v


def _placeholder(unit: str) -> str:
    return "--target T" if unit.startswith("--target") else "DRAFTER"


def continued(units: list[str], width: int) -> list[str] | None:
    """``units`` as shell lines of ``width``: joined by spaces, a line ending in `` \\``
    where the next unit does not fit; a path no line holds breaks after a ``/`` with ``\\``
    and its rest at the next line's start (the shell joins the two into one word); an
    option and its value share a line where a line holds both. None
    where such a path is quoted (a quote keeps the backslash and the newline) or one of its
    folders is longer than a line."""
    lines, line = [], ""
    fresh = width - 4  # what a continuation line holds besides its indent and " \\"
    units = [w for u in units for w in (u.split(" ", 1) if len(u) > fresh else [u])]
    for unit in units:
        if line.strip() and len(line) + 1 + len(unit) + 2 > width:
            lines.append(line + " \\")
            line = "  "
        sep = " " if line.strip() else ""
        if len(line) + len(sep) + len(unit) + 2 <= width:
            line += sep + unit
            continue
        pieces = re.findall(r"[^/]*/|[^/]+$", unit)
        if "'" in unit or max(map(len, pieces)) + 1 > width:
            return None
        line += sep
        for piece in pieces:
            if line.strip() and len(line) + len(piece) + 1 > width:
                lines.append(line + "\\")
                line = ""
            line += piece
    return [*lines, line]


def command_units(r: Report, *, asks: bool) -> list[str]:
    """The ``fix`` command as the pieces a line may not break inside: the program, the
    drafter, ``--target`` and its value, ``--out DIR`` (and ``--set KEY=VALUE``), each
    filled (``with_paths``) and shell-quoted."""
    units = ["dspark-ckpt fix", "DRAFTER", "--target T", "--out DIR"]
    units += ["--set KEY=VALUE"] if asks else []
    return [with_paths(unit, r) for unit in units]


def decision(r: Report, width: int) -> Styled:
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
        line = Styled.assemble(word, rest)
        if len(line) <= width:
            return line
    return Styled.assemble(word)
