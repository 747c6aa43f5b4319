"""Cases rebuilt from public bug reports, round 4: exporters' and converters' vocab maps (d2t
offsets or absolute ids, a t2d that selects fewer ids than the head has rows, a head without
its draft_vocab_size), a DFlash class name vLLM and SGLang do not register, a tensor stored in
two shards. Each row names its report and the runtime source line (vLLM 0.33.0, SGLang 0.5.23)
that decides it today; firing rows have their clean twins. The drafter is synth.py's (hidden
8, Vt 100) made into what each profile loads (rules_harness)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from rules_harness import (
    DFLASH,
    EAGLE3,
    SG_BLOCK_LAYERS,
    SG_EAGLE3_LAYERS,
    Case,
    check,
    clean,
    d2t,
    fires,
    head,
    ids,
    mapping,
    split_off,
)
from synth import VT, T, sorted_mapping

HEAD32 = {"lm_head.weight": head(32)}
OFFSETS, MASK = sorted_mapping(VT, 32, 0)
T2D = {"t2d": T("BOOL", (VT,), MASK)}

# --- https://github.com/ggml-org/llama.cpp/pull/18039 (EAGLE-3 in llama.cpp): its converter
# turns the stored d2t into target ids with `data + np.arange(data.size)` and then checks them
# in range: d2t holds offsets. A d2t written as the absolute ids (what that converter makes)
# and read by vLLM 0.33.0 is added to the draft id a second time (models/llama_eagle3.py:
# 385-386 `targets = base + self.draft_id_to_target_id`), by SGLang 0.5.23 likewise
# (models/llama_eagle3.py:350-352 `loaded_weight + torch.arange`)
ABSOLUTE = {**HEAD32, "d2t": d2t(OFFSETS + np.arange(32)), **T2D}
RELATIVE = {**HEAD32, "d2t": d2t(OFFSETS), **T2D}

# --- https://github.com/SafeAILab/EAGLE/issues/248 (EAGLE-3 training: "self.t2d's shape is
# [32000] but valid vocab_size is 1746": a vocab map built from a corpus with fewer distinct
# tokens than draft_vocab_size, so t2d selects 1746 ids for a 32000-row head). The runtimes
# read d2t only (vLLM's loader skips t2d, llama_eagle3.py:426-427; SGLang skips it,
# :354-355): it loads, and the rows past what t2d selects were never trained. Here 5 of 32
FEW = MASK.copy()
FEW[np.flatnonzero(MASK)[5:]] = False
T2D_FEW = {"t2d": T("BOOL", (VT,), FEW)}

# --- https://github.com/SafeAILab/EAGLE/issues/249 ("size mismatch for lm_head.weight: copying
# a param with shape torch.Size([32000, 4096]) ... the shape in current model is
# torch.Size([128256, 4096])"): a pruned head the config does not size. vLLM 0.33.0 builds
# lm_head over draft_vocab_size, vocab_size where the key is absent (models/llama_eagle3.py:
# 314-316, 329-330): the 32-row head meets a 100-row parameter
NO_DVS = {**HEAD32, **mapping(32)}

# --- https://github.com/SafeAILab/EAGLE/issues/222 (the Vicuna EAGLE-3 release: "all values in
# the d2t tensor are 0", its draft vocab the target's 32000). SGLang 0.5.23 takes hot_token_id =
# d2t + arange (models/llama_eagle3.py:350-352): the identity, it loads. vLLM 0.33.0 builds no
# draft_id_to_target_id at draft_vocab_size == the target's (llama_eagle3.py:338-345) and its
# AutoWeightsLoader refuses the stored name
ZEROS_FULL = {"lm_head.weight": head(VT), "d2t": d2t(np.zeros(VT))}

# --- https://github.com/NVIDIA-NeMo/Automodel/pull/2913 (serving DFlash drafts on vLLM: the
# recipes write architectures ["Qwen3DFlashDraftModel"], which serve_vllm rewrites to vLLM's
# registered DFlashDraftModel). vLLM 0.33.0 prefixes a name that neither starts nor ends with
# DFlash (transformers_utils/configs/eagle.py:65-75 `f"DFlash{arch}"`) and registers no
# DFlashQwen3DFlashDraftModel (model_executor/models/registry.py:664-696); SGLang 0.5.23
# registers no Qwen3DFlashDraftModel either (srt/models/ holds no such EntryClass)
AUTOMODEL_DFLASH = {**DFLASH, "architectures": ["Qwen3DFlashDraftModel"]}


# --- https://github.com/vllm-project/vllm/pull/54230 ("Honor safetensors index tensor
# assignments": "DefaultModelLoader uses weight_map only to filter the shard file list, then
# ... yields every tensor stored in each file"), https://github.com/syv-ai/qwen38-27b-rtx3090/
# pull/123 ("A tensor that lives in more than its mapped shard gets loaded twice — the second
# load wins"). vLLM 0.33.0 filters files only (model_loader/weight_utils.py:590-616), as does
# SGLang 0.5.23 (model_loader/weight_utils.py:757-805): which copy loads is the file order's.
# The drafter: fc.weight moved to a second shard and a stale copy left in the first
def stale_copy(folder: Path) -> None:
    from safetensors.numpy import load_file, save_file

    split_off("fc.weight")(folder)
    first = folder / "model-00001-of-00002.safetensors"
    second = load_file(folder / "model-00002-of-00002.safetensors")
    save_file({**load_file(first), **second}, first)


CASES: list[Case] = [
    fires("DSC311", "llama-cpp-converter-d2t-absolute", profile="vllm-eagle3", draft=32,
          config=EAGLE3, tensors=ABSOLUTE, says="holds absolute target ids"),
    clean("DSC311", "llama-cpp-converter-d2t-offsets", profile="vllm-eagle3", draft=32,
          config=EAGLE3, tensors=RELATIVE, exactly=()),
    fires("DSC311", "llama-cpp-converter-d2t-absolute-sglang", profile="sglang-eagle3",
          draft=32, config=EAGLE3, tensors={**ABSOLUTE, **SG_EAGLE3_LAYERS},
          says="holds absolute target ids", verdicts={"sglang-eagle3": False}),
    clean("DSC311", "llama-cpp-converter-d2t-offsets-sglang", profile="sglang-eagle3",
          draft=32, config=EAGLE3, tensors={**RELATIVE, **SG_EAGLE3_LAYERS}, exactly=()),
    # a warning: the drafter loads and serves (verdict true), its untrained rows are named
    fires("DSC303", "eagle-t2d-fewer-than-draft-vocab", profile="vllm-eagle3", draft=32,
          config=EAGLE3, tensors={**HEAD32, "d2t": d2t(OFFSETS), **T2D_FEW},
          says="t2d selects 5 target ids; Vd is 32", verdicts={"vllm-eagle3": True}),
    clean("DSC303", "eagle-t2d-as-many-as-draft-vocab", profile="vllm-eagle3", draft=32,
          config=EAGLE3, tensors=RELATIVE, exactly=()),
    fires("DSC201", "eagle-pruned-head-no-draft-vocab-size", profile="vllm-eagle3", draft=None,
          config=EAGLE3, tensors=NO_DVS, says="expected [draft_vocab_size 100, H]",
          verdicts={"vllm-eagle3": False}),
    clean("DSC201", "eagle-pruned-head-draft-vocab-size", profile="vllm-eagle3", draft=32,
          config=EAGLE3, tensors=NO_DVS, exactly=()),
    clean("DSC105", "eagle-vicuna-zero-d2t-full-vocab-sglang", profile="sglang-eagle3",
          config=EAGLE3, tensors={**ZEROS_FULL, **SG_EAGLE3_LAYERS}, exactly=(),
          verdicts={"sglang-eagle3": True}),
    fires("DSC105", "eagle-vicuna-zero-d2t-full-vocab", profile="vllm-eagle3", config=EAGLE3,
          tensors=ZEROS_FULL, says="creates no draft_id_to_target_id parameter",
          exactly=("DSC105",)),
    fires("DSC680", "automodel-qwen3-dflash-name", profile="vllm-dflash",
          config=AUTOMODEL_DFLASH, says="looked up as DFlashQwen3DFlashDraftModel",
          exactly=("DSC680",)),
    fires("DSC680", "automodel-qwen3-dflash-name-sglang", profile="sglang-dflash",
          config=AUTOMODEL_DFLASH, tensors=SG_BLOCK_LAYERS, says="registers no such dflash",
          exactly=("DSC680",)),
    # the rewrite serve_vllm makes, with the dflash_config keys the recipes write
    clean("DSC680", "automodel-dflash-rewritten", profile="vllm-dflash",
          config={**DFLASH, "target_layer_ids": None, "mask_token_id": None,
                  "dflash_config": {"target_layer_ids": [0, 1], "mask_token_id": VT - 1}},
          exactly=()),
    clean("DSC680", "automodel-dflash-rewritten-sglang", profile="sglang-dflash",
          config=DFLASH, tensors=SG_BLOCK_LAYERS, exactly=()),
    # refused as malformed: the runtimes load both copies, the later file's wins, no error
    fires("DSC001", "tensor-in-two-shards", profile="vllm-eagle3", config=EAGLE3,
          mutate=stale_copy, says="tensor 'fc.weight' is also stored in"),
    clean("DSC001", "tensor-in-its-mapped-shard-only-sglang", profile="sglang-eagle3",
          config=EAGLE3, tensors={**SG_EAGLE3_LAYERS, "lm_head.weight": head(VT)},
          mutate=split_off("fc.weight"), exactly=()),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_case(bench, case):
    check(bench, case)
