"""``verify``: sample from the drafter's real head and count the ids that leave the target vocab.

No runtime masks draft logits in ``[Vt, Vd)`` (DSC401): a padded row can be sampled. This module loads only the head tensors (``lm_head``, and
``markov_head.markov_w1`` / ``markov_w2`` where present) with safetensors straight
onto the device, computes draft logits for seeded random hidden states plus an
adversarial set aimed at the rows that map outside ``[0, Vt)``, samples the way
runtimes do (greedy argmax, top-k, Gumbel-max), maps ids through ``d2t``, and counts
the ids outside ``[0, Vt)`` (illegal) and outside ``[0, Et)`` (out of bounds), first
without the padded-row mask and then with it.

The work streams over batch chunks (outer) and vocab chunks (inner), keeping only a
running best per token, so an Inkling-sized head needs the head itself plus a few
hundred MB. torch is imported lazily, only here: ``inspect`` and ``fix`` never need it.

Memory is bounded from the checkpoint's own shapes: the top-k of the config is at most
the draft vocab (as vLLM requires), what a run needs is estimated from the shapes
(``memory_needed``) and refused up front past the machine's memory, and running out
anyway (a ``ulimit -v``, a small container, a full GPU) is one line naming the file,
the tensor and the memory it needed (``out_of_memory``), never torch's traceback.

The parts: ``verify_memory`` (the estimate, the limits, torch's import), ``verify_load``
(the head tensors, the mask file, the top-k) and ``verify_sample`` (the computation);
this module runs them in order and makes the report.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import field
from pathlib import Path

import numpy as np

from dspark_ckpt.commands.draft_map import draft_map
from dspark_ckpt.commands.verify_load import (
    COMPUTE_DTYPES,
    _expect,
    check_computable,
    computable_dtypes,
    head_info,
    load_tensor,
    read_mask_file,
    topk_from_config,
)
from dspark_ckpt.commands.verify_memory import (
    BATCH_CHUNK,
    HIDDEN_BLOCK,
    VOCAB_CHUNK,
    Doing,
    _refuse_past_the_machine,
    memory_needed,
    out_of_memory,
    peak_memory,
    require_torch,
    resolve_device,
)
from dspark_ckpt.commands.verify_sample import (
    HiddenStates,
    _count,
    _Running,
    _sync,
    previous_tokens,
    sample_streaming,
)
from dspark_ckpt.record import record

# what other modules and the tests import from here
__all__ = [
    "HIDDEN_BLOCK",
    "HiddenStates",
    "ModeCounts",
    "VerifyReport",
    "_Running",
    "computable_dtypes",
    "load_tensor",
    "require_torch",
    "verify_checkpoint",
]
from dspark_ckpt.errors import CheckpointError, UsageError
from dspark_ckpt.facts.config import (
    MAX_SEED,
    MAX_TOKENS,
    DrafterConfig,
    drafter_config,
)
from dspark_ckpt.facts.target import Target
from dspark_ckpt.facts.vocab import (
    D2T,
    MARKOV_W1,
    MARKOV_W2,
    classify,
    sampleable_mask,
    target_id_array,
)
from dspark_ckpt.source.checkpoint import open_checkpoint

MODES = ("greedy", "topk", "gumbel")

Progress = Callable[[str], None]


@record(frozen=False)
class ModeCounts:
    unmasked_illegal: int = 0  # target ids outside [0, Vt)
    masked_illegal: int = 0
    unmasked_out_of_bounds: int | None = None  # target ids outside [0, Et); None: Et unknown
    masked_out_of_bounds: int | None = None
    sampled: int = 0  # ids counted per path (top-k counts every finite candidate)


@record(frozen=False)
class VerifyReport:
    drafter_source: str
    target: Target
    drafter: DrafterConfig
    classification: str
    head_source: str  # "drafter" or "target" (an equal drafter sharing the target's head)
    head_shape: tuple[int, int]
    dtype: str  # the stored dtype of lm_head
    compute_dtype: str
    device: str
    markov: bool  # Markov bias applied
    d2t: bool  # ids mapped through d2t
    topk: int
    mask_source: str  # the --mask file, or "computed"
    masked_rows: int  # rows the applied mask forbids
    illegal_rows: int  # rows whose target id lies outside [0, Vt)
    hidden_tokens: int  # rows the mask forbids although their target id is a real token
    leaked_rows: int  # rows the mask lets through although their target id is illegal
    random_tokens: int
    adversarial_tokens: int
    seed: int
    modes: dict[str, ModeCounts]
    timings_s: dict[str, float]
    peak_memory_bytes: int
    peak_memory_kind: str  # "host_rss" or "cuda_allocated"
    head_bytes: int
    notes: list[str] = field(default_factory=list)
    inspect: InspectVerdict | None = None  # inspect's verdict on the same pair (not ok()'s)

    @property
    def tokens(self) -> int:
        return self.random_tokens + self.adversarial_tokens

    @property
    def problems(self) -> list[str]:
        """Why the run fails, if it does. It passes when the mask forbids every illegal row
        (from its values alone, whatever the logits: a NaN or rarely chosen row must not
        pass by luck), hides no real token (a mask from another checkpoint would cost
        acceptance silently), and with it no sampled id leaves ``[0, Vt)`` in any mode."""
        out = []
        if self.leaked_rows:
            out.append(f"the mask lets {self.leaked_rows} row(s) outside [0, Vt) be sampled")
        if self.hidden_tokens:
            out.append(f"the mask hides {self.hidden_tokens} real token(s)")
        left = {m: c.masked_illegal for m, c in self.modes.items() if c.masked_illegal}
        if left:
            counts = ", ".join(f"{n} {m}" for m, n in left.items())
            out.append(f"with the mask, sampled ids left [0, Vt) ({counts})")
        return out

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def bandwidth_gbs(self) -> float | None:
        """Head bytes read per second of logits time (one pass over the head)."""
        t = self.timings_s.get("logits", 0.0)
        return self.head_bytes / t / 1e9 if t > 0 else None


def verify_checkpoint(
    source: str,
    target: Target,
    *,
    mask_path: str | Path | None = None,
    device: str = "auto",
    tokens: int = 512,
    seed: int = 0,
    markov: bool = True,
    progress: Progress | None = None,
    chunks: tuple[int, int] = (VOCAB_CHUNK, BATCH_CHUNK),
) -> VerifyReport:
    """Sample from the drafter at ``source`` and count the ids outside the target vocab.

    ``chunks`` is (head rows, hidden states) per logits block: memory, not results,
    depends on it (Gumbel noise is drawn per block, so its samples differ).
    Raises ``CheckpointError`` for an unreadable checkpoint or mask file, or a run that
    needs more memory than there is (naming the file, the tensor and the bytes);
    ``UsageError`` for bad arguments (including torch missing or not importable).
    """
    if not 1 <= tokens <= MAX_TOKENS:
        raise UsageError(f"--tokens must be in [1, {MAX_TOKENS}], got {tokens}")
    if not 0 <= seed <= MAX_SEED:
        raise UsageError(f"--seed must be in [0, {MAX_SEED}], got {seed}")
    doing = Doing(source, "read the drafter's headers and config")
    with out_of_memory(doing):
        report = _verify(
            doing, source, target, mask_path, device, tokens, seed, markov, progress, chunks
        )
    report.inspect = inspect_verdict(source, target)
    return report


@record(frozen=False)
class InspectVerdict:
    """What ``inspect`` says of the same drafter and target under its deciding profiles:
    verify's PASS is about the mask only, and must not read as "deployable"."""

    profiles: list[str]
    ok: bool
    errors: list[str]  # the codes of the error findings that fail it, in order


