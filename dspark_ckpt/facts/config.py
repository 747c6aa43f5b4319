"""Drafter and target configs: the numbers the contract is stated in.

``V``, ``Vd``, ``H``, ``r`` come from the drafter's ``config.json``; ``Vt`` from the
target's text config, resolved the way vLLM's ``get_vocab_size()`` does.
"""

from __future__ import annotations

from dataclasses import field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dspark_ckpt.errors import CheckpointError
from dspark_ckpt.record import record

if TYPE_CHECKING:
    from dspark_ckpt.source.checkpoint import Checkpoint

MAX_VOCAB = 2**31 - 1  # token ids are int32 in every runtime
# verify's bounds, here so the CLI can state them without importing verify (numpy, torch)
MAX_TOKENS = 1 << 16  # --tokens: the per-token state is small, but runs grow linearly
MAX_SEED = 2**63 - 1  # --seed: torch's manual_seed range, non-negative
MAX_DIM = 2**20
CPU_TORCH_INDEX = "https://download.pytorch.org/whl/cpu"


def torch_install_hint() -> str:
    """How to get torch for ``verify``, as one line that works where this runs: the
    checkout this package runs from (the ``verify`` extra; the package is not on PyPI),
    else torch itself (all the extra adds)."""
    root = Path(__file__).resolve().parents[2]  # dspark_ckpt/facts/config.py: the checkout
    if (root / "pyproject.toml").is_file():
        how = f"pip install -e '{root}[verify]'"
    else:
        how = "pip install torch"
    return (
        f"verify needs torch, which is not installed: {how} (the CUDA build from PyPI, for a "
        f"GPU machine; without a GPU first: pip install torch --index-url {CPU_TORCH_INDEX})"
    )


# where a drafter config may nest its family-specific settings
NESTED_DRAFTER_KEYS = ("dspark_config", "dflash_config", "eagle_config")
# every key a runtime reads a mask (noise) token id from (vLLM: spec_decode/utils.py:92-113)
MASK_TOKEN_KEYS = (
    "mask_token_id",
    "noise_token_id",
    "dspark_noise_token_id",
    "pard_token",
    "ptd_token_id",
)
# speculators-format configs keep the backbone's sizes here
BACKBONE_KEYS = ("transformer_layer_config", "text_config")

SPECULATORS_DEFAULT_DRAFT_VOCAB = 32000


