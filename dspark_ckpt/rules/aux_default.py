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
from dspark_ckpt.rules.findings import WARNING, Finding, new_finding
from dspark_ckpt.rules.registry import TARGET, rule
from dspark_ckpt.rules.repairs import fix_command
from dspark_ckpt.rules.target import aux_ids, default_capture_points, needs_aux_ids, uses_aux

# a public report of this failure: vLLM PR #50170 (nvidia/Llama-3.3-70B-Instruct-Eagle3 names
# no aux ids; the default (2, 40, 77) gave 1.2% acceptance against 58.9% on its trained layers)
REPORTED = "1.2% acceptance instead of 59% in a public report"


def default_points(f: Facts, p: Profile, hs: HiddenStates, n: int) -> list[int] | None:
    """The capture points (states entering these layers) the runtime feeds an ``n``-layer
    target when the config names no aux layer ids, sorted and deduplicated; None where the
    profile models no default (or the drafter's depth is unknown)."""
    if p.aux_default_layers == "2,N//2,N-3":  # vLLM's runner (interfaces.py:1771-1772)
        points = [2, n // 2, n - 3]
    else:
        points = default_capture_points(f, hs, n)  # SGLang's (HiddenStates.default_ids)
    if points is None:
        return None
    top = n if hs.captures == "0..N" else n - 1
    return sorted({c for c in points if 0 <= c <= top})


def pin_key(f: Facts, p: Profile, hs: HiddenStates) -> tuple[str, int]:
    """Where to write the ids so that the runner feeds them and the model counts them for fc:
    the first key the runner reads that the model class counts too, else the runner's first."""
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
    key, shift = pin_key(f, p, hs)
    written = "[" + ",".join(str(c - shift) for c in points) + "]"
    keys = [k for k, _ in hs.aux_ids]
    read = few(keys, 2)
    return [
        new_finding(
            "DSC671",
            f"the config names no aux layer ids {p.runtime} reads ({read}): {p.name} feeds fc "
            f"its default for this {n}-layer target ({f.target.model.key('num_hidden_layers')}), "
            f"the states entering layers {points}. If the drafter was trained on other layers it "
            f"runs with no error and drafts garbage ({REPORTED})",
            tensor=key,
            hint=f"pin the layers the drafter was trained on: {fix_command(key=key, value=written)} "
            f"writes the ones fed now; put the trained ids in their place"
            f"{' (each id + 1 is the layer fed)' if shift else ''}",
        )
    ]
