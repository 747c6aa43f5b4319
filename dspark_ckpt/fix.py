"""``fix``: emit the padded-row mask and the ``d2t`` a checkpoint needs, safely.

``plan_fix`` decides what to write (pure: arrays and notes, or a refusal);
``run_fix`` writes it through one ``atomic.Transaction`` (side files, a patched copy
with ``out``, or the checkpoint itself with ``in_place``), reads it back, and
inspects the result again under every profile.

Never imports torch and reads no tensor data except ``d2t`` and ``t2d``: unchanged
shards are hard-linked or copied as bytes, never loaded.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from dspark_ckpt import hub
from dspark_ckpt.atomic import Transaction
from dspark_ckpt.checkpoint import (
    CONFIG,
    INDEX,
    Checkpoint,
    Target,
    drafter_config,
    open_checkpoint,
)
from dspark_ckpt.config import DrafterConfig
from dspark_ckpt.errors import CheckpointError, UsageError
from dspark_ckpt.findings import ERROR
from dspark_ckpt.inspect import Report, inspect_checkpoint
from dspark_ckpt.mask import BIAS_TENSOR, MASK_MEANING, MASK_TENSOR, sampleable_mask
from dspark_ckpt.profiles import DEFAULT_PROFILE, get_profile
from dspark_ckpt.rules import D2T, PADDED, PRUNED, T2D, classify, d2t_value_findings
from dspark_ckpt.safetensors_io import read_header, read_json_file

MASK_FILE = "draft_vocab_mask.safetensors"
D2T_FILE = "d2t.safetensors"
NEW_SHARD = "model-dspark-ckpt-fix.safetensors"  # the new tensors of a patched checkpoint
BOOL_STYLE, ADDITIVE_STYLE = "bool", "additive"
MASK_STYLES = (BOOL_STYLE, ADDITIVE_STYLE)
BIAS_MEANING = "0 = this draft id may be sampled; -inf = padded row: add it to the draft logits"
SIDE, OUT, IN_PLACE = "side", "out", "in-place"

# safetensors dtype names of the arrays we write
ST_DTYPES = {np.dtype(bool): "BOOL", np.dtype(np.float32): "F32", np.dtype(np.int64): "I64"}


@dataclass(frozen=True)
class FixRequest:
    mask_path: Path | None = None  # emit the mask there
    d2t_path: Path | None = None  # emit d2t there (a side file; ignored with out/in_place)
    emit_d2t: bool = False
    mask_style: str = BOOL_STYLE
    out: Path | None = None  # a patched copy of the checkpoint
    in_place: bool = False  # patch the checkpoint itself
    force: bool = False
    profile: str = DEFAULT_PROFILE

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


def _read_d2t(ckpt: Checkpoint, vd: int) -> np.ndarray | None:
    info = ckpt.find(D2T)
    if info is None:
        return None
    if info.dtype != "I64" or info.shape != (vd,):
        raise CheckpointError(
            info.path,
            f"d2t is {info.dtype} {list(info.shape)}, not I64 [{vd}]: fix does not replace an "
            "existing d2t; re-export it",
        )
    return np.array(ckpt.read(info), dtype=np.int64)


def _derive_from_t2d(ckpt: Checkpoint, vd: int, vt: int) -> np.ndarray | None:
    """``d2t[i] = nonzero(t2d)[i] - i``, after checking ``t2d.sum() == Vd``."""
    info = ckpt.find(T2D)
    if info is None:
        return None
    if info.dtype != "BOOL" or info.shape != (vt,):
        raise CheckpointError(
            info.path, f"t2d is {info.dtype} {list(info.shape)}, not BOOL [{vt}]: cannot derive d2t"
        )
    selected = np.flatnonzero(ckpt.read(info))
    if selected.size != vd:
        raise CheckpointError(
            info.path, f"t2d selects {selected.size} target ids but Vd is {vd}: cannot derive d2t"
        )
    return (selected - np.arange(vd)).astype(np.int64)


def _check_d2t(d2t: np.ndarray, vt: int, where: str) -> None:
    errors = [f for f in d2t_value_findings(d2t, vt) if f.severity == ERROR]
    if errors:
        raise CheckpointError(
            where, f"{errors[0].code}: {errors[0].message}; fix does not write a broken d2t"
        )


def plan_fix(ckpt: Checkpoint, cfg: DrafterConfig, target: Target, req: FixRequest) -> Plan:
    """The mask and d2t this checkpoint needs, or a ``CheckpointError`` saying why not."""
    vd, vt = cfg.draft_vocab_size, target.vocab_size
    cls = classify(vd, vt)
    existing = _read_d2t(ckpt, vd)
    derived = _derive_from_t2d(ckpt, vd, vt) if cls == PRUNED and existing is None else None
    notes: list[str] = []

    d2t = origin = None
    if req.emit_d2t:
        if cls != PRUNED:
            d2t, origin = np.zeros(vd, dtype=np.int64), "identity (all zeros)"
        elif existing is not None:
            d2t, origin = existing, "the checkpoint's own"
        elif derived is not None:
            d2t, origin = derived, "derived from t2d"
        else:
            raise CheckpointError(
                ckpt.root,
                f"pruned drafter (Vd {vd} < Vt {vt}) has neither d2t nor t2d: no correct "
                "mapping can be invented; re-export d2t from the ids the trainer selected",
            )
        _check_d2t(d2t, vt, str(ckpt.root))
        notes.append(f"d2t: {origin}")

    mask = None
    if req.mask_path is not None:
        mapping = existing if existing is not None else derived
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
    return Plan(cls, vd, vt, mask, d2t, origin, notes)


# --- files -----------------------------------------------------------------------


def _safetensors_bytes(tensors: dict[str, np.ndarray], metadata: dict[str, str]) -> bytes:
    """A safetensors file, byte-for-byte reproducible (the library's own writer orders
    ``__metadata__`` at random): header keys sorted, padded to 8 bytes with spaces."""
    header: dict = {"__metadata__": dict(sorted(metadata.items()))}
    chunks, offset = [], 0
    for name in sorted(tensors):
        data = np.ascontiguousarray(tensors[name]).astype(tensors[name].dtype.newbyteorder("<"))
        raw = data.tobytes()
        header[name] = {
            "dtype": ST_DTYPES[tensors[name].dtype],
            "shape": list(data.shape),
            "data_offsets": [offset, offset + len(raw)],
        }
        chunks.append(raw)
        offset += len(raw)
    head = json.dumps(header, separators=(",", ":")).encode()
    head += b" " * (-len(head) % 8)
    return len(head).to_bytes(8, "little") + head + b"".join(chunks)


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


def _config_bytes(ckpt: Checkpoint, cfg: DrafterConfig) -> bytes | None:
    """config.json with draft_vocab_size written explicitly, or None if it already was."""
    if not cfg.draft_vocab_size_defaulted:
        return None
    raw = dict(cfg.raw)
    raw["draft_vocab_size"] = cfg.draft_vocab_size
    return (json.dumps(raw, indent=2) + "\n").encode()


def _index_bytes(ckpt: Checkpoint, added: dict[str, np.ndarray], shard: str) -> bytes:
    """The index of the patched checkpoint: the old one updated, or a new one."""
    data = read_json_file(ckpt.index_path, "index") if ckpt.index_path else {}
    weight_map = {name: info.path.name for name, info in ckpt.tensors.items()}
    weight_map.update(dict.fromkeys(added, shard))
    total = sum(info.nbytes for info in ckpt.tensors.values())
    total += sum(a.nbytes for a in added.values())
    metadata = data.get("metadata") if isinstance(data.get("metadata"), dict) else {}
    data["metadata"] = {**metadata, "total_size": total}
    data["weight_map"] = dict(sorted(weight_map.items()))
    return (json.dumps(data, indent=2) + "\n").encode()


def _destination_root(ckpt: Checkpoint, req: FixRequest) -> Path:
    if req.mode == IN_PLACE:
        if not req.force:
            raise UsageError("--in-place changes the source checkpoint: pass --force as well")
        return ckpt.root
    out = Path(req.out)
    real_out, real_root = Path(os.path.realpath(out)), Path(os.path.realpath(ckpt.root))
    if real_out == real_root or real_out.is_relative_to(real_root):
        raise UsageError(
            f"{out}: is the source checkpoint or inside it; use --in-place --force to patch it"
        )
    if out.is_symlink():
        raise UsageError(f"{out}: is a symlink; refusing to write through it")
    return out


def _stage_checkpoint(
    tx: Transaction, ckpt: Checkpoint, cfg: DrafterConfig, plan: Plan, req: FixRequest
) -> tuple[Path, list[Written], list[str]]:
    """Stage the patched checkpoint (the copy, or the changes in place); the index last."""
    root = _destination_root(ckpt, req)
    notes: list[str] = []
    added: dict[str, np.ndarray] = {}
    if plan.d2t is not None:
        existing = ckpt.find(D2T)
        if existing is None:
            added[D2T] = plan.d2t
        elif np.array_equal(ckpt.read(existing), plan.d2t):
            notes.append(f"the checkpoint already holds this d2t ({existing.path.name}): unchanged")
        else:  # _read_d2t / plan_fix refuse this already; kept as a guard
            raise CheckpointError(existing.path, "holds another d2t; fix does not replace it")

    if req.mode == OUT:
        tx.make_dir(root)
        for f in ckpt.files:
            tx.add_copy(root / f.name, f)
    written: list[Written] = []
    if added:
        data = _safetensors_bytes(added, _vocab_metadata(plan))
        tx.add_bytes(root / NEW_SHARD, data)
        written += [_written(root / NEW_SHARD, k, v, data) for k, v in added.items()]
    config = _config_bytes(ckpt, cfg)
    if config is not None:
        tx.add_bytes(root / CONFIG, config)
        notes.append(f"config.json: draft_vocab_size {cfg.draft_vocab_size} written explicitly")
    elif req.mode == OUT:  # copied, not linked: people edit configs in place
        tx.add_bytes(root / CONFIG, ckpt.config_path.read_bytes())
    if added:
        tx.add_bytes(root / INDEX, _index_bytes(ckpt, added, NEW_SHARD))
    elif req.mode == OUT and ckpt.index_path is not None:
        tx.add_copy(root / INDEX, ckpt.index_path)
    return root, written, notes


def _read_back(w: Written, expected: np.ndarray, metadata: dict[str, str] | None) -> None:
    """Load the written tensor with safetensors (numpy) and compare it with what was meant."""
    from safetensors import safe_open

    path = Path(w.path)
    try:
        with safe_open(str(path), framework="np") as f:
            got = f.get_tensor(w.tensor)
            got_meta = f.metadata()
    except Exception as e:  # the library's own errors: report, never a traceback
        raise CheckpointError(path, f"written file does not read back: {e}") from None
    if got.dtype != expected.dtype or not np.array_equal(got, expected):
        raise CheckpointError(path, f"{w.tensor} reads back different from what was written")
    if metadata is not None and got_meta != metadata:
        raise CheckpointError(path, "metadata reads back different from what was written")


def _verdict_notes(after: Report, plan: Plan) -> list[str]:
    notes = []
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


def run_fix(source: str, target: Target, req: FixRequest) -> FixResult:
    """Plan, write atomically, read back, re-inspect. Raises ``CheckpointError`` (refused,
    unreadable: nothing written) or ``UsageError``."""
    get_profile(req.profile)
    if req.mask_style not in MASK_STYLES:
        raise UsageError(f"unknown --mask-style {req.mask_style!r}; choose from bool, additive")
    if req.mask_path is None and not req.emit_d2t:
        raise UsageError("nothing to do: give --emit-mask and/or --emit-d2t")
    if req.out is not None and req.in_place:
        raise UsageError("give at most one of --out and --in-place")
    if req.mode == IN_PLACE and hub.hub_ref(source) is not None:
        raise UsageError(f"{source}: a Hub repository cannot be patched in place; use --out DIR")
    ckpt = open_checkpoint(source)
    if req.mode == OUT:
        ckpt = hub.download_weights(ckpt)  # the copy links or copies local weight files
    cfg = drafter_config(ckpt)
    before = inspect_checkpoint(source, target, req.profile, checkpoint=ckpt)
    plan = plan_fix(ckpt, cfg, target, req)
    notes = list(plan.notes)
    written: list[Written] = []
    expected: list[tuple[Written, np.ndarray, dict[str, str] | None]] = []

    with Transaction(force=req.force) as tx:
        if req.mode != SIDE:
            root, added, more = _stage_checkpoint(tx, ckpt, cfg, plan, req)
            written += added
            expected += [(w, plan.d2t, None) for w in added]
            notes += more
        elif plan.d2t is not None:
            meta = {**_vocab_metadata(plan), "d2t_origin": plan.d2t_origin or ""}
            data = _safetensors_bytes({D2T: plan.d2t}, meta)
            path = Path(req.d2t_path or D2T_FILE)
            tx.add_bytes(path, data)
            written.append(w := _written(path, D2T, plan.d2t, data))
            expected.append((w, plan.d2t, meta))
        if plan.mask is not None:
            name, values, meta = mask_file(plan, req.mask_style)
            data = _safetensors_bytes({name: values}, meta)
            # the mask is for the serving runtime, never a checkpoint tensor (vLLM
            # refuses tensors it has no parameter for): always a side file
            path = Path(req.mask_path)
            tx.add_bytes(path, data)
            written.append(w := _written(path, name, values, data))
            expected.append((w, values, meta))
        files = [str(s.dest) for s in tx.staged]
        # the index (staged last) goes in last
        tx.commit()

    for w, values, meta in expected:
        _read_back(w, values, meta)
    if req.mode == SIDE:
        after_ckpt = open_checkpoint(source)
        if plan.d2t is not None and after_ckpt.find(D2T) is None:
            # the verdict if this d2t ships with the checkpoint
            d2t_file = Path(req.d2t_path or D2T_FILE)
            after_ckpt.tensors[D2T] = read_header(d2t_file).tensors[D2T]
        after = inspect_checkpoint(source, target, req.profile, checkpoint=after_ckpt)
    else:
        after = inspect_checkpoint(str(root), target, req.profile)
    notes += _verdict_notes(after, plan)
    return FixResult(req, plan, written, files, before, after, notes)
