"""Hugging Face Hub repositories as DRAFTER or TARGET, read header-only.

``org/name``, ``org/name@revision`` and ``hf://org/name[@revision]`` name a model
repository; a local path that exists always wins over a Hub id. Online, the repo
listing and commit come from ``/api/models/{repo}/revision/{rev}``, JSON files
(config, index) with one GET each, and each safetensors header through two HTTP
range requests (its 8-byte length, then exactly its header), all validated by the
same strict parsers as local files. ``d2t`` / ``t2d`` are fetched with one range
request of just their bytes. No other weight byte is read. A file already in the
local cache is read there instead. With ``HF_HUB_OFFLINE=1`` everything comes from
the cache (its snapshot, read as a local folder). ``HubSource`` is this module's
``Source``: ``checkpoint.build_checkpoint`` reads a Hub checkpoint through it.

The Hub id is ``hub_ref``'s; every request goes through ``hub_http``, whose one bounded
downloader (``_get`` then ``_read``) every byte from the Hub comes through,
for a header's byte range, a JSON file and a whole file alike: connect and read
timeouts of ``HF_HUB_DOWNLOAD_TIMEOUT`` seconds (huggingface_hub's variable, default
10, at most a week), the whole answer within that many seconds per MiB, never more
bytes than asked for (a range) or than the file may have (16 MB for JSON, 1 GiB for a
tokenizer file, the size a header read gave for a weight file), a length the server
announces over it refused before the body is read, an answer compressed although
``identity`` was asked for never inflating more than ``INFLATE``-fold, and a body that
ends before its announced length or differs from the ``X-Linked-Size`` the Hub
announced refused. Whole files (tokenizer files, ``verify``'s and ``fix --out``'s
downloads) are streamed into the Hub cache in huggingface_hub's layout
(``hub_cache.store``), atomically. Header reads run in daemon threads, so a signal
ends the process at once, whatever a read is waiting for.

``HF_TOKEN``, ``HF_ENDPOINT``, ``HF_HUB_OFFLINE``, ``HF_HOME`` / ``HF_HUB_CACHE``
are honoured through huggingface_hub itself, imported only here and only for
Hub sources. A missing, gated or unreachable repository, a malformed answer from
the Hub and a malformed setting are ``UsageError``s; messages name the Hub by its
endpoint with any credentials redacted (``_endpoint``). A tokenizer file that cannot
be downloaded is ``UnreadableFile`` (the tokenizer check says "not checked").
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from dspark_ckpt.errors import CheckpointError, UsageError, WriteError, few
from dspark_ckpt.source.base import (
    Source,
    UnreadableFile,
    read_whole,
    told,
)
from dspark_ckpt.source.hub_http import (
    COMMIT,
    MAX_DOWNLOAD,
    _endpoint,
    _get,
    _hub_errors,
    _named,
    _offline,
    _read,
    _Remote,
    _settings,
    _TooLarge,
    _uncached_weights,
)
from dspark_ckpt.source.hub_ref import HUB_ID, PREFIX, HubPath, HubRef, hub_ref
from dspark_ckpt.source.layout import INDEX
from dspark_ckpt.source.local import LocalSource
from dspark_ckpt.source.safetensors import (
    MAX_HEADER_BYTES,
    MAX_JSON_BYTES,
    SafetensorsHeader,
    TensorInfo,
    parse_json,
    read_header,
)

__all__ = ["HUB_ID", "PREFIX", "HubPath", "HubRef", "HubSource", "hub_ref"]

WORKERS = 8  # parallel header reads for many-shard checkpoints


def _listing(ref: HubRef) -> tuple[str, set[str]]:
    """The commit a revision resolves to, and the repo's file names at it: model-info
    (``/api/models/{repo}[/revision/{rev}]``, as ``HfApi.model_info`` asks it), read
    bounded and checked before use."""
    from urllib.parse import quote

    from huggingface_hub import constants
    from huggingface_hub.utils import validate_repo_id

    with _hub_errors(ref):
        validate_repo_id(ref.repo_id)
    url = f"{constants.ENDPOINT}/api/models/{ref.repo_id}"
    if ref.revision is not None:
        url += f"/revision/{quote(ref.revision, safe='')}"
    where = f"{ref.source}: the Hub at {_endpoint()} sent a malformed model-info answer"
    raw = bytearray()
    try:
        with _get(url, ref) as r:
            _, more = _read(r, MAX_JSON_BYTES, ref.source, raw.extend)
    except CheckpointError as e:  # cut short, or a decompression bomb
        raise UsageError(f"{where}: {e.message}") from None
    if more:
        raise UsageError(f"{where}: over {MAX_JSON_BYTES} bytes")
    try:
        info = parse_json(bytes(raw), Path(ref.source), "answer")
    except CheckpointError as e:
        raise UsageError(f"{where}: {e.message}") from None
    sha = info.get("sha") if isinstance(info, dict) else None
    siblings = info.get("siblings") if isinstance(info, dict) else None
    if not isinstance(sha, str) or not COMMIT.fullmatch(sha):
        raise UsageError(f"{where}: no commit sha (40 hex digits)")
    if not isinstance(siblings, list) or not all(
        isinstance(f, dict) and isinstance(f.get("rfilename"), str) for f in siblings
    ):
        raise UsageError(f"{where}: siblings is not a list of files")
    return sha, {f["rfilename"] for f in siblings}


def _in_threads(fn: Callable[[Any], Any], items: Iterable[Any], workers: int) -> Iterator[Any]:
    """``fn`` over ``items``, ``workers`` at a time, results in order (as
    ``ThreadPoolExecutor.map``), in daemon threads: a read stuck on the network holds up
    neither a signal's exception in the caller nor the process's exit (an executor's
    threads are joined first). Once the caller stops, no new item is started."""
    items = list(items)
    todo: queue.SimpleQueue[int] = queue.SimpleQueue()
    done: queue.SimpleQueue[tuple[int, bool, Any]] = queue.SimpleQueue()
    for i in range(len(items)):
        todo.put(i)
    stop = threading.Event()

    def work() -> None:
        while not stop.is_set():
            try:
                i = todo.get_nowait()
            except queue.Empty:
                return
            try:
                done.put((i, True, fn(items[i])))
            except BaseException as e:  # handed to the caller, raised there
                done.put((i, False, e))

    for _ in range(min(workers, len(items))):
        threading.Thread(target=work, daemon=True).start()
    finished: dict[int, tuple[bool, Any]] = {}
    try:
        for k in range(len(items)):
            while k not in finished:
                i, ok, value = done.get()
                finished[i] = (ok, value)
            ok, value = finished.pop(k)
            if not ok:
                raise value
            yield value
    finally:
        stop.set()


def _start() -> None:
    """Before any Hub use: the settings checked, huggingface_hub's progress bars off
    (tiny downloads; stderr stays for our own messages)."""
    _settings()
    from huggingface_hub.utils import disable_progress_bars

    disable_progress_bars()


def _snapshot(ref: HubRef) -> Path:
    """The cached snapshot folder of ``ref`` (offline mode)."""
    from huggingface_hub import snapshot_download

    with _hub_errors(ref):
        return Path(snapshot_download(ref.repo_id, revision=ref.revision, local_files_only=True))


def _limit(name: str) -> int:
    """The most a whole-file download of ``name`` may be, where no range read gave its
    size: the local limits of a config and an index, else ``MAX_DOWNLOAD``."""
    if name == INDEX:
        return MAX_HEADER_BYTES
    return MAX_JSON_BYTES if name.endswith(".json") else MAX_DOWNLOAD


class HubSource(Source):
    """A Hub repository at one commit. Online: listed by model-info, JSON files with one
    GET, headers by range requests in daemon threads, a file in the local cache read
    there. Offline (``HF_HUB_OFFLINE``): the cache snapshot, through a ``LocalSource``
    shown under the Hub id. Nothing is asked of the Hub before ``prepare``."""

    is_local = False  # not even read from the cache: never patched in place

    def __init__(self, ref: HubRef) -> None:
        self.ref, self.name = ref, ref.source
        self._cache: LocalSource | None = None  # offline: the cache snapshot
        self._remote: _Remote | None = None  # online
        self._names: frozenset[str] = frozenset()

    def prepare(self, *, weights: bool) -> None:
        if self._cache is None and self._remote is None:
            _start()
            if _offline():
                snap = _snapshot(self.ref)
                self._cache = LocalSource(snap, name=self.ref.source, jail=snap.parent.parent)
            else:
                commit, listed = _listing(self.ref)
                self._remote = _Remote(self.ref, commit)
                # the checkpoint is the repo's top level
                self._names = frozenset(n for n in listed if "/" not in n)
        if weights and self._cache is not None:
            snap, ref = self._cache.root, self.ref
            missing = _uncached_weights(snap)
            if missing:
                raise UsageError(
                    f"{ref.source}: the local Hub cache holds {ref.named} at {snap.name} "
                    f"without its weights ({few(missing, 3)}) and HF_HUB_OFFLINE is set: "
                    f"download them (hf download {ref.repo_id}) or run online"
                )

    @property
    def _online(self) -> _Remote:
        assert self._remote is not None, "prepare() first"
        return self._remote

    @property
    def root(self) -> Path:
        return self._cache.root if self._cache is not None else self._online.root

    @property
    def folder(self) -> Path | None:
        return self._cache.folder if self._cache is not None else None

    @property
    def jail(self) -> Path | None:
        return self._cache.jail if self._cache is not None else None

    def names(self) -> frozenset[str]:
        return self._cache.names() if self._cache is not None else self._names

    def file_names(self) -> frozenset[str]:
        return self._cache.file_names() if self._cache is not None else self._names

    def read_json(self, name: str, what: str, limit: int = MAX_JSON_BYTES) -> Any:
        if self._cache is not None:
            return self._cache.read_json(name, what, limit)
        if name not in self._names:
            raise CheckpointError(self.path(name), "file not found")
        return self._online.json(name, what, limit)

    def weight_path(self, name: str) -> Path:
        if self._cache is not None:
            return self._cache.weight_path(name)
        cached = self._online.cached(name)
        return Path(cached) if cached else self._online.path(name)

    def read_header(self, path: Path) -> SafetensorsHeader:
        if self._cache is not None:
            return self._cache.read_header(path)
        return self._online.header(path)

    def read_tensors(self, paths: Iterable[Path]) -> Iterator[dict[str, TensorInfo]]:
        if self._cache is not None:
            yield from self._cache.read_tensors(paths)
            return
        paths = list(paths)
        fetched = _in_threads(self._online.header, paths, WORKERS)  # in order, WORKERS at a time
        for path, header in zip(paths, fetched, strict=True):
            told(path)
            yield header.tensors

    def read_bytes(self, info: TensorInfo) -> bytes | bytearray:
        if self._cache is not None:
            return self._cache.read_bytes(info)
        return self._online.fetch(info)

    def read_file(self, name: str, limit: int) -> tuple[Path, bytes]:
        """A tokenizer file: downloaded into the cache (at most ``limit`` bytes), read
        there. A download that fails, however, is ``UnreadableFile`` naming the Hub file
        (the tokenizer check is then "not checked", as for a local file); a cache that
        cannot be written stays a ``WriteError``."""
        if self._cache is not None:
            return self._cache.read_file(name, limit)
        path = self.path(name)
        try:
            local = self._pinned(str(path)).download(name, limit)
        except WriteError:
            raise
        except _TooLarge:
            raise UnreadableFile(path, too_large=True) from None
        except CheckpointError as e:
            raise UnreadableFile(path, e.message) from None
        except UsageError as e:
            raise UnreadableFile(path, str(e).removeprefix(f"{path}: ")) from None
        return local, read_whole(local, limit)

    def _pinned(self, source: str) -> _Remote:
        """The repository at the commit it was read at, its errors named as ``source``."""
        online = self._online
        return _Remote(HubRef(self.ref.repo_id, online.commit, source), online.commit, online.sizes)

    def local_copy(self, names: list[str]) -> list[Path]:
        """Whole files downloaded into the Hub cache at the commit read (``HF_TOKEN`` and
        ``HF_ENDPOINT`` honoured), by the bounded downloader: a JSON file at most its
        limit, a weight file exactly the size its header read gave."""
        if self._cache is not None:
            return self._cache.local_copy(names)
        remote = self._pinned(self.name)
        return [remote.download(n, _limit(n)) for n in names]

    def localized(self, names: list[str]) -> Source:
        """For ``fix --out``, which copies every file: ``names`` (its config, index and
        weight files) downloaded into the cache, read there as a local folder. Read
        offline, the source is local already."""
        if self._cache is not None:
            return self
        snap = self.local_copy(names)[0].parent
        return LocalSource(snap, name=self.name, jail=snap.parent.parent)

    def local_tensors(self, infos: list[TensorInfo]) -> list[TensorInfo]:
        """For ``verify``, which loads a few tensors whole: each distinct Hub file holding
        one of ``infos`` is downloaded once into the cache; no other file is. A tensor
        already in a local file is returned unchanged. The downloaded file must hold the
        tensor exactly as the header read from the Hub described it."""
        local: dict[HubPath, Path] = {}
        for path in dict.fromkeys(i.path for i in infos if isinstance(i.path, HubPath)):
            local[path] = self._pinned(str(path)).download(path.name, _limit(path.name))
        out = []
        for info in infos:
            if info.path not in local:
                out.append(info)
                continue
            moved = info._replace(path=local[info.path])
            with _named(str(moved.path), info.path):
                if read_header(moved.path).tensors.get(info.name) != moved:
                    raise CheckpointError(
                        moved.path, f"{info.name} differs from the header read from the Hub"
                    )
            out.append(moved)
        return out
