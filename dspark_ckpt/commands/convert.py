"""``fix`` on a folder of PyTorch pickle weights: converted to safetensors without running
the pickle (``source/torch_zip.py``), then repaired as any drafter.

The safetensors files are staged in a hidden folder beside the destination (the same file
system: the result hard-links them), the repair runs on that staged checkpoint with the
destination as its ``--out`` (in place: the folder itself, its pickles kept), and the stage
is removed whatever happens. Everything is read and checked before a byte is staged.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from dspark_ckpt.commands.repair import RepairRequest, RepairResult
from dspark_ckpt.errors import CheckpointError, UsageError, few
from dspark_ckpt.source.atomic import Transaction, writing
from dspark_ckpt.source.base import is_local
from dspark_ckpt.source.checkpoint import open_source
from dspark_ckpt.source.layout import INDEX, PICKLE_SUFFIXES, holds_weights
from dspark_ckpt.source.local import inside


def pickle_folder(source: str) -> Path | None:
    """The local folder ``source`` names when its weights are pickles only, else None."""
    if not is_local(source) or not Path(source).is_dir():
        return None
    names = os.listdir(source)
    if holds_weights(names) or not any(n.endswith(PICKLE_SUFFIXES) for n in names):
        return None
    return Path(source)


def hub_pickle_folder(source: str) -> tuple[Path, Path]:
    """A Hub repository whose weights are pickles only, as a local folder: its top-level
    files downloaded into the Hub cache by the bounded downloader (offline: the cache
    snapshot as it is), and where that snapshot's links may lead (its repository's
    folder in the cache)."""
    origin = open_source(source)
    origin.prepare(weights=False)
    if origin.folder is not None:  # offline: read from the cache snapshot
        return origin.folder, origin.jail or origin.folder
    names = sorted(n for n in origin.file_names() if not n.startswith("."))
    snap = origin.local_copy(names)[0].parent
    return snap, snap.parent.parent


def _others(folder: Path, names: list[str], jail: Path | None = None) -> list[Path]:
    """The folder's other files, copied with the weights: regular, not hidden, no pickle,
    no link out of the folder (``jail``: out of there)."""
    from dspark_ckpt.source.torch_zip import PICKLE_INDEX

    out = []
    for name in sorted(names):
        p = folder / name
        if name.startswith(".") or name.endswith(PICKLE_SUFFIXES) or name == PICKLE_INDEX:
            continue
        try:
            inside(p, jail or folder)
        except CheckpointError:
            continue
        if p.is_file():
            out.append(p)
    return out


def convert_and_repair(
    folder: Path,
    target,
    req: RepairRequest,
    repair: Callable[..., RepairResult],
    jail: Path | None = None,
    named: str | None = None,
) -> RepairResult:
    """Convert the pickle checkpoint in ``folder``, then ``repair`` the staged result into
    ``req.out`` (or ``folder`` itself, in place). Raises as ``repair`` does; nothing of the
    stage is left. ``jail``: where the folder's links may lead (a Hub cache snapshot);
    ``named``: what the user named (a Hub repository), else the folder."""
    import shutil
    import tempfile

    from dspark_ckpt.source.torch_zip import plan_conversion  # only here: pickle, zipfile

    if req.out is not None and req.in_place:
        raise UsageError("give at most one of --out and --in-place")
    if req.in_place and not req.force:
        raise UsageError("--in-place changes the source checkpoint: pass --force as well")
    if req.out is None and not req.in_place and not req.diff:
        raise UsageError(
            f"{folder}: its weights are pickles: say where the converted checkpoint goes: "
            "--out DIR, or --in-place --force"
        )
    with writing(folder):
        names = os.listdir(folder)
    conversion = plan_conversion(folder, names, jail)  # every read and check: nothing written
    near = None if req.diff else folder.parent if req.in_place else Path(req.out).parent
    if near is not None and not near.is_dir():
        raise UsageError(f"{near}: no such directory")
    with writing(near or Path(tempfile.gettempdir())):
        stage = Path(tempfile.mkdtemp(prefix=".dspark-ckpt-convert-", dir=near))
    try:
        with Transaction() as tx:
            for name, pieces in conversion.files.items():
                tx.add_pieces(stage / name, pieces)
            for p in _others(folder, names, jail):
                tx.add_copy(stage / p.name, p)
            if conversion.index is not None:
                tx.add_bytes(stage / INDEX, conversion.index)
            tx.commit()
        inner = replace(req, out=folder if req.in_place else req.out, in_place=False)
        result = repair(str(stage), target, inner, convert=True)
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    pickles = [p.name for p in conversion.sources]
    said = [
        f"converted {few(pickles)} ({conversion.tensors} tensors) to "
        f"{few(sorted(conversion.files))}; nothing in the pickle was run"
    ]
    if req.in_place:
        said.append(
            f"{few(pickles)} kept beside the safetensors files, which runtimes load "
            "instead: delete them once the result is checked"
        )
    named = {"drafter_source": named or str(folder)}  # what the user named, not the stage
    return replace(
        result,
        request=req,
        before=replace(result.before, **named),
        after=replace(result.after, **named),
        notes=[*said, *result.notes],
    )
