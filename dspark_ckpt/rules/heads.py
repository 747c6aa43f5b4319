"""DSpark's heads as the runtime builds them: the Markov head's type (DSC658, DSC683,
DSC684), the confidence head's shape (DSC659), the Markov head against the target's vocab
(DSC660), the DSpark heads a DFlash drafter refuses (DSC696), the top-k it drafts from
(DSC697).

Each function is one finding code (``registry.py``); its docstring is the code's
explanation. They read only the ``Facts``, the loader model's view of the config and its
Markov tables (``loader/model.py``), parameterised by a ``Profile``.
"""

from __future__ import annotations

import json
from typing import Any

from dspark_ckpt.errors import few
from dspark_ckpt.facts.gather import Facts
from dspark_ckpt.loader.model import markov_built
from dspark_ckpt.loader.names import under
from dspark_ckpt.loader.parts import MARKOV_EXTRA, MARKOV_W
from dspark_ckpt.loader.view import count, dotted, get, model_config, truthy
from dspark_ckpt.profiles.registry import DSPARK, Profile
from dspark_ckpt.rules.findings import ERROR, Finding, new_finding
from dspark_ckpt.rules.load import _raw_at
from dspark_ckpt.rules.registry import PROFILE, rule

# --- DSpark's heads -------------------------------------------------------------------------


def head_config(raw: dict, key: str) -> tuple[Any, str] | None:
    """A DSpark head switch as TensorRT-LLM's DFlash-lineage drafter resolves it: the first
    non-null of dspark_config.KEY, dflash_config.KEY, dspark_KEY, KEY, and where it was."""
    for where in (f"dspark_config.{key}", f"dflash_config.{key}", f"dspark_{key}", key):
        value = dotted(raw, where)
        if value is not None:
            return value, where
    return None


def _checked_head(f: Facts) -> tuple[int, str, str | None]:
    """(markov_rank, markov_head_type, the rank's key) as ``head_config`` resolves them."""
    rank = head_config(f.raw, "markov_rank")
    kind = head_config(f.raw, "markov_head_type")
    value = count(rank[0]) if rank else None
    return value or 0, str(kind[0] if kind else "vanilla").lower(), rank[1] if rank else None


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
    TensorRT-LLM's Qwen3 DSpark model builds vanilla, gated or rnn as named and raises for any
    other name; its later standalone DSpark drafter (GQADSparkForCausalLM) builds vanilla only
    and raises for another type."""
    if p.family != DSPARK or not p.markov_head_type:
        return []
    if p.markov_head_type == "vanilla_checked":
        rank, kind, _ = _checked_head(f)
        if rank <= 0 or kind == "vanilla":
            return []
        key = head_config(f.raw, "markov_head_type")[1]
        msg = (
            f"markov_head_type {kind!r} ({key}): {p.name} builds only the vanilla Markov head "
            "and raises ('only 'vanilla' is supported') when the drafter is built"
        )
        return [new_finding("DSC658", msg, tensor=key)]
    cfg = model_config(f, p)
    named = _markov_type(cfg, f.raw)
    kind = named[0].lower() if named else "vanilla"
    extra = sorted(n for n in under(f.stored_sorted, "markov_head") if not n.startswith(MARKOV_W))
    if p.markov_head_type == "built":
        if count(cfg.get("markov_rank")) in (None, 0) or kind in ("vanilla", "gated", "rnn"):
            return []
        msg = (
            f"markov_head_type {named[0]!r}: {p.runtime} builds vanilla, gated or rnn heads "
            "and raises 'Unsupported markov_head_type' for any other when the drafter is built"
        )
        return [new_finding("DSC658", msg, tensor=named[1])]
    if kind == "vanilla" and not extra:
        return []
    what = (
        f"its {len(extra)} extra tensor(s) ({few(extra, 3)}) have no parameter: 'There is no "
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
    h, rank = count(cfg.get("hidden_size")) or f.cfg.hidden_size, count(cfg.get("markov_rank"))
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


def _parsed_markov(f: Facts, p: Profile) -> tuple[int, tuple[str, Any] | None, bool]:
    """(markov_rank, (key, markov_head_type) or None, whether the dspark_* keys are used) as
    SGLang's DSpark config parser reads them."""
    raw = f.raw
    prefixed = any(
        raw.get(k) is not None
        for k in (
            "dspark_block_size",
            "dspark_markov_rank",
            "dspark_noise_token_id",
            "dspark_target_layer_ids",
        )
    )
    rank = raw.get("dspark_markov_rank")
    if type(rank) is not int:
        rank = f.cfg.markov_rank or 0
    found = next(
        ((k, v) for k in p.markov_head_type_keys if (v := _raw_at(raw, k)[1]) is not None), None
    )
    return rank, found, prefixed


