"""The drafter config as a runtime release's loader sees it (``ConfigView``): one place.

A speculators-format config (``speculators_config`` and no ``model_type``) is not read as
written by a runtime that translates it: the model is built from its
``transformer_layer_config`` plus the top-level keys the translation copies
(``Profile.speculators_copied``), and the aux layer ids it renames. Everything else is
read as written. Values are read with the runtime's Python semantics: ``get`` is
``getattr(config, key, default)`` (a present null is None, not the default), ``truthy``
is ``if config.key:`` (``1`` is on, ``0`` and null are off), ``first`` is an ``or``-chain
of dotted keys (the first that is set). Pure functions of the ``Facts`` and a
``Profile``: no rule code, no file.
"""

from __future__ import annotations

from typing import Any

from dspark_ckpt.facts.gather import Facts
from dspark_ckpt.profiles.registry import Profile

# a speculators aux id list, renamed by the translation (vLLM: algos.py:114-120,192-195)
SPECULATORS_AUX = "aux_hidden_state_layer_ids"


def dotted(node: Any, key: str) -> Any:
    """``node[a][b]`` for ``key`` ``a.b``; None where any part is missing."""
    for part in key.split("."):
        node = node.get(part) if isinstance(node, dict) else None
    return node


def present(node: Any, key: str) -> bool:
    """Whether the dotted ``key`` is present in ``node`` (with any value, null included)."""
    *parents, last = key.split(".")
    for part in parents:
        node = node.get(part) if isinstance(node, dict) else None
    return isinstance(node, dict) and last in node


def translated(f: Facts, p: Profile) -> bool:
    """Whether ``p``'s runtime reads this config through its speculators translation: a
    ``speculators_config`` and no ``model_type`` (vLLM: transformers_utils/config.py:361-366
    picks its SpeculatorsConfig only then)."""
    raw = f.raw
    return (
        bool(p.speculators_types)
        and raw.get("speculators_config") is not None
        and (raw.get("model_type") is None)
    )


def speculators_kind(f: Facts) -> str:
    return str(f.raw.get("speculators_model_type") or "")


def layer_model_type(f: Facts) -> str:
    """The model_type the speculators translation picks the model class by (its default
    llama: vLLM algos.py:43)."""
    tlc = f.raw.get("transformer_layer_config")
    value = tlc.get("model_type") if isinstance(tlc, dict) else None
    return str(value) if value is not None else "llama"


def model_config(f: Facts, p: Profile) -> dict:
    """The config the runtime's model reads: the config itself, or for a translated
    speculators config its ``transformer_layer_config`` with the copied keys."""
    raw = f.raw
    if not translated(f, p):
        return raw
    tlc = raw.get("transformer_layer_config")
    view = dict(tlc) if isinstance(tlc, dict) else {}
    for key in p.speculators_copied:
        if raw.get(key) is not None:
            view[key] = raw[key]
    aux = raw.get(SPECULATORS_AUX)
    kind = speculators_kind(f)
    if isinstance(aux, list) and kind in ("dflash", "dflash2", "dspark"):
        view["eagle_aux_hidden_state_layer_ids"] = aux
        shifted = [i - 1 for i in aux if type(i) is int]
        if kind == "dspark":
            view["target_layer_ids"] = shifted
        else:  # the mask id moves under dflash_config, where a null is read as is
            view["dflash_config"] = {
                "mask_token_id": raw.get("mask_token_id"),
                "target_layer_ids": shifted,
            }
    return view


def architecture(f: Facts, p: Profile) -> str | None:
    """The architecture the model class is picked by: ``speculators:<model_type>`` for a
    translated speculators config, else the config's first architecture."""
    if translated(f, p):
        return f"speculators:{layer_model_type(f)}"
    archs = f.cfg.architectures
    return archs[0] if archs else None


def aux_count_keys(f: Facts, p: Profile) -> tuple[str, ...]:
    """The keys the model class this config resolves to counts fc's aux states by: the
    class's own (``Profile.aux_layer_keys_by_class``), else ``Profile.aux_layer_keys``."""
    arch = architecture(f, p)
    for name, keys in p.aux_layer_keys_by_class:
        if name == arch:
            return keys
    return p.aux_layer_keys


# --- reading values with the runtime's semantics ------------------------------------------


def get(cfg: Any, key: str, default: Any = None) -> Any:
    """``getattr(config, key, default)`` for a dotted ``key``: a present null is None
    (not ``default``), a missing key is ``default``."""
    *parents, last = key.split(".")
    node = cfg
    for part in parents:
        node = node.get(part) if isinstance(node, dict) else None
    if isinstance(node, dict) and last in node:
        return node[last]
    return default


def truthy(value: Any) -> bool:
    """Python truthiness, as ``if config.key:`` reads a switch (``1``, ``"yes"`` are on;
    ``0``, ``""``, null, ``[]`` are off)."""
    return bool(value)


def first(cfg: Any, *keys: str, default: Any = None) -> Any:
    """The first of ``keys`` (dotted) whose value is not null, else ``default``: the
    runtimes' ``a or b`` / nested-then-top-level look-ups."""
    for key in keys:
        if (value := dotted(cfg, key)) is not None:
            return value
    return default


def count(value: Any) -> int | None:
    """A declared count (an int, not a bool), else None."""
    return value if type(value) is int else None


