"""Aux layers the runtime picks itself: a drafter config that names no aux layer ids.

An EAGLE-3, DFlash or DSpark drafter is trained on the hidden states of chosen target
layers. Where its config names none under a key the runtime reads, the runtime feeds its
own default layers (vLLM: the states entering layers 2, N // 2 and N - 3; SGLang: the same
for EAGLE-3, one per drafter layer for DFlash/DSpark). When their count matches fc nothing
fails: the drafter runs on layers it may never have seen. The rule says which layers this
runtime feeds for this target's depth, and how to pin the trained ones.

Each function is one finding code (``registry.py``); its docstring is the code's
explanation. They read only the gathered ``Facts``.
"""

from __future__ import annotations

from dspark_ckpt.errors import few
from dspark_ckpt.facts.gather import Facts
from dspark_ckpt.loader.view import aux_count as _aux_count
from dspark_ckpt.loader.view import aux_count_keys, dotted, model_config
from dspark_ckpt.profiles.hidden_states import HiddenStates
from dspark_ckpt.profiles.registry import Profile
from dspark_ckpt.rules.findings import ERROR, WARNING, Finding, new_finding
from dspark_ckpt.rules.registry import TARGET, rule
from dspark_ckpt.rules.repairs import fix_command
from dspark_ckpt.rules.target import aux_ids, default_capture_points, needs_aux_ids, uses_aux

# a public report of this failure: vLLM PR #50170 (nvidia/Llama-3.3-70B-Instruct-Eagle3 names
# no aux ids; the default (2, 40, 77) gave 1.2% acceptance against 58.9% on its trained layers)
REPORTED = "1.2% acceptance instead of 59% in a public report"


# where a runtime that reads no aux layer ids from the drafter takes them: its serving config
SERVING_KEY = "speculative_config.eagle3_layers_to_capture"