def inspect_verdict(source: str, target: Target) -> InspectVerdict | None:
    """``inspect``'s verdict for ``source`` against ``target`` under the family's default
    profiles; None where no profile covers the family (nothing judged)."""
    from dspark_ckpt.commands.inspect import inspect_checkpoint

    r = inspect_checkpoint(source, target, None)
    if not r.covered:
        return None
    return InspectVerdict(list(r.profiles), r.ok, list(dict.fromkeys(f.code for f in r.errors)))


def _refuse_from_the_shapes(doing, ckpt, cfg, info, tokens, k, chunks, dev, markov) -> None:
    """What the run needs at the least (``tokens`` hidden states, no aimed ones yet), from
    the headers: refused past the machine before anything is built or loaded."""
    w1, w2 = (ckpt.find(MARKOV_W1), ckpt.find(MARKOV_W2)) if markov else (None, None)
    r = w1.shape[1] if w1 is not None and w2 is not None and len(w1.shape) == 2 else None
    mk = (cfg.vocab_size, r) if r is not None else None
    vd, h = cfg.draft_vocab_size, info.shape[1]  # head_info: [rows, H]
    work = memory_needed(vd=vd, h=h, n=tokens, k=k, chunks=chunks, markov=mk)
    loaded = info.nbytes + (w1.nbytes + w2.nbytes if mk else 0)
    need = loaded + sum(work.values())
    doing(info.path, f"sample from {info.name} {list(info.shape)} {info.dtype} with top-{k}", need)
    host = need if dev == "cpu" else info.nbytes + work["vocab"]
    _refuse_past_the_machine(doing, host, need, dev)


