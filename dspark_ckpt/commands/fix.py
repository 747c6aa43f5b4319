"""``fix``: repairs (``run_repair``) and the padded-row mask and ``d2t`` (``run_fix``).

``plan_fix`` decides the mask and ``d2t`` (pure: arrays and notes, or a refusal).
``run_fix`` writes them as side files (a thin writer: the bytes checked to parse back,
one transaction), or, with ``out`` / ``in_place``, as changes of a repair ``Draft``
written by ``fix``'s one write path (``fix_write``), as any repair: the planned checkpoint
inspected under the profile first (a change that makes ``--profile`` fail is refused),
then one ``atomic.Transaction`` that reads back and re-inspects before its commit point.
``run_repair`` plans the repairs (``repair.plan_repairs``) and writes them the same way;
a folder of pickle weights is converted first (``convert``).

Never imports torch and reads no tensor data except ``d2t`` and ``t2d``: unchanged
shards are hard-linked or copied as bytes, never loaded; every other file is copied
(a hard link would make an edit of the copy an edit of the source).
"""

from __future__ import annotations

import os
from dataclasses import field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from dspark_ckpt.commands.convert import convert_and_repair, hub_pickle_folder, pickle_folder
from dspark_ckpt.commands.draft_map import draft_map
from dspark_ckpt.commands.fix_checks import (
    File,
    check_bytes,
    planned_checkpoint,
    read_back,
    refuse_unreadable,
)
from dspark_ckpt.commands.fix_write import (  # noqa: F401 - NEW_SHARD is named here too
    IN_PLACE,
    NEW_SHARD,
    OUT,
    SIDE,
    destination_root,
    draft_files,
    new_shard_name,
    open_drafter,
    other_files,
    refuse_stale_files,
    write_draft,
)
from dspark_ckpt.commands.inspect import Report, inspect_checkpoint
from dspark_ckpt.commands.repair import NEW_SHARD_METADATA as META
from dspark_ckpt.commands.repair import (
    Draft,
    RepairRequest,
    RepairResult,
    array_bytes,
    plan_repairs,
    shard_files,
    st_dtype,
)
from dspark_ckpt.commands.repair import planned_checkpoint as repaired_checkpoint
from dspark_ckpt.errors import CheckpointError, UsageError
from dspark_ckpt.facts.config import DrafterConfig
from dspark_ckpt.facts.target import Target
from dspark_ckpt.facts.vocab import (
    BIAS_TENSOR,
    D2T,
    EQUAL,
    MASK_MEANING,
    MASK_TENSOR,
    PADDED,
    classify,
    sampleable_mask,
)
from dspark_ckpt.profiles.registry import (
    PROFILES,
    applicable_profiles,
    default_profile,
    detect_family,
    get_profile,
    resolve_profile,
    runtime_spec,
)
from dspark_ckpt.record import record
from dspark_ckpt.rules.codes import get_code
from dspark_ckpt.rules.findings import ERROR, Finding
from dspark_ckpt.rules.repairs import Put, SetKey
from dspark_ckpt.source.atomic import (
    Transaction,
    check_destination,
    writing,
)
from dspark_ckpt.source.base import header_cache, is_local
from dspark_ckpt.source.checkpoint import (
    Checkpoint,
)
from dspark_ckpt.source.folders import held_in_place
from dspark_ckpt.source.layout import PickleOnly
from dspark_ckpt.source.pieces import safetensors_pieces

if TYPE_CHECKING:
    import numpy as np

MASK_FILE = "draft_vocab_mask.safetensors"
D2T_FILE = "d2t.safetensors"
BOOL_STYLE, ADDITIVE_STYLE = "bool", "additive"
MASK_STYLES = (BOOL_STYLE, ADDITIVE_STYLE)
BIAS_MEANING = "0 = this draft id may be sampled; -inf = padded row: add it to the draft logits"

# safetensors dtype names of the arrays we write


@record
class FixRequest:
    mask_path: Path | None = None  # emit the mask there
    d2t_path: Path | None = None  # emit d2t there (a side file; ignored with out/in_place)
    emit_d2t: bool = False
    mask_style: str = BOOL_STYLE
    out: Path | None = None  # a patched copy of the checkpoint
    in_place: bool = False  # patch the checkpoint itself
    force: bool = False
    profile: str | None = None  # None: the drafter family's default, as for inspect

    @property
    def mode(self) -> str:
        return OUT if self.out is not None else IN_PLACE if self.in_place else SIDE


