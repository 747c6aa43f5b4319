"""The ``*.safetensors`` files of a drafter's folder that are not its weights.

Runtimes read weight files by globbing the folder: vLLM and SGLang read every
``*.safetensors`` of a folder without an index (the index's shards where there is
one), TensorRT-LLM every one, index or not. A file beside the weights (the padded-row
mask ``fix --emit-mask`` writes, a trainer's ``training_state.safetensors``, a leftover
single file beside a sharded index) is loaded with them. This module says which files
those are, from their tensor names: the rules judge what each runtime does with them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from dspark_ckpt.errors import CheckpointError
from dspark_ckpt.source.layout import NAME_PREFIXES

if TYPE_CHECKING:
    from dspark_ckpt.source.checkpoint import Checkpoint

# the names a drafter's weights are stored under (after a wrapper prefix, ``model.``):
# the module prefixes of every family's backbone and heads, and its whole-tensor names
DRAFTER_PREFIXES = (
    "layers.",
    "midlayer.",
    "fc.",
    "fc_norm.",
    "norm.",
    "hidden_norm.",
    "input_norm.",
    "embed_tokens.",
    "lm_head.",
    "markov_head.",
    "confidence_head.",
    "encoder.",
    "enorm.",
    "hnorm.",
    "eh_proj.",
)
DRAFTER_NAMES = frozenset({"d2t", "t2d", "mask_embedding", "mask_hidden"})
WRAPPERS = tuple(p for p in NAME_PREFIXES if p)


def is_drafter_name(name: str) -> bool:
    """Whether a tensor name is one a drafter's weights are stored under."""
    for prefix in WRAPPERS:
        if name.startswith(prefix):
            name = name[len(prefix) :]
            break
    return name in DRAFTER_NAMES or name.startswith(DRAFTER_PREFIXES)


@dataclass(frozen=True)
class WeightFile:
    """A ``*.safetensors`` file of the drafter's folder that may not be its weights."""

    name: str
    path: Path
    tensors: tuple[str, ...] | None  # its tensor names, sorted; None: its header is unreadable
    # read as the checkpoint by this tool and by vLLM and SGLang (no index: every file);
    # False: beside an index that does not name it (only TensorRT-LLM loads it)
    listed: bool

    @property
    def drafter_tensors(self) -> tuple[str, ...]:
        return tuple(n for n in self.tensors or () if is_drafter_name(n))

    @property
    def foreign_tensors(self) -> tuple[str, ...]:
        """Its names that are no drafter's (every one, where none is)."""
        return tuple(n for n in self.tensors or () if not is_drafter_name(n))


def weight_files(ckpt: Checkpoint) -> tuple[WeightFile, ...]:
    """The folder's weight files that may be stray: without an index and with several
    files, each of them (their names from the headers already read); beside an index,
    the ``*.safetensors`` it does not name (their headers read here, best effort). Empty
    for one file, or where the user named a file rather than the folder."""
    source = ckpt.origin
    if source.files is not None:
        return ()
    if ckpt.index_path is None:
        if len(ckpt.files) < 2:
            return ()
        names: dict[Path, list[str]] = {p: [] for p in ckpt.files}
        for info in ckpt.tensors.values():
            names[info.path].append(info.name)
        return tuple(WeightFile(p.name, p, tuple(sorted(names[p])), True) for p in ckpt.files)
    shards = {p.name for p in ckpt.files}
    out = []
    for name in sorted(source.names()):
        if not name.endswith(".safetensors") or name in shards:
            continue
        try:
            path = source.weight_path(name)
            found = next(iter(source.read_tensors([path])))
            tensors: tuple[str, ...] | None = tuple(sorted(found))
        except (CheckpointError, OSError):
            path, tensors = source.path(name), None
        out.append(WeightFile(name, path, tensors, False))
    return tuple(out)
