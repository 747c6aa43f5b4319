"""What a runtime profile says: the ``Profile`` and ``HiddenStates`` records, every
string-valued field a ``Literal`` whose values are documented once, in ``choices.py``.

A profile is one runtime release's loader for one drafter family; the entries live in
one module per runtime (``vllm.py``, ``sglang.py``, ``trtllm.py``). A value outside its
``Literal`` fails when the entry is built (at import), naming the profile and the field.
"""

# no ``from __future__ import annotations``: the field types stay objects, so the
# Literal choices are read once from them (no annotation evaluation per profile)
from dataclasses import fields
from typing import Literal, get_args, get_origin

from dspark_ckpt.profiles.choices import (  # noqa: F401 (the field types, re-exported)
    ArchitectureRename,
    AuxDefault,
    AuxDefaultLayers,
    Captures,
    CheckedIds,
    ConfigView,
    D2tParam,
    DecoderLayer,
    DefaultAuxIds,
    EmbedFromTarget,
    Family,
    FirstQkvInput,
    HiddenWidth,
    LmHeadFromTarget,
    MarkovBiasWidth,
    MarkovHeadType,
    MarkovW2Rows,
    MaskHidden,
    MaskTokenBound,
    MissingD2t,
    MissingDraftVocab,
    MissingLmHead,
    MissingMaskToken,
    MissingTensors,
    NullTargetHidden,
    PrefixedNames,
    QuantisedFc,
    ReducedAgainst,
    ReducedWhen,
    Runtime,
    StrayFilesLoaded,
    StrayNames,
    TargetAuxIds,
    TiedHead,
    UnservedArchitecture,
)
from dspark_ckpt.profiles.releases import first_release, runtime_key
from dspark_ckpt.record import record

LT, NE = "<", "!="


def _literal_fields(cls: type) -> dict[str, tuple]:
    """Each ``Literal``-typed field of ``cls`` with the values it may hold."""
    return {f.name: get_args(f.type) for f in fields(cls) if get_origin(f.type) is Literal}


def _check(obj: object, choices: dict[str, tuple], what: str) -> None:
    for name, allowed in choices.items():
        value = getattr(obj, name)
        if value not in allowed:
            raise ValueError(
                f"{what}: {name}={value!r} is not one of {', '.join(map(repr, allowed))}"
            )


# Both are registry entries, equal only to themselves (eq=False: hashed by identity), and
# write a short repr of their own (the generated one lists hundreds of target names or 30
# rule fields): generating those methods was most of their import time.
@record(eq=False, repr=False)
class HiddenStates:
    """How one runtime release feeds the target's hidden states to one drafter family."""

    aux_width: HiddenWidth
    # where the aux layer ids are read, in order: (dotted key, shift to a capture point)
    aux_ids: tuple[tuple[str, int], ...]
    captures: Captures
    checked: CheckedIds
    embed_from_target: EmbedFromTarget
    sources: tuple[str, ...]
    # target architectures the runtime can take aux states from, and those it refuses
    # (any other: not judged)
    capable_targets: frozenset[str] = frozenset()
    refused_targets: frozenset[str] = frozenset()
    # the states fed when the config names no aux layer ids ("": not modelled)
    default_ids: DefaultAuxIds = ""
    # target architectures whose model turns the ids into capture points its own way:
    # (architecture, how), the how a TargetAuxIds
    by_target: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        first = self.sources[0].split(" (")[0] if self.sources else "no source"
        _check(self, HIDDEN_STATES_CHOICES, f"hidden states from {first}")
        for arch, how in self.by_target:
            if how not in get_args(TargetAuxIds):
                raise ValueError(f"hidden states from {first}: by_target {arch}={how!r}")

    def __repr__(self) -> str:
        return (
            f"HiddenStates({self.aux_width}, ids {[k for k, _ in self.aux_ids]}, "
            f"captures {self.captures}, embed {self.embed_from_target})"
        )


# the fields of Profile that are not rules (everything else must be cited)
ABOUT = (
    *("name", "runtime", "family", "release", "sources", "cites", "hidden_states", "releases"),
    "variant",
)