@record
class Plan:
    """What ``fix`` will write: arrays, not files."""

    classification: str
    vd: int
    vt: int
    mask: np.ndarray | None  # bool [Vd], True = may be sampled
    d2t: np.ndarray | None  # int64 [Vd]
    d2t_origin: str | None  # identity / derived from t2d / the checkpoint's own
    notes: list[str] = field(default_factory=list)

    @property
    def masked_rows(self) -> int:
        return 0 if self.mask is None else int((~self.mask).sum())


@record
class Written:
    path: str
    tensor: str
    dtype: str
    shape: list[int]
    sha256: str


@record(frozen=False)
class FixResult:
    request: FixRequest
    plan: Plan
    written: list[Written]
    files: list[str]  # every file created or replaced
    before: Report
    after: Report
    notes: list[str]

    @property
    def ok(self) -> bool:
        return bool(self.after.verdicts.get(self.request.profile))


# --- planning --------------------------------------------------------------------


def plan_fix(ckpt: Checkpoint, cfg: DrafterConfig, target: Target, req: FixRequest) -> Plan:
    """The mask and d2t this checkpoint needs, or a ``CheckpointError`` saying why not
    (``draft_map``: the map verify applies the mask through, or its refusal)."""
    vd, vt = cfg.draft_vocab_size, target.vocab_size
    cls = classify(vd, vt)
    mapping = draft_map(ckpt, cfg, target)
    notes: list[str] = []

    d2t = origin = None
    if req.emit_d2t:
        if ckpt.find(D2T) is not None:  # checked by draft_map: kept, whatever the class
            d2t, origin = mapping, "the checkpoint's own"
        elif mapping is not None:
            d2t, origin = mapping, "derived from t2d"
        else:  # equal or padded: valid by construction (padded rows keep offset 0)
            import numpy as np  # only where a map is written

            d2t, origin = np.zeros(vd, dtype=np.int64), "identity (all zeros)"
        notes.append(f"d2t: {origin}")

    mask = None
    if req.mask_path is not None:
        mask = sampleable_mask(vd, vt, mapping)
        if mask.all():
            how = " (checked through d2t)" if mapping is not None else ""
            notes.append(
                f"every draft id maps into [0, {vt}){how}: the mask is all True, "
                "no masking is needed"
            )
        else:
            notes.append(
                f"{int((~mask).sum())} of {vd} draft ids are False (padded rows): set their "
                "logits to -inf before argmax, top-k and sampling"
            )
            notes.append(
                f"the mask is a side file ({req.mask_path}) that the serving code must apply: "
                "DSC401 stays in the findings, as inspect cannot see side files"
                + (
                    f"; it is not written into {req.out or 'the checkpoint'}: a .safetensors "
                    "file in a checkpoint folder is loaded as weights, and vLLM refuses "
                    "tensors it has no parameter for (--mask-path chooses where)"
                    if req.mode != SIDE
                    else ""
                )
            )
    return Plan(cls, vd, vt, mask, d2t, origin, notes)


# --- files -----------------------------------------------------------------------


def _safetensors_bytes(tensors: dict[str, np.ndarray], metadata: dict[str, str]) -> bytes:
    """A safetensors file, byte-for-byte reproducible (the library's own writer orders
    ``__metadata__`` at random): header keys sorted, padded to 8 bytes with spaces."""
    rows = [(name, st_dtype(a), a.shape, array_bytes(a)) for name, a in sorted(tensors.items())]
    return b"".join(safetensors_pieces(rows, metadata).parts)


def _written(path: Path, name: str, array: np.ndarray, data: bytes) -> Written:
    import hashlib  # only where a side file is written (a start-up cost otherwise)

    digest = hashlib.sha256(data).hexdigest()
    return Written(str(path), name, st_dtype(array), list(array.shape), digest)


def _vocab_metadata(plan: Plan) -> dict[str, str]:
    return {
        "format": "pt",
        "target_vocab_size": str(plan.vt),
        "draft_vocab_size": str(plan.vd),
    }


