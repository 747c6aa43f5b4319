"""Classic EAGLE (EAGLE-1) profiles: vLLM 0.33.0's ``EagleLlamaForCausalLM`` and SGLang
0.5.23's ``LlamaForCausalLMEagle`` (and ``Qwen2ForCausalLMEagle``: the same model over Qwen2
layers, whose q/k/v take a bias).

Both build the drafter of the EAGLE release code (``eagle/model/cnets.py``): ``fc`` over the
concatenated [input embedding, target's last hidden state] (``2 * hidden_size`` wide), then
Llama decoder layers of which the first has no ``input_layernorm``, and no final norm. Neither
has a d2t path: the head is always the target's. They differ in what they refuse: vLLM builds
no ``lm_head`` module and no ``fc`` bias (a shipped ``lm_head`` or ``d2t`` fails the load, a
shipped ``fc.bias`` is ignored as every unexpected bias), SGLang loads the names it has and
skips the rest (its ``fc`` has a bias, a missing one keeps its initial value).
Which architectures each judges is ``architectures.py``'s.
"""

from __future__ import annotations

from dspark_ckpt.profiles.families import EAGLE1
from dspark_ckpt.profiles.quant_fc import SGLANG_EAGLE_FC
from dspark_ckpt.profiles.renames import RENAME_CITES
from dspark_ckpt.profiles.schema import RULE_FIELDS, Profile

V_EAGLE = "vllm/model_executor/models/llama_eagle.py"
V_UTILS = "vllm/model_executor/models/utils.py"
V_SHARE = "vllm/v1/worker/gpu/spec_decode/eagle/utils.py"
S_EAGLE = "python/sglang/srt/models/llama_eagle.py"
S_LLAMA = "python/sglang/srt/models/llama.py"
S_WORKER = "python/sglang/srt/speculative/eagle_worker_v2.py"
S_QWEN2_EAGLE = "python/sglang/srt/models/qwen2_eagle.py"
NO_PARAM = f"{V_UTILS}:443 `There is no module or parameter named`"
VLLM_FILES = (
    "vllm/model_executor/model_loader/default_loader.py:229-230 "
    "`glob.glob(os.path.join(hf_folder, pattern))`; "
    "vllm/model_executor/model_loader/weight_utils.py:596-597 "
    "`if not os.path.isfile(index_file_name):` (no index: every file is kept)"
)
SGLANG_FILES = (
    "python/sglang/srt/model_loader/loader.py:548-549 "
    "`glob.glob(os.path.join(hf_folder, pattern))`; "
    "python/sglang/srt/model_loader/weight_utils.py:766-775 "
    "`if not os.path.isfile(index_file_name):` (no index: every file is kept)"
)
# the Llama decoder layer's fused q/k/v and gate/up, stored for the modules a checkpoint names
FUSED_MAPS = (
    "self_attn.qkv_proj>self_attn.q_proj",
    "self_attn.qkv_proj>self_attn.k_proj",
    "self_attn.qkv_proj>self_attn.v_proj",
    "mlp.gate_up_proj>mlp.gate_proj",
    "mlp.gate_up_proj>mlp.up_proj",
)


def _unread(path: str) -> dict[str, str]:
    """Every rule field, cited as not read by this loader (the entries cite what it reads)."""
    return {name: f"{path} (not read by this loader: the rule is off)" for name in RULE_FIELDS}


