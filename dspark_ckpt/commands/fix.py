"""``fix``: emit the padded-row mask and the ``d2t`` a checkpoint needs, safely.

``plan_fix`` decides what to write (pure: arrays and notes, or a refusal).
``run_fix`` turns the plan into files (side files, a patched copy with ``out``, or
the checkpoint itself with ``in_place``) and checks them before writing anything: the
bytes parse back to what was meant, and the planned checkpoint is inspected under
every profile; ``out`` / ``in_place`` refuse a change that makes ``--profile`` fail.
Then one ``atomic.Transaction`` writes them, reads them back and compares the written
checkpoint with the plan before its commit point: any failure before it rolls
everything back; after it nothing does (the checks themselves: ``fix_checks``).

Never imports torch and reads no tensor data except ``d2t`` and ``t2d``: unchanged
shards are hard-linked or copied as bytes, never loaded; every other file is copied
(a hard link would make an edit of the copy an edit of the source).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from dspark_ckpt.commands.draft_map import draft_map
from dspark_ckpt.commands.fix_checks import (
    File,
    check_bytes,
    check_layout,
    planned_checkpoint,
    read_back,
    refuse_unreadable,
)
from dspark_ckpt.commands.inspect import Report, inspect_checkpoint
from dspark_ckpt.commands.repair import (
    ST_DTYPES,
    RepairRequest,
    RepairResult,
    array_bytes,
    config_bytes,
    index_bytes,
    is_empty,
    plan_repairs,
    shard_files,
    updated_index,
)
from dspark_ckpt.commands.repair import (
    planned_checkpoint as repaired_checkpoint,
)
from dspark_ckpt.errors import CheckpointError, UsageError, few
from dspark_ckpt.facts.config import DrafterConfig, drafter_config
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
    covered,
    default_profile,
    detect_family,
    get_profile,
    resolve_profile,
    runtime_spec,
)
from dspark_ckpt.rules.codes import get_code
from dspark_ckpt.rules.findings import ERROR, Finding
from dspark_ckpt.source.atomic import (
    Transaction,
    check_destination,
    leftovers,
    recover,
    refuse_symlink,
    step,
    writing,
)
from dspark_ckpt.source.base import header_cache
from dspark_ckpt.source.checkpoint import (
    Checkpoint,
    build_checkpoint,
    local_checkpoint,
    open_source,
)
from dspark_ckpt.source.layout import CONFIG, INDEX, pick_weights
from dspark_ckpt.source.pieces import safetensors_pieces

MASK_FILE = "draft_vocab_mask.safetensors"
D2T_FILE = "d2t.safetensors"
NEW_SHARD = "model-dspark-ckpt-fix.safetensors"  # the new tensors of a patched checkpoint
BOOL_STYLE, ADDITIVE_STYLE = "bool", "additive"
MASK_STYLES = (BOOL_STYLE, ADDITIVE_STYLE)
BIAS_MEANING = "0 = this draft id may be sampled; -inf = padded row: add it to the draft logits"
SIDE, OUT, IN_PLACE = "side", "out", "in-place"

# safetensors dtype names of the arrays we write


@dataclass(frozen=True)
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


@dataclass(frozen=True)
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


@dataclass(frozen=True)
class Written:
    path: str
    tensor: str
    dtype: str
    shape: list[int]
    sha256: str


@dataclass
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
    rows = [
        (name, ST_DTYPES[a.dtype], a.shape, array_bytes(a)) for name, a in sorted(tensors.items())
    ]
    return b"".join(safetensors_pieces(rows, metadata).parts)


def _written(path: Path, name: str, array: np.ndarray, data: bytes) -> Written:
    return Written(
        str(path), name, ST_DTYPES[array.dtype], list(array.shape), hashlib.sha256(data).hexdigest()
    )


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


def _config_bytes(ckpt: Checkpoint, cfg: DrafterConfig) -> bytes | None:
    """config.json with draft_vocab_size written explicitly, or None: if it already was,
    or if a runtime of the drafter's family reads its absence (``_absence_read_by``) and
    none fails on a missing key; where one does, the key is written as null (what the
    absence means there)."""
    if not cfg.draft_vocab_size_defaulted:
        return None
    raw = dict(cfg.raw)
    if _absence_read_by(cfg):
        if not _null_needed_by(cfg):
            return None
        raw["draft_vocab_size"] = None
    else:
        raw["draft_vocab_size"] = cfg.draft_vocab_size
    return config_bytes(raw)


def _index_bytes(ckpt: Checkpoint, added: dict[str, np.ndarray], shard: str) -> bytes:
    """The index of the patched checkpoint: the old one updated, or a new one."""
    weight_map = {name: info.path.name for name, info in ckpt.tensors.items()}
    weight_map.update(dict.fromkeys(added, shard))
    total = sum(info.nbytes for info in ckpt.tensors.values())
    total += sum(a.nbytes for a in added.values())
    return updated_index(ckpt, weight_map, total)


def _destination_root(ckpt: Checkpoint, req: FixRequest | RepairRequest) -> Path:
    if req.out is None:  # in place
        if not req.force:
            raise UsageError("--in-place changes the source checkpoint: pass --force as well")
        _refuse_unserved_neighbours(ckpt)
        return ckpt.root
    out = Path(req.out)
    real_out, real_root = Path(os.path.realpath(out)), Path(os.path.realpath(ckpt.root))
    if real_out == real_root or real_out.is_relative_to(real_root):
        raise UsageError(
            f"{out}: is the source checkpoint or inside it; use --in-place --force to patch it"
        )
    refuse_symlink(out)
    return out


def _refuse_unserved_neighbours(ckpt: Checkpoint) -> None:
    """In place, the index fix writes decides what runtimes load from the folder: it must
    name every weight file they load today. Without an index that is every
    ``*.safetensors`` there (``pick_weights``), so one file of such a folder given alone
    is refused: the others' tensors would silently stop being served."""
    with writing(ckpt.root):
        names = [p.name for p in ckpt.root.iterdir()]
    index, loaded = pick_weights(names, ckpt.root)
    others = sorted(set(loaded) - {f.name for f in ckpt.files}) if index is None else []
    if others:
        raise UsageError(
            f"{ckpt.name}: the folder also holds {few(others)}, which runtimes load with it "
            "(there is no index); an index naming only this file would stop serving them: "
            f"pass the folder ({ckpt.root})"
        )


