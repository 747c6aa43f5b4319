"""Finding codes: stable public API. Never renumber or reuse a code.

Each code has one severity, a title, an explanation (what it means and why the
runtime cares: ``dspark-ckpt explain CODE``) and a default hint.
"""

from __future__ import annotations

from dataclasses import dataclass

from dspark_ckpt.errors import UsageError

ERROR, WARNING, INFO = "error", "warning", "info"


@dataclass(frozen=True)
class Code:
    code: str
    severity: str
    title: str
    explanation: str
    hint: str | None = None


CODES: dict[str, Code] = {
    c.code: c
    for c in [
        Code(
            "DSC001",
            ERROR,
            "unreadable or malformed checkpoint",
            "A config, index or safetensors file could not be read, or breaks the format "
            "(bad header, offsets, dtype, shard name, a pickle file, a special file or a link "
            "out of the checkpoint). Runtimes fail at load time or, worse, read garbage.",
            "re-export the checkpoint with safetensors' save_file / save_model",
        ),
        Code(
            "DSC101",
            ERROR,
            "embed_tokens missing for an expanded input vocab",
            "The drafter's vocab_size V is larger than the target's Vt, so the target's "
            "embedding cannot be shared: vLLM refuses to load a Qwen3 DSpark drafter whose "
            "input vocab_size is larger than the target vocabulary without embed_tokens.",
            "ship embed_tokens.weight [V, H] with the drafter",
        ),
        Code(
            "DSC102",
            ERROR,
            "lm_head missing for a reduced vocab",
            "The runtime treats this drafter's output vocab as reduced (under its rule, < or "
            "!=), so the full target lm_head cannot stand in for the drafter's: vLLM's DSpark "
            "loader refuses to load without it. vLLM's DFlash and EAGLE-3 loaders share the "
            "target's head instead and keep its first Vd logits: draft id i is scored with "
            "target token i's row, then proposed as target id i + d2t[i] (wrong proposals, "
            "no error); a padded drafter whose Vd exceeds the target head's rows fails at "
            "the first proposal.",
            "ship lm_head.weight [Vd, H] with the drafter",
        ),
        Code(
            "DSC103",
            ERROR,
            "d2t missing",
            "Sampled draft ids must be converted to target ids through d2t "
            "(target_id = draft_id + d2t[draft_id]). Depending on the runtime, a missing d2t "
            "is a load error or is silently all zeros, which maps draft id i to target id i "
            "and collapses acceptance for a pruned drafter.",
            "ship d2t [Vd] int64; `dspark-ckpt fix --emit-d2t` derives it from t2d, or "
            "writes the identity for an equal or padded drafter",
        ),
        Code(
            "DSC104",
            ERROR,
            "padded drafter without lm_head: uninitialised head",
            "Vd > Vt and no lm_head: vLLM shares the target head only when Vd == Vt, raises "
            "nothing, and the draft head stays uninitialised memory: acceptance rate zero "
            "with no error.",
            "ship lm_head.weight [Vd, H] with the drafter",
        ),
        Code(
            "DSC105",
            ERROR,
            "d2t present where the runtime has no parameter for it",
            "The runtime creates draft_id_to_target_id only for a reduced vocab; for any "
            "other checkpoint tensor vLLM's weight loader raises 'There is no module or "
            "parameter named ...'. TensorRT-LLM loads a DSpark drafter with a strict state "
            "dict, where d2t and t2d are unexpected keys.",
            "drop d2t from the checkpoint for this runtime (one checkpoint cannot satisfy "
            "both vllm and vllm-legacy for a padded drafter)",
        ),
        Code(
            "DSC106",
            ERROR,
            "draft vocab larger than a Qwen3-Omni target's",
            "vLLM's config-time check for Qwen3-Omni targets requires 0 < draft_vocab_size "
            "<= the thinker text config's vocab_size.",
            "prune or truncate the draft vocab to at most Vt",
        ),
        Code(
            "DSC107",
            ERROR,
            "config key missing where the runtime reads it",
            "The runtime reads this key at the top level of the drafter's config.json (vLLM "
            "and SGLang: config.markov_rank; TensorRT-LLM also config.target_layer_ids). "
            "SpecForge's training configs nest them under dflash_config, where nothing reads "
            "them: the drafter fails to build (no Markov head, no captured layers).",
            "copy the key to the top level of config.json (SpecForge ships a script that "
            "does this for serving)",
        ),
        Code(
            "DSC108",
            ERROR,
            "no profile covers this drafter family",
            "The drafter is not a DSpark, DFlash or EAGLE-3 drafter (an MTP head, EAGLE-1, "
            "Medusa, or a config that names no family): no profile mirrors how a runtime "
            "loads it, so it is not judged, and never by another family's rules. inspect "
            "exits 3.",
            "check the config's architectures / model_type; this tool judges DSpark, DFlash "
            "and EAGLE-3 (P-EAGLE) drafters only",
        ),
        Code(
            "DSC109",
            ERROR,
            "mask token id missing",
            "DFlash and DSpark drafters feed a mask (noise) token id as an input id. vLLM "
            "reads dflash_config.mask_token_id, mask_token_id, dspark_noise_token_id, "
            "pard_token, ptd_token_id in that order and its proposer raises when none is set; "
            "SGLang's DSpark refuses a config without mask_token_id.",
            "set the mask token id the drafter was trained with (SpecForge: "
            "dflash_config.mask_token_id)",
        ),
        Code(
            "DSC110",
            ERROR,
            "own embed_tokens smaller than the target vocab",
            "The drafter ships embed_tokens with V < Vt rows. vLLM keeps a drafter's own "
            "embedding when its shape differs from the target's, and the drafter is fed "
            "target token ids: any id in [V, Vt) indexes past its end (an index error, a "
            "device-side assert on GPU).",
            "export embed_tokens with a row for every target id ([Vt, H]), or drop it so "
            "the target's embedding is shared (what SGLang and TensorRT-LLM do anyway)",
        ),
        Code(
            "DSC111",
            ERROR,
            "tensor names under a wrapper prefix",
            "vLLM's drafter loaders prepend 'model.' to every name but lm_head and d2t, and "
            "TensorRT-LLM loads names as stored with a strict state dict: a stored "
            "model.lm_head.weight, model.d2t or model.embed_tokens.weight is no parameter of "
            "theirs and fails the load ('There is no module or parameter named ...' / "
            "'Unexpected key(s)').",
            "rename the tensors without the wrapper prefix (lm_head.weight, d2t, "
            "embed_tokens.weight, layers.N....)",
        ),
        Code(
            "DSC112",
            ERROR,
            "tensor the runtime's strict load rejects",
            "TensorRT-LLM loads a Qwen3 DSpark drafter with load_state_dict(strict=True): "
            "any name its model lacks (mask_embedding, a confidence head the config does not "
            "enable at the top level, a Markov head without a top-level markov_rank, "
            "quantisation scales) is an 'Unexpected key(s)' error at load.",
            "drop the tensors the TensorRT-LLM model does not have, or enable them in the "
            "top level of config.json",
        ),
        Code(
            "DSC201",
            ERROR,
            "lm_head rows differ from draft_vocab_size",
            "lm_head must be [Vd, H]: a stale head from another export, or a config whose "
            "draft_vocab_size was not updated, fails the runtime's shape check at load.",
            "make draft_vocab_size and lm_head agree (re-export, or fix config.json)",
        ),
        Code(
            "DSC202",
            ERROR,
            "embed_tokens rows differ from vocab_size",
            "embed_tokens must be [V, H] with V the drafter config's vocab_size.",
            "make vocab_size and embed_tokens agree",
        ),
        Code(
            "DSC203",
            ERROR,
            "hidden size differs from the config",
            "The second dimension of lm_head / embed_tokens must be the drafter's "
            "hidden_size: a mismatch means a drafter exported for another model.",
            "check that config.json belongs to these weights",
        ),
        Code(
            "DSC204",
            ERROR,
            "markov_w1 shape",
            "DSpark's markov_head.markov_w1.weight must be [V, r] (input vocab x markov_rank).",
            "re-export the Markov head with the config's vocab_size and markov_rank",
        ),
        Code(
            "DSC205",
            ERROR,
            "markov_w2 shape",
            "DSpark's markov_head.markov_w2.weight must be [Vd, r] in vLLM (its output is "
            "added to the draft logits) and [V, r] in TensorRT-LLM.",
            "re-export the Markov head with the config's draft_vocab_size and markov_rank",
        ),
        Code(
            "DSC206",
            ERROR,
            "d2t is not rank-1 int64 of length Vd",
            "d2t holds one integer offset per draft id (int64; int32 is converted on load, "
            "DSC305); any other dtype or shape fails the runtime's load or indexes the wrong "
            "ids.",
            "re-export d2t as int64 [Vd]",
        ),
        Code(
            "DSC207",
            ERROR,
            "draft vocab larger than the target's embedding",
            "Vd > Et: with the identity map, a sampled padded id indexes past the target's "
            "embedding rows and takes down every tensor-parallel rank with a device-side "
            "assert.",
            "truncate the draft vocab to the target's embedding (lm_head rows and "
            "draft_vocab_size <= Et): only that clears this error; a padded-row mask "
            "(`dspark-ckpt fix --emit-mask`) keeps sampling in bounds meanwhile, but the "
            "checkpoint still fails",
        ),
        Code(
            "DSC208",
            ERROR,
            "mask token id outside the input vocab",
            "The mask/noise token id is an input id, looked up in the drafter's embedding: "
            "it must lie in [0, V) with V the drafter's vocab_size (not [0, Vd): a pruned "
            "Qwen3 drafter with Vd 32000 and mask id 151669 is valid). vLLM checks this at "
            "config time for Qwen3-Omni targets; elsewhere the lookup indexes out of range.",
            "set the mask token id the drafter was trained with; it must be below vocab_size",
        ),
        Code(
            "DSC209",
            ERROR,
            "tensor stored under several names",
            "Runtimes look tensors up after stripping a wrapper prefix (model., "
            "language_model.model., ...). Two copies of one tensor under different prefixes "
            "(d2t and model.d2t) load into one parameter in an order that depends on the "
            "runtime and the file order, or fail as an unexpected name: the checkpoint does "
            "not say which one is the drafter's.",
            "keep one copy of each tensor, under the name the runtime expects",
        ),
        Code(
            "DSC210",
            ERROR,
            "fc width differs from the target hidden states the runtime feeds",
            "fc.weight must be [H, n_aux * Ht], with n_aux resolved as the runtime does: vLLM "
            "and SGLang EAGLE-3 count num_aux_hidden_states, else "
            "eagle_config.eagle_aux_hidden_state_layer_ids, else 3 (a speculators config's "
            "top-level eagle_aux_hidden_state_layer_ids is not counted by the model); vLLM "
            "DFlash/DSpark count the first aux/target layer id list, else num_hidden_layers. "
            "Another width fails the load (shape mismatch).",
            "set num_aux_hidden_states (EAGLE-3) or the layer id list to the number of "
            "target hidden states the drafter was trained on",
        ),
        Code(
            "DSC211",
            ERROR,
            "input_norm width differs from fc's input",
            "With norm_before_fc the runtime builds input_norm as RMSNorm(n_aux * Ht): "
            "another width fails the load.",
            "make input_norm.weight [n_aux * Ht], as fc's input",
        ),
        Code(
            "DSC301",
            ERROR,
            "d2t maps to ids outside the target vocab",
            "Every draft id i must map to 0 <= i + d2t[i] < Vt; an out-of-range id is an "
            "illegal token or an out-of-bounds index in the target. A classic cause is an "
            "arange 'identity' (the identity d2t is all zeros).",
            "rebuild d2t from the selected token ids: d2t[i] = selected[i] - i",
        ),
        Code(
            "DSC302",
            ERROR,
            "d2t is not injective",
            "Two draft ids map to the same target id: one target token is proposed twice "
            "and another can never be proposed.",
            "rebuild d2t from the selected token ids: d2t[i] = selected[i] - i",
        ),
        Code(
            "DSC303",
            WARNING,
            "t2d inconsistent with d2t",
            "t2d (the membership mask over the target vocab) must select exactly the target "
            "ids that d2t maps to, with t2d.sum() == Vd. vLLM skips t2d, but a mismatch "
            "means one of the two is stale.",
            "re-export d2t and t2d together",
        ),
        Code(
            "DSC304",
            WARNING,
            "d2t not sorted",
            "i + d2t[i] is not strictly increasing. Legal (ModelOpt's calibration does not "
            "sort), but SpecForge and speculators always sort: an unsorted map from those "
            "producers suggests corruption.",
            None,
        ),
        Code(
            "DSC305",
            WARNING,
            "d2t is int32: converted on load",
            "d2t is stored as int32. vLLM's weight loader copies it into its int64 "
            "parameter and SGLang adds it to an int64 arange: it works, but producers write "
            "int64.",
            "re-export d2t as int64 [Vd]",
        ),
        Code(
            "DSC401",
            WARNING,
            "padded rows reachable by sampling",
            "Rows [Vt, Vd) are padding, not tokens, yet no vLLM version masks them: greedy, "
            "top-k and Gumbel sampling run over the full Vd width and the Markov bias adds "
            "to them. A sampled padded id becomes an illegal target token or an "
            "out-of-bounds index.",
            "apply a padded-row mask: `dspark-ckpt fix --emit-mask`",
        ),
        Code(
            "DSC501",
            INFO,
            "draft_vocab_size missing: defaulted",
            "With no draft_vocab_size, vLLM, SGLang and TensorRT-LLM use vocab_size; the "
            "speculators library's own configs default to 32000.",
            "write draft_vocab_size explicitly in config.json",
        ),
        Code(
            "DSC601",
            ERROR,
            "lm_head missing and never loaded: uninitialised head",
            "SGLang's EAGLE-3 loader creates an lm_head of draft_vocab_size rows whenever the "
            "config sets draft_vocab_size (and does not tie embeddings); its weight loader "
            "skips names it lacks and the worker only shares the target's embedding, so "
            "without an lm_head in the checkpoint the head stays uninitialised memory: "
            "acceptance rate zero, no error.",
            "ship lm_head.weight [Vd, H], or drop draft_vocab_size so SGLang uses the "
            "target's head",
        ),
        Code(
            "DSC602",
            WARNING,
            "shipped lm_head replaced by the target's",
            "The runtime takes the draft head from the target: TensorRT-LLM's Qwen3 DSpark "
            "loader always does, SGLang's EAGLE-3 loader does when the config has no "
            "draft_vocab_size. The lm_head trained with the drafter is ignored, so the "
            "drafter proposes from a head it was not trained with.",
            "for SGLang, write draft_vocab_size in config.json; for TensorRT-LLM, train the "
            "drafter against the target's own head",
        ),
        Code(
            "DSC603",
            ERROR,
            "draft vocab larger than the input vocab",
            "Vd > V breaks the drafter itself: vLLM's DSpark feeds each sampled draft id "
            "back into markov_w1 (V rows) at the next step, and vLLM's EAGLE-3 and DFlash "
            "scatter the Vd draft logits into a V-wide row (EAGLE-3 without a d2t parameter "
            "asserts the logits are V wide): an index error at the first draft step.",
            "if rows [V, Vd) are padding, truncate lm_head (and d2t, markov_w2) to V rows "
            "and set draft_vocab_size = V; else export the input vocab with Vd rows",
        ),
        Code(
            "DSC604",
            ERROR,
            "config format the runtime does not read",
            "SGLang 0.5.23 reads only the LlamaForCausalLMEagle3 config format; it has no "
            "translation for a speculators-format config (speculators_model_type, "
            "transformer_layer_config), so the drafter cannot be built from it.",
            "export an SGLang config: architectures [LlamaForCausalLMEagle3], the backbone "
            "sizes at the top level, draft_vocab_size, eagle_config",
        ),
        Code(
            "DSC605",
            ERROR,
            "input vocab differs from the target's logit width",
            "TensorRT-LLM's Qwen3 DSpark drafter uses the target's lm_head and adds a Markov "
            "bias of vocab_size (V) columns to its logits: V must equal the target's logit "
            "width (its head's rows), or the first draft step fails on the shape.",
            "export the drafter with vocab_size equal to the target head's rows",
        ),
        # DSC7xx: the drafter against the target model itself (target_rules.py)
        Code(
            "DSC701",
            ERROR,
            "fc built for another target hidden size",
            "The drafter's fc takes n_aux target hidden states concatenated, each as wide as "
            "the runtime believes the target's hidden size to be: target_hidden_size (default "
            "the drafter's hidden_size) in vLLM and SGLang EAGLE-3, the drafter's hidden_size "
            "in SGLang DFlash/DSpark and TensorRT-LLM. When the target's hidden_size differs "
            "(a Llama 3.1 8B head on Llama 3.3 70B, vLLM #17740, #18906), fc gets states of "
            "another width: a shape error when they first reach it.",
            "use the drafter trained for this target, or set target_hidden_size when fc "
            "already takes the target's width",
        ),
        Code(
            "DSC702",
            ERROR,
            "target embedding or head of another width",
            "The runtime gives the drafter the target's embed_tokens / lm_head (vLLM when the "
            "drafter ships none; SGLang EAGLE-3 unless target_hidden_size differs from "
            "hidden_size; TensorRT-LLM DSpark always). They are as wide as the target's "
            "hidden_size: a drafter of another hidden_size fails at its first forward "
            "(vLLM #18906: 'assert hidden_states.shape[-1] == input_embeds.shape[-1]').",
            "ship the drafter's own embed_tokens and lm_head",
        ),
        Code(
            "DSC703",
            ERROR,
            "aux layer ids outside the target",
            "The aux layer ids (eagle_aux_hidden_state_layer_ids; DFlash/DSpark "
            "target_layer_ids, which vLLM and SGLang capture at id + 1) must name layers the "
            "target has. The target never produces a state it has no layer for, and each "
            "layer once: fc gets fewer states than it was built for (a shape error at the "
            "first forward), or the runtime refuses the ids at start-up (SGLang DFlash).",
            "use the layer ids the drafter was trained with, on the target it was trained for",
        ),
        Code(
            "DSC704",
            WARNING,
            "drafter made for another target",
            "The drafter's config names the target it was trained for (speculators' "
            "speculators_config.verifier, SpecForge's num_target_layers) and it is not this "
            "one. No runtime refuses it (SGLang logs a warning for num_target_layers): the "
            "drafter runs on hidden states and tokens it was not trained on, and acceptance "
            "collapses.",
            "use the drafter trained for this target",
        ),
        Code(
            "DSC705",
            ERROR,
            "target cannot give aux hidden states",
            "EAGLE-3, DFlash and DSpark drafters are fed hidden states of the target's inner "
            "layers; vLLM takes them only from target model classes implementing "
            "SupportsEagle3 and raises 'Model does not support EAGLE3 interface' at start-up "
            "for any other (the list of vLLM 0.33.0's: dspark_ckpt/profiles/vllm_aux_targets.py).",
            "serve the drafter on a target architecture the runtime supports for it",
        ),
        Code(
            "DSC710",
            ERROR,
            "tokenizer differs from the target's",
            "Runtimes use the target's tokenizer only, so the drafter's tokenizer files are "
            "the record of what it was trained with. When an id below min(V, Vt) names "
            "another token there, the drafter reads and proposes other tokens than the "
            "target means: everything loads, the proposals are garbage (SafeAILab/EAGLE #258).",
            "use the drafter trained with this target's tokenizer",
        ),
        Code(
            "DSC711",
            WARNING,
            "special tokens differ from the target's",
            "The drafter's tokenizer names other special tokens (bos/eos/pad/...) or gives a "
            "special token another id than the target's: it was trained on another chat "
            "format, and proposals around those tokens are rejected.",
            "use the drafter trained with this target's tokenizer and chat template",
        ),
        Code(
            "DSC712",
            INFO,
            "tokenizer not checked",
            "Only one of the drafter and target folders holds tokenizer files (tokenizer.json "
            "or vocab.json), or one could not be read: whether the drafter was trained with "
            "the target's tokenizer is not known. Nothing is guessed.",
            "ship the tokenizer files the drafter was trained with beside it",
        ),
    ]
}

SEVERITY_ORDER = {ERROR: 0, WARNING: 1, INFO: 2}


def get_code(code: str) -> Code:
    """A finding code by name (case-insensitive); a ``UsageError`` for an unknown one."""
    try:
        return CODES[code.strip().upper()]
    except KeyError:
        what = f"unknown finding code {code!r}" if code.strip() else "give a finding code"
        raise UsageError(f"{what}; known: {', '.join(CODES)}") from None


@dataclass(frozen=True)
class Finding:
    code: str
    message: str
    tensor: str | None = None  # the tensor or config key concerned
    file: str | None = None  # the file concerned, where one is
    hint: str | None = None  # overrides the code's default hint
    severity: str = ""  # the code's severity unless overridden (``check``'s config)
    profile: str | None = None  # the runtime profile whose rule found it (None: every runtime)

    def __post_init__(self) -> None:
        if not self.severity:
            object.__setattr__(self, "severity", CODES[self.code].severity)

    @property
    def title(self) -> str:
        return CODES[self.code].title

    @property
    def fix_hint(self) -> str | None:
        return self.hint or CODES[self.code].hint
