"""Cases rebuilt from public bug reports about drafter checkpoints that fail, or silently
misbehave, at load or draft time. Each row names its report and the runtime source line (vLLM
0.33.0, SGLang 0.5.23) that decides it today; firing rows have their clean twins. The drafter
is synth.py's (hidden 8, Vt 100) made into what each profile loads (rules_harness)."""

from __future__ import annotations

import numpy as np
import pytest
from rules_harness import (
    EAGLE3,
    SG_EAGLE3_LAYERS,
    Case,
    Tgt,
    check,
    clean,
    d2t,
    fires,
    head,
    ids,
    mapping,
    zeros,
)
from synth import VT, H
from test_architectures import L4_EAGLE1

# --- a pruned head exported without its map (https://github.com/NVIDIA-NeMo/Automodel/pull/2447:
# the draft saved only lm_head [Vd]; "vLLM therefore found no mapping ... silently aligned draft
# ids to the first draft_vocab_size target ids, and the acceptance rate collapsed")
HEAD32 = {"lm_head.weight": head(32)}
# --- d2t written as arange (https://github.com/verl-project/verl-SpeCo/pull/67: "Under the offset
# convention that resolves draft id i to target id 2 * i ... indexes out of bounds")
ARANGE32 = {**HEAD32, "d2t": d2t(np.arange(32))}
ARANGE60 = {"lm_head.weight": head(60), "d2t": d2t(np.arange(60))}

# --- a drafter narrower than its target: yuhuili/EAGLE3-LLaMA3.3-Instruct-70B (draft hidden 6144
# over Llama 3.3 70B's 8192), its target_hidden_size and its own embed_tokens. Here: hidden 8
# over a 16-wide, 8-layer target, three aux states ([1, 3, 5]: fc [8, 3 * 16])
WIDE = Tgt.of(num_hidden_layers=8, hidden_size=2 * H)
NARROW = {**EAGLE3, "eagle_config": None, "eagle_aux_hidden_state_layer_ids": [1, 3, 5]}
NARROW_THS = {**NARROW, "target_hidden_size": 2 * H}
FC_WIDE = {"fc.weight": zeros("F32", (H, 3 * 2 * H))}
OWN = {"embed_tokens.weight": zeros("F32", (VT, H)), "lm_head.weight": head(VT)}
# SGLang reads the ids from eagle_config and captures id + 1: the same layers, one lower
SG_NARROW = {**EAGLE3, "eagle_config": {"eagle_aux_hidden_state_layer_ids": [0, 2, 4]}}
SG_WIDE = {**FC_WIDE, **OWN, **SG_EAGLE3_LAYERS}

# --- classic EAGLE over Qwen2 (https://github.com/vllm-project/vllm/issues/24967: "Model
# architectures ['EagleQwen2ForCausalLM'] are not supported", yuhuili/EAGLE-Qwen2-7B-Instruct):
# vLLM names the drafter Eagle + the checkpoint's architecture (transformers_utils/configs/
# eagle.py:46-54) and registers no EagleQwen2ForCausalLM (model_executor/models/registry.py:
# 660-663 register the Cohere, Llama, Llama 4 and MiniCPM ones)
EAGLE1 = {"model_type": "llama", "markov_rank": None, "target_layer_ids": None,
          "mask_token_id": None, "eagle_config": None}  # fmt: skip
EMBED = {"embed_tokens.weight": zeros("F32", (VT, H))}

# --- a Qwen3 DSpark drafter named DSparkDraftModel (RadixArk's name; https://github.com/syv-ai/
# qwen38-27b-rtx3090/issues/25, item 15: vLLM's registry maps the name to the DeepSeek-V4 DSpark
# class, "AttributeError: 'Qwen3Config' object has no attribute 'hc_mult'"). vLLM 0.33.0 renames
# it Qwen3DSparkModel where model_type is qwen3 (config/speculative.py:1534-1541), and only there:
# any other model type is rewritten into the DeepSeek-V4 drafter (:1543-1565)
RADIX = {"architectures": ["DSparkDraftModel"], "markov_head_type": "vanilla"}

