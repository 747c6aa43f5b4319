"""What the runtime's model builds from the drafter's config and needs from its checkpoint:
the tensors its load never checks, the aux layers its runner feeds, the config keys its
model reads and how (a present null, a translated speculators config, a head type it
ignores), and the architectures its loader serves.

Each function is one finding code (``registry.py``); its docstring is the code's
explanation. They read only the gathered ``Facts``, parameterised by a ``Profile``; the
config a runtime's model reads is ``view.model_config``. A drafter that loads but drafts
garbage (uninitialised memory, other layers than it was trained on) is an error here:
the runtime says nothing, and this gate is the only place it is caught.
"""

from __future__ import annotations

from dspark_ckpt.errors import few
from dspark_ckpt.facts.gather import Facts
from dspark_ckpt.facts.vocab import LM_HEAD
from dspark_ckpt.loader.model import Missing, loader_model
from dspark_ckpt.loader.names import under
from dspark_ckpt.loader.parts import Module
from dspark_ckpt.loader.view import (
    architecture,
    aux_count,
    dotted,
    fc_input,
    get,
    model_config,
    present,
    speculators_kind,
    translated,
    truthy,
)
from dspark_ckpt.profiles.hidden_states import HiddenStates, hidden_states
from dspark_ckpt.profiles.registry import DFLASH, DSPARK, EAGLE1, EAGLE3, Profile
from dspark_ckpt.rules.aux_default import pin_key, serving_default, serving_pin
from dspark_ckpt.rules.findings import ERROR, Finding, new_finding
from dspark_ckpt.rules.registry import PROFILE, TARGET, rule
from dspark_ckpt.rules.repairs import ASKS, SAFE, DelKey, Fix, Needs, fix_command, repair
from dspark_ckpt.rules.target import (
    aux_ids,
    aux_ids_outside_target,
    for_target,
    null_is_hidden_size,
    uses_aux,
)
from dspark_ckpt.rules.vocab import reduced

# --- the aux hidden states the runner feeds --------------------------------------------


