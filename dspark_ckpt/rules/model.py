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

from typing import Any

from dspark_ckpt.facts.gather import Facts
from dspark_ckpt.facts.vocab import LM_HEAD
from dspark_ckpt.loader.model import MARKOV_W, loader_model, uses_aux
from dspark_ckpt.loader.view import (
    aux_count,
    dotted,
    fc_input,
    first,
    get,
    layer_model_type,
    model_config,
    present,
    speculators_kind,
    translated,
    truthy,
)
from dspark_ckpt.profiles.hidden_states import HiddenStates
from dspark_ckpt.profiles.registry import DFLASH, DSPARK, EAGLE3, Profile
from dspark_ckpt.rules.findings import ERROR, Finding, new_finding
from dspark_ckpt.rules.registry import PROFILE, TARGET, rule
from dspark_ckpt.rules.repairs import SAFE, DelKey, Fix, Needs, repair
from dspark_ckpt.rules.target import aux_ids, aux_ids_outside_target
from dspark_ckpt.rules.vocab import reduced


def _shown(names: list[str], n: int = 3) -> str:
    return ", ".join(names[:n]) + (f" and {len(names) - n} more" if len(names) > n else "")


def _int(value: Any) -> int | None:
    return value if type(value) is int else None


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
    else:
        return None
    if top is not None:
        points = {c for c in points if 0 <= c <= top}
    return sorted(points), what


