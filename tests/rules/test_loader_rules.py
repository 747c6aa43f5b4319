"""The loader model (dspark_ckpt/loader/): the stored names against the module tree each
runtime release builds (DSC112 refused, DSC665 a trained layer skipped, DSC666 skipped,
DSC652 missing, whole layers as ranges), and config switches read with Python truthiness
(``if config.enable_confidence_head:``). Firing rows and their clean twins, judged by the
engine in-process.

Vt is 100; the drafter is synth.py's complete DSpark drafter (Qwen3DSparkModel, hidden 8,
one layer, fc [8, 16], Markov head, mask id 0) with the row's changes."""

from __future__ import annotations

from dataclasses import replace

import pytest
import synth
from rules_harness import (
    DFLASH,
    EAGLE3,
    SG_BLOCK_LAYERS,
    SG_DSPARK,
    SG_EAGLE3_LAYERS,
    Case,
    check,
    clean,
    fires,
    head,
    ids,
    zeros,
)
from synth import VT, H, markov

from dspark_ckpt.facts.config import drafter_config
from dspark_ckpt.facts.gather import gather
from dspark_ckpt.profiles.registry import get_profile
from dspark_ckpt.rules.engine import profile_findings
from dspark_ckpt.source.checkpoint import open_checkpoint

# a second decoder layer, trained, where the config builds one
LAYER_1 = {k: v for k, v in synth.layer_weights(H, layers=2).items() if k.startswith("layers.1.")}
EAGLE3_LAYER_1 = {
    k: v
    for k, v in synth.layer_weights(H, eagle3=True, layers=2).items()
    if k.startswith("layers.1.")
}
EXTRA = {"extra_proj.weight": zeros("F32", (H, H))}
FC_NORMS = {f"fc_norm.{i}.weight": zeros("F32", (H,)) for i in (0, 1)}
AUX_OFF = {"use_aux_hidden_state": False}
# a confidence head one column too wide for [1, H] (no confidence_head_with_markov)
WIDE_HEAD = {
    "confidence_head.proj.weight": zeros("F32", (1, H + 1)),
    "confidence_head.proj.bias": zeros("F32", (1,)),
}
SG = {"profile": "sglang-dspark", "config": SG_DSPARK}
# the sizes synth's [8, 8] projections and [8] norms are built with (head_dim 8)
SIZES = {"num_attention_heads": 1, "num_key_value_heads": 1, "head_dim": 8, "intermediate_size": 8}
SG_SIZES = {"profile": "sglang-dspark", "config": {**SG_DSPARK, **SIZES, "num_attention_heads": 2}}
SG_OK = {**markov(VT, VT), **SG_BLOCK_LAYERS}
SG_EAGLE3_OK = {"lm_head.weight": head(VT), **SG_EAGLE3_LAYERS}
ENCODER_FC = {"fc.weight": None, "encoder.fc.weight": zeros("F32", (H, 2 * H))}
# EAGLE3's two aux states: fc_norm.0 and fc_norm.1 under their legacy names
AUX_NORMS = {f"aux_norm_{n}.weight": zeros("F32", (H,)) for n in ("low", "mid")}
# EAGLE-3's layer 0 takes [embedding, hidden state] into q/k/v: [8, 16] (synth writes it so);
# MIDLAYER: SpecForge's name for it; E3_FUSED: its q/k/v stored as one qkv_proj [24, 16]
E3_SIZES = {**EAGLE3, **SIZES}
Q0 = "layers.0.self_attn.q_proj.weight"
E3_LAYER_0 = synth.layer_weights(H, eagle3=True)
MIDLAYER = {
    **{n: None for n in E3_LAYER_0},
    **{n.replace("layers.0.", "midlayer."): t for n, t in E3_LAYER_0.items()},
}
E3_FUSED = {
    **{f"layers.0.self_attn.{n}_proj.weight": None for n in "qkv"},
    "layers.0.self_attn.qkv_proj.weight": zeros("F32", (3 * H, 2 * H)),
}
SG_E3 = {"profile": "sglang-eagle3", "config": E3_SIZES}
# layer 0 stored with q/k/v and gate/up fused, as a vLLM-side export writes it
FUSED = {
    **{f"layers.0.self_attn.{n}_proj.weight": None for n in "qkv"},
    **{f"layers.0.mlp.{n}_proj.weight": None for n in ("gate", "up")},
    "layers.0.self_attn.qkv_proj.weight": zeros("F32", (3 * H, H)),
    "layers.0.mlp.gate_up_proj.weight": zeros("F32", (2 * H, H)),
}

