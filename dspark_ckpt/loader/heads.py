"""What a runtime release puts in the built drafter's head and embedding: the shipped
tensor, or a module it takes instead (the target's head or embedding, the drafter's own
embedding through a tie). ``heads(facts, profile)`` answers once per pair (cached in
``Facts.memo``); the vocab and load rules (DSC101, DSC102, DSC104, DSC110, DSC601, DSC602)
and the tie rule (DSC670) read it instead of deciding it again.

Each answer names the profile field that decided it (cited in the profile) and that
field's value, so a rule words its finding by the runtime's reason, not by its own test.
Pure functions of the ``Facts`` and a ``Profile``.
"""

from __future__ import annotations

from dspark_ckpt.facts.gather import Facts
from dspark_ckpt.facts.vocab import EMBED, LM_HEAD, PADDED
from dspark_ckpt.loader.view import model_config, truthy
from dspark_ckpt.profiles.registry import Profile
from dspark_ckpt.record import record

TIE = "tie_word_embeddings"

# where the built model's head / embedding comes from
SHIPPED = "shipped"  # the checkpoint's own tensor is loaded into it
TARGET = "target"  # the target's module is taken instead
EMBEDDING = "embedding"  # the head is the drafter's embedding module (a tie)
UNINITIALISED = "uninitialised"  # a module nothing loads: uninitialised memory
REFUSED = "refused"  # the runtime refuses to load or build the drafter


@record
class Source:
    """Where one module of the built model comes from, and the profile field (with its
    value) that says so; ``field`` "" where nothing replaces the shipped tensor."""

    source: str
    field: str = ""
    value: object = None


@record
class Replaced:
    """A shipped tensor the runtime never uses: what, by what, and the cited field."""

    what: str
    by: str
    field: str


@record
class Heads:
    head_source: Source
    embed_source: Source
    own_embedding: bool  # the runtime builds the drafter an embedding of its own
    replaced: tuple[Replaced, ...]  # the shipped head / embedding replaced silently


def own_embedding(f: Facts) -> bool:
    """Whether the runtime builds the drafter an embedding of its own rather than sharing the
    target's: SGLang's set_embed and TensorRT-LLM's Eagle3DraftModel both keep their own only
    where a target_hidden_size key is there and differs from hidden_size."""
    raw = f.raw
    return "target_hidden_size" in raw and raw["target_hidden_size"] != f.cfg.hidden_size


def heads(f: Facts, p: Profile) -> Heads:
    """Where ``p``'s release takes this drafter's lm_head and embed_tokens from."""
    key = ("heads", p)
    if key not in f.memo:
        tied = bool(p.tied_head) and truthy(model_config(f, p).get(TIE))
        own = own_embedding(f)
        head, embed = _head(f, p, tied, own), _embed(f, p, own)
        replaced = []
        if f.lm_head is not None and head.source in (TARGET, EMBEDDING):
            by = "the target's lm_head" if head.source == TARGET else "the embedding"
            replaced.append(Replaced(LM_HEAD, by, head.field))
        if f.embed is not None and embed.source == TARGET:
            replaced.append(Replaced(EMBED, "the target's embed_tokens", embed.field))
        f.memo[key] = Heads(head, embed, own, tuple(replaced))
    return f.memo[key]


def _head(f: Facts, p: Profile, tied: bool, own: bool) -> Source:
    if tied:  # the head is the embedding module; the shipped lm_head is never loaded
        if p.tied_head == "embedding_or_refused" and not own:
            return Source(REFUSED, "tied_head", p.tied_head)
        return Source(EMBEDDING, "tied_head", p.tied_head)
    if f.lm_head is not None:
        taken = p.lm_head_from_target
        if taken in ("always", "unbuilt") or (
            taken == "no_draft_vocab_size" and f.cfg.draft_vocab_size_defaulted
        ):
            return Source(TARGET, "lm_head_from_target", taken)
        return Source(SHIPPED)
    missing = p.missing_lm_head
    if missing == "refused":
        if p.reduced(f.Vd, f.Vt, f.V):
            return Source(REFUSED, "missing_lm_head", missing)
        if f.classification == PADDED:  # shared only when Vd == Vt
            return Source(UNINITIALISED, "missing_lm_head", missing)
    if missing == "unshared" and f.Vd != f.Vt:
        return Source(UNINITIALISED, "missing_lm_head", missing)
    if missing == "uninitialised" and not f.cfg.draft_vocab_size_defaulted:
        return Source(UNINITIALISED, "missing_lm_head", missing)
    return Source(TARGET, "missing_lm_head", missing)


def _embed(f: Facts, p: Profile, own: bool) -> Source:
    if f.embed is None:
        if p.requires_embed_when_expanded and f.expanded_input_vocab:
            return Source(REFUSED, "requires_embed_when_expanded", True)
        return Source(TARGET)
    if p.own_embed_kept:  # kept where its shape or its values differ from the target's
        if f.Vt != f.V or f.embed_is_target is False:
            return Source(SHIPPED, "own_embed_kept", True)
        return Source(TARGET, "own_embed_kept", True)
    if own:
        return Source(SHIPPED)
    return Source(TARGET, "own_embed_kept", False)