@rule(
    "DSC650",
    ERROR,
    "runner feeds another number of aux hidden states than fc takes",
    scope=TARGET,
    hint=(
        "write the aux layer ids the drafter was trained on where the runtime reads them "
        "(vLLM: top-level eagle_aux_hidden_state_layer_ids, or target_layer_ids for DFlash/DSpark)"
    ),
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
    if not p.aux_default_layers:
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


@rule(
    "DSC651",
    ERROR,
    "runner feeds other target layers than the drafter was trained on",
    scope=TARGET,
    hint="write the layers the drafter was trained on where the runtime reads them",
)
def aux_layers_not_trained(f: Facts, p: Profile, hs: HiddenStates) -> list[Finding]:
    """The config names the target layers the drafter was trained on under a key the runner
    does not read: vLLM's Model Runner V2 never reads eagle_config.eagle_aux_hidden_state_layer_ids
    (SpecForge writes it for SGLang, which captures the state entering layer id + 1), so it
    feeds the layers of its other keys or its default (2, N // 2, N - 3). The drafter then
    runs on other layers than it was trained on: no error, garbage proposals."""
    fed = _fed(f, p, hs)
    if fed is None or aux_ids_outside_target(f, p, hs):
        return []
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
        return [
            new_finding(
                "DSC651",
                f"the config says the drafter was trained on {key} {ids} (the states "
                f"entering layers {trained}), which {p.runtime}'s runner does not read: it "
                f"feeds {what}, the states entering layers {points}. Other layers than "
                "trained, no error: the proposals are garbage",
                tensor=key,
                hint=f'set "eagle_aux_hidden_state_layer_ids": {trained} at the top level of '
                f"config.json ({p.runtime} reads it as is)",
            )
        ]
    return []


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
    state_dict')."""
    model = loader_model(f, p)
    if model is None or not model.complete or p.family not in (DSPARK, DFLASH, EAGLE3):
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
    elif p.missing_tensors == "strict":
        how = (
            "loads with load_state_dict(strict=True), which raises 'Missing key(s) in "
            "state_dict' for them"
        )
        what = f"module(s) of {p.name}'s model have no tensor in the checkpoint"
    else:
        how = (
            "never checks for weights its load_weights did not fill: they stay as "
            "allocated (uninitialised memory; a norm at ones) and the drafter proposes "
            "garbage, no error"
        )
        what = f"module(s) of {p.name}'s model have no tensor in the checkpoint"
    shown = ", ".join(missing.shown)
    if missing.total > len(missing.shown):
        shown += f" and {missing.total - len(missing.shown)} more"
    whole = [(b, lo, hi) for b, lo, hi in missing.whole if hi > lo]
    if whole:
        ranges = ", ".join(f"{b}.{lo}-{hi}" for b, lo, hi in whole[:3])
        shown += f"; no tensor at all for {ranges}" + (" ..." if len(whole) > 3 else "")
    return [
        new_finding(
            "DSC652",
            f"{missing.total} {what} ({shown}): {p.runtime} {how}",
            tensor=missing.shown[0],
        )
    ]


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
    return next((n for n in sorted(f.tensors) if "mask_hidden" in n), None)


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
    names = sorted(n for n in f.stored if n.startswith("fc_norm."))
    if not names:
        return []
    return [
        new_finding(
            "DSC656",
            f"{len(names)} fc_norm tensor(s) ({_shown(names)}) but the config does not set "
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
    """vLLM's and TensorRT-LLM's EAGLE-3 models read target_hidden_size as present (getattr with a
    default, hasattr): an explicit null is None, and fc's width None * n_aux is a TypeError when
    the drafter is built. (vLLM's speculators translation copies it only when not null; DFlash and
    DSpark fall back to hidden_size.)"""
    if p.target_hidden_size_null != "type_error":
        return []
    cfg = model_config(f, p)
    if not present(cfg, "target_hidden_size") or cfg["target_hidden_size"] is not None:
        return []
    if p.family == EAGLE3 and not uses_aux(cfg, p.family):
        return []
    return [
        new_finding(
            "DSC657",
            f"target_hidden_size is null: {p.name} reads it as given (not hidden_size) and "
            "builds fc as None * n_aux wide, a TypeError when the drafter is built",
            tensor="target_hidden_size",
        )
    ]


# --- DSpark's heads -------------------------------------------------------------------------


def _markov_type(cfg: dict, raw: dict) -> tuple[str, str] | None:
    """The Markov head type the config names (top level, else nested) and its key."""
    for key in (
        "markov_head_type",
        "dflash_config.markov_head_type",
        "dspark_config.markov_head_type",
    ):
        value = dotted(cfg, key) if "." not in key else dotted(raw, key)
        if value is not None:
            return str(value), key
    return None


@rule(
    "DSC658",
    ERROR,
    "Markov head type the runtime does not build",
    scope=PROFILE,
    hint="serve a vanilla Markov head (markov_w1 / markov_w2) where the runtime builds only that",
)
def markov_head_type_unbuilt(f: Facts, p: Profile) -> list[Finding]:
    """vLLM's Qwen3 DSpark builds the vanilla markov_w1 / markov_w2 head whatever markov_head_type
    says: a gated or RNN head's extra tensors (markov_head.gate_proj.*, joint_proj.*) have no
    parameter and fail the load, and without them the head runs as vanilla, not as trained.
    TensorRT-LLM builds vanilla, gated or rnn as named and raises for any other name."""
    if p.family != DSPARK or not p.markov_head_type:
        return []
    cfg = model_config(f, p)
    named = _markov_type(cfg, f.raw)
    kind = named[0].lower() if named else "vanilla"
    extra = sorted(
        n for n in f.stored if n.startswith("markov_head.") and not n.startswith(MARKOV_W)
    )
    if p.markov_head_type == "built":
        if _int(cfg.get("markov_rank")) in (None, 0) or kind in ("vanilla", "gated", "rnn"):
            return []
        msg = (
            f"markov_head_type {named[0]!r}: {p.runtime} builds vanilla, gated or rnn heads "
            "and raises 'Unsupported markov_head_type' for any other when the drafter is built"
        )
        return [new_finding("DSC658", msg, tensor=named[1])]
    if kind == "vanilla" and not extra:
        return []
    what = (
        f"its {len(extra)} extra tensor(s) ({_shown(extra)}) have no parameter: 'There is no "
        "module or parameter named ...' at load"
        if extra
        else "the head runs as vanilla, not as the head it was trained as: garbage biases, no error"
    )
    where = (
        f"markov_head_type {named[0]!r} ({named[1]})"
        if named and kind != "vanilla"
        else ("a Markov head with more than markov_w1 / markov_w2")
    )
    return [
        new_finding(
            "DSC658",
            f"{where}: {p.name} builds the vanilla markov_w1 / markov_w2 head whatever the "
            f"config says, so {what}",
            tensor=extra[0] if extra else named[1],
        )
    ]


@rule(
    "DSC659",
    ERROR,
    "confidence head of another shape than the config builds",
    scope=PROFILE,
    hint="make confidence_head.proj [1, H (+ markov_rank with confidence_head_with_markov)]",
)
def confidence_head_shape(f: Facts, p: Profile) -> list[Finding]:
    """With a top-level enable_confidence_head the runtime builds confidence_head.proj as a Linear
    of hidden_size inputs (plus markov_rank with confidence_head_with_markov) to 1 output, with a
    bias: a shipped weight or bias of another shape fails the load (vLLM's weight loader asserts
    the sizes; TensorRT-LLM's strict state dict reports a size mismatch)."""
    if not p.confidence_head_shape or p.family != DSPARK:
        return []
    cfg = model_config(f, p)
    h, rank = _int(cfg.get("hidden_size")) or f.cfg.hidden_size, _int(cfg.get("markov_rank"))
    if not truthy(get(cfg, "enable_confidence_head", False)) or h is None:
        return []
    with_markov = truthy(get(cfg, "confidence_head_with_markov", False))
    width = h + ((rank or 0) if with_markov else 0)
    expected = {"confidence_head.proj.weight": (1, width), "confidence_head.proj.bias": (1,)}
    out = []
    for name, shape in expected.items():
        info = f.tensors.get(name)
        if info is not None and tuple(info.shape) != shape:
            out.append(
                new_finding(
                    "DSC659",
                    f"{name} is {list(info.shape)}; {p.name} builds it {list(shape)} from the "
                    f"config (hidden_size {h}"
                    + (f" + markov_rank {rank}" if width != h else "")
                    + "): the load fails on the shape",
                    info,
                )
            )
    return out


@rule(
    "DSC660",
    ERROR,
    "Markov head smaller than the target vocab",
    scope=PROFILE,
    hint="export the drafter with vocab_size (markov_w1 rows) covering every target id (>= Vt)",
)
def markov_overrun(f: Facts, p: Profile) -> list[Finding]:
    """vLLM's DSpark speculator embeds target ids in markov_w1 ([V, r]): the anchor token and each
    sampled id after map_draft_to_target. With V < Vt the first target id in [V, Vt) indexes past
    markov_w1: an index error (a device-side assert on GPU) at draft time."""
    if not p.markov_embeds_target_ids or p.family != DSPARK or f.Vt <= f.V:
        return []
    return [
        new_finding(
            "DSC660",
            f"vocab_size {f.V} < the target's {f.Vt}: {p.runtime} embeds every anchor and "
            f"sampled target id in markov_w1 ({f.V} rows), and the first id in [{f.V}, "
            f"{f.Vt}) is an index error at draft time",
            tensor="markov_head.markov_w1.weight",
        )
    ]


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


# --- what the runtime reads the config as ---------------------------------------------------


@rule(
    "DSC662",
    ERROR,
    "speculators config the runtime's translation refuses",
    scope=PROFILE,
    hint="write the speculators config with the keys its algorithm needs",
)
def speculators_translation(f: Facts, p: Profile) -> list[Finding]:
    """vLLM translates a speculators-format config (speculators_config, no model_type) into its own
    config: an unknown speculators_model_type is a ValueError; eagle3/peagle need
    transformer_layer_config.model_type llama or qwen3 (a ValueError); peagle needs mask_token_id,
    dflash needs aux_hidden_state_layer_ids and mask_token_id, dspark aux_hidden_state_layer_ids (a
    KeyError). The drafter never builds."""
    if not translated(f, p):
        return []
    kind = speculators_kind(f)
    if kind not in p.speculators_types:
        msg = (
            f"speculators_model_type {kind!r}: {p.runtime} translates "
            f"{', '.join(p.speculators_types)} only and raises a ValueError for it"
        )
        return [new_finding("DSC662", msg, tensor="speculators_model_type")]
    out = []
    for entry in p.speculators_required:
        algo, _, key = entry.partition(":")
        if algo == kind and key not in f.raw:
            out.append(
                new_finding(
                    "DSC662",
                    f"a speculators {kind} config without {key}: {p.runtime}'s translation "
                    f"reads config_dict[{key!r}], a KeyError when the config is loaded",
                    tensor=key,
                )
            )
    allowed = [t.partition(":")[2] for t in p.speculators_layer_types if t.startswith(kind + ":")]
    if allowed and (mt := layer_model_type(f)) not in allowed:
        out.append(
            new_finding(
                "DSC662",
                f"transformer_layer_config.model_type {mt!r}: {p.runtime} builds a speculators "
                f"{kind} drafter only for {' or '.join(allowed)} ('Unsupported model_type', a "
                "ValueError)",
                tensor="transformer_layer_config.model_type",
            )
        )
    return out


def _omni_problems(f: Facts, cfg: dict) -> list[tuple[str, str]]:
    """vLLM's Qwen3-Omni DSpark contract (config/speculative.py:167-377), as (key, why)."""
    model = f.target.model
    out: list[tuple[str, str]] = []
    archs = set(f.cfg.architectures) | set(cfg.get("architectures") or [])
    if "Qwen3OmniDSparkModel" not in archs:
        out.append(("architectures", "must be ['Qwen3OmniDSparkModel']"))
    ht = model.hidden_size if model else None
    if ht is not None:
        for key in ("target_hidden_size", "hidden_size"):
            if cfg.get(key) != ht:
                out.append((key, f"is {cfg.get(key)!r}; must be the thinker's hidden_size {ht}"))
        heads = _int(cfg.get("num_attention_heads"))
        hidden = _int(cfg.get("hidden_size"))
        head_dim = _int(cfg.get("head_dim"))
        if head_dim is None and heads and hidden and hidden % heads == 0:
            head_dim = hidden // heads
        mine = {
            "num_attention_heads": heads,
            "num_key_value_heads": _int(cfg.get("num_key_value_heads")) or heads,
            "head_dim": head_dim,
        }
        for key, value in mine.items():
            want = getattr(model, key)
            if want is not None and value != want:
                out.append((key, f"is {value!r}; must be the thinker's {want}"))
    ids = first(
        cfg, "dflash_config.target_layer_ids", "dspark_target_layer_ids", "target_layer_ids"
    )
    n = model.num_hidden_layers if model else None
    if not isinstance(ids, list) or not ids or not all(type(i) is int for i in ids):
        out.append(("target_layer_ids", "must be a non-empty list of integers"))
    elif ids != sorted(set(ids)):
        out.append(("target_layer_ids", f"{ids} must be unique and strictly increasing"))
    elif n is not None and (ids[0] < 0 or ids[-1] >= n):
        out.append(("target_layer_ids", f"{ids} must lie in [0, {n - 1}]"))
    if (
        first(
            cfg,
            "dflash_config.use_aux_hidden_state",
            "eagle_config.use_aux_hidden_state",
            "use_aux_hidden_state",
        )
        is not True
    ):
        out.append(("use_aux_hidden_state", "must be set to true"))
    rank = _int(cfg.get("markov_rank"))
    if rank is None or rank <= 0:
        out.append(("markov_rank", "must be a positive integer at the top level"))
    if cfg.get("markov_head_type") != "vanilla":
        out.append(("markov_head_type", f"is {cfg.get('markov_head_type')!r}; must be 'vanilla'"))
    if (
        cfg.get("sample_from_anchor", True) is not True
        or cfg.get("dspark_bonus_anchor", False) is not False
    ):
        out.append(("sample_from_anchor", "must be true, with dspark_bonus_anchor false"))
    mask = dotted(cfg, "dflash_config.mask_token_id")
    for key in ("mask_token_id", "dspark_noise_token_id", "pard_token", "ptd_token_id"):
        if mask is None:
            mask = cfg.get(key)
    if type(mask) is not int or not 0 <= mask < f.V:
        out.append(("mask_token_id", f"is {mask!r}; must be an id in [0, {f.V - 1}]"))
    return out


@rule(
    "DSC663",
    ERROR,
    "Qwen3-Omni DSpark contract not met",
    scope=PROFILE,
    hint="convert the drafter to vLLM's Qwen3-Omni DSpark layout (Qwen3OmniDSparkModel)",
)
def omni_dspark_contract(f: Facts, p: Profile) -> list[Finding]:
    """For a Qwen3-Omni target vLLM checks the DSpark drafter's config when it starts: the
    Qwen3OmniDSparkModel architecture, target_hidden_size, hidden_size, heads, KV heads and head_dim
    equal to the thinker's, target_layer_ids non-empty, strictly increasing and in [0, N-1],
    use_aux_hidden_state explicitly true, a positive top-level markov_rank with markov_head_type
    'vanilla', sample_from_anchor true with dspark_bonus_anchor false, and a mask id in [0, V).
    Any other config is a ValueError at start-up (draft_vocab_size <= Vt is DSC106; block_size
    against num_speculative_tokens is a serving setting, not checked here)."""
    if not p.omni_dspark_checks or p.family != DSPARK or not f.target.is_omni:
        return []
    cfg = model_config(f, p)
    return [
        new_finding(
            "DSC663",
            f"{key} {why}: {p.runtime} refuses a DSpark drafter for a Qwen3-Omni target "
            "otherwise (a ValueError at start-up)",
            tensor=key,
        )
        for key, why in _omni_problems(f, cfg)
    ]


def _served(entry: str, archs: list[str], model_type: str | None) -> bool:
    arch, _, needs = entry.partition("@")
    return arch in archs and (not needs or model_type == needs)


@rule(
    "DSC664",
    ERROR,
    "architecture the runtime serves with another drafter",
    scope=PROFILE,
    hint=(
        "name the architecture the runtime serves this drafter with (vLLM Qwen3 DSpark: "
        "Qwen3DSparkModel, or DSparkDraftModel with model_type qwen3)"
    ),
)
def architecture_not_served(f: Facts, p: Profile) -> list[Finding]:
    """vLLM serves a DSpark drafter with its Qwen3 DSpark model only for the architectures
    Qwen3DSparkModel and Qwen3OmniDSparkModel, and for SpecForge's DSparkDraftModel when its
    model_type is qwen3. Any other DSpark drafter is rewritten to the DeepSeek-V4 DSpark drafter,
    whose weights are read from the target checkpoint: this checkpoint is never loaded."""
    if not p.served_architectures or translated(f, p):  # a speculators dspark is Qwen3DSparkModel
        return []
    archs = list(f.cfg.architectures)
    if any(_served(e, archs, f.cfg.model_type) for e in p.served_architectures):
        return []
    served = ", ".join(e.replace("@", " with model_type ") for e in p.served_architectures)
    what = {
        "deepseek_v4": "rewrites it to the DeepSeek-V4 DSpark drafter, whose weights are read "
        "from the target checkpoint: this drafter's weights are never loaded"
    }.get(p.unserved_architecture, "does not serve it")
    return [
        new_finding(
            "DSC664",
            f"architectures {archs or 'none'} (model_type {f.cfg.model_type!r}): {p.name} "
            f"serves {served} only; {p.runtime} {what}",
            tensor="architectures",
        )
    ]