# --- SGLang turns EAGLE-3 aux ids into capture points per target model. Llama, Qwen and most
# others capture the state entering layer id + 1 (python/sglang/srt/models/llama.py:938-941).
# https://github.com/sgl-project/sglang/pull/32334 (nvidia/gpt-oss-120b-Eagle3-v3, ids
# [24, 30, 36] over 36 layers, "only two 2,880-wide states were returned"): GPT-OSS takes the
# ids as they are where the largest is N, the final boundary included (gpt_oss.py:1345-1352,
# 728-738). https://github.com/sgl-project/sglang/pull/25454 (lightseekorg/kimi-k2.5-eagle3-mla,
# ids that start at 2): DeepSeek-V2's family adds 1 only where the first id is 1
# (deepseek_v2.py:3466-3473). Here 36- and 8-layer targets as wide as the drafter
GPT_OSS = Tgt.of(
    architectures=["GptOssForCausalLM"], model_type="gpt_oss", num_hidden_layers=36, hidden_size=H
)
LLAMA36 = Tgt.of(architectures=["LlamaForCausalLM"], num_hidden_layers=36, hidden_size=H)
DSV3 = Tgt.of(
    architectures=["DeepseekV3ForCausalLM"],
    model_type="deepseek_v3",
    num_hidden_layers=8,
    hidden_size=H,
)
QWEN8 = Tgt.of(num_hidden_layers=8, hidden_size=H)
SG_FULL = {"fc.weight": zeros("F32", (H, 3 * H)), "lm_head.weight": head(VT), **SG_EAGLE3_LAYERS}


def sg_ids(*ids: int) -> dict:
    return {**EAGLE3, "eagle_config": {"eagle_aux_hidden_state_layer_ids": list(ids)}}


