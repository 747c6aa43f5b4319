"""Embeddings that silently replace what the drafter was trained with.

A runtime that reads ``tie_word_embeddings`` from the drafter config makes the head the
embedding module (``Profile.tied_head``): the ``lm_head`` the checkpoint ships is never
loaded, and the logits come from an embedding ``V`` rows wide, not from the ``Vd``-row
head the drafter was trained with. The load succeeds; the drafter drafts garbage (DSC670).
A runtime that keeps a shipped embedding whose values differ from the target's
(``Profile.own_embed_kept``) embeds with it, not with the target's (DSC673).

Each function is one finding code (``registry.py``); its docstring is the code's
explanation. They read only the gathered ``Facts``.
"""

from __future__ import annotations

from dspark_ckpt.facts.embedding import SAMPLED
from dspark_ckpt.facts.gather import Facts
from dspark_ckpt.loader.heads import REFUSED, SHIPPED, TIE, heads
from dspark_ckpt.profiles.registry import Profile
from dspark_ckpt.rules.findings import ERROR, WARNING, Finding, new_finding
from dspark_ckpt.rules.registry import PROFILE, rule
from dspark_ckpt.rules.repairs import SAFE, Fix, Needs, SetKey, repair


def _shape(info) -> list[int] | None:
    return list(info.shape) if info is not None else None


@repair("untie-shipped-head", SAFE)
def untie_shipped_head(f: Facts, p: Profile | None, finding: Finding) -> Fix | Needs | None:
    """The checkpoint ships its own lm_head: ``tie_word_embeddings`` is set to false, so that the
    runtime builds a head of its own and loads the shipped one into it. Safe: the weights say
    the head is not the embedding (a tied checkpoint has no lm_head to ship)."""
    if f.lm_head is None:
        return None
    return Fix(
        (SetKey(TIE, False),), "set tie_word_embeddings false (the checkpoint ships lm_head)"
    )


@rule(
    "DSC670",
    ERROR,
    "tie_word_embeddings replaces the drafter's head",
    scope=PROFILE,
    hint="set tie_word_embeddings false when the checkpoint ships its own lm_head",
    repair=untie_shipped_head,
)
def tied_head_replaced(f: Facts, p: Profile) -> list[Finding]:
    """The drafter config sets tie_word_embeddings, and the runtime reads it: SGLang's EAGLE-3
    model makes lm_head its embed_tokens module (llama_eagle3.py: `if
    self.config.tie_word_embeddings: self.lm_head = self.model.embed_tokens`), then skips the
    shipped lm_head.weight as a name it has no parameter for, and shares the target's embedding
    into that module: the head that drafts is the target's embedding, V rows wide, cut to its
    first Vd columns, not the trained Vd-row head (and the d2t map no longer matches its rows).
    TensorRT-LLM's EAGLE-3 model ties the same way, and fails at build where its embedding is
    shared with the target (None at that point). No error, or a load error with no hint of the
    cause. vLLM's Gemma 4 assistant (Gemma4MTP) reads it at the assistant's top level, true
    where absent: lm_head is its own shipped embed_tokens, and a shipped lm_head.weight is
    skipped as that embedding's alias; vLLM's other drafter classes never read the key. A
    config copied from a tied target (Llama 3.2 1B, Qwen3 4B) brings the key along."""
    h = heads(f, p)  # the loader model decides (loader/heads.py; truthiness, as read)
    if h.head_source.field != "tied_head":
        return []
    own = h.own_embedding or p.tied_head == "own_embedding"  # tied to the shipped embedding
    if h.head_source.source == REFUSED:
        return [
            new_finding(
                "DSC670",
                f"{TIE} is true and the drafter's embed_tokens is the target's (no "
                f"target_hidden_size of another width): {p.runtime} ties lm_head to an embedding "
                "that is not built yet and fails building the drafter (an AttributeError on "
                "None)",
                tensor=TIE,
                hint=f"set {TIE} false in config.json"
                + ("" if f.lm_head is not None else " (the target's lm_head is then shared)"),
            )
        ]
    head = _shape(f.lm_head)
    embedding = (
        f"its own embed_tokens ({f.cfg.vocab_size} rows)" if own else "the target's embedding"
    )
    if head is not None:
        return [
            new_finding(
                "DSC670",
                f"{TIE} is true: {p.runtime} makes lm_head {embedding} and never "
                f"loads the shipped lm_head {head}: the drafter drafts from the embedding, not "
                "from its trained head; no error, garbage proposals",
                f.lm_head,
                hint=f"set {TIE} false in config.json: the shipped head is then loaded",
            )
        ]
    if f.Vd != f.cfg.vocab_size:  # a reduced head the embedding cannot stand in for
        return [
            new_finding(
                "DSC670",
                f"{TIE} is true and the drafter ships no lm_head: {p.runtime} drafts from "
                f"{embedding}, cut to its first {f.Vd} logits, which d2t reads as "
                f"draft ids of a pruned vocab: every proposal maps to the wrong token",
                tensor=TIE,
                hint=f"ship the trained lm_head [{f.Vd}, {f.cfg.hidden_size}] and set {TIE} false",
            )
        ]
    return []  # the embedding is the head, as the config says; both are V wide


@rule(
    "DSC673",
    WARNING,
    "shipped embedding of the target's shape kept in place of the target's",
    scope=PROFILE,
    hint="if the drafter was trained on the target's embedding, re-export it with that copy, or "
    "without embed_tokens (the target's is then shared)",
)
def own_embedding_kept(f: Facts, p: Profile) -> list[Finding]:
    """The drafter ships an embed_tokens of the target's shape whose values differ from the
    target's input embedding (compared on a few rows spread over the vocab, both local:
    facts/embedding.py). vLLM keeps such a copy (``torch.equal`` decides whether it shares
    the target's), so the drafter embeds its tokens with it; SGLang and TensorRT-LLM replace
    it with the target's whatever it holds. Trainers ship the target's frozen copy: one that
    differs is a trained embedding, or a bad export (a random one: TorchSpec issue #38,
    acceptance collapsed). Not checked where the rows cannot be read (a Hub or weightless
    target, another dtype)."""
    embed = heads(f, p).embed_source
    if f.embed_is_target is not False or f.Vt != f.V:
        return []
    if (embed.source, embed.field) != (SHIPPED, "own_embed_kept"):
        return []
    return [
        new_finding(
            "DSC673",
            f"{f.embed.name} has the target's shape {list(f.embed.shape)} but other values "
            f"(of {SAMPLED} rows read from each): {p.release} keeps it in place of the target's "
            "embedding, so the drafter embeds its tokens with this one",
            tensor=f.embed.name,
        )
    ]