def _verify(doing, source, target, mask_path, device, tokens, seed, markov, progress, chunks):
    say = progress or (lambda msg: None)
    # headers first: a bad checkpoint is refused before torch (seconds to import) loads
    ckpt = open_checkpoint(source)
    cfg = drafter_config(ckpt)
    k = topk_from_config(cfg)
    torch = require_torch()
    dev = resolve_device(device)
    vd, vt, et = cfg.draft_vocab_size, target.vocab_size, target.embedding_rows
    info, head_source = head_info(ckpt, cfg, target)
    if cfg.hidden_size and info.shape[1] != cfg.hidden_size:
        raise CheckpointError(
            info.path,
            f"{info.name} is {list(info.shape)}; its width is not the drafter's "
            f"hidden_size {cfg.hidden_size}",
        )
    # the shapes alone, before the per-row vocab arrays (a declared 2^31 rows: 16 GiB each)
    _refuse_from_the_shapes(doing, ckpt, cfg, info, tokens, k, chunks, dev, markov)
    doing(ckpt.root, "read its vocab maps", 48 * vd)
    d2t = draft_map(ckpt, cfg, target)  # the map fix --emit-mask builds its mask on
    truth = sampleable_mask(vd, vt, d2t)
    shipped = None if mask_path is None else read_mask_file(mask_path, vd)
    mask = truth if shipped is None else shipped if shipped.dtype == bool else shipped == 0
    w1_info, w2_info = ckpt.find(MARKOV_W1), ckpt.find(MARKOV_W2)
    if (w1_info is None) != (w2_info is None):
        missing = MARKOV_W2 if w2_info is None else MARKOV_W1
        raise CheckpointError(ckpt.root, f"has one Markov matrix but no {missing}")
    use_markov = markov and w1_info is not None
    if w1_info is not None:
        r = w1_info.shape[1] if len(w1_info.shape) == 2 else -1
        _expect(w1_info, (cfg.vocab_size, r), "[V, markov_rank]")
        _expect(w2_info, (vd, r), "[Vd, markov_rank]")
    heads = [info, *((w1_info, w2_info) if use_markov else ())]
    for t in heads:
        check_computable(t)
    head_path = info.path  # as the user knows it: a Hub file, not its cached copy
    # what the run needs, from the shapes: refused up front past the machine's memory
    n = tokens + min(tokens, int((~truth).sum()))  # HiddenStates: random, then adversarial
    work = memory_needed(
        vd=vd,
        h=info.shape[1],
        n=n,
        k=k,
        chunks=chunks,
        markov=(cfg.vocab_size, w1_info.shape[1]) if use_markov else None,
    )
    loaded = sum(t.nbytes for t in heads)
    need = loaded + sum(work.values())
    shape = f"{info.name} {list(info.shape)} {info.dtype}"
    sampling = f"sample from {shape} with top-{k} for {n} hidden states"
    doing(head_path, sampling, need)
    host = need if dev == "cpu" else max(t.nbytes for t in heads) + work["vocab"]
    _refuse_past_the_machine(doing, host, need, dev)
    # only the files holding these tensors are downloaded from the Hub, never the backbone
    if head_source == "drafter":
        info, *markov_infos = ckpt.local_tensors(heads)
    else:  # the target's head; any Markov matrices are the drafter's
        info, *markov_infos = target.checkpoint.local_tensors(heads[:1])
        markov_infos += ckpt.local_tensors(heads[1:])
    w1_info, w2_info = markov_infos or (None, None)

    if dev == "cuda":
        torch.cuda.reset_peak_memory_stats()
    say(f"loading {info.name} {list(info.shape)} {info.dtype} from {info.path} onto {dev}")
    t0 = time.perf_counter()
    doing(head_path, f"load {shape}", info.nbytes)
    head = load_tensor(info, dev)[:vd]  # a shared target head may have Et > Vt rows
    w1 = w2 = None
    if use_markov:
        doing(w1_info.path, f"load {w1_info.name} {list(w1_info.shape)}", w1_info.nbytes)
        w1 = load_tensor(w1_info, dev)
        doing(w2_info.path, f"load {w2_info.name} {list(w2_info.shape)}", w2_info.nbytes)
        w2 = load_tensor(w2_info, dev)
    _sync(dev)
    doing(head_path, sampling, need)
    t_load = time.perf_counter() - t0
    compute = head.dtype if str(head.dtype).removeprefix("torch.") in COMPUTE_DTYPES else None
    compute = compute or torch.float32

    gen = torch.Generator(device=dev)
    gen.manual_seed(seed)
    illegal_rows = torch.from_numpy(np.flatnonzero(~truth)).to(dev)
    hidden = HiddenStates(head, illegal_rows, tokens, seed, dev)
    adv_rows = hidden.adv_rows
    prev = None
    if use_markov:
        prev = previous_tokens(w1, w2, adv_rows, tokens, min(cfg.vocab_size, vt), gen, dev)
    say(f"sampling {hidden.n} hidden states: greedy, top-{k}, gumbel; unmasked and masked")
    mask_t = torch.from_numpy(truth if shipped is None else shipped).to(dev)
    paths, nonfinite, t_logits, t_sample = sample_streaming(
        head, hidden, w1, prev, w2, mask_t, gen, k=k, compute=compute, device=dev, chunks=chunks
    )
    tid = torch.from_numpy(target_id_array(vd, d2t)).to(dev)
    modes: dict[str, ModeCounts] = {}
    unmasked, masked = paths[0].samples(), paths[1].samples()
    for m in MODES:
        ui, uo = _count(unmasked[m], tid, vt, et)
        mi, mo = _count(masked[m], tid, vt, et)
        modes[m] = ModeCounts(ui, mi, uo, mo, int(unmasked[m].numel()))
    peak, kind = peak_memory(dev)
    notes = []
    if head_source == "target":
        notes.append(f"equal drafter: sampled from the target's {info.name} ({head_path})")
    if d2t is not None and ckpt.find(D2T) is None:
        notes.append("no d2t: ids mapped through the d2t derived from t2d (fix --emit-d2t)")
    if bad := int(nonfinite.sum()):
        notes.append(
            f"{bad} row(s) of the head hold NaN or inf weights: an uninitialised or corrupt "
            "head; their logits are NaN or inf, which an added -inf bias does not mask"
        )
    return VerifyReport(
        drafter_source=source,
        target=target,
        drafter=cfg,
        classification=classify(vd, vt),
        head_source=head_source,
        head_shape=(int(head.shape[0]), int(head.shape[1])),
        dtype=str(head.dtype).removeprefix("torch."),
        compute_dtype=str(compute).removeprefix("torch."),
        device=dev,
        markov=use_markov,
        d2t=d2t is not None,
        topk=k,
        mask_source="computed" if mask_path is None else str(mask_path),
        masked_rows=int((~mask).sum()),
        illegal_rows=int((~truth).sum()),
        hidden_tokens=int((truth & ~mask).sum()),
        leaked_rows=int((~truth & mask).sum()),
        random_tokens=tokens,
        adversarial_tokens=int(adv_rows.numel()),
        seed=seed,
        modes=modes,
        timings_s={"load": t_load, "logits": t_logits, "sampling": t_sample},
        peak_memory_bytes=peak,
        peak_memory_kind=kind,
        head_bytes=head.numel() * head.element_size(),
        notes=notes,
    )
