"""TensorRT-LLM's profiles: one ``Profile`` entry per release and drafter family.

No release wheel was read: the entries mirror stored commits of TensorRT-LLM main,
found through source search. A new release is a new entry in ``PROFILES`` below,
citing the ``file:line`` (or function) it was read from.
"""

from __future__ import annotations

from dspark_ckpt.profiles.families import DSPARK, EAGLE3
from dspark_ckpt.profiles.schema import FIELDS_18, LT, HiddenStates, Profile

T = "tensorrt_llm/_torch/models/"
TRT_DSPARK = T + "modeling_dspark_qwen3.py@40289c86"
TRT_SPEC = T + "modeling_speculative.py@00679c66"
TRT_HEADS = T + "dspark/heads.py@06ec703b"


def _trt_18_cites(source: str, **read: str) -> dict[str, str]:
    """The citations of issue 18's fields: ``read`` for those this file decides, the rest
    not judged here (their defaults)."""
    return {name: read.get(name, f"{source} (not judged here)") for name in FIELDS_18}


# how TensorRT-LLM's DSpark drafter takes the target's hidden states
DSPARK_HIDDEN = HiddenStates(
    "hidden_size",
    (("target_layer_ids", 0),),
    None,
    None,
    "always",
    (
        "tensorrt_llm/_torch/models/modeling_dspark_qwen3.py (Qwen3DSparkDraftModel: fc "
        "input = hidden_size x len(target_layer_ids); embed_tokens / lm_head shared with "
        "the target)",
    ),
)