def mask_file(plan: Plan, style: str) -> tuple[str, np.ndarray, dict[str, str]]:
    """The mask tensor in the requested style: (name, values, metadata)."""
    meta = {**_vocab_metadata(plan), "padded_rows": str(plan.masked_rows), "mask_style": style}
    if style == ADDITIVE_STYLE:
        import numpy as np

        bias = np.where(plan.mask, np.float32(0), np.float32(-np.inf)).astype(np.float32)
        return BIAS_TENSOR, bias, {**meta, "meaning": BIAS_MEANING}
    return MASK_TENSOR, plan.mask, {**meta, "meaning": MASK_MEANING}


def _absence_read_by(cfg: DrafterConfig) -> list[str]:
    """The profiles of the drafter's family that read a missing draft_vocab_size as a
    setting (SGLang EAGLE-3: then the target's head is used), where writing it changes
    what loads."""
    family = detect_family(cfg)
    return [
        n
        for n in applicable_profiles(family)
        if PROFILES[n].lm_head_from_target == "no_draft_vocab_size"
    ]


def _null_needed_by(cfg: DrafterConfig) -> list[str]:
    """The profiles of the drafter's family that fail on a missing draft_vocab_size key
    and read a null as its absence (SGLang EAGLE-3: AttributeError, DSC681)."""
    if "draft_vocab_size" in cfg.raw:
        return []
    family = detect_family(cfg)
    return [
        n
        for n in applicable_profiles(family)
        if PROFILES[n].missing_draft_vocab_size == "attribute_error"
    ]


def _set_draft_vocab_size(draft: Draft, cfg: DrafterConfig) -> list[str]:
    """Write draft_vocab_size explicitly where it is missing, unless a runtime of the
    drafter's family reads its absence (``_absence_read_by``) and none fails on a missing
    key; where one does, the key is written as null (what the absence means there). What
    was done, as notes."""
    if not cfg.draft_vocab_size_defaulted:
        return []
    if _absence_read_by(cfg) and not _null_needed_by(cfg):
        return [
            "config.json: draft_vocab_size left missing: "
            f"{', '.join(_absence_read_by(cfg))} read(s) its absence (the target's head is used)"
        ]
    if _absence_read_by(cfg):
        draft.apply(SetKey("draft_vocab_size", None))
        return [
            "config.json: draft_vocab_size written as null: "
            f"{', '.join(_null_needed_by(cfg))} fail(s) without the key and use(s) the "
            "target's head for null"
        ]
    draft.apply(SetKey("draft_vocab_size", cfg.draft_vocab_size))
    return [f"config.json: draft_vocab_size {cfg.draft_vocab_size} written explicitly"]


def _new_safetensors(dest: Path, tensors: dict[str, np.ndarray], metadata: dict[str, str]):
    return File(dest, _safetensors_bytes(tensors, metadata), tensors=tensors, metadata=metadata)


def _new_errors(before: Report, after: Report, profiles: list[str]) -> list[str]:
    """Error codes the change brings under any of ``profiles``."""
    return sorted(
        code
        for code, row in after.checks.items()
        if any(
            row.get(p) == ERROR and before.checks.get(code, {}).get(p) != ERROR for p in profiles
        )
    )


def _verdict_notes(before: Report, after: Report, plan: Plan) -> list[str]:
    """Per profile, what the change does to the verdict; then the result as a whole."""
    notes = _gained_and_lost(before, after)
    if plan.classification == EQUAL and plan.d2t is not None:
        notes.append(
            f"Vd == Vt ({plan.vd}): an equal drafter needs no d2t; vLLM creates no "
            "draft_id_to_target_id for it under the < and the legacy != rule alike"
        )
    passing = [n for n, ok in after.verdicts.items() if ok]
    failing = [n for n, ok in after.verdicts.items() if not ok]
    if passing and failing:
        why = (
            ": a padded drafter needs d2t under the legacy != rule, and the current loader "
            "has no parameter for it; one checkpoint cannot satisfy both (ship one per "
            "runtime generation)"
            if plan.classification == PADDED and plan.d2t is not None
            else ""
        )
        notes.append(f"the result passes {', '.join(passing)} and fails {', '.join(failing)}{why}")
    return notes


