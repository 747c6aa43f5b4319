"""The one-line verdicts: all that ``-q`` prints in the table format, and the last line
of each command's table. ``Styled`` text (``styled.py``), no Rich: a ``-q`` run and
inspect's concise output load none (``tests/cli/test_startup.py``); a Rich console prints
them as the Rich text they stand for."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dspark_ckpt.output.styled import Styled
from dspark_ckpt.profiles.registry import PROFILES
from dspark_ckpt.rules.findings import ERROR, INFO, WARNING

if TYPE_CHECKING:
    from dspark_ckpt.commands.inspect import Report
    from dspark_ckpt.commands.runs import CheckResult


def verdict_text(ok: bool) -> Styled:
    return Styled("PASS", style="bold green") if ok else Styled("FAIL", style="bold red")


def release_name(profile: str) -> str:
    """``vLLM 0.33.0 (vllm-eagle3)``: the release a profile judges by, and its name."""
    release = PROFILES[profile].release if profile in PROFILES else ""
    return f"{' '.join(release.split(' ')[:2])} ({profile})" if release else profile


def inspect_summary(r: Report) -> Styled:
    """The one-line verdict (all that ``--quiet`` prints)."""
    if not r.covered:
        return Styled.assemble(
            ("NOT JUDGED", "bold yellow"),
            f": no profile covers this drafter's family ({r.family or 'unknown'})",
        )
    counts = {s: sum(f.severity == s for f in r.findings) for s in (ERROR, WARNING, INFO)}
    summary = ", ".join(f"{n} {s}(s)" for s, n in counts.items() if n) or "clean"
    failing = [p for p in r.profiles if not r.verdicts.get(p)]
    named = failing if failing else r.profiles  # name the profiles that fail
    passing = [p for p in r.profiles if p not in failing]
    also = f" (passes {', '.join(passing)})" if failing and passing else ""
    partial = ""
    if r.not_checked:  # said on the verdict line itself: --quiet prints only this line
        codes = ", ".join(dict.fromkeys(n.code for n in r.not_checked))
        partial = f"; partial: {len(r.not_checked)} check(s) not made ({codes})"
    return Styled.assemble(
        ("deployable" if r.ok else "NOT deployable", "bold green" if r.ok else "bold red"),
        f" under {', '.join(map(release_name, named))}{also}: {summary}",
        (partial, "yellow"),
    )


def check_summary(result: CheckResult) -> Styled:
    """The one-line verdict (all that ``--quiet`` prints): failed runs, and partial ones."""
    failed = sum(not r.ok for r in result.runs)
    n = len(result.runs)
    if failed:
        line = Styled(f"{failed} of {n} check run(s) failed", style="bold red")
    else:
        line = Styled(f"all {n} check run(s) passed", style="bold green")
    refused = sum(r.partial_fails for r in result.runs)
    allowed = sum(r.partial_allowed is not None for r in result.runs)
    counts = [f"{refused} not allowed" if refused else "", f"{allowed} allowed" if allowed else ""]
    if refused or allowed:
        line.append(f"; partial: {', '.join(filter(None, counts))}", style="yellow")
    return line


def verify_summary(r) -> Styled:
    """The verdict line (all that ``verify -q`` prints in the table format)."""
    risk = sum(m.unmasked_illegal for m in r.modes.values())
    why = "; ".join(r.problems) or "with the mask no sampled id leaves [0, Vt)"
    unmasked = f"without the mask {risk} sampled id(s) left it" if risk else "none left it unmasked"
    line = Styled.assemble(verdict_text(r.ok), ": ", why, "; ", unmasked)
    verdict = getattr(r, "inspect", None)
    if verdict is not None and not verdict.ok:  # PASS is the mask's: not "deployable"
        profiles = ", ".join(verdict.profiles)
        line.append("; but inspect says ")
        line.append("NOT deployable", style="bold red")
        line.append(f" under {profiles} ({', '.join(verdict.errors) or 'a partial verdict'})")
    return line


def fix_summary(r) -> Styled:
    """The one-line result of ``fix`` (all that ``--quiet`` prints)."""
    return Styled.assemble(
        ("deployable" if r.ok else "NOT deployable", "bold green" if r.ok else "bold red"),
        f" after fix under {release_name(r.request.profile)}",
    )


def repair_summary(r) -> Styled:
    """The one-line result of a repair (all that ``--quiet`` prints)."""
    p, req = r.plan, r.request
    profiles = ", ".join(p.profiles)
    if p.refusal is not None:
        return Styled.assemble(("refused", "bold red"), f": {p.refusal}")
    n = len(p.config) + len(p.tensors)
    if req.mode == "diff":
        left = sum(x.severity == ERROR for x in p.left)
        return Styled.assemble(
            ("plan", "bold"),
            f": {n} change(s) from {len(p.applied)} repair(s) under {profiles}; nothing written"
            if n
            else f": nothing to repair under {profiles}",
            ("" if r.ok else "; NOT deployable", "bold red"),
            f" ({left} error(s) no repair fixes)" if left and not r.ok else "",
        )
    return Styled.assemble(
        ("deployable" if r.ok else "NOT deployable", "bold green" if r.ok else "bold red"),
        f" after fix under {', '.join(map(release_name, p.profiles))}"
        + (f": {n} change(s) written" if r.files else ": nothing written"),
    )
