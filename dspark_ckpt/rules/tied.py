"""Trained parts a runtime silently replaces or drops.

A runtime that reads ``tie_word_embeddings`` from the drafter config makes the head the
embedding module (``Profile.tied_head``): the ``lm_head`` the checkpoint ships is never
loaded, and the logits come from an embedding ``V`` rows wide, not from the ``Vd``-row
head the drafter was trained with. The load succeeds; the drafter drafts garbage (DSC670).
A runtime that keeps a shipped embedding whose values differ from the target's
(``Profile.own_embed_kept``) embeds with it, not with the target's (DSC673). A trained
input_norm the config does not build is dropped by name (DSC674).

Each function is one finding code (``registry.py``); its docstring is the code's
explanation. They read only the gathered ``Facts``.
"""

from __future__ import annotations

from dspark_ckpt.facts.embedding import SAMPLED
from dspark_ckpt.facts.gather import Facts
from dspark_ckpt.loader.heads import REFUSED, SHIPPED, TIE, heads
from dspark_ckpt.loader.model import loader_model
from dspark_ckpt.loader.parts import Module
from dspark_ckpt.profiles.registry import EAGLE3, Profile
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
    embed = heads(f, p).embed_source  # the loader model decides (loader/heads.py)
    if (embed.source, embed.field) != (SHIPPED, "own_embed_kept") or f.Vt != f.V:
        return []  # not kept, or kept for another shape (DSC110's)
    return [
        new_finding(
            "DSC673",
            f"{f.embed.name} has the target's shape {list(f.embed.shape)} but other values "
            f"(of {SAMPLED} rows read from each): {p.release} keeps it in place of the target's "
            "embedding, so the drafter embeds its tokens with this one",
            tensor=f.embed.name,
        )
    ]


def _norm_before_fc_key(f: Facts) -> str:
    """Where the EAGLE-3 model reads norm_before_fc: eagle_config's key wins where present
    (vLLM llama_eagle3.py:184-188), else the top level (a speculators config's, copied by its
    translation: speculators/algos.py:36)."""
    nest = f.raw.get("eagle_config")
    return (
        "eagle_config.norm_before_fc"
        if isinstance(nest, dict) and "norm_before_fc" in nest
        else "norm_before_fc"
    )


@repair("build-input-norm", SAFE)
def build_input_norm(f: Facts, p: Profile | None, finding: Finding) -> Fix | None:
    """norm_before_fc is set true where the model reads it, so that the runtime builds the
    input_norm the checkpoint ships and loads it. Safe: the weights say the drafter was
    trained with the norm (an input_norm is trained only where it is applied)."""
    if f.input_norm is None:
        return None
    key = _norm_before_fc_key(f)
    return Fix((SetKey(key, True),), f"set {key} true (the checkpoint ships input_norm)")


@rule(
    "DSC674",
    ERROR,
    "trained input_norm the config does not build: dropped silently",
    scope=PROFILE,
    hint="set norm_before_fc true where the runtime reads it, so that the trained norm is built",
    repair=build_input_norm,
)
def input_norm_dropped(f: Facts, p: Profile) -> list[Finding]:
    """The checkpoint ships a trained input_norm (the norm EAGLE-3 applies before fc) and the
    config does not turn norm_before_fc on where the runtime reads it (a speculators config's
    translation defaults it to false: vLLM speculators/algos.py:36). vLLM's EAGLE-3 loader then
    drops every input_norm. name on purpose (llama_eagle3.py:464-465), and SGLang's, which builds
    no input_norm either (llama_eagle3.py:173-182), skips a name it has no parameter for: the
    drafter loads with no error and runs fc on hidden states its trained norm never saw (vLLM
    PR #38111)."""
    dropped = "input_norm" in p.dropped_unbuilt
    if f.input_norm is None or p.family != EAGLE3:
        return []
    if not (dropped or p.missing_tensors == "default_init"):  # else refused: DSC112
        return []
    model = loader_model(f, p)
    if model is None or any(isinstance(m, Module) and m.path == "input_norm" for m in model.parts):
        return []
    return [
        new_finding(
            "DSC674",
            f"{f.input_norm.name} is stored and {_norm_before_fc_key(f)} is not true: "
            f"{p.release} builds no input_norm, {'drops' if dropped else 'skips'} the trained "
            "one and runs fc without it (no error)",
            f.input_norm,
        )
    ]
