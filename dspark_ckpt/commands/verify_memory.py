"""What ``verify`` needs of memory: estimated from the checkpoint's shapes before
anything is loaded (``memory_needed``), refused past the machine's RAM or the GPU's
memory, and running out anyway (a ``ulimit -v``, a small container, a full GPU) turned
into one line naming the file, the tensor and the memory it needed (``out_of_memory``);
torch imported only where there is room to map it (``require_torch``). The chunk sizes
below bound what the sampling holds at once."""

from __future__ import annotations

import contextlib
import importlib.util
import os
import resource
import sys
from collections.abc import Iterator
from pathlib import Path

from dspark_ckpt.errors import CheckpointError, UsageError
from dspark_ckpt.facts.config import (
    torch_install_hint,
)
from dspark_ckpt.record import record

VOCAB_CHUNK = 8192  # head rows per logits block
BATCH_CHUNK = 256  # hidden states per logits block
ADV_CHUNK = 64  # padded rows per Markov adversary block ([chunk, V] scores)
HIDDEN_BLOCK = 256  # random hidden states drawn per seed (independent of the batch chunk)
ROW_CHUNK = 4096  # illegal head rows per norm block when choosing the adversarial rows


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


@record(frozen=False)
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


def peak_memory(device: str) -> tuple[int, str]:
    if device == "cuda":
        import torch

        return int(torch.cuda.max_memory_allocated()), "cuda_allocated"
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(rss if sys.platform == "darwin" else rss * 1024), "host_rss"


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
