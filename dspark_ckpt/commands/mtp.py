"""``inspect TARGET --mtp``: a target checkpoint's MTP / NextN draft layers, checked against
the MTP architecture each runtime release drafts with for it (``profiles/mtp.py``).

One ``MtpRun`` per loader picked for the target; the runtimes asked for (``--runtime``; by
default the first that drafts this target, vLLM before SGLang) decide the exit code, as the
deciding profiles of ``inspect`` do. A target no loader is picked for is not judged (DSC807,
exit 3); an unreadable one is a DSC001 finding.
"""

from __future__ import annotations

from dataclasses import field, replace
from functools import cache

from dspark_ckpt.errors import CheckpointError, UsageError
from dspark_ckpt.facts.mtp import MtpTarget, read_mtp_target
from dspark_ckpt.loader.mtp import MtpModel
from dspark_ckpt.profiles.mtp import RUNTIMES, MtpLoader, loaders_for
from dspark_ckpt.record import record
from dspark_ckpt.rules import codes  # noqa: F401 (every rule module, registered)
from dspark_ckpt.rules.findings import ERROR, Finding
from dspark_ckpt.rules.inputs import unreadable_finding
from dspark_ckpt.rules.mtp import model, unjudged_finding
from dspark_ckpt.rules.registry import MTP, RULES, Rule


@record(frozen=False)
class MtpRun:
    """One MTP loader on the target: the findings of every MTP rule."""

    loader: MtpLoader
    model: MtpModel
    findings: list[Finding]

    @property
    def ok(self) -> bool:
        return not any(f.severity == ERROR for f in self.findings)


@record(frozen=False)
class MtpReport:
    source: str
    target: MtpTarget | None
    runs: list[MtpRun] = field(default_factory=list)
    deciding: list[str] = field(default_factory=list)  # the loaders (names) that decide
    findings: list[Finding] = field(default_factory=list)  # DSC001 / DSC807: about the input

    @property
    def covered(self) -> bool:
        return bool(self.deciding)

    @property
    def ok(self) -> bool:
        if any(f.severity == ERROR for f in self.findings):
            return False
        return all(r.ok for r in self.runs if r.loader.name in self.deciding)

    @property
    def all_findings(self) -> list[Finding]:
        return [*self.findings, *(f for r in self.runs for f in r.findings)]


@cache
def mtp_rules() -> tuple[Rule, ...]:
    return tuple(r for _, r in sorted(RULES.items()) if r.scope == MTP)


def run_loader(t: MtpTarget, x: MtpLoader) -> MtpRun:
    found = [f for r in mtp_rules() for f in r.check(t, x)]
    return MtpRun(x, model(t, x), [_located(t, replace(f, profile=x.name)) for f in found])


def _located(t: MtpTarget, f: Finding) -> Finding:
    info = t.tensors.get(f.tensor or "")
    where = info.path if info is not None else t.config_path
    return replace(f, file=str(where))


def parse_runtimes(values: list[str] | None) -> list[str]:
    """``--runtime`` values for MTP: ``vllm`` / ``sglang``, or with the release modelled
    (``vllm==0.33.0``); anything else is a usage error."""
    out = []
    for value in (v.strip().lower() for v in values or []):
        name, _, version = value.partition("==")
        release = RUNTIMES.get(name)
        if release is None or (version and not release.endswith(" " + version)):
            known = ", ".join(f"{k} ({v})" for k, v in RUNTIMES.items())
            raise UsageError(f"--runtime {value}: the MTP check models {known}")
        out.append(name)
    return list(dict.fromkeys(out))


def inspect_mtp(source: str, runtimes: list[str] | None = None) -> MtpReport:
    """Check the target at ``source`` for the MTP draft layers each runtime reads from it."""
    asked = parse_runtimes(runtimes)
    try:
        t = read_mtp_target(source)
    except CheckpointError as err:
        return MtpReport(source, None, findings=[unreadable_finding(err)])
    loaders = loaders_for(t.architecture, t.model_type)
    runs = [run_loader(t, x) for x in loaders]
    have = list(dict.fromkeys(x.runtime for x in loaders))
    report = MtpReport(t.source, t, runs)
    wanted = asked or have[:1]
    report.deciding = [x.name for x in loaders if x.runtime in wanted]
    for name in [r for r in wanted if r not in have] or ([] if have else ["any"]):
        report.findings.append(_unjudged(t, name))
    if report.findings:  # a runtime asked for drafts this target with no loader modelled
        report.deciding = []
    return report


def _unjudged(t: MtpTarget, runtime: str) -> Finding:
    arch = t.architecture or t.model_type or "no architecture"
    where = RUNTIMES.get(runtime, " or ".join(RUNTIMES.values()))
    f = unjudged_finding(
        f"{arch} (model_type {t.model_type!r}): no MTP / NextN loader of {where} is modelled "
        "for this target (docs/mtp.md lists those judged, and those not with why)"
    )
    return replace(f, file=str(t.config_path))
