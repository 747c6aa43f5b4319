"""Vocab sizes: the draft vocab against the input vocab, the target's vocab and its
embedding, and how each runtime's rule calls a draft vocab "reduced".

Each function is one finding code (``registry.py``); its docstring is the code's
explanation. They read only the gathered ``Facts``.
"""

from __future__ import annotations

from dspark_ckpt.facts.config import SPECULATORS_DEFAULT_DRAFT_VOCAB
from dspark_ckpt.facts.gather import Facts
from dspark_ckpt.facts.vocab import PADDED
from dspark_ckpt.profiles.registry import DSPARK, EAGLE3, PROFILES, Profile, detect_family
from dspark_ckpt.rules.findings import ERROR, INFO, WARNING, Finding, new_finding
from dspark_ckpt.rules.registry import COMMON, PROFILE, rule
from dspark_ckpt.rules.repairs import SAFE, Cut, Fix, SetKey, repair


def reduced(f: Facts, p: Profile) -> bool:
    """Whether ``p``'s rule treats the draft vocab as reduced (a d2t parameter exists)."""
    return p.reduced(f.Vd, f.Vt, f.V)


def reduced_text(f: Facts, p: Profile) -> str:
    """``p``'s rule for a reduced draft vocab, with this drafter's numbers."""
    other = ("V", f.V) if p.reduced_against == "vocab_size" else ("Vt", f.Vt)
    return f"Vd {p.reduced_when} {other[0]}: {f.Vd} {p.reduced_when} {other[1]}"


@rule(
    "DSC106",
    ERROR,
    "draft vocab larger than a Qwen3-Omni target's",
    scope=PROFILE,
    hint="prune or truncate the draft vocab to at most Vt",
)
def omni_draft_vocab(f: Facts, p: Profile) -> list[Finding]:
    """vLLM's config-time check for Qwen3-Omni targets requires 0 < draft_vocab_size <= the thinker
    text config's vocab_size."""
    if p.omni_vocab_check and f.target.is_omni and f.Vd > f.Vt:
        return [
            new_finding(
                "DSC106",
                f"draft_vocab_size {f.Vd} exceeds the Qwen3-Omni target's thinker vocab_size "
                f"{f.Vt}: {p.runtime} refuses it at config time",
                tensor="draft_vocab_size",
            )
        ]
    return []


@repair("trim-padding", SAFE)
def trim_padding(f: Facts, p: Profile | None, finding: Finding) -> Fix | None:
    """A padded drafter (Vd > Vt) loses its padding: every tensor with a row per draft id
    (lm_head, the Markov head's output rows, d2t) is cut to its first Vt rows, the bytes of
    those rows as they are, and draft_vocab_size becomes Vt. Where the input vocab is padded
    alike (V == Vd) and no mask token id lies in the padding, the input side is cut too
    (embed_tokens, markov_w1, vocab_size Vt): runtimes that size the Markov head by V
    (SGLang, TensorRT-LLM) then agree with those that size it by Vd (vLLM). The rows cut can
    never be a token, so nothing the drafter learnt is lost, and no runtime can sample them
    any more: the effect of the padded-row mask with nothing for the runtime to apply. A
    drafter with no lm_head of its own (trained on the target's) then has Vd == Vt, where
    every runtime shares the target's head, as in training."""
    if f.classification != PADDED:
        return None
    rows = {f.Vd: (f.lm_head, f.markov_w2, f.d2t)}
    keys = [SetKey("draft_vocab_size", f.Vt)]
    inputs = f.Vd == f.V and all(0 <= t < f.Vt for _, t in f.cfg.mask_tokens)
    if inputs:
        rows[f.Vd] += (f.embed, f.markov_w1)
        keys.append(SetKey(f.cfg.where("vocab_size"), f.Vt))
    cut = list(
        dict.fromkeys(
            t.name for t in rows[f.Vd] if t is not None and t.shape and t.shape[0] == f.Vd
        )
    )
    sizes = "draft_vocab_size" + (" and vocab_size" if inputs else "")
    return Fix(
        (*(Cut(name, f.Vt) for name in cut), *keys),
        f"trim the {f.padded_rows} padded rows [{f.Vt}, {f.Vd}): {', '.join(cut)} cut to "
        f"their first {f.Vt} rows, {sizes} {f.Vt}",
    )


