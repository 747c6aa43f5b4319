"""Classic EAGLE over DeepSeek-V3 layers (profiles/deepseek_eagle.py): vLLM 0.33.0's
EagleDeepSeekMTPModel, firing rows and their clean twins in-process through the engine, on
eagle1_layers.py's DeepSeek EAGLE drafter (hidden 8, one MLA / MoE layer, Vt 100).

Draft layer i is built with the prefix ``layers.<the target's num_hidden_layers + i>``
(deepseek_eagle.py:53-60, 200-207) and that number, not i, decides whether its MLP is MoE
(deepseek_v2.py:1272, 1293-1297); its weights keep the ModuleList's ``layers.i``. So one
drafter is right against one target and wrong against another: most rows below are about
that. Each row's comment names the source line that decides it.
"""

from __future__ import annotations

from pathlib import Path

import eagle1_layers
import pytest
from rules_harness import DROP, VT, H, T, Tgt, check, clean, fires, ids

from dspark_ckpt.facts.config import parse_drafter_config
from dspark_ckpt.profiles.registry import route

P = "vllm-eagle-deepseek"


def target(depth: int) -> Tgt:
    return Tgt.of(num_hidden_layers=depth, hidden_size=H)


# DeepSeek-V3's own first_k_dense_replace (3): MoE from layer 3 on, at the layer's number
V = {"architectures": ["EagleDeepSeekMTPModel"], "model_type": "deepseek_v3",
     "markov_rank": None, "target_layer_ids": None, "mask_token_id": None,
     "q_lora_rank": H, "kv_lora_rank": H, "qk_nope_head_dim": 4, "qk_rope_head_dim": 4,
     "v_head_dim": 4, "n_routed_experts": 2, "first_k_dense_replace": 3,
     "n_shared_experts": 1, "moe_intermediate_size": H, "topk_method": None}  # fmt: skip
DEEP = target(4)  # draft layer 0 is number 4: MoE
SHALLOW = target(2)  # number 2 < 3: dense
MINE = eagle1_layers.deepseek_eagle_backbone(H)  # one MoE layer
EXPERT_1 = {f"layers.0.mlp.experts.1.{w}_proj.weight": DROP for w in ("gate", "up", "down")}
# the same drafter with a dense MLP in its layer
DENSE = {
    **{k: DROP for k in MINE if ".mlp." in k},
    **{f"layers.0.mlp.{w}_proj.weight": T("F32", (H, H)) for w in ("gate", "up", "down")},
}
# the same under model. (the loader prepends model. itself: model.model.* is no parameter)
ROOTED = {**{k: DROP for k in MINE}, **{f"model.{k}": v for k, v in MINE.items()}}

