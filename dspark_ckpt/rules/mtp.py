"""MTP / NextN draft layers, checked in the target checkpoint they are read from
(``inspect TARGET --mtp``): one rule per code, each run per (target, MTP loader).

The rules read ``loader/mtp.py``'s model of what the runtime's MTP architecture builds and
loads (``mtp_model``), never the raw config. What a missing tensor costs is the loader's
field: ``layer_check`` (a layer with no weight is refused), ``missing`` "tracked" (vLLM
refuses a module with no quant method never loaded, its ``checked`` ones, for an unquantised
target, and counts one with a quant method as loaded; a quantised target keeps every one
uninitialised) or "silent" (nothing checks: it keeps what it was allocated with).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dspark_ckpt.errors import few
from dspark_ckpt.rules.findings import ERROR, INFO, WARNING, Finding
from dspark_ckpt.rules.registry import ENGINE, MTP, rule

if TYPE_CHECKING:  # a drafter's inspect registers these rules and never runs them
    from dspark_ckpt.facts.mtp import MtpTarget
    from dspark_ckpt.loader.mtp import MtpModel
    from dspark_ckpt.profiles.mtp_loader import MtpLoader

UNJUDGED_MTP = "DSC807"


def model(t: MtpTarget, x: MtpLoader) -> MtpModel:
    """The loader model of (t, x), built once for every rule."""
    from dspark_ckpt.loader.mtp import mtp_model

    key = ("mtp", x.name)
    if key not in t.memo:
        t.memo[key] = mtp_model(t, x)
    return t.memo[key]


def _who(x: MtpLoader) -> str:
    return f"{x.release} {x.architecture}"


def _silent(t: MtpTarget, x: MtpLoader) -> bool:
    """A tensor the checkpoint does not give is not refused: it stays as allocated."""
    return x.missing == "silent" or (x.missing == "tracked" and t.quantized is not None)


def _checked(x: MtpLoader, name: str) -> bool:
    """Whether vLLM's weight tracking checks the module ``name`` (no quant method)."""
    return any(part.endswith(x.checked) for part in name.split("."))


def _outcome(t: MtpTarget, x: MtpLoader, missing: tuple[str, ...] | None = None) -> str:
    """What the missing modules cost; ``missing`` (a stored layer's modules, not a whole
    layer) is told apart by quant method under vLLM's weight tracking."""
    if x.missing == "strict":
        quantised = f", the target quantised ({t.quantized}) or not" if t.quantized else ""
        return f"refused at start-up{quantised} (its load_weights raises '{x.strict_error}')"
    then = "it drafts from uninitialised weights (acceptance near zero, no error)"
    refused = "refused at start-up ('Following weights were not initialized from checkpoint')"
    if not _silent(t, x) and missing is None:
        return refused
    if not _silent(t, x) and missing is not None:
        checked = [n for n in missing if _checked(x, n)]
        if checked:
            return f"{refused[:-1]}: {few(checked, 3)}, with no quant method)"
        blocks = [n for n in missing if not n.endswith((".weight", ".bias"))]
        out = (
            "vLLM's weight tracking counts a module with a quant method (a linear layer, a "
            f"head, FusedMoE experts) as loaded: {then}"
        )
        if blocks:
            out += (
                f"; {few(blocks, 3)} refused at start-up instead where the block holds a "
                "module with no quant method (a norm: MLA's kv_a_layernorm, q/k norms)"
            )
        return out
    if x.missing == "silent":
        return f"nothing checks what was loaded: {then}"
    return (
        f"the target is quantised ({t.quantized}), which turns the loaded-weights check off: {then}"
    )