V_HEAD = (
    f"{V_EAGLE}:146-148 `nn.Module.__init__(self)` (no lm_head module is built); "
    f"{V_SHARE}:107-119 `_should_share(` (the target's lm_head is set as the drafter's)"
)
V_D2T = f'{V_EAGLE}:187-196 `name = "model." + name` (d2t names no parameter); {NO_PARAM}'
VLLM_CITES = {
    **_unread(V_EAGLE),
    "reduced_when": f'{V_EAGLE}:152-156 `getattr(self.config, "draft_vocab_size", None) is '
    "None` (draft_vocab_size defaults to vocab_size and is never read again: no reduced vocab)",
    "reduced_against": f"{V_EAGLE}:166-169 `self.config.vocab_size, scale=logit_scale` (the "
    "logits are the target head's)",
    "architecture_rename": RENAME_CITES["eagle"],
    "missing_d2t": V_D2T,
    "d2t_param": V_D2T,
    "missing_lm_head": V_HEAD,
    "lm_head_from_target": V_HEAD,
    "own_embed_kept": f"{V_EAGLE}:93-97 `self.embed_tokens = VocabParallelEmbedding(`; "
    f'{V_SHARE}:74-77 `_should_share(draft_model, "has_own_embed_tokens"` (a shipped copy '
    "that differs from the target's is kept)",
    "requires_embed_when_expanded": f"{V_SHARE}:45-77 `def maybe_share_target_embed` (no check)",
    "prefixed_names": f'{V_EAGLE}:187-196 `name = "model." + name`; {NO_PARAM}',
    "strict_names": f"{V_EAGLE}:195-196 `loader = AutoWeightsLoader(self)` (missing names "
    f"load nothing); {NO_PARAM}",
    "stray_files_loaded": VLLM_FILES,
    "stray_names": f'{V_EAGLE}:191 `name = "model." + name`; {NO_PARAM}',
    "architectures": 'vllm/model_executor/models/registry.py:661 `"EagleLlamaForCausalLM"`; '
    'vllm/transformers_utils/configs/eagle.py:46-53 `f"Eagle{arch}"` (another name is '
    "renamed Eagle<name>, which vLLM does not register)",
    "missing_tensors": f"{V_EAGLE}:195-196 `loader.load_weights(map(transform, weights))` "
    "(returns no set of loaded names: nothing checks what was filled)",
    "unexpected_ignored_suffixes": f'{V_UTILS}:456-458 `self.ignore_unexpected_suffixes.append(".bias")`',
    "name_maps": f"{V_EAGLE}:66-75 `orig_to_new_stacked={{` (q/k/v and gate/up stored fused)",
    "tied_head": f"{V_EAGLE}:146-148 `nn.Module.__init__(self)` (no lm_head to tie: "
    "tie_word_embeddings is never read)",
    "builds_lm_head": V_HEAD,
    "fc_bias": f"{V_EAGLE}:110-118 `bias=False,` (a stored fc.bias is ignored); "
    f'{V_UTILS}:456-458 `self.ignore_unexpected_suffixes.append(".bias")`',
    "first_input_norm": f"{V_EAGLE}:53-57 `del self.input_layernorm` (layer 0's is an "
    f"nn.Identity: a stored weight names no parameter); {NO_PARAM}",
    "first_qkv_input": f"{V_EAGLE}:108-118 `input_size=self.config.hidden_size * 2,` (fc "
    "concatenates [embedding, hidden state]; the decoder layers are Llama's, q/k/v over "
    "hidden_size)",
}
VLLM_EAGLE = Profile(
    name="vllm-eagle",
    runtime="vLLM",
    family=EAGLE1,
    release="vLLM 0.33.0",
    sources=(V_EAGLE, V_SHARE, V_UTILS),
    cites=VLLM_CITES,
    releases=">=0.33.0,<=0.33.0",
    missing_d2t="unused",
    d2t_param="none",
    missing_lm_head="target-always",
    lm_head_from_target="always",
    architectures=("EagleLlamaForCausalLM",),
    architecture_rename="eagle",
    missing_tensors="uninitialised",
    unexpected_ignored_suffixes=(".bias",),
    name_maps=FUSED_MAPS,
    builds_lm_head=False,
    first_input_norm=False,
)