def _masked(f: Finding, mask_path: Path) -> Finding:
    """A finding as it stands once the padded-row mask is written: DSC401 is answered
    by applying that file in the serving code, not by writing it again."""
    if f.code != "DSC401":
        return f
    hint = (
        f"the mask is written ({mask_path}): set the logits of its False rows to -inf in the "
        "serving code before sampling (docs/fix.md); inspect still lists DSC401, as it "
        "cannot see side files"
    )
    return replace(f, hint=hint)


def _refuse_regression(before: Report, after: Report, req: FixRequest, root: Path) -> None:
    """--out / --in-place never turn a checkpoint that passes ``--profile`` into one
    that fails it (a side file changes nothing by itself: it is written, with verdicts)."""
    p = req.profile
    if req.mode == SIDE or not before.verdicts.get(p) or after.verdicts.get(p):
        return
    new = [f for f in after.errors if f.code in _new_errors(before, after, [p])] or after.errors
    gained = [n for n, ok in after.verdicts.items() if ok and not before.verdicts.get(n)]
    instead = (
        f"; the change is for {' and '.join(gained)}: to write it, add --profile {gained[0]}"
        if gained
        else "; is --profile the runtime this checkpoint is for?"
    )
    raise CheckpointError(
        root,
        f"refused: the change would make this checkpoint fail {p}, which it passes now "
        f"({new[0].code}: {new[0].message}); nothing written{instead}",
    )


def _side_path(path: str | Path, *folders: tuple[str, Path | None]) -> Path:
    """A side file's path, refused inside a checkpoint folder, the drafter's or the
    target's (``folders``: what each is, and where; the default path is the current
    folder, which may well be one): without an index vLLM loads every ``*.safetensors``
    there as weights (and refuses tensors it has no parameter for), so a mask or d2t
    side file would break the checkpoint."""
    path = Path(path)
    here = os.path.realpath(path.parent)
    for what, folder in folders:
        if folder is not None and here == os.path.realpath(folder):
            raise UsageError(
                f"{path}: inside the {what} folder {folder}, where it would be loaded as "
                "weights; write side files elsewhere"
            )
    with writing(path):  # a folder on the way the user may not search: cannot write
        if not path.parent.is_dir():
            raise UsageError(f"{path}: no such directory {path.parent}")
    return path


def _side_files(
    ckpt: Checkpoint, plan: Plan, req: FixRequest, target: Target
) -> tuple[Path, list[File], File | None, list[str]]:
    """The side files (``d2t``, the mask), in write order; the one holding ``d2t``;
    notes. Usage errors (destinations) here; nothing written."""
    notes = list(plan.notes)
    files: list[File] = []
    d2t_file = None
    near = [("checkpoint", ckpt.origin.folder), ("target's checkpoint", target.root)]
    if plan.d2t is not None:
        meta = {**_vocab_metadata(plan), "d2t_origin": plan.d2t_origin or ""}
        d2t_file = _new_safetensors(
            _side_path(req.d2t_path or D2T_FILE, *near), {D2T: plan.d2t}, meta
        )
        files.append(d2t_file)
    files += _mask_files(plan, req, near)
    for f in files:
        check_destination(f.dest, req.force)
    return ckpt.root, files, d2t_file, notes


def _mask_files(plan: Plan, req: FixRequest, near: list) -> list[File]:
    """The mask, always a side file, never a checkpoint tensor: it is for the serving
    runtime (vLLM refuses tensors it has no parameter for)."""
    if plan.mask is None:
        return []
    name, values, meta = mask_file(plan, req.mask_style)
    return [_new_safetensors(_side_path(req.mask_path, *near), {name: values}, meta)]


