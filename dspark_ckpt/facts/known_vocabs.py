"""Vocab sizes of common model families: the target a drafter's vocab was made for.

A drafter's ``vocab_size``, the length of its ``t2d`` (one entry per id of the vocab
it was trained against) and the target ids its ``d2t`` reaches all say which vocab it
was made for. Where that is a known family's size and the target's ``Vt`` is another
family's, the drafter was made for another target (DSC310). Only sizes that name one
model family's ``vocab_size`` (its config's, as vLLM's ``get_vocab_size()`` reads it)
are listed: a size not listed names nothing, and nothing is guessed from it.
"""

from __future__ import annotations

# config vocab_size -> the model family whose configs carry it
KNOWN_VOCABS: dict[int, str] = {
    32000: "Llama 2 or Mistral 7B v0.1",
    32768: "Mistral 7B v0.3 or Mixtral 8x22B",
    100352: "Phi-4",
    102400: "DeepSeek LLM or DeepSeek-V2",
    128256: "Llama 3.x",
    129280: "DeepSeek-V3 or R1",
    131072: "Mistral NeMo or Mistral Small 3",
    151552: "GLM-4",
    151936: "Qwen2.5 or Qwen3",
    152064: "Qwen2 or Qwen2.5 (7B and larger)",
    163840: "Kimi K2",
    201088: "gpt-oss",
    202048: "Llama 4",
    256000: "Gemma or Gemma 2",
}

# sizes that are one tokenizer padded to two widths: their ids name the same tokens
# (Qwen's tokenizer ends near 151665; its configs pad it to 151936 or 152064)
SAME_TOKENIZER: tuple[frozenset[int], ...] = (frozenset({151936, 152064}),)


def vocab_family(size: int) -> str | None:
    """The model family whose config has this ``vocab_size``, or None."""
    return KNOWN_VOCABS.get(size)


def same_tokenizer(a: int, b: int) -> bool:
    """Whether two vocab sizes name the same tokens (equal, or one tokenizer padded)."""
    return a == b or any(a in group and b in group for group in SAME_TOKENIZER)


def other_family(size: int, vt: int) -> str | None:
    """The known family ``size`` belongs to when it is not the target's: both sizes must
    be known (a size of no listed family could be this target's own vocab, padded), and
    name different tokens. None otherwise."""
    if vocab_family(vt) is None or same_tokenizer(size, vt):
        return None
    return vocab_family(size)


def known_at_least(n: int, vt: int, most: int = 2) -> list[int]:
    """The smallest known vocab sizes (at most ``most``) of other families than ``vt``'s
    that hold ``n`` ids: the vocabs a ``d2t`` reaching id ``n - 1`` could be made for."""
    return sorted(s for s in KNOWN_VOCABS if s >= n and other_family(s, vt) is not None)[:most]