CASES: list[Case] = [
    # DSC103. vLLM builds draft_id_to_target_id as zeros wherever draft_vocab_size != the
    # target's (llama_eagle3.py:338-343) and drops the name when no d2t is stored (:458-459):
    # every draft id i is served as target id i
    fires("DSC103", "automodel-pruned-head-no-map", profile="vllm-eagle3", draft=32,
          config=EAGLE3, tensors=HEAD32, says="silently maps draft id i to target id i",
          exactly=("DSC103",)),
    # SGLang: hot_token_id is only set from a stored d2t (python/sglang/srt/models/
    # llama_eagle3.py:323,350-352); without it the 32 logits are read as target ids 0..31
    fires("DSC103", "automodel-pruned-head-no-map-sglang", profile="sglang-eagle3", draft=32,
          config=EAGLE3, tensors={**HEAD32, **SG_EAGLE3_LAYERS}, says="silently maps"),
    # the fix (d2t and t2d written with the head)
    clean("DSC103", "automodel-pruned-head-with-map", profile="vllm-eagle3", draft=32,
          config=EAGLE3, tensors={**HEAD32, **mapping(32)}, exactly=()),
    # the same PR writes the map only when the vocab is compressed: at draft_vocab_size == the
    # target's vLLM builds no draft_id_to_target_id (llama_eagle3.py:344-345) and a stored d2t
    # has no parameter to load into
    fires("DSC105", "automodel-full-vocab-with-d2t", profile="vllm-eagle3", config=EAGLE3,
          tensors={"lm_head.weight": head(VT), "d2t": d2t(np.zeros(VT))},
          says="creates no draft_id_to_target_id parameter", exactly=("DSC105",)),
    clean("DSC105", "automodel-full-vocab-no-d2t", profile="vllm-eagle3", config=EAGLE3,
          tensors={"lm_head.weight": head(VT)}, exactly=()),
    # DSC313: d2t holds offsets; vLLM adds the draft id (llama_eagle3.py:385-386 `targets = base
    # + self.draft_id_to_target_id`), so arange(Vd) sends draft id i to 2i
    fires("DSC313", "verl-speco-d2t-arange", profile="vllm-eagle3", draft=32, config=EAGLE3,
          tensors=ARANGE32, says="d2t is arange(32)"),
    clean("DSC313", "verl-speco-d2t-offsets", profile="vllm-eagle3", draft=32, config=EAGLE3,
          tensors={**HEAD32, **mapping(32)}),
    # past Vt / 2 draft ids, 2i leaves the target vocab: `logits_new[:, targets] = logits`
    # (llama_eagle3.py:393) indexes out of bounds
    fires("DSC301", "verl-speco-d2t-arange-out-of-range", profile="vllm-eagle3", draft=60,
          config=EAGLE3, tensors=ARANGE60, says="map outside [0, 100)"),
    clean("DSC301", "verl-speco-d2t-offsets-in-range", profile="vllm-eagle3", draft=60,
          config=EAGLE3, tensors={"lm_head.weight": head(60), **mapping(60)}),
    # A drafter narrower than its target. https://github.com/vllm-project/vllm/issues/18906 (vLLM
    # 0.9.0: KeyError 'embed_tokens.weight', then a width assert), fixed by vLLM PR #17740
    # (target_hidden_size) and PR #28549 (a drafter's own embed_tokens; ported as
    # https://github.com/vllm-project/vllm-ascend/pull/5575). At 0.33.0 fc is built over
    # target_hidden_size (llama_eagle3.py:218-221) and a shipped embedding that differs from the
    # target's is kept (v1/worker/gpu/spec_decode/eagle/utils.py:18-34 `_should_share`): loads
    clean("DSC702", "eagle3-70b-own-embedding", profile="vllm-eagle3", target=WIDE,
          config=NARROW_THS, tensors={**FC_WIDE, **OWN}, exactly=()),
    # without its own embed_tokens the target's 16-wide one is shared (utils.py:24-25, 74-77)
    # and meets the 8-wide layer
    fires("DSC702", "eagle3-70b-no-own-embedding", profile="vllm-eagle3", target=WIDE,
          config=NARROW_THS, tensors={**FC_WIDE, "lm_head.weight": head(VT)},
          says="the target's embed_tokens.weight", exactly=("DSC702",)),
    # without target_hidden_size fc is built over hidden_size ([8, 24]): the stored [8, 48]
    # fails the load (DSC210 says the shape, DSC701 the cause)
    fires("DSC701", "eagle3-70b-no-target-hidden-size", profile="vllm-eagle3", target=WIDE,
          config=NARROW, tensors={**FC_WIDE, **OWN}, says="no target_hidden_size",
          exactly=("DSC210", "DSC701")),
    clean("DSC701", "eagle3-70b-target-hidden-size", profile="vllm-eagle3", target=WIDE,
          config=NARROW_THS, tensors={**FC_WIDE, **OWN}),
    # SGLang: https://github.com/sgl-project/sglang/pull/4716 ("Fix EAGLE3 for llama3.3 70b"):
    # hidden_size_in is target_hidden_size where the key is there (python/sglang/srt/models/
    # llama_eagle3.py:151-152), else hidden_size
    clean("DSC701", "eagle3-70b-target-hidden-size-sglang", profile="sglang-eagle3",
          target=WIDE, config={**SG_NARROW, "target_hidden_size": 2 * H}, tensors=SG_WIDE,
          exactly=()),
    fires("DSC701", "eagle3-70b-no-target-hidden-size-sglang", profile="sglang-eagle3",
          target=WIDE, config=SG_NARROW, tensors=SG_WIDE, says="no target_hidden_size"),
    fires("DSC680", "eagle-qwen2-not-registered", profile="vllm-eagle", draft=None,
          config={**EAGLE1, "architectures": ["EagleQwen2ForCausalLM"], "model_type": "qwen2"},
          tensors=EMBED, says="registers no such eagle drafter class"),
    clean("DSC680", "eagle-llama-registered", profile="vllm-eagle", draft=None,
          config={**EAGLE1, "architectures": ["EagleLlamaForCausalLM"]}, tensors=EMBED),
    clean("DSC664", "radixark-dspark-name-qwen3", profile="vllm", config={**RADIX,
          "model_type": "qwen3"}, exactly=()),
    fires("DSC664", "radixark-dspark-name-other-model-type", profile="vllm",
          config={**RADIX, "model_type": "qwen3_moe"}, says="rewrites it to the DeepSeek-V4"),
    # GPT-OSS: [24, 30, 36] are the boundaries themselves, 36 the final one: three states
    clean("DSC703", "gpt-oss-eagle3-final-boundary-sglang", profile="sglang-eagle3",
          target=GPT_OSS, config=sg_ids(24, 30, 36), tensors=SG_FULL, exactly=()),
    # vLLM reads them at the top level and captures boundary i + 1 after each layer, the last
    # included (gpt_oss.py:526-532): the same three states
    clean("DSC703", "gpt-oss-eagle3-final-boundary-vllm", profile="vllm-eagle3", target=GPT_OSS,
          config={**EAGLE3, "eagle_config": None, "eagle_aux_hidden_state_layer_ids": [24, 30, 36]},
          tensors={"fc.weight": zeros("F32", (H, 3 * H)), "lm_head.weight": head(VT)},
          exactly=()),
    # the same ids over a 36-layer Llama: 36 + 1 is no boundary it captures, two states
    fires("DSC703", "llama-eagle3-id-n-sglang", profile="sglang-eagle3", target=LLAMA36,
          config=sg_ids(24, 30, 36), tensors=SG_FULL, says="the target produces 2 of the 3"),
    # DeepSeek V3: [2, 4, 7] as they are (7 < 8 layers); [1, 4, 7] first id 1: + 1, 8 is past
    clean("DSC703", "deepseek-eagle3-ids-as-they-are-sglang", profile="sglang-eagle3",
          target=DSV3, config=sg_ids(2, 4, 7), tensors=SG_FULL, exactly=()),
    fires("DSC703", "deepseek-eagle3-first-id-1-shifted-sglang", profile="sglang-eagle3",
          target=DSV3, config=sg_ids(1, 4, 7), tensors=SG_FULL, says="[7] outside [-1, 6]"),
    fires("DSC703", "qwen3-eagle3-ids-shifted-sglang", profile="sglang-eagle3", target=QWEN8,
          config=sg_ids(2, 4, 7), tensors=SG_FULL, says="[7] outside [-1, 6]"),
    # https://github.com/vllm-project/vllm/pull/29926: vLLM skipped the lm_head that
    # morgendave/EAGLE-Llama-4-Scout-17B-16E-Instruct and nvidia/Llama-4-Maverick-17B-128E-Eagle3
    # ship ("missing 'lm_head' attribute"). At 0.33.0 llama4_eagle.py:237-246 loads lm_head names
    # as stored and the shipped head is kept (eagle/utils.py `_should_share`): it loads, clean
    clean("DSC103", "llama4-eagle-ships-its-head", profile="vllm-eagle-llama4", config=L4_EAGLE1,
          tensors={**EMBED, "lm_head.weight": head(VT)}, exactly=()),
    # that head pruned to 40 rows with no map: draft id i is proposed as target id i
    fires("DSC103", "llama4-eagle-pruned-head-no-map", profile="vllm-eagle-llama4", draft=40,
          config=L4_EAGLE1, tensors={**EMBED, "lm_head.weight": head(40)},
          says="proposed as target id i", exactly=("DSC103",)),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_case(bench, case):
    check(bench, case)
