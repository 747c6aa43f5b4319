"""MTP cases rebuilt from public bug reports: a target whose MTP / NextN draft layers were
lost, or stored otherwise than the runtime builds them, on its way through a fine-tune, an
export or a quantisation. Each row names its report and the runtime source line (vLLM 0.33.0,
SGLang 0.5.23) that decides it today; firing rows have their clean twins. The targets are
fixtures/mtp_targets.py's (hidden 8, two decoder layers), judged by the loader the row names
(test_mtp_rules.py's harness)."""

from __future__ import annotations

import mtp_targets as MT
import pytest
from test_mtp_rules import check_mtp_case, clean, fires

FP4 = {"quantization_config": {"quant_method": "modelopt", "quant_algo": "NVFP4"}}
# vLLM's MTP loaders rename mtp.* to model.* (qwen3_next_mtp.py:240-241, qwen3_5_mtp.py:312-313)
# and the weight tracking refuses what no stored name reached (model_loader/default_loader.py:
# 531-572, "Following weights were not initialized from checkpoint")
NOT_INITIALIZED = "refused at start-up ('Following weights were not initialized from checkpoint')"

CASES = [
    # https://github.com/modelscope/ms-swift/issues/6221: a Qwen3-Next fully fine-tuned with
    # ms-swift and saved through transformers (which drops mtp.*), served with
    # --speculative-config '{"method":"qwen3_next_mtp"}': the worker fails to start; the original
    # checkpoint starts
    fires("DSC802", "ms-swift-qwen3-next-finetune-without-mtp", "qwen3_next",
          "vllm-mtp-qwen3-next", drop=("mtp.",), says=NOT_INITIALIZED),
    clean("DSC802", "ms-swift-qwen3-next-original-with-mtp", "qwen3_next", "vllm-mtp-qwen3-next"),
    # SGLang loads the same export and checks nothing (qwen3_next_mtp.py reads what is there)
    fires("DSC802", "ms-swift-qwen3-next-finetune-without-mtp-sglang", "qwen3_next",
          "sglang-mtp-qwen3-next", drop=("mtp.",), says="drafts from uninitialised weights"),
    # https://github.com/modelscope/ms-swift/issues/9802: Qwen3.6-35B-A3B (qwen3_5_moe) LoRA-merged
    # and exported without its MTP weights; vLLM: "Following weights were not initialized from
    # checkpoint: {... 'model.pre_fc_norm_hidden.weight', 'model.norm.weight', ...}"
    fires("DSC803", "ms-swift-qwen3.6-moe-lora-export-without-mtp", "qwen3_5_moe",
          "vllm-mtp-qwen3.5-moe", drop=("mtp.",), says="mtp.pre_fc_norm_hidden.weight"),
    clean("DSC803", "ms-swift-qwen3.6-moe-mtp-copied-back", "qwen3_5_moe",
          "vllm-mtp-qwen3.5-moe"),
    # https://github.com/vllm-project/vllm-ascend/issues/15201: a Qwen3.5-9B SFT export whose
    # config keeps mtp_num_hidden_layers but whose weights hold no MTP head, method qwen3_5_mtp:
    # "ValueError ... Following weights were not initialized from checkpoint"
    fires("DSC802", "qwen3.5-sft-export-without-mtp", "qwen3_5", "vllm-mtp-qwen3.5",
          drop=("mtp.",), says=NOT_INITIALIZED),
    clean("DSC802", "qwen3.5-base-with-mtp", "qwen3_5", "vllm-mtp-qwen3.5"),
    # https://github.com/vllm-project/vllm/issues/35031 (nvidia/Qwen3-Next-80B-A3B-Instruct-NVFP4:
    # the MTP fc, stored unquantised, was built NVFP4 and its load asserted). vLLM 0.33.0 builds
    # the fc without the modelopt_fp4 quant config (qwen3_next_mtp.py:73-85 `fc_quant`), so the
    # unquantised fc loads; one stored packed (U8, half the columns) is what no longer fits
    clean("DSC804", "qwen3-next-nvfp4-export-fc-unquantised", "qwen3_next",
          "vllm-mtp-qwen3-next", config=FP4),
    fires("DSC804", "qwen3-next-nvfp4-export-fc-packed", "qwen3_next", "vllm-mtp-qwen3-next",
          config=FP4, shapes={"mtp.fc.weight": (8, 8)}, dtype="U8",
          says="is [8, 8], the model builds [8, 16]"),
    # https://github.com/NVIDIA-AI-IOT/jetson-ai-lab/issues/362 (Qwen3.5-35B-A3B-NVFP4, method
    # qwen3_next_mtp, an older vLLM: "There is no module or parameter named 'language_model' in
    # Qwen3_5MoeMTP"). vLLM 0.33.0 skips every stored name but mtp.*, embed_tokens and lm_head
    # (qwen3_5_mtp.py:302-305 `is_unused_checkpoint_weight`) and strips language_model. from the
    # embedding (:314-315): the VL checkpoint's language_model.* names load
    clean("DSC809", "qwen3.5-moe-nvfp4-language-model-names", "qwen3_5_moe",
          "vllm-mtp-qwen3.5-moe", config=FP4,
          extra={"model.language_model.embed_tokens.weight": (MT.V, MT.H),
                 "model.language_model.layers.0.input_layernorm.weight": (MT.H,)}),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.code}-{c.id}")
def test_report_case(tmp_path, case):
    check_mtp_case(tmp_path, case)
