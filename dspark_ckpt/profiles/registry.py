"""Runtime profiles, as data: how one runtime release loads one drafter family.

Each profile names the runtime **release** it mirrors and each rule field cites the
``file:line`` (at that release) it was read from (``cites``). The rule engine in
``rules.py`` evaluates every profile the same way; a release that changes a rule is
a new ``Profile`` entry here, never a branch in the engine. ``dspark-ckpt profiles``
prints them; the README has the table.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

from dspark_ckpt.errors import UsageError
from dspark_ckpt.facts.config import DrafterConfig

LT, NE = "<", "!="
DSPARK, DFLASH, EAGLE3 = "dspark", "dflash", "eagle3"
# families seen in drafter configs that no profile covers (never judged by another's rules)
MTP, EAGLE1, MEDUSA = "mtp", "eagle", "medusa"

# the fields of Profile that are not rules (everything else must be cited)
ABOUT = ("name", "runtime", "family", "release", "sources", "cites")


@dataclass(frozen=True)
class Profile:
    name: str
    runtime: str
    family: str  # the drafter family this loader reads: dspark, dflash, eagle3
    release: str  # the runtime release the rules were read from
    sources: tuple[str, ...]  # the runtime source files (and PRs) the rules mirror
    cites: dict[str, str] = field(compare=False)  # rule field -> file:line at that release
    # the draft vocab counts as reduced (a draft_id_to_target_id / d2t parameter is
    # created; the DSpark loader also requires lm_head and d2t) when
    # Vd <reduced_when> <reduced_against>: "target" (Vt) or "vocab_size" (V)
    reduced_when: str = NE
    reduced_against: str = "target"
    # a reduced drafter without d2t: "error" (refused at load), "zeros" (silently all
    # zero: draft id i becomes target id i), "uninitialised" (an int32 parameter that
    # nothing loads), "unused" (the runtime has no d2t path)
    missing_d2t: str = "zeros"
    # where a checkpoint's d2t goes: "reduced" (a parameter exists only for a reduced
    # vocab; otherwise the weight loader raises), "always" (the parameter always
    # exists), "hot_token_id" (turned into hot_token_id = d2t + arange, never a
    # parameter), "ignored" (skipped), "rejected" (strict state-dict load)
    d2t_param: str = "reduced"
    # a reduced drafter without lm_head: "refused" (load error), "target" (the
    # target's head is shared silently), "uninitialised" (an explicit draft_vocab_size
    # creates a head nothing loads), "target-always" (the head always comes from the
    # target), "unchecked" (not read here)
    missing_lm_head: str = "target"
    # when a shipped lm_head is replaced by the target's: "never",
    # "no_draft_vocab_size" (config without draft_vocab_size), "always"
    lm_head_from_target: str = "never"
    # input embeddings larger than the target's must ship embed_tokens (else a load error)
    requires_embed_when_expanded: bool = False
    # a shipped embed_tokens whose rows differ from the target's is kept (else the
    # target's replaces it): with V < Vt, target ids >= V index past it
    own_embed_kept: bool = True
    # Qwen3-Omni targets: config-time check 0 < Vd <= Vt
    omni_vocab_check: bool = False
    # rows of markov_head.markov_w2.weight: "draft_vocab_size" or "vocab_size"
    markov_w2_rows: str = "draft_vocab_size"
    # False where Vd > V breaks the drafter itself (an index error at the first draft step)
    draft_vocab_above_vocab: bool = False
    # V must equal the target's logit width (the head and embedding are the target's)
    vocab_is_target_width: bool = False
    # where the mask (noise) token id is read, first found wins; () for no mask token
    mask_token_keys: tuple[str, ...] = ()
    # no mask token id: "error" (refused), "tokenizer" (resolved from the tokenizer),
    # "vocab_size" (defaults to V), "" (the family has none)
    missing_mask_token: str = ""
    # config keys read only at the top level of the drafter config (a nested copy is unread)
    top_level_keys: tuple[str, ...] = ()
    # the count n_aux of target hidden states fc takes: the first of these keys (a
    # list, or an int for num_aux_hidden_states), else aux_default ("3",
    # "num_hidden_layers", "required"); () for no fc check
    aux_layer_keys: tuple[str, ...] = ()
    aux_default: str = ""
    # fc takes n_aux * this width: "target_hidden_size" (default hidden_size) or "hidden_size"
    fc_input_hidden: str = "target_hidden_size"
    # norm_before_fc (an input_norm [n_aux * Ht]) is read from these keys; () for none
    norm_before_fc_keys: tuple[str, ...] = ()
    # tensor names under a wrapper prefix (model.): "rejected" (load error) or "stripped"
    prefixed_names: str = "rejected"
    # the loader is load_state_dict(strict=True): every name the model lacks fails
    strict_names: bool = False
    # reads a speculators-format config (speculators_model_type, transformer_layer_config)
    reads_speculators_format: bool = True

    def reduced(self, vd: int, vt: int, v: int | None = None) -> bool:
        other = v if self.reduced_against == "vocab_size" and v is not None else vt
        return vd < other if self.reduced_when == LT else vd != other

    @property
    def rules(self) -> dict:
        """The rule fields and their values (everything but the profile's identity)."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name not in ABOUT}


RULE_FIELDS = tuple(f.name for f in fields(Profile) if f.name not in ABOUT)

# --- vLLM 0.33.0 (the wheel, git 4ba787ec9) ------------------------------------------
VLLM = "vLLM 0.33.0"
M = "vllm/model_executor/models/"
DSPARK_PY = M + "qwen3_dspark.py"
DFLASH_PY = M + "qwen3_dflash.py"
EAGLE3_PY = M + "llama_eagle3.py"
SPEC_UTILS = "vllm/v1/worker/gpu/spec_decode/utils.py"
EAGLE_UTILS = "vllm/v1/worker/gpu/spec_decode/eagle/utils.py"
DSPARK_UTILS = "vllm/v1/worker/gpu/spec_decode/dspark/utils.py"
AUX_UTILS = "vllm/v1/worker/gpu/spec_decode/eagle/eagle3_utils.py"
SPEC_CONFIG = "vllm/config/speculative.py"
SPECULATORS = "vllm/transformers_utils/configs/speculators/algos.py"
LOGITS = "vllm/model_executor/layers/logits_processor.py"
LOADER = "vllm/model_executor/model_loader/weight_utils.py"
NO_PARAM = M + "utils.py:443 ('There is no module or parameter named ...')"
VLLM_MASK = (
    "dflash_config.mask_token_id",
    "mask_token_id",
    "dspark_noise_token_id",
    "pard_token",
    "ptd_token_id",
)
# the order vLLM's runner reads aux layer ids in (eagle3_utils.py:113-150); a speculators
# config's aux_hidden_state_layer_ids is copied to eagle_aux_hidden_state_layer_ids on load
# (transformers_utils/configs/speculators/algos.py:114-115 DFlash, 192-193 DSpark)
VLLM_DFLASH_AUX = (
    "eagle_aux_hidden_state_layer_ids",
    "aux_hidden_state_layer_ids",
    "dflash_config.target_layer_ids",
    "dspark_target_layer_ids",
    "target_layer_ids",
    "dflash_config.layer_ids",
    "eagle_config.layer_ids",
)
EAGLE3_AUX = ("num_aux_hidden_states", "eagle_config.eagle_aux_hidden_state_layer_ids")
EAGLE3_NORM = ("eagle_config.norm_before_fc", "norm_before_fc")


def _vllm_dspark_cites(param_line: str, rules_line: str) -> dict[str, str]:
    return {
        "reduced_when": f"{DSPARK_PY}:{param_line}",
        "reduced_against": f"{DSPARK_PY}:258 (target_vocab_size = get_vocab_size())",
        "missing_d2t": f"{DSPARK_PY}:{rules_line}",
        "d2t_param": f"{DSPARK_PY}:{param_line},322-323; {NO_PARAM}",
        "missing_lm_head": f"{DSPARK_PY}:{rules_line}; {DSPARK_UTILS}:141-149 (shared only if Vd == Vt)",
        "lm_head_from_target": f"{DSPARK_UTILS}:141-149",
        "requires_embed_when_expanded": f"{DSPARK_PY}:343-347",
        "own_embed_kept": f"{DSPARK_UTILS}:133-134; {EAGLE_UTILS}:18-34 (a shipped copy of "
        "other shape is kept)",
        "omni_vocab_check": f"{SPEC_CONFIG}:343-355",
        "markov_w2_rows": f"{DSPARK_PY}:71-79,206-214",
        "draft_vocab_above_vocab": f"{DSPARK_PY}:83-85 (markov_w1 [V] embeds the sampled "
        "draft id); v1/worker/gpu/spec_decode/dspark/speculator.py:189",
        "vocab_is_target_width": f"{DSPARK_PY}:250-257 (own head, logits Vd wide)",
        "mask_token_keys": f"{SPEC_UTILS}:92-113",
        "missing_mask_token": f"{SPEC_UTILS}:110-113",
        "top_level_keys": f"{DSPARK_PY}:212,224 (config.markov_rank)",
        "aux_layer_keys": f"{DFLASH_PY}:84-93; {AUX_UTILS}:113-150",
        "aux_default": f"{DFLASH_PY}:89 (else num_hidden_layers)",
        "fc_input_hidden": f"{DFLASH_PY}:90-92",
        "norm_before_fc_keys": f"{DSPARK_PY} (no input_norm)",
        "prefixed_names": f"{DSPARK_PY}:322-326 ('model.' + name); {NO_PARAM}",
        "strict_names": f"{DSPARK_PY}:359-371 (unknown names: {NO_PARAM})",
        "reads_speculators_format": f"{SPECULATORS}:152-209",
    }


def _vllm_eagle_cites(model_py: str, param: str, logits: str, load: str) -> dict[str, str]:
    """vLLM's EAGLE-3 and DFlash loaders (the same shape of code)."""
    share = f"{EAGLE_UTILS}:104-116 (no lm_head -> the target's); {LOGITS}:198 (first Vd rows)"
    return {
        "reduced_when": f"{model_py}:{param}",
        "reduced_against": f"{model_py}:{param} (get_vocab_size())",
        "missing_d2t": f"{model_py}:{load} (parameter left at zeros)",
        "d2t_param": f"{model_py}:{param}; {NO_PARAM}",
        "missing_lm_head": share,
        "lm_head_from_target": share,
        "requires_embed_when_expanded": f"{EAGLE_UTILS}:45-77 (no check)",
        "own_embed_kept": f"{EAGLE_UTILS}:18-34,74-77",
        "omni_vocab_check": f"{SPEC_CONFIG}:167 (Qwen3-Omni DSpark only)",
        "markov_w2_rows": f"{model_py} (no Markov head)",
        "draft_vocab_above_vocab": f"{model_py}:{logits} (scatter into a V-wide row)",
        "vocab_is_target_width": f"{model_py}:{logits}",
        "mask_token_keys": f"{SPEC_UTILS}:92-113",
        "missing_mask_token": f"{SPEC_UTILS}:110-113",
        "top_level_keys": f"{model_py} (none)",
        "aux_layer_keys": f"{EAGLE3_PY}:209-221" if model_py == EAGLE3_PY else f"{DFLASH_PY}:84-93",
        "aux_default": f"{EAGLE3_PY}:216" if model_py == EAGLE3_PY else f"{DFLASH_PY}:89",
        "fc_input_hidden": f"{EAGLE3_PY}:218-221"
        if model_py == EAGLE3_PY
        else f"{DFLASH_PY}:90-92",
        "norm_before_fc_keys": f"{EAGLE3_PY}:184-188,223-227"
        if model_py == EAGLE3_PY
        else f"{DFLASH_PY} (no input_norm)",
        "prefixed_names": f"{model_py}:{load} ('model.' + name); {NO_PARAM}",
        "strict_names": f"{model_py}:{load} (unknown names: {NO_PARAM})",
        "reads_speculators_format": f"{SPECULATORS}:15-126",
    }


# --- SGLang 0.5.23 -------------------------------------------------------------------
SGLANG = "SGLang 0.5.23"
S = "python/sglang/srt/"
SG_EAGLE3 = S + "models/llama_eagle3.py"
SG_DSPARK = S + "models/dspark.py"
SG_DFLASH = S + "models/dflash.py"
SG_DFLASH_CFG = S + "speculative/dflash_utils.py"
SG_DSPARK_CFG = S + "speculative/dspark_components/dspark_config.py"


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
    }


