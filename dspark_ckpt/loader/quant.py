"""Which modules of a quantised drafter's model its quantised tensors back
(``weight_packed``, ``weight_scale``, ``qweight``, ``input_scale`` ...).

A linear layer built through the drafter's quantization config has those tensors as its
parameters: any name under it backs it. A norm is never quantised (its ``.weight``), and an
fc the model builds as a plain torch Linear (``Profile.quantised_fc`` "plain") has only
``fc.weight``: its quantised tensors are no parameter of it, the loader skips them (SGLang
0.5.23's DFlash, dflash.py:943-946) and fc keeps its initial values (SGLang issue #39087)."""

from __future__ import annotations

from typing import Any

from dspark_ckpt.profiles.registry import Profile

# dflash_utils.py:468-469: the architectures SGLang's Nemotron 3.5 layout is read for
NEMOTRON_35_ARCHITECTURES = ("DFlashDraftModel", "Qwen3DSparkModel")


def nemotron_35(cfg: dict) -> bool:
    """SGLang 0.5.23's ``is_nemotron_35_draft_config`` (dflash_utils.py:461-497): the config
    read as written; its DFlash model then builds fc quantisable (dflash.py:706-707)."""
    archs = cfg.get("architectures") or []
    if not isinstance(archs, list) or not set(NEMOTRON_35_ARCHITECTURES) & set(archs):
        return False
    if not cfg.get("has_embed_tokens", False) or cfg.get("has_lm_head", False):
        return False
    quant = cfg.get("quantization_config") or {}
    if not isinstance(quant, dict) or quant.get("quant_algo") != "W4A16_NVFP4":
        return False
    dflash = cfg.get("dflash_config")
    dflash = dflash if isinstance(dflash, dict) else {}
    targets = dflash.get("target_layer_ids", cfg.get("target_layer_ids"))
    aux = cfg.get("eagle_aux_hidden_state_layer_ids")
    if not _ids(targets) or not _ids(aux) or len(targets) != len(aux):
        return False
    if any(int(t) + 1 != int(a) for t, a in zip(targets, aux, strict=True)):
        return False
    return dflash.get("sample_from_anchor", cfg.get("sample_from_anchor", True)) is False


def _ids(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(type(v) is int for v in value)


def plain_fc(cfg: dict, p: Profile) -> bool:
    """Whether ``p``'s model builds fc as a plain Linear for this config (``quantised_fc``)."""
    if p.quantised_fc == "nemotron35":
        return not nemotron_35(cfg)
    return p.quantised_fc == "plain"


def plain(path: str, fc_plain: bool) -> bool:
    """Whether the module at ``path`` is stored as its own ``.weight`` on a quantised
    drafter: a norm (never quantised), or fc where the model builds it plain."""
    return path.rsplit(".", 1)[-1].endswith("norm") or (fc_plain and path == "fc")
