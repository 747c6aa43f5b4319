"""A target checkpoint as an MTP / NextN drafter meets it: the config keys the runtime's MTP
rewrite reads, and every tensor header (names, shapes, dtypes). Headers only, local or Hub.

``read_mtp_target`` opens what the user named (``source.checkpoint.open_source``) and reads
the config and every safetensors header; a folder without weights is an error: the draft
layers live in the weights.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dspark_ckpt.errors import CheckpointError
from dspark_ckpt.facts.config import MAX_DIM, MAX_VOCAB, config_int
from dspark_ckpt.record import record

if TYPE_CHECKING:  # the readers load only where a target is read (explain lists the codes)
    from dspark_ckpt.source.checkpoint import Checkpoint
    from dspark_ckpt.source.safetensors import TensorInfo

# the nodes a text config sits in (vLLM's get_text_config / SGLang's hf_text_config)
TEXT_NODES = ("text_config", "language_config", "llm_config")


@record
class MtpTarget:
    source: str  # as the user named it
    config: dict  # the parsed config.json
    config_path: Path
    tensors: Mapping[str, TensorInfo]  # every tensor, by its stored name
    checkpoint: Checkpoint | None = None

    @cached_property
    def text(self) -> dict:
        """The text config: a nested one where the top level has none of the sizes."""
        for key in TEXT_NODES:
            node = self.config.get(key)
            if isinstance(node, dict) and "hidden_size" not in self.config:
                return node
        return self.config

    @property
    def architecture(self) -> str | None:
        archs = self.config.get("architectures")
        return archs[0] if isinstance(archs, list) and archs and isinstance(archs[0], str) else None

    @property
    def model_type(self) -> str | None:
        value = self.config.get("model_type")
        return value if isinstance(value, str) else None

    def get(self, key: str) -> tuple[Any, str] | None:
        """A key of the config's top level, else of its text config, with where it was
        read (``text_config.key``); None when neither sets it (a null counts as set)."""
        if key in self.config:
            return self.config[key], key
        if self.text is not self.config and key in self.text:
            where = next(k for k in TEXT_NODES if self.config.get(k) is self.text)
            return self.text[key], f"{where}.{key}"
        return None

    def top(self, key: str) -> tuple[Any, str] | None:
        """A key of the config's top level alone (``getattr(hf_config, key)``)."""
        return (self.config[key], key) if key in self.config else None

    def size(self, key: str) -> int | None:
        found = self.get(key)
        value = found[0] if found else None
        return value if type(value) is int and value >= 0 else None

    @property
    def quantized(self) -> str | None:
        """The quantisation method the runtime sees (``quantization_config``), or None."""
        found = self.get("quantization_config")
        if found is None or not isinstance(found[0], dict):
            return None
        q = found[0]
        return str(q.get("quant_method") or q.get("quant_algo") or "unnamed")

    @property
    def fp4(self) -> bool:
        """An NVFP4 checkpoint (vLLM's ``modelopt_fp4``: ModelOpt's ``quant_algo`` NVFP4)."""
        found = self.get("quantization_config")
        q = found[0] if found and isinstance(found[0], dict) else {}
        names = (q.get("quant_method"), q.get("quant_algo"))
        return any(str(n).lower() in ("nvfp4", "modelopt_fp4") for n in names if n)

    @cached_property
    def memo(self) -> dict:
        """What later stages compute once per target (each MTP loader's model)."""
        return {}

    @cached_property
    def names(self) -> list[str]:
        """Every stored name, sorted (a module's names are a contiguous range)."""
        return sorted(self.tensors)


def read_mtp_target(name: str | Path) -> MtpTarget:
    """The target at ``name``: its config and every header. Raises ``CheckpointError``
    for a config or header that cannot be read, or a folder without weights."""
    from dspark_ckpt.source.checkpoint import build_checkpoint, open_source

    ckpt = build_checkpoint(open_source(name, folder=True), weights=True)
    if not isinstance(ckpt.config, dict):
        raise CheckpointError(ckpt.config_path, "config.json is not a JSON object")
    target = MtpTarget(ckpt.name, ckpt.config, ckpt.config_path, ckpt.tensors, ckpt)
    for key, hi in (("hidden_size", MAX_DIM), ("vocab_size", MAX_VOCAB)):
        # the sizes the draft layers' shapes are judged by: one the runtime cannot build a
        # model from is an error, not a check silently skipped
        if (found := target.get(key)) is not None:
            config_int(found[0], found[1], ckpt.config_path, lo=1, hi=hi)
    return target
