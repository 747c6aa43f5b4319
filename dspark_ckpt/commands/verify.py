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
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import resource
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from dspark_ckpt.commands.draft_map import draft_map
from dspark_ckpt.errors import CheckpointError, UsageError
from dspark_ckpt.facts.config import (
    MAX_SEED,
    MAX_TOKENS,
    NESTED_DRAFTER_KEYS,
    DrafterConfig,
    drafter_config,
    torch_install_hint,
)
from dspark_ckpt.facts.target import Target
from dspark_ckpt.facts.vocab import (
    BIAS_TENSOR,
    D2T,
    LM_HEAD,
    MARKOV_W1,
    MARKOV_W2,
    MASK_TENSOR,
    classify,
    sampleable_mask,
    target_ids,
)
from dspark_ckpt.source.checkpoint import Checkpoint, open_checkpoint
from dspark_ckpt.source.safetensors import TensorInfo, read_array, read_header, read_tensor_bytes

MODES = ("greedy", "topk", "gumbel")
DEFAULT_TOPK = 8
TOPK_KEY = "dspark_draft_topk"
VOCAB_CHUNK = 8192  # head rows per logits block
BATCH_CHUNK = 256  # hidden states per logits block
ADV_CHUNK = 64  # padded rows per Markov adversary block ([chunk, V] scores)
HIDDEN_BLOCK = 256  # random hidden states drawn per seed (independent of the batch chunk)
ROW_CHUNK = 4096  # illegal head rows per norm block when choosing the adversarial rows
COMPUTE_DTYPES = ("float32", "bfloat16", "float16")  # others are computed in float32
# the stored dtypes verify computes with, as torch names them; one this torch lacks is
# refused (F4 and F6 are packed: torch cannot even copy them, let alone multiply)
TORCH_DTYPES = {
    "F16": "float16",
    "BF16": "bfloat16",
    "F32": "float32",
    "F64": "float64",
    "F8_E4M3": "float8_e4m3fn",
    "F8_E5M2": "float8_e5m2",
    "F8_E8M0": "float8_e8m0fnu",
}

Progress = Callable[[str], None]


# --- memory ----------------------------------------------------------------------------

GIB, MIB = 1 << 30, 1 << 20
# what a failed allocation says: torch's CPU allocator (ENOMEM), CUDA's, C++'s, the loader's
OOM_SAID = ("can't allocate memory", "Cannot allocate memory", "out of memory", "bad_alloc")


def size(n: int) -> str:
    return f"{n / GIB:.1f} GiB" if n >= GIB else f"{max(1, round(n / MIB))} MiB"


def is_out_of_memory(err: BaseException) -> bool:
    """Whether ``err`` is an allocation that failed: Python's ``MemoryError``, torch's
    ``OutOfMemoryError`` (CUDA), or the ``RuntimeError`` torch's CPU allocator raises."""
    if isinstance(err, MemoryError):
        return True
    oom = getattr(sys.modules.get("torch"), "OutOfMemoryError", None)
    if isinstance(oom, type) and isinstance(err, oom):
        return True
    return isinstance(err, RuntimeError) and any(s in str(err) for s in OOM_SAID)


def address_space_limit() -> int | None:
    """``ulimit -v`` in bytes, where one is set."""
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    return None if soft == resource.RLIM_INFINITY else soft


