"""SGLang 0.5.23's M3.1 DSpark drafter (``DSparkMiniMaxDraftModel``, profile
``sglang-dspark-minimax``): the DSpark model over MiniMax-M3 decoder layers, built from the
config SGLang normalises itself (configs/minimax_vl.py:64-111) and loaded by its own strict
load_weights (models/dspark_minimax.py:270-323). Firing rows and their clean twins, in-process
through the engine; each row's comment names the source line that decides it.

The drafter: one MiniMax-M3 layer (hidden 8, a dense MLP of 16) under ``dspark.``, fc over two
target hidden states, the vanilla Markov head (rank 4), the dspark_* keys of an M3.1 checkpoint,
and none of synth.py's Qwen3 DSpark backbone names."""

from __future__ import annotations

import pytest
import synth
from rules_harness import DROP, check, clean, fires, ids, zeros
from synth import VT, H, minimax_dspark

PROFILE = "sglang-dspark-minimax"
FFN = 16
P = "dspark."
L = P + "layers.0.decoder_layer."
MINIMAX, MINIMAX_OK = minimax_dspark(VT, H, FFN)
DOWN = L + "mlp.down_proj.weight"


def _under(prefix: str, tensors: dict) -> dict:
    """The layout with ``dspark.`` names stored under ``prefix`` instead (and not under it)."""
    moved = {(prefix + k[len(P) :] if k.startswith(P) else k): v for k, v in tensors.items()}
    return {**{k: DROP for k in tensors if k.startswith(P)}, **moved}


FUSED = {
    **{f"{L}self_attn.{m}_proj.weight": DROP for m in "qkv"},
    **{f"{L}mlp.{m}_proj.weight": DROP for m in ("gate", "up")},
    L + "self_attn.qkv_proj.weight": zeros("F32", (3 * H, H)),
    L + "mlp.gate_up_proj.weight": zeros("F32", (2 * FFN, H)),
}
# the M3.1 checkpoint's own names: block_sparse_moe for mlp, final_norm for norm
M3_NAMES = {
    **{f"{L}mlp.{m}_proj.weight": DROP for m in ("gate", "up", "down")},
    **{f"{L}block_sparse_moe.{m}_proj.weight": zeros("F32", (FFN, H)) for m in ("gate", "up")},
    L + "block_sparse_moe.down_proj.weight": zeros("F32", (H, FFN)),
    P + "norm.weight": DROP,
    P + "final_norm.weight": zeros("F32", (H,)),
}
# a VL config: the text model's keys under text_config, the dspark_* keys at the top level
TEXT_KEYS = ("use_gemma_norm", "dflash_config", "num_hidden_layers")
VL = {
    **{k: (None if k in TEXT_KEYS else v) for k, v in MINIMAX.items()},
    "text_config": {"hidden_size": H, "vocab_size": VT, **{k: MINIMAX[k] for k in TEXT_KEYS}},
}
GATED = {
    P + "markov_head.gate_proj.weight": zeros("F32", (4, H + 4)),
    P + "markov_head.gate_proj.bias": zeros("F32", (4,)),
}


def _beside(name: str, tensors: dict):
    """A second weight file in the drafter's folder (no index: SGLang loads every one)."""
    return lambda folder: synth.write_safetensors(folder / name, tensors)


def _dflash(**keys) -> dict:
    return {"dflash_config": {**MINIMAX["dflash_config"], **keys}}


def row(kind, code: str, name: str, **kw):
    kw.setdefault("config", MINIMAX)
    kw["tensors"] = {**MINIMAX_OK, **kw.get("tensors", {})}
    return kind(code, f"minimax-{name}", profile=PROFILE, **kw)


