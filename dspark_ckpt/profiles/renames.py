"""How vLLM normalises a drafter config by the speculative method it serves the drafter with,
before its model registry looks it up: the architectures renamed (its ``EAGLEConfig``; the
cites of ``architecture_rename``, one per family's loader) and DSpark's draft top-k checked
(``draft_topk_range``). EAGLE drafters are published as
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

# method dspark: the config's dspark_draft_topk, read as an attribute (its top level), checked
# against the draft vocab (the same config-time normalisation as the renaming above)
TOPK_CITE = (
    'vllm/config/speculative.py:1643-1659 `getattr(` `hf_config, "dspark_draft_topk", None` '
    "`if not 1 <= dspark_draft_topk <= draft_vocab_size:` (or vocab_size where draft_vocab_size "
    "is unset)"
)