def _is_checkpoint_file(name: str) -> bool:
    return name == CONFIG or name.endswith((".safetensors", ".safetensors.index.json"))


def _other_files(ckpt: Checkpoint) -> tuple[list[Path], list[str]]:
    """The rest of the checkpoint folder that ``--out`` copies as it is (tokenizer,
    generation config, README): its top-level regular files that are no weights, index or
    config, and no link leading out of the checkpoint (a Hub snapshot's links into its
    repo's blobs count as inside). Also what it leaves out, named for a note: stray
    weights, hidden files, links out, folders, anything not a regular file."""
    if ckpt.origin.folder is None or not ckpt.root.is_dir():  # read from the Hub
        return [], []
    jail = os.path.realpath(ckpt.origin.jail)
    copied, left = [], []
    used = {p.name for p in ckpt.files} | {CONFIG, INDEX}
    used |= {ckpt.index_path.name} if ckpt.index_path else set()
    for p in sorted(ckpt.root.iterdir()):
        if p.name in used:
            continue
        if _is_checkpoint_file(p.name):
            left.append(f"{p.name} (weights the checkpoint does not use)")
        elif p.name.startswith("."):
            left.append(f"{p.name} (hidden)")
        elif not Path(os.path.realpath(p)).is_relative_to(jail):
            left.append(f"{p.name} (a link out of the checkpoint)")
        elif p.is_dir():
            left.append(f"{p.name}/ (a folder)")
        elif not p.is_file():
            left.append(f"{p.name} (not a regular file)")
        else:
            copied.append(p)
    return copied, left


def _refuse_stale_files(out: Path, files: list[File]) -> None:
    """An --out folder may hold only checkpoint files this run writes itself: a stale
    index or shard of another checkpoint would win over (or mix with) the new one. A
    folder that cannot be listed is a ``WriteError`` naming it."""
    with writing(out):
        if not out.is_dir():
            return
        real_out = os.path.realpath(out)
        ours = {f.dest.name for f in files if os.path.realpath(f.dest.parent) == real_out}
        stale = sorted(
            p.name for p in out.iterdir() if _is_checkpoint_file(p.name) and p.name not in ours
        )
    if stale:
        raise UsageError(
            f"{out}: holds {few(stale)}, which this run would not write (left from "
            "another checkpoint?); give an empty or new folder to --out"
        )


