"""Classic EAGLE over DeepSeek-V3 layers (profiles/deepseek_eagle.py): vLLM 0.33.0's
EagleDeepSeekMTPModel, firing rows and their clean twins in-process through the engine, on
eagle1_layers.py's DeepSeek EAGLE drafter (hidden 8, one MLA / MoE layer, Vt 100) against a
2-layer target.

Draft layer i is built as ``layers.<the target's num_hidden_layers + i>`` (deepseek_eagle.py:
53-60, 200-207), and that number decides whether its MLP is MoE (deepseek_v2.py:1293-1297):
most rows below are about the numbering. Each row's comment names the source line that
decides it.
"""

from __future__ import annotations

from pathlib import Path

import eagle1_layers
import pytest
from rules_harness import DROP, VT, H, T, Tgt, check, clean, fires, ids

from dspark_ckpt.facts.config import parse_drafter_config
from dspark_ckpt.profiles.registry import route

P = "vllm-eagle-deepseek"
DEPTH = eagle1_layers.DEEPSEEK_TARGET_LAYERS
TARGET = Tgt.of(num_hidden_layers=DEPTH, hidden_size=H)
# a DeepSeek-V3 config as the drafter ships it: MLA head sizes, MoE from the target's first
# dense layers on (2 experts, one shared)
V = {"architectures": ["EagleDeepSeekMTPModel"], "model_type": "deepseek_v3",
     "markov_rank": None, "target_layer_ids": None, "mask_token_id": None,
     "q_lora_rank": H, "kv_lora_rank": H, "qk_nope_head_dim": 4, "qk_rope_head_dim": 4,
     "v_head_dim": 4, "n_routed_experts": 2, "first_k_dense_replace": 1,
     "n_shared_experts": 1, "moe_intermediate_size": H, "topk_method": None}  # fmt: skip
MINE = eagle1_layers.deepseek_eagle_backbone(H)
NO_MINE = {name: DROP for name in MINE}
# the same drafter with its layer numbered from 0 (as a standalone export numbers it)
FROM_ZERO = {**NO_MINE, **eagle1_layers.deepseek_eagle_backbone(H, start=0)}
# the same under model. (the loader prepends model. itself: model.model.* is no parameter)
ROOTED = {**NO_MINE, **{f"model.{k}": v for k, v in MINE.items()}}
L = f"layers.{DEPTH}"
EXPERT_1 = {f"{L}.mlp.experts.1.{w}_proj.weight": DROP for w in ("gate", "up", "down")}
# a dense layer at the draft layer's number (first_k_dense_replace past the target's depth)
DENSE = {"first_k_dense_replace": DEPTH + 1}
DENSE_MLP = {
    f"{L}.mlp.{w}_proj.weight": T("F32", (H, H)) for w in ("gate", "up", "down")
}  # fmt: skip

