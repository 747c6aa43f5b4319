"""``fix`` without ``--emit-*``: the repairs of what ``inspect`` finds, as a reviewed plan.

``plan_repairs`` applies, round after round, the repair of every finding of the
deciding profile(s) (``rules/repairs.py``: safe ones, unsafe ones with ``unsafe``) to a
``Draft`` of the checkpoint (its config and its tensors, each the source's bytes, cut or
renamed, or new values), and inspects the draft again until nothing more is repaired.
A change that undoes another (one profile drops ``d2t``, another adds it) is a conflict;
a value only the user can give (``Needs``) is asked for (``--set KEY=VALUE``). Nothing is
read but headers, configs and the small ``d2t``/``t2d``.

``run_repairs`` writes the plan through ``atomic.Transaction``: unchanged shards are
hard-linked (``--out``) or left alone (in place), a shard with a changed tensor is
rewritten from the source's bytes (``source/pieces.py``), then the written checkpoint is
inspected before the commit point ends the transaction.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import field
from pathlib import Path
from typing import Any

from dspark_ckpt.commands.draft import Draft, Tensor, array_bytes, st_dtype  # noqa: F401
from dspark_ckpt.commands.fix_checks import refuse_set, refuse_unreadable
from dspark_ckpt.commands.inspect import Report, inspect_checkpoint
from dspark_ckpt.commands.plan_diff import KeyChange, TensorChange, config_changes, tensor_changes
from dspark_ckpt.errors import CheckpointError
from dspark_ckpt.profiles.registry import PROFILES
from dspark_ckpt.record import record
from dspark_ckpt.rules.codes import get_code
from dspark_ckpt.rules.engine import plan_repair
from dspark_ckpt.rules.findings import ERROR, Finding
from dspark_ckpt.rules.repairs import (
    UNSAFE,
    Change,
    DelKey,
    Drop,
    Drops,
    Fix,
    NewConfig,
    Put,
    Rename,
    SetKey,
    TargetRows,
)
from dspark_ckpt.source.checkpoint import Checkpoint, build_checkpoint
from dspark_ckpt.source.overlay import OverlaySource
from dspark_ckpt.source.pieces import Pieces, Range, safetensors_pieces
from dspark_ckpt.source.safetensors import TensorInfo

MAX_ROUNDS = 4  # a repair's change can bring up a finding another repair answers


def _targets(change: Change) -> set[tuple[str, str]]:
    """What a change touches: config keys (``*`` the whole config) or tensor names."""
    if isinstance(change, SetKey | DelKey):
        return {("key", change.key)}
    if isinstance(change, NewConfig):
        return {("key", "*")}
    if isinstance(change, Rename):
        return {("tensor", change.name), ("tensor", change.new)}
    if isinstance(change, Drops):
        return {("tensor", name) for name in change.names}
    return {("tensor", change.name)}


def _clash(a: set, b: set) -> bool:
    """Whether two sets of targets overlap (a whole-config change touches every key)."""
    keys = lambda s: {x for kind, x in s if kind == "key"}  # noqa: E731
    whole = ("key", "*")
    return bool(a & b) or (whole in a and bool(keys(b))) or (whole in b and bool(keys(a)))


def _undoes(new: Change, old: Change) -> bool:
    """Whether ``new`` undoes ``old`` (applied in an earlier round)."""
    pair = {type(new), type(old)}
    if pair == {Drop, Put}:
        return new.name == old.name
    if pair == {Drops, Put}:
        drops, put = (new, old) if isinstance(new, Drops) else (old, new)
        return put.name in drops.names
    if isinstance(new, SetKey | DelKey) and isinstance(old, SetKey | DelKey):
        return new.key == old.key and (
            not isinstance(new, SetKey) or not isinstance(old, SetKey) or new.value != old.value
        )
    return False


def _describe(change: Change) -> str:
    if isinstance(change, Drop):
        return f"drops {change.name}"
    if isinstance(change, Drops):
        shown = ", ".join(change.names[:3]) + (" ..." if len(change.names) > 3 else "")
        return f"drops {len(change.names)} tensor(s) ({shown})"
    if isinstance(change, Put):
        return f"writes {change.name}"
    if isinstance(change, SetKey):
        return f"sets {change.key} to {change.value!r}"
    if isinstance(change, DelKey):
        return f"removes {change.key}"
    if isinstance(change, TargetRows):
        return f"copies {len(change.rows)} rows of the target's {change.source.name}"
    return type(change).__name__.lower()


# --- the plan -------------------------------------------------------------------------


@record
class RepairRequest:
    profiles: list[str] | None = None  # None: the drafter family's default, as inspect
    unsafe: bool = False  # apply unsafe repairs too
    sets: tuple[tuple[str, Any], ...] = ()  # --set KEY=VALUE, applied first
    out: Path | None = None
    in_place: bool = False
    force: bool = False
    diff: bool = False  # plan and show, write nothing
    verify: bool = False  # verify the result (torch)
    # what the user asks besides the repairs (--prune-vocab, --to): (facts, profiles,
    # root) -> (changes, one line saying what they do), applied first
    asked: Callable[..., tuple[list[Change], str]] | None = None

    @property
    def mode(self) -> str:
        return "diff" if self.diff else "out" if self.out is not None else "in-place"


@record
class Applied:
    code: str
    profiles: tuple[str, ...]  # () : a rule every runtime shares
    repair: str
    safety: str
    summary: str


@record
class Left:
    """A finding the plan does not repair, and why."""

    code: str
    severity: str
    profiles: tuple[str, ...]
    why: str
    key: str | None = None  # the config key ``--set`` would give (a value it cannot know)


@record(frozen=False)
class RepairPlan:
    profiles: list[str]
    applied: list[Applied] = field(default_factory=list)
    left: list[Left] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    config: list[KeyChange] = field(default_factory=list)
    tensors: list[TensorChange] = field(default_factory=list)
    sets: list[str] = field(default_factory=list)  # the --set keys
    asked: list[str] = field(default_factory=list)  # what --prune-vocab / --to do
    regressions: list[str] = field(default_factory=list)  # errors the plan brings

    @property
    def changes(self) -> bool:
        return bool(self.config or self.tensors)

    @property
    def needs(self) -> list[Left]:
        """The error findings that wait for a value (``--set``)."""
        return [x for x in self.left if x.key is not None and x.severity == ERROR]

    @property
    def refusal(self) -> str | None:
        """Why the plan cannot be written, or None."""
        if self.conflicts:
            return f"conflict: {self.conflicts[0]}"
        if self.regressions:
            return self.regressions[0]
        if self.needs:
            n = self.needs[0]
            return (
                f"{n.code} needs {n.key}: {n.why}, which nothing in the checkpoint says; "
                f"give --set {n.key}=VALUE"
            )
        return None


@record(frozen=False)
class RepairResult:
    request: RepairRequest
    plan: RepairPlan
    before: Report
    after: Report
    files: list[str]
    notes: list[str]
    verify: Any = None  # a VerifyReport, with --verify

    @property
    def ok(self) -> bool:
        return (
            self.plan.refusal is None
            and all(self.after.verdicts.get(p) for p in self.plan.profiles)
            and (self.verify is None or self.verify.ok)
        )


def _profiles_of(found: list[Finding]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(f.profile for f in found if f.profile))


def plan_repairs(
    source: str, ckpt: Checkpoint, target, selected: list[str], req: RepairRequest, new_shard: str
) -> tuple[RepairPlan, Draft, Report, Report]:
    """The plan, the draft it leaves, and the reports before and after."""
    before = inspect_checkpoint(source, target, selected, checkpoint=ckpt)
    draft = Draft.of(ckpt, new_shard, target)
    plan = RepairPlan(list(selected), sets=[k for k, _ in req.sets])
    if req.asked is not None:  # before --set: a conversion may write a new config
        if before.facts is None:
            raise CheckpointError(ckpt.root, "unreadable: nothing to prune or convert")
        changes, summary = req.asked(before.facts, [PROFILES[n] for n in selected], ckpt.root)
        for c in changes:
            draft.apply(c)
        plan.asked.append(summary)
    for key, value in req.sets:
        draft.apply(SetKey(key, value))
        refuse_set([(key, value)], ckpt, draft.config)
    history: list[tuple[Change, str, tuple[str, ...]]] = []
    after = before
    if req.sets or req.asked is not None:
        try:
            after = _inspect(source, target, selected, ckpt, draft)
        except CheckpointError as err:
            refuse_set(req.sets, ckpt, draft.config, err)
            raise
    for _ in range(MAX_ROUNDS):
        if not _round(after, draft, plan, req, history):
            break
        after = _inspect(source, target, selected, ckpt, draft)
        if plan.conflicts:
            break
    _new_errors(before, after, selected, plan)
    plan.left = _left(after, req)
    plan.config = config_changes(ckpt.config if isinstance(ckpt.config, dict) else {}, draft.config)
    plan.tensors = tensor_changes(ckpt, draft)
    return plan, draft, before, after


def _new_errors(before: Report, after: Report, selected: list[str], plan: RepairPlan) -> None:
    """An error the plan brings under a deciding profile refuses it: a conflict where
    another profile's repair caused it, else a value given (``--set``) or a change that
    does not hold."""
    was = {(f.code, f.profile) for f in before.errors}
    new = [f for f in after.errors if (f.code, f.profile) not in was]
    if not new:
        return
    hit = sorted({f.profile for f in new if f.profile}) or selected
    by = [a for a in plan.applied if a.profiles and not set(a.profiles) & set(hit)]
    codes = ", ".join(dict.fromkeys(f"{f.code} {get_code(f.code).title}" for f in new))
    if by:
        causes = ", ".join(dict.fromkeys(f"{a.repair} for {'/'.join(a.profiles)}" for a in by))
        plan.conflicts.append(
            f"the repairs ({causes}) make {', '.join(hit)} fail ({codes}): one checkpoint "
            "cannot satisfy all of them (ship one per runtime, or choose --profile)"
        )
        return
    given = f" (--set {', '.join(plan.sets)})" if plan.sets else ""
    plan.regressions.append(f"the change{given} brings {new[0].code}: {new[0].message}")


def _round(report: Report, draft: Draft, plan: RepairPlan, req: RepairRequest, history) -> bool:
    """Apply the repairs of ``report``'s findings once (a tensor or key at most once per
    round: the others wait for the next, planned on the facts this round leaves)."""
    touched: set = set()
    progressed = False
    by_answer: dict[tuple[str, str], list[Finding]] = {}
    fixes: dict[tuple[str, str], tuple[Fix, str, str]] = {}
    for f in report.findings:
        planned = plan_repair(report.facts, PROFILES.get(f.profile), f) if report.facts else None
        if planned is None or not isinstance(planned[1], Fix):
            continue
        r, fix = planned
        safety = fix.safety or r.safety
        if safety == UNSAFE and not req.unsafe:
            continue
        key = (f.code, fix.summary)
        by_answer.setdefault(key, []).append(f)
        fixes[key] = (fix, r.name, safety)
    for key, found in by_answer.items():
        fix, name, safety = fixes[key]
        targets = set().union(*(_targets(c) for c in fix.changes))
        if _clash(targets, touched):
            continue  # next round
        profiles = _profiles_of(found)
        undone = [
            (c, old, code, who)
            for c in fix.changes
            for old, code, who in history
            if code != key[0] and _undoes(c, old)
        ]
        if undone:
            c, old, code, who = undone[0]
            plan.conflicts.append(
                f"{', '.join(who) or 'every runtime'} needs {code}'s change ({_describe(old)}), "
                f"{', '.join(profiles) or 'every runtime'} needs {key[0]}'s ({_describe(c)}): "
                "one checkpoint cannot satisfy both (ship one per runtime)"
            )
            continue
        for c in fix.changes:
            draft.apply(c)
            history.append((c, key[0], profiles))
        touched |= targets
        plan.applied.append(Applied(key[0], profiles, name, safety, fix.summary))
        progressed = True
    return progressed


def _left(report: Report, req: RepairRequest) -> list[Left]:
    """The findings the repaired draft still has (info aside), each with why it stays."""
    grouped: dict[tuple, list[Finding]] = {}
    for f in report.findings:
        if f.severity == "info":
            continue
        planned = plan_repair(report.facts, PROFILES.get(f.profile), f) if report.facts else None
        if planned is None:
            why, key = "no repair: " + (f.fix_hint or get_code(f.code).title), None
        elif isinstance(planned[1], Fix):
            why = (
                "an unsafe repair: --unsafe-fixes applies it"
                if (planned[1].safety or planned[0].safety) == UNSAFE and not req.unsafe
                else "its repair would undo another's (a conflict)"
            )
            key = None
        else:
            why, key = planned[1].why, planned[1].key
        grouped.setdefault((f.code, f.severity, why, key), []).append(f)
    return [
        Left(code, sev, _profiles_of(found), why, key)
        for (code, sev, why, key), found in grouped.items()
    ]


def _inspect(source, target, selected, ckpt: Checkpoint, draft: Draft) -> Report:
    planned = planned_checkpoint(ckpt, draft)
    report = inspect_checkpoint(source, target, selected, checkpoint=planned)
    refuse_unreadable(report, ckpt.root)
    return report


# --- files ----------------------------------------------------------------------------


def config_bytes(config: dict) -> bytes:
    """A config (or index) as fix writes it: indented JSON and a newline."""
    return (json.dumps(config, indent=2) + "\n").encode()


NEW_SHARD_METADATA = {"format": "pt", "written_by": "dspark-ckpt fix"}  # a shard fix adds


def shard_files(ckpt: Checkpoint, draft: Draft) -> dict[str, Pieces | None]:
    """Each weight file of the result: None where it is the source's file unchanged, else
    the pieces it is made of (a rewritten shard keeps its ``__metadata__``; a source shard
    left with no tensor is an empty one, so that what it held is not loaded in place)."""
    out: dict[str, Pieces | None] = {p.name: None for p in ckpt.files}
    paths = {p.name: p for p in ckpt.files}
    for shard, tensors in draft.shard_tensors(draft.touched).items():
        if shard not in paths and not tensors:
            continue
        meta = ckpt.origin.read_metadata(paths[shard]) if shard in paths else NEW_SHARD_METADATA
        out[shard] = safetensors_pieces(tensors, meta)
    return out


def is_empty(pieces: Pieces | None) -> bool:
    """A rewritten shard left with no tensor (its header is all it holds)."""
    return pieces is not None and len(pieces.parts) == 1


def index_bytes(ckpt: Checkpoint, draft: Draft, shards: dict[str, Pieces | None]) -> bytes | None:
    """The index of the result: written where the source has one and a tensor changes,
    or a new shard is added; None where a single file needs none, or the source's is
    unchanged."""
    if ckpt.index_path is None and shards.get(draft.new_shard) is None:
        return None
    if not draft.changed:  # the same tensors in the same files: the source's index
        return None
    weight_map = {n: i.path.name for n, i in ckpt.tensors.items() if n not in draft.changed}
    weight_map.update({n: t.shard for n, t in draft.changed.items() if t is not None})
    total = sum(i.nbytes for n, i in ckpt.tensors.items() if n not in draft.changed)
    total += sum(
        t.part.size if isinstance(t.part, Range) else len(t.part)
        for t in draft.changed.values()
        if t is not None
    )
    return updated_index(ckpt, weight_map, total)


def updated_index(ckpt: Checkpoint, weight_map: dict[str, str], total: int) -> bytes:
    """The checkpoint's index (a new one where it has none) naming ``weight_map``, of
    ``total`` bytes; its other keys kept."""
    data = dict(ckpt.origin.read_json(ckpt.index_path.name, "index")) if ckpt.index_path else {}
    metadata = data.get("metadata") if isinstance(data.get("metadata"), dict) else {}
    data["metadata"] = {**metadata, "total_size": total}
    data["weight_map"] = dict(sorted(weight_map.items()))
    return config_bytes(data)


def planned_checkpoint(ckpt: Checkpoint, draft: Draft) -> Checkpoint:
    """The checkpoint as the draft leaves it, read through an overlay of the source: each
    file's tensors are the source's header with the draft's changes in it (a cut tensor
    reads its first rows where they are; new values are held in memory), so a plan costs
    what it changes, not a new header for a shard of a million tensors."""
    config = config_bytes(draft.config) if draft.config != ckpt.config else None
    touched = draft.touched
    paths = {p.name: p for p in ckpt.files}
    tensors: dict[Path, dict[str, TensorInfo]] = {}
    values: dict[tuple[Path, str], bytes] = {}
    for shard in sorted(touched):
        path = paths.get(shard, ckpt.root / shard)
        found = dict(next(ckpt.origin.read_tensors([path]))) if shard in paths else {}
        tensors[path] = found
    for name in draft.changed:
        if (info := ckpt.tensors.get(name)) is not None and info.path in tensors:
            tensors[info.path].pop(name, None)
    for name, t in draft.changed.items():
        if t is None:
            continue
        path = paths.get(t.shard, ckpt.root / t.shard)
        if isinstance(t.part, Range):
            info = TensorInfo(name, t.dtype, t.shape, t.part.start, t.part.end, t.part.path)
        else:
            info = TensorInfo(name, t.dtype, t.shape, 0, len(t.part), path)
            values[path, name] = t.part
        tensors[path][name] = info
    files = [p for p in ckpt.files if p not in tensors or tensors[p]]
    files += [p for p in tensors if p not in paths.values() and tensors[p]]
    planned = OverlaySource(ckpt, config=config, added={}, tensors=tensors, values=values)
    return build_checkpoint(planned, need_config=ckpt.config is not None, files=files)
