"""The loader model's answer to "which head and embedding does the built drafter use"
(``loader/heads.py``): the shipped tensors, or what the release takes instead, with the
cited profile field that says so. The vocab and load rules read this answer; these rows hold
the answer itself against real safetensors drafters, per runtime."""

from __future__ import annotations

import pytest
from rules_harness import EAGLE3, SG_DSPARK, SG_EAGLE3_LAYERS, head, mapping
from synth import VT

from dspark_ckpt.facts.config import drafter_config
from dspark_ckpt.facts.gather import gather
from dspark_ckpt.facts.vocab import EMBED, LM_HEAD
from dspark_ckpt.loader.heads import (
    EMBEDDING,
    REFUSED,
    SHIPPED,
    TARGET,
    UNINITIALISED,
    Replaced,
    Source,
    heads,
)
from dspark_ckpt.profiles.registry import get_profile
from dspark_ckpt.source.checkpoint import open_checkpoint

PRUNED = {"lm_head.weight": head(32), **mapping(32), **SG_EAGLE3_LAYERS}
NO_HEAD = {k: v for k, v in PRUNED.items() if k != "lm_head.weight"}


def answer(bench, profile: str, config: dict, tensors: dict, *, draft=32, vocab=VT):
    folder = bench.drafter(config, tensors, draft=draft, vocab=vocab)
    ckpt = open_checkpoint(str(folder))
    facts = gather(ckpt, drafter_config(ckpt), bench.target(VT))
    return heads(facts, get_profile(profile))


@pytest.mark.parametrize(
    ("profile", "config", "tensors", "draft", "head_source", "replaced"),
    [
        # SGLang EAGLE-3 builds a Vd head and loads the shipped one (llama_eagle3.py:305-311)
        ("sglang-eagle3", EAGLE3, PRUNED, 32, Source(SHIPPED), ()),
        # ... unless draft_vocab_size is missing: the target's head (load_lm_head_from_target)
        ("sglang-eagle3", EAGLE3, PRUNED, None,
         Source(TARGET, "lm_head_from_target", "no_draft_vocab_size"),
         (Replaced(LM_HEAD, "the target's lm_head", "lm_head_from_target"),)),
        # a set draft_vocab_size and no head: a head nothing loads
        ("sglang-eagle3", EAGLE3, NO_HEAD, 32,
         Source(UNINITIALISED, "missing_lm_head", "uninitialised"), ()),
        # a tie read as Python truthiness (`if self.config.tie_word_embeddings:`): 1 ties
        ("sglang-eagle3", {**EAGLE3, "tie_word_embeddings": 1}, PRUNED, 32,
         Source(EMBEDDING, "tied_head", "embedding"),
         (Replaced(LM_HEAD, "the embedding", "tied_head"),)),
        ("sglang-eagle3", {**EAGLE3, "tie_word_embeddings": 1}, NO_HEAD, 32,
         Source(EMBEDDING, "tied_head", "embedding"), ()),
        # TensorRT-LLM's tie reads an embedding the target shares (None at build)
        ("trtllm-eagle3", {**EAGLE3, "tie_word_embeddings": True}, PRUNED, 32,
         Source(REFUSED, "tied_head", "embedding_or_refused"), ()),
        # vLLM's DSpark loader refuses a reduced drafter without its head
        ("vllm", {}, {"lm_head.weight": None}, 32,
         Source(REFUSED, "missing_lm_head", "refused"), ()),
        # ... and shares the target's at Vd == Vt; vLLM never reads the tie
        ("vllm", {"tie_word_embeddings": True}, {"lm_head.weight": None}, VT,
         Source(TARGET, "missing_lm_head", "refused"), ()),
        # SGLang's DSpark always takes the target's head (skips lm_head.*)
        ("sglang-dspark", SG_DSPARK, {"lm_head.weight": head(32)}, 32,
         Source(TARGET, "lm_head_from_target", "always"),
         (Replaced(LM_HEAD, "the target's lm_head", "lm_head_from_target"),)),
    ],
)  # fmt: skip
def test_head_source(bench, profile, config, tensors, draft, head_source, replaced):
    h = answer(bench, profile, config, tensors, draft=draft)
    assert h.head_source == head_source
    assert tuple(r for r in h.replaced if r.what == LM_HEAD) == replaced


def test_embed_source(bench):
    """vLLM keeps a shipped embedding of another shape than the target's, and shares the
    target's for one of the same shape; TensorRT-LLM's DSpark always takes the target's; an
    expanded input vocab with no embedding is refused by vLLM."""
    embed = {"embed_tokens.weight": head(VT - 4)}
    own = answer(bench, "vllm", {}, embed, draft=VT, vocab=VT - 4)
    assert own.embed_source == Source(SHIPPED, "own_embed_kept", True)
    same = answer(bench, "vllm", {}, {"embed_tokens.weight": head(VT)}, draft=VT)
    assert same.embed_source.source == TARGET
    trt = answer(bench, "trtllm-dspark-legacy", {}, {"embed_tokens.weight": head(VT)}, draft=VT)
    assert trt.embed_source == Source(TARGET, "own_embed_kept", False)
    assert Replaced(EMBED, "the target's embed_tokens", "own_embed_kept") in trt.replaced
    expanded = answer(bench, "vllm", {}, {"embed_tokens.weight": None}, draft=VT, vocab=VT + 4)
    assert expanded.embed_source == Source(REFUSED, "requires_embed_when_expanded", True)
