"""``fix``'s one write path: where a changed checkpoint goes, what is copied with it,
and the one transaction that writes it (``write_draft``: the repair ``Draft``'s files, the
``--emit-d2t`` / ``--emit-mask`` changes as the same draft, a mask side file beside it).

Also what every ``fix`` does first: open the drafter, recovering what an interrupted fix
left (``open_drafter``), and the destination's checks (``destination_root``,
``refuse_stale_files``).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dspark_ckpt.commands.fix_checks import File, check_bytes, check_layout, read_back
from dspark_ckpt.commands.inspect import Report, inspect_checkpoint, served_config
from dspark_ckpt.commands.repair import (
    config_bytes,
    index_bytes,
    is_empty,
    shard_files,
)
from dspark_ckpt.commands.repair import (
    planned_checkpoint as repaired_checkpoint,
)
from dspark_ckpt.errors import CheckpointError, UsageError, few
from dspark_ckpt.facts.config import DrafterConfig
from dspark_ckpt.facts.target import Target
from dspark_ckpt.profiles.registry import PROFILES, applicable_profiles, route
from dspark_ckpt.record import record
from dspark_ckpt.source.atomic import (
    Transaction,
    check_destination,
    leftovers,
    recover,
    refuse_symlink,
    step,
    writing,
)
from dspark_ckpt.source.checkpoint import (
    Checkpoint,
    build_checkpoint,
    local_checkpoint,
    open_source,
)
from dspark_ckpt.source.layout import CONFIG, INDEX, pick_weights

NEW_SHARD = "model-dspark-ckpt-fix.safetensors"  # the new tensors of a patched checkpoint
SIDE, OUT, IN_PLACE = "side", "out", "in-place"
Request = Any  # a FixRequest or a RepairRequest: out, in_place, force, mode


def destination_root(ckpt: Checkpoint, req: Request) -> Path:
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


def other_files(ckpt: Checkpoint) -> tuple[list[Path], list[str]]:
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


def refuse_stale_files(out: Path, files: list[File]) -> None:
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


def new_shard_name(ckpt: Checkpoint) -> str:
    """The file for the tensors fix adds: ``NEW_SHARD``, or ``NEW_SHARD`` numbered where
    the checkpoint already uses that name (an earlier fix by another version, or a
    producer's): a shard it uses is never replaced by one holding only the new tensors."""
    used = {f.name for f in ckpt.files}
    stem = NEW_SHARD.removesuffix(".safetensors")
    names = (NEW_SHARD, *(f"{stem}-{n}.safetensors" for n in range(2, len(used) + 3)))
    return next(n for n in names if n not in used)


def recover_interrupted(folder: Path | None, req: Request) -> list[str]:
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


def open_drafter(
    source: str, req: Request, mode: str, profiles: list[str]
) -> tuple[Checkpoint, DrafterConfig, str, list[str]]:
    """The drafter ``fix`` changes, its config and family, and what recovering an
    interrupted fix did (``recover_interrupted``); usage errors where it cannot: a Hub repository in
    place, a family no profile covers, a profile of another family."""
    origin = open_source(source)
    if mode == IN_PLACE and not origin.is_local:
        raise UsageError(f"{source}: a Hub repository cannot be patched in place; use --out DIR")
    recovered = recover_interrupted(origin.folder, req)  # before anything is read from the folder
    ckpt = build_checkpoint(origin)
    if mode == OUT:
        ckpt = local_checkpoint(ckpt)  # the copy links or copies local weight files
    cfg = served_config(ckpt, profiles)
    way = route(cfg)
    family = way.family
    if not way.judged:
        why = "; ".join(way.unjudged) or (
            f"no profile covers this drafter's family ({family or 'unknown'}): fix judges "
            "DSpark, DFlash, EAGLE-3 and classic EAGLE drafters only"
        )
        raise UsageError(f"{source}: not judged: {why}; nothing written")
    for name in profiles:
        if PROFILES[name].family != family:
            raise UsageError(
                f"--profile {name} judges {PROFILES[name].family} drafters; this is a "
                f"{family} drafter (its profiles: {', '.join(applicable_profiles(family))})"
            )
    return ckpt, cfg, family, recovered


@record(frozen=False)
class DraftFiles:
    """What ``write_draft`` writes: each destination and how it is staged, the new
    safetensors files among them, notes (what is not copied), the checkpoint they make."""

    files: list[tuple[Path, Callable[[Transaction, Path], None]]]
    checked: list[File]  # new safetensors files: parsed before, read back after
    notes: list[str]
    planned: Checkpoint


def draft_files(
    ckpt: Checkpoint,
    draft,
    root: Path,
    req: Request,
    side: list[File] = (),
    made: list[File] = (),
) -> DraftFiles:
    """Every file of the result in write order (the index after the weights, ``side``
    files last), each destination checked; usage errors here, nothing written. ``made``:
    shards of the draft that hold new tensors only, as the bytes they must parse back to
    (checked now and read back after the commit, as the side files)."""
    out = req.out is not None
    notes: list[str] = []
    shards = shard_files(ckpt, draft)
    config = config_bytes(draft.config) if draft.config != ckpt.config else None
    index = index_bytes(ckpt, draft, shards)
    index_dest = root / (ckpt.index_path.name if ckpt.index_path else INDEX)
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
        others, left = other_files(ckpt)
        files += [(root / p.name, lambda tx, d, p=p: tx.add_copy(d, p)) for p in others]
        notes += [f"not copied to {root}: {few(left)}"] if left else []
    if index is not None:
        files.append((index_dest, lambda tx, d: tx.add_bytes(d, index)))
    elif out and ckpt.index_path is not None:
        files.append((index_dest, lambda tx, d: tx.add_copy(d, ckpt.index_path)))
    files += [(f.dest, lambda tx, d, f=f: tx.add_bytes(d, f.data)) for f in side]
    if out:
        refuse_stale_files(root, [File(d) for d, _ in files])
    for dest, _ in files:
        check_destination(dest, req.force)
    for f in (checked := [*made, *side]):
        check_bytes(f)
    return DraftFiles(files, checked, notes, repaired_checkpoint(ckpt, draft))


def write_draft(
    planned: DraftFiles,
    root: Path,
    req: Request,
    target: Target,
    selected: list[str],
    after: Report,
) -> tuple[list[str], list[str], Report]:
    """Write ``planned`` (``draft_files``) in one transaction; after its commit point the
    side files are read back and the result is inspected again: a failure there rolls
    everything back. Returns the files written; notes (what is not copied, what
    recovering an interrupted write in those folders did); the written checkpoint's
    report (``after``'s verdicts, its findings naming the written files)."""

    def check_written() -> None:
        """After the commit, before the transaction ends: a failure here rolls back."""
        nonlocal after
        for f in planned.checked:
            read_back(f)
        step("reinspect", root)
        real = inspect_checkpoint(str(root), target, selected)
        check_layout(planned.planned, real, root)
        if real.verdicts != after.verdicts:
            raise CheckpointError(
                root,
                "the written checkpoint inspects differently from the plan; rolled back, "
                "nothing changed",
            )
        after = real  # the same verdicts, its findings naming the written files

    with Transaction(force=req.force) as tx:
        if req.out is not None:
            tx.make_dir(root)
        for dest, add in planned.files:
            add(tx, dest)
        tx.commit(check=check_written)
    return [str(d) for d, _ in planned.files], planned.notes + tx.recovered, after