# --- TensorRT-LLM main (no release wheel read: stored commits, via source search) -----
T = "tensorrt_llm/_torch/models/"
TRT_DSPARK = T + "modeling_dspark_qwen3.py@40289c86"
TRT_SPEC = T + "modeling_speculative.py@00679c66"
TRT_HEADS = T + "dspark/heads.py@06ec703b"

# rule values shared by several profiles (each profile still cites them itself)
# vLLM's Qwen3 DSpark loader, both generations (they differ in reduced_when)
VLLM_DSPARK_RULES = dict(
    missing_d2t="error",
    missing_lm_head="refused",
    requires_embed_when_expanded=True,
    omni_vocab_check=True,
    mask_token_keys=VLLM_MASK,
    missing_mask_token="error",
    top_level_keys=("markov_rank",),
    aux_layer_keys=VLLM_DFLASH_AUX,
    aux_default="num_hidden_layers",
)
# vLLM's EAGLE-3 model, both generations (they differ in d2t_param)
VLLM_EAGLE3_RULES = dict(
    aux_layer_keys=EAGLE3_AUX, aux_default="3", norm_before_fc_keys=EAGLE3_NORM
)
# runtimes that always take the head and the embedding from the target
TARGET_HEAD_RULES = dict(
    missing_d2t="unused",
    missing_lm_head="target-always",
    lm_head_from_target="always",
    own_embed_kept=False,
    draft_vocab_above_vocab=True,
)
# SGLang's DSpark and DFlash loaders (dflash.py, dflash_utils.py)
SGLANG_BLOCK_RULES = dict(
    TARGET_HEAD_RULES,
    d2t_param="ignored",
    mask_token_keys=("dflash_config.mask_token_id", "mask_token_id"),
    aux_layer_keys=("dflash_config.target_layer_ids", "target_layer_ids"),
    aux_default="num_hidden_layers",
    fc_input_hidden="hidden_size",
    prefixed_names="stripped",
)