def _fed(f: Facts, p: Profile, hs: HiddenStates) -> tuple[list[int], str] | None:
    """The capture ids the runner feeds (sorted, deduplicated, those the target produces)
    and where they came from: the config's ids in the runner's key order, else its
    default from the target's depth. None where it cannot be said."""
    n = f.layers
    top = None if n is None else (n if hs.captures == "0..N" else n - 1)
    found = aux_ids(f, hs)
    if found is not None:
        ids, key, shift = found
        points = {i + shift for i in ids}
        what = f"{key} {ids}" + (" + 1" if shift else "")
    elif p.aux_default_layers == "2,N//2,N-3" and n is not None:
        points = {2, n // 2, n - 3}
        what = f"the runner's default (2, N // 2, N - 3) for this {n}-layer target"
    elif p.aux_default_layers == "1,N//2-1,N-4" and n is not None and serving_default(n):
        points = {i + 1 for i in serving_default(n)}  # the outputs of those layers
        what = (
            f"its default, the outputs of layers (1, N // 2 - 1, N - 4), for this {n}-layer "
            "target (it reads no aux layer ids from the drafter)"
        )
    else:
        return None
    if top is not None:
        points = {c for c in points if 0 <= c <= top}
    return sorted(points), what


@repair("pin-aux-layer-ids", ASKS)
def pin_aux_ids(f: Facts, p: Profile | None, finding: Finding) -> Needs | None:
    """The aux layer ids the drafter was trained on are written where the runtime reads them
    and its model counts them for fc: never guessed, ``fix --set KEY=VALUE`` gives them (the
    plan then checks them against fc and the target)."""
    hs = hidden_states(p) if p is not None else None
    if hs is None or not hs.aux_ids:
        return None
    return Needs(pin_key(f, p, hs)[0], "the layer ids the drafter was trained with")


@rule(
    "DSC650",
    ERROR,
    "runner feeds another number of aux hidden states than fc takes",
    scope=TARGET,
    hint=(
        "write the aux layer ids the drafter was trained on where the runtime reads them "
        "(vLLM: top-level eagle_aux_hidden_state_layer_ids, or target_layer_ids for DFlash/DSpark)"
    ),
    repair=pin_aux_ids,
)
def aux_states_fed_differ(f: Facts, p: Profile, hs: HiddenStates) -> list[Finding]:
    """vLLM's model runner (Model Runner V2) feeds the target states at the aux layer ids it
    reads from the config (top-level eagle_aux_hidden_state_layer_ids, dflash_config /
    top-level target_layer_ids + 1, ...), and without any the target's default (2, N // 2,
    N - 3), deduplicated. The drafter's model sizes fc on its own: EAGLE-3 from
    num_aux_hidden_states or eagle_config's ids (else 3), DFlash/DSpark from the runner's id
    list, else its own num_hidden_layers. When the two counts differ the concatenated states
    do not fit fc: a shape error at the first forward (DFlash raises in
    combine_hidden_states)."""
    if not p.aux_default_layers or not uses_aux(f, p):
        return []
    if aux_ids_outside_target(f, p, hs):  # DSC703 says why fewer states arrive
        return []
    fed, built = _fed(f, p, hs), aux_count(f, p)
    if fed is None or built is None or len(fed[0]) == built[0]:
        return []
    points, what = fed
    n, source = built
    return [
        new_finding(
            "DSC650",
            f"{p.runtime}'s runner feeds {len(points)} target hidden states ({what}: the "
            f"states entering layers {points}) but {p.name} builds fc for {n} ({source}): "
            "the concatenated states do not fit fc, a shape error at the first forward",
            tensor="fc.weight",
        )
    ]


def _unread_trained(f: Facts, p: Profile, hs: HiddenStates) -> tuple | None:
    """DSC651's case: the trained ids the config names under a key the runner does not
    read, when they are other layers than it feeds (as many: another count is DSC650's):
    ``(key, ids, trained capture points, what is fed, fed points)``; else None."""
    fed = _fed(f, p, hs)
    if fed is None or aux_ids_outside_target(f, p, hs):
        return None
    points, what = fed
    read = aux_ids(f, hs)
    cfg = model_config(f, p)
    for key, shift in p.trained_aux_ids:
        ids = dotted(cfg, key)
        if not (isinstance(ids, list) and ids and all(type(i) is int for i in ids)):
            continue
        if read is not None and read[1] == key:
            continue
        trained = sorted({i + shift for i in ids})
        if trained == points or len(trained) != len(points):  # another count: DSC650
            continue
        return key, ids, trained, what, points
    return None


def _pin_trained(
    f: Facts, p: Profile, hs: HiddenStates, trained: list[int]
) -> tuple[str, str] | None:
    """Where to write the trained capture points so that the runner feeds them (the key
    ``pin_key`` chooses), and the value to write there, as ``--set`` takes it; None where the
    runner reads no drafter key."""
    pin = pin_key(f, p, hs)
    if pin is None:
        return None
    key, shift = pin
    return key, "[" + ",".join(str(c - shift) for c in trained) + "]"


@repair("pin-trained-aux-ids", ASKS)
def pin_trained_aux_ids(f: Facts, p: Profile | None, finding: Finding) -> Needs | None:
    """The trained aux layer ids are written where the runtime reads them: ``fix --set
    KEY=VALUE``, with the ids the config names under the key the runner does not read (the
    hint gives the command). Asked, not done: which of the config's two answers is the
    trained one is the producer's to say (the plan then checks them against the target)."""
    hs = for_target(f, hidden_states(p)) if p is not None else None
    found = _unread_trained(f, p, hs) if hs is not None else None
    pin = _pin_trained(f, p, hs, found[2]) if found is not None else None
    if pin is None:
        return None
    key, value = pin
    return Needs(
        key, f"the layer ids the drafter was trained with ({found[0]} says {found[1]})", value
    )


@rule(
    "DSC651",
    ERROR,
    "runner feeds other target layers than the drafter was trained on",
    scope=TARGET,
    hint="write the layers the drafter was trained on where the runtime reads them",
    repair=pin_trained_aux_ids,
)
def aux_layers_not_trained(f: Facts, p: Profile, hs: HiddenStates) -> list[Finding]:
    """The config names the target layers the drafter was trained on under a key the runner
    does not read: vLLM's Model Runner V2 never reads eagle_config.eagle_aux_hidden_state_layer_ids
    (SpecForge writes it for SGLang, which captures the state entering layer id + 1), so it
    feeds the layers of its other keys or its default (2, N // 2, N - 3). The drafter then
    runs on other layers than it was trained on: no error, garbage proposals."""
    found = _unread_trained(f, p, hs) if uses_aux(f, p) else None
    if found is None:
        return []
    key, ids, trained, what, points = found
    pin = _pin_trained(f, p, hs, trained)
    if pin is None:  # no drafter key is read: the serving config pins them
        hint = f"{p.runtime} reads no drafter key for them: serve with {serving_pin(trained)}"
    else:
        hint = f"write the trained ids where {p.runtime} reads them (top-level {pin[0]}): "
        hint += fix_command(key=pin[0], value=pin[1])
    return [
        new_finding(
            "DSC651",
            f"the config says the drafter was trained on {key} {ids} (the states "
            f"entering layers {trained}), which {p.runtime}'s runner does not read: it "
            f"feeds {what}, the states entering layers {points}. Other layers than "
            "trained, no error: the proposals are garbage",
            tensor=key,
            hint=hint,
        )
    ]


# --- the tensors the model has (the loader model) -----------------------------------------


@rule(
    "DSC652",
    ERROR,
    "tensor the runtime's model needs is missing",
    scope=PROFILE,
    hint="ship every tensor of the drafter (re-export it with its trainer's save code)",
)
def tensors_missing(f: Facts, p: Profile) -> list[Finding]:
    """The runtime's model has this parameter and the checkpoint does not. vLLM's Qwen3 DSpark,
    DFlash and EAGLE-3 load_weights return no set of loaded names, so its loader never checks
    for weights left uninitialised: fc, a layer or a Markov head that is not shipped stays as
    allocated (torch.empty: whatever the memory held; a norm at ones), and the drafter proposes
    garbage with no error. SGLang's loaders load the names they are given and check nothing
    after: such a weight keeps its initial value (random for linear and embedding weights, ones
    for norms), the same garbage. TensorRT-LLM's Qwen3 DSpark loads with
    load_state_dict(strict=True): a missing name fails the load ('Missing key(s) in
    state_dict'). TensorRT-LLM's DFlash loads the backbone with allow_partial_loading (a
    missing weight keeps its allocation, the same garbage) but builds fc and hidden_norm only
    from shipped tensors: without them its first forward raises AttributeError. vLLM's MiniCPM,
    Cohere and Mistral classic EAGLE and its K3 and Muse Spark DSpark drafters return the
    names they loaded, and vLLM's loader then refuses an unquantised drafter whose load left a
    norm (or other module with no quant method) unfilled ('Following weights were not
    initialized from checkpoint'), while a module with a quant method (linear layers,
    embeddings, heads, fused experts) counts as loaded and stays uninitialised, and a
    quantised drafter turns the check off; SGLang's M3.1
    DSpark drafter checks every parameter itself ('Missing DSpark checkpoint tensors'),
    reading only the names under dspark. (any other name is skipped, and named here). On a
    quantised drafter a linear built with the quantization config is backed by its quantised
    tensors (weight_packed, weight_scale, qweight, ...), but an fc SGLang's DFlash, DSpark,
    EAGLE-3 and classic EAGLE models build as a plain nn.Linear is backed by fc.weight alone:
    a quantised fc's tensors are skipped and fc keeps its initial values (SGLang issue
    #39087)."""
    model = loader_model(f, p)
    if model is None or not model.complete or p.family not in (DSPARK, DFLASH, EAGLE3, EAGLE1):
        return []
    missing = model.missing(f)
    if not missing.total:
        return []
    if p.missing_tensors == "default_init":
        how = (
            "loads what it is given and checks nothing after, so they keep their initial "
            "values (random for linear and embedding weights, ones for norms): the drafter "
            "loads and drafts garbage, with no error"
        )
        what = "weight(s) the drafter model builds are not in the checkpoint"
    elif p.missing_tensors == "partial_fc_required" and (
        unbuilt := [m for m in missing.shown if m in ("fc", "hidden_norm")]
    ):
        how = (
            f"builds {' and '.join(unbuilt)} only from the shipped tensor, so the model has "
            f"no {unbuilt[0]}: the first forward raises AttributeError (project_target_hidden "
            "reads self.fc and self.hidden_norm). Refused at its first forward, not run"
        )
        what = f"module(s) of {p.name}'s model have no tensor in the checkpoint"
    elif p.missing_tensors == "refused":
        how = (
            "checks after the load that it filled every parameter, and raises for them: the "
            "drafter does not load"
        )
        what = f"weight(s) of {p.name}'s model are not in the checkpoint"
        skipped = model.outside()
        if skipped:
            how += (
                f" ({len(skipped)} stored name(s) it skips unread, under none of "
                f"{', '.join(p.read_prefixes)}: {few(skipped, 3)})"
            )
    elif p.missing_tensors == "strict":
        how = (
            "loads with load_state_dict(strict=True), which raises 'Missing key(s) in "
            "state_dict' for them"
        )
        what = f"module(s) of {p.name}'s model have no tensor in the checkpoint"
    elif p.checked_after_load and f.cfg.quantized:
        how = (
            "turns its loaded-weights check off for a quantised drafter: they stay as allocated (uninitialised memory) and the drafter proposes garbage, "
            "no error"
        )
        what = f"module(s) of {p.name}'s model have no tensor in the checkpoint"
    elif p.checked_after_load and (checked := model.missing(f, p.checked_after_load)).total:
        how = (
            f"checks after the load that it filled {listed(checked)} (with no quant "
            "method) and raises 'Following weights were not initialized from checkpoint': the "
            "drafter does not load"
        )
        what = f"module(s) of {p.name}'s model have no tensor in the checkpoint"
    elif p.checked_after_load:
        how = (
            "checks after the load only the modules with no quant method (norms): these have "
            "one (a linear layer, an embedding, a head, FusedMoE experts), which counts them as "
            "loaded, so they stay as allocated (uninitialised memory) and the drafter proposes "
            "garbage, no error"
        )
        what = f"module(s) of {p.name}'s model have no tensor in the checkpoint"
    else:
        how = (
            "never checks for weights its load_weights did not fill: they stay as "
            "allocated (uninitialised memory; a norm at ones) and the drafter proposes "
            "garbage, no error"
        )
        what = f"module(s) of {p.name}'s model have no tensor in the checkpoint"
    shown = listed(missing)
    whole = [(b, lo, hi) for b, lo, hi in missing.whole if hi > lo]
    if whole and missing.total > len(missing.shown):  # the whole ranges, where cut short
        ranges = ", ".join(f"{b}.{lo}-{hi}" for b, lo, hi in whole[:3])
        shown += f"; no tensor at all for {ranges}" + (" ..." if len(whole) > 3 else "")
    return [
        new_finding(
            "DSC652",
            f"{missing.total} {what} ({shown}): {p.runtime} {how}",
            tensor=missing.shown[0],
        )
    ]


def listed(missing: Missing) -> str:
    """The first missing modules and how many more."""
    more = missing.total - len(missing.shown)
    return ", ".join(missing.shown) + (f" and {more} more" if more > 0 else "")


@rule(
    "DSC653",
    ERROR,
    "own lm_head declared but not shipped: uninitialised head",
    scope=PROFILE,
    hint="ship lm_head.weight [Vd, H], or drop has_own_lm_head so the target's head is shared",
)
def own_lm_head_missing(f: Facts, p: Profile) -> list[Finding]:
    """The config sets has_own_lm_head: vLLM's DFlash loader then never shares the target's head,
    and a checkpoint without lm_head runs on the head as allocated (uninitialised memory): zero
    acceptance, no error."""
    if f.lm_head is not None:
        return []
    cfg = model_config(f, p)
    key = next((k for k in p.own_lm_head_keys if truthy(get(cfg, k, False))), None)
    if key is None:
        return []
    return [
        new_finding(
            "DSC653",
            f"{key} is true, so {p.name} keeps the drafter's own [{f.Vd}, H] head instead of "
            "the target's, and the checkpoint has no lm_head: the head stays uninitialised "
            "memory (acceptance rate zero, no error)",
            tensor=LM_HEAD,
        )
    ]


@repair("drop-null-mask-key", SAFE)
def drop_null_mask_key(f: Facts, p: Profile | None, finding: Finding) -> Fix | Needs | None:
    """A null mask-token key that shadows the real one is removed, so the runtime reads the
    id the config declares further on; where none is declared, the id is asked for
    (``--set``): the drafter's own training choice."""
    key = finding.tensor
    if not key or p is None:
        return None
    if dict(f.cfg.mask_tokens):  # an id is declared elsewhere in the config
        return Fix((DelKey(key),), f"remove the null {key} (the id is declared elsewhere)")
    return Needs(key, "the mask token id the drafter was trained with")


@rule(
    "DSC654",
    ERROR,
    "mask token id present but null",
    scope=PROFILE,
    hint="write the mask token id the drafter was trained with, or remove the null key",
    repair=drop_null_mask_key,
)
def mask_token_null(f: Facts, p: Profile) -> list[Finding]:
    """vLLM reads the mask (noise) token from dflash_config.mask_token_id, mask_token_id,
    dspark_noise_token_id, pard_token, ptd_token_id, and a key that is present wins even when
    it is null (only a top-level null mask_token_id falls through): int(None), a TypeError when
    the speculator starts. TensorRT-LLM's Qwen3 DSpark reads a top-level null mask_token_id the
    same way."""
    if not p.mask_token_null_read:
        return []
    cfg = model_config(f, p)
    for key in p.mask_token_keys:
        if not present(cfg, key):
            continue
        if dotted(cfg, key) is not None:
            return []
        if key in p.mask_token_null_read:
            return [
                new_finding(
                    "DSC654",
                    f"{key} is null: {p.runtime} reads it because it is present (the keys "
                    f"before it are not), int(None) raises a TypeError when the drafter starts",
                    tensor=key,
                )
            ]
    return []


def _mask_hidden(f: Facts) -> str | None:
    if "mask_hidden" not in f.memo:  # vLLM: `"mask_hidden" in name`, anywhere in it
        found = (n for n in f.tensors if "mask_hidden" in n)
        f.memo["mask_hidden"] = min(found, default=None)
    return f.memo["mask_hidden"]


@rule(
    "DSC655",
    ERROR,
    "mask_hidden where the loader refuses it, or missing where it needs it",
    scope=PROFILE,
    hint="ship mask_hidden [1, n_aux * Ht] for parallel drafting; drop it for DFlash/DSpark",
)
def mask_hidden_load(f: Facts, p: Profile) -> list[Finding]:
    """mask_hidden is P-EAGLE's learned input for parallel-drafting slots. vLLM's EAGLE-3 model
    requires it when parallel drafting is on (a speculators peagle config turns it on: 'mask_hidden
    not found in weights') and copies it into a [1, n_aux * Ht] buffer (another size fails), and
    skips it with a warning otherwise; vLLM's DFlash loader asserts no
    name contains mask_hidden, and its Qwen3 DSpark model has no parameter of that name."""
    name = _mask_hidden(f)
    if p.mask_hidden == "parallel_drafting":
        parallel = translated(f, p) and speculators_kind(f) == "peagle"
        if not parallel:
            return []
        if name is not None:  # copied into a [1, n_aux * Ht] buffer (llama_eagle3.py:350-354,440)
            info, built = f.tensors[name], fc_input(f, p)
            size = 1
            for d in info.shape:
                size *= d
            if built is None or size == built[3]:
                return []
            msg = (
                f"{name} is {list(info.shape)}; {p.name} copies it into a [1, {built[3]}] buffer "
                f"(n_aux {built[0]} x {built[2]}): a shape error at load"
            )
            return [new_finding("DSC655", msg, info)]
        msg = (
            "this speculators peagle config turns on parallel drafting, and the checkpoint has "
            f"no mask_hidden: {p.name} raises 'mask_hidden not found in weights but model is "
            "configured for parallel drafting' at load"
        )
        return [new_finding("DSC655", msg, tensor="mask_hidden")]
    if name is None or p.mask_hidden not in ("refused", "no_parameter"):
        return []
    how = (
        "asserts that no name contains mask_hidden ('DFlash embeds masked slots via "
        "mask_token_id'): an AssertionError at load"
        if p.mask_hidden == "refused"
        else "has no parameter of that name: 'There is no module or parameter named' at load"
    )
    return [new_finding("DSC655", f"{name}: {p.name} {how}", f.tensors[name])]


@rule(
    "DSC656",
    ERROR,
    "fc_norm tensors without fc_norm in the config",
    scope=PROFILE,
    hint='set "fc_norm": true in config.json if the drafter was trained with it, else drop them',
)
def fc_norm_unbuilt(f: Facts, p: Profile) -> list[Finding]:
    """vLLM's EAGLE-3 model builds fc_norm (one RMSNorm per aux state) only when the config sets
    fc_norm: without it a checkpoint's fc_norm.* tensors have no parameter ('There is no module or
    parameter named ...'), a load error."""
    if not p.fc_norm_keys:
        return []
    cfg = model_config(f, p)
    if any(truthy(get(cfg, k, False)) for k in p.fc_norm_keys):
        return []
    names = under(f.stored_sorted, "fc_norm")
    if not names:
        return []
    return [
        new_finding(
            "DSC656",
            f"{len(names)} fc_norm tensor(s) ({few(names, 3)}) but the config does not set "
            f"{p.fc_norm_keys[0]}: {p.name} builds no fc_norm, and its loader raises 'There is "
            "no module or parameter named ...'",
            tensor=names[0],
        )
    ]


@rule(
    "DSC657",
    ERROR,
    "target_hidden_size is null",
    scope=PROFILE,
    hint="write target_hidden_size as the target's hidden_size, or remove the key",
)
def target_hidden_size_null(f: Facts, p: Profile) -> list[Finding]:
    """vLLM's, SGLang's and TensorRT-LLM's EAGLE-3 models read target_hidden_size as present
    (getattr with a default, hasattr): an explicit null is None, and fc's width None * n_aux is a
    TypeError when the drafter is built, where the model builds fc (vLLM's builds none without
    aux hidden states, SGLang's always). SGLang's EAGLE-3 over DeepSeek MLA reads it with `or
    hidden_size`, as DFlash and DSpark do: a null falls back. (vLLM's speculators translation
    copies it only when not null.)"""
    if null_is_hidden_size(f, p):
        return []
    cfg = model_config(f, p)
    if not present(cfg, "target_hidden_size") or cfg["target_hidden_size"] is not None:
        return []
    model = loader_model(f, p)
    if model is not None and not any(isinstance(m, Module) and m.path == "fc" for m in model.parts):
        return []  # no fc built: nothing multiplies the null
    return [
        new_finding(
            "DSC657",
            f"target_hidden_size is null: {p.name} reads it as given (not hidden_size) and "
            "builds fc as None * n_aux wide, a TypeError when the drafter is built",
            tensor="target_hidden_size",
        )
    ]


@rule(
    "DSC689",
    ERROR,
    "EAGLE-3 over DeepSeek MLA: more than one layer, or no q_lora_rank",
    scope=PROFILE,
    hint="export the MLA drafter with num_hidden_layers 1 and its q_lora_rank",
)
def mla_one_layer(f: Facts, p: Profile) -> list[Finding]:
    """SGLang's EAGLE-3 over DeepSeek MLA (Eagle3DeepseekV2ForCausalLM, kimi_k25_eagle3.py)
    builds exactly one decoder layer whose q/kv down-projection is fused over q_lora_rank: a
    config with num_hidden_layers other than 1 ('EAGLE3 currently only supports 1 layer') or a
    null q_lora_rank ('Eagle3 MLA layer requires q_lora_rank') fails to build the drafter with a
    ValueError. (vLLM's deepseek_eagle3.py builds every layer, and q_proj without q_lora_rank.)"""
    if not p.mla_one_layer or architecture(f, p) not in p.mla_architectures:
        return []
    layers = f.raw.get("num_hidden_layers")
    why = []
    if type(layers) is int and layers != 1:
        why.append(f"num_hidden_layers is {layers} ('EAGLE3 currently only supports 1 layer')")
    if "q_lora_rank" in f.raw and f.raw["q_lora_rank"] is None:
        why.append("q_lora_rank is null ('Eagle3 MLA layer requires q_lora_rank')")
    return (
        [
            new_finding(
                "DSC689",
                f"{p.release} builds {architecture(f, p)} with one MLA layer over q_lora_rank: "
                f"{' and '.join(why)}, a ValueError when the drafter is built",
                tensor="num_hidden_layers"
                if type(layers) is int and layers != 1
                else "q_lora_rank",
            )
        ]
        if why
        else []
    )


@rule(
    "DSC661",
    ERROR,
    "draft logits narrower than vocab_size without a d2t",
    scope=PROFILE,
    hint="export the drafter with vocab_size equal to draft_vocab_size (the target's vocab)",
)
def unmapped_logits_narrow(f: Facts, p: Profile) -> list[Finding]:
    """vLLM's EAGLE-3 has no draft_id_to_target_id parameter when Vd == Vt, and then asserts the
    draft logits are vocab_size wide: V > Vd == Vt is an AssertionError at the first draft step
    (Vd > V is DSC603)."""
    if not p.unmapped_logits_vocab_wide or reduced(f, p) or f.Vd >= f.V:
        return []
    return [
        new_finding(
            "DSC661",
            f"vocab_size {f.V} > draft_vocab_size {f.Vd} = the target's vocab: {p.name} creates "
            f"no d2t parameter here and asserts the draft logits ({f.Vd} wide) are vocab_size "
            f"({f.V}) wide, an AssertionError at the first draft step",
            tensor="vocab_size",
        )
    ]
