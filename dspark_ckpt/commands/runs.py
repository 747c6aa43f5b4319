"""The check run: the unit every CI format reports on, and what a policy applies to.

A ``CheckRun`` is one drafter against its target under one profile (or its ``verify``):
``inspect`` gives one per profile (``run_of_report``), ``check`` one per pair and
profile. A ``Policy`` turns warnings into errors or ignores a code (only with a
written reason); the formats in ``output/`` show runs, they decide nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from dspark_ckpt.rules.findings import ERROR, WARNING

if TYPE_CHECKING:
    from pathlib import Path

    from dspark_ckpt.commands.inspect import Report
    from dspark_ckpt.rules.findings import Finding


@dataclass(frozen=True)
class Policy:
    """Severity overrides: warnings as errors (all, or some codes) and reasoned ignores."""

    warnings_as_errors: bool | frozenset[str] = False
    ignore: dict[str, str] = field(default_factory=dict)  # code -> the written reason

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


@dataclass
class CheckRun:
    """One check run: a drafter against its target under one profile (or its verify)."""

    name: str  # the pair's name
    profile: str  # the profile, or "verify"
    report: Report | None
    findings: list[Finding]  # after the policy, each with the file it concerns
    ignored: list[tuple[Finding, str]] = field(default_factory=list)
    failure: str | None = None  # a failure that is not a finding (a failed verify)

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == ERROR]

    @property
    def ok(self) -> bool:
        return self.failure is None and not self.errors

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
    report: Report, name: str | None = None, policy: Policy | None = None
) -> CheckRun:
    """A report as one check run: findings located, the policy applied."""
    located = [replace(f, file=finding_file(report, f)) for f in report.findings]
    kept, ignored = (policy or Policy()).apply(located)
    profile = report.profile or "no profile"  # a family no profile covers (DSC108)
    return CheckRun(name or report.drafter_source, profile, report, kept, ignored)


@dataclass
class CheckResult:
    """Every run of a ``check``: it passes when each run does."""

    config_path: Path
    runs: list[CheckRun]

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.runs)
