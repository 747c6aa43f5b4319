"""DeepSeek-V2's decoder layer, for the profiles whose ``decoder_layer`` is "deepseek_v2_moe"
(vLLM 0.33.0 deepseek_v2.py ``DeepseekV2DecoderLayer``, which Mistral Large 3's EAGLE builds):
MLA attention, Llama's two norms, a dense MLP below ``first_k_dense_replace`` and a MoE MLP
from there on: the router ``gate`` (with its ``e_score_correction_bias`` under ``topk_method``
"noaux_tc"), the shared experts (``n_shared_experts``) and ``n_routed_experts`` experts.

The experts of a MoE layer are a block of their own, ``layers.N.mlp.experts`` (a count and one
template, never expanded), one per MoE layer the checkpoint stores; a layer with no tensor at
all is the layers block's (its MoE template: ``mlp.experts`` counts as one module there).

"deepseek_v2_after_target" (vLLM's classic EAGLE over DeepSeek-V3, deepseek_eagle.py): the same
layer, whose number, and so whether it is MoE, follows the target's layers; its parameters are
still the ModuleList's ``layers.i`` (``numbered_after``).
"""

from __future__ import annotations

from dspark_ckpt.loader.parts import ANY, Block, Module, NameMaps, modules_of, shaped
from dspark_ckpt.loader.view import count

# decoder_layer: the layers numbered after the target's (vLLM deepseek_eagle.py)
AFTER_TARGET = "deepseek_v2_after_target"
MOE_UNKNOWN = "\0moe unknown"  # a key no config has: which layers are MoE is not known

MLA_KV = ("self_attn.kv_a_layernorm", "self_attn.kv_b_proj", "self_attn.o_proj")
# q_lora_rank set: q_a_proj and kv_a_proj_with_mqa (fused at load), q_a_layernorm, q_b_proj;
# else q_proj and kv_a_proj_with_mqa (deepseek_v2.py:1051-1098)
MLA_Q_LORA = ("self_attn.q_a_proj", "self_attn.q_a_layernorm", "self_attn.q_b_proj")
MLA_Q = ("self_attn.q_proj",)
NORMS = ("input_layernorm", "post_attention_layernorm")
DENSE = ("mlp.gate_proj", "mlp.up_proj", "mlp.down_proj")
SHARED = tuple(f"mlp.shared_experts.{m}_proj" for m in ("gate", "up", "down"))
EXPERT = ("gate_proj", "up_proj", "down_proj")


def deepseek_layers(
    cfg: dict, maps: NameMaps, shapes: dict, block: Block, other_attention: bool = False
) -> tuple[Block, bool]:
    """``block`` (the decoder layers) with DeepSeek-V2's templates: the dense one, and the MoE
    one from ``first_k_dense_replace`` on; and whether every module is known (the keys that
    decide them are declared counts, the MoE layers every one from there: moe_layer_freq 1).
    ``other_attention``: the attention vLLM builds from a DeepSeek config (the draft's own,
    deepseek_eagle.py) is told apart: without MLA head sizes DeepseekAttention (a fused
    qkv_proj: deepseek_v2.py:1279-1281), with index_topk DeepSeek-V3.2's indexer (1138);
    neither is modelled: any name under it is taken, and the layer is not known."""
    q = MLA_Q if cfg.get("q_lora_rank") is None else MLA_Q_LORA
    attn: tuple[str, ...] = (*q, "self_attn.kv_a_proj_with_mqa", *MLA_KV)
    mha = not any(cfg.get(k) for k in ("qk_nope_head_dim", "qk_rope_head_dim"))
    if other_attention and mha:
        attn_known = False
        attn = ("self_attn",)
    elif other_attention and "index_topk" in cfg:
        attn_known = False
        attn = (*attn, "self_attn.indexer")
    else:
        attn_known = True
    dense = _modules((*attn, *NORMS, *DENSE), maps, shapes)
    dense_below = count(cfg.get("first_k_dense_replace"))
    experts = count(cfg.get("n_routed_experts"))
    every = cfg.get("moe_layer_freq", 1) == 1  # else: MoE by the target's layer index too
    if not every:  # which layers are MoE depends on the target's depth: any MLP is taken
        return _with(block, _modules((*attn, *NORMS, "mlp"), maps, shapes), (), None), False
    if experts is None:  # no experts (DeepseekV2DecoderLayer: a dense MLP in every layer)
        return _with(block, dense, (), None), attn_known and cfg.get("n_routed_experts") is None
    if cfg.get(MOE_UNKNOWN):  # any MLP is taken (one is needed); the rest is known
        return _with(block, _modules((*attn, *NORMS, "mlp"), maps, shapes), (), None), attn_known
    moe = [*attn, *NORMS, "mlp.gate"]
    if cfg.get("n_shared_experts") is not None:
        moe += SHARED
    # the experts: any name under it is the layer's, what is missing their block's to say
    alt = (*_modules(tuple(moe), maps, shapes), Module("mlp.experts", ("mlp.experts",), ANY))
    if cfg.get("topk_method") == "noaux_tc":
        alt += (Module("mlp.gate", ("mlp.gate",), ("e_score_correction_bias",), exact=True),)
    known = dense_below is not None
    return _with(block, dense, alt, dense_below if known else 0), known and attn_known


def expert_blocks(stored: list[int], block: Block, cfg: dict) -> list[Block]:
    """One block of ``n_routed_experts`` experts per MoE layer index the checkpoint stores."""
    n = count(cfg.get("n_routed_experts"))
    if block.alt_from is None or n is None:
        return []
    end = block.count if block.count is not None else float("inf")
    template = tuple(Module(m, (m,)) for m in EXPERT)
    return [
        Block(f"{block.prefix}.{i}.mlp.experts", n, template)
        for i in stored
        if block.alt_from <= i < end
    ]


def _modules(paths: tuple[str, ...], maps: NameMaps, shapes: dict) -> tuple[Module, ...]:
    return shaped(modules_of([(p,) for p in paths], maps), shapes)


def _with(block: Block, template, alt, alt_from) -> Block:
    return Block(
        block.prefix, block.count, template, block.aliases, {}, block.first_absent, alt, alt_from
    )


def numbered_after(cfg: dict, depth: int | None) -> dict:
    """The config as layers numbered from 0 read it, where draft layer i is numbered ``depth
    + i`` (vLLM deepseek_eagle.py:53-60 passes ``layers.{i + start_layer_id}`` as the layer's
    prefix, deepseek_v2.py:1272 reads its index from it and 1293-1297 compares that with
    ``first_k_dense_replace``; its parameters keep the ModuleList's ``layers.i``):
    ``first_k_dense_replace`` less ``depth``; ``depth`` None (the target's depth unknown):
    which layers are MoE is not known (``MOE_UNKNOWN``)."""
    if depth is None:
        return {**cfg, MOE_UNKNOWN: True}
    dense_below = count(cfg.get("first_k_dense_replace"))
    if dense_below is None:
        return cfg
    return {**cfg, "first_k_dense_replace": max(dense_below - depth, 0)}
