"""The ``*.safetensors`` files of a drafter's folder that are not its weights.

Runtimes read weight files by globbing the folder: vLLM and SGLang read every
``*.safetensors`` of a folder without an index (the index's shards where there is
one), TensorRT-LLM every one, index or not. A file beside the weights (the padded-row
mask ``fix --emit-mask`` writes, a trainer's ``training_state.safetensors``, a leftover
single file beside a sharded index) is loaded with them. This module says which files
those are, from their tensor names: the rules judge what each runtime does with them.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from dspark_ckpt.errors import CheckpointError
from dspark_ckpt.record import record
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
# where SGLang's M3.1 DSpark drafter stores its weights (dspark.fc.weight, under a wrapper too)
DSPARK_SCOPE = "dspark."


def is_drafter_name(name: str) -> bool:
    """Whether a tensor name is one a drafter's weights are stored under."""
    for prefix in WRAPPERS:
        if name.startswith(prefix):
            name = name[len(prefix) :]
            break
    name = name.removeprefix(DSPARK_SCOPE)
    return name in DRAFTER_NAMES or name.startswith(DRAFTER_PREFIXES)


@record
class WeightFile:
    """A ``*.safetensors`` file of the drafter's folder that may not be its weights."""

    name: str
    path: Path
    tensors: tuple[str, ...] | None  # its tensor names, sorted; None: its header is unreadable
    # read as part of the checkpoint by this tool, vLLM and SGLang (named by the index, or
    # no index at all); False: beside an index that does not name it (TensorRT-LLM reads it)
    listed: bool
    indexed: bool = False  # the folder has a model.safetensors.index.json

    @property
    def drafter_tensors(self) -> tuple[str, ...]:
        return tuple(n for n in self.tensors or () if is_drafter_name(n))

    @property
    def foreign_tensors(self) -> tuple[str, ...]:
        """Its names that are no drafter's."""
        return tuple(n for n in self.tensors or () if not is_drafter_name(n))


def weight_files(ckpt: Checkpoint) -> tuple[WeightFile, ...]:
    """The folder's weight files that may not be the drafter's weights: of the files the
    checkpoint is read from (the index's shards, else every ``*.safetensors``), each one
    that holds no drafter tensor while another does; and every ``*.safetensors`` beside
    an index that does not name it (its header read here, best effort). Empty where the
    user named one file rather than the folder."""
    source = ckpt.origin
    if source.files is not None:
        return ()
    out = []
    if len(ckpt.files) > 1:
        # one pass over the names: a file is cleared by its first drafter tensor
        cleared: set[Path] = set()
        for info in ckpt.tensors.values():
            if info.path not in cleared and is_drafter_name(info.name):
                cleared.add(info.path)
        suspects = [p for p in ckpt.files if p not in cleared]
        if cleared and suspects:
            names: dict[Path, list[str]] = {p: [] for p in suspects}
            for info in ckpt.tensors.values():
                if info.path in names:
                    names[info.path].append(info.name)
            indexed = ckpt.index_path is not None
            out += [WeightFile(p.name, p, tuple(sorted(names[p])), True, indexed) for p in suspects]
    if ckpt.index_path is None:
        return tuple(out)
    shards = {p.name for p in ckpt.files}
    for name in sorted(source.names()):
        if not name.endswith(".safetensors") or name in shards:
            continue
        try:
            path = source.weight_path(name)
            found = next(iter(source.read_tensors([path])))
            tensors: tuple[str, ...] | None = tuple(sorted(found))
        except (CheckpointError, OSError):
            path, tensors = source.path(name), None
        out.append(WeightFile(name, path, tensors, False, True))
    return tuple(out)
