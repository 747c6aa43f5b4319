"""What ``verify`` reads: the head tensors (``lm_head``, the Markov head) checked for a
dtype torch computes with and their shapes, read into memory it owns (never mapped),
the padded-row mask file, and the top-k the config asks for."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from dspark_ckpt.commands.verify_memory import is_out_of_memory, require_torch
from dspark_ckpt.errors import CheckpointError, UsageError
from dspark_ckpt.facts.config import (
    NESTED_DRAFTER_KEYS,
    DrafterConfig,
)
from dspark_ckpt.facts.target import Target
from dspark_ckpt.facts.vocab import (
    BIAS_TENSOR,
    LM_HEAD,
    MASK_TENSOR,
)
from dspark_ckpt.source.checkpoint import Checkpoint
from dspark_ckpt.source.safetensors import TensorInfo, read_array, read_header, read_tensor_bytes

DEFAULT_TOPK = 8
TOPK_KEY = "dspark_draft_topk"
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
    truncated while verify samples is no SIGBUS) straight into an uninitialised tensor (no
    zeroed buffer first: one pass over the head fewer) and moved onto ``device``; nothing else
    is read. A sample is converted to float32 once, as the computation will, so a dtype
    that torch cannot convert fails here, as a ``CheckpointError`` naming file and tensor."""
    torch = require_torch()
    dtype = getattr(torch, TORCH_DTYPES.get(info.dtype, ""), None)
    if dtype is None:
        raise CheckpointError(info.path, f"cannot load {info.name!r}: torch has no {info.dtype}")
    raw = torch.empty(info.nbytes, dtype=torch.uint8)  # not zeroed: read fills every byte
    read_tensor_bytes(info, into=memoryview(raw.numpy()))
    try:
        t = raw.view(dtype) if info.nbytes else torch.empty(0, dtype=dtype)
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
