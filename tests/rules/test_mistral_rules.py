"""Classic EAGLE over Mistral layers (profiles/mistral.py): vLLM 0.33.0's EagleMistralForCausalLM
and SGLang 0.5.23's MistralForCausalLMEagle, firing rows and their clean twins in-process
through the engine, on synth.py's Mistral EAGLE drafter (hidden 8, one layer, Vt 100).

Both loaders rename Mistral-native names by pattern and take ``model.`` as their model's own
root; what they do with a name no pattern renames differs (vLLM refuses a bare one outside its
patterns, SGLang skips it), which is what most rows below are about. Each row's comment names
the source line that decides it.
"""

from __future__ import annotations

from pathlib import Path

import eagle1_layers
import pytest
import synth
from rules_harness import DROP, VT, H, T, check, clean, fires, ids

from dspark_ckpt.facts.config import parse_drafter_config
from dspark_ckpt.loader.names import renamed
from dspark_ckpt.loader.parts import name_maps
from dspark_ckpt.profiles.registry import PROFILES, route

_BASE = {"model_type": "mistral", "markov_rank": None, "target_layer_ids": None,
         "mask_token_id": None}  # fmt: skip
V = {**_BASE, "architectures": ["EagleMistralForCausalLM"]}
S = {**_BASE, "architectures": ["MistralForCausalLMEagle"]}
NATIVE = eagle1_layers.mistral_eagle_backbone(H)
NO_NATIVE = {name: DROP for name in NATIVE}
# the same drafter under Hugging Face names, under the model's root (model.fc, model.layers...)
HF_ROOTED = {**NO_NATIVE, **eagle1_layers.mistral_eagle_backbone(H, native=False)}
# the same under bare Hugging Face names (fc, layers.N.self_attn..., norm)
HF_BARE = {**NO_NATIVE, **{k.removeprefix("model."): v for k, v in HF_ROOTED.items() if v}}
# the EAGLE release code's drafter (eagle/model/cnets.py): bare fc with a bias, layer 0 without
# input_layernorm, no norm
RELEASE = {**NO_NATIVE, **synth.eagle1_backbone(H)}
SIZES = {"num_attention_heads": 2, "num_key_value_heads": 1}  # k/v [4, 8]
# Mistral Large 3 (DeepSeek-V2 layers): MLA attention, MoE from layer 0 on (2 experts, one
# shared), as params.json's MoE keys read (topk_method None: no router bias)
_LARGE3 = {**_BASE, "model_type": "deepseek_v3", "q_lora_rank": H, "kv_lora_rank": H,
           "qk_nope_head_dim": 4, "qk_rope_head_dim": 4, "v_head_dim": 4,
           "n_routed_experts": 2, "first_k_dense_replace": 0, "n_shared_experts": 1,
           "moe_intermediate_size": H, "topk_method": None}  # fmt: skip
V3 = {**_LARGE3, "architectures": ["EagleMistralLarge3ForCausalLM"]}
S3 = {**_LARGE3, "architectures": ["MistralLarge3ForCausalLMEagle"]}
EXPERT_1 = {f"layers.0.experts.1.{w}.weight": DROP for w in ("w1", "w2", "w3")}
BIAS = {"layers.0.router_biases": T("F32", (2,))}
NOAUX = {"topk_method": "noaux_tc"}
# the same drafter under Hugging Face names under model. (vLLM loads them, SGLang skips them)
LARGE3_HF = {
    **{k: DROP for k in eagle1_layers.mistral_large3_backbone(H)},
    "model.fc.weight": T("F32", (H, 2 * H)),
    "model.norm.weight": T("F32", (H,)),
    **{f"model.layers.0.{m}.weight": T("F32", (H,) if "norm" in m else (H, H)) for m in (
        "input_layernorm", "post_attention_layernorm", "self_attn.q_a_proj",
        "self_attn.q_a_layernorm", "self_attn.q_b_proj", "self_attn.kv_a_proj_with_mqa",
        "self_attn.kv_a_layernorm", "self_attn.kv_b_proj", "self_attn.o_proj",
        "mlp.shared_experts.gate_proj", "mlp.shared_experts.up_proj",
        "mlp.shared_experts.down_proj",
        *(f"mlp.experts.{e}.{p}_proj" for e in (0, 1) for p in ("gate", "up", "down")))},
    "model.layers.0.mlp.gate.weight": T("F32", (2, H)),
}  # fmt: skip
EMBED = T("F32", (VT, H))