PROFILES: dict[str, Profile] = {
    p.name: p
    for p in [
        Profile(
            name="vllm",
            runtime="vLLM",
            family=DSPARK,
            release=VLLM,
            sources=(DSPARK_PY, DSPARK_UTILS, SPEC_UTILS, DFLASH_PY, SPEC_CONFIG, "vllm PR #55133"),
            cites=_vllm_dspark_cites("262-268", "341-357"),
            reduced_when=LT,
            **VLLM_DSPARK_RULES,
        ),
        Profile(
            name="vllm-legacy",
            runtime="vLLM",
            family=DSPARK,
            release="vLLM before 0.33.0 (PR #52560 until PR #55133)",
            sources=(DSPARK_PY + " at PR #52560", "vllm PR #52560", "vllm PR #55133"),
            cites={
                **_vllm_dspark_cites("262-268", "341-357"),
                "reduced_when": "vllm PR #52560 qwen3_dspark.py (uses_reduced_vocab = "
                "Vd != Vt; PR #55133 made it Vd < Vt: " + DSPARK_PY + ":262,342 in 0.33.0)",
            },
            reduced_when=NE,
            **VLLM_DSPARK_RULES,
        ),
        Profile(
            name="vllm-dflash",
            runtime="vLLM",
            family=DFLASH,
            release=VLLM,
            sources=(DFLASH_PY, EAGLE_UTILS, LOGITS, SPEC_UTILS, AUX_UTILS),
            cites=_vllm_eagle_cites(DFLASH_PY, "768-775", "801-814", "851-892"),
            mask_token_keys=VLLM_MASK,
            missing_mask_token="error",
            aux_layer_keys=VLLM_DFLASH_AUX,
            aux_default="num_hidden_layers",
        ),
        Profile(
            name="vllm-eagle3",
            runtime="vLLM",
            family=EAGLE3,
            release=VLLM,
            sources=(EAGLE3_PY, M + "qwen3_eagle3.py", EAGLE_UTILS, LOGITS, SPECULATORS),
            cites=_vllm_eagle_cites(EAGLE3_PY, "338-345", "373-394", "420-470"),
            **VLLM_EAGLE3_RULES,
        ),
        Profile(
            name="vllm-eagle3-legacy",
            runtime="vLLM",
            family=EAGLE3,
            release="vLLM before PR #53458 (2026-08-23): draft_id_to_target_id always created",
            sources=(EAGLE3_PY + " before PR #53458", "vllm PR #53458"),
            cites={
                **_vllm_eagle_cites(EAGLE3_PY, "338-345", "373-394", "420-470"),
                "d2t_param": "vllm PR #53458 (before it, __init__ always created "
                "draft_id_to_target_id [Vd]; " + EAGLE3_PY + ":338-345 in 0.33.0 only when "
                "Vd != Vt)",
            },
            d2t_param="always",
            **VLLM_EAGLE3_RULES,
        ),
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
                "own_embed_kept": f"{S}speculative/eagle_worker_v2.py:363 (set_embed: the "
                "target's)",
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
            },
            reduced_when=LT,
            d2t_param="hot_token_id",
            missing_lm_head="uninitialised",
            lm_head_from_target="no_draft_vocab_size",
            own_embed_kept=False,
            draft_vocab_above_vocab=True,
            aux_layer_keys=EAGLE3_AUX,
            aux_default="3",
            norm_before_fc_keys=EAGLE3_NORM,
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
            missing_mask_token="tokenizer",
            **SGLANG_BLOCK_RULES,
        ),
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
                "aux_layer_keys": f"{TRT_DSPARK} __init__ (num_capture_layers = "
                "len(target_layer_ids))",
                "aux_default": f"{TRT_DSPARK} __init__ (assert num_capture_layers > 0)",
                "fc_input_hidden": f"{TRT_DSPARK} __init__ (fc = Linear(n * hidden_size))",
                "norm_before_fc_keys": f"{TRT_DSPARK} (no input_norm)",
                "prefixed_names": f"{TRT_DSPARK} load_weights (names as stored, strict)",
                "strict_names": f"{TRT_DSPARK} load_weights: load_state_dict(strict=True)",
                "reads_speculators_format": f"{TRT_DSPARK} (pretrained_config attributes)",
            },
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
            **TARGET_HEAD_RULES,
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
            },
            reduced_against="vocab_size",
            missing_d2t="uninitialised",
            d2t_param="ignored",
            missing_lm_head="unchecked",
            own_embed_kept=False,
            draft_vocab_above_vocab=True,
            prefixed_names="stripped",
        ),
    ]
}