@rule(
    "DSC207",
    ERROR,
    "draft vocab larger than the target's embedding",
    scope=COMMON,
    hint=(
        "trim the padding: `dspark-ckpt fix DRAFTER --target T --out DIR` cuts lm_head and "
        "draft_vocab_size to Vt rows (a padded-row mask, `--emit-mask`, keeps sampling in "
        "bounds meanwhile, but the checkpoint still fails)"
    ),
    repair=trim_padding,
)
def draft_vocab_above_embedding(f: Facts) -> list[Finding]:
    """Vd > Et: with the identity map, a sampled padded id indexes past the target's embedding rows
    and takes down every tensor-parallel rank with a device-side assert."""
    et = f.target.embedding_rows
    if f.classification != PADDED or et is None or f.Vd <= et:
        return []
    return [
        new_finding(
            "DSC207",
            f"draft_vocab_size {f.Vd} exceeds the target's {et} embedding rows "
            f"({f.target.embedding_tensor}): sampled ids in [{et}, {f.Vd}) index out of "
            "bounds",
            tensor="draft_vocab_size",
        )
    ]


def _padded_tensor(f: Facts) -> str:
    """The tensor whose rows [Vt, Vd) are the padding: the drafter's head, else the first
    other with a row per draft id (a Markov head's output rows, d2t); else the config key."""
    for t in (f.lm_head, f.markov_w2, f.d2t):
        if t is not None and t.shape and t.shape[0] == f.Vd:
            return t.name
    return "draft_vocab_size"


@rule(
    "DSC401",
    WARNING,
    "padded rows reachable by sampling",
    scope=COMMON,
    hint="trim the padding: `dspark-ckpt fix DRAFTER --target T --out DIR` cuts the head to "
    "Vt rows (or apply a padded-row mask in the serving code: `--emit-mask`)",
    repair=trim_padding,
)
def padded_rows_sampled(f: Facts) -> list[Finding]:
    """Rows [Vt, Vd) are padding, not tokens, yet no runtime masks them: the draft is sampled
    over the full Vd width of the drafter's head (greedy, top-k or Gumbel alike; a DSpark
    drafter's Markov bias adds to them too). A sampled padded id becomes an illegal target token
    or an out-of-bounds index. The finding names the tensor whose rows are padded: lm_head, or
    for a drafter with no head of its own the Markov head's output rows (markov_w2) or d2t."""
    if f.classification != PADDED:
        return []
    et = f.target.embedding_rows
    illegal = f"[{f.Vt}, {f.Vd})"
    return [
        new_finding(
            "DSC401",
            f"{f.padded_rows} padded rows {illegal} can be sampled (no runtime masks them): "
            "each becomes an illegal target token"
            + (f", or an out-of-bounds index at or above Et {et}" if et and et < f.Vd else ""),
            tensor=_padded_tensor(f),
        )
    ]


@repair("write-draft-vocab-size", SAFE)
def write_draft_vocab_size(f: Facts, p: Profile | None, finding: Finding) -> Fix | None:
    """draft_vocab_size is written in config.json as the rows of the shipped lm_head, so
    that no runtime or library falls back to its own default (the speculators library's
    is 32000; SGLang's EAGLE-3 loader then takes the target's head instead of the drafter's).
    A padded drafter's is written by trim-padding instead (Vt, the padding cut), which the
    same plan applies (DSC401 fires on every padded drafter): writing the padded rows
    would keep the padding that plan cuts."""
    if f.lm_head is None or not f.lm_head.shape:
        return None  # with no head, writing it makes SGLang EAGLE-3 build an empty one
    if f.classification == PADDED:
        return None
    rows = f.lm_head.shape[0]
    return Fix((SetKey("draft_vocab_size", rows),), f"write draft_vocab_size {rows} (lm_head rows)")


def _mla(f: Facts) -> bool:
    """SGLang's EAGLE-3 over DeepSeek MLA reads draft_vocab_size with a default (no DSC681)."""
    archs = f.cfg.architectures
    return bool(archs) and archs[0] in PROFILES["sglang-eagle3"].mla_architectures