@record(eq=False, repr=False)
class Profile:
    """One runtime release's loader for one drafter family. Every rule field (all but
    ``ABOUT``) has a ``cites`` entry: the ``file:line`` at that release it was read from."""

    name: str
    runtime: Runtime
    family: Family
    release: str  # the runtime release the rules were read from
    sources: tuple[str, ...]  # the runtime source files (and PRs) the rules mirror
    cites: dict[str, str]  # rule field -> file:line at that release
    # how this release feeds the target's hidden states (None: not read); its sources
    # are cited in HiddenStates.sources
    hidden_states: HiddenStates | None = None
    reduced_when: ReducedWhen = NE
    reduced_against: ReducedAgainst = "target"
    missing_d2t: MissingD2t = "zeros"
    d2t_param: D2tParam = "reduced"
    missing_lm_head: MissingLmHead = "target"
    lm_head_from_target: LmHeadFromTarget = "never"
    # input embeddings larger than the target's must ship embed_tokens (else a load error)
    requires_embed_when_expanded: bool = False
    # a shipped embed_tokens whose rows differ from the target's is kept (else the
    # target's replaces it): with V < Vt, target ids >= V index past it
    own_embed_kept: bool = True
    # Qwen3-Omni targets: config-time check 0 < Vd <= Vt
    omni_vocab_check: bool = False
    markov_w2_rows: MarkovW2Rows = "draft_vocab_size"
    # False where Vd > V breaks the drafter itself (an index error at the first draft step)
    draft_vocab_above_vocab: bool = False
    # V must equal the target's logit width (the head and embedding are the target's)
    vocab_is_target_width: bool = False
    # where the mask (noise) token id is read, first found wins; () for no mask token
    mask_token_keys: tuple[str, ...] = ()
    missing_mask_token: MissingMaskToken = ""
    # config keys read only at the top level of the drafter config (a nested copy is unread)
    top_level_keys: tuple[str, ...] = ()
    # the count n_aux of target hidden states fc takes: the first of these keys (a
    # list, or an int for num_aux_hidden_states), else aux_default; () for no fc check
    aux_layer_keys: tuple[str, ...] = ()
    aux_default: AuxDefault = ""
    fc_input_hidden: HiddenWidth = "target_hidden_size"
    # norm_before_fc (an input_norm [n_aux * Ht]) is read from these keys; () for none
    norm_before_fc_keys: tuple[str, ...] = ()
    prefixed_names: PrefixedNames = "rejected"
    # the loader is load_state_dict(strict=True): every name the model lacks fails
    strict_names: bool = False
    # reads a speculators-format config (speculators_model_type, transformer_layer_config)
    reads_speculators_format: bool = True
    # which *.safetensors of the folder are loaded, and what becomes of names the drafter
    # has no parameter for (a stray file's)
    stray_files_loaded: StrayFilesLoaded = "index_or_all"
    stray_names: StrayNames = "refused"
    # the drafter classes this release registers for the family: one of architectures must
    # name one, or the model registry refuses the drafter (() for no check)
    architectures: tuple[str, ...] = ()
    # how the config's architectures are renamed before the registry looks them up
    architecture_rename: ArchitectureRename = ""
    # the config's top-level dspark_draft_topk is refused at start-up outside [1, Vd or V]
    draft_topk_range: bool = False
    missing_draft_vocab_size: MissingDraftVocab = "vocab_size"
    missing_tensors: MissingTensors = "unchecked"
    # how fc is built on a quantised drafter: through its quantization config, or a plain Linear
    # whose quantised tensors (weight_packed, weight_scale, qweight, ...) load into nothing
    quantised_fc: QuantisedFc = "quantised"
    # where the config parser reads markov_head_type, first found wins (() for not read):
    # required when markov_rank > 0, and one of markov_head_types; the model itself builds
    # its head from the top-level key (default vanilla) and refuses other Markov tensors
    markov_head_type_keys: tuple[str, ...] = ()
    markov_head_types: tuple[str, ...] = ()
    markov_bias_width: MarkovBiasWidth = ""
    mask_token_bound: MaskTokenBound = "vocab_size"
    # the keys of mask_token_keys where a present null ends the search (no mask id)
    mask_token_null_stops: tuple[str, ...] = ()
    # --- load- and draft-time behaviours of vLLM 0.33.0 and TensorRT-LLM (issue 18) ---
    # the aux layer ids the runner feeds when the config names none, from the target depth
    aux_default_layers: AuxDefaultLayers = ""
    # config keys that name the target layers the drafter was trained on but that the
    # runner does not read, each with its shift to the runner's capture ids
    trained_aux_ids: tuple[tuple[str, int], ...] = ()
    # fc's aux count for the model classes a config can resolve to: (architecture after the
    # runtime's renaming, or "speculators:<model_type>"), then the keys that class counts
    aux_layer_keys_by_class: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # config keys whose true value keeps the drafter's own lm_head (never the target's)
    own_lm_head_keys: tuple[str, ...] = ()
    # mask-token keys (of mask_token_keys) where a present null is read: int(None)
    mask_token_null_read: tuple[str, ...] = ()
    mask_hidden: MaskHidden = ""
    # config keys that build fc_norm (one RMSNorm per aux state); () for none read
    fc_norm_keys: tuple[str, ...] = ()
    target_hidden_size_null: NullTargetHidden = "hidden_size"
    markov_head_type: MarkovHeadType = ""
    # a shipped confidence head of another shape than [1, H (+ r)] fails the load
    confidence_head_shape: bool = False
    # the Markov head embeds target ids (markov_w1 has V rows): V < Vt overruns it
    markov_embeds_target_ids: bool = False
    # without a d2t parameter the draft logits must be vocab_size wide (asserted)
    unmapped_logits_vocab_wide: bool = False
    # speculators-format translation: the speculators_model_type values translated, the
    # keys each requires ("type:key", a KeyError), the transformer_layer_config model_type
    # values each accepts ("type:model_type", else a ValueError); () for none
    speculators_types: tuple[str, ...] = ()
    speculators_required: tuple[str, ...] = ()
    speculators_layer_types: tuple[str, ...] = ()
    # top-level keys of a speculators config each algorithm's translation copies into the
    # model's config (when not null): "type:key", or "type:key>name" where it is renamed
    speculators_copied: tuple[str, ...] = ()
    # Qwen3-Omni targets: the config-time checks of the Omni DSpark contract
    omni_dspark_checks: bool = False
    # the architectures this loader serves ("Arch" or "Arch@model_type"); () for any
    served_architectures: tuple[str, ...] = ()
    unserved_architecture: UnservedArchitecture = ""
    # --- the loader model (issue 25): names the loader lets pass without a parameter ---
    # suffixes of stored names the loader ignores when the model has no parameter for them
    # (vLLM's AutoWeightsLoader: ".bias"); () for none
    unexpected_ignored_suffixes: tuple[str, ...] = ()
    # top-level modules whose stored names the loader's own mapper drops when the model
    # does not build them (vLLM DFlash / EAGLE-3: "fc" without aux hidden states), where
    # another loader refuses them; () for none
    dropped_unbuilt: tuple[str, ...] = ()
    # stored names the loader maps onto its model's, "stored>model": a top-level module
    # ("encoder.fc>fc"), a block index ("midlayer>layers.0"), or a decoder layer's fused
    # module stored for one it builds ("self_attn.qkv_proj>self_attn.q_proj"); () for the
    # exact names only. "re:PATTERN>NAME": the loader's own mapper renames whole stored names
    # by pattern, in order (re.sub; NAME is the runtime's name, its model under "model."; an
    # empty NAME: the mapper skips the name); "re1:PATTERN>NAME": the first whose PATTERN
    # matches the whole name renames it, and a name none matches is skipped
    name_maps: tuple[str, ...] = ()
    # the releases it covers, read from the releases' own tags (not a rule): clauses
    # ">=A", "<B", "<=B", "==A" joined by commas; "main" for a branch with no release
    releases: str = ""
    # --- issue 25, task B: silent replacements (DSC670) ---
    # what a true tie_word_embeddings does to the drafter's lm_head
    tied_head: TiedHead = ""
    # --- issue 31: classic EAGLE (EAGLE-1) ---
    # the model builds an lm_head module (False: a shipped lm_head names no parameter)
    builds_lm_head: bool = True
    # decoder layer 0 builds its input_layernorm (False: EAGLE-1's first layer has none)
    first_input_norm: bool = True
    # the input width of decoder layer 0's q/k/v (EAGLE-3's: 2 * hidden_size)
    first_qkv_input: FirstQkvInput = "hidden_size"
    # fc is built with a bias (a checkpoint must give fc.bias)
    fc_bias: bool = False
    # the architectures whose decoder layers build q/k/v with a bias (Qwen2's attention)
    qkv_bias_architectures: tuple[str, ...] = ()
    # the architectures whose decoder layer is DeepSeek MLA attention with a dense MLP
    # (q_a_proj / kv_a_proj_with_mqa fused at load, kv_b_proj, ...): their draft_vocab_size
    # is read with a default (no AttributeError)
    mla_architectures: tuple[str, ...] = ()
    # their class builds one decoder layer and needs q_lora_rank: num_hidden_layers != 1 or a
    # null q_lora_rank is a ValueError when the drafter is built
    mla_one_layer: bool = False
    # --- issue 31: a variant architecture's own model (profiles/variants.py) ---
    # modules it builds beyond its family's: "PATH[|STORED...][:TENSOR,...][?[~]KEY]", PATH
    # top-level ("X.#": one per target hidden state) or "layers.*.X" in each decoder layer
    # (STORED: other names the loader maps onto it), TENSORs its exact names (default weight),
    # built where config KEY is truthy (~KEY: unless KEY is set false; !KEY: unless it is true;
    # A|B: where either builds it)
    extra_modules: tuple[str, ...] = ()
    # its decoder layer's modules where they are not its family's (extra_modules' syntax,
    # without "layers.*."; shapes not judged); () for the family's layer
    layer_modules: tuple[str, ...] = ()
    # dotted config keys the build reads with no default: missing or null fails it
    # ("truthy:KEY": a false value fails it too; "every:KEY=V": a list, each entry V;
    # "null:KEY": asserted None, a missing key failing too; "empty:KEY": a list asserted
    # empty, not judged where absent or null; "KEY?COND": read only where COND is truthy)
    required_keys: tuple[str, ...] = ()
    # stored tensor names whose absence fails the load (after the loader's renames)
    required_tensors: tuple[str, ...] = ()
    # the build refuses a draft vocab other than the target's (Vd != Vt)
    vocab_equal_target: bool = False
    # its decoder layer where it is none of the family's templates ("": the family's)
    decoder_layer: DecoderLayer = ""
    # its own top-level modules in place of fc / norm / hidden_norm (extra_modules' syntax)
    top_modules: tuple[str, ...] = ()
    # vLLM's weight tracking (a load_weights that returns the names it loaded, an unquantised
    # drafter): the modules (a path's end) with no quant method, checked after the load: one
    # missing is refused ('Following weights were not initialized from checkpoint'); a module
    # with one (linear layers, embeddings, heads, fused experts) counts as loaded: uninitialised
    checked_after_load: tuple[str, ...] = ()
    # the name prefixes the loader reads (removed; any other name skipped), and its renames
    read_prefixes: tuple[str, ...] = ()
    renames: tuple[str, ...] = ()  # "old>new" in every read name ("old>": the name skipped)
    config_view: ConfigView = ""  # the config the model is built from, normalised by the runtime
    # not a rule: the architecture group of a variant's own line ("" for a family's own)
    variant: str = ""

    def __post_init__(self) -> None:
        _check(self, PROFILE_CHOICES, f"profile {self.name!r}")
        model = self.sources[0].split(" ")[0] if self.sources else "its model"
        for key, default in FIELDS_31.items():  # a family's own loader: no variant's parts
            if not self.variant and getattr(self, key) == default:
                self.cites.setdefault(key, f"{model} (not read by this loader)")
        if self.first_qkv_input == "hidden_size":  # EAGLE-3's loaders cite their 2H
            self.cites.setdefault("first_qkv_input", f"{model} (q/k/v over hidden_size)")
        if self.hidden_states is not None and not isinstance(self.hidden_states, HiddenStates):
            raise TypeError(f"profile {self.name!r}: hidden_states is not a HiddenStates")

    def __repr__(self) -> str:
        return f"Profile({self.name!r}: {self.release}, {self.family})"

    @property
    def line(self) -> str:
        """The runtime and family (or variant) whose releases this entry is one of
        (``vllm-dspark``, ``vllm-xpress``)."""
        return f"{runtime_key(self.runtime)}-{self.variant or self.family}"

    @property
    def qualified_name(self) -> str:
        """The release-qualified name, ``LINE@FIRST`` (``vllm-dspark@0.30.0``): the
        runtime and family, and the first release this entry covers."""
        return f"{self.line}@{first_release(self.releases)}"

    def derive(
        self,
        *,
        name: str,
        release: str,
        releases: str,
        sources: tuple[str, ...],
        cites: dict[str, str] | None = None,
        variant: str | None = None,
        **changed: object,
    ) -> "Profile":
        """The next release of this loader: this profile with the rule fields in
        ``changed`` (and ``hidden_states``, cited in its own sources) set anew. Every rule
        field whose value changes needs a new cite in ``cites`` (else a ``ValueError``
        naming the profile and the field, at import); a field left out keeps this
        profile's value and cite. A new cite of an unchanged field (the same code on
        other lines) is allowed."""
        cites = dict(cites or {})
        what = f"profile {name!r} (derived from {self.name!r})"
        for key in [*changed, *cites]:
            if key not in RULE_FIELDS and not (key == "hidden_states" and key not in cites):
                raise ValueError(f"{what}: {key} is not a rule field")
        for key, value in changed.items():
            new_cite = cites.get(key)
            if key == "hidden_states" or value == getattr(self, key):
                continue
            if new_cite is None or new_cite == self.cites.get(key):
                raise ValueError(
                    f"{what}: {key} changes from {getattr(self, key)!r} to {value!r} "
                    "without a new cite"
                )
        kept = {k: getattr(self, k) for k in (*RULE_FIELDS, "hidden_states")}
        return Profile(
            name=name,
            runtime=self.runtime,
            family=self.family,
            release=release,
            sources=sources,
            cites={**self.cites, **cites},
            releases=releases,
            variant=self.variant if variant is None else variant,
            **{**kept, **changed},
        )

    def reduced(self, vd: int, vt: int, v: int | None = None) -> bool:
        other = v if self.reduced_against == "vocab_size" and v is not None else vt
        return vd < other if self.reduced_when == LT else vd != other

    @property
    def rules(self) -> dict:
        """The rule fields and their values (everything but the profile's identity)."""
        return {name: getattr(self, name) for name in RULE_FIELDS}


