"""The drafter against the target model itself: hidden sizes, aux layers, architecture.

A drafter's ``fc`` takes ``n_aux`` hidden states of the target, each ``Ht`` wide, and
its layers may run on the target's embedding and head. A drafter made for another
target loads and then fails at the first forward (a shape error), or runs and
proposes garbage. How each runtime feeds the target's hidden states is data
(``profiles/hidden_states.py``): the per-profile rules here (scope ``TARGET``) get
that entry, and run only where the runtime feeds the drafter the target's states.

Each function is one finding code (``registry.py``); its docstring is the code's
explanation. They read only the gathered ``Facts``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from dspark_ckpt.facts.gather import Facts
from dspark_ckpt.facts.vocab import EMBED, FC, INPUT_NORM, LM_HEAD
from dspark_ckpt.loader.heads import own_embedding
from dspark_ckpt.loader.model import uses_aux as model_uses_aux
from dspark_ckpt.loader.view import aux_count
from dspark_ckpt.profiles.hidden_states import HiddenStates
from dspark_ckpt.profiles.registry import DFLASH, DSPARK, EAGLE3, Profile
from dspark_ckpt.rules.findings import ERROR, WARNING, Finding, new_finding
from dspark_ckpt.rules.registry import COMMON, TARGET, rule
from dspark_ckpt.rules.repairs import ASKS, Needs, repair


def _get(raw: dict, dotted: str) -> Any:
    node: Any = raw
    for part in dotted.split("."):
        node = node.get(part) if isinstance(node, dict) else None
    return node


def _int_list(value: Any) -> list[int] | None:
    if isinstance(value, list) and all(type(v) is int for v in value):
        return value
    return None


def _shape(info) -> tuple[int, ...] | None:
    return tuple(info.shape) if info is not None else None


def uses_aux(f: Facts, p: Profile) -> bool:
    """Whether the drafter's fc is fed the target's hidden states under ``p``."""
    if p.family == EAGLE3:  # eagle_config.use_aux_hidden_state (default True), truthy
        return model_uses_aux(f.raw, EAGLE3)
    return p.family in (DSPARK, DFLASH)


def aux_width(f: Facts, hs: HiddenStates) -> tuple[int | None, str]:
    """The width of each target state the drafter's fc is built for, and its key."""
    if hs.aux_width == "target_hidden_size":
        value = f.raw.get("target_hidden_size")
        if type(value) is int and value > 0:
            return value, "target_hidden_size"
        return f.cfg.hidden_size, "hidden_size (no target_hidden_size)"
    return f.cfg.hidden_size, "hidden_size (the runtime does not read target_hidden_size)"


def aux_ids(f: Facts, hs: HiddenStates) -> tuple[list[int], str, int] | None:
    """The aux layer ids the runtime reads, the key they came from and their shift to a
    capture point; None when the config names none (the runtime's defaults apply)."""
    for key, shift in hs.aux_ids:
        ids = _int_list(_get(f.raw, key))
        if ids:
            return ids, key, shift
    return None


def for_target(f: Facts, hs: HiddenStates | None) -> HiddenStates | None:
    """``hs`` as this target's model applies it: where its architecture turns the ids into
    capture points its own way (``hs.by_target``), the shift of the key the ids are read
    from, and the boundaries it captures."""
    model = f.target.model
    how = dict(hs.by_target) if hs is not None else {}
    arch = next((a for a in (model.architectures if model else ()) or () if a in how), None)
    found = aux_ids(f, hs) if arch is not None else None
    if found is None:
        return hs
    ids, key, _ = found
    if how[arch] == "as_is_unless_first_is_1":
        shift, captures = (1 if ids[0] == 1 else 0), hs.captures
    else:  # as_is_when_max_is_n
        shift, captures = (0 if max(ids) == f.layers else 1), "0..N"
    keys = tuple((k, shift if k == key else s) for k, s in hs.aux_ids)
    return replace(hs, aux_ids=keys, captures=captures)


def capture_points(ids: list[int], shift: int) -> list[int]:
    return [i + shift for i in ids]


