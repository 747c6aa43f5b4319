"""``inspect``: read a drafter and its target, apply the contract, return a report."""

from __future__ import annotations

from dataclasses import dataclass, field

from dspark_ckpt.checkpoint import Checkpoint, Target, drafter_config, load_checkpoint
from dspark_ckpt.config import DrafterConfig
from dspark_ckpt.errors import CheckpointError
from dspark_ckpt.findings import ERROR, SEVERITY_ORDER, Finding
from dspark_ckpt.profiles import DEFAULT_PROFILE, PROFILES, get_profile
from dspark_ckpt.rules import Facts, classify, common_findings, gather, profile_findings

UNREADABLE = "DSC001"


@dataclass
class Report:
    profile: str
    drafter_source: str
    target: Target | None  # None when the target's weights could not be read
    drafter: DrafterConfig | None = None  # None when the checkpoint could not be read
    checkpoint: Checkpoint | None = None
    findings: list[Finding] = field(default_factory=list)
    verdicts: dict[str, bool] = field(default_factory=dict)

    @property
    def facts_known(self) -> bool:
        return self.drafter is not None

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
        return max(self.drafter.draft_vocab_size - self.target.vocab_size, 0)

    @property
    def expanded_input_vocab(self) -> bool:
        return self.classification is not None and self.drafter.vocab_size > self.target.vocab_size

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == ERROR]

    @property
    def ok(self) -> bool:
        return not self.errors


def _sorted(findings: list[Finding]) -> list[Finding]:
    return sorted(findings, key=lambda f: (SEVERITY_ORDER[f.severity], f.code))


def evaluate(facts: Facts, profile: str = DEFAULT_PROFILE) -> tuple[list[Finding], dict[str, bool]]:
    """The findings under ``profile`` and the verdict (no error finding) under every profile."""
    common = common_findings(facts)
    common_ok = not any(f.severity == ERROR for f in common)
    per_profile = {name: profile_findings(facts, p) for name, p in PROFILES.items()}
    verdicts = {
        name: common_ok and not any(f.severity == ERROR for f in found)
        for name, found in per_profile.items()
    }
    return _sorted(common + per_profile[profile]), verdicts


def unreadable(
    source: str,
    target: Target | None,
    profile: str,
    err: CheckpointError,
    checkpoint: Checkpoint | None = None,
) -> Report:
    """The report for a checkpoint that could not be read: one DSC001 error."""
    finding = Finding(UNREADABLE, err.message, file=err.path)
    return Report(
        profile,
        source,
        target,
        checkpoint=checkpoint,
        findings=[finding],
        verdicts=dict.fromkeys(PROFILES, False),
    )


def inspect_checkpoint(
    source: str,
    target: Target,
    profile: str = DEFAULT_PROFILE,
    *,
    checkpoint: Checkpoint | None = None,
) -> Report:
    """Inspect the drafter at ``source`` against ``target``.

    A malformed checkpoint yields a report with one DSC001 error, never an exception.
    """
    get_profile(profile)
    ckpt = checkpoint
    try:
        ckpt = ckpt or load_checkpoint(source)
        cfg = drafter_config(ckpt)
        findings, verdicts = evaluate(gather(ckpt, cfg, target), profile)
    except CheckpointError as err:
        return unreadable(source, target, profile, err, ckpt)
    return Report(profile, source, target, cfg, ckpt, findings, verdicts)