def machine_memory() -> int | None:
    """The machine's RAM in bytes, where the system says."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None


@dataclass
class Doing:
    """What verify is doing, for the line that running out of memory becomes: the file
    (and the tensor, in ``what``) and the bytes it needs, where known."""

    path: str | Path | None
    what: str
    need: int | None = None

    def __call__(self, path: str | Path | None, what: str, need: int | None = None) -> None:
        self.path, self.what, self.need = path, what, need

    def message(self, have: str | None = None) -> str:
        said = f"not enough memory to {self.what}"
        if self.need is not None:
            said += f": about {size(self.need)} needed"
        limit = address_space_limit()
        have = have or (
            limit is not None and f"the address-space limit (ulimit -v) is {size(limit)}"
        )
        return f"{said} ({have})" if have else said


@contextlib.contextmanager
def out_of_memory(doing: Doing) -> Iterator[None]:
    """An allocation that fails inside (``is_out_of_memory``) becomes one
    ``CheckpointError`` line from ``doing``: the file, the tensor, the memory needed."""
    try:
        yield
        return
    except Exception as err:  # MemoryError is one
        if not is_out_of_memory(err):
            raise
        have = _gpu_memory() if "CUDA" in str(err) else None
    # out of the except block: what the failed step held can go before the line is made
    raise CheckpointError(doing.path, doing.message(have))


def _gpu_memory() -> str | None:
    try:
        import torch

        total = torch.cuda.get_device_properties(torch.cuda.current_device()).total_memory
    except Exception:  # no CUDA after all: say nothing of it
        return None
    return f"the GPU has {size(total)}"


def _torch_libraries(home: Path) -> int:
    """The bytes of torch's shared libraries, all of which importing it maps."""
    try:
        return sum(e.stat().st_size for e in os.scandir(home / "lib") if ".so" in e.name)
    except OSError:
        return 0


def _importing_torch(home: Path) -> str:
    libs = _torch_libraries(home)
    return f"import torch ({home}" + (f", whose libraries map {size(libs)})" if libs else ")")


def _cannot_import_torch(err: BaseException) -> UsageError:
    """Why torch, installed or not, cannot be imported: not installed (how to install
    it), not enough memory to map it (under a ``ulimit -v``: where it is, what it maps),
    or another reason (its own first line)."""
    try:
        spec = importlib.util.find_spec("torch")
    except (ImportError, ValueError, MemoryError):
        spec = None
    said = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
    if spec is None or spec.origin is None or said.startswith("No module named"):
        return UsageError(torch_install_hint())  # torch, or a module it needs: (re)install
    home = Path(spec.origin).parent
    if isinstance(err, MemoryError) or any(s in said for s in ("failed to map segment", *OOM_SAID)):
        return UsageError(Doing(None, _importing_torch(home)).message())
    return UsageError(f"torch is installed ({home}) but cannot be imported: {said}")