def valid_ids(hs: HiddenStates, n: int, shift: int) -> tuple[int, int]:
    """The ids ``[lo, hi]`` a target of ``n`` layers produces a state for under ``hs``
    (and, where the runtime checks them at start-up, accepts)."""
    top = n if hs.captures == "0..N" else n - 1
    lo, hi = -shift, top - shift
    if hs.checked is not None:
        lo, hi = max(lo, 0), min(hi, n - 1)
    return lo, hi


def verifier(raw: dict) -> tuple[list[str], str | None]:
    """The target a speculators config names: verifier architectures and name_or_path."""
    ver = _get(raw, "speculators_config.verifier")
    if not isinstance(ver, dict):
        return [], None
    archs = ver.get("architectures")
    archs = [a for a in archs if isinstance(a, str)] if isinstance(archs, list) else []
    name = ver.get("name_or_path")
    return archs, name if isinstance(name, str) else None


def trained_layers(raw: dict) -> tuple[int, str] | None:
    """``num_target_layers`` (SpecForge DFlash/DSpark): the trained target's depth."""
    for key in ("dflash_config.num_target_layers", "num_target_layers"):
        value = _get(raw, key)
        if type(value) is int and value > 0:
            return value, key
    return None


@rule(
    "DSC701",
    ERROR,
    "fc built for another target hidden size",
    scope=TARGET,
    hint=(
        "use the drafter trained for this target, or set target_hidden_size when fc already takes "
        "the target's width"
    ),
)
def fc_for_another_hidden_size(f: Facts, p: Profile, hs: HiddenStates) -> list[Finding]:
    """The drafter's fc takes n_aux target hidden states concatenated, each as wide as the runtime
    believes the target's hidden size to be: target_hidden_size (default the drafter's hidden_size)
    in vLLM and SGLang EAGLE-3, the drafter's hidden_size in SGLang DFlash/DSpark and TensorRT-LLM.
    When the target's hidden_size differs (a Llama 3.1 8B head on Llama 3.3 70B, vLLM #17740,
    #18906), fc gets states of another width: a shape error when they first reach it. An EAGLE-3
    drafter with use_aux_hidden_state false has no fc: the target's last hidden states reach its
    first layer as they are, and of another width than its hidden_size they fail there (vLLM's
    llama_eagle3.py asserts 'hidden_states and input_embeds must have the same last dimension';
    SGLang's eagle_utils.py sizes the states it carries by the drafter's hidden_size)."""
    if not uses_aux(f, p):
        return _last_states_of_another_width(f, p)
    width, key = aux_width(f, hs)
    ht = f.ht
    if width is None or ht is None or width == ht:
        return []
    fc, norm = _shape(f.fc), _shape(f.input_norm)
    # the concatenated width the weights take: fc's columns, else input_norm's length
    taken = fc[1] if fc is not None and len(fc) == 2 else None
    if taken is None and norm is not None and len(norm) == 1:
        taken = norm[0]
    evidence = "".join(
        f"; {name} is {list(shape)}"
        for name, shape in ((FC, fc), (INPUT_NORM, norm))
        if shape is not None
    )
    hint = None
    if taken is not None and taken % ht == 0 and hs.aux_width == "target_hidden_size":
        hint = (
            f"the weights take {taken // ht} states {ht} wide, the target's: set "
            f'"target_hidden_size": {ht} in config.json'
        )
    if hint is None:
        hint = (
            f"this drafter was trained for a target whose hidden_size is {width}: use the "
            f"drafter trained for this target (hidden_size {ht})"
        )
    return [
        new_finding(
            "DSC701",
            f"{p.name} builds fc for target hidden states {width} wide ({key}) but the "
            f"target's hidden_size is {ht} ({f.target.model.key('hidden_size')}){evidence}: "
            f"{p.runtime} fails with a shape error when the target's hidden states first "
            "reach fc",
            tensor=FC
            if fc is not None
            else INPUT_NORM
            if norm is not None
            else "target_hidden_size",
            hint=hint,
        )
    ]