@rule(
    "DSC801",
    ERROR,
    "the target declares no MTP draft layer",
    scope=MTP,
    hint="set the layer count the target was trained with (e.g. num_nextn_predict_layers: 1) "
    "in its config.json, or use a target export that keeps its MTP layers",
)
def no_layers(t: MtpTarget, x: MtpLoader) -> list[Finding]:
    """The runtime builds its MTP draft from a layer count in the target's config
    (``num_nextn_predict_layers``, ``mtp_num_hidden_layers``, ...; its model's or config
    class's default where it has one). A config with no count and no default, a count that
    is not a non-negative integer, a count of 0, or a missing key the layout needs
    (Nemotron-H's ``mtp_hybrid_override_pattern``, ``num_hidden_layers`` where the draft
    layers follow the decoder layers) gives the runtime no draft layer to build: the start-up
    fails, or the speculative config is refused."""
    m = model(t, x)
    c = m.count
    if c.value is None and c.declared is None:
        what = f"the config sets no {c.key} and {x.architecture} has no default for it"
    elif c.value is None:
        what = f"{c.key} is {c.declared!r}, not a layer count"
    elif c.value == 0:
        what = f"{c.key} is 0: the target declares no draft layer"
    elif m.per_step is None:
        what = f"the config sets no {x.step_pattern}: the MTP layers cannot be built"
    elif m.first is None:
        what = f"the config sets no {x.first}: the draft layers' indices cannot be resolved"
    else:
        return []
    return [Finding("DSC801", f"{_who(x)}: {what}; start-up fails", tensor=c.key)]


@rule(
    "DSC802",
    ERROR,
    "an MTP draft layer is not in the target checkpoint",
    scope=MTP,
    hint="use the original (or an MTP-preserving) export of the target: quantise it with the "
    "MTP layers kept (most quantisers drop layers past num_hidden_layers unless told)",
)
def layer_missing(t: MtpTarget, x: MtpLoader) -> list[Finding]:
    """A draft layer the runtime builds from the target's config has no tensor in the
    target checkpoint: a quantised or re-exported target dropped the layers past its last
    decoder layer (or ``mtp.*``). vLLM's DeepSeek and Bailing MTP loaders refuse it at
    start-up ("MTP speculative decoding layer N weights missing from checkpoint"), as
    SGLang's Ernie MTP does ("MTP layers ... not found in weights"); other vLLM MTP loaders
    refuse it for an unquantised target ("Following weights were not initialized from
    checkpoint") and leave it uninitialised for a quantised one; vLLM's Hunyuan V3 MTP and
    SGLang's other loaders never check: the draft runs on uninitialised weights and accepts
    almost nothing."""
    m = model(t, x)
    if not m.missing_layers:
        return []
    layers = [f"{m.prefix(j)}.*" for j in m.missing_layers]
    if x.layer_check:
        outcome = f"refused at start-up ('{x.layer_check.format(j=m.missing_layers[0])}')"
    else:
        outcome = _outcome(t, x)
    total = len(m.layers)
    return [
        Finding(
            "DSC802",
            f"{_who(x)}: {len(layers)} of its {total} draft layer(s) not in the checkpoint "
            f"({few(layers)}): {outcome}{_serving(m)}",
            tensor=layers[0],
        )
    ]


def _serving(m: MtpModel) -> str:
    """Where the layers read depend on a serving option (``x.serving``), which of its values
    read only whole layers: those below the first draft step with a layer incomplete."""
    x = m.loader
    if not x.serving or not m.incomplete or not m.layers:
        return ""
    ok = m.layers.index(m.incomplete[0])
    if ok == 0:
        return f"; every {x.serving} reads draft step 1, so none avoids it"
    return f"; {x.serving} up to {ok} reads only whole layers, {ok + 1} or more does not"


