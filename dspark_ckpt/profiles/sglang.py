"""SGLang's profiles: one ``Profile`` entry per release and drafter family.

SGLang 0.5.23 is the release read. A new release is a new entry in ``PROFILES`` below,
citing the ``file:line`` it was read from.
"""

from __future__ import annotations

from dspark_ckpt.profiles.families import DFLASH, DSPARK, EAGLE3
from dspark_ckpt.profiles.schema import FIELDS_18, LT, HiddenStates, Profile

SGLANG = "SGLang 0.5.23"
SGLANG_RELEASES = "==0.5.23"  # the one release read
S = "python/sglang/srt/"
SG_EAGLE3 = S + "models/llama_eagle3.py"
SG_DSPARK = S + "models/dspark.py"
SG_DFLASH = S + "models/dflash.py"
SG_DFLASH_CFG = S + "speculative/dflash_utils.py"
SG_DSPARK_CFG = S + "speculative/dspark_components/dspark_config.py"
# llama_eagle3.py:156-161 counts num_aux_hidden_states, else eagle_config's aux ids
SG_EAGLE3_AUX = ("num_aux_hidden_states", "eagle_config.eagle_aux_hidden_state_layer_ids")
SG_EAGLE3_NORM = ("eagle_config.norm_before_fc", "norm_before_fc")  # llama_eagle3.py:169-182


def _fields_18_unjudged(model_py: str) -> dict[str, str]:
    """Issue 18's vLLM / TensorRT-LLM fields, at their defaults here: not judged for SGLang."""
    return {name: f"{model_py} (not judged for {SGLANG} here)" for name in FIELDS_18}


def _sglang_block_cites(model_py: str) -> dict[str, str]:
    """SGLang's DSpark / DFlash loaders: head and embedding from the target."""
    return {
        "reduced_when": f"{model_py} (draft_vocab_size unread)",
        "reduced_against": f"{model_py} (draft_vocab_size unread)",
        "missing_d2t": f"{SG_DFLASH}:945-947 (d2t/t2d ignored)",
        "d2t_param": f"{SG_DFLASH}:945-947",
        "missing_lm_head": f"{SG_DSPARK}:510 (lm_head. skipped, the target's used)",
        "lm_head_from_target": f"{SG_DSPARK}:510",
        "requires_embed_when_expanded": f"{SG_DSPARK}:638-641 (embed_tokens. skipped)",
        "own_embed_kept": f"{SG_DSPARK}:638-641",
        "omni_vocab_check": f"{model_py} (none)",
        "markov_w2_rows": f"{SG_DSPARK}:198-199 (nn.Linear(r, V): [V, r], size asserted)",
        "draft_vocab_above_vocab": f"{model_py} (draft_vocab_size unread)",
        "vocab_is_target_width": f"{SG_DSPARK}:204-208",
        "mask_token_keys": f"{SG_DFLASH_CFG}:688-701",
        "missing_mask_token": f"{SG_DSPARK_CFG}:119-121"
        if model_py == SG_DSPARK
        else f"{S}speculative/dflash_worker_v2.py:1427-1459 (the tokenizer's mask token)",
        "top_level_keys": f"{SG_DSPARK}:386-391 (getattr(config, 'markov_rank', 0))",
        "aux_layer_keys": f"{SG_DFLASH_CFG}:657-675; {SG_DFLASH}:750-759",
        "aux_default": f"{SG_DFLASH}:750-755",
        "fc_input_hidden": f"{SG_DFLASH}:764-772",
        "norm_before_fc_keys": f"{model_py} (no input_norm)",
        "prefixed_names": f"{SG_DSPARK}:633 (removeprefix('model.')); {SG_DFLASH}:904-918",
        "strict_names": f"{SG_DFLASH}:945-947 (unknown names ignored)",
        "reads_speculators_format": f"{SG_DFLASH_CFG}:650-701",
        **_fields_18_unjudged(model_py),
    }


# --- how SGLang 0.5.23 feeds the target's hidden states ----------------------------
SGLANG_CAPTURE = (
    "python/sglang/srt/models/qwen3.py:524-532,778-805, llama.py:929-953 (captures the "
    "state entering layer i < N at id + 1)"
)
EAGLE3_HIDDEN = HiddenStates(
    "target_hidden_size",
    (("eagle_config.eagle_aux_hidden_state_layer_ids", 1),),
    "0..N-1",
    None,
    "unless_target_hidden_size",
    (
        "python/sglang/srt/models/llama_eagle3.py:151-166 (fc input = "
        "target_hidden_size (default hidden_size) x n_aux)",
        "python/sglang/srt/model_executor/model_runner_components/"
        "spec_aux_hidden_state.py:186-196 (only eagle_config's ids are read)",
        SGLANG_CAPTURE,
        "python/sglang/srt/models/llama.py:910-916 (set_embed: the target's embedding "
        "unless target_hidden_size != hidden_size)",
    ),
)
# DFlash, and DSpark (dspark.py builds on dflash)
DFLASH_HIDDEN = HiddenStates(
    "hidden_size",
    (("dflash_config.target_layer_ids", 1), ("target_layer_ids", 1)),
    "0..N-1",
    "0..N-1",
    "always",
    (
        "python/sglang/srt/models/dflash.py:750-775 (fc input = hidden_size x the "
        "target layer ids), 830-841 (a feature-width mismatch raises)",
        "python/sglang/srt/speculative/dflash_utils.py:556-585 (ids outside "
        "[0, num_hidden_layers) raise at start-up)",
        SGLANG_CAPTURE,
    ),
)