def null_is_hidden_size(f: Facts, p: Profile) -> bool:
    """Whether ``p``'s model reads a ``target_hidden_size: null`` as hidden_size."""
    archs = f.cfg.architectures
    mla = bool(archs) and archs[0] in p.mla_architectures
    how = p.target_hidden_size_null
    return how == "hidden_size" or how == "type_error_unless_mla" and mla


def _last_states_of_another_width(f: Facts, p: Profile) -> list[Finding]:
    """DSC701 without aux states: the target's last hidden states fed as they are."""
    h, ht = f.cfg.hidden_size, f.ht
    if h is None or ht is None or h == ht:
        return []
    return [
        new_finding(
            "DSC701",
            f"{p.name} takes no aux hidden states (use_aux_hidden_state false) and feeds the "
            f"target's last hidden states as they are, {ht} wide (the target's hidden_size), "
            f"but the drafter's hidden_size is {h}: {p.runtime} fails with a shape error at "
            "the first forward",
            tensor="eagle_config.use_aux_hidden_state",
            hint=f"use the drafter trained for this target (hidden_size {ht})",
        )
    ]


@rule(
    "DSC702",
    ERROR,
    "target embedding or head of another width",
    scope=TARGET,
    hint="ship the drafter's own embed_tokens and lm_head",
)
def target_tensors_of_another_width(f: Facts, p: Profile, hs: HiddenStates) -> list[Finding]:
    """The runtime gives the drafter the target's embed_tokens / lm_head (vLLM when the drafter
    ships none; SGLang EAGLE-3 unless target_hidden_size differs from hidden_size; TensorRT-LLM
    DSpark always). They are as wide as the target's hidden_size: a drafter of another hidden_size
    fails at its first forward (vLLM #18906: 'assert hidden_states.shape[-1] ==
    input_embeds.shape[-1]')."""
    h, ht = f.cfg.hidden_size, f.ht
    if h is None or ht is None or h == ht:
        return []
    shared = []
    if hs.embed_from_target == "always":
        shared = [EMBED, LM_HEAD]
    elif hs.embed_from_target == "missing":
        has = {EMBED: f.embed is not None, LM_HEAD: f.lm_head is not None}
        shared = [n for n in (EMBED, LM_HEAD) if not has[n]]
        if p.family == DSPARK:  # qwen3_dspark.py load_weights: embed only when V <= Vt
            # (else DSC101 refuses the load), the head only when Vd == Vt (else DSC102/104)
            keep = {EMBED: f.cfg.vocab_size <= f.target.vocab_size}
            keep[LM_HEAD] = f.cfg.draft_vocab_size == f.target.vocab_size
            shared = [n for n in shared if keep[n]]
    # shared when the key is absent or equal to hidden_size (SGLang's llama.py set_embed:
    # `hasattr(config, "target_hidden_size") and ... != hidden_size` keeps its own: an
    # explicit null too), as the loader model builds it
    elif hs.embed_from_target == "unless_target_hidden_size" and not own_embedding(f):
        shared = [EMBED]
    if not shared:
        return []
    names = " and ".join(shared)
    return [
        new_finding(
            "DSC702",
            f"{p.name} gives the drafter the target's {names} ({ht} wide, the target's "
            f"hidden_size) but the drafter's hidden_size is {h}: a shape error at its first "
            "forward",
            tensor=shared[0],
            hint=f"ship the drafter's own {names} [rows, {h}]"
            + (" and set target_hidden_size in config.json" if p.runtime == "SGLang" else ""),
        )
    ]


@repair("set-aux-layer-ids", ASKS)
def needs_aux_ids(f: Facts, p: Profile | None, finding: Finding) -> Needs | None:
    """The aux layer ids are the drafter's training choice: never guessed. ``fix --set
    KEY=VALUE`` writes them (the plan then checks them against the target)."""
    return (
        Needs(finding.tensor, "the layer ids the drafter was trained with")
        if finding.tensor
        else None
    )