def config_int(value: Any, key: str, path: Path, *, lo: int, hi: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise CheckpointError(path, f"{key} must be an integer in [{lo}, {hi}], got {value!r}")
    return value


def _lookup(cfg: dict, key: str, nests: tuple[str, ...]) -> tuple[Any, str] | None:
    """``cfg[key]`` at the top level, else inside the first nested dict that has it."""
    if cfg.get(key) is not None:
        return cfg[key], key
    for nest in nests:
        sub = cfg.get(nest)
        if isinstance(sub, dict) and sub.get(key) is not None:
            return sub[key], f"{nest}.{key}"
    return None


@record
class DrafterConfig:
    path: Path
    vocab_size: int  # V
    draft_vocab_size: int  # Vd
    draft_vocab_size_defaulted: bool
    hidden_size: int | None  # H
    markov_rank: int | None  # r
    architectures: tuple[str, ...]
    model_type: str | None
    mask_tokens: tuple[tuple[str, int], ...]  # every declared mask/noise token id, by key
    raw: dict = field(repr=False, compare=False, default_factory=dict)
    # the speculative method the drafter is served with, where its config names no drafter
    # class: the one asked for (--profile), else vLLM's guess from the model path
    # (``path_method``); None: neither says
    method: str | None = None

    @property
    def speculators_format(self) -> bool:
        return "speculators_model_type" in self.raw or "speculators_config" in self.raw

    @property
    def quantized(self) -> bool:
        """Whether the config declares quantised weights (ModelOpt, compressed-tensors)."""
        return any(
            isinstance(self.value(k), dict) for k in ("quantization_config", "compression_config")
        )

    def value(self, dotted: str) -> Any:
        """The raw config value at a dotted key (``dflash_config.mask_token_id``), else None;
        a backbone size also from a speculators-format ``transformer_layer_config``."""
        node: Any = self.raw
        for key in dotted.split("."):
            node = node.get(key) if isinstance(node, dict) else None
        if node is None and "." not in dotted:
            found = _lookup(self.raw, dotted, BACKBONE_KEYS)
            node = found[0] if found else None
        return node

    def where(self, key: str) -> str:
        """The dotted key a backbone size is read from (``transformer_layer_config.vocab_size``
        in a speculators config), else ``key`` itself (the top level)."""
        found = _lookup(self.raw, key, BACKBONE_KEYS)
        return key if found is None else found[1]

    def nested_copy(self, key: str) -> str | None:
        """Where ``key`` appears only nested (``dflash_config.markov_rank``), else None."""
        for nest in NESTED_DRAFTER_KEYS:
            sub = self.raw.get(nest)
            if isinstance(sub, dict) and sub.get(key) is not None:
                return f"{nest}.{key}"
        return None


def _sized(cfg: dict, key: str, path: Path, hi: int) -> int | None:
    found = _lookup(cfg, key, BACKBONE_KEYS)
    if found is None:
        return None
    return config_int(*found, path, lo=1, hi=hi)


def parse_drafter_config(cfg: Any, path: Path) -> DrafterConfig:
    if not isinstance(cfg, dict):
        raise CheckpointError(path, "config is not a JSON object")
    vocab = _sized(cfg, "vocab_size", path, MAX_VOCAB)
    if vocab is None:
        raise CheckpointError(path, "config has no vocab_size")
    draft = cfg.get("draft_vocab_size")
    defaulted = draft is None
    draft = vocab if defaulted else config_int(draft, "draft_vocab_size", path, lo=1, hi=MAX_VOCAB)
    hidden = _sized(cfg, "hidden_size", path, MAX_DIM)
    rank = _lookup(cfg, "markov_rank", NESTED_DRAFTER_KEYS)
    if rank is not None:
        rank = config_int(*rank, path, lo=1, hi=MAX_DIM)
    archs = cfg.get("architectures") or []
    if not isinstance(archs, list) or not all(isinstance(a, str) for a in archs):
        raise CheckpointError(path, f"architectures must be a list of strings, got {archs!r}")
    model_type = cfg.get("model_type")
    if model_type is not None and not isinstance(model_type, str):
        raise CheckpointError(path, f"model_type must be a string, got {model_type!r}")
    mask_tokens = []  # every declared one: top level and each family's nested config
    for nest in ("", *NESTED_DRAFTER_KEYS):
        node = cfg.get(nest) if nest else cfg
        if not isinstance(node, dict):
            continue
        for key in MASK_TOKEN_KEYS:
            if node.get(key) is not None:
                where = f"{nest}.{key}" if nest else key
                token = config_int(node[key], where, path, lo=-MAX_VOCAB, hi=MAX_VOCAB)
                mask_tokens.append((where, token))
    return DrafterConfig(
        path=path,
        vocab_size=vocab,
        draft_vocab_size=draft,
        draft_vocab_size_defaulted=defaulted,
        hidden_size=hidden,
        markov_rank=rank,
        architectures=tuple(archs),
        model_type=model_type,
        mask_tokens=tuple(mask_tokens),
        raw=cfg,
    )


def path_method(model: str) -> str | None:
    """The method vLLM picks for a draft model from its path or repo id when none is given
    (vllm/config/speculative.py:1440-1456: ``"eagle-"`` and ``"eagle3"`` in the lower-cased
    name, then ``"dflash"``, ``"dspark"``): yuhuili/EAGLE3-LLaMA3.1-Instruct-8B is EAGLE-3
    though its config names LlamaForCausalLM. None: the name says none."""
    low = model.lower()
    marks = (("eagle-", "eagle"), ("eagle3", "eagle3"), ("dflash", "dflash"), ("dspark", "dspark"))
    return next((method for mark, method in marks if mark in low), None)


def drafter_config(ckpt: Checkpoint) -> DrafterConfig:
    cfg = parse_drafter_config(ckpt.config, ckpt.config_path)
    return replace(cfg, method=path_method(ckpt.name))


def local_drafter_config(name: str | Path) -> DrafterConfig:
    """A local drafter's config alone, read as strictly as by ``open_checkpoint``."""
    from dspark_ckpt.source.layout import CONFIG  # the CLI's help needs none of source/
    from dspark_ckpt.source.local import open_local

    source = open_local(name)
    cfg = parse_drafter_config(source.read_json(CONFIG, "config"), source.path(CONFIG))
    return replace(cfg, method=path_method(str(name)))


# vLLM: ModelConfig.get_vocab_size() reads config.get_text_config().vocab_size
TARGET_VOCAB_PATHS = (
    ("vocab_size",),
    ("text_config", "vocab_size"),
    ("thinker_config", "text_config", "vocab_size"),
)


def resolve_target_vocab(cfg: Any, path: Path) -> tuple[int, str]:
    """``Vt`` and the dotted key it came from. Raises ``CheckpointError`` if none resolves."""
    if not isinstance(cfg, dict):
        raise CheckpointError(path, "config is not a JSON object")
    for keys in TARGET_VOCAB_PATHS:
        node: Any = cfg
        for k in keys:
            node = node.get(k) if isinstance(node, dict) else None
        if node is not None:
            where = ".".join(keys)
            return config_int(node, where, path, lo=1, hi=MAX_VOCAB), where
    raise CheckpointError(
        path,
        "cannot resolve the target vocab size: no vocab_size, text_config.vocab_size "
        "or thinker_config.text_config.vocab_size",
    )