def _address_space_in_use() -> int:
    """This process's mapped bytes (Linux), else 0."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def _room_for_torch() -> None:
    """Under a ``ulimit -v`` too tight to map torch's libraries (with a quarter more for
    what its start-up allocates), refuse before importing it: short of that, torch's
    C++ start-up can fail in a way Python cannot catch (``std::bad_alloc``: abort)."""
    limit = address_space_limit()
    if limit is None or "torch" in sys.modules:
        return
    try:
        spec = importlib.util.find_spec("torch")
    except (ImportError, ValueError):
        return
    if spec is None or spec.origin is None:
        return  # not installed: the import says so
    home = Path(spec.origin).parent
    need = _address_space_in_use() + _torch_libraries(home) * 5 // 4
    if need > limit:
        raise UsageError(Doing(None, _importing_torch(home), need).message())


def require_torch():
    """The torch module, or a ``UsageError`` that says why not (not installed: how to
    install it; not enough memory to import it; its own error)."""
    _room_for_torch()
    try:
        import torch
    except (ImportError, MemoryError) as err:
        raise _cannot_import_torch(err) from None
    return torch


def resolve_device(name: str) -> str:
    """``auto`` -> ``cuda`` when present, else ``cpu``; ``cuda`` without a GPU is a usage error."""
    torch = require_torch()
    if name not in ("auto", "cuda", "cpu"):
        raise UsageError(f"--device must be auto, cuda or cpu, got {name!r}")
    if name == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if name == "cuda" and not torch.cuda.is_available():
        raise UsageError("--device cuda: no CUDA device is available (use --device cpu or auto)")
    return name


@dataclass
class ModeCounts:
    unmasked_illegal: int = 0  # target ids outside [0, Vt)
    masked_illegal: int = 0
    unmasked_out_of_bounds: int | None = None  # target ids outside [0, Et); None: Et unknown
    masked_out_of_bounds: int | None = None
    sampled: int = 0  # ids counted per path (top-k counts every finite candidate)


@dataclass
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


# --- reading tensors -------------------------------------------------------------------


def computable_dtypes() -> list[str]:
    """The stored dtypes this torch can compute with (``TORCH_DTYPES`` it has)."""
    torch = require_torch()
    return [d for d, name in TORCH_DTYPES.items() if getattr(torch, name, None) is not None]


def check_computable(info: TensorInfo) -> None:
    """Refuse, before anything is loaded, a tensor whose dtype verify cannot compute with."""
    ok = computable_dtypes()
    if info.dtype not in ok:
        raise CheckpointError(
            info.path,
            f"{info.name} is {info.dtype}: verify computes with {', '.join(ok)} only "
            "(dequantise the head first)",
        )


def load_tensor(info: TensorInfo, device: str):
    """One tensor, read into memory (``read_tensor_bytes``: never mapped, so a shard
    truncated while verify samples is no SIGBUS) and moved onto ``device``; nothing else
    is read. A sample is converted to float32 once, as the computation will, so a dtype
    that torch cannot convert fails here, as a ``CheckpointError`` naming file and tensor."""
    torch = require_torch()
    dtype = getattr(torch, TORCH_DTYPES.get(info.dtype, ""), None)
    if dtype is None:
        raise CheckpointError(info.path, f"cannot load {info.name!r}: torch has no {info.dtype}")
    data = read_tensor_bytes(info)
    try:
        t = torch.frombuffer(data, dtype=dtype) if data else torch.empty(0, dtype=dtype)
        t = t.reshape(info.shape).to(device)
        t.reshape(-1)[:1].float().sum()
    except Exception as err:  # torch's errors carry no file name
        if is_out_of_memory(err):
            raise  # the caller's ``out_of_memory`` says what was needed
        msg = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise CheckpointError(info.path, f"cannot load {info.name!r}: {msg}") from None
    return t


def _expect(info: TensorInfo, shape: tuple[int, ...], what: str) -> None:
    if info.shape != shape:
        raise CheckpointError(
            info.path, f"{info.name} is {list(info.shape)}; expected {list(shape)} ({what})"
        )


def head_info(ckpt: Checkpoint, cfg: DrafterConfig, target: Target) -> tuple[TensorInfo, str]:
    """The ``lm_head`` to sample from: the drafter's, or the target's for an equal drafter."""
    vd, vt = cfg.draft_vocab_size, target.vocab_size
    info = ckpt.find(LM_HEAD)
    if info is not None:
        if len(info.shape) != 2 or info.shape[0] != vd:
            raise CheckpointError(
                info.path, f"{info.name} is {list(info.shape)}; expected [{vd}, H] (Vd rows)"
            )
        return info, "drafter"
    if vd != vt:
        raise CheckpointError(
            ckpt.root,
            f"no {LM_HEAD} and Vd {vd} != Vt {vt}: the target head cannot be shared, "
            "so there is no head to sample from",
        )
    shared = target.checkpoint.find(LM_HEAD) if target.checkpoint else None
    if shared is None:
        raise UsageError(
            f"{ckpt.name} shares the target's {LM_HEAD} (Vd == Vt, none of its own): "
            "give --target with the target's weights"
        )
    if len(shared.shape) != 2 or shared.shape[0] < vt:
        raise CheckpointError(
            shared.path, f"{shared.name} is {list(shared.shape)}; expected at least {vt} rows"
        )
    return shared, "target"


def read_mask_file(path: str | Path, vd: int) -> np.ndarray:
    """The mask ``fix --emit-mask`` writes, as stored: ``draft_vocab_mask`` bool ``[Vd]``
    (True = may be sampled), or ``draft_vocab_bias`` float32 ``[Vd]`` of 0 / -inf (added to
    the logits), and nothing else in the file. Anything else is refused."""
    p = Path(path)
    if not p.exists():
        raise UsageError(f"{path}: no such file or directory")
    tensors = read_header(p).tensors
    found = [name for name in (MASK_TENSOR, BIAS_TENSOR) if name in tensors]
    if not found:
        raise CheckpointError(p, f"holds no {MASK_TENSOR!r} or {BIAS_TENSOR!r} tensor")
    if len(tensors) != 1:  # which one a runtime applies would be a guess
        names = ", ".join(repr(name) for name in sorted(tensors)[:4])
        names += ", ..." if len(tensors) > 4 else ""
        raise CheckpointError(
            p,
            f"holds {len(tensors)} tensors ({names}); a mask file holds exactly one, "
            f"{MASK_TENSOR!r} or {BIAS_TENSOR!r}",
        )
    info, want = tensors[found[0]], "BOOL" if found[0] == MASK_TENSOR else "F32"
    if info.dtype != want or info.shape != (vd,):
        raise CheckpointError(
            p,
            f"{info.name} is {info.dtype} {list(info.shape)}; expected {want} [{vd}] "
            "(the drafter's draft_vocab_size)",
        )
    if want == "BOOL":
        return read_array(info).copy()
    bias = load_tensor(info, "cpu").numpy()
    if not np.all((bias == 0) | (bias == -np.inf)):
        raise CheckpointError(p, f"{BIAS_TENSOR} holds values other than 0 and -inf")
    return bias


def _quoted(value: Any) -> str:
    """A config value as a message quotes it, bounded (a 4000-digit integer, a long list)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return f"an integer of {len(str(abs(value)))} digits"
    said = repr(value)
    return said if len(said) <= 40 else said[:37] + "..."