DEFAULT_PROFILE = "vllm"
# the primary profile for a family when --profile is not given
FAMILY_DEFAULT = {DSPARK: "vllm", DFLASH: "vllm-dflash", EAGLE3: "vllm-eagle3"}
COVERED = tuple(FAMILY_DEFAULT)

# how a config names its family: substrings of architectures / model_type /
# speculators_model_type (lower case), first match wins (P-EAGLE is served as EAGLE-3:
# vllm/model_executor/models/registry.py:698-706; MTP and EAGLE-1 have no profile)
FAMILY_MARKERS = (
    (EAGLE3, ("eagle3", "peagle")),
    (DSPARK, ("dspark",)),
    (DFLASH, ("dflash",)),
    (MTP, ("mtp",)),
    (MEDUSA, ("medusa",)),
    (EAGLE1, ("eagle",)),
)
# a nested config that names the family when no name does
NESTED_MARKERS = ((DSPARK, "dspark_config"), (DFLASH, "dflash_config"))


def detect_family(cfg: DrafterConfig) -> str | None:
    """The drafter family from architectures, model_type and the speculators format;
    a DSpark config is also known by its Markov head (``markov_rank``)."""
    raw = cfg.raw if isinstance(cfg.raw, dict) else {}
    names = [*cfg.architectures, cfg.model_type or "", str(raw.get("speculators_model_type", ""))]
    names = [n.lower() for n in names]
    for family, marks in FAMILY_MARKERS:
        if any(m in n for n in names for m in marks):
            return family
    if cfg.markov_rank is not None:
        return DSPARK
    for family, nested in NESTED_MARKERS:
        if isinstance(raw.get(nested), dict):
            return family
    return None