@rule(
    "DSC683",
    ERROR,
    "Markov head type missing or unsupported",
    scope=PROFILE,
    hint='set "markov_head_type": "vanilla" (or the head type the drafter was trained with)',
)
def markov_head_type_unread(f: Facts, p: Profile) -> list[Finding]:
    """SGLang's DSpark config parser needs markov_head_type whenever markov_rank > 0 (read from the
    dspark_* keys, dspark_config / dflash_config, text_config or the top level), unless the config
    uses the dspark_* keys, and accepts only vanilla, gated and rnn: otherwise it refuses the
    drafter at start-up ('DSpark requires markov_head_type when markov_rank > 0')."""
    if not p.markov_head_type_keys:
        return []
    rank, found, prefixed = _parsed_markov(f, p)
    if found is None:
        if rank <= 0 or prefixed:
            return []
        return [
            new_finding(
                "DSC683",
                f"markov_rank is {rank} and no markov_head_type is set (read from "
                f"{', '.join(p.markov_head_type_keys)}): {p.release} refuses the drafter "
                "('DSpark requires markov_head_type when markov_rank > 0, got None')",
                tensor="markov_head_type",
            )
        ]
    key, kind = found
    if str(kind).lower() in p.markov_head_types:
        return []
    return [
        new_finding(
            "DSC683",
            f"{key} is {kind!r}: {p.release} supports {', '.join(p.markov_head_types)} and "
            "refuses the drafter ('Unsupported DSpark markov_head_type')",
            tensor=key,
        )
    ]


@rule(
    "DSC684",
    ERROR,
    "Markov head of another type than the model builds",
    scope=PROFILE,
    hint=(
        "set the top-level markov_head_type to the head the checkpoint holds (the model reads "
        "it there only)"
    ),
)
def markov_head_of_another_type(f: Facts, p: Profile) -> list[Finding]:
    """SGLang's DSpark model builds its Markov head from the top-level markov_head_type only
    (default vanilla), whatever the nested copy the config parser accepted says, and refuses any
    markov_head.* tensor that head lacks ('DSpark unexpected markov weight ... not found in model
    parameters'), or a head type it does not know ('Unsupported DSpark markov_head_type')."""
    if not p.markov_head_types or (built := markov_built(f)) is None:
        return []
    if markov_head_type_unread(f, p):  # DSC683: the parser refuses it first
        return []
    if built not in p.markov_head_types:
        return [
            new_finding(
                "DSC684",
                f"the top-level markov_head_type is {json.dumps(f.raw.get('markov_head_type'))}: "
                f"{p.release}'s DSpark model builds its head from it and refuses it "
                "('Unsupported DSpark markov_head_type')",
                tensor="markov_head_type",
            )
        ]
    known = {f"{m}.weight" for m in MARKOV_W}
    if built in MARKOV_EXTRA:
        known |= {f"{MARKOV_EXTRA[built]}.{t}" for t in ("weight", "bias")}
    stored = [n for n in under(f.stored_sorted, "markov_head") if n in f.tensors]
    other = [n for n in stored if n not in known]
    if not other:
        return []
    return [
        new_finding(
            "DSC684",
            f"{', '.join(other[:3])}: {p.release}'s DSpark model builds a {built} Markov head "
            "(from the top-level markov_head_type, default vanilla) and refuses a Markov "
            "weight it lacks ('DSpark unexpected markov weight ... not found in model "
            "parameters')",
            f.tensors[other[0]],
        )
    ]


# the two Markov tensors, as TensorRT-LLM's DFlash-lineage DSpark drafter takes them
CHECKED_MARKOV = {
    "markov_w1.weight": ("markov_head.markov_w1.weight", "markov_w1.weight"),
    "markov_w2.weight": ("markov_head.markov_w2.weight", "markov_w2.weight"),
}