@rule(
    "DSC501",
    INFO,
    "draft_vocab_size missing: defaulted",
    scope=COMMON,
    hint="write draft_vocab_size explicitly in config.json",
    repair=write_draft_vocab_size,
)
def draft_vocab_defaulted(f: Facts) -> list[Finding]:
    """With no draft_vocab_size, vLLM and TensorRT-LLM use vocab_size; SGLang's EAGLE-3 loader does
    for an explicit null and fails on a missing key (DSC681), its DFlash/DSpark loaders never read
    it; the speculators library's own configs default to 32000."""
    if not f.cfg.draft_vocab_size_defaulted:
        return []
    # SGLang's EAGLE-3 loader reads an explicit null as V, and fails on a missing key; its
    # DFlash/DSpark loaders never read the key
    if detect_family(f.cfg) != EAGLE3:
        who = f"vLLM and TensorRT-LLM use vocab_size {f.V} (SGLang does not read the key)"
    elif "draft_vocab_size" not in f.raw and not _mla(f):
        who = (
            f"vLLM and TensorRT-LLM use vocab_size {f.V} (SGLang's EAGLE-3 loader fails "
            "without the key: DSC681)"
        )
    else:
        who = f"vLLM, SGLang and TensorRT-LLM use vocab_size {f.V}"
    spec = (
        f" (this is a speculators-format config, whose library defaults to "
        f"{SPECULATORS_DEFAULT_DRAFT_VOCAB})"
        if f.cfg.speculators_format
        else f"; the speculators library would default to {SPECULATORS_DEFAULT_DRAFT_VOCAB}"
    )
    return [
        new_finding(
            "DSC501",
            f"draft_vocab_size is missing: {who}{spec}",
            tensor="draft_vocab_size",
        )
    ]


@rule(
    "DSC603",
    ERROR,
    "draft vocab larger than the input vocab",
    scope=PROFILE,
    hint=(
        "if rows [V, Vd) are padding, truncate lm_head (and d2t, markov_w2) to V rows and set "
        "draft_vocab_size = V; else export the input vocab with Vd rows"
    ),
    repair=trim_padding,
)
def draft_vocab_above_vocab(f: Facts, p: Profile) -> list[Finding]:
    """Vd > V breaks the drafter itself: vLLM's DSpark feeds each sampled draft id back into
    markov_w1 (V rows) at the next step, and vLLM's EAGLE-3 and DFlash scatter the Vd draft logits
    into a V-wide row (EAGLE-3 without a d2t parameter asserts the logits are V wide): an index
    error at the first draft step."""
    # Vd > V is an index error inside the drafter at the first draft step
    if p.draft_vocab_above_vocab or f.Vd <= f.V:
        return []
    if p.family == DSPARK:
        how = (
            f"{p.runtime} feeds each sampled draft id back into markov_w1 ({f.V} rows) at "
            f"the next step: ids in [{f.V}, {f.Vd}) are an index error"
        )
    elif reduced(f, p):
        how = (
            f"compute_logits scatters the {f.Vd} draft logits into a {f.V}-wide row at "
            "arange(Vd) + d2t: an index error at the first draft step"
        )
    else:
        how = (
            f"compute_logits asserts the {f.Vd} draft logits are vocab_size ({f.V}) wide: "
            "an assertion error at the first draft step"
        )
    return [
        new_finding(
            "DSC603",
            f"draft_vocab_size {f.Vd} > vocab_size {f.V}: {how}",
            tensor="draft_vocab_size",
        )
    ]


@rule(
    "DSC605",
    ERROR,
    "input vocab differs from the target's logit width",
    scope=PROFILE,
    hint="export the drafter with vocab_size equal to the target head's rows",
)
def vocab_not_target_width(f: Facts, p: Profile) -> list[Finding]:
    """A DSpark drafter that drafts from the target's lm_head adds a Markov bias of vocab_size
    (V) columns to its logits, so V must equal the target's logit width (its head's rows).
    TensorRT-LLM's Qwen3 DSpark adds it whole: a shape error at the first draft step. SGLang's
    adds it over the first V logits and asserts the bias is no wider, while its markov_w1 (V
    rows) embeds the anchor and every drafted target id: V above the width is an
    AssertionError at the first draft step, V below it an index error as soon as a target id
    in [V, width) is drafted or is the anchor."""
    width = f.target.embedding_rows  # the target head's rows: unknown without its weights
    over = p.markov_bias_width == "at_most_target"
    if not (p.vocab_is_target_width or over) or width is None or width == f.V:
        return []
    if not over:
        what = (
            f"{p.runtime} adds a Markov bias of {f.V} columns to the target head's {width} "
            "logits, a shape error at the first draft step"
        )
    elif width < f.V:
        what = (
            f"the Markov bias ({f.V} columns) is wider than the target head's {width} logits: "
            f"{p.release} asserts it is not (bias.shape[1] <= base_logits.shape[1]), an "
            "AssertionError at the first draft step"
        )
    else:
        what = (
            f"the Markov bias covers the first {f.V} of the target head's {width} logits and "
            f"markov_w1 ({f.V} rows) embeds the anchor and every drafted target id: the first "
            f"id in [{f.V}, {width}) is an index error (a device-side assert on GPU)"
        )
    return [
        new_finding(
            "DSC605",
            f"vocab_size {f.V} differs from the target's {f.target.embedding_tensor} rows "
            f"({width}): {what}",
            tensor="vocab_size",
        )
    ]