# SGLang's DSpark and DFlash loaders (dflash.py, dflash_utils.py): the head and the
# embedding always the target's
SGLANG_BLOCK_RULES = dict(
    hidden_states=DFLASH_HIDDEN,
    missing_d2t="unused",
    missing_lm_head="target-always",
    lm_head_from_target="always",
    own_embed_kept=False,
    draft_vocab_above_vocab=True,
    d2t_param="ignored",
    mask_token_keys=("dflash_config.mask_token_id", "mask_token_id"),
    aux_layer_keys=("dflash_config.target_layer_ids", "target_layer_ids"),
    aux_default="num_hidden_layers",
    fc_input_hidden="hidden_size",
    prefixed_names="stripped",
)

PROFILES = (
    Profile(
        name="sglang-eagle3",
        runtime="SGLang",
        family=EAGLE3,
        release=SGLANG,
        sources=(SG_EAGLE3, S + "speculative/eagle_worker_v2.py"),
        cites={
            "reduced_when": f"{SG_EAGLE3}:349-353 (any shipped d2t is used)",
            "reduced_against": f"{SG_EAGLE3}:349-353",
            "missing_d2t": f"{SG_EAGLE3}:323 (hot_token_id stays None: ids used as is)",
            "d2t_param": f"{SG_EAGLE3}:349-353 (hot_token_id = d2t + arange)",
            "missing_lm_head": f"{SG_EAGLE3}:302-311,370-377 (a head nothing loads)",
            "lm_head_from_target": f"{SG_EAGLE3}:305-307 (load_lm_head_from_target)",
            "requires_embed_when_expanded": f"{SG_EAGLE3} (no check)",
            "own_embed_kept": f"{S}speculative/eagle_worker_v2.py:363 (set_embed: the target's)",
            "omni_vocab_check": f"{SG_EAGLE3} (none)",
            "markov_w2_rows": f"{SG_EAGLE3} (no Markov head)",
            "draft_vocab_above_vocab": f"{SG_EAGLE3}:316-320 (own logits processor)",
            "vocab_is_target_width": f"{SG_EAGLE3}:316-320",
            "mask_token_keys": f"{SG_EAGLE3} (none)",
            "missing_mask_token": f"{SG_EAGLE3} (none)",
            "top_level_keys": f"{SG_EAGLE3} (none)",
            "aux_layer_keys": f"{SG_EAGLE3}:156-161",
            "aux_default": f"{SG_EAGLE3}:161",
            "fc_input_hidden": f"{SG_EAGLE3}:151-152,163-164",
            "norm_before_fc_keys": f"{SG_EAGLE3}:169-182",
            "prefixed_names": f"{SG_EAGLE3}:372 (name, else 'model.' + name)",
            "strict_names": f"{SG_EAGLE3}:370-377 (unknown names skipped)",
            "reads_speculators_format": f"{SG_EAGLE3} (LlamaForCausalLMEagle3 config only; "
            "no speculators translation in " + S + "configs/)",
            **_fields_18_unjudged(SG_EAGLE3),
        },
        hidden_states=EAGLE3_HIDDEN,
        releases=SGLANG_RELEASES,
        reduced_when=LT,
        d2t_param="hot_token_id",
        missing_lm_head="uninitialised",
        lm_head_from_target="no_draft_vocab_size",
        own_embed_kept=False,
        draft_vocab_above_vocab=True,
        aux_layer_keys=SG_EAGLE3_AUX,
        aux_default="3",
        norm_before_fc_keys=SG_EAGLE3_NORM,
        prefixed_names="stripped",
        reads_speculators_format=False,
    ),
    Profile(
        name="sglang-dspark",
        runtime="SGLang",
        family=DSPARK,
        release=SGLANG,
        sources=(SG_DSPARK, SG_DFLASH, SG_DFLASH_CFG, SG_DSPARK_CFG),
        cites=_sglang_block_cites(SG_DSPARK),
        releases=SGLANG_RELEASES,
        markov_w2_rows="vocab_size",
        missing_mask_token="error",
        top_level_keys=("markov_rank",),
        **SGLANG_BLOCK_RULES,
    ),
    Profile(
        name="sglang-dflash",
        runtime="SGLang",
        family=DFLASH,
        release=SGLANG,
        sources=(SG_DFLASH, SG_DFLASH_CFG, S + "speculative/dflash_worker_v2.py"),
        cites=_sglang_block_cites(SG_DFLASH),
        releases=SGLANG_RELEASES,
        missing_mask_token="tokenizer",
        **SGLANG_BLOCK_RULES,
    ),
)