@rule(
    "DSC803",
    ERROR,
    "an MTP draft tensor is missing",
    scope=MTP,
    hint="re-export the target with every tensor of its MTP layers (enorm, hnorm, eh_proj, "
    "shared_head / fc, pre_fc_norm_*, the decoder block)",
)
def tensor_missing(t: MtpTarget, x: MtpLoader) -> list[Finding]:
    """A draft layer is in the checkpoint in part: a module its MTP architecture loads
    (``enorm``, ``hnorm``, ``eh_proj``, ``shared_head.norm``, Qwen's ``mtp.fc`` and
    ``pre_fc_norm_*``, the decoder block's attention, MLP and norms) has no tensor. vLLM's
    weight tracking refuses it at start-up for an unquantised target when the module has no
    quant method (a norm; DeepSeek's eh_proj, a plain nn.Linear), and counts one with a quant
    method (a vLLM linear layer: Qwen's mtp.fc, a head, FusedMoE experts) as loaded: it stays
    uninitialised; a quantised target turns the tracking off (every one uninitialised);
    SGLang leaves it as allocated. Uninitialised draft weights draft garbage silently."""
    m = model(t, x)
    if not m.missing:
        return []
    return [
        Finding(
            "DSC803",
            f"{_who(x)}: {len(m.missing)} draft tensor(s) not in the checkpoint "
            f"({few(list(m.missing))}): {_outcome(t, x, m.missing)}{_serving(m)}",
            tensor=m.missing[0],
        )
    ]


@rule(
    "DSC804",
    ERROR,
    "an MTP draft tensor has the wrong shape",
    scope=MTP,
    hint="the MTP layer was saved for another model size: use the target's own MTP weights",
)
def tensor_misshapen(t: MtpTarget, x: MtpLoader) -> list[Finding]:
    """A draft tensor whose shape is not the one the runtime's MTP architecture builds from
    the target's config (a norm ``[H]``, ``eh_proj`` / ``fc`` ``[H, 2H]``, a per-layer head
    ``[V, H]``). The weight loader's size check fails at start-up. Quantised weights whose
    stored shape is packed (int4, fp4) are not judged here."""
    m = model(t, x)
    return [
        Finding(
            "DSC804",
            f"{_who(x)}: {name} is {list(got)}, the model builds {list(want)}: the weight "
            "loader refuses it at start-up",
            tensor=name,
        )
        for name, got, want in m.misshapen
    ]


@rule(
    "DSC805",
    ERROR,
    "more MTP layers than the runtime loads",
    scope=MTP,
    hint="set the count to what the runtime loads (1), or serve the target with a runtime "
    "that loads every MTP layer it has",
)
def too_many(t: MtpTarget, x: MtpLoader) -> list[Finding]:
    """The target declares more MTP layers than the runtime's MTP architecture loads:
    SGLang's DeepSeek, GLM and Bailing NextN loaders and vLLM's Nemotron-H MTP assert a single
    layer and refuse the start-up; vLLM's Ernie MTP maps only the ``.0`` block, so a second layer's
    weights never reach the model. A count of more than 4096 layers is not walked either."""
    m = model(t, x)
    if not m.too_many:
        return []
    most = x.count_max if x.count_max is not None else "4096"
    return [
        Finding(
            "DSC805",
            f"{_who(x)}: {m.count.key} is {m.count.value}, and it loads at most {most} "
            "draft layer(s): the start-up fails or the extra layers stay uninitialised",
            tensor=m.count.key,
        )
    ]


@rule(
    "DSC806",
    WARNING,
    "MTP layers stored past the declared count",
    scope=MTP,
    hint="set the layer count to the MTP layers the target was trained with, if it should "
    "draft with all of them",
)
def beyond_count(t: MtpTarget, x: MtpLoader) -> list[Finding]:
    """The checkpoint stores draft layers past the count its config declares (or the count
    the runtime fixes): the runtime never loads them, so the drafter runs with fewer MTP
    steps than the target was trained with. Nothing fails; the depth is lost."""
    m = model(t, x)
    if not m.beyond or m.count.value is None or x.stacked:
        return []
    shown = [f"{m.prefix(j)}.*" for j in m.beyond]
    return [
        Finding(
            "DSC806",
            f"{_who(x)}: the checkpoint stores {len(shown)} draft layer(s) past the "
            f"{m.count.value} it builds ({few(shown)}): never loaded",
            tensor=shown[0],
        )
    ]


