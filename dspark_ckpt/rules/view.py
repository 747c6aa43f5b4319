"""The drafter config as a runtime's model sees it, for the rules that need it.

A speculators-format config (``speculators_config`` and no ``model_type``) is not read as
written by a runtime that translates it: the model is built from its
``transformer_layer_config`` plus the top-level keys the translation copies
(``Profile.speculators_copied``), and the aux layer ids it renames. Everything else is
read as written. Pure functions of the ``Facts`` and a ``Profile``: no rule code, no file.
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
