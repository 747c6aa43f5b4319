"""``inspect``: read a drafter and its target, apply the contract, return a report."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from dspark_ckpt.errors import CheckpointError, UsageError
from dspark_ckpt.facts.config import DrafterConfig, drafter_config, local_drafter_config
from dspark_ckpt.facts.target import Target
from dspark_ckpt.profiles.registry import (
    DEFAULT_PROFILE,
    PROFILES,
    applicable_profiles,
    covered,
    default_profile,
    detect_family,
    get_profile,
)
from dspark_ckpt.rules.common import Facts, classify, common_findings, gather, padded_rows
from dspark_ckpt.rules.findings import ERROR, SEVERITY_ORDER, Finding
from dspark_ckpt.rules.runtime import profile_findings
from dspark_ckpt.rules.target import (
    TargetFacts,
    gather_target,
    target_common_findings,
    target_profile_findings,
)
from dspark_ckpt.source.checkpoint import Checkpoint, open_checkpoint

UNREADABLE = "DSC001"
UNCOVERED = "DSC108"


@dataclass
class Report:
    profile: str
    drafter_source: str
    target: Target | None  # None when the target's weights could not be read
    drafter: DrafterConfig | None = None  # None when the checkpoint could not be read
    checkpoint: Checkpoint | None = None
    findings: list[Finding] = field(default_factory=list)
    verdicts: dict[str, bool] = field(default_factory=dict)
    profiles: list[str] = field(default_factory=list)  # the selected profiles; [profile] if empty
    family: str | None = None  # the detected drafter family (None: unknown)
    # --profile names that do not apply to the drafter's family: not evaluated, no verdict
    not_applicable: list[str] = field(default_factory=list)
    # rows = finding codes, columns = evaluated profiles: the worst severity found there
    checks: dict[str, dict[str, str]] = field(default_factory=dict)
    target_facts: TargetFacts | None = None  # the target-model comparisons (target_rules)
    # the errors of the evaluated profiles that are not selected, by profile (not in findings)
    others: dict[str, list[Finding]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.profiles and self.profile:
            self.profiles = [self.profile]

    @property
    def classification(self) -> str | None:
        if self.target is None:
            return None
        return (
            classify(self.drafter.draft_vocab_size, self.target.vocab_size)
            if self.drafter
            else None
        )

    @property
    def padded_rows(self) -> int:
        if self.classification is None:
            return 0
        return padded_rows(self.drafter.draft_vocab_size, self.target.vocab_size)

    @property
    def expanded_input_vocab(self) -> bool:
        return self.classification is not None and self.drafter.vocab_size > self.target.vocab_size

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == ERROR]

    def under(self, profile: str) -> Report:
        """This report as one of its selected profiles sees it: the common findings and
        that profile's own."""
        found = [f for f in self.findings if f.profile in (None, profile)]
        return replace(self, profile=profile, profiles=[profile], findings=found)

    @property
    def ok(self) -> bool:
        return not self.errors

    @property
    def failing_elsewhere(self) -> dict[str, list[Finding]]:
        """Why each failing profile that does not decide ``ok`` fails: its own rules'
        errors, else the errors every runtime shares."""
        common = [f for f in self.errors if f.profile is None]
        return {
            name: self.others.get(name) or common
            for name, passed in self.verdicts.items()
            if not passed and name not in self.profiles
        }

    @property
    def covered(self) -> bool:
        """False when no profile covers the drafter's family: it was not judged (exit 3)."""
        return not any(f.code == UNCOVERED for f in self.findings)


def _sorted(findings: list[Finding]) -> list[Finding]:
    return sorted(findings, key=lambda f: (SEVERITY_ORDER[f.severity], f.code))


@dataclass
class Evaluation:
    findings: list[Finding]  # common findings plus those of the selected profiles
    verdicts: dict[str, bool]  # one per evaluated profile
    checks: dict[str, dict[str, str]]  # code -> evaluated profile -> worst severity
    others: dict[str, list[Finding]]  # the errors of each evaluated profile not selected


def evaluate_profiles(
    facts: Facts, selected: list[str], evaluated: list[str], target: TargetFacts | None = None
) -> Evaluation:
    """Apply the common rules once and each profile's rules; ``selected`` decide the
    findings reported, ``evaluated`` (a superset) get a verdict and a matrix column.
    ``target``: the facts of the target model itself (``target_rules``), when read."""
    common = common_findings(facts) + (target_common_findings(target) if target else [])
    per_profile = {
        name: [
            replace(f, profile=name)
            for f in profile_findings(facts, PROFILES[name])
            + (target_profile_findings(target, PROFILES[name]) if target else [])
        ]
        for name in evaluated
    }
    verdicts = {
        name: not any(f.severity == ERROR for f in common + found)
        for name, found in per_profile.items()
    }
    checks: dict[str, dict[str, str]] = {}
    for name, found in per_profile.items():
        for f in common + found:
            row = checks.setdefault(f.code, {})
            if name not in row or SEVERITY_ORDER[f.severity] < SEVERITY_ORDER[row[name]]:
                row[name] = f.severity
    findings = common + [f for name in selected for f in per_profile[name]]
    others = {
        name: _sorted([f for f in found if f.severity == ERROR])
        for name, found in per_profile.items()
        if name not in selected
    }
    return Evaluation(_sorted(findings), verdicts, dict(sorted(checks.items())), others)


