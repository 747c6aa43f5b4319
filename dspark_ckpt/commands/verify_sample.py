"""``verify``'s computation: seeded random hidden states and an adversarial set aimed
at the head's illegal rows, draft logits streamed over batch chunks (outer) and vocab
chunks (inner) keeping only a running best per token, sampled the way runtimes do
(greedy, top-k, Gumbel-max)."""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from dspark_ckpt.commands.verify_memory import ADV_CHUNK, HIDDEN_BLOCK, ROW_CHUNK


def _rms_normalise(x):
    """Rows scaled to RMS 1, as the drafter's final RMSNorm leaves its hidden states."""
    return x / x.float().pow(2).mean(dim=-1, keepdim=True).sqrt().clamp_min(1e-12).to(x.dtype)


def block_seed(seed: int, block: int) -> int:
    """The seed of one block of random hidden states: ``seed`` and the block index mixed
    (numpy's ``SeedSequence``), a 64-bit value ``manual_seed`` takes."""
    return int(np.random.SeedSequence([seed, block]).generate_state(1, np.uint64)[0])


class HiddenStates:
    """``tokens`` seeded random hidden states, then one aligned with each of up to
    ``tokens`` illegal head rows (largest norms first): the rows an unmasked sampler is
    most likely to pick.

    Never held whole: ``chunk(b0, b1)`` builds rows ``[b0, b1)`` when a logits block needs
    them. Random rows come in blocks of ``HIDDEN_BLOCK``, each from its own seed, so a row's
    values depend on the seed alone, not on the batch chunking."""

    def __init__(self, head, illegal_rows, tokens: int, seed: int, device: str):
        import torch

        self.head, self.tokens, self.seed, self.device = head, tokens, seed, device
        rows = illegal_rows
        if rows.numel() > tokens:
            norms = torch.cat(
                [
                    head[rows[i : i + ROW_CHUNK]].float().norm(dim=1)
                    for i in range(0, rows.numel(), ROW_CHUNK)
                ]
            )
            rows = rows[norms.argsort(descending=True)[:tokens]]
        self.adv_rows = rows
        self.n = tokens + int(rows.numel())
        self._gen = torch.Generator(device=device)

    def _random(self, b0: int, b1: int):
        import torch

        h = self.head.shape[1]
        blocks = []
        for j in range(b0 // HIDDEN_BLOCK, (b1 - 1) // HIDDEN_BLOCK + 1):
            self._gen.manual_seed(block_seed(self.seed, j))
            blocks.append(
                torch.randn(
                    HIDDEN_BLOCK, h, generator=self._gen, device=self.device, dtype=torch.float32
                )
            )
        first = (b0 // HIDDEN_BLOCK) * HIDDEN_BLOCK
        return torch.cat(blocks)[b0 - first : b1 - first]

    def chunk(self, b0: int, b1: int):
        """Rows ``[b0, b1)``, float32, RMS 1."""
        import torch

        parts = []
        if b0 < self.tokens:
            parts.append(self._random(b0, min(b1, self.tokens)))
        if b1 > self.tokens:
            rows = self.adv_rows[max(b0, self.tokens) - self.tokens : b1 - self.tokens]
            parts.append(self.head[rows].float())
        return _rms_normalise(torch.cat(parts))


def previous_tokens(w1, w2, adv_rows, random_tokens: int, prev_vocab: int, gen, device: str):
    """Previous tokens for the Markov bias: random for the random hidden states; for each
    adversarial row ``j``, the token whose ``markov_w1`` row most raises ``j``'s bias."""
    import torch

    rand = torch.randint(0, prev_vocab, (random_tokens,), generator=gen, device=device)
    best = [
        (w2[adv_rows[i : i + ADV_CHUNK]].float() @ w1[:prev_vocab].float().T).argmax(dim=1)
        for i in range(0, adv_rows.numel(), ADV_CHUNK)
    ]
    return torch.cat([rand, *best])


def _sync(device: str) -> None:
    if device == "cuda":
        import torch

        torch.cuda.synchronize()


def _better(v, best):
    """Where a later candidate ``v`` beats the running ``best`` as torch's argmax decides
    on the whole row: NaN is larger than every number (the first NaN wins), and on a tie
    the earlier index stays. ``v > best`` alone never takes a NaN, so a NaN row would hide
    its whole chunk."""
    import torch

    return (v > best) | (torch.isnan(v) & ~torch.isnan(best))


def candidates(logits, noise, k: int):
    """One logits block's candidates per token: the greedy (value, index), the Gumbel-max
    one, and the top-k; ``max`` gives the first NaN, else the first maximum, as argmax
    does, and ``topk`` ranks NaN above +inf, as on the full row."""
    return (
        logits.max(dim=1),
        (logits + noise).max(dim=1),
        logits.topk(min(k, logits.shape[1]), dim=1),
    )


class _Running:
    """The best candidates so far per token, for one path (unmasked or masked): the ids
    ``torch.argmax`` and ``torch.topk`` pick on the full row, NaN and +inf included."""

    def __init__(self, n: int, k: int, device: str):
        import torch

        neg = float("-inf")
        self.greedy_val = torch.full((n,), neg, device=device)
        self.greedy_idx = torch.zeros(n, dtype=torch.long, device=device)
        self.gumbel_val = torch.full((n,), neg, device=device)
        self.gumbel_idx = torch.zeros(n, dtype=torch.long, device=device)
        self.topk_val = torch.full((n, k), neg, device=device)
        self.topk_idx = torch.zeros(n, k, dtype=torch.long, device=device)
        self.k = k

    def update(self, b: slice, logits, noise, offset: int) -> None:
        self.merge(b, candidates(logits, noise, self.k), offset)

    def merge(self, b: slice, found, offset: int) -> None:
        """Take a block's ``candidates`` (its columns start at ``offset``) into the running
        best of the tokens ``b``."""
        import torch

        (gv, gi), (nv, ni), (tv, ti) = found
        better = _better(gv, self.greedy_val[b])
        self.greedy_val[b] = torch.where(better, gv, self.greedy_val[b])
        self.greedy_idx[b] = torch.where(better, gi + offset, self.greedy_idx[b])
        better = _better(nv, self.gumbel_val[b])
        self.gumbel_val[b] = torch.where(better, nv, self.gumbel_val[b])
        self.gumbel_idx[b] = torch.where(better, ni + offset, self.gumbel_idx[b])
        vals = torch.cat([self.topk_val[b], tv], dim=1)
        idx = torch.cat([self.topk_idx[b], ti + offset], dim=1)
        vals, pick = vals.topk(self.k, dim=1)
        self.topk_val[b] = vals
        self.topk_idx[b] = idx.gather(1, pick)

    def samples(self) -> dict[str, Any]:
        """Draft ids per mode; top-k keeps every candidate but -inf ones (never drawn): a
        NaN candidate is kept, since a sampler over NaN probabilities can return it."""
        import torch

        return {
            "greedy": self.greedy_idx,
            "topk": self.topk_idx[~torch.isneginf(self.topk_val)],
            "gumbel": self.gumbel_idx,
        }


def _nonfinite_rows(logit_row, *weights):
    """Which rows of the head (or of ``markov_w2``: ``weights``) hold a NaN or inf weight.
    Such a row gives a NaN or inf logit against any finite hidden state (inf * 0 is NaN,
    inf - inf is NaN), so ``logit_row``, the logits of one random hidden state, already
    computed, names the candidates for free; a finite row whose logit overflowed is then
    cleared by looking at the candidates' weights alone."""
    import torch

    rows = ~torch.isfinite(logit_row)
    if rows.any():
        bad = torch.zeros(int(rows.sum()), dtype=torch.bool, device=rows.device)
        for w in weights:
            if w is not None:
                bad |= ~torch.isfinite(w[rows]).all(dim=1)
        rows[rows.clone()] = bad
    return rows


def matmul_dtype(compute, device: str):
    """The dtype the logits matmuls run in. On CPU a bfloat16 or float16 head is multiplied
    in float32 (its values and the hidden states exact in float32) and each product rounded
    back to ``compute``, as a half-precision GEMM rounds its float32 accumulator: the same
    logits to one ulp (summation order), while torch's CPU half GEMM, emulated where the
    CPU lacks native bf16, keeps one core busy at a fraction of float32's speed. Elsewhere
    ``compute``."""
    import torch

    if device == "cpu" and compute in (torch.bfloat16, torch.float16):
        return torch.float32
    return compute


def sample_streaming(
    head, hidden, w1, prev, w2, mask, gen, *, k: int, compute, device: str, chunks: tuple[int, int]
):
    """Stream over batch chunks, then vocab chunks; return (unmasked, masked) runners and the
    time spent on logits and on sampling. Each batch chunk's hidden states (a
    ``HiddenStates`` chunk) and Markov rows ``w1[prev]`` are built once, then every vocab
    chunk of the head is scored against them: memory is one batch chunk of inputs plus one
    logits block. Gumbel noise is drawn from ``gen`` per block, in that order.

    ``mask`` is applied as a runtime applies it: a bool mask sets the forbidden logits to
    -inf; a float bias is added (so a NaN or +inf logit stays NaN, and is sampled). Also
    returned: which rows of the head (or of ``markov_w2``) hold a NaN or inf weight."""
    import torch

    n = hidden.n
    vocab_chunk, batch_chunk = chunks
    mm = matmul_dtype(compute, device)
    paths = (_Running(n, k, device), _Running(n, k, device))
    nonfinite = torch.zeros(head.shape[0], dtype=torch.bool, device=device)
    t_logits = t_sample = 0.0
    for b0 in range(0, n, batch_chunk):
        b = slice(b0, min(b0 + batch_chunk, n))
        h = hidden.chunk(b.start, b.stop).to(compute).to(mm)  # rounded to compute first
        bias_src = w1[prev[b]].to(compute).to(mm) if w2 is not None else None
        for start in range(0, head.shape[0], vocab_chunk):
            stop = min(start + vocab_chunk, head.shape[0])
            w = head[start:stop].to(compute)  # a view unless the head is F8 or F64
            w2c = w2[start:stop].to(compute) if w2 is not None else None
            _sync(device)
            t0 = time.perf_counter()
            logits = (h @ w.to(mm).T).to(compute)
            if w2c is not None:
                logits = logits + (bias_src @ w2c.to(mm).T).to(compute)
            logits = logits.float()
            _sync(device)
            t1 = time.perf_counter()
            # Gumbel(0, 1) = -log(E), E ~ Exp(1): argmax(logits + noise) samples softmax
            noise = torch.empty_like(logits).exponential_(generator=gen).log_().neg_()
            found = candidates(logits, noise, k)
            paths[0].merge(b, found, start)
            part = mask[start:stop]
            if part.dtype == torch.bool:  # a block the mask leaves whole: the same candidates
                if not bool(part.all()):
                    found = candidates(logits.masked_fill(~part, -math.inf), noise, k)
            elif bool(part.any()):
                found = candidates(logits + part, noise, k)
            paths[1].merge(b, found, start)
            if b0 == 0:  # the head's own rows, once: hidden state 0 is a random one
                nonfinite[start:stop] = _nonfinite_rows(logits[0], w, w2c)
            _sync(device)
            t_logits += t1 - t0
            t_sample += time.perf_counter() - t1
    return paths, nonfinite, t_logits, t_sample


def _count(ids, tid, vt: int, et: int | None) -> tuple[int, int | None]:
    t = tid[ids]
    illegal = int(((t < 0) | (t >= vt)).sum())
    oob = None if et is None else int(((t < 0) | (t >= et)).sum())
    return illegal, oob