def _new_safetensors(dest: Path, tensors: dict[str, np.ndarray], metadata: dict[str, str]):
    return File(dest, _safetensors_bytes(tensors, metadata), tensors=tensors, metadata=metadata)


def _new_shard_name(ckpt: Checkpoint) -> str:
    """The file for the tensors fix adds: ``NEW_SHARD``, or ``NEW_SHARD`` numbered where
    the checkpoint already uses that name (an earlier fix by another version, or a
    producer's): a shard it uses is never replaced by one holding only the new tensors."""
    used = {f.name for f in ckpt.files}
    stem = NEW_SHARD.removesuffix(".safetensors")
    names = (NEW_SHARD, *(f"{stem}-{n}.safetensors" for n in range(2, len(used) + 3)))
    return next(n for n in names if n not in used)


def _checkpoint_files(
    ckpt: Checkpoint, cfg: DrafterConfig, plan: Plan, req: FixRequest, root: Path
) -> tuple[list[File], File | None, list[str]]:
    """The files of the patched checkpoint (the copy, or the changes in place), and its
    index apart: it goes in last."""
    notes: list[str] = []
    added: dict[str, np.ndarray] = {}
    own = ckpt.find(D2T)
    if plan.d2t is not None and own is None:
        added[D2T] = plan.d2t
    elif plan.d2t is not None:  # plan.d2t is the checkpoint's own (plan_fix)
        notes.append(f"the checkpoint already holds this d2t ({own.path.name}): unchanged")

    files: list[File] = []
    shard = _new_shard_name(ckpt)
    if req.mode == OUT:
        files += [File(root / f.name, src=f, link=True) for f in ckpt.files]
        others, left = _other_files(ckpt)
        files += [File(root / p.name, src=p) for p in others]
        if left:
            notes.append(f"not copied to {root}: {few(left)}")
    if added:
        files.append(_new_safetensors(root / shard, added, _vocab_metadata(plan)))
    config = _config_bytes(ckpt, cfg)
    if config is not None:
        files.append(File(root / CONFIG, config))
        if _null_needed_by(cfg) and _absence_read_by(cfg):
            notes.append(
                "config.json: draft_vocab_size written as null: "
                f"{', '.join(_null_needed_by(cfg))} fail(s) without the key and use(s) the "
                "target's head for null"
            )
        else:
            notes.append(f"config.json: draft_vocab_size {cfg.draft_vocab_size} written explicitly")
    elif req.mode == OUT:  # copied, not linked: people edit configs in place
        files.append(File(root / CONFIG, src=ckpt.config_path))
    if config is None and cfg.draft_vocab_size_defaulted:
        notes.append(
            "config.json: draft_vocab_size left missing: "
            f"{', '.join(_absence_read_by(cfg))} read(s) its absence (the target's head is used)"
        )
    index = None
    if added:
        index = File(root / INDEX, _index_bytes(ckpt, added, shard))
    elif req.mode == OUT and ckpt.index_path is not None:
        index = File(root / INDEX, src=ckpt.index_path)
    return files, index, notes


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


def _result_files(
    ckpt: Checkpoint, cfg: DrafterConfig, plan: Plan, req: FixRequest, target: Target
) -> tuple[Path, list[File], File | None, list[str]]:
    """Every file of the result, in write order, as bytes or a file to copy; the file
    holding the new ``d2t``; notes. Usage errors (destinations) here; nothing written."""
    notes = list(plan.notes)
    files: list[File] = []
    index = d2t_file = None
    root = ckpt.root
    near = [("checkpoint", ckpt.origin.folder), ("target's checkpoint", target.root)]
    if req.mode != SIDE:
        root = _destination_root(ckpt, req)
        near.append(("checkpoint", root))  # the checkpoint written: no side file in it
        files, index, more = _checkpoint_files(ckpt, cfg, plan, req, root)
        notes += more
        d2t_file = next((f for f in files if f.tensors is not None and D2T in f.tensors), None)
    elif plan.d2t is not None:
        meta = {**_vocab_metadata(plan), "d2t_origin": plan.d2t_origin or ""}
        d2t_file = _new_safetensors(
            _side_path(req.d2t_path or D2T_FILE, *near), {D2T: plan.d2t}, meta
        )
        files.append(d2t_file)
    if plan.mask is not None:
        # the mask is for the serving runtime, never a checkpoint tensor (vLLM
        # refuses tensors it has no parameter for): always a side file
        name, values, meta = mask_file(plan, req.mask_style)
        mask_path = _side_path(req.mask_path, *near)
        files.append(_new_safetensors(mask_path, {name: values}, meta))
    files += [index] if index is not None else []  # the index goes in last
    if req.mode == OUT:
        _refuse_stale_files(root, files)
    for f in files:
        check_destination(f.dest, req.force)
    return root, files, d2t_file, notes


