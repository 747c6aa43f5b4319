"""A checkpoint folder's layout: its file names, which of them hold the weights, its index.

A checkpoint is a folder holding ``config.json`` and either ``model.safetensors`` or
``model.safetensors.index.json`` plus its shards, or a single ``.safetensors`` file next
to its ``config.json``. Pickle checkpoints are never loaded here: ``fix`` converts them
(``torch_zip.py``). Names only here:
reading is the sources' (``local.py``, ``hub.py``).
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable
from pathlib import Path, PureWindowsPath
from typing import Any

from dspark_ckpt.errors import CheckpointError, few

CONFIG = "config.json"
SINGLE = "model.safetensors"
INDEX = "model.safetensors.index.json"
# tensor names are matched as stored, then with these prefixes that trainers add
NAME_PREFIXES = ("", "model.", "model.language_model.", "language_model.model.")
PICKLE_SUFFIXES = (".bin", ".pt", ".pth", ".pkl", ".ckpt")


def check_shard_name(name: Any, index: Path) -> str:
    """A shard named in an index must be a plain ``.safetensors`` file name."""
    if not isinstance(name, str):
        raise CheckpointError(index, f"weight_map names a non-string shard {name!r}")
    if not name:
        raise CheckpointError(index, "weight_map names a shard with an empty file name")
    if (
        "/" in name
        or "\\" in name
        or name in (".", "..")
        or (":" in name and PureWindowsPath(name).drive)  # C:x; UNC paths hold a slash
        or "\0" in name
    ):
        raise CheckpointError(index, f"shard name {name!r} is not a plain file name")
    if not name.endswith(".safetensors"):
        raise CheckpointError(index, f"shard {name!r} is not a .safetensors file")
    return name


def parse_index(data: Any, index: Path) -> dict[str, str]:
    """The ``weight_map`` of an index's parsed JSON, every shard name checked."""
    wmap = data.get("weight_map") if isinstance(data, dict) else None
    if not isinstance(wmap, dict):
        raise CheckpointError(index, "index has no weight_map object")
    try:
        shards = set(wmap.values())  # a few names, each checked once
    except TypeError:  # a list or an object among them
        shards = [next(v for v in wmap.values() if not isinstance(v, str))]
    for name in shards:
        check_shard_name(name, index)
    return wmap


def holds_weights(names: Iterable[str]) -> bool:
    """Whether a folder of these file ``names`` has weights at all (an index or a
    ``.safetensors`` file): a target may have none (its config alone gives ``Vt``)."""
    names = set(names)
    return INDEX in names or any(n.endswith(".safetensors") for n in names)


def hub_cache_repo(root: str | Path) -> str | None:
    """``org/name`` when ``root`` is a snapshot of a Hugging Face cache
    (``models--org--name/snapshots/REV``), whose files link into ``../../blobs``."""
    parts = Path(root).parts
    if len(parts) >= 3 and parts[-2] == "snapshots" and parts[-3].startswith("models--"):
        return "/".join(parts[-3].split("--")[1:])
    return None


def convert_command(where: str | Path) -> str:
    """The command that converts the pickle checkpoint in folder ``where`` (a Hub
    repository, or its snapshot in the Hub cache: by its repository id)."""
    folder = str(where).rstrip("/") or "/"
    if (repo := hub_cache_repo(folder)) is not None:
        folder = f"hf://{repo}@{Path(folder).name}"
    if folder.startswith("hf://"):  # converted from the Hub cache, as a local folder
        out = shlex.quote(folder.removeprefix("hf://").split("@")[0].replace("/", "-"))
        return f"dspark-ckpt fix {shlex.quote(folder)} --target TARGET --out {out}-safetensors"
    out = shlex.quote(folder + "-safetensors")
    return f"dspark-ckpt fix {shlex.quote(folder)} --target TARGET --out {out}"


class PickleOnly(CheckpointError):
    """A checkpoint whose weights are PyTorch pickles only (``fix`` converts them)."""


def pick_weights(names: Iterable[str], where: str | Path) -> tuple[str | None, list[str]]:
    """Which of a checkpoint folder's file ``names`` hold the weights, as vLLM's loader
    decides: ``(index, [])`` when there is an index (its weight_map names the shards);
    else ``(None, every *.safetensors)``: without an index vLLM loads them all, so a stray
    file beside ``model.safetensors`` is part of the checkpoint. Raises for none, and
    for pickle-only folders.
    """
    names = set(names)
    if INDEX in names:
        return INDEX, []
    found = sorted(n for n in names if n.endswith(".safetensors"))
    if found:
        return None, found
    pickles = sorted(n for n in names if n.endswith(PICKLE_SUFFIXES))
    if pickles:
        raise PickleOnly(
            where,
            f"holds only pickle weights ({few(pickles)}), never unpickled to be read",
            hint="convert them to safetensors, without running the pickle: "
            + convert_command(where),
        )
    raise CheckpointError(
        where,
        f"no {SINGLE} or {INDEX}",
        hint="point at the folder that holds the drafter's weights (a .safetensors file, or "
        "an index and its shards)",
    )