def _fix_checkpoint(
    source: str,
    target: Target,
    req: FixRequest,
    ckpt: Checkpoint,
    cfg: DrafterConfig,
    plan: Plan,
    before: Report,
    recovered: list[str],
) -> FixResult:
    """``--emit-d2t`` / ``--emit-mask`` with ``--out`` or ``--in-place``: the ``d2t`` and
    ``draft_vocab_size`` are changes of a repair ``Draft``, checked and written by the one
    write path (``fix_write.write_draft``) as any repair; the mask a side file beside."""
    notes = [*recovered, *plan.notes]
    draft = Draft.of(ckpt, new_shard_name(ckpt))
    own = ckpt.find(D2T)
    if plan.d2t is not None and own is None:
        draft.apply(Put(D2T, plan.d2t, plan.d2t_origin or ""))
    elif plan.d2t is not None:  # plan.d2t is the checkpoint's own (plan_fix)
        notes.append(f"the checkpoint already holds this d2t ({own.path.name}): unchanged")
    notes += _set_draft_vocab_size(draft, cfg)
    root = destination_root(ckpt, req)
    near = [("checkpoint", ckpt.origin.folder), ("target's checkpoint", target.root)]
    side = _mask_files(plan, req, [*near, ("checkpoint", root)])
    made = []
    if D2T in draft.changed:  # the new shard holds d2t alone: its bytes checked as a file
        data = b"".join(shard_files(ckpt, draft)[draft.new_shard].parts)
        made.append(File(root / draft.new_shard, data, tensors={D2T: plan.d2t}, metadata=META))
    planned = draft_files(ckpt, draft, root, req, side, made)  # destinations checked first
    after = inspect_checkpoint(
        source, target, req.profile, checkpoint=repaired_checkpoint(ckpt, draft)
    )
    refuse_unreadable(after, ckpt.root)
    _refuse_regression(before, after, req, ckpt.root)
    files, more, after = write_draft(planned, root, req, target, [req.profile], after)
    notes += more
    written = [
        _written(f.dest, k, v, f.data) for f in planned.checked for k, v in f.tensors.items()
    ]
    if plan.mask is not None:  # DSC401's hint no longer sends the user back to --emit-mask
        after = replace(after, findings=[_masked(f, req.mask_path) for f in after.findings])
    notes += _verdict_notes(before, after, plan)
    return FixResult(req, plan, written, [*files], before, after, notes)


def run_fix(source: str, target: Target, req: FixRequest) -> FixResult:
    """Plan, check the planned result, then write it atomically, read it back and
    inspect it again before the transaction ends. Raises ``CheckpointError`` (refused,
    unreadable) or ``UsageError``: in both cases nothing is written."""
    with held_in_place(source, req.in_place):
        return _run_fix(source, target, req)


def _run_fix(source: str, target: Target, req: FixRequest) -> FixResult:
    spec = req.profile if req.profile and runtime_spec(req.profile) else None
    if req.profile is not None and spec is None:  # any of its names: the profile's own
        req = replace(req, profile=get_profile(req.profile).name)
    if req.mask_style not in MASK_STYLES:
        raise UsageError(f"unknown --mask-style {req.mask_style!r}; choose from bool, additive")
    if req.mask_path is None and not req.emit_d2t:
        raise UsageError("nothing to do: give --emit-mask and/or --emit-d2t")
    if req.out is not None and req.in_place:
        raise UsageError("give at most one of --out and --in-place")
    ckpt, cfg, family, recovered = open_drafter(
        source, req, req.mode, [req.profile] if req.profile and not spec else []
    )
    if spec is not None:  # RUNTIME==VERSION (--runtime): that release's, for the family
        req = replace(req, profile=resolve_profile(spec, family))
    req = replace(req, profile=req.profile or default_profile(family))
    before = inspect_checkpoint(source, target, req.profile, checkpoint=ckpt)
    plan = plan_fix(ckpt, cfg, target, req)
    if req.mode != SIDE:
        return _fix_checkpoint(source, target, req, ckpt, cfg, plan, before, recovered)
    root, files, d2t_file, notes = _side_files(ckpt, plan, req, target)
    notes[:0] = recovered

    # the result, checked before anything is written
    made = [f for f in files if f.tensors is not None]
    for f in made:
        check_bytes(f)
    planned = planned_checkpoint(ckpt, files, d2t_file)
    after = inspect_checkpoint(source, target, req.profile, checkpoint=planned)
    refuse_unreadable(after, ckpt.root)
    _refuse_regression(before, after, req, ckpt.root)

    with Transaction(force=req.force) as tx:
        for f in files:
            tx.add_bytes(f.dest, f.data)
        tx.commit(check=lambda: [read_back(f) for f in made])
    notes += tx.recovered

    if plan.mask is not None:  # DSC401's hint no longer sends the user back to --emit-mask
        after = replace(after, findings=[_masked(f, req.mask_path) for f in after.findings])
    written = [_written(f.dest, k, v, f.data) for f in made for k, v in f.tensors.items()]
    notes += _verdict_notes(before, after, plan)
    return FixResult(req, plan, written, [str(f.dest) for f in files], before, after, notes)