@rule(
    "DSC703",
    ERROR,
    "aux layer ids outside the target",
    scope=TARGET,
    hint="use the layer ids the drafter was trained with, on the target it was trained for",
    repair=needs_aux_ids,
)
def aux_ids_outside_target(f: Facts, p: Profile, hs: HiddenStates) -> list[Finding]:
    """The aux layer ids (eagle_aux_hidden_state_layer_ids; DFlash/DSpark target_layer_ids, which
    vLLM and SGLang capture at id + 1) must name layers the target has. The target never produces a
    state it has no layer for, and each layer once: fc gets fewer states than it was built for (a
    shape error at the first forward), or the runtime refuses the ids at start-up (SGLang DFlash).
    """
    n = f.layers
    found = aux_ids(f, hs)
    if n is None or found is None or hs.captures is None or not uses_aux(f, p):
        return []
    ids, key, shift = found
    top = n if hs.captures == "0..N" else n - 1
    lo, hi = valid_ids(hs, n, shift)
    points = capture_points(ids, shift)
    outside = [i for i in ids if not lo <= i <= hi]
    repeated = len(set(points)) < len(points)
    if not outside and not repeated:
        return []
    got = len({c for c in points if 0 <= c <= top})
    what = []
    if outside:
        what.append(f"{outside} outside [{lo}, {hi}]")
    if repeated:
        what.append("repeated ids (each layer is captured once)")
    if hs.checked is not None and any(not 0 <= i < n for i in ids):
        fails = f"{p.runtime} refuses the config at start-up (layer id out of range)"
    else:
        fails = (
            f"the target produces {got} of the {len(ids)} states fc expects: a shape error "
            "when they first reach fc"
        )
    at = "the state entering layer id + 1" if shift else "the state entering layer id"
    return [
        new_finding(
            "DSC703",
            f"{key} {ids}: {' and '.join(what)} for a target of {n} layers "
            f"({f.target.model.key('num_hidden_layers')}); {p.runtime} captures {at}, "
            f"for layer boundaries [0, {top}]: {fails}",
            tensor=key,
            hint=f"use layer ids in [{lo}, {hi}] of this target, as the drafter was "
            "trained with; a drafter trained on a deeper target needs that target",
        )
    ]


@rule(
    "DSC704",
    WARNING,
    "drafter made for another target",
    scope=COMMON,
    hint="use the drafter trained for this target",
)
def made_for_another_target(f: Facts) -> list[Finding]:
    """The drafter's config names the target it was trained for (speculators'
    speculators_config.verifier, SpecForge's num_target_layers) and it is not this one. No runtime
    refuses it (SGLang logs a warning for num_target_layers): the drafter runs on hidden states and
    tokens it was not trained on, and acceptance collapses."""
    model = f.target.model
    if model is None:
        return []
    out = []
    archs, name = verifier(f.raw)
    if archs and model.architectures and not set(archs) & set(model.architectures):
        made = f"{', '.join(archs)}" + (f" ({name})" if name else "")
        out.append(
            new_finding(
                "DSC704",
                f"the drafter was made for {made} (speculators_config.verifier) but the "
                f"target is {', '.join(model.architectures)}: no runtime checks this; hidden "
                "states and tokens from another model make its proposals garbage",
                tensor="speculators_config.verifier.architectures",
                hint="use the drafter trained for this target",
            )
        )
    trained = trained_layers(f.raw)
    if trained and f.layers and trained[0] != f.layers:
        out.append(
            new_finding(
                "DSC704",
                f"the drafter was trained on a target of {trained[0]} layers ({trained[1]}) "
                f"but the target has {f.layers} ({model.key('num_hidden_layers')}): SGLang "
                "warns and picks layers of this target; the drafter is fed states it was not "
                "trained on",
                tensor=trained[1],
                hint="use the drafter trained for this target",
            )
        )
    return out