def topk_from_config(cfg: DrafterConfig) -> int:
    """``dspark_draft_topk`` (top level or nested), else ``DEFAULT_TOPK``: an integer in
    ``[1, Vd]``, as vLLM requires (``SpeculativeConfig``: "between 1 and the draft
    vocabulary size"). It sizes what verify keeps per hidden state, so a larger one is
    refused before anything is loaded (2**40 asked torch for 70 PB)."""
    raw = cfg.raw.get(TOPK_KEY)
    for nest in NESTED_DRAFTER_KEYS:
        sub = cfg.raw.get(nest)
        if raw is None and isinstance(sub, dict):
            raw = sub.get(TOPK_KEY)
    if raw is None:
        return DEFAULT_TOPK  # over a smaller Vd its extra candidates are -inf: not counted
    vd = cfg.draft_vocab_size
    if not isinstance(raw, int) or isinstance(raw, bool) or not 1 <= raw <= vd:
        raise CheckpointError(
            cfg.path,
            f"{TOPK_KEY} must be an integer in [1, {vd}] (the draft vocab: vLLM refuses a "
            f"larger top-k), got {_quoted(raw)}",
        )
    return raw


def memory_needed(
    *, vd: int, h: int, n: int, k: int, chunks: tuple[int, int], markov: tuple[int, int] | None
) -> dict[str, int]:
    """Bytes the sampling holds beyond the loaded tensors, from the shapes alone (an upper
    estimate): the top-k candidates and running bests of ``n`` hidden states, unmasked and
    masked (``_Running``, 24 + 12k bytes each), with what counting them takes (32k); one
    logits block and its noise, sums and masked copy (24 bytes a logit), its weights and
    hidden states in float32, the top-k merge; the per-row vocab arrays (48 bytes a row);
    the Markov adversary's scores."""
    vc, bc = min(chunks[0], vd), min(chunks[1], n)
    parts = {
        "candidates": n * (2 * (24 + 12 * k) + 32 * k),
        "block": 24 * bc * vc + 4 * vc * h + 12 * bc * h + 48 * bc * (k + min(k, vc)),
        "vocab": 48 * vd,
    }
    if markov is not None:
        v, r = markov
        parts["markov"] = 4 * ADV_CHUNK * v + 4 * v * r
    return parts


# --- the computation -------------------------------------------------------------------


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
        import torch

        v, i = logits.max(dim=1)  # the first NaN, else the first maximum, as argmax
        better = _better(v, self.greedy_val[b])
        self.greedy_val[b] = torch.where(better, v, self.greedy_val[b])
        self.greedy_idx[b] = torch.where(better, i + offset, self.greedy_idx[b])
        v, i = (logits + noise).max(dim=1)
        better = _better(v, self.gumbel_val[b])
        self.gumbel_val[b] = torch.where(better, v, self.gumbel_val[b])
        self.gumbel_idx[b] = torch.where(better, i + offset, self.gumbel_idx[b])
        k = min(self.k, logits.shape[1])
        v, i = logits.topk(k, dim=1)  # topk ranks NaN above +inf, as on the full row
        vals = torch.cat([self.topk_val[b], v], dim=1)
        idx = torch.cat([self.topk_idx[b], i + offset], dim=1)
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