def aux_count(f: Facts, p: Profile) -> tuple[int, str] | None:
    """n_aux, fc's count of target hidden states, and where it came from, resolved in the
    key order of the model class the config resolves to (``aux_count_keys``), on the config
    that model reads."""
    cfg = model_config(f, p)
    for key in aux_count_keys(f, p):
        value = dotted(cfg, key) if cfg is not f.raw else f.cfg.value(key)
        if isinstance(value, list) and value:
            return len(value), f"len({key})"
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value, key
    if p.aux_default == "3":
        return 3, "the default 3"
    if p.aux_default == "num_hidden_layers":
        n = (
            dotted(cfg, "num_hidden_layers")
            if cfg is not f.raw
            else f.cfg.value("num_hidden_layers")
        )
        if isinstance(n, int) and not isinstance(n, bool) and n > 0:
            return n, "num_hidden_layers"
    return None


def fc_input(f: Facts, p: Profile) -> tuple[int, str, int, int] | None:
    """fc's input as the runtime builds it: n_aux target hidden states (and where n_aux
    came from), each ``Ht`` wide, ``n_aux * Ht`` in all; None where it is not checked."""
    h = f.cfg.hidden_size
    if not p.aux_layer_keys or h is None or (resolved := aux_count(f, p)) is None:
        return None
    n, source = resolved
    ht = h
    if p.fc_input_hidden == "target_hidden_size":
        ht = f.cfg.value("target_hidden_size") or h
    return n, source, ht, n * ht


# --- vLLM's speculators translation, written out (fix's native-config repair) --------------

# the architecture of each speculators algorithm's native config: vLLM's translation
# (transformers_utils/configs/speculators/algos.py), EAGLE-3 under the name SGLang and vLLM
# both register (LlamaForCausalLMEagle3)
NATIVE_ARCHITECTURE = {
    "eagle3": "LlamaForCausalLMEagle3",
    "dflash": "DFlashDraftModel",
    "dspark": "Qwen3DSparkModel",
}
DSPARK_ARCHITECTURES = ("Qwen3DSparkModel", "Qwen3OmniDSparkModel")
DSPARK_KEYS = (
    "draft_vocab_size",
    "target_hidden_size",
    "mask_token_id",
    "markov_rank",
    "markov_head_type",
    "block_size",
    "enable_confidence_head",
    "confidence_head_with_markov",
    "use_aux_hidden_state",
)


def native_config(raw: dict) -> dict | tuple[str, str] | None:
    """A speculators-format config as the native config vLLM translates it into (its
    ``transformer_layer_config`` updated by the algorithm's fields); ``(key, why)`` where a key
    vLLM requires is missing (vLLM: a KeyError), None for an algorithm it has no
    translation for."""
    kind = raw.get("speculators_model_type")
    base = raw.get("transformer_layer_config")
    if kind not in NATIVE_ARCHITECTURE or not isinstance(base, dict):
        return None
    out = dict(base)
    for key in ("mask_token_id", "aux_hidden_state_layer_ids"):
        if kind != "eagle3" and key not in raw:
            return key, f"vLLM's {kind} translation requires it (a KeyError without it)"
    aux = raw.get("aux_hidden_state_layer_ids") or raw.get("eagle_aux_hidden_state_layer_ids")
    if kind == "eagle3":
        if out.get("model_type", "llama") not in ("llama", "qwen3"):
            return None  # vLLM: ValueError (Unsupported model_type)
        out["draft_vocab_size"] = raw.get("draft_vocab_size")
        if raw.get("target_hidden_size") is not None:
            out["target_hidden_size"] = raw["target_hidden_size"]
        out["norm_before_residual"] = raw.get("norm_before_residual", True)
        out["norm_before_fc"] = raw.get("norm_before_fc", False)
        out["fc_norm"] = raw.get("fc_norm", False)
        out["norm_output"] = raw.get("norm_output", False)
        eagle = {"norm_before_fc": out["norm_before_fc"]}
        if aux:
            out["eagle_aux_hidden_state_layer_ids"] = aux
            eagle["eagle_aux_hidden_state_layer_ids"] = aux  # where SGLang reads them
        out["eagle_config"] = eagle
    elif kind == "dflash":
        out["draft_vocab_size"] = raw.get("draft_vocab_size")
        if raw.get("target_hidden_size") is not None:
            out["target_hidden_size"] = raw["target_hidden_size"]
        out["eagle_aux_hidden_state_layer_ids"] = aux
        out["dflash_config"] = {
            "mask_token_id": raw["mask_token_id"],
            "target_layer_ids": [i - 1 for i in aux],
            "sample_from_anchor": raw.get("sample_from_anchor", False),
            "causal": not raw.get("sliding_window_non_causal", True),
        }
    else:
        archs = [a for a in raw.get("architectures") or [] if a in DSPARK_ARCHITECTURES]
        out["sample_from_anchor"] = raw.get("sample_from_anchor", False)
        out["dspark_bonus_anchor"] = not out["sample_from_anchor"]
        out["eagle_aux_hidden_state_layer_ids"] = aux
        out["target_layer_ids"] = [i - 1 for i in aux]
        out.update({k: raw[k] for k in DSPARK_KEYS if raw.get(k) is not None})
        out["architectures"] = archs or [NATIVE_ARCHITECTURE[kind]]
        return out
    out["architectures"] = [NATIVE_ARCHITECTURE[kind]]
    return {k: v for k, v in out.items() if v is not None}
