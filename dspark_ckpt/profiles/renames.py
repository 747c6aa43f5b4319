"""How vLLM renames a drafter config's architectures by the speculative method it serves the
drafter with (its ``EAGLEConfig``), before its model registry looks them up: the cites of the
``architecture_rename`` field, one per family's loader. EAGLE drafters are published as
``LlamaForCausalLM`` (yuhuili's), which vLLM serves as ``EagleLlamaForCausalLM`` or
``Eagle3LlamaForCausalLM``; SGLang and TensorRT-LLM look the names up as they stand."""

from __future__ import annotations

EAGLE_CONFIG = "vllm/transformers_utils/configs/eagle.py"
RENAME_CITES = {
    "dspark": 'vllm/config/speculative.py:1514 `if self.method in ("eagle", "eagle3", "dflash"):` '
    "(a DSpark config keeps its architectures)",
    "dflash": f'{EAGLE_CONFIG}:65-74 `f"DFlash{{arch}}"` (unless it starts or ends with DFlash, '
    "or is LiLiCorrDraftModel)",
    "eagle3": f'{EAGLE_CONFIG}:55-62 `f"Eagle3{{arch}}"` (unless it starts or ends with Eagle3)',
    "eagle": f'{EAGLE_CONFIG}:46-51 `f"Eagle{{arch}}"` (unless it starts with Eagle)',
}
