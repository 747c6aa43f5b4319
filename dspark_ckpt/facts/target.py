"""The target a drafter is checked against: ``Vt`` from its config, ``Et`` from its
headers where it has weights, its text config's facts, and its folder's tokenizer files.

``--target`` names a local folder (or a file in it) or a Hub repository, read as a drafter
is (``source.checkpoint.open_source``); ``--target-vocab-size`` gives ``Vt`` alone.
"""

from __future__ import annotations

from dataclasses import field, replace
from pathlib import Path
from typing import Any

from dspark_ckpt.errors import CheckpointError, TargetError, UsageError
from dspark_ckpt.facts.config import MAX_VOCAB, resolve_target_vocab
from dspark_ckpt.facts.target_model import TargetModel, read_target_model
from dspark_ckpt.record import record
from dspark_ckpt.source.base import Source
from dspark_ckpt.source.checkpoint import Checkpoint, build_checkpoint, open_source
from dspark_ckpt.source.layout import CONFIG
from dspark_ckpt.source.local import open_local


@record
class Target:
    source: str
    vocab_size: int  # Vt
    vocab_key: str | None  # the config key Vt came from
    embedding_rows: int | None  # Et
    embedding_tensor: str | None
    is_omni: bool = False
    checkpoint: Checkpoint | None = field(default=None, repr=False, compare=False)
    root: Path | None = field(default=None, compare=False)  # its local folder, if any
    model: TargetModel | None = None  # its text config's facts (None: --target-vocab-size)
    # where its files are read from: its tokenizer files (None: --target-vocab-size)
    origin: Source | None = field(default=None, repr=False, compare=False)


EMBEDDING_NAMES = ("embed_tokens.weight", "lm_head.weight")


def embedding_rows(ckpt: Checkpoint) -> tuple[int, str] | None:
    """``Et``: the fewest rows among the target's input and output embeddings."""
    rows = [
        (info.shape[0], name)
        for name, info in ckpt.tensors.items()
        if name.endswith(EMBEDDING_NAMES) and len(info.shape) == 2
    ]
    return min(rows) if rows else None


def target_from_vocab_size(n: int) -> Target:
    if not 1 <= n <= MAX_VOCAB:  # the bound every config's vocab size is held to
        raise UsageError(f"--target-vocab-size must be an integer in [1, {MAX_VOCAB}], got {n}")
    return Target(f"vocab_size={n}", n, None, None, None)


def target_from(
    source: str,
    cfg: Any,
    config_path: Path,
    ckpt: Checkpoint | None,
    origin: Source | None = None,
) -> Target:
    """A Target from its parsed config and, where it has weights, its checkpoint."""
    try:
        vt, key = resolve_target_vocab(cfg, config_path)
        model = read_target_model(cfg, key, config_path)
    except CheckpointError as e:
        raise TargetError(e) from None
    found = embedding_rows(ckpt) if ckpt else None
    return Target(
        source,
        vt,
        key,
        found[0] if found else None,
        found[1] if found else None,
        is_omni=key.startswith("thinker_config"),
        checkpoint=ckpt,
        model=model,
        origin=origin,
    )


def read_target(source: Source) -> Target:
    """The target's ``Vt`` from its config and, where it holds weights, ``Et``.

    A config that cannot be read, or whose vocab size cannot be resolved, is a usage
    error (``TargetError``); unreadable weights are a ``CheckpointError``.
    """
    try:
        ckpt = build_checkpoint(source, weights=False)
    except CheckpointError as e:
        if e.path == str(source.path(CONFIG)):  # what --target names is no target
            raise TargetError(e) from None
        raise
    has_weights = ckpt if ckpt.files else None
    target = target_from(source.name, ckpt.config, ckpt.config_path, has_weights, source)
    return replace(target, root=source.folder)


def open_target(name: str | Path) -> Target:
    """A target as the user named it: a local folder or a file in it (an existing local
    path always wins), or a Hub repository ``org/name[@revision]`` / ``hf://...``."""
    return read_target(open_source(name, folder=True))


def load_target(name: str | Path) -> Target:
    """A local target folder (or a file in it), never the Hub."""
    return read_target(open_local(name, folder=True))