@rule(
    "DSC695",
    ERROR,
    "Markov head tensors and markov_rank disagree",
    scope=PROFILE,
    hint="ship markov_head.markov_w1 / markov_w2 [V, markov_rank] with a markov_rank > 0 the "
    "runtime reads, or neither",
)
def markov_rank_disagrees(f: Facts, p: Profile) -> list[Finding]:
    """TensorRT-LLM's standalone DSpark drafter (GQADSparkForCausalLM, a DFlash subclass) takes
    markov_rank from dspark_config, dflash_config, dspark_markov_rank or the top level. With a
    rank above 0 it requires both markov_w1 and markov_w2 (under markov_head. or bare) and raises
    at load without one; with none (or 0) it raises at load for a shipped head rather than drop
    it ('loading it would drop the Markov head silently')."""
    if p.markov_head_type != "vanilla_checked":
        return []
    rank, _, key = _checked_head(f)
    found = {
        k: next((n for n in names if n in f.tensors), None) for k, names in CHECKED_MARKOV.items()
    }
    if rank > 0:
        missing = [k for k, n in found.items() if n is None]
        if not missing:
            return []
        return [
            new_finding(
                "DSC695",
                f"markov_rank is {rank} ({key}) but the checkpoint has no {missing[0]} (as "
                f"markov_head.{missing[0]} or bare): {p.name} raises at load ('declares "
                f"markov_rank={rank} but the checkpoint is missing {missing[0]}')",
                tensor=f"markov_head.{missing[0]}",
            )
        ]
    shipped = next((n for n in found.values() if n is not None), None)
    if shipped is None:
        return []
    return [
        new_finding(
            "DSC695",
            f"the checkpoint ships {shipped} but markov_rank resolves to 0 (none above 0 in "
            f"dspark_config, dflash_config, dspark_markov_rank or the top level): {p.name} "
            "raises at load ('loading it would drop the Markov head silently')",
            tensor=shipped,
        )
    ]


# the DSpark head switches, as TensorRT-LLM's declares_dspark_heads reads them: projector_type
# 'dspark', shift_label, use_confidence_head (also spelt enable_confidence_head), markov_rank > 0
def _declared_head(raw: dict) -> tuple[str, Any] | None:
    """The first DSpark head switch the config turns on (its key and value), else None."""
    found = head_config(raw, "projector_type")
    if found and str(found[0]).lower() == "dspark":
        return found[1], found[0]
    # the confidence switch: the first alias found anywhere wins, a false one included
    confidence = head_config(raw, "use_confidence_head") or head_config(
        raw, "enable_confidence_head"
    )
    for found in (head_config(raw, "shift_label"), confidence):
        if found and truthy(found[0]):
            return found[1], found[0]
    found = head_config(raw, "markov_rank")
    if found and (count(found[0]) or 0) > 0:
        return found[1], found[0]
    return None


@rule(
    "DSC696",
    ERROR,
    "DSpark heads declared: the DFlash drafter refuses them at build",
    scope=PROFILE,
    hint="serve it as DSpark (the runtime's DSpark decoding type), or drop the DSpark head "
    "keys if the drafter was trained without those heads",
)
def dspark_heads_refused(f: Facts, p: Profile) -> list[Finding]:
    """TensorRT-LLM's DFlash drafter implements none of the DSpark heads (the Markov head, the
    confidence head, shift_label). Its builder refuses a drafter whose config declares any of
    them (projector_type 'dspark', shift_label, use_confidence_head or enable_confidence_head,
    markov_rank > 0, each looked up in dspark_config, dflash_config, dspark_<key> and the top
    level) with a ValueError, rather than serve it without its heads."""
    if p.markov_head_type != "refused" or (found := _declared_head(f.raw)) is None:
        return []
    key, value = found
    return [
        new_finding(
            "DSC696",
            f"{key} is {json.dumps(value)}: the config declares the DSpark head set, which "
            f"{p.name}'s DFlash drafter does not implement; its build refuses it (ValueError "
            "'declares the DSpark head set ... Set speculative_config.decoding_type to "
            "'DSpark' to run it')",
            tensor=key,
        )
    ]


TOPK = "dspark_draft_topk"


@rule(
    "DSC697",
    ERROR,
    "dspark_draft_topk outside [1, the draft vocab]: refused at start-up",
    scope=PROFILE,
    hint="set dspark_draft_topk to the top-k the drafter was trained with, an integer from 1 to "
    "the draft vocab size, or remove it (the runtime's default applies)",
)
def draft_topk_out_of_range(f: Facts, p: Profile) -> list[Finding]:
    """vLLM reads a DSpark config's dspark_draft_topk as an attribute (its top level) and
    refuses one that is not between 1 and the draft vocab size (draft_vocab_size, or
    vocab_size where it is unset) when it builds its speculative config: 'dspark_draft_topk
    must be between 1 and the draft vocabulary size'. A value that cannot be compared with
    a number (a string, a list) fails there too, with a TypeError. A dspark_draft_topk given to
    the server in its speculative config takes the config's place."""
    if not p.draft_topk_range or TOPK not in f.raw or f.raw[TOPK] is None:
        return []
    value, vd = f.raw[TOPK], f.raw.get("draft_vocab_size") or f.V
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if isinstance(value, bool) or (number and 1 <= value <= vd):
        return []  # True is 1 in Python's comparison: read as a top-k of 1
    got = json.dumps(value)[:60]
    why = f"not between 1 and the draft vocab size {vd}" if number else "not a number"
    return [
        new_finding(
            "DSC697",
            f"{TOPK} is {got}, {why}: {p.release} refuses the drafter when it builds its "
            "speculative config",
            tensor=TOPK,
        )
    ]
