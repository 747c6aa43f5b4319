"""EAGLE-3 over DeepSeek MLA decoder layers in vLLM 0.33.0 (``deepseek_eagle3.py``): the
architectures ``vllm-eagle3`` builds with that layer (``Profile.mla_architectures``) and
where its loader says how.

Its ``Eagle3DeepseekV2ForCausalLM`` (``Eagle3DeepseekV3ForCausalLM`` is the same class) is
llama_eagle3.py's model with DeepSeek MLA attention and a dense MLP in each layer: q_a_proj
and kv_a_proj_with_mqa stacked into fused_qkv_a_proj (q_lora_rank set), fc always built and
without a bias, no input_norm, and a mapper that drops nothing but an absent
draft_id_to_target_id / embed_tokens (a stored input_norm, mask_hidden or fc name with no
module is refused). Its head, d2t and embedding are read as llama_eagle3.py reads them.
"""

from __future__ import annotations

DS_EAGLE3 = "vllm/model_executor/models/deepseek_eagle3.py"
VLLM_MLA_ARCHITECTURES = ("Eagle3DeepseekV2ForCausalLM", "Eagle3DeepseekV3ForCausalLM")
VLLM_MLA_CITE = (
    f"{DS_EAGLE3}:68-76 `self.self_attn = DeepseekV2MLAAttention(`; "
    f'{DS_EAGLE3}:262-266 `".q_a_proj": (".fused_qkv_a_proj", 0),` (q_a_proj and '
    f"kv_a_proj_with_mqa stacked); {DS_EAGLE3}:201-204 `self.fc = ReplicatedLinear(` "
    f"`bias=False,` (always built); {DS_EAGLE3}:388-392 "
    '`orig_to_new_substr["draft_id_to_target_id"] = None` (nothing else dropped); '
    f"{DS_EAGLE3}:402 `Eagle3DeepseekV3ForCausalLM = Eagle3DeepseekV2ForCausalLM`"
)
# vLLM builds every layer of an MLA drafter, and q_proj where q_lora_rank is null
VLLM_ONE_LAYER_CITE = (
    f"{DS_EAGLE3}:176-185 `self.layers = nn.ModuleList(` (every layer); {DS_EAGLE3}:76 "
    '`q_lora_rank=config.q_lora_rank if hasattr(config, "q_lora_rank") else None`'
)


def vllm_mla_cites(model_py: str) -> dict[str, str]:
    """The MLA fields' cites of every vLLM profile whose model file builds no MLA layer."""
    return {
        "mla_architectures": f"{model_py} (no MLA decoder layer)",
        "mla_one_layer": VLLM_ONE_LAYER_CITE,
    }