def _recover(folder: Path | None, req: FixRequest) -> list[str]:
    """What an interrupted fix (killed outright: ``kill -9``, a power cut) left where this
    one writes: rolled back or cleared (``atomic.recover``) in the checkpoint patched in
    place and the --out folder, before anything is read there; in a checkpoint this run
    may not change, only named."""
    said = []
    if req.mode == IN_PLACE and req.force and folder is not None:
        said += recover(folder)
    elif folder is not None and (left := leftovers(folder)):
        said.append(
            f"{folder} holds hidden files an interrupted write left ({few(left)}): "
            "fix --in-place --force rolls it back or clears them"
        )
    if req.mode == OUT:
        out = Path(req.out)
        with writing(out):  # a folder on the way the user may not search: cannot write
            if out.is_dir() and not out.is_symlink():
                said += recover(out, remove_made=True)
    return said


def _open_drafter(
    source: str, req: FixRequest | RepairRequest, mode: str, profiles: list[str]
) -> tuple[Checkpoint, DrafterConfig, str, list[str]]:
    """The drafter ``fix`` changes, its config and family, and what recovering an
    interrupted fix did (``_recover``); usage errors where it cannot: a Hub repository in
    place, a family no profile covers, a profile of another family."""
    origin = open_source(source)
    if mode == IN_PLACE and not origin.is_local:
        raise UsageError(f"{source}: a Hub repository cannot be patched in place; use --out DIR")
    recovered = _recover(origin.folder, req)  # before anything is read from the folder
    ckpt = build_checkpoint(origin)
    if mode == OUT:
        ckpt = local_checkpoint(ckpt)  # the copy links or copies local weight files
    cfg = drafter_config(ckpt)
    family = detect_family(cfg)
    if not covered(family):
        raise UsageError(
            f"{source}: no profile covers this drafter's family ({family or 'unknown'}): "
            "fix judges DSpark, DFlash and EAGLE-3 drafters only; nothing written"
        )
    for name in profiles:
        if PROFILES[name].family != family:
            raise UsageError(
                f"--profile {name} judges {PROFILES[name].family} drafters; this is a "
                f"{family} drafter (its profiles: {', '.join(applicable_profiles(family))})"
            )
    return ckpt, cfg, family, recovered


def run_fix(source: str, target: Target, req: FixRequest) -> FixResult:
    """Plan, check the planned result, then write it atomically, read it back and
    inspect it again before the transaction ends. Raises ``CheckpointError`` (refused,
    unreadable) or ``UsageError``: in both cases nothing is written."""
    spec = req.profile if req.profile and runtime_spec(req.profile) else None
    if req.profile is not None and spec is None:  # any of its names: the profile's own
        req = replace(req, profile=get_profile(req.profile).name)
    if req.mask_style not in MASK_STYLES:
        raise UsageError(f"unknown --mask-style {req.mask_style!r}; choose from bool, additive")
    if req.mask_path is None and not req.emit_d2t:
        raise UsageError("nothing to do: give --emit-mask and/or --emit-d2t")
    if req.out is not None and req.in_place:
        raise UsageError("give at most one of --out and --in-place")
    ckpt, cfg, family, recovered = _open_drafter(
        source, req, req.mode, [req.profile] if req.profile and not spec else []
    )
    if spec is not None:  # RUNTIME==VERSION (--runtime): that release's, for the family
        req = replace(req, profile=resolve_profile(spec, family))
    req = replace(req, profile=req.profile or default_profile(family))
    before = inspect_checkpoint(source, target, req.profile, checkpoint=ckpt)
    plan = plan_fix(ckpt, cfg, target, req)
    root, files, d2t_file, notes = _result_files(ckpt, cfg, plan, req, target)
    notes[:0] = recovered

    # the result, checked before anything is written
    made = [f for f in files if f.tensors is not None]
    for f in made:
        check_bytes(f)
    planned = planned_checkpoint(ckpt, files, d2t_file)
    after = inspect_checkpoint(source, target, req.profile, checkpoint=planned)
    refuse_unreadable(after, ckpt.root)
    _refuse_regression(before, after, req, ckpt.root)

    def check_written() -> None:
        """After the commit, before the transaction ends: a failure here rolls back."""
        nonlocal after
        for f in made:
            read_back(f)
        if req.mode != SIDE:
            step("reinspect", root)
            real = inspect_checkpoint(str(root), target, req.profile)
            check_layout(planned, real, root)
            if real.verdicts != after.verdicts:
                raise CheckpointError(
                    root,
                    "the written checkpoint inspects differently from the plan; rolled back, "
                    "nothing changed",
                )
            after = real  # the same verdicts, its findings naming the written files

    with Transaction(force=req.force) as tx:
        if req.mode == OUT:
            tx.make_dir(root)
        for f in files:
            if f.src is not None:
                tx.add_copy(f.dest, f.src, link=f.link)
            else:
                tx.add_bytes(f.dest, f.data)
        tx.commit(check=check_written)
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
        return _run_repair(source, target, req)
    finally:
        header_cache.reset(token)


