"""vLLM 0.33.0's Muse Spark DSpark drafter (``MuseSparkDSparkModel``, profile
``vllm-muse-spark-dspark``): the DSpark speculator over Muse Spark 1.x decoder layers (the CUDA
class, vllm/models/muse_spark/nvidia/model.py), built from a MuseSparkDSparkConfig whose flags
decide which parameters exist, loaded by AutoWeightsLoader through its own mapper after
load_weights refuses a checkpoint without lm_head or d2t (common/dspark.py:349-380). Firing
rows and their clean twins, in-process through the engine; each row's comment names the source
line that decides it.

The drafter is muse_spark.py's ``muse_spark_dspark``: one dense layer with every flag set (two
heads, one KV head of 4), fc over two target hidden states, its own lm_head and d2t, and synth's
Markov head (rank 4)."""

from __future__ import annotations

import pytest
from muse_spark import MUSE_FLAGS, muse_spark_dspark
from rules_harness import DROP, Tgt, check, clean, fires, head, ids, zeros
from synth import VT, H

PROFILE = "vllm-muse-spark-dspark"
MUSE, MUSE_OK = muse_spark_dspark(H, VT)
ATTN = "layers.0.self_attn."
L0 = "layers.0."
PROJ = {ATTN + f"{m}_proj.weight": DROP for m in ("q", "k", "v", "o_gate")}
NO_FLAGS = {**MUSE, **dict.fromkeys(MUSE_FLAGS, False)}
FLAGGED = {  # the parameters the flags build
    ATTN + "o_gate_proj.weight": DROP,
    **{f"{L0}{m}.weight": DROP for m in ("pre_ffn_norm", "post_attn_norm", "post_ffn_norm")},
    **{f"{L0}{m}.gate": DROP for m in ("add_attn", "add_ffn")},
    **{f"{m}.weight": DROP for m in ("hidden_norm", "norm", ATTN + "pre_qkv_proj_norm")},
}
# MoE every second layer: the draft layer's index counts on from the target's last layer
EVERY_2ND = {**MUSE, "moe": {"interleave_moe_layer_step": 2}}


def row(kind, code: str, name: str, **kw):
    kw.setdefault("config", MUSE)
    kw["tensors"] = {**MUSE_OK, **kw.get("tensors", {})}
    return kind(code, f"muse-{name}", profile=PROFILE, **kw)


