"""dspark_ckpt/loader/parts.py: the decoder layer's shapes MLA keeps (its attention is not
Llama's), each side."""

from __future__ import annotations

from dspark_ckpt.loader.parts import layer_shapes, not_attention


def test_mla_keeps_the_norm_and_mlp_shapes_and_drops_the_attention_s():
    shapes, _ = layer_shapes(
        {"hidden_size": 8, "num_attention_heads": 2, "head_dim": 4, "intermediate_size": 16},
        doubled=True,
    )
    kept = not_attention(shapes)
    assert kept["input_layernorm"] == (8,) and kept["mlp.down_proj"] == (8, 16)
    assert "self_attn.q_proj" in shapes and not any(k.startswith("self_attn.") for k in kept)