CASES: list[Case] = [
    # DSC112: vLLM's AutoWeightsLoader has no parameter for the name
    fires("DSC112", "vllm-second-layer", tensors=LAYER_1,
          says="There is no module or parameter named ...'; 11 of them lie in decoder layers "
          "the config does not build (num_hidden_layers is 1)", exactly=("DSC112",)),
    clean("DSC112", "vllm-second-layer-declared", config={"num_hidden_layers": 2},
          tensors=LAYER_1, exactly=()),
    fires("DSC112", "vllm-eagle3-second-layer", profile="vllm-eagle3", config=EAGLE3,
          tensors=EAGLE3_LAYER_1, says="(layers.1.hidden_norm.weight"),
    fires("DSC112", "vllm-fc-without-aux-states", config=AUX_OFF, says="(fc.weight)"),
    clean("DSC112", "vllm-dflash-fc-without-aux-states-dropped", profile="vllm-dflash",
          config={**DFLASH, **AUX_OFF}),
    fires("DSC112", "vllm-extra-projection", tensors=EXTRA, says="(extra_proj.weight)",
          exactly=("DSC112",)),
    fires("DSC112", "vllm-dflash-extra-projection", profile="vllm-dflash", config=DFLASH,
          tensors=EXTRA, exactly=("DSC112",)),
    clean("DSC112", "vllm-extra-bias-ignored", tensors={"extra_proj.bias": zeros("F32", (H,))},
          exactly=()),
    fires("DSC112", "trtllm-second-layer", profile="trtllm-dspark-legacy", tensors={**markov(VT, VT),
          **LAYER_1}, says="Unexpected key(s)"),
    # DSC113: a decoder-layer weight of another shape than the config's sizes build
    fires("DSC113", "vllm-heads-declared-past-the-tensors", config={**SIZES, "num_attention_heads": 2},
          says="layers.0.self_attn.q_proj.weight is [8, 8]; vllm builds it [16, 8]",
          exactly=("DSC113",)),
    clean("DSC113", "vllm-sizes-as-trained", config=SIZES, exactly=()),
    # a layer past num_hidden_layers is not built: its shapes are not judged (DSC112 says it)
    clean("DSC113", "vllm-misshapen-layer-past-the-count", config=SIZES,
          tensors={**LAYER_1, "layers.1.self_attn.q_proj.weight": zeros("F32", (3, H))},
          exactly=("DSC112",)),
    fires("DSC113", "vllm-misshapen-last-layer-of-the-count", config={**SIZES,
          "num_hidden_layers": 2},
          tensors={**LAYER_1, "layers.1.self_attn.q_proj.weight": zeros("F32", (3, H))},
          says="layers.1.self_attn.q_proj.weight is [3, 8]"),
    fires("DSC113", "vllm-intermediate-size-huge", config={**SIZES, "intermediate_size": 10**22},
          says=f"builds it [{10**22}, 8]"),
    fires("DSC113", "sglang-heads-declared-past-the-tensors", **SG_SIZES, tensors=SG_OK,
          says="sglang-dspark builds it [16, 8]"),
    clean("DSC113", "sglang-sizes-as-trained", profile="sglang-dspark",
          config={**SG_DSPARK, **SIZES}, tensors=SG_OK, exactly=()),
    fires("DSC113", "trtllm-heads-declared-past-the-tensors", profile="trtllm-dspark-legacy",
          config={**SIZES, "num_attention_heads": 2}, tensors=markov(VT, VT)),
    # DSC113, EAGLE-3's first layer: q/k/v over 2H (llama_eagle3.py's qkv_input_size), each
    # shard's width asserted; a fused qkv_proj is split by rows, then asserted the same
    fires("DSC113", "vllm-eagle3-first-q-of-hidden-width", profile="vllm-eagle3", config=E3_SIZES,
          tensors={Q0: zeros("F32", (H, H))},
          says="layers.0.self_attn.q_proj.weight is [8, 8]; vllm-eagle3 builds it [8, 16] from "
          "the config: the load fails on the shape", exactly=("DSC113",)),
    clean("DSC113", "vllm-eagle3-first-qkv-as-trained", profile="vllm-eagle3", config=E3_SIZES,
          exactly=()),
    fires("DSC113", "sglang-eagle3-midlayer-v-of-3h", **SG_E3,
          tensors={**SG_EAGLE3_OK, **MIDLAYER, "midlayer.self_attn.v_proj.weight":
                   zeros("F32", (H, 3 * H))},
          says="midlayer.self_attn.v_proj.weight is [8, 24]; sglang-eagle3 builds it [8, 16]",
          exactly=("DSC113",)),
    clean("DSC113", "sglang-eagle3-midlayer-as-trained", **SG_E3,
          tensors={**SG_EAGLE3_OK, **MIDLAYER}, exactly=()),
    fires("DSC113", "vllm-eagle3-fused-qkv-of-hidden-width", profile="vllm-eagle3",
          config=E3_SIZES, tensors={**E3_FUSED, "layers.0.self_attn.qkv_proj.weight":
                                    zeros("F32", (3 * H, H))},
          says="layers.0.self_attn.qkv_proj.weight is [24, 8]; vllm-eagle3 builds it [24, 16]",
          exactly=("DSC113",)),
    clean("DSC113", "vllm-eagle3-fused-qkv-as-trained", profile="vllm-eagle3", config=E3_SIZES,
          tensors=E3_FUSED, exactly=()),
    fires("DSC113", "sglang-eagle3-fused-qkv-rows-past-the-heads", **SG_E3,
          tensors={**SG_EAGLE3_OK, **E3_FUSED, "layers.0.self_attn.qkv_proj.weight":
                   zeros("F32", (4 * H, 2 * H))},
          says="splits the first 24 rows into its parts and drops the rest", exactly=("DSC113",)),
    fires("DSC113", "vllm-eagle3-fused-qkv-rows-short", profile="vllm-eagle3", config=E3_SIZES,
          tensors={**E3_FUSED, "layers.0.self_attn.qkv_proj.weight": zeros("F32", (2 * H, 2 * H))},
          says="is [16, 16]; vllm-eagle3 builds it [24, 16] from the config: the load fails"),
    # no num_attention_heads: the rows are the config class's default heads', the input width
    # (2H into layer 0, H after it) is the config's hidden_size all the same
    fires("DSC113", "vllm-eagle3-first-q-of-hidden-width-no-heads", profile="vllm-eagle3",
          config=EAGLE3, tensors={Q0: zeros("F32", (H, H))},
          says="layers.0.self_attn.q_proj.weight is [8, 8]; vllm-eagle3 builds it [*, 16] from "
          "the config: the load fails", exactly=("DSC113",)),
    clean("DSC113", "vllm-eagle3-first-qkv-no-heads-as-trained", profile="vllm-eagle3",
          config=EAGLE3, exactly=()),
    fires("DSC113", "sglang-eagle3-fused-qkv-of-hidden-width-no-heads", profile="sglang-eagle3",
          config=EAGLE3, tensors={**SG_EAGLE3_OK, **E3_FUSED, "layers.0.self_attn.qkv_proj.weight":
                                  zeros("F32", (5 * H, H))},
          says="qkv_proj.weight is [40, 8]; sglang-eagle3 builds it [*, 16]"),
    clean("DSC113", "sglang-eagle3-fused-qkv-no-heads-as-trained", profile="sglang-eagle3",
          config=EAGLE3, tensors={**SG_EAGLE3_OK, **E3_FUSED, "layers.0.self_attn.qkv_proj.weight":
                                  zeros("F32", (5 * H, 2 * H))}, exactly=()),
    fires("DSC113", "vllm-dspark-q-of-2h-no-heads", tensors={Q0: zeros("F32", (H, 2 * H))},
          says="q_proj.weight is [8, 16]; vllm builds it [*, 8]"),
    # the layers after the first take the hidden state alone: H wide
    clean("DSC113", "vllm-eagle3-second-layer-of-hidden-width", profile="vllm-eagle3",
          config={**E3_SIZES, "num_hidden_layers": 2}, tensors=EAGLE3_LAYER_1, exactly=()),
    fires("DSC113", "vllm-eagle3-second-layer-of-2h", profile="vllm-eagle3",
          config={**E3_SIZES, "num_hidden_layers": 2},
          tensors={**EAGLE3_LAYER_1, "layers.1.self_attn.k_proj.weight": zeros("F32", (H, 2 * H))},
          says="layers.1.self_attn.k_proj.weight is [8, 16]; vllm-eagle3 builds it [8, 8]"),
    # DSpark's layers are Qwen3's: a fused qkv_proj of the heads' rows over H loads
    fires("DSC113", "vllm-dspark-fused-qkv-of-2h", config={**SIZES}, tensors={**FUSED,
          "layers.0.self_attn.qkv_proj.weight": zeros("F32", (3 * H, 2 * H))},
          says="layers.0.self_attn.qkv_proj.weight is [24, 16]; vllm builds it [24, 8]"),
    clean("DSC113", "vllm-dspark-fused-as-trained", config={**SIZES}, tensors=FUSED, exactly=()),
    # ... and a fused gate_up_proj over another width than H
    fires("DSC113", "vllm-dspark-fused-gate-up-of-2h", config={**SIZES}, tensors={**FUSED,
          "layers.0.mlp.gate_up_proj.weight": zeros("F32", (2 * H, 2 * H))},
          says="layers.0.mlp.gate_up_proj.weight is [16, 16]"),
    # DSC665: SGLang skips a trained layer the config does not build
    fires("DSC665", "sglang-second-layer", **SG, tensors={**SG_OK, **LAYER_1},
          says="skips these names silently", exactly=("DSC665",)),
    clean("DSC665", "sglang-second-layer-declared", profile="sglang-dspark",
          config={**SG_DSPARK, "num_hidden_layers": 2}, tensors={**SG_OK, **LAYER_1},
          exactly=()),
    fires("DSC665", "sglang-eagle3-second-layer", profile="sglang-eagle3", config=EAGLE3,
          tensors={**SG_EAGLE3_OK, **EAGLE3_LAYER_1}, says="past num_hidden_layers 1"),
    clean("DSC665", "sglang-eagle3-midlayer-only", profile="sglang-eagle3", config=EAGLE3,
          tensors=SG_EAGLE3_OK),
    # DSC666: SGLang skips a name no module of its model has (harmless: a warning)
    fires("DSC666", "sglang-eagle3-extra-projection", profile="sglang-eagle3", config=EAGLE3,
          tensors={**SG_EAGLE3_OK, **EXTRA}, says="(extra_proj.weight)"),
    fires("DSC666", "sglang-extra-projection", **SG, tensors={**SG_OK, **EXTRA},
          says="(extra_proj.weight)", exactly=("DSC666",)),
    clean("DSC666", "sglang-complete", **SG, tensors=SG_OK, exactly=()),
    # SGLang looks up each exact name: a bias its fc does not have is no part of the module
    fires("DSC666", "sglang-bias-of-a-module-without-one", **SG,
          tensors={**SG_OK, "fc.bias": zeros("F32", (H,))}, says="(fc.bias)",
          exactly=("DSC666",)),
    # DSC652: whole layers with no tensor come back as a range, whatever the count
    fires("DSC652", "vllm-layers-declared-not-shipped", config={"num_hidden_layers": 3},
          says="22 module(s)", exactly=("DSC652",)),
    fires("DSC652", "vllm-layer-count-beyond-any-checkpoint", config={"num_hidden_layers": 2**31 - 1},
          says="(layers.1.self_attn.q_proj, layers.1.self_attn.k_proj, layers.1.self_attn.v_proj "
          "and 23622320103 more; no tensor at all for layers.1-2147483646)"),
    # truthy switches: `if getattr(config, "enable_confidence_head", False):` builds the head
    fires("DSC659", "vllm-confidence-head-enabled-as-1", config={"enable_confidence_head": 1},
          tensors=WIDE_HEAD, says="[1, 9]; vllm builds it [1, 8]"),
    clean("DSC659", "vllm-confidence-head-disabled-as-0", config={"enable_confidence_head": 0},
          tensors=WIDE_HEAD, exactly=()),
    fires("DSC652", "trtllm-confidence-head-enabled-as-1", profile="trtllm-dspark-legacy",
          config={"enable_confidence_head": 1}, tensors=markov(VT, VT),
          says="(confidence_head.proj)"),
    clean("DSC112", "trtllm-confidence-head-enabled-as-1", profile="trtllm-dspark-legacy",
          config={"enable_confidence_head": 1}, tensors={**markov(VT, VT), **WIDE_HEAD}),
    fires("DSC653", "vllm-dflash-own-head-as-1", profile="vllm-dflash",
          config={**DFLASH, "has_own_lm_head": 1}, says="the head stays uninitialised"),
    clean("DSC653", "vllm-dflash-own-head-as-0", profile="vllm-dflash",
          config={**DFLASH, "has_own_lm_head": 0}, exactly=()),
    # fc_norm: 1 builds one norm per aux state: shipped, they load; absent, they are missing
    clean("DSC656", "vllm-eagle3-fc-norm-as-1", profile="vllm-eagle3",
          config={**EAGLE3, "fc_norm": 1}, tensors=FC_NORMS, exactly=()),
    fires("DSC652", "vllm-eagle3-fc-norm-as-1-not-shipped", profile="vllm-eagle3",
          config={**EAGLE3, "fc_norm": 1}, says="(fc_norm.0, fc_norm.1)"),
    # use_aux_hidden_state read with truthiness: 0 builds no fc (vLLM DFlash drops fc.*)
    fires("DSC652", "vllm-dflash-aux-states-on-as-1-no-fc", profile="vllm-dflash",
          config={**DFLASH, "use_aux_hidden_state": 1}, tensors={"fc.weight": None},
          says="(fc)"),
    clean("DSC652", "vllm-dflash-aux-states-off-as-0-no-fc", profile="vllm-dflash",
          config={**DFLASH, "use_aux_hidden_state": 0}, tensors={"fc.weight": None}),
    # name maps (Profile.name_maps): vLLM's DFlash mapper takes encoder.fc as fc
    # (qwen3_dflash.py:390-402), its EAGLE-3 mapper has no such name (llama_eagle3.py:290-299)
    clean("DSC112", "vllm-dflash-encoder-fc", profile="vllm-dflash", config=DFLASH,
          tensors=ENCODER_FC, exactly=()),
    fires("DSC112", "vllm-eagle3-encoder-fc", profile="vllm-eagle3", config=EAGLE3,
          tensors=ENCODER_FC, says="(encoder.fc.weight)"),
    clean("DSC652", "sglang-dflash-encoder-fc", profile="sglang-dflash", config=DFLASH,
          tensors={**SG_BLOCK_LAYERS, **ENCODER_FC}, exactly=()),
    # fused q/k/v and gate/up (orig_to_new_stacked; SGLang's stacked_params_mapping)
    clean("DSC652", "vllm-fused-layer", tensors=FUSED, exactly=()),
    fires("DSC112", "trtllm-fused-layer", profile="trtllm-dspark-legacy",
          tensors={**markov(VT, VT), **FUSED}, says="(layers.0.mlp.gate_up_proj.weight"),
    # SGLang EAGLE-3's legacy aux_norm_low/mid/high are fc_norm.0/1/2 (llama_eagle3.py:338-343)
    clean("DSC652", "sglang-eagle3-legacy-aux-norms", profile="sglang-eagle3",
          config={**EAGLE3, "fc_norm": True}, tensors={**SG_EAGLE3_OK, **AUX_NORMS}, exactly=()),
    fires("DSC652", "sglang-eagle3-aux-norms-missing", profile="sglang-eagle3",
          config={**EAGLE3, "fc_norm": True}, tensors=SG_EAGLE3_OK, says="fc_norm.0.weight"),
]  # fmt: skip


