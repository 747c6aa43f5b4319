"""``inspect``: open a drafter and its target, gather the facts, run the rule engine."""

from __future__ import annotations

import re
import shlex
from dataclasses import replace

from dspark_ckpt.errors import CheckpointError, UsageError
from dspark_ckpt.facts.config import DrafterConfig, drafter_config, local_drafter_config
from dspark_ckpt.facts.gather import gather
from dspark_ckpt.facts.target import Target
from dspark_ckpt.profiles.registry import asked_method, route
from dspark_ckpt.rules.engine import (
    Report,
    report,
    select_profiles,
    uncovered_report,
    unreadable_report,
)
from dspark_ckpt.rules.inputs import UNCOVERED, UNREADABLE
from dspark_ckpt.source.checkpoint import Checkpoint, open_checkpoint

__all__ = [
    "UNCOVERED",
    "UNREADABLE",
    "Report",
    "inspect_checkpoint",
    "unreadable",
    "unreadable_target",
    "with_paths",
]


def unreadable(
    source: str,
    target: Target | None,
    profile: str | list[str] | None,
    err: CheckpointError,
    checkpoint: Checkpoint | None = None,
) -> Report:
    """The report for a checkpoint (or its target) that could not be read: one DSC001
    error, and the drafter's config where it can be read."""
    drafter = _config_alone(source, checkpoint)
    return unreadable_report(source, target, profile, err, checkpoint, drafter)


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


def served_config(ckpt: Checkpoint, profile: str | list[str] | None) -> DrafterConfig:
    """The drafter's config, with the method the named profiles stand for in place of the
    one its path names (``DrafterConfig.method``: what a config naming no family is served
    as, as vLLM takes it from --speculative-config)."""
    cfg = drafter_config(ckpt)
    method = asked_method(profile)
    return cfg if method is None else replace(cfg, method=method)


def inspect_checkpoint(
    source: str,
    target: Target,
    profile: str | list[str] | None = None,
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
        cfg = served_config(ckpt, profile)
        way = route(cfg)
        family = way.family
        if not way.judged:
            return uncovered_report(source, target, cfg, ckpt, family, profile, way.unjudged)
        selection = select_profiles(profile, family, way.judges)
        facts = gather(ckpt, cfg, target)
    except CheckpointError as err:
        return unreadable(source, target, profile, err, ckpt)
    return report(source, ckpt, facts, family, selection, way.unjudged)


# a hint's command names the drafter and the target by these placeholders
# (``rules/repairs.py``'s FIX_COMMAND); whole words only
_DRAFTER = r"(?<![\w-])DRAFTER(?![\w-])"
_TARGET = r"--target T(?![\w-])"


def with_paths(text: str, r: Report) -> str:
    """``text`` (a hint, a command) with the drafter and target placeholders of its
    ``dspark-ckpt fix DRAFTER --target T`` filled with what the user named, shell-quoted:
    a command to paste. ``--target T`` becomes ``--target-vocab-size N`` where only a
    vocab size was given; the rest (``DIR``, ``KEY=VALUE``) is the user's to choose."""
    if "DRAFTER" not in text and "--target T" not in text:
        return text
    t = r.target
    if "DRAFTER" in text:
        text = re.sub(_DRAFTER, lambda _: shlex.quote(r.drafter_source), text)
    if t is None:
        return text
    named = t.model is not None  # else --target-vocab-size (no config read)
    given = f"--target {shlex.quote(t.source)}" if named else f"--target-vocab-size {t.vocab_size}"
    return re.sub(_TARGET, lambda _: given, text) if "--target T" in text else text