PROFILES = (
    Profile(
        name="trtllm-dspark",
        runtime="TensorRT-LLM",
        family=DSPARK,
        release="TensorRT-LLM main (modeling_dspark_qwen3.py @40289c86, autumn 2026)",
        sources=(TRT_DSPARK, TRT_HEADS),
        cites={
            "reduced_when": f"{TRT_DSPARK} (draft_vocab_size never read)",
            "reduced_against": f"{TRT_DSPARK} (draft_vocab_size never read)",
            "missing_d2t": f"{TRT_DSPARK} (no d2t path: the head is the target's)",
            "d2t_param": f"{TRT_DSPARK} load_weights: load_state_dict(strict=True)",
            "missing_lm_head": f"{TRT_DSPARK} load_weights_from_target_model",
            "lm_head_from_target": f"{TRT_DSPARK} load_weights (skips lm_head.*)",
            "requires_embed_when_expanded": f"{TRT_DSPARK} load_weights (skips embed_tokens.*)",
            "own_embed_kept": f"{TRT_DSPARK} load_weights_from_target_model",
            "omni_vocab_check": f"{TRT_DSPARK} (none)",
            "markov_w2_rows": f"{TRT_HEADS} build_markov_head (both [vocab_size, r])",
            "draft_vocab_above_vocab": f"{TRT_DSPARK} (draft_vocab_size never read)",
            "vocab_is_target_width": f"{TRT_DSPARK} forward_batched (target lm_head "
            "logits + Markov bias [V])",
            "mask_token_keys": f"{TRT_DSPARK} __init__ (spec_config.mask_token_id, else "
            "config.mask_token_id)",
            "missing_mask_token": f"{TRT_DSPARK} __init__ (else config.vocab_size)",
            "top_level_keys": f"{TRT_DSPARK} __init__ (getattr(config, 'markov_rank', "
            "0), config.target_layer_ids asserted)",
            "aux_layer_keys": f"{TRT_DSPARK} __init__ (num_capture_layers = len(target_layer_ids))",
            "aux_default": f"{TRT_DSPARK} __init__ (assert num_capture_layers > 0)",
            "fc_input_hidden": f"{TRT_DSPARK} __init__ (fc = Linear(n * hidden_size))",
            "norm_before_fc_keys": f"{TRT_DSPARK} (no input_norm)",
            "prefixed_names": f"{TRT_DSPARK} load_weights (names as stored, strict)",
            "strict_names": f"{TRT_DSPARK} load_weights: load_state_dict(strict=True)",
            "reads_speculators_format": f"{TRT_DSPARK} (pretrained_config attributes)",
            **_trt_18_cites(
                TRT_DSPARK,
                missing_tensors=f"{TRT_DSPARK} Qwen3DSparkDraftModel.load_weights "
                "`self.load_state_dict(sd, strict=True, assign=True)` (a name the model has "
                "and the checkpoint lacks: 'Missing key(s) in state_dict')",
                mask_token_null_read=f"{TRT_DSPARK} Qwen3DSparkDraftModel.__init__ "
                '`getattr(config, "mask_token_id", config.vocab_size)` (a present null is '
                "int(None))",
                markov_head_type=f"{TRT_DSPARK} Qwen3DSparkDraftModel.__init__ "
                "`build_markov_head(`; {TRT_HEADS} build_markov_head `Unsupported markov_head_type`".replace(
                    "{TRT_HEADS}", TRT_HEADS
                ),
                confidence_head_shape=f"{TRT_DSPARK} _ConfidenceHead "
                "`nn.Linear(int(input_dim), 1, bias=True, dtype=torch.float32)`; load_weights "
                "`strict=True` (a size mismatch fails the load)",
            ),
        },
        hidden_states=DSPARK_HIDDEN,
        releases="main",
        reduced_when=LT,
        d2t_param="rejected",
        markov_w2_rows="vocab_size",
        vocab_is_target_width=True,
        mask_token_keys=("mask_token_id",),
        missing_mask_token="vocab_size",
        top_level_keys=("markov_rank", "target_layer_ids"),
        aux_layer_keys=("target_layer_ids",),
        aux_default="required",
        fc_input_hidden="hidden_size",
        strict_names=True,
        # the head and the embedding always the target's
        missing_d2t="unused",
        missing_lm_head="target-always",
        lm_head_from_target="always",
        own_embed_kept=False,
        draft_vocab_above_vocab=True,
        missing_tensors="strict",
        mask_token_null_read=("mask_token_id",),
        markov_head_type="built",
        confidence_head_shape=True,
    ),
    Profile(
        name="trtllm-eagle3",
        runtime="TensorRT-LLM",
        family=EAGLE3,
        release="TensorRT-LLM main (modeling_speculative.py @00679c66, autumn 2026)",
        sources=(TRT_SPEC,),
        cites={
            "reduced_when": f"{TRT_SPEC} Eagle3 draft model __init__ (d2t when "
            "vocab_size != draft_vocab_size)",
            "reduced_against": f"{TRT_SPEC} (compares with the drafter's vocab_size)",
            "missing_d2t": f"{TRT_SPEC} (torch.empty(..., dtype=torch.int32))",
            "d2t_param": f"{TRT_SPEC} (a d2t parameter when V != Vd; a shipped d2t "
            "otherwise: not read here)",
            "missing_lm_head": f"{TRT_SPEC} (not read here)",
            "lm_head_from_target": f"{TRT_SPEC} (not read here)",
            "requires_embed_when_expanded": f"{TRT_SPEC} (embed shared with the target)",
            "own_embed_kept": f"{TRT_SPEC} (embed_tokens only when target_hidden_size differs)",
            "omni_vocab_check": f"{TRT_SPEC} (none)",
            "markov_w2_rows": f"{TRT_SPEC} (no Markov head)",
            "draft_vocab_above_vocab": f"{TRT_SPEC} (not read here)",
            "vocab_is_target_width": f"{TRT_SPEC} (not read here)",
            "mask_token_keys": f"{TRT_SPEC} (none)",
            "missing_mask_token": f"{TRT_SPEC} (none)",
            "top_level_keys": f"{TRT_SPEC} (none)",
            "aux_layer_keys": f"{TRT_SPEC} (not read here)",
            "aux_default": f"{TRT_SPEC} (not read here)",
            "fc_input_hidden": f"{TRT_SPEC} (not read here)",
            "norm_before_fc_keys": f"{TRT_SPEC} (not read here)",
            "prefixed_names": f"{TRT_SPEC} (weight mapper; not read here)",
            "strict_names": f"{TRT_SPEC} (not read here)",
            "reads_speculators_format": f"{TRT_SPEC} _ensure_draft_vocab_size (defaults "
            "to vocab_size with a warning)",
            **_trt_18_cites(
                TRT_SPEC,
                target_hidden_size_null=f"{TRT_SPEC} Eagle3DraftModel.__init__ "
                "`self.hidden_size_in = config.target_hidden_size` (hasattr: a present null "
                "is None * num_capture_layers, a TypeError)",
            ),
        },
        # hidden-state feeding not read at this commit: no hidden-state checks
        releases="main",
        reduced_against="vocab_size",
        missing_d2t="uninitialised",
        d2t_param="ignored",
        missing_lm_head="unchecked",
        own_embed_kept=False,
        draft_vocab_above_vocab=True,
        prefixed_names="stripped",
        target_hidden_size_null="type_error",
    ),
)