CASES = [
    row(clean, "DSC652", "whole", exactly=()),
    # q/k/v/o_gate_proj stacked into qkv_proj (dspark.py:283-292), or stored fused
    row(clean, "DSC652", "fused-qkv", exactly=(),
        tensors={**PROJ, ATTN + "qkv_proj.weight": zeros("F32", (24, H))}),
    # with use_attn_o_gate the fused projection holds o_gate rows (nvidia/model.py:1055-1073):
    # a linear layer, exempt from the check after the load: uninitialised
    row(fires, "DSC652", "no-o-gate", tensors={ATTN + "o_gate_proj.weight": DROP},
        says="self_attn.o_gate_proj", exactly=("DSC652",)),
    # ... without it, QKVParallelLinear has no o_gate shard: refused
    row(fires, "DSC112", "o-gate-unflagged", config={**MUSE, "use_attn_o_gate": False},
        says="o_gate_proj", exactly=("DSC112",)),
    row(clean, "DSC112", "o-gate-unflagged-absent", config={**MUSE, "use_attn_o_gate": False},
        tensors={ATTN + "o_gate_proj.weight": DROP}, exactly=()),
    # every flag off: no norm affine, no gates, no o_gate (nvidia/model.py:1305-1421)
    row(clean, "DSC652", "no-flags", config=NO_FLAGS, tensors=FLAGGED, exactly=()),
    row(fires, "DSC112", "no-flags-norms-shipped", config=NO_FLAGS,
        tensors={**FLAGGED, L0 + "pre_ffn_norm.weight": zeros("F32", (H,))},
        says="pre_ffn_norm", exactly=("DSC112",)),
    # the config class's defaults (configs/muse_spark.py:99-126): norm affines on, gates off
    row(clean, "DSC652", "defaults", config={k: v for k, v in MUSE.items() if k not in MUSE_FLAGS},
        tensors={**{f"{L0}{m}.gate": DROP for m in ("add_attn", "add_ffn")},
                 ATTN + "o_gate_proj.weight": DROP}, exactly=()),
    row(fires, "DSC112", "residual-gate-unflagged", config={**MUSE, "use_residual_gate": False},
        says="add_attn.gate", exactly=("DSC112",)),
    # post_ffn_norm has a weight with learnable scales or post_norm_affine (1382-1389)
    row(clean, "DSC112", "post-ffn-learnable", exactly=(),
        config={**MUSE, "post_norm_affine": False}, tensors={L0 + "post_attn_norm.weight": DROP}),
    # a norm or gate nothing loads: 'Following weights were not initialized from checkpoint'
    # (default_loader.py:567-572), as load_weights returns what it loaded (dspark.py:375-380)
    row(fires, "DSC652", "no-pre-ffn-norm", tensors={L0 + "pre_ffn_norm.weight": DROP},
        says="checks after the load that it filled layers.0.pre_ffn_norm", exactly=("DSC652",)),
    row(fires, "DSC652", "no-residual-gate", tensors={L0 + "add_ffn.gate": DROP},
        says="layers.0.add_ffn", exactly=("DSC652",)),
    # its own lm_head and a d2t, for any draft vocab (dspark.py:364-367)
    row(fires, "DSC691", "no-lm-head", tensors={"lm_head.weight": DROP}, says="lm_head.weight"),
    row(fires, "DSC691", "no-d2t", tensors={"d2t": DROP}, says="d2t"),
    # its mapper drops a shipped embedding and mask_embedding (368-374): the target's
    row(clean, "DSC112", "embedding-dropped", exactly=(),
        tensors={"embed_tokens.weight": head(VT), "mask_embedding": zeros("F32", (H,))}),
    # ... not a confidence head the config does not build (160-169)
    row(fires, "DSC112", "confidence-head-unbuilt", says="confidence_head",
        tensors={"confidence_head.proj.weight": zeros("F32", (1, H))}),
    # attribute reads with no default in MuseSparkDSparkConfig (dspark.py:106, 117, 124-126, 160)
    row(fires, "DSC690", "no-target-layer-ids", config={**MUSE, "target_layer_ids": None},
        says="target_layer_ids is not set"),
    row(fires, "DSC690", "no-confidence-flag", config={**MUSE, "enable_confidence_head": None},
        says="enable_confidence_head is not set"),
    row(fires, "DSC690", "no-mask-token-id", config={**MUSE, "mask_token_id": None},
        says="mask_token_id is not set"),
    # every name but lm_head is read under model. (dspark.py:359-360): a model.* name is not
    row(fires, "DSC111", "model-prefixed", tensors={"fc.weight": DROP,
        "model.fc.weight": zeros("F32", (H, 2 * H))}),
    # MoE on by default, every layer (configs/muse_spark.py:31-39): an MoE layer reads keys the
    # config class never sets (nvidia/model.py:389, 450, 488)
    row(fires, "DSC690", "moe-default", config={**MUSE, "moe": None},
        says="num_experts_per_tok is not set"),
    # ... with them, an MoE layer has no dense MLP: a dense checkpoint's names are refused
    row(fires, "DSC112", "moe-keys-set", says="feed_forward", config={**MUSE, "moe": None,
        "num_experts_per_tok": 1, "moe_hidden_size": H, "moe_intermediate_size": 16}),
    # ... every second layer, counted on from the target's depth (dspark.py:139-143, 299-304)
    row(fires, "DSC690", "moe-at-target-depth", config=EVERY_2ND,
        target=Tgt.of(num_hidden_layers=3, hidden_size=H), says="moe_hidden_size is not set"),
    row(clean, "DSC690", "dense-at-target-depth", config=EVERY_2ND,
        target=Tgt.of(num_hidden_layers=2, hidden_size=H), exactly=()),
    # built only from a MuseSparkDSparkConfig, picked by model_type (dspark.py:99-100)
    row(fires, "DSC664", "other-model-type", config={**MUSE, "model_type": "qwen3"},
        says="muse_spark_dspark", exactly=("DSC664",)),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_case(bench, case):
    check(bench, case)


def test_a_muse_spark_drafter_is_judged_by_its_own_profile(bench):
    """A drafter naming MuseSparkDSparkModel gets vLLM's verdict from this profile (the
    architecture routes it), not from the Qwen3 DSpark model's."""
    report = bench.case(MUSE, MUSE_OK, profile=None)
    assert report.profile == PROFILE and report.verdicts[PROFILE] is True
    assert "vllm" not in report.verdicts
    broken = bench.case(MUSE, {**MUSE_OK, "d2t": DROP}, profile=None)
    assert broken.verdicts[PROFILE] is False