CASES = [
    # the whole drafter, under each prefix load_weights reads (dspark_minimax.py:277, 286-288)
    row(clean, "DSC652", "whole", exactly=()),
    row(clean, "DSC112", "under-model-dspark", exactly=(),
        tensors=_under("model.dspark.", MINIMAX_OK)),
    row(clean, "DSC112", "under-language-model", exactly=(),
        tensors=_under("language_model.model.dspark.", MINIMAX_OK)),
    # fused q/k/v and gate/up are its parameters (minimax_m3.py:801, 317), and its renames
    # (dspark_minimax.py:293): block_sparse_moe -> mlp, final_norm -> norm
    row(clean, "DSC652", "fused", tensors=FUSED, exactly=()),
    row(clean, "DSC652", "m3-names", tensors=M3_NAMES, exactly=()),
    # the model builds from text_config with the top-level dspark_* keys (minimax_vl.py:66-71)
    row(clean, "DSC690", "vl-text-config", config=VL, exactly=()),
    # a shard of a stacked parameter missing: 'Missing DSpark checkpoint shards' (310-315)
    row(fires, "DSC652", "no-up-shard", tensors={L + "mlp.up_proj.weight": DROP},
        says="layers.0.decoder_layer.mlp.up_proj.weight", exactly=("DSC652",)),
    # any parameter not loaded: 'Missing DSpark checkpoint tensors' (316-322)
    row(fires, "DSC652", "no-hidden-norm", tensors={P + "hidden_norm.weight": DROP},
        says="checks after the load", exactly=("DSC652",)),
    # a name under none of its prefixes is skipped (286-290): a Qwen3 DSpark layout loads nothing
    row(fires, "DSC652", "unprefixed", tensors=_under("", MINIMAX_OK),
        says="under none of language_model.model.dspark., model.dspark., dspark.",
        exactly=("DSC652",)),
    # ... and is harmless where the drafter's own names are there (a bundled target's weights)
    row(clean, "DSC666", "target-weights-skipped", exactly=(),
        tensors={"model.layers.0.mlp.down_proj.weight": zeros("F32", (H, FFN)),
                 "lm_head.weight": zeros("F32", (VT, H))}),
    # a name under dspark. it has no parameter for: 'Unexpected DSpark checkpoint tensor' (300-301)
    row(fires, "DSC112", "own-lm-head", tensors={P + "lm_head.weight": zeros("F32", (VT, H))},
        says="(dspark.lm_head.weight): its own load_weights raises", exactly=("DSC112",)),
    # a layer's names without the decoder_layer wrapper (85-87) are no parameter either
    row(fires, "DSC112", "no-decoder-layer-wrapper",
        tensors={P + "layers.0.self_attn.o_proj.weight": zeros("F32", (H, H))},
        says="dspark.layers.0.self_attn.o_proj.weight"),
    # the layer count is dflash_config's (minimax_vl.py:76), not the target's 60
    row(fires, "DSC112", "layer-past-count", config={**MINIMAX, **_dflash(num_hidden_layers=0)},
        says="(num_hidden_layers is 0)"),
    # the gated Markov head's gate_proj is renamed like a layer's (295-299): no such parameter,
    # and the head's own gate_proj is never loaded
    row(fires, "DSC112", "gated-markov", tensors=GATED,
        config={**MINIMAX, "dspark_markov_head_type": "gated"},
        says="dspark.markov_head.gate_proj.bias"),
    row(fires, "DSC652", "gated-markov-never-loaded", tensors=GATED,
        config={**MINIMAX, "dspark_markov_head_type": "gated"}, says="markov_head.gate_proj"),
    # the confidence head is built only outside the default ragged-verify mode: skipped (291-292)
    row(clean, "DSC112", "confidence-head-skipped", exactly=(),
        tensors={P + "confidence_head.proj.weight": zeros("F32", (1, H + 4))}),
    # the normalisation refuses a config without the dense FFN (minimax_vl.py:72-74) and reads
    # its keys with int(...) / [] (75-88, 92-100); the backbone reads config.use_gemma_norm (112)
    row(fires, "DSC690", "no-dense-ffn", config={**MINIMAX, "dspark_use_dense_ffn": False},
        says="dspark_use_dense_ffn is False", exactly=("DSC690",)),
    row(clean, "DSC690", "dense-ffn-in-dspark-config", exactly=(),
        config={**MINIMAX, "dspark_use_dense_ffn": None, "dspark_ffn_hidden_size": None,
                "dspark_config": {"use_dense_ffn": True, "ffn_hidden_size": FFN}}),
    row(fires, "DSC690", "no-layer-count", config={**MINIMAX, **_dflash(num_hidden_layers=None)},
        says="dflash_config.num_hidden_layers is not set"),
    row(fires, "DSC690", "no-capture-layers", config={**MINIMAX, **_dflash(target_layer_ids=[])},
        says="dflash_config.target_layer_ids is []"),
    row(fires, "DSC690", "no-gemma-norm-key", config={**MINIMAX, "use_gemma_norm": None},
        says="use_gemma_norm is not set", exactly=("DSC690",)),
    row(fires, "DSC690", "no-noise-token", config={**MINIMAX, "dspark_noise_token_id": None},
        says="dspark_noise_token_id is not set"),
    # a stray file beside the weights is loaded, and its names outside dspark. skipped (286-290)
    row(fires, "DSC621", "stray-file-skipped", says="read for nothing",
        mutate=_beside("mask.safetensors", {"mask": zeros("BOOL", (VT,))})),
    row(clean, "DSC620", "stray-file-not-refused",
        mutate=_beside("mask.safetensors", {"mask": zeros("BOOL", (VT,))})),
    # ... but one under dspark. is read, and refused where the model has no such parameter
    row(fires, "DSC620", "stray-dspark-file-refused",
        mutate=_beside("extra.safetensors", {P + "extra.weight": zeros("F32", (H,))})),
    # markov_rank is written from dspark_markov_rank: no top-level key is needed (86)
    row(clean, "DSC107", "markov-rank-from-dspark-key", exactly=()),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_case(bench, case):
    check(bench, case)


def test_a_minimax_drafter_is_judged_by_its_own_profile(bench):
    """A drafter naming DSparkMiniMaxDraftModel gets SGLang's verdict from this profile (the
    architecture routes it), not from the Qwen3 DSpark model's, which would skip every dspark.
    name and pass it on initial values."""
    report = bench.case(MINIMAX, MINIMAX_OK, profile=None)
    assert report.verdicts[PROFILE] is True
    assert "sglang-dspark" not in report.verdicts
    broken = bench.case(MINIMAX, {**MINIMAX_OK, DOWN: DROP}, profile=None)
    assert broken.verdicts[PROFILE] is False