CASES = [
    # deepseek_eagle.py:53-60: layers.<2 + 0>, MoE as 2 >= first_k_dense_replace 1
    clean("DSC652", "numbered-after-the-target", profile=P, by_default=True, draft=None,
          config=V, target=TARGET, exactly=("DSC501",), verdicts={P: True}),
    clean("DSC112", "numbered-after-the-target", profile=P, draft=None, config=V,
          target=TARGET),
    # numbered from 0: layers.0.* names no parameter (a KeyError, deepseek_eagle.py:185) and
    # layers.2 (the model's one layer) is never loaded
    fires("DSC112", "numbered-from-zero", profile=P, draft=None, config=V, target=TARGET,
          tensors=FROM_ZERO, says="layers.0.input_layernorm.weight"),
    fires("DSC652", "numbered-from-zero", profile=P, draft=None, config=V, target=TARGET,
          tensors=FROM_ZERO, says=f"{L}.self_attn.q_a_proj"),
    # one expert missing: the experts' fused parameter keeps its rows uninitialised
    fires("DSC652", "expert-missing", profile=P, draft=None, config=V, target=TARGET,
          tensors=EXPERT_1, says=f"{L}.mlp.experts.1.gate_proj"),
    fires("DSC652", "two-experts-declared-three", profile=P, draft=None, target=TARGET,
          config={**V, "n_routed_experts": 3}, says=f"{L}.mlp.experts.2"),
    # deepseek_v2.py:1293-1297 at the layer's own number: 2 < 3, a dense MLP
    fires("DSC112", "moe-names-in-a-dense-layer", profile=P, draft=None, target=TARGET,
          config={**V, **DENSE}, says=f"{L}.mlp.experts.0.down_proj.weight"),
    fires("DSC652", "dense-layer-missing", profile=P, draft=None, target=TARGET,
          config={**V, **DENSE}, says=f"{L}.mlp.gate_proj"),
    clean("DSC652", "dense-layer", profile=P, draft=None, target=TARGET,
          config={**V, **DENSE}, tensors={
              **{k: DROP for k in MINE if ".mlp." in k}, **DENSE_MLP}),
    # topk_method noaux_tc: the router's e_score_correction_bias (deepseek_v2.py:327-330)
    fires("DSC652", "noaux-bias-missing", profile=P, draft=None, target=TARGET,
          config={**V, "topk_method": "noaux_tc"}, says=f"{L}.mlp.gate"),
    clean("DSC652", "noaux-bias-stored", profile=P, draft=None, target=TARGET,
          config={**V, "topk_method": "noaux_tc"},
          tensors={f"{L}.mlp.gate.e_score_correction_bias": T("F32", (2,))}),
    # deepseek_eagle.py:71-73: enorm, hnorm and the final norm are the model's own
    fires("DSC652", "hnorm-missing", profile=P, draft=None, config=V, target=TARGET,
          tensors={"hnorm.weight": DROP}, says="hnorm"),
    # deepseek_eagle.py:248-257: model. is prepended: a stored model. prefix is refused
    fires("DSC111", "model-prefix", profile=P, draft=None, config=V, target=TARGET,
          tensors=ROOTED, says="model.fc.weight"),
    clean("DSC111", "bare-names", profile=P, draft=None, config=V, target=TARGET),
    # the target's depth unknown (--target-vocab-size): the layers are not checked
    clean("DSC652", "no-target-depth", profile=P, draft=None, config=V, tensors=FROM_ZERO),
    clean("DSC112", "no-target-depth", profile=P, draft=None, config=V, tensors=FROM_ZERO),
    # each runtime's registry refuses the other's class name
    clean("DSC680", "vllm-name", profile=P, draft=None, config=V, target=TARGET),
    fires("DSC680", "vllm-name-under-sglang", profile="sglang-eagle", draft=None, config=V,
          target=TARGET, says="registers LlamaForCausalLMEagle"),
]  # fmt: skip


@pytest.mark.parametrize("c", CASES, ids=ids(CASES))
def test_case(bench, c):
    check(bench, c)


def test_the_name_is_judged_by_vllms_own_profile():
    config = {"architectures": ["EagleDeepSeekMTPModel"], "vocab_size": VT, "hidden_size": H}
    r = route(parse_drafter_config(config, Path("config.json")))
    assert r.family == "eagle" and r.judged and r.unjudged == ()
    assert set(r.judges) == {P, "sglang-eagle"}


def test_without_the_targets_depth_the_layers_are_not_checked_and_the_report_says_so(bench):
    """--target-vocab-size gives no num_hidden_layers: the layers' names are not judged (a
    drafter numbered from 0 passes DSC112 / DSC652), and the report lists both as not checked
    for this profile; with the target's config, both are checked."""
    vocab_only = bench.case(V, FROM_ZERO, VT, P, draft=None)
    assert {(n.code, n.profiles) for n in vocab_only.not_checked} >= {
        ("DSC112", (P,)),
        ("DSC652", (P,)),
    }
    assert vocab_only.partial
    with_target = bench.case(V, FROM_ZERO, TARGET, P, draft=None)
    assert not {"DSC112", "DSC652"} & {n.code for n in with_target.not_checked}
    assert {"DSC112", "DSC652"} <= {f.code for f in with_target.findings}