def _nonfinite_rows(w):
    """Which rows of ``w`` hold a NaN or inf weight. Such a row sums to NaN or inf, so a
    matvec finds the candidates (25x cheaper than isfinite over the block); a finite row
    whose sum overflows is then cleared by looking at the candidates alone."""
    import torch

    rows = ~torch.isfinite(w @ w.new_ones(w.shape[1]))
    if rows.any():
        rows[rows.clone()] = ~torch.isfinite(w[rows]).all(dim=1)
    return rows


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
    paths = (_Running(n, k, device), _Running(n, k, device))
    nonfinite = torch.zeros(head.shape[0], dtype=torch.bool, device=device)
    t_logits = t_sample = 0.0
    for b0 in range(0, n, batch_chunk):
        b = slice(b0, min(b0 + batch_chunk, n))
        h = hidden.chunk(b.start, b.stop).to(compute)
        bias_src = w1[prev[b]].to(compute) if w2 is not None else None
        for start in range(0, head.shape[0], vocab_chunk):
            stop = min(start + vocab_chunk, head.shape[0])
            w = head[start:stop].to(compute)  # a view unless the head is F8 or F64
            w2c = w2[start:stop].to(compute) if w2 is not None else None
            _sync(device)
            t0 = time.perf_counter()
            logits = h @ w.T
            if w2c is not None:
                logits = logits + bias_src @ w2c.T
            logits = logits.float()
            _sync(device)
            t1 = time.perf_counter()
            # Gumbel(0, 1) = -log(E), E ~ Exp(1): argmax(logits + noise) samples softmax
            noise = torch.empty_like(logits).exponential_(generator=gen).log_().neg_()
            paths[0].update(b, logits, noise, start)
            part = mask[start:stop]
            if part.dtype == torch.bool:
                masked = logits.masked_fill(~part, float("-inf"))
            else:
                masked = logits + part
            paths[1].update(b, masked, noise, start)
            if b0 == 0:  # the head's own rows, once
                nonfinite[start:stop] = _nonfinite_rows(w)
                if w2c is not None:
                    nonfinite[start:stop] |= _nonfinite_rows(w2c)
            _sync(device)
            t_logits += t1 - t0
            t_sample += time.perf_counter() - t1
    return paths, nonfinite, t_logits, t_sample


def _count(ids, tid, vt: int, et: int | None) -> tuple[int, int | None]:
    t = tid[ids]
    illegal = int(((t < 0) | (t >= vt)).sum())
    oob = None if et is None else int(((t < 0) | (t >= et)).sum())
    return illegal, oob


def peak_memory(device: str) -> tuple[int, str]:
    if device == "cuda":
        import torch

        return int(torch.cuda.max_memory_allocated()), "cuda_allocated"
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(rss if sys.platform == "darwin" else rss * 1024), "host_rss"


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
        return _verify(
            doing, source, target, mask_path, device, tokens, seed, markov, progress, chunks
        )


def _refuse_past_the_machine(doing: Doing, host: int, device_need: int, dev: str) -> None:
    """Refuse, before any allocation, a run that needs more than the machine has: past
    it an overcommitting kernel grants the memory, then kills the process."""
    ram = machine_memory()
    if ram is not None and host > ram:
        doing.need = host
        raise CheckpointError(doing.path, doing.message(f"the machine has {size(ram)} of RAM"))
    if dev == "cuda":
        import torch

        gpu = torch.cuda.get_device_properties(torch.cuda.current_device()).total_memory
        if device_need > gpu:
            doing.need = device_need
            raise CheckpointError(doing.path, doing.message(_gpu_memory()))


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
    if cfg.hidden_size and info.shape[1] != cfg.hidden_size:
        raise CheckpointError(
            info.path,
            f"{info.name} is {list(info.shape)}; its width is not the drafter's "
            f"hidden_size {cfg.hidden_size}",
        )
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
    tid = torch.from_numpy(target_ids(vd, d2t)).to(dev)
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