def select_profiles(
    profile: str | list[str] | None, family: str | None
) -> tuple[list[str], list[str], list[str]]:
    """(selected, evaluated, not applicable) profile names.

    Only the profiles of the drafter's family are evaluated (each gets a verdict); a
    profile of another family never decides and gets none. ``None`` selects the
    family's default, and so does a list naming no profile of the family. A family no
    profile covers selects and evaluates nothing."""
    names = [] if profile is None else [profile] if isinstance(profile, str) else list(profile)
    for name in names:
        get_profile(name)
    evaluated = applicable_profiles(family)
    selected = [n for n in names if n in evaluated]
    if evaluated and not selected:
        selected = [default_profile(family)]
    asked_all = set(names) == set(PROFILES)  # --profile all: the family's, nothing skipped
    return selected, evaluated, [] if asked_all else [n for n in names if n not in evaluated]


def unreadable(
    source: str,
    target: Target | None,
    profile: str | list[str] | None,
    err: CheckpointError,
    checkpoint: Checkpoint | None = None,
) -> Report:
    """The report for a checkpoint (or its target) that could not be read: one DSC001
    error, and the drafter's config where it can be read."""
    finding = Finding(UNREADABLE, err.message, file=err.path, hint=err.hint)
    drafter = _config_alone(source, checkpoint)
    family = detect_family(drafter) if drafter else None
    if family is not None and not covered(family):  # an MTP, EAGLE-1 ... drafter: no verdict
        selected, evaluated, skipped = [""], [], []
    elif family is None:  # the family is unknown: the profiles asked for, else the default
        names = [profile] if isinstance(profile, str) else list(profile or [DEFAULT_PROFILE])
        selected, evaluated, skipped = names, names, []
    else:
        selected, evaluated, skipped = select_profiles(profile, family)
    return Report(
        selected[0],
        source,
        target,
        drafter=drafter,
        checkpoint=checkpoint,
        findings=[finding],
        verdicts=dict.fromkeys(evaluated, False),
        profiles=selected,
        family=family,
        not_applicable=skipped,
    )


def unreadable_target(source: str, profile: str | list[str] | None, err: CheckpointError) -> Report:
    """The report when the target's files could not be read: the drafter is still opened
    (header-only, best effort), so that its sizes and family, and so its default profile,
    are the same as with a healthy target."""
    try:
        ckpt = open_checkpoint(source)
    except (CheckpointError, UsageError):
        ckpt = None
    return unreadable(source, None, profile, err, ckpt)


def _config_alone(source: str, ckpt: Checkpoint | None) -> DrafterConfig | None:
    """The drafter's config when its weights could not be read (a local checkpoint), so
    that a report on an unreadable checkpoint still gives the sizes; None if that fails."""
    try:
        return drafter_config(ckpt) if ckpt is not None else local_drafter_config(source)
    except (CheckpointError, UsageError):
        return None


def inspect_checkpoint(
    source: str,
    target: Target,
    profile: str | list[str] | None = DEFAULT_PROFILE,
    *,
    checkpoint: Checkpoint | None = None,
) -> Report:
    """Inspect the drafter at ``source`` against ``target``.

    ``profile``: one profile name, a list of them, or None for the default profile of
    the drafter's detected family. Every selected profile decides ``ok``; the base
    profiles and the family's all get a verdict. A malformed checkpoint yields a
    report with one DSC001 error, never an exception.
    """
    select_profiles(profile, None)  # unknown names are usage errors, before any reading
    ckpt = checkpoint
    try:
        ckpt = ckpt or open_checkpoint(source)
        cfg = drafter_config(ckpt)
        family = detect_family(cfg)
        if not covered(family):
            return uncovered(source, target, cfg, ckpt, family, profile)
        selected, evaluated, skipped = select_profiles(profile, family)
        tfacts = gather_target(ckpt, cfg, target)
        result = evaluate_profiles(gather(ckpt, cfg, target), selected, evaluated, tfacts)
    except CheckpointError as err:
        return unreadable(source, target, profile, err, ckpt)
    return Report(
        selected[0],
        source,
        target,
        cfg,
        ckpt,
        result.findings,
        result.verdicts,
        profiles=selected,
        family=family,
        checks=result.checks,
        target_facts=tfacts,
        others=result.others,
        not_applicable=skipped,
    )


def uncovered(
    source: str,
    target: Target,
    cfg: DrafterConfig,
    ckpt: Checkpoint,
    family: str | None,
    profile: str | list[str] | None,
) -> Report:
    """The report on a drafter whose family no profile covers (MTP, EAGLE-1, unknown):
    one DSC108 finding, no verdict; no rule of another family judges it."""
    what = f"a {family} drafter" if family else "a drafter of no known family"
    names = ", ".join(cfg.architectures) or cfg.model_type or "none"
    finding = Finding(
        UNCOVERED,
        f"this is {what} (architectures/model_type: {names}): no profile covers it, so it "
        "is not judged (profiles cover DSpark, DFlash and EAGLE-3 / P-EAGLE drafters)",
        file=str(ckpt.config_path),
    )
    asked = [] if profile is None else [profile] if isinstance(profile, str) else list(profile)
    return Report(
        "",
        source,
        target,
        cfg,
        ckpt,
        [finding],
        {},
        profiles=[],
        family=family,
        not_applicable=asked,
    )