@rule(
    "DSC808",
    ERROR,
    "MTP layers past the first overwrite it",
    scope=MTP,
    hint="keep only the draft layer the runtime builds (layer 0), or serve the target with "
    "a runtime that loads each MTP layer into its own module",
)
def overwrites(t: MtpTarget, x: MtpLoader) -> list[Finding]:
    """The runtime builds one draft layer and maps every stored MTP layer onto it (SGLang's
    MiMo MTP drops the layer index from the name): a checkpoint with more than one MTP layer
    has the later layers' weights read over the first, so the drafter runs with a layer
    trained for another step. No error; acceptance drops."""
    m = model(t, x)
    if not x.stacked or not m.beyond:
        return []
    shown = [f"{m.prefix(j)}.*" for j in m.beyond]
    return [
        Finding(
            "DSC808",
            f"{_who(x)}: {few(shown)} are read into its one draft layer "
            f"({m.prefix(m.layers[0]) if m.layers else x.layer}): the last read wins, silently",
            tensor=shown[0],
        )
    ]


@rule(
    "DSC809",
    ERROR,
    "the MTP loader raises on a stored name",
    scope=MTP,
    hint="store the MTP layer as the runtime's loader reads it: its norms and eh_proj "
    "unquantised (a plain .weight each), its decoder without a '.transformer.' segment",
)
def refused_name(t: MtpTarget, x: MtpLoader) -> list[Finding]:
    """A strict MTP loader looks every stored name of a draft layer up in its parameter
    dict and raises (a KeyError) on one it did not build: vLLM's Step-3.5 MTP on a
    quantised scale of an unquantised module (``eh_proj.weight_scale_inv``: its ``enorm``,
    ``hnorm``, ``eh_proj`` and ``shared_head.norm`` are a plain ``.weight`` each) and on the
    attention and MLP projections stored under ``.transformer.`` (it drops that segment only
    for the names it does not fuse); SGLang's Step-3.5 MTP on the former. The start-up
    fails."""
    m = model(t, x)
    if not m.refused:
        return []
    return [
        Finding(
            "DSC809",
            f"{_who(x)}: {len(m.refused)} stored name(s) under its draft layers it has no "
            f"parameter for ({few(list(m.refused))}): {x.refused_error}",
            tensor=m.refused[0],
        )
    ]


@rule(
    "DSC810",
    ERROR,
    "the MTP build refuses a MoE draft layer",
    scope=MTP,
    hint="list only the decoder's MoE layers (below num_hidden_layers) in moe_layers_enum / "
    "moe_layer_list: the runtime builds dense MTP layers only",
)
def moe_draft_layer(t: MtpTarget, x: MtpLoader) -> list[Finding]:
    """A dense-only MTP build (vLLM's Step5 MTP) makes a draft layer MoE when the config
    lists its index among the MoE layers (``moe_layers_enum`` / ``moe_layer_list``; by
    default every layer from 1 below ``num_hidden_layers``, so never a draft layer), and
    then refuses to build at all: the start-up fails before a weight is read."""
    m = model(t, x)
    if not m.moe_layers:
        return []
    shown = [m.prefix(j) for j in m.moe_layers]
    return [
        Finding(
            "DSC810",
            f"{_who(x)}: the config makes draft layer(s) {few(shown)} MoE: refused at "
            f"start-up ('{x.moe_error}')",
            tensor=shown[0],
        )
    ]


@rule(
    UNJUDGED_MTP,
    INFO,
    "no MTP loader judges this target",
    scope=ENGINE,
    hint="docs/mtp.md lists the MTP architectures judged per runtime, and those not with why",
)
def unjudged_finding(what: str) -> Finding:
    """No MTP / NextN loader of the releases modelled (vLLM 0.33.0, SGLang 0.5.23) is picked
    for the target's architecture, or the one picked is not modelled (its reason is given):
    the target's draft layers are not judged, and ``inspect --mtp`` exits 3."""
    return Finding(UNJUDGED_MTP, what)