# --- repairs (fix without --emit-*) ------------------------------------------------


def run_repair(source: str, target: Target, req: RepairRequest) -> RepairResult:
    """Plan the repairs of the deciding profiles' findings and, unless ``req.diff``,
    write them atomically (``--out`` / ``--in-place --force``), inspect the result before
    the transaction ends, and verify it with ``req.verify``. Raises ``CheckpointError``
    (refused: a conflict, a value only the user can give, a regression; unreadable) or
    ``UsageError``: then nothing is written. A header is read once per run (the plan
    reads the metadata of a shard it rewrites from the header read first)."""
    token = header_cache.set({})
    try:
        if (folder := pickle_folder(source)) is not None:  # converted first, never run
            return convert_and_repair(folder, target, req, _run_repair)
        try:
            with held_in_place(source, req.in_place and not req.diff):
                return _run_repair(source, target, req)
        except PickleOnly:
            if is_local(source):
                raise
        folder, jail = hub_pickle_folder(source)  # a Hub repository of pickles: downloaded
        return convert_and_repair(folder, target, req, _run_repair, jail, source)
    finally:
        header_cache.reset(token)


def _run_repair(
    source: str, target: Target, req: RepairRequest, convert: bool = False
) -> RepairResult:
    # RUNTIME==VERSION (--runtime) is resolved once the drafter's family is known
    names = [get_profile(n).name for n in req.profiles or [] if runtime_spec(n) is None]
    if req.out is not None and req.in_place:
        raise UsageError("give at most one of --out and --in-place")
    if not req.diff and req.out is None and not req.in_place:
        raise UsageError(
            "say where the repaired checkpoint goes: --out DIR, or --in-place --force "
            "(--diff shows the plan and writes nothing; --emit-mask / --emit-d2t write side "
            "files)"
        )
    if req.verify and req.diff:
        raise UsageError("--verify checks a written result: it cannot go with --diff")
    if req.verify:
        from dspark_ckpt.commands.verify import require_torch

        require_torch()  # before anything is read or written
    mode = SIDE if req.diff else OUT if req.out is not None else IN_PLACE
    every = set(names) == set(PROFILES)  # --profile all: the family's, as for inspect
    ckpt, _, family, recovered = open_drafter(source, req, mode, [] if every else names)
    names = list(dict.fromkeys(resolve_profile(n, family) for n in req.profiles or []))
    selected = applicable_profiles(family) if every else names or [default_profile(family)]
    plan, draft, before, after = plan_repairs(
        source, ckpt, target, selected, req, new_shard_name(ckpt)
    )
    notes = [*recovered, *plan.asked, *_gained_and_lost(before, after)]
    if plan.refusal is not None and not req.diff:
        raise CheckpointError(ckpt.root, f"refused: {plan.refusal}; nothing written")
    if req.diff or not (plan.changes or convert):  # a conversion is written as it is
        if not plan.changes:
            notes.append("nothing to repair: nothing written")
        return RepairResult(req, plan, before, after, [], notes)
    root = destination_root(ckpt, req)
    files = draft_files(ckpt, draft, root, req)
    written, more, _ = write_draft(files, root, req, target, selected, after)
    result = RepairResult(req, plan, before, after, written, notes + more)
    if req.verify:
        from dspark_ckpt.commands.verify import verify_checkpoint

        result.verify = verify_checkpoint(str(root), target)
    return result


def _gained_and_lost(before: Report, after: Report) -> list[str]:
    """Per profile, what the change does to the verdict."""
    notes = []
    gained = [n for n, ok in after.verdicts.items() if ok and not before.verdicts.get(n, False)]
    lost = [n for n, ok in after.verdicts.items() if not ok and before.verdicts.get(n, False)]
    if gained:
        notes.append(f"this change makes {', '.join(gained)} pass (failed before)")
    if lost:
        why = ", ".join(f"{c} {get_code(c).title}" for c in _new_errors(before, after, lost))
        notes.append(f"this change makes {', '.join(lost)} FAIL (passed before): {why}")
    return notes