CASES = [
    # deepseek_eagle.py:53-60: the layer is number 4 >= first_k_dense_replace 3: MoE; its
    # weights are layers.0 (the ModuleList's index)
    clean("DSC652", "moe-at-its-number", profile=P, by_default=True, draft=None, config=V,
          target=DEEP, exactly=("DSC501",), verdicts={P: True}),
    clean("DSC112", "moe-at-its-number", profile=P, draft=None, config=V, target=DEEP),
    # the same drafter after a 2-layer target: number 2 < 3, a dense MLP (deepseek_v2.py:
    # 1293-1297): the MoE names are no parameter's (a KeyError, deepseek_eagle.py:164) and the
    # dense MLP is never loaded
    fires("DSC112", "moe-after-a-shallow-target", profile=P, draft=None, config=V,
          target=SHALLOW, says="layers.0.mlp.experts.0.down_proj.weight"),
    fires("DSC652", "moe-after-a-shallow-target", profile=P, draft=None, config=V,
          target=SHALLOW, says="layers.0.mlp.gate_proj"),
    clean("DSC652", "dense-after-a-shallow-target", profile=P, draft=None, config=V,
          target=SHALLOW, tensors=DENSE),
    clean("DSC112", "dense-after-a-shallow-target", profile=P, draft=None, config=V,
          target=SHALLOW, tensors=DENSE),
    fires("DSC112", "dense-after-a-deep-target", profile=P, draft=None, config=V,
          target=DEEP, tensors=DENSE, says="layers.0.mlp.down_proj.weight"),
    # one expert missing: the experts' fused parameter keeps its rows uninitialised
    fires("DSC652", "expert-missing", profile=P, draft=None, config=V, target=DEEP,
          tensors=EXPERT_1, says="layers.0.mlp.experts.1.gate_proj"),
    fires("DSC652", "two-experts-declared-three", profile=P, draft=None, target=DEEP,
          config={**V, "n_routed_experts": 3}, says="layers.0.mlp.experts.2"),
    # topk_method noaux_tc: the router's e_score_correction_bias (deepseek_v2.py:327-330)
    fires("DSC652", "noaux-bias-missing", profile=P, draft=None, target=DEEP,
          config={**V, "topk_method": "noaux_tc"}, says="layers.0.mlp.gate"),
    clean("DSC652", "noaux-bias-stored", profile=P, draft=None, target=DEEP,
          config={**V, "topk_method": "noaux_tc"},
          tensors={"layers.0.mlp.gate.e_score_correction_bias": T("F32", (2,))}),
    # deepseek_eagle.py:71-73: enorm, hnorm and the final norm are the model's own
    fires("DSC652", "hnorm-missing", profile=P, draft=None, config=V, target=DEEP,
          tensors={"hnorm.weight": DROP}, says="hnorm"),
    # deepseek_eagle.py:248-257: model. is prepended: a stored model. prefix is refused
    fires("DSC111", "model-prefix", profile=P, draft=None, config=V, target=DEEP,
          tensors=ROOTED, says="model.fc.weight"),
    clean("DSC111", "bare-names", profile=P, draft=None, config=V, target=DEEP),
    # the target's depth unknown (--target-vocab-size): any MLP is taken
    clean("DSC652", "no-target-depth", profile=P, draft=None, config=V, tensors=DENSE),
    clean("DSC112", "no-target-depth", profile=P, draft=None, config=V),
    # each runtime's registry refuses the other's class name
    clean("DSC680", "vllm-deepseek-name", profile=P, draft=None, config=V, target=DEEP),
    fires("DSC680", "vllm-deepseek-name-under-sglang", profile="sglang-eagle", draft=None, config=V,
          target=DEEP, says="registers LlamaForCausalLMEagle"),
]  # fmt: skip


@pytest.mark.parametrize("c", CASES, ids=ids(CASES))
def test_case(bench, c):
    check(bench, c)


def test_the_name_is_judged_by_vllms_own_profile():
    config = {"architectures": ["EagleDeepSeekMTPModel"], "vocab_size": VT, "hidden_size": H}
    r = route(parse_drafter_config(config, Path("config.json")))
    assert r.family == "eagle" and r.judged and r.unjudged == ()
    assert set(r.judges) == {P, "sglang-eagle"}


def test_without_the_targets_depth_moe_is_not_checked_and_the_report_says_so(bench):
    """--target-vocab-size gives no num_hidden_layers: a dense MLP where the layer's number
    makes it MoE passes DSC112 / DSC652, and the report lists both as not checked for this
    profile; with the target's config, both are checked (and fire)."""
    vocab_only = bench.case(V, DENSE, VT, P, draft=None)
    assert {(n.code, n.profiles) for n in vocab_only.not_checked} >= {
        ("DSC112", (P,)),
        ("DSC652", (P,)),
    }
    assert vocab_only.partial
    with_target = bench.case(V, DENSE, DEEP, P, draft=None)
    assert not {"DSC112", "DSC652"} & {n.code for n in with_target.not_checked}
    assert {"DSC112", "DSC652"} <= {f.code for f in with_target.findings}