CASES = [
    # vLLM: mistral.py:333-343 renames each native component; mistral_eagle.py:135-137
    # eagle_linear -> model.fc; the model's own names pass under model. (the layers get it)
    clean("DSC112", "vllm-native-names", profile="vllm-eagle-mistral", by_default=True,
          draft=None, config=V, exactly=("DSC501",), verdicts={"vllm-eagle-mistral": True}),
    clean("DSC112", "vllm-hf-names-under-model", profile="vllm-eagle-mistral", draft=None,
          config=V, tensors=HF_ROOTED, exactly=("DSC501",)),
    clean("DSC111", "vllm-model-is-its-root", profile="vllm-eagle-mistral", draft=None,
          config=V, tensors=HF_ROOTED),
    # a bare layers.* and norm get model. too: only fc has no bare form
    fires("DSC112", "vllm-bare-fc", profile="vllm-eagle-mistral", draft=None, config=V,
          tensors=HF_BARE, says="(fc.weight)"),
    clean("DSC112", "vllm-bare-layers-and-norm", profile="vllm-eagle-mistral", draft=None,
          config=V, tensors={**HF_BARE, "fc.weight": DROP,
                             "eagle_linear.weight": NATIVE["eagle_linear.weight"]}),
    # the EAGLE release code's drafter: bare fc refused (with its bias: the whole module is
    # unknown, models/utils.py:437-447), layer 0's norm and the final norm missing
    fires("DSC112", "vllm-eagle-release-drafter", profile="vllm-eagle-mistral", draft=None,
          config=V, tensors=RELEASE, says="2 tensor(s) the vLLM model does not have "
          "(fc.bias, fc.weight)"),
    fires("DSC652", "vllm-eagle-release-drafter", profile="vllm-eagle-mistral", draft=None,
          config=V, tensors=RELEASE, says="(fc, layers.0.input_layernorm, norm)"),
    clean("DSC672", "vllm-eagle-release-drafter-bias-refused", profile="vllm-eagle-mistral",
          draft=None, config=V, tensors=RELEASE),
    # default_loader.py:510-523, 567-572: an unquantised drafter's unfilled norm (no quant
    # method) fails the load; 531-566: a linear layer (its quant method has
    # process_weights_after_loading) counts as loaded: uninitialised, no error
    fires("DSC652", "vllm-no-norm", profile="vllm-eagle-mistral", draft=None, config=V,
          tensors={"norm.weight": DROP}, says="that it filled norm (with no quant "
          "method) and raises 'Following weights were not initialized"),
    fires("DSC652", "vllm-no-layer-norm", profile="vllm-eagle-mistral", draft=None, config=V,
          tensors={"layers.0.ffn_norm.weight": DROP},
          says="that it filled layers.0.post_attention_layernorm"),
    fires("DSC652", "vllm-no-q-proj", profile="vllm-eagle-mistral", draft=None, config=V,
          tensors={"layers.0.attention.wq.weight": DROP}, exactly=("DSC501", "DSC652"),
          says="(layers.0.self_attn.q_proj): vLLM checks after the load only the modules with "
          "no quant method"),
    fires("DSC652", "vllm-no-fc", profile="vllm-eagle-mistral", draft=None, config=V,
          tensors={"eagle_linear.weight": DROP}, says="(fc): vLLM checks after the load only"),
    # 510-523: a quantised drafter turns the check off: a missing norm stays uninitialised too
    fires("DSC652", "vllm-quantised-no-norm", profile="vllm-eagle-mistral", draft=None,
          config={**V, "quantization_config": {"quant_method": "fp8"}},
          tensors={"norm.weight": DROP}, says="turns its loaded-weights check off"),
    clean("DSC652", "vllm-model-norm", profile="vllm-eagle-mistral", draft=None, config=V,
          tensors={"norm.weight": DROP, "model.norm.weight": T("F32", (H,))}),
    # its fc has no bias (mistral_eagle.py:100-108): a trained one is ignored as every .bias
    fires("DSC672", "vllm-eagle-linear-bias", profile="vllm-eagle-mistral", draft=None,
          config=V, tensors={"eagle_linear.bias": T("F32", (H,))}, says="eagle_linear.bias"),
    # tok_embeddings -> model.embed_tokens (kept, or the target's); a bare embed_tokens and
    # output (-> lm_head, which it does not build: mistral_eagle.py:139-142) are refused
    fires("DSC112", "vllm-bare-embedding", profile="vllm-eagle-mistral", draft=None, config=V,
          tensors={"embed_tokens.weight": EMBED}, says="embed_tokens.weight"),
    clean("DSC112", "vllm-tok-embeddings", profile="vllm-eagle-mistral", draft=None, config=V,
          tensors={"tok_embeddings.weight": EMBED}),
    fires("DSC112", "vllm-output-head", profile="vllm-eagle-mistral", draft=None, config=V,
          tensors={"output.weight": EMBED}, says="output.weight"),
    fires("DSC112", "vllm-unknown-under-model", profile="vllm-eagle-mistral", draft=None,
          config=V, tensors={"model.extra.weight": T("F32", (H,))}, says="model.extra.weight"),
    fires("DSC105", "vllm-d2t", profile="vllm-eagle-mistral", draft=None, config=V,
          tensors={"d2t": T("I64", (VT,))}, says="no parameter for it"),
    fires("DSC112", "vllm-layer-past-the-config", profile="vllm-eagle-mistral", draft=None,
          config=V, tensors={"layers.1.attention.wq.weight": T("F32", (H, H))},
          says="layers.1.attention.wq.weight"),
    # the shapes of a renamed weight: k/v [KV heads x head_dim, H], reported as stored
    fires("DSC113", "vllm-native-kv-heads", profile="vllm-eagle-mistral", draft=None,
          config={**V, **SIZES}, says="layers.0.attention.wk.weight is [8, 8]"),
    clean("DSC113", "vllm-native-sizes", profile="vllm-eagle-mistral", draft=None,
          config={**V, **SIZES}, tensors={f"layers.0.attention.{w}.weight": T("F32", (4, H))
                                         for w in ("wk", "wv")}),
    # mistral.py:161-176: ada_rms_norm_t_cond builds two projections in each layer
    # (a Column- and a RowParallelLinear: counted as loaded, uninitialised)
    fires("DSC652", "vllm-ada-norm-missing", profile="vllm-eagle-mistral", draft=None,
          config={**V, "ada_rms_norm_t_cond": True, "ada_rms_norm_t_cond_dim": H},
          says="layers.0.ada_rms_norm_t_cond.2): vLLM checks after the load only the modules "
          "with no quant method"),
    clean("DSC652", "vllm-ada-norm", profile="vllm-eagle-mistral", draft=None,
          config={**V, "ada_rms_norm_t_cond": True, "ada_rms_norm_t_cond_dim": H},
          tensors={f"layers.0.ada_rms_norm_t_cond.{i}.weight": T("F32", (H, H)) for i in (0, 2)}),
    # SGLang: mistral_eagle.py:143-162 its patterns, 188-202 model.* / lm_head.* as stored,
    # any other name none matches skipped ("Unrecognized weight"): of the bare Hugging Face
    # names only norm.weight is one of its patterns
    clean("DSC666", "sglang-native-names", profile="sglang-eagle-mistral", draft=None,
          config=S, exactly=("DSC501",), verdicts={"sglang-eagle-mistral": True}),
    clean("DSC666", "sglang-hf-names-under-model", profile="sglang-eagle-mistral", draft=None,
          config=S, tensors=HF_ROOTED, exactly=("DSC501",)),
    fires("DSC666", "sglang-bare-hf-names", profile="sglang-eagle-mistral", draft=None,
          config=S, tensors=HF_BARE, says="10 tensor(s) the SGLang model does not have"),
    fires("DSC652", "sglang-bare-hf-names", profile="sglang-eagle-mistral", draft=None,
          config=S, tensors=HF_BARE, says="10 weight(s)"),
    fires("DSC652", "sglang-eagle-release-drafter", profile="sglang-eagle-mistral",
          draft=None, config=S, tensors=RELEASE, says="fc.weight, norm.weight"),
    # a native name under model. is not renamed: skipped, its weight left as initialised
    fires("DSC666", "sglang-native-under-model", profile="sglang-eagle-mistral", draft=None,
          config=S, tensors={"norm.weight": DROP, "model.norm.weight": DROP,
                             "layers.0.attention.wq.weight": DROP,
                             "model.layers.0.attention.wq.weight": T("F32", (H, H))},
          says="model.layers.0.attention.wq.weight"),
    fires("DSC652", "sglang-native-under-model", profile="sglang-eagle-mistral", draft=None,
          config=S, tensors={"layers.0.attention.wq.weight": DROP,
                             "model.layers.0.attention.wq.weight": T("F32", (H, H))},
          says="layers.0.self_attn.q_proj.weight"),
    # tok_embeddings is no pattern of its (the target's embedding is used): skipped
    fires("DSC666", "sglang-tok-embeddings", profile="sglang-eagle-mistral", draft=None,
          config=S, tensors={"tok_embeddings.weight": EMBED}, says="tok_embeddings.weight"),
    clean("DSC666", "sglang-model-embedding", profile="sglang-eagle-mistral", draft=None,
          config=S, tensors={"model.embed_tokens.weight": EMBED}),
    fires("DSC665", "sglang-layer-past-the-config", profile="sglang-eagle-mistral", draft=None,
          config=S, tensors={"layers.1.attention.wq.weight": T("F32", (H, H))},
          says="layers.1.attention.wq.weight"),
    # its fc is a RowParallelLinear without a bias (mistral_eagle.py:93-100): none is missing
    clean("DSC652", "sglang-fc-without-bias", profile="sglang-eagle-mistral", draft=None,
          config=S),
    fires("DSC652", "sglang-no-layer-0-norm", profile="sglang-eagle-mistral", draft=None,
          config=S, tensors={"layers.0.attention_norm.weight": DROP},
          says="layers.0.input_layernorm.weight"),
    # Mistral Large 3, vLLM: mistral_large_3.py:17-84 anchored patterns applied in turn,
    # deepseek_v2.py DeepseekV2DecoderLayer (MoE from first_k_dense_replace, shifted with the
    # layer index by the target's depth: mistral_large_3_eagle.py:57-58)
    clean("DSC652", "vllm-large3-native-names", profile="vllm-eagle-mistral-large3",
          by_default=True, draft=None, config=V3, exactly=("DSC501",),
          verdicts={"vllm-eagle-mistral-large3": True}),
    clean("DSC112", "vllm-large3-hf-names-under-model", profile="vllm-eagle-mistral-large3",
          draft=None, config=V3, tensors=LARGE3_HF, exactly=("DSC501",)),
    # one expert missing: the experts' fused parameter counts as loaded (uninitialised rows)
    fires("DSC652", "vllm-large3-expert-missing", profile="vllm-eagle-mistral-large3",
          draft=None, config=V3, tensors=EXPERT_1, says="layers.0.mlp.experts.1.gate_proj"),
    # an RMSNorm (no quant method) nothing fills fails the load (default_loader.py:567-572);
    # a linear layer counts as loaded (531-566): uninitialised, no error
    fires("DSC652", "vllm-large3-no-kv-a-norm", profile="vllm-eagle-mistral-large3",
          draft=None, config=V3, tensors={"layers.0.attention.kv_a_norm.weight": DROP},
          says="that it filled layers.0.self_attn.kv_a_layernorm (with no quant"),
    fires("DSC652", "vllm-large3-no-norm", profile="vllm-eagle-mistral-large3", draft=None,
          config=V3, tensors={"norm.weight": DROP}, says="that it filled norm"),
    fires("DSC652", "vllm-large3-no-q-a-proj", profile="vllm-eagle-mistral-large3",
          draft=None, config=V3, tensors={"layers.0.attention.wq_a.weight": DROP},
          says="(layers.0.self_attn.q_a_proj): vLLM checks after the load only the modules "
          "with no quant method"),
    fires("DSC652", "vllm-large3-two-experts-declared-three", profile="vllm-eagle-mistral-large3",
          draft=None, config={**V3, "n_routed_experts": 3}, says="layers.0.mlp.experts.2"),
    # a dense first layer (first_k_dense_replace 1): a MoE layer's names are no parameter's
    fires("DSC112", "vllm-large3-moe-names-in-a-dense-layer",
          profile="vllm-eagle-mistral-large3", draft=None,
          config={**V3, "first_k_dense_replace": 1}, says="layers.0.experts.0.w1.weight"),
    fires("DSC652", "vllm-large3-dense-layer-missing", profile="vllm-eagle-mistral-large3",
          draft=None, config={**V3, "first_k_dense_replace": 1}, says="layers.0.mlp.gate_proj"),
    # vLLM's mapper has no router_biases (SGLang's has): a stored one names no module
    fires("DSC112", "vllm-large3-router-biases", profile="vllm-eagle-mistral-large3",
          draft=None, config=V3, tensors=BIAS, says="layers.0.router_biases"),
    fires("DSC652", "vllm-large3-noaux-bias-missing", profile="vllm-eagle-mistral-large3",
          draft=None, config={**V3, **NOAUX}, says="layers.0.mlp.gate"),
    # a bare Hugging Face layer name passes unrenamed: no module of the top-level model
    fires("DSC112", "vllm-large3-bare-hf-layer", profile="vllm-eagle-mistral-large3",
          draft=None, config=V3, tensors={"layers.0.self_attn.o_proj.weight": T("F32", (H, H))},
          says="layers.0.self_attn.o_proj.weight"),
    # Mistral Large 3, SGLang: mistral_large_3.py:49-63 first full match, else skipped
    clean("DSC652", "sglang-large3-native-names", profile="sglang-eagle-mistral-large3",
          draft=None, config=S3, exactly=("DSC501",),
          verdicts={"sglang-eagle-mistral-large3": True}),
    clean("DSC666", "sglang-large3-router-bias-noaux", profile="sglang-eagle-mistral-large3",
          draft=None, config={**S3, **NOAUX}, tensors=BIAS),
    fires("DSC666", "sglang-large3-router-bias-unbuilt", profile="sglang-eagle-mistral-large3",
          draft=None, config=S3, tensors=BIAS, says="layers.0.router_biases"),
    fires("DSC652", "sglang-large3-noaux-bias-missing", profile="sglang-eagle-mistral-large3",
          draft=None, config={**S3, **NOAUX}, says="layers.0.mlp.gate.e_score_correction_bias"),
    fires("DSC652", "sglang-large3-expert-missing", profile="sglang-eagle-mistral-large3",
          draft=None, config=S3, tensors=EXPERT_1, says="layers.0.mlp.experts.1.gate_proj.weight"),
    # no pattern passes model.*: a Hugging Face drafter is skipped whole
    fires("DSC666", "sglang-large3-hf-names-under-model", profile="sglang-eagle-mistral-large3",
          draft=None, config=S3, tensors=LARGE3_HF, says="model.fc.weight"),
    fires("DSC652", "sglang-large3-hf-names-under-model", profile="sglang-eagle-mistral-large3",
          draft=None, config=S3, tensors=LARGE3_HF, says="fc.weight"),
    # a declared layer no tensor backs keeps its initial weights
    fires("DSC652", "sglang-large3-layer-missing", profile="sglang-eagle-mistral-large3",
          draft=None, config={**S3, "num_hidden_layers": 2}, says="layers.1.self_attn.q_a_proj"),
    # each runtime's registry refuses the other's class name
    fires("DSC680", "vllm-name-under-sglang", profile="sglang-eagle", draft=None, config=V,
          says="registers LlamaForCausalLMEagle"),
    fires("DSC680", "sglang-name-under-vllm", profile="vllm-eagle", draft=None, config=S,
          says="registers EagleLlamaForCausalLM"),
    clean("DSC680", "vllm-name", profile="vllm-eagle-mistral", draft=None, config=V),
    clean("DSC680", "sglang-name", profile="sglang-eagle-mistral", draft=None, config=S),
    fires("DSC680", "vllm-large3-name-under-sglang", profile="sglang-eagle", draft=None,
          config=V3, says="registers LlamaForCausalLMEagle"),
    clean("DSC680", "vllm-large3-name", profile="vllm-eagle-mistral-large3", draft=None,
          config=V3),
]  # fmt: skip


