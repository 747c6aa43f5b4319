"""Cases rebuilt from public bug reports, round 5: a drafter made for another tokenizer (no
runtime compares vocabularies), the z-lab DFlash checkpoints' top-level block_size and
mask_token_id, an EAGLE-3 config without draft_vocab_size (TensorRT-LLM defaults it, SGLang
fails). Each row names its report and the runtime source line (vLLM 0.33.0, SGLang 0.5.23,
TensorRT-LLM's modelled commit) that decides it today; firing rows have their clean twins. The
drafter is synth.py's (hidden 8, Vt 100) made into what each profile loads (rules_harness)."""

from __future__ import annotations

import pytest
import synth
from rules_harness import (
    DFLASH,
    EAGLE3,
    SG_BLOCK_LAYERS,
    SG_EAGLE3_LAYERS,
    Case,
    Tgt,
    check,
    clean,
    fires,
    head,
    ids,
    zeros,
)
from synth import VT, H

# --- https://github.com/vllm-project/vllm/pull/43369 (fixes vllm#34583, still open): "verify_
# equal_vocab_size_if_draft_model() only enforced vocabulary parity when method == 'draft_model',
# silently skipping eagle and eagle3. A mismatched vocabulary ... causes out-of-bounds GPU memory
# access". vLLM 0.33.0 still checks draft_model only (config/speculative.py:2040-2055 `self.method
# == "draft_model"`); SGLang 0.5.23 compares nothing either. A full-vocab EAGLE-3 drafter made for
# Qwen3's 151936 ids, served over a Llama 3 target (128256): it loads, ids past 128255 index past
# the target's embedding and the rest name other tokens. The head is a sparse hole (no bytes)
QWEN3_V, LLAMA3_V = 151936, 128256
QWEN3_HEAD = {"lm_head.weight": synth.head(QWEN3_V, H, 1, sparse=True)}

# --- https://github.com/InternLM/lmdeploy/pull/4991 ("original z-lab checkpoints store
# block_size (and mask_token_id on some) at the top level of config.json rather than inside
# dflash_config", so lmdeploy rejected them). vLLM 0.33.0 takes dflash_config.mask_token_id, else
# the top-level mask_token_id (v1/spec_decode/llm_base_proposer.py:361-366), and raises "For
# parallel drafting, the draft model config must have `dflash_config.mask_token_id`, ..." without
# either (:373-379); SGLang 0.5.23 falls back to the top-level block_size and mask_token_id
# (speculative/dflash_utils.py:608-611, 688-689). The z-lab layout: target_layer_ids in
# dflash_config, block_size and mask_token_id at the top
ZLAB_TOP = {
    **DFLASH,
    "block_size": 16,
    "mask_token_id": VT - 1,
    "target_layer_ids": None,
    "dflash_config": {"target_layer_ids": [0, 1]},
}
NO_MASK = {**ZLAB_TOP, "mask_token_id": None}

# --- https://github.com/NVIDIA/TensorRT-LLM/pull/10124 ("Eagle3 Specdec UX improvements": the
# tests drop 'draft_vocab_size': 128256 from the EAGLE-3 config, and modeling_speculative.py gains
# _ensure_draft_vocab_size, which sets a missing key to vocab_size with a warning). SGLang 0.5.23
# reads the key as an attribute (models/llama_eagle3.py:306 `config.draft_vocab_size is None`):
# an HF config without it raises AttributeError at build. A full-vocab drafter over a 7-layer
# target whose trained aux ids are TensorRT-LLM's default capture (1, 2, 3)
N7 = Tgt.of(num_hidden_layers=7, hidden_size=H)
TRT_EAGLE3 = {**EAGLE3, "eagle_config": {"eagle_aux_hidden_state_layer_ids": [1, 2, 3]}}
FULL_FC3 = {"lm_head.weight": head(VT), "fc.weight": zeros("F32", (H, 3 * H))}


CASES: list[Case] = [
    fires("DSC310", "eagle3-qwen3-vocab-over-llama3-target", profile="vllm-eagle3",
          vocab=QWEN3_V, draft=QWEN3_V, target=LLAMA3_V, config=EAGLE3, tensors=QWEN3_HEAD,
          says="the drafter was made for another target", verdicts={"vllm-eagle3": False}),
    fires("DSC310", "eagle3-qwen3-vocab-over-llama3-target-sglang", profile="sglang-eagle3",
          vocab=QWEN3_V, draft=QWEN3_V, target=LLAMA3_V, config=EAGLE3,
          tensors={**QWEN3_HEAD, **SG_EAGLE3_LAYERS}, says="No runtime compares vocabularies",
          verdicts={"sglang-eagle3": False}),
    clean("DSC310", "eagle3-qwen3-vocab-over-qwen3-target", profile="vllm-eagle3",
          vocab=QWEN3_V, draft=QWEN3_V, target=QWEN3_V, config=EAGLE3, tensors=QWEN3_HEAD,
          exactly=(), verdicts={"vllm-eagle3": True}),
    clean("DSC109", "zlab-dflash-top-level-mask-token", profile="vllm-dflash", config=ZLAB_TOP,
          exactly=(), verdicts={"vllm-dflash": True}),
    clean("DSC109", "zlab-dflash-top-level-mask-token-sglang", profile="sglang-dflash",
          config=ZLAB_TOP, tensors=SG_BLOCK_LAYERS, exactly=(), verdicts={"sglang-dflash": True}),
    fires("DSC109", "zlab-dflash-no-mask-token", profile="vllm-dflash", config=NO_MASK,
          says="refuses a DFlash/DSpark drafter without one", verdicts={"vllm-dflash": False}),
    # TensorRT-LLM defaults the key (DSC501 says so); SGLang fails on it
    clean("DSC681", "trtllm-eagle3-no-draft-vocab-size", profile="trtllm-eagle3", draft=None,
          target=N7, config=TRT_EAGLE3, tensors=FULL_FC3, exactly=("DSC501",),
          verdicts={"trtllm-eagle3": True}),
    fires("DSC681", "sglang-eagle3-no-draft-vocab-size", profile="sglang-eagle3", draft=None,
          target=N7, config=TRT_EAGLE3, tensors={**FULL_FC3, **SG_EAGLE3_LAYERS},
          says="has no draft_vocab_size key", verdicts={"sglang-eagle3": False}),
    clean("DSC681", "sglang-eagle3-draft-vocab-size", profile="sglang-eagle3", target=N7,
          config=TRT_EAGLE3, tensors={**FULL_FC3, **SG_EAGLE3_LAYERS}, exactly=(),
          verdicts={"sglang-eagle3": True}),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_case(bench, case):
    check(bench, case)
