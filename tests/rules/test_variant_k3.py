"""vLLM 0.33.0's K3 DSpark drafter (``K3DSparkModel``, profile ``vllm-k3-dspark``): the DSpark
speculator over Kimi-K3 MLA decoder layers with its own top-level modules
(vllm/models/kimi_k3/nvidia/dspark_mla.py), loaded by AutoWeightsLoader through its own mapper,
and refused by vLLM's loader where a norm is left unloaded (its load_weights returns the names
it loaded; linear layers are exempt from that check, and stay uninitialised). Firing rows and their clean twins, in-process through the engine; each row's
comment names the source line that decides it.

The drafter is synth.py's ``k3_dspark``: one MLA layer with q-LoRA (rank 4, two heads), a dense
MLP of 16, context_proj over two target hidden states, and synth's Markov head (rank 4)."""

from __future__ import annotations

import pytest
from rules_harness import DROP, check, clean, fires, head, ids, mapping, zeros
from synth import VT, H, k3_dspark

PROFILE = "vllm-k3-dspark"
K3, K3_OK = k3_dspark(H)
ATTN = "layers.0.self_attn."
DOWN = "layers.0.mlp.down_proj.weight"
FUSED = {
    ATTN + "q_a_proj.weight": DROP,
    ATTN + "kv_a_proj_with_mqa.weight": DROP,
    ATTN + "fused_qkv_a_proj.weight": zeros("F32", (8, H)),
}
# Kimi-Linear's layout: no q-LoRA, full-rank q_proj and its own kv_a_proj_with_mqa (mla.py:262)
NO_Q_LORA = {
    **{ATTN + f"{m}.weight": DROP for m in ("q_a_proj", "q_b_proj", "q_a_layernorm")},
    ATTN + "q_proj.weight": zeros("F32", (8, H)),
}


def row(kind, code: str, name: str, **kw):
    kw.setdefault("config", K3)
    kw["tensors"] = {**K3_OK, **kw.get("tensors", {})}
    return kind(code, f"k3-{name}", profile=PROFILE, **kw)


CASES = [
    row(clean, "DSC652", "whole", exactly=()),
    # q_a_proj and kv_a_proj_with_mqa stacked into fused_qkv_a_proj (dspark_mla.py:446-451);
    # stored fused, no kv_a_proj_with_mqa name fills context_kv_proj (39-58): uninitialised
    row(fires, "DSC652", "fused-qkv-a", tensors=FUSED, says="(context_kv_proj)",
        exactly=("DSC652",)),
    row(clean, "DSC652", "no-q-lora", config={**K3, "q_lora_rank": None}, tensors=NO_Q_LORA,
        exactly=()),
    # a norm nothing loads: 'Following weights were not initialized from checkpoint'
    # (default_loader.py:567-572), as its load_weights returns what it loaded (530-534)
    row(fires, "DSC652", "no-context-norm", tensors={"context_norm.weight": DROP},
        says="checks after the load that it filled context_norm", exactly=("DSC652",)),
    row(fires, "DSC652", "no-layer-norm", tensors={"layers.0.input_layernorm.weight": DROP},
        says="that it filled layers.0.input_layernorm"),
    # ... but a linear layer's weight counts as loaded unquantised (531-566): uninitialised
    row(fires, "DSC652", "no-mlp-down", tensors={DOWN: DROP}, exactly=("DSC652",),
        says="(layers.0.mlp.down_proj): vLLM checks after the load only the modules with no"),
    # a layer no name backs: its norms too (the first index without a name)
    row(fires, "DSC652", "layer-not-shipped", config={**K3, "num_hidden_layers": 2},
        says="that it filled layers.1.self_attn.q_a_layernorm"),
    # context_kv_proj is filled from the layers' kv_a_proj_with_mqa (39-58), or stored itself
    row(clean, "DSC652", "context-kv-stored", exactly=(),
        tensors={**FUSED, "context_kv_proj.weight": zeros("F32", (4, H))}),
    # q-LoRA layers have no q_proj (mla.py:217-262): refused by AutoWeightsLoader (utils.py:443)
    row(fires, "DSC112", "q-proj-with-q-lora", tensors={ATTN + "q_proj.weight": zeros("F32", (8, H))},
        says="layers.0.self_attn.q_proj.weight", exactly=("DSC112",)),
    row(fires, "DSC112", "q-a-proj-without-q-lora", config={**K3, "q_lora_rank": None},
        says="layers.0.self_attn.q_a_proj.weight"),
    # no fc, norm or hidden_norm (dspark_mla.py:150-187): a Qwen3 DSpark checkpoint is refused
    row(fires, "DSC112", "qwen3-dspark-names", tensors={"fc.weight": zeros("F32", (H, 2 * H))},
        says="(fc.weight)", exactly=("DSC112",)),
    # its mapper drops a shipped head, embedding and (not enabled) confidence head (437-451)
    row(clean, "DSC112", "head-and-embedding-dropped", exactly=(),
        tensors={"lm_head.weight": head(VT), "embed_tokens.weight": head(VT)}),
    row(clean, "DSC112", "confidence-head-dropped", exactly=(),
        tensors={"confidence_head.proj.weight": zeros("F32", (1, H)),
                 "confidence_head.proj.bias": zeros("F32", (1,))}),
    # ... and nothing else: mask_embedding is no parameter of it (unlike qwen3_dspark's mapper)
    row(fires, "DSC112", "mask-embedding", tensors={"mask_embedding": zeros("F32", (H,))},
        says="mask_embedding", exactly=("DSC112",)),
    # its config attributes with no default (dspark_mla.py:76-81, 150-152, 174)
    row(fires, "DSC690", "no-num-target-layers", config={**K3, "num_target_layers": None},
        says="num_target_layers is not set"),
    row(fires, "DSC690", "no-kv-lora-rank", config={**K3, "kv_lora_rank": None},
        says="kv_lora_rank is not set"),
    # no head of its own: the target's, shared only for a full-vocab draft (utils.py:142-149;
    # dspark_mla.py:508 asserts one)
    row(fires, "DSC692", "pruned", draft=40, tensors={**mapping(40), "lm_head.weight": head(40)},
        says="Vd 40 is not the target's Vt 100"),
    # served as itself: not rewritten to the DeepSeek-V4 drafter (speculative.py:1548-1552)
    row(clean, "DSC664", "served", exactly=()),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_case(bench, case):
    check(bench, case)


def test_a_k3_drafter_is_judged_by_its_own_profile(bench):
    """A drafter naming K3DSparkModel gets vLLM's verdict from this profile (the default:
    the architecture routes it), not from the Qwen3 DSpark model's."""
    report = bench.case(K3, K3_OK, profile=None)
    assert report.profile == PROFILE and report.verdicts[PROFILE] is True
    assert "vllm" not in report.verdicts
    broken = bench.case(K3, {**K3_OK, DOWN: DROP}, profile=None)
    assert broken.verdicts[PROFILE] is False