@pytest.mark.parametrize("c", CASES, ids=ids(CASES))
def test_case(bench, c):
    check(bench, c)


def test_the_name_maps_are_the_profiles(bench):
    """The names a loader maps onto its model are its profile's ``name_maps``: SpecForge's
    ``midlayer.*`` EAGLE-3 layer loads under vLLM (``midlayer.`` -> ``layers.0.``), and the
    same loader without that map refuses the names (a release that dropped it is one field)."""
    layer = synth.layer_weights(H, eagle3=True)
    moved = {k: None for k in layer} | {
        k.replace("layers.0.", "midlayer."): v for k, v in layer.items()
    }
    folder = bench.drafter(EAGLE3, moved)
    ckpt = open_checkpoint(str(folder))
    facts = gather(ckpt, drafter_config(ckpt), bench.target(VT))
    vllm = get_profile("vllm-eagle3")
    assert "midlayer>layers.0" in vllm.name_maps
    assert not [f for f in profile_findings(facts, vllm) if f.code in ("DSC112", "DSC652")]
    unmapped = replace(vllm, name_maps=tuple(m for m in vllm.name_maps if "midlayer" not in m))
    codes = {f.code: f.message for f in profile_findings(facts, unmapped)}
    assert "midlayer.hidden_norm.weight" in codes["DSC112"], codes
    assert "DSC652" in codes, codes
