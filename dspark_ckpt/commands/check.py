"""``check``: the pre-deploy CI gate over many drafter/target pairs.

The configuration (commands/check_config.py) names the pairs; each pair is inspected
under every profile it requires, its ``Policy`` applied, and its ``verify`` run when
asked. The result is a list of ``CheckRun`` (commands/runs.py): one per pair and
profile, the unit every CI format (GitHub, JUnit, SARIF) reports on.

A gate passes what it checked: a run whose verdict is partial (a check not made, for a
target without weights or given by its vocab size alone) fails, unless the pair's policy
allows it with a written reason (``allow-partial``) or ``--allow-partial`` allows it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from dspark_ckpt.commands.check_config import CheckConfig, ConfigError, Pair
from dspark_ckpt.commands.inspect import Report, inspect_checkpoint, unreadable, unreadable_target
from dspark_ckpt.commands.runs import ALLOWED_BY_FLAG, CheckResult, CheckRun, run_of_report
from dspark_ckpt.errors import CheckpointError, TargetError, UsageError
from dspark_ckpt.facts.target import Target, open_target, target_from_vocab_size
from dspark_ckpt.source.base import header_cache
from dspark_ckpt.source.checkpoint import open_checkpoint


def _target(pair: Pair, cfg: CheckConfig) -> Target:
    if pair.target_vocab_size is not None:
        return target_from_vocab_size(pair.target_vocab_size)
    try:
        return open_target(pair.target)
    except TargetError as e:  # its files are broken, not the configuration: the pair fails
        raise e.cause from None
    except UsageError as e:
        raise ConfigError(cfg.path, cfg.table + pair.key + ".target", str(e)) from None


def check_pair(pair: Pair, cfg: CheckConfig) -> list[CheckRun]:
    """Every run of one pair: one per profile, plus its verify when asked."""
    target = None
    try:
        target = _target(pair, cfg)
        ckpt = open_checkpoint(pair.drafter)
    except CheckpointError as err:  # unreadable target files or drafter
        if target is None:
            reports = [unreadable_target(pair.drafter, p, err) for p in pair.profiles]
        else:
            reports = [unreadable(pair.drafter, None, p, err) for p in pair.profiles]
    except UsageError as err:
        if isinstance(err, ConfigError):
            raise
        raise ConfigError(cfg.path, cfg.table + pair.key + ".drafter", str(err)) from None
    else:
        reports = [
            inspect_checkpoint(pair.drafter, target, p, checkpoint=ckpt) for p in pair.profiles
        ]
    # a profile of another family falls back to the family's default: one run per profile
    unique: dict[str, Report] = {}
    for r in reports:
        unique.setdefault(r.profile, r)
    reports = list(unique.values())
    runs = [run_of_report(r, pair.name, pair.policy, gate=True) for r in reports]
    if pair.verify:
        runs.append(
            run_verify(pair, target)
            if target is not None
            else CheckRun(pair.name, "verify", None, [], failure="verify: unreadable target")
        )
    return runs


def run_verify(pair: Pair, target: Target) -> CheckRun:
    """``verify`` on the pair, as its own run: it fails where ``verify`` fails (its
    ``problems``), or when the head cannot be read."""
    from dspark_ckpt.commands.verify import verify_checkpoint

    try:
        report = verify_checkpoint(pair.drafter, target)
    except (CheckpointError, UsageError) as err:
        failure = f"verify: {err}"
    else:
        failure = f"verify: {'; '.join(report.problems)}" if report.problems else None
    return CheckRun(pair.name, "verify", None, [], failure=failure)


def run_check(
    cfg: CheckConfig,
    on_pair: Callable[[Pair], None] | None = None,
    allow_partial: bool = False,
) -> CheckResult:
    """Check every pair of ``cfg``; ``on_pair`` is told when each pair is done (progress).
    ``allow_partial`` (``--allow-partial``) lets every partial run pass; a pair's own
    written reason, where it has one, is the one its runs show.

    One process for every pair, each safetensors header read once (a target shared by
    many pairs, a drafter checked against several targets): a pair costs about what an
    in-process ``inspect`` of it costs (``benchmarks/check_bench.py``).
    """
    runs: list[CheckRun] = []
    token = header_cache.set({})
    try:
        for pair in cfg.pairs:
            if allow_partial and pair.policy.allow_partial is None:
                pair = replace(pair, policy=replace(pair.policy, allow_partial=ALLOWED_BY_FLAG))
            runs += check_pair(pair, cfg)
            if on_pair:
                on_pair(pair)
    finally:
        header_cache.reset(token)
    return CheckResult(cfg.path, runs)
