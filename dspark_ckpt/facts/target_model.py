"""The target model as the drafter meets it: the facts of its text config.

vLLM reads a target's sizes from its *text* config (``config.get_text_config()``):
the top level for plain LMs, ``text_config`` for VL models,
``thinker_config.text_config`` for Qwen3-Omni. ``Vt`` is resolved there
(``config.resolve_target_vocab``); every other number here is read from the same
node, so the hidden size and layer count are those of the model the drafter is fed
by. Header-only: nothing here imports torch or reads a weight.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dspark_ckpt.errors import CheckpointError
from dspark_ckpt.facts.config import MAX_DIM, config_int
from dspark_ckpt.record import record

MAX_LAYERS = 1 << 16


@record
class TargetModel:
    """The target's facts the drafter contract is stated in (None: not in its config)."""

    text_config: str  # where its text config sits: "" (top level), "text_config", ...
    hidden_size: int | None  # Ht: the width of every hidden state the drafter is fed
    num_hidden_layers: int | None  # N: aux layer ids must name one of its layers
    architectures: tuple[str, ...]  # the model class vLLM builds (top level)
    tie_word_embeddings: bool | None
    dtype: str | None  # torch_dtype or dtype
    quantization: str | None  # quantization_config's quant_method / quant_algo
    # the padded vocab its text config declares (Inkling: 201024 over vocab_size 200058);
    # SGLang bounds a DSpark mask id by it. None: not declared (or not a positive int)
    padded_vocab_size: int | None = None
    # the attention shape of its text config (Qwen3-Omni DSpark drafters must match it)
    num_attention_heads: int | None = None
    num_key_value_heads: int | None = None  # default: num_attention_heads
    head_dim: int | None = None  # default: hidden_size // num_attention_heads

    def key(self, name: str) -> str:
        """The dotted config key ``name`` is read from."""
        return f"{self.text_config}.{name}" if self.text_config else name


def _first(nodes: list[dict], *keys: str) -> tuple[Any, str] | None:
    for node in nodes:
        for k in keys:
            if node.get(k) is not None:
                return node[k], k
    return None


def read_target_model(cfg: dict, vocab_key: str, path: Path) -> TargetModel:
    """The target's text-config facts, from the node its ``Vt`` came from (``vocab_key``
    is that key, dotted). Raises ``CheckpointError`` for a value of the wrong type."""
    text = vocab_key.rpartition(".")[0]  # "" | "text_config" | "thinker_config.text_config"
    node: Any = cfg
    for k in text.split(".") if text else []:
        node = node[k]
    nodes = [node, cfg] if node is not cfg else [cfg]  # the text node, then the top level

    def sized(name: str, hi: int) -> int | None:
        value = node.get(name)
        where = f"{text}.{name}" if text else name
        return None if value is None else config_int(value, where, path, lo=1, hi=hi)

    archs = cfg.get("architectures") or []
    if not isinstance(archs, list) or not all(isinstance(a, str) for a in archs):
        raise CheckpointError(path, f"architectures must be a list of strings, got {archs!r}")
    tie = _first(nodes, "tie_word_embeddings")
    dtype = _first(nodes, "torch_dtype", "dtype")
    quant = _first([cfg, node], "quantization_config")  # vLLM: hf_config.quantization_config
    method = None
    if quant is not None and isinstance(quant[0], dict):
        found = _first([quant[0]], "quant_method", "quant_algo")
        method = str(found[0]) if found else "unnamed"
    return TargetModel(
        text_config=text,
        hidden_size=sized("hidden_size", MAX_DIM),
        num_hidden_layers=sized("num_hidden_layers", MAX_LAYERS),
        architectures=tuple(archs),
        tie_word_embeddings=tie[0] if tie and isinstance(tie[0], bool) else None,
        dtype=str(dtype[0]) if dtype else None,
        quantization=method,
        padded_vocab_size=_positive_int(node.get("padded_vocab_size")),
        **_attention(sized),
    )


def _positive_int(value: Any) -> int | None:
    return value if type(value) is int and value > 0 else None


def _attention(sized) -> dict[str, int | None]:
    """Heads, KV heads and head_dim of the text config, with vLLM's defaults
    (config/speculative.py:133-146 ``_get_attention_head_dim``)."""
    heads = sized("num_attention_heads", MAX_DIM)
    kv = sized("num_key_value_heads", MAX_DIM) or heads
    head_dim = sized("head_dim", MAX_DIM)
    hidden = sized("hidden_size", MAX_DIM)
    if head_dim is None and heads and hidden and hidden % heads == 0:
        head_dim = hidden // heads
    return {"num_attention_heads": heads, "num_key_value_heads": kv, "head_dim": head_dim}