# the allowed values of each Literal-typed field, read once from the field types
HIDDEN_STATES_CHOICES = _literal_fields(HiddenStates)
PROFILE_CHOICES = _literal_fields(Profile)
RULE_FIELDS = tuple(f.name for f in fields(Profile) if f.name not in ABOUT)
# issue 31's fields, with their defaults (what a family's own loader has)
ISSUE_31 = ("extra_modules", "layer_modules", "required_keys", "required_tensors")
ISSUE_31 += ("decoder_layer", "top_modules", "checked_after_load", "read_prefixes", "renames")
ISSUE_31 += ("config_view",)
FIELDS_31 = {
    f.name: f.default for f in fields(Profile) if f.name in (*ISSUE_31, "vocab_equal_target")
}
# the fields issue 18 added for vLLM 0.33.0 and TensorRT-LLM (a runtime that decides none
# of them cites them as not judged)
FIELDS_18 = (
    "aux_default_layers",
    "trained_aux_ids",
    "aux_layer_keys_by_class",
    "missing_tensors",
    "own_lm_head_keys",
    "mask_token_null_read",
    "mask_hidden",
    "fc_norm_keys",
    "target_hidden_size_null",
    "markov_head_type",
    "confidence_head_shape",
    "markov_embeds_target_ids",
    "unmapped_logits_vocab_wide",
    "speculators_types",
    "speculators_required",
    "speculators_layer_types",
    "speculators_copied",
    "omni_dspark_checks",
    "served_architectures",
    "unserved_architecture",
    "architecture_rename",
    "draft_topk_range",
    # issue 25's loader-model fields, decided for vLLM alone likewise
    "unexpected_ignored_suffixes",
    "dropped_unbuilt",
    "name_maps",
    # issue 31's classic EAGLE fields: every other family's loader builds these as the default
    "builds_lm_head",
    "first_input_norm",
    "fc_bias",
    "qkv_bias_architectures",
    "mla_architectures",
    "mla_one_layer",
    # SGLang issue #39087: how fc is built on a quantised drafter (SGLang's cites their own)
    "quantised_fc",
)