def serving_default(n: int) -> tuple[int, ...] | None:
    """TensorRT-LLM's default capture for an ``n``-layer target: the layer ids whose outputs
    it captures, (1, n // 2 - 1, n - 4); None where it refuses them (2 <= n <= 5), repeats
    one (n == 6: DSC693 says both) or captures one state (n == 1)."""
    return (1, n // 2 - 1, n - 4) if n > 6 else None


def serving_pin(points: list[int]) -> str:
    """The serving option that makes TensorRT-LLM capture ``points`` (states entering those
    layers: the outputs of the layers before them)."""
    return f"{SERVING_KEY}: [{', '.join(str(c - 1) for c in points)}]"


def default_points(f: Facts, p: Profile, hs: HiddenStates, n: int) -> list[int] | None:
    """The capture points (states entering these layers) the runtime feeds an ``n``-layer
    target when the config names no aux layer ids, sorted and deduplicated; None where the
    profile models no default (or the drafter's depth is unknown)."""
    if p.aux_default_layers == "2,N//2,N-3":  # vLLM's runner (interfaces.py:1771-1772)
        points = [2, n // 2, n - 3]
    elif p.aux_default_layers == "1,N//2-1,N-4":  # TensorRT-LLM: the outputs of these layers
        ids = serving_default(n)
        if ids is None:
            return None
        points = [i + 1 for i in ids]
    else:
        points = default_capture_points(f, hs, n)  # SGLang's (HiddenStates.default_ids)
    if points is None:
        return None
    top = n if hs.captures == "0..N" else n - 1
    return sorted({c for c in points if 0 <= c <= top})


def pin_key(f: Facts, p: Profile, hs: HiddenStates) -> tuple[str, int] | None:
    """Where to write the ids so that the runner feeds them and the model counts them for fc:
    the first key the runner reads that the model class counts too, else the runner's first;
    None where the runner reads no drafter key (only its serving config)."""
    if not hs.aux_ids:
        return None
    counted = set(aux_count_keys(f, p))
    return next(((k, s) for k, s in hs.aux_ids if k in counted), hs.aux_ids[0])


def _trained_ids_named(f: Facts, p: Profile) -> bool:
    """Whether the config names trained ids under a key the runner does not read (DSC651's
    case: it says whether they differ from what is fed)."""
    cfg = model_config(f, p)
    return any(isinstance(dotted(cfg, key), list) for key, _ in p.trained_aux_ids)


@rule(
    "DSC671",
    WARNING,
    "no aux layer ids: the runtime feeds its default layers",
    scope=TARGET,
    hint="pin the target layers the drafter was trained on where the runtime reads them (fix --set)",
    repair=needs_aux_ids,
)
def aux_layers_defaulted(f: Facts, p: Profile, hs: HiddenStates) -> list[Finding]:
    """The drafter config names no aux layer ids under any key the runtime reads, so the
    runtime feeds fc the hidden states of its own default layers: vLLM's runner the states
    entering layers 2, N // 2 and N - 3 of an N-layer target; SGLang the same for EAGLE-3, and
    for DFlash/DSpark one layer per drafter layer spread over 1 .. N - 3. A drafter trained on
    other layers loads and runs with no error and its proposals are rejected: a public report
    (vLLM PR #50170, nvidia/Llama-3.3-70B-Instruct-Eagle3 on Llama 3.3 70B) measured 1.2%
    acceptance instead of 59%, slower than no speculation. A warning: the default may be what
    the drafter was trained on (SpecForge trains EAGLE-3 on the same layers by default). Where
    the count fed differs from fc's, DSC650 / DSC687 say so as an error instead; where the config
    names trained ids the runner does not read, DSC651 does."""
    n = f.layers
    if n is None or not uses_aux(f, p) or aux_ids(f, hs) is not None:
        return []
    points = default_points(f, p, hs, n)
    if not points or _trained_ids_named(f, p):
        return []
    built = _aux_count(f, p)
    if built is not None and built[0] != len(points):  # DSC650 / DSC687: an error
        return []
    pin = pin_key(f, p, hs)
    depth = f.target.model.key("num_hidden_layers")
    if pin is None:  # the runtime reads no drafter key: its serving config pins them
        return [
            new_finding(
                "DSC671",
                f"{p.runtime} reads no aux layer ids from the drafter: {p.name} feeds fc its "
                f"default for this {n}-layer target ({depth}), the states entering layers "
                f"{points}. If the drafter was trained on other layers it runs with no error "
                f"and drafts garbage ({REPORTED})",
                hint=f"serve with {serving_pin(points)} (the ones fed now: the outputs of "
                "those layers); put the layers the drafter was trained on in their place",
            )
        ]
    key, shift = pin
    written = "[" + ",".join(str(c - shift) for c in points) + "]"
    read = few([k for k, _ in hs.aux_ids], 2)
    return [
        new_finding(
            "DSC671",
            f"the config names no aux layer ids {p.runtime} reads ({read}): {p.name} feeds fc "
            f"its default for this {n}-layer target ({depth}), the states entering layers "
            f"{points}. If the drafter was trained on other layers it runs with no error and "
            f"drafts garbage ({REPORTED})",
            tensor=key,
            hint=f"pin the layers the drafter was trained on: {fix_command(key=key, value=written)} "
            f"writes the ones fed now; put the trained ids in their place"
            f"{' (each id + 1 is the layer fed)' if shift else ''}",
        )
    ]


@rule(
    "DSC693",
    ERROR,
    "the runtime's default capture layers do not work for this target",
    scope=TARGET,
    hint=f"serve with {SERVING_KEY} set to the layers the drafter was trained on",
)
def default_capture_refused(f: Facts, p: Profile, hs: HiddenStates) -> list[Finding]:
    """TensorRT-LLM reads no aux layer ids from an EAGLE-3 drafter: without
    speculative_config.eagle3_layers_to_capture it captures the outputs of target layers
    (1, N // 2 - 1, N - 4) of an N-layer target (the states entering 2, N // 2, N - 3). For
    2 <= N <= 5 it raises 'Not enough hidden layers for default EAGLE3 capture' at start-up.
    For N = 6 the ids are (1, 2, 2): it keeps both 2s, sizes the capture buffer for three
    states (torch.empty) and writes the second only, so fc reads uninitialised memory in the
    third: garbage proposals, no error."""
    n = f.layers
    if p.aux_default_layers != "1,N//2-1,N-4" or n is None or not uses_aux(f, p):
        return []
    if 2 <= n <= 5:
        what = (
            f"{p.name} captures the outputs of layers (1, N // 2 - 1, N - 4) when its serving "
            f"config names none, and for this {n}-layer target it raises 'Not enough hidden "
            "layers for default EAGLE3 capture' at start-up"
        )
    elif n == 6:
        what = (
            f"{p.name} captures the outputs of layers (1, N // 2 - 1, N - 4) when its serving "
            "config names none: (1, 2, 2) for this 6-layer target. It sizes its capture buffer "
            "(torch.empty) for three states and writes two, so fc reads uninitialised memory "
            "in the third: garbage proposals, no error"
        )
    else:
        return []
    return [
        new_finding(
            "DSC693",
            f"{what} ({p.runtime} reads no aux layer ids from the drafter)",
            hint=f"serve with {SERVING_KEY} set to the target layers the drafter was trained on "
            "(the layer whose output is captured: one below the state entering the next)",
        )
    ]
