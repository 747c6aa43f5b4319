"""vLLM 0.33.0's MTP architectures whose source the wheel keeps outside
``model_executor/models`` (``vllm/models/<family>/{common,nvidia,amd}/mtp.py``): what each
reads from the target checkpoint (``profiles/mtp.py`` registers them)."""

from __future__ import annotations

from dspark_ckpt.profiles.mtp_loader import DEEPSEEK_OWN, VLLM, MtpLoader
from dspark_ckpt.profiles.mtp_vllm import SPEC, TRACKED

G5 = "vllm/models/glm5next/common/mtp.py"
G5M = "vllm/models/glm5next/common/model.py"

VLLM_GLM5_NEXT = MtpLoader(
    name="vllm-mtp-glm5-next",
    runtime="vllm",
    release=VLLM,
    architecture="Glm5NextMTPModel",
    family="GLM-5 Next",
    targets=("type:glm5_next",),
    count_in_text=True,
    layer_also=("model.language_model.layers.{i}",),
    own=DEEPSEEK_OWN,
    layer_check="MTP speculative decoding layer {j} weights missing from checkpoint.",
    from_target=("shared_head.head", "embed_tokens"),
    cites={
        "targets": f'{SPEC}:1146-1157 `"architectures": ["Glm5NextMTPModel"],`',
        "count_keys": f'{SPEC}:1154 `"n_predict": text_config.num_nextn_predict_layers,`; '
        f"{G5}:114 `self.num_mtp_layers = config.num_nextn_predict_layers`",
        "count_in_text": f"{SPEC}:1148 `text_config = hf_config.get_text_config()`",
        "count_default": f"{SPEC}:1154 `text_config.num_nextn_predict_layers` (read as an "
        "attribute: no default)",
        "first": f"{G5}:113 `self.mtp_start_layer_idx = config.num_hidden_layers`",
        "layer": f'{G5M}:1288-1293 `f"model.layers.{{layer_idx + i}}."`',
        "layer_also": f'{G5}:322-327 `name = name.replace("model.language_model.", "model.", 1)`'
        f" (the vision-language target stores its text tower there: {G5M}:1170-1172 "
        "`language_model.model.`)",
        "own": f"{G5}:52-54 `self.eh_proj = nn.Linear(config.hidden_size * 2`; "
        f"{G5}:62-66 `defer_lm_head=True,` (shared_head.norm only: no head of its own)",
        "decoder": f'{G5}:284-286 `f"model.layers.{{spec_layer}}.mtp_block."`',
        "layer_check": f"{G5}:425-433 `MTP speculative decoding layer {{layer_idx}} weights`",
        "from_target": f"{G5}:62-66 `defer_lm_head=True,`; {G5}:273 `shared_weight_names = "
        '["embed_tokens"]`',
        "missing": f"{G5}:434 `return loaded_params`; {TRACKED}",
    },
)
K3 = "vllm/models/kimi_k3/nvidia/mtp.py"
K3M = "vllm/models/kimi_k3/nvidia/model.py"
VLLM_KIMI_K3 = MtpLoader(
    name="vllm-mtp-kimi-k3",
    runtime="vllm",
    release=VLLM,
    architecture="KimiK3MTPModel",
    family="Kimi K3",
    targets=("type:kimi_k3",),
    count_in_text=True,
    layer_also=("language_model.model.layers.{i}",),
    own=(*DEEPSEEK_OWN, ("shared_head.head", "V,H")),
    layer_check="MTP speculative decoding layer {j} weights missing from checkpoint.",
    from_target=("embed_tokens",),
    cites={
        "targets": f'{SPEC}:785-793 `"architectures": ["KimiK3MTPModel"]`',
        "count_keys": f'{SPEC}:788-789 `getattr(text_config, "num_nextn_predict_layers", None)`; '
        f"{K3}:161 `self.num_mtp_layers = config.num_nextn_predict_layers`",
        "count_in_text": f'{SPEC}:788 `text_config = getattr(hf_config, "text_config", hf_config)`',
        "first": f"{K3}:160 `self.mtp_start_layer_idx = config.num_hidden_layers`",
        "layer": f'{K3M}:1552-1559 `if f"layers.{{layer_idx + i}}." in weight_name:`',
        "layer_also": f'{K3}:324-325 `if name.startswith("language_model."):`',
        "own": f"{K3}:82-87 `self.eh_proj = ReplicatedLinear(`; {K3}:60-64 "
        "`self.head = ParallelLMHead(` (its own head, V x H)",
        "decoder": f'{K3}:450-454 `f"model.layers.{{spec_layer}}.mtp_block.",`',
        "layer_check": f"{K3}:412-421 `MTP speculative decoding layer {{layer_idx}} weights`",
        "from_target": f'{K3}:441 `shared_weight_names = ["embed_tokens"]`',
        "missing": f"{K3}:424 `return loaded_params`; {TRACKED}",
    },
)
