"""The check run: the unit every CI format reports on, and what a policy applies to.

A ``CheckRun`` is one drafter against its target under one profile (or its ``verify``):
``inspect`` gives one per profile (``run_of_report``), ``check`` one per pair and
profile. A ``Policy`` turns warnings into errors or ignores a code (only with a
written reason), and says whether a partial verdict passes ``check``'s gate (only with a
written reason); the formats in ``output/`` show runs, they decide nothing.

A run is *partial* when some check could not be made (``rules/unchecked.py``: a target
folder without weights, a bare ``target-vocab-size``): every run carries those checks,
and every format says so. ``check``'s runs are a gate: there a partial run fails unless
its policy allows it (``allow-partial``). ``inspect``'s runs are not: its verdict stands
on the checks made, as its exit code does.
"""

from __future__ import annotations

from dataclasses import field, replace
from typing import TYPE_CHECKING

from dspark_ckpt.commands.inspect import with_paths
from dspark_ckpt.record import record
from dspark_ckpt.rules.findings import ERROR, WARNING

if TYPE_CHECKING:
    from pathlib import Path

    from dspark_ckpt.commands.inspect import Report
    from dspark_ckpt.rules.findings import Finding
    from dspark_ckpt.rules.unchecked import NotChecked

ALLOWED_BY_FLAG = "--allow-partial"  # the reason shown where only the command line allows it


@record
class Policy:
    """Severity overrides: warnings as errors (all, or some codes) and reasoned ignores."""

    warnings_as_errors: bool | frozenset[str] = False
    ignore: dict[str, str] = field(default_factory=dict)  # code -> the written reason
    # the written reason a partial verdict passes the gate (allow-partial); None: it fails
    allow_partial: str | None = None

    def promotes(self, code: str) -> bool:
        w = self.warnings_as_errors
        return w is True or (isinstance(w, frozenset) and code in w)

    def apply(self, findings: list[Finding]) -> tuple[list[Finding], list[tuple[Finding, str]]]:
        """The findings that count (warnings promoted where asked) and the ignored ones."""
        kept, ignored = [], []
        for f in findings:
            if f.code in self.ignore:
                ignored.append((f, self.ignore[f.code]))
            elif f.severity == WARNING and self.promotes(f.code):
                kept.append(replace(f, severity=ERROR))
            else:
                kept.append(f)
        return kept, ignored


@record(frozen=False)
class CheckRun:
    """One check run: a drafter against its target under one profile (or its verify)."""

    name: str  # the pair's name
    profile: str  # the profile, or "verify"
    report: Report | None
    findings: list[Finding]  # after the policy, each with the file it concerns
    ignored: list[tuple[Finding, str]] = field(default_factory=list)
    failure: str | None = None  # a failure that is not a finding (a failed verify)
    # the checks not made under this run's profile (the verdict is partial), each with why
    not_checked: list[NotChecked] = field(default_factory=list)
    allow_partial: str | None = None  # the written reason a partial verdict passes
    gate: bool = False  # check's runs: partial fails unless allowed; inspect's: it is shown

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == ERROR]

    @property
    def partial(self) -> bool:
        return bool(self.not_checked)

    @property
    def partial_fails(self) -> bool:
        """A partial verdict at the gate, with no written reason to let it pass."""
        return self.gate and self.partial and self.allow_partial is None

    @property
    def partial_allowed(self) -> str | None:
        """The written reason this partial run passes with; None when it is whole or
        fails for being partial."""
        return self.allow_partial if self.gate and self.partial else None

    @property
    def ok(self) -> bool:
        return self.failure is None and not self.errors and not self.partial_fails

    @property
    def why_failed(self) -> str | None:
        """Why the run fails, in one line (check JSON's ``failure``): its failure (a failed
        verify), else its error findings' codes, else its partial verdict; None when ok."""
        if self.ok:
            return None
        if self.failure:
            return self.failure
        if self.errors:
            codes = ", ".join(dict.fromkeys(f.code for f in self.errors))
            return f"{len(self.errors)} error finding(s): {codes}"
        return f"{self.partial_text}, and no allow-partial reason"

    @property
    def partial_text(self) -> str | None:
        """``partial: N check(s) not made (codes)``, the words every format uses; None
        for a whole verdict."""
        if not self.not_checked:
            return None
        codes = ", ".join(dict.fromkeys(n.code for n in self.not_checked))
        return f"partial: {len(self.not_checked)} check(s) not made ({codes})"

    @property
    def title(self) -> str:
        return f"{self.name} [{self.profile}]"


def finding_file(report: Report, f: Finding) -> str:
    """The file a finding concerns: its own, the file storing its tensor, else the config."""
    if f.file:
        return f.file
    ck = report.checkpoint
    if ck is None:
        return report.drafter_source
    info = ck.find(f.tensor) if f.tensor else None
    return str(info.path if info is not None else ck.config_path)


def run_of_report(
    report: Report, name: str | None = None, policy: Policy | None = None, *, gate: bool = False
) -> CheckRun:
    """A report as one check run: findings located, the policy applied, the checks not
        made under its profile listed, the commands of its hints naming the drafter and target
    the user named (``with_paths``). With ``gate`` (``check``) a partial run fails unless
        the policy allows it."""
    policy = policy or Policy()
    located = [
        replace(f, file=finding_file(report, f), hint=f.fix_hint and with_paths(f.fix_hint, report))
        for f in report.findings
    ]
    kept, ignored = policy.apply(located)
    profile = report.profile or "no profile"  # a family no profile covers (DSC108)
    skipped = [n for n in report.not_checked if not n.profiles or profile in n.profiles]
    return CheckRun(
        name or report.drafter_source,
        profile,
        report,
        kept,
        ignored,
        not_checked=skipped,
        allow_partial=policy.allow_partial,
        gate=gate,
    )


def partial_file(run: CheckRun) -> str | None:
    """The file a partial verdict concerns: the drafter's config (what was judged)."""
    report = run.report
    if report is None:
        return None
    ck = report.checkpoint
    return str(ck.config_path) if ck is not None else report.drafter_source


@record(frozen=False)
class CheckResult:
    """Every run of a ``check``: it passes when each run does."""

    config_path: Path
    runs: list[CheckRun]

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.runs)

    @property
    def partial(self) -> bool:
        """Some run's verdict is partial (allowed or not)."""
        return any(r.partial for r in self.runs)
