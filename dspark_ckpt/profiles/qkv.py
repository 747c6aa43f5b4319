"""Decoder layer 0's q/k/v input width (``Profile.first_qkv_input``), cited per runtime.

EAGLE-3's first layer concatenates the embedding and the target's hidden state before its
attention, so its q/k/v (one ``QKVParallelLinear``, and a stored fused ``qkv_proj``) take
``2 * hidden_size``; the layers after it, and every DSpark / DFlash / classic EAGLE layer
(classic EAGLE concatenates in its fc), take ``hidden_size``. The weight loader asserts each
loaded shard's shape (the fused form is split by rows first), so a q/k/v of another width
fails the load (DSC113). The trainers write it so (SpecForge's ``midlayer.self_attn.q_proj``
[heads x head_dim, 2H]: fixtures/real-configs/*-eagle3.tensors.json).
"""

from __future__ import annotations

V = "vllm/model_executor/"
V_LINEAR = V + "layers/linear.py"
# QKVParallelLinear.weight_loader: a fused qkv_proj split by rows, each shard asserted
V_ASSERT = (
    f"{V_LINEAR}:1272-1276 `loaded_weight_shard = loaded_weight.narrow(` (a fused qkv_proj "
    f"split into q, k, v by rows); {V_LINEAR}:1336 `assert param_data.shape == "
    "loaded_weight.shape` (each shard's width asserted)"
)
V_EAGLE3 = V + "models/llama_eagle3.py"
V_QWEN3_EAGLE3 = V + "models/qwen3_eagle3.py"
VLLM_FIRST_QKV_EAGLE3 = (
    f"{V_EAGLE3}:80-93 `qkv_input_size = 2 * self.hidden_size if layer_idx == 0` "
    f"`self.self_attn.qkv_proj = QKVParallelLinear(`; {V_EAGLE3}:198-206 "
    f"`layer_idx=layer_idx,` (layer 0 is the first built); {V_QWEN3_EAGLE3}:64-74 "
    f"`qkv_input_size = 2 * self.hidden_size if layer_idx == 0`; {V_ASSERT}"
)

S = "python/sglang/srt/"
S_LINEAR = S + "layers/linear.py"
S_EAGLE3 = S + "models/llama_eagle3.py"
SGLANG_FIRST_QKV_EAGLE3 = (
    f"{S_EAGLE3}:62-75 `hidden_size = 2 * self.hidden_size if self.is_input_layer else "
    f"self.hidden_size` `self.self_attn.qkv_proj = QKVParallelLinear(`; {S_EAGLE3}:199-203 "
    f"`LlamaDecoderLayer(config, i, quant_config, prefix)` (layer 0 is the input layer); "
    f"{S_LINEAR}:1444-1446 `loaded_weight_shard = loaded_weight.narrow(` (a fused qkv_proj "
    f"split into q, k, v by rows); {S_LINEAR}:1547-1549 `assert param_data.shape == "
    "loaded_weight.shape` (each shard's width asserted)"
)