def covered(family: str | None) -> bool:
    """Whether some profile judges drafters of ``family``."""
    return family in COVERED


def applicable_profiles(family: str | None) -> list[str]:
    """The profiles that load ``family`` (none for a family no profile covers)."""
    return [n for n, p in PROFILES.items() if p.family == family]


def default_profile(family: str | None) -> str:
    """The profile that decides when --profile is not given: the family's primary one."""
    return FAMILY_DEFAULT.get(family, DEFAULT_PROFILE)


def get_profile(name: str, *, all_ok: bool = False) -> Profile:
    """The profile called ``name``; ``all_ok``: the command also takes 'all' (the
    message offers it only then)."""
    try:
        return PROFILES[name]
    except KeyError:
        choices = ", ".join(PROFILES) + (" or 'all'" if all_ok else "")
        raise UsageError(f"unknown profile {name!r}; choose from {choices}") from None


def parse_profiles(values: list[str] | None) -> list[str] | None:
    """``--profile`` values (repeated and/or comma separated, or ``all``) as profile
    names in order, without repeats; None when none was given (auto-detect)."""
    if not values:
        return None
    names: list[str] = []
    for value in values:
        for name in (v.strip() for v in value.split(",")):
            if not name:
                raise UsageError(f"empty profile name in --profile {value!r}")
            for n in PROFILES if name == "all" else [get_profile(name, all_ok=True).name]:
                if n not in names:
                    names.append(n)
    return names