@pytest.mark.parametrize("c", CASES, ids=ids(CASES))
def test_case(bench, c):
    check(bench, c)


def _route(name: str):
    config = {"architectures": [name], "vocab_size": VT, "hidden_size": H}
    return route(parse_drafter_config(config, Path("config.json")))


@pytest.mark.parametrize(
    "vllm_name,sglang_name,line",
    [
        ("EagleMistralForCausalLM", "MistralForCausalLMEagle", "eagle-mistral"),
        ("EagleMistralLarge3ForCausalLM", "MistralLarge3ForCausalLMEagle", "eagle-mistral-large3"),
    ],
)
def test_each_name_is_judged_by_its_runtimes_own_profile_and_refused_by_the_other(
    vllm_name, sglang_name, line
):
    vllm, sglang = _route(vllm_name), _route(sglang_name)
    assert vllm.family == sglang.family == "eagle" and vllm.judged and sglang.judged
    assert set(vllm.judges) == {f"vllm-{line}", "sglang-eagle"}
    assert set(sglang.judges) == {"vllm-eagle", f"sglang-{line}"}
    assert vllm.unjudged == sglang.unjudged == ()


def test_the_patterns_rename_as_each_runtime_does():
    """Each stored name through the profile's patterns, against the runtime's own mapper read
    by hand: vLLM renames component by component and passes what it does not know; SGLang
    passes model.* and lm_head.* as stored and skips a bare name none of its patterns take."""
    stored = [
        "eagle_linear.weight",
        "layers.3.attention.wk.weight",
        "layers.3.feed_forward.w2.weight",
        "layers.3.ffn_norm.weight",
        "model.layers.3.attention.wq.weight",
        "model.fc.weight",
        "norm.weight",
        "tok_embeddings.weight",
        "output.weight",
        "fc.weight",
        "d2t",
    ]
    vllm = renamed(stored, name_maps(PROFILES["vllm-eagle-mistral"]).patterns)
    assert {n: vllm.stored[n] for n in vllm.names} == {
        "fc.weight": "eagle_linear.weight",  # model.fc.weight too: the first is kept
        "layers.3.self_attn.k_proj.weight": "layers.3.attention.wk.weight",
        "layers.3.mlp.down_proj.weight": "layers.3.feed_forward.w2.weight",
        "layers.3.post_attention_layernorm.weight": "layers.3.ffn_norm.weight",
        "layers.3.self_attn.q_proj.weight": "model.layers.3.attention.wq.weight",
        "norm.weight": "norm.weight",
        "embed_tokens.weight": "tok_embeddings.weight",
        "lm_head.weight": "output.weight",
        "^fc.weight": "fc.weight",  # outside the model: refused
        "^d2t": "d2t",
    }
    assert vllm.skipped == ()
    sglang = renamed(stored, name_maps(PROFILES["sglang-eagle-mistral"]).patterns)
    assert {n: sglang.stored[n] for n in sglang.names} == {
        "fc.weight": "eagle_linear.weight",
        "layers.3.self_attn.k_proj.weight": "layers.3.attention.wk.weight",
        "layers.3.mlp.down_proj.weight": "layers.3.feed_forward.w2.weight",
        "layers.3.post_attention_layernorm.weight": "layers.3.ffn_norm.weight",
        "layers.3.attention.wq.weight": "model.layers.3.attention.wq.weight",  # not renamed
        "norm.weight": "norm.weight",
    }
    assert sglang.skipped == ("d2t", "fc.weight", "output.weight", "tok_embeddings.weight")