S_HEAD = (
    f'{S_EAGLE}:146-150 `if "lm_head" not in name:` (a shipped lm_head is never loaded); '
    f"{S_WORKER}:371-378 `self.draft_runner.model.set_embed_and_head(embed, head)` (the "
    "target's embedding and head replace the drafter's)"
)
S_D2T = (
    f"{S_EAGLE}:146-150 `super().load_weights([(name, loaded_weight)])`; {S_LLAMA}:772-779 "
    "`if name in params_dict.keys():` (d2t names no parameter: skipped)"
)
SGLANG_CITES = {
    **_unread(S_EAGLE),
    "reduced_when": f'{S_EAGLE}:131-141 `getattr(config, "hot_vocab_size", config.vocab_size)` '
    "(draft_vocab_size is never read: the target's head drafts every id)",
    "reduced_against": f"{S_WORKER}:371-378 `self.draft_runner.model.set_embed_and_head(embed, "
    "head)`",
    "missing_d2t": S_D2T,
    "d2t_param": S_D2T,
    "missing_lm_head": S_HEAD,
    "lm_head_from_target": S_HEAD,
    "own_embed_kept": f"{S_WORKER}:371-378 `self.draft_runner.model.set_embed_and_head(embed, "
    f"head)`; {S_LLAMA}:895-899 `self.model.embed_tokens.weight = embed` (always the target's)",
    "requires_embed_when_expanded": f"{S_EAGLE} (no check)",
    "prefixed_names": f'{S_EAGLE}:146-150 `name = "model." + name` (a stored model. prefix '
    f"becomes model.model., a name of no parameter); {S_LLAMA}:772-779 "
    "`if name in params_dict.keys():`",
    "strict_names": f"{S_LLAMA}:772-779 `if name in params_dict.keys():` (unknown names skipped)",
    "stray_files_loaded": SGLANG_FILES,
    "stray_names": f"{S_LLAMA}:772-779 `Parameter {{name}} not found in params_dict` (skipped)",
    "architectures": f"{S_EAGLE}:153 `EntryClass = [LlamaForCausalLMEagle]`; "
    f"{S_QWEN2_EAGLE}:151 `EntryClass = [Qwen2ForCausalLMEagle]`; "
    "python/sglang/srt/models/registry.py:93-114 `def resolve_model_cls`",
    "missing_tensors": f"{S_LLAMA}:772-779 `if name in params_dict.keys():` (what is not given "
    "is not loaded, and nothing checks)",
    "name_maps": f"{S_LLAMA}:709-717 `stacked_params_mapping = [`",
    "tied_head": S_HEAD,
    "builds_lm_head": S_HEAD,
    "first_input_norm": f"{S_EAGLE}:52-56 `del self.input_layernorm` (layer 0 has none: a "
    f"stored weight is skipped); {S_LLAMA}:772-779 `if name in params_dict.keys():`",
    "first_qkv_input": f"{S_EAGLE}:91 `self.fc = torch.nn.Linear(config.hidden_size * 2, "
    "config.hidden_size)` (fc concatenates [embedding, hidden state]; the decoder layers are "
    "Llama's, q/k/v over hidden_size)",
    "fc_bias": f"{S_EAGLE}:91 `self.fc = torch.nn.Linear(config.hidden_size * 2, "
    f"config.hidden_size)` (with a bias); {S_QWEN2_EAGLE}:92 `self.fc = torch.nn.Linear(`",
    "quantised_fc": SGLANG_EAGLE_FC,
    "qkv_bias_architectures": f"{S_QWEN2_EAGLE}:118,126-128 `class Qwen2ForCausalLMEagle` "
    "`self.model = Qwen2Model(`; python/sglang/srt/models/qwen2.py:189-196 `bias=True,` (Qwen2's "
    "q/k/v take a bias: a checkpoint must give it)",
}
SGLANG_EAGLE = Profile(
    name="sglang-eagle",
    runtime="SGLang",
    family=EAGLE1,
    release="SGLang 0.5.23",
    sources=(S_EAGLE, S_LLAMA, S_WORKER),
    cites=SGLANG_CITES,
    releases="==0.5.23",
    missing_d2t="unused",
    d2t_param="ignored",
    missing_lm_head="target-always",
    lm_head_from_target="always",
    own_embed_kept=False,
    reads_speculators_format=False,
    stray_names="skipped",
    architectures=("LlamaForCausalLMEagle", "Qwen2ForCausalLMEagle"),
    missing_tensors="default_init",
    name_maps=FUSED_MAPS,
    first_input_norm=False,
    fc_bias=True,
    qkv_bias_architectures=("Qwen2ForCausalLMEagle",),
    quantised_fc="plain",
)