def _run_repair(source: str, target: Target, req: RepairRequest) -> RepairResult:
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
    ckpt, _, family, recovered = _open_drafter(source, req, mode, [] if every else names)
    names = list(dict.fromkeys(resolve_profile(n, family) for n in req.profiles or []))
    selected = applicable_profiles(family) if every else names or [default_profile(family)]
    plan, draft, before, after = plan_repairs(
        source, ckpt, target, selected, req, _new_shard_name(ckpt)
    )
    notes = [*recovered, *_gained_and_lost(before, after)]
    if plan.refusal is not None and not req.diff:
        raise CheckpointError(ckpt.root, f"refused: {plan.refusal}; nothing written")
    if req.diff or not plan.changes:
        if not plan.changes:
            notes.append("nothing to repair: nothing written")
        return RepairResult(req, plan, before, after, [], notes)
    root = _destination_root(ckpt, req)
    written, more = _write_repairs(ckpt, draft, root, req, target, selected, after)
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


def _write_repairs(
    ckpt: Checkpoint,
    draft,
    root: Path,
    req: RepairRequest,
    target: Target,
    selected: list[str],
    after: Report,
) -> tuple[list[str], list[str]]:
    """Write the repaired checkpoint in one transaction: the files written, and what
    recovering an interrupted write in those folders did."""
    out = req.out is not None
    shards = shard_files(ckpt, draft)
    config = config_bytes(draft.config) if draft.config != ckpt.config else None
    index = index_bytes(ckpt, draft, shards)
    index_dest = root / (ckpt.index_path.name if ckpt.index_path else INDEX)
    planned = repaired_checkpoint(ckpt, draft)
    files: list[tuple[Path, Callable[[Transaction, Path], None]]] = []
    for name, pieces in shards.items():
        if pieces is None and out:
            files.append(
                (root / name, lambda tx, d, n=name: tx.add_copy(d, ckpt.root / n, link=True))
            )
        elif pieces is not None and not (out and is_empty(pieces)):
            files.append((root / name, lambda tx, d, p=pieces: tx.add_pieces(d, p)))
    if config is not None:
        files.append((root / CONFIG, lambda tx, d: tx.add_bytes(d, config)))
    elif out and ckpt.config is not None:
        files.append((root / CONFIG, lambda tx, d: tx.add_copy(d, ckpt.config_path)))
    if out:
        others, _ = _other_files(ckpt)
        files += [(root / p.name, lambda tx, d, p=p: tx.add_copy(d, p)) for p in others]
        _refuse_stale_files(root, [File(d) for d, _ in files] + [File(index_dest)])
    if index is not None:
        files.append((index_dest, lambda tx, d: tx.add_bytes(d, index)))
    elif out and ckpt.index_path is not None:
        files.append((index_dest, lambda tx, d: tx.add_copy(d, ckpt.index_path)))
    for dest, _ in files:
        check_destination(dest, req.force)

    def check_written() -> None:
        """After the commit, before the transaction ends: a failure here rolls back."""
        step("reinspect", root)
        real = inspect_checkpoint(str(root), target, selected)
        check_layout(planned, real, root)
        if real.verdicts != after.verdicts:
            raise CheckpointError(
                root,
                "the written checkpoint inspects differently from the plan; rolled back, "
                "nothing changed",
            )

    with Transaction(force=req.force) as tx:
        if out:
            tx.make_dir(root)
        for dest, add in files:
            add(tx, dest)
        tx.commit(check=check_written)
    return [str(d) for d, _ in files], tx.recovered