@rule(
    "DSC705",
    ERROR,
    "target cannot give aux hidden states",
    scope=TARGET,
    hint="serve the drafter on a target architecture the runtime supports for it",
)
def target_without_aux_states(f: Facts, p: Profile, hs: HiddenStates) -> list[Finding]:
    """EAGLE-3, DFlash and DSpark drafters are fed hidden states of the target's inner layers; vLLM
    takes them only from target model classes implementing SupportsEagle3 and raises 'Model does not
    support EAGLE3 interface' at start-up for any other (the list of vLLM 0.33.0's:
    dspark_ckpt/profiles/vllm_aux_targets.py)."""
    if not uses_aux(f, p):  # no aux states asked for: the runner checks no interface
        return []
    archs = f.target.model.architectures if f.target.model else ()
    known = [a for a in archs if a in hs.capable_targets or a in hs.refused_targets]
    if not known or known[0] not in hs.refused_targets:  # the first one the runtime knows
        return []
    return [
        new_finding(
            "DSC705",
            f"the target's architecture {known[0]} does not give aux hidden states in "
            f"{p.runtime} (its model class does not implement SupportsEagle3): the model "
            "runner raises 'Model does not support EAGLE3 interface' at start-up",
            tensor="architectures",
            hint=f"serve this drafter on a target {p.runtime} can take hidden states from",
        )
    ]


def default_capture_points(f: Facts, hs: HiddenStates, n: int) -> list[int] | None:
    """The capture points the runtime feeds an ``n``-layer target when the config names no
    aux layer ids (``hs.default_ids``); None: not modelled, or no drafter depth."""
    if hs.default_ids == "2,N//2,N-3":  # llama.py:933-936: capture points themselves
        return [2, n // 2, n - 3]
    if hs.default_ids == "draft_layers":  # dflash_utils.py:348-385, then id + 1
        layers = f.cfg.value("num_hidden_layers")
        if type(layers) is not int or layers <= 0 or (layers > 1 and n < 4):
            return None
        if layers == 1:
            return [n // 2 + 1]
        span = n - 4
        if layers - 1 >= span:  # steps of at most one: every point of 2 .. n - 2 is hit
            return list(range(2, n - 1))
        return [int(round(1 + i * span / (layers - 1))) + 1 for i in range(layers)]
    return None


@rule(
    "DSC687",
    ERROR,
    "fc built for another count of target states than the runtime feeds",
    scope=TARGET,
    hint="write the layer ids the drafter was trained on where the runtime reads them",
)
def aux_states_fed_differ(f: Facts, p: Profile, hs: HiddenStates) -> list[Finding]:
    """The runtime builds the drafter's fc for one count of target hidden states and feeds it the
    states of the layer ids its runner reads, or its own default when the config names none:
    SGLang EAGLE-3 feeds eagle_config.eagle_aux_hidden_state_layer_ids, else the states entering
    layers 2, N // 2 and N - 3, while its model counts num_aux_hidden_states first; SGLang DSpark
    feeds dspark_target_layer_ids first, while its model counts the DFlash ids. When the two
    counts differ the first forward fails on fc's shape ('DFLASH target_hidden feature dim
    mismatch')."""
    n = f.layers
    built = aux_count(f, p)
    if not hs.default_ids or n is None or built is None or not uses_aux(f, p):
        return []
    top = n if hs.captures == "0..N" else n - 1
    found = aux_ids(f, hs)
    if found is not None:
        ids, key, shift = found
        points = capture_points(ids, shift)
        if any(not 0 <= c <= top for c in points) or len(set(points)) < len(points):
            return []  # DSC703 says it
        how = f"{key} {ids}"
    else:
        points = default_capture_points(f, hs, n)
        if points is None:
            return []
        how = (
            f"no layer ids in the config: its default for a {n}-layer target, the states "
            f"entering layers {sorted(set(points))}"
        )
    fed = len({c for c in points if 0 <= c <= top})
    count, source = built
    if fed == count:
        return []
    return [
        new_finding(
            "DSC687",
            f"{p.name} feeds fc {fed} target hidden states ({how}) but builds it for {count} "
            f"({source}): a shape error when they first reach fc",
            tensor=FC,
            hint=f"write the {count} layer ids the drafter was trained on as "
            f"{hs.aux_ids[0][0]} (the runner reads {', '.join(k for k, _ in hs.aux_ids)}), "
            f"so that the runner feeds what fc counts ({source})",
        )
    ]
