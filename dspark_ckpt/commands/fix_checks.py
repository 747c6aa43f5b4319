"""The checks ``fix`` runs on what it writes, apart from what it decides to write.

Before anything is written: the bytes of each file it makes parse back (with the
safetensors library and our own reader) to exactly the tensors and metadata meant, and
the planned checkpoint (``planned_checkpoint``) can be inspected. After the files are in
place, before the commit point: each made file reads back as meant, and the written
checkpoint holds exactly the planned tensors, file by file (``check_layout``). A
config a ``--set`` leaves unreadable is refused as that ``--set``'s (``refuse_set``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from dspark_ckpt.commands.inspect import UNREADABLE, Report
from dspark_ckpt.errors import CheckpointError, UsageError
from dspark_ckpt.facts.config import parse_drafter_config
from dspark_ckpt.facts.vocab import D2T
from dspark_ckpt.record import record
from dspark_ckpt.source.atomic import step
from dspark_ckpt.source.checkpoint import Checkpoint, build_checkpoint
from dspark_ckpt.source.layout import CONFIG
from dspark_ckpt.source.overlay import OverlaySource, parse_made_bytes

if TYPE_CHECKING:
    import numpy as np


@record
class File:
    """One file of the result: new bytes, or a copy of an existing file."""

    dest: Path
    data: bytes | None = None
    src: Path | None = None
    link: bool = False  # a weight shard: hard-linked where the filesystem allows
    # for a safetensors file fix makes: what its bytes must parse back to
    tensors: dict[str, np.ndarray] | None = None
    metadata: dict[str, str] | None = None


def parse_made(f: File):
    """Our own strict reader's view of the bytes ``f`` is about to write."""
    return parse_made_bytes(f.data, f.dest)


def _as_meant(f: File, got: dict[str, np.ndarray], metadata: dict[str, str] | None) -> bool:
    """``got`` (tensors read back) and ``metadata`` are exactly what ``f`` was made of."""
    import numpy as np

    return (
        metadata == f.metadata
        and set(got) == set(f.tensors)
        and all(got[k].dtype == v.dtype and np.array_equal(got[k], v) for k, v in f.tensors.items())
    )


def check_bytes(f: File) -> None:
    """Before anything is written: the bytes parse, with the safetensors library and our
    own reader, back to exactly the tensors and metadata meant."""
    from safetensors.numpy import load

    step("verify", f.dest)
    try:
        got = load(f.data)
    except Exception as e:  # the library's own errors: report, never a traceback
        raise CheckpointError(
            f.dest, f"the bytes to write do not parse: {e}; nothing written"
        ) from None
    if not _as_meant(f, got, parse_made(f).metadata):
        raise CheckpointError(f.dest, "the bytes to write parse differently; nothing written")


def planned_checkpoint(ckpt: Checkpoint, files: list[File], d2t_file: File | None) -> Checkpoint:
    """The checkpoint as it will be once ``files`` are written: the new config, and the
    new ``d2t`` read from the very bytes that will be written (its file one more weight
    file of the checkpoint, wherever it goes)."""
    config = next((f.data for f in files if f.dest.name == CONFIG and f.data is not None), None)
    added = {}
    if d2t_file is not None and ckpt.find(D2T) is None:
        added[d2t_file.dest] = d2t_file.data
    planned = OverlaySource(ckpt, config=config, added=added)
    return build_checkpoint(
        planned, need_config=ckpt.config is not None, files=[*ckpt.files, *added]
    )


def read_back(f: File) -> None:
    """After the commit: the written file loads with safetensors (numpy) as meant."""
    from safetensors import safe_open

    step("read_back", f.dest)
    try:
        with safe_open(str(f.dest), framework="np") as st:
            got = {k: st.get_tensor(k) for k in st.keys()}  # noqa: SIM118 - not a dict
            got_meta = st.metadata()
    except Exception as e:  # the library's own errors: report, never a traceback
        raise CheckpointError(f.dest, f"written file does not read back: {e}") from None
    if not _as_meant(f, got, got_meta):
        raise CheckpointError(f.dest, "written file reads back different from what was meant")


def _layout(ckpt: Checkpoint) -> dict[str, tuple[str, str, tuple[int, ...]]]:
    """Each tensor of a checkpoint: the file holding it, its dtype and shape."""
    return {k: (i.path.name, i.dtype, tuple(i.shape)) for k, i in ckpt.tensors.items()}


def check_layout(planned: Checkpoint, written: Report, root: Path) -> None:
    """After the commit: the written checkpoint loads and holds exactly the planned
    tensors (every tensor of the source, and those fix adds), each in the planned file
    with the planned dtype and shape. Compared as written, not through verdicts: a
    checkpoint that fails every profile before and after can still have lost a tensor."""
    problem = None
    if written.checkpoint is None or any(f.code == UNREADABLE for f in written.findings):
        why = next((f.message for f in written.findings if f.code == UNREADABLE), "unreadable")
        problem = f"does not load ({why})"
    else:
        want, got = _layout(planned), _layout(written.checkpoint)
        if want != got:
            name = min(set(want) ^ set(got) or {k for k in want if want[k] != got[k]})
            problem = f"holds {name!r} as {got.get(name)} where the plan has {want.get(name)}"
    if problem is not None:
        raise CheckpointError(
            root, f"the written checkpoint {problem}; rolled back, nothing changed"
        )


def refuse_unreadable(after: Report, root: Path) -> None:
    """A plan whose result cannot be inspected (a file changed or cut short since fix
    read it) is not checked: nothing is written, side files included."""
    for f in after.findings:
        if f.code == UNREADABLE:
            raise CheckpointError(
                f.file or root, f"{f.message} (changed while fix ran?); nothing written"
            )


def refuse_set(sets, ckpt: Checkpoint, config: dict, err: CheckpointError | None = None) -> None:
    """A config a ``--set`` leaves unreadable is that value's fault, not the source's:
    a usage error naming ``--set KEY=VALUE`` and what the config's reader says the key
    takes (``err``: what reading the planned checkpoint said of its config)."""
    path = ckpt.config_path
    if err is None:
        try:
            parse_drafter_config(config, path)
        except CheckpointError as e:
            err = e
    if err is None or (err.path is not None and path is not None and err.path != str(path)):
        return
    given = ", ".join(f"--set {k}={v if isinstance(v, str) else json.dumps(v)}" for k, v in sets)
    why = err.message.removesuffix("; nothing written").removesuffix(" (changed while fix ran?)")
    raise UsageError(f"{given}: {why}; the source is unchanged, nothing written")
