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

Every request of ours is bounded (``_get``): connect and read timeouts of
``HF_HUB_DOWNLOAD_TIMEOUT`` seconds (huggingface_hub's variable, default 10), the
whole answer within that many seconds per MiB, and never more bytes than asked for
(a range) or than the limit of what is read (16 MB for JSON); a length the server
announces over it is refused before the body is read. Whole-file downloads for
``verify`` and ``fix --out`` go through ``hf_hub_download``, with its own timeouts
(``HF_HUB_ETAG_TIMEOUT``, ``HF_HUB_DOWNLOAD_TIMEOUT``). Header reads run in daemon
threads, so a signal ends the process at once, whatever a read is waiting for.

``HF_TOKEN``, ``HF_ENDPOINT``, ``HF_HUB_OFFLINE``, ``HF_HOME`` / ``HF_HUB_CACHE``
are honoured through huggingface_hub itself, imported only here and only for
Hub sources. A missing, gated or unreachable repository, a malformed answer from
the Hub and a malformed setting are ``UsageError``s.
"""

from __future__ import annotations

import os
import queue
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from dspark_ckpt.errors import CheckpointError, UsageError, few
from dspark_ckpt.source.base import HUB_PREFIX, Source, is_local, read_whole, told
from dspark_ckpt.source.layout import INDEX, parse_index
from dspark_ckpt.source.local import LocalSource
from dspark_ckpt.source.safetensors import (
    MAX_HEADER_BYTES,
    MAX_JSON_BYTES,
    SafetensorsHeader,
    TensorInfo,
    header_length,
    parse_header,
    parse_json,
    read_header,
    read_json_file,
    read_tensor_bytes,
)

PREFIX = HUB_PREFIX
# owner/name as the Hub allows them, then an optional @revision (a branch, tag or commit)
HUB_ID = re.compile(r"([A-Za-z0-9][\w.-]{0,95})/([\w.-]{1,96})(?:@(\S+))?")
WORKERS = 8  # parallel header reads for many-shard checkpoints
COMMIT = re.compile(r"[0-9a-f]{40}")  # what model-info's sha must be: it goes into URLs
MIB = 1 << 20
ERROR_BODY_BYTES = 1 << 16  # what is read of an error answer, for its message
TIMEOUT_VARS = ("HF_HUB_DOWNLOAD_TIMEOUT", "HF_HUB_ETAG_TIMEOUT")


class HubPath(PurePosixPath):
    """The pseudo-path of a file in a Hub repo at a commit: ``hf://org/name@sha/file``."""

    def __str__(self) -> str:
        return PREFIX + super().__str__()


@dataclass(frozen=True)
class HubRef:
    repo_id: str
    revision: str | None  # None: the default branch
    source: str  # as the user wrote it

    @property
    def named(self) -> str:
        return self.repo_id + (f"@{self.revision}" if self.revision else "")


def hub_ref(source: str | Path) -> HubRef | None:
    """The Hub repository ``source`` names, or None for a local path.

    An existing local path always wins; ``hf://`` always means the Hub.
    """
    if is_local(source):
        return None
    text = str(source)
    explicit = text.startswith(PREFIX)
    m = HUB_ID.fullmatch(text[len(PREFIX) :] if explicit else text)
    if m is None or m[2] in (".", ".."):
        if explicit:
            raise UsageError(f"{text}: not a Hub repository id (expected hf://org/name[@revision])")
        return None
    return HubRef(f"{m[1]}/{m[2]}", m[3], text)


# --- errors ----------------------------------------------------------------------------


def _settings() -> None:
    """Refuse, as one line, the environment huggingface_hub would crash on when imported
    (it parses its timeouts with ``int()`` and ``HF_ENDPOINT`` with ``urlsplit``) or that
    names no usable endpoint."""
    from urllib.parse import urlsplit

    for name in TIMEOUT_VARS:
        value = os.environ.get(name)
        if value is not None and not value.strip().isdigit():
            raise UsageError(f"{name}={value!r}: expected a whole number of seconds")
    endpoint = os.environ.get("HF_ENDPOINT")
    if endpoint is not None:
        try:  # the stdlib first: huggingface_hub crashes on what it refuses
            parts = urlsplit(endpoint)
            ok = parts.scheme in ("http", "https") and bool(parts.hostname) and parts.port != 0
        except ValueError:  # a malformed IPv6 address or port
            ok = False
        if ok:
            httpx = _httpx()
            try:
                httpx.URL(endpoint)
            except httpx.InvalidURL:  # a malformed host (256.1.1.1)
                ok = False
        if not ok:
            raise UsageError(f"HF_ENDPOINT={endpoint!r} is not an http(s) URL of a Hub")
    try:
        import huggingface_hub.constants  # noqa: F401
    except ValueError as e:  # no other setting is parsed at import, but if one ever is
        raise UsageError(f"huggingface_hub refuses its HF_* settings: {e}") from None


def hub_timeout() -> int:
    """Seconds a Hub request may wait to connect, for each read, and per MiB of its answer:
    huggingface_hub's ``HF_HUB_DOWNLOAD_TIMEOUT`` (default 10), as its downloads use it."""
    from huggingface_hub import constants

    return constants.HF_HUB_DOWNLOAD_TIMEOUT


def _first_line(err: BaseException | None) -> str:
    text = str(err).strip().splitlines()[0] if err is not None and str(err).strip() else ""
    text = text if len(text) <= 200 else text[:200] + "..."
    return f"{type(err).__name__}: {text}" if text else type(err).__name__


@contextmanager
def _hub_errors(ref: HubRef, name: str | None = None):
    """Turn huggingface_hub / HTTP failures into one-line ``UsageError``s (``name``: the
    file being downloaded, if any)."""
    from huggingface_hub import constants, errors

    httpx = _httpx()

    where = f"{ref.source}: " + (
        "" if ref.source.startswith(PREFIX) else "no such local path, and "
    )
    try:
        yield
    except errors.HFValidationError as e:
        raise UsageError(f"{ref.source}: not a valid Hub repository id: {e}") from None
    except errors.GatedRepoError:
        raise UsageError(
            f"{ref.source}: Hub repository {ref.repo_id} is gated: accept its terms on the Hub "
            "and set HF_TOKEN to a token that may read it"
        ) from None
    except errors.RepositoryNotFoundError:
        raise UsageError(
            f"{where}no Hub repository {ref.repo_id} (or it is private: set HF_TOKEN)"
        ) from None
    except errors.RevisionNotFoundError:
        raise UsageError(
            f"{ref.source}: Hub repository {ref.repo_id} has no revision {ref.revision!r}"
        ) from None
    except errors.DisabledRepoError:
        raise UsageError(f"{ref.source}: Hub repository {ref.repo_id} is disabled") from None
    except (errors.LocalEntryNotFoundError, errors.OfflineModeIsEnabled) as e:
        if not _offline():  # online, huggingface_hub says this when its download failed
            cause = e.__cause__ or e.__context__
            raise UsageError(
                f"{ref.source}: cannot download {name or ref.named} from the Hub at "
                f"{constants.ENDPOINT}: {_first_line(cause or e)}"
            ) from None
        commits = sorted(p.name for p in _repo_cache(ref).glob("snapshots/*"))
        if commits:  # cached by commit (single-file downloads, verify's), no ref for this name
            raise UsageError(
                f"{where}the local Hub cache ({constants.HF_HUB_CACHE}) cannot resolve "
                f"{ref.named} offline (HF_HUB_OFFLINE is set); it holds {ref.repo_id} at "
                f"commit(s) {few(commits)}: name one ({ref.repo_id}@{commits[0]})"
            ) from None
        raise UsageError(
            f"{where}{ref.named} is not in the local Hub cache ({constants.HF_HUB_CACHE}) "
            "and HF_HUB_OFFLINE is set"
        ) from None
    except errors.HfHubHTTPError as e:
        status = e.response.status_code if e.response is not None else "?"
        raise UsageError(
            f"{ref.source}: the Hub at {constants.ENDPOINT} answered HTTP {status}"
        ) from None
    except httpx.TimeoutException:
        raise UsageError(
            f"{where}the Hub at {constants.ENDPOINT} timed out: no answer within "
            f"{hub_timeout()} s (HF_HUB_DOWNLOAD_TIMEOUT sets it)" + _offline_hint(ref)
        ) from None
    except httpx.InvalidURL as e:
        raise UsageError(f"{ref.source}: the Hub at {constants.ENDPOINT}: {e}") from None
    except httpx.HTTPError as e:
        raise UsageError(
            f"{where}cannot reach the Hub at {constants.ENDPOINT}: {type(e).__name__}"
            + _offline_hint(ref)
        ) from None


def _offline_hint(ref: HubRef) -> str:
    """What the local cache offers when the Hub cannot be reached."""
    repo = _repo_cache(ref)
    if not repo.is_dir():
        return ""
    ref_file = repo / "refs" / (ref.revision or "main")
    commit = ref_file.read_text().strip() if ref_file.is_file() else ref.revision
    snap = repo / "snapshots" / (commit or "")
    if commit and snap.is_dir() and not _uncached_weights(snap):
        return " (the local Hub cache holds it: set HF_HUB_OFFLINE=1 to use that)"
    return f" (the local Hub cache holds only part of it: hf download {ref.repo_id} online)"


def _httpx():
    """The HTTP library huggingface_hub runs on (its ``get_session()`` client and the
    transport errors it lets through): ``httpx2`` from 2.0, ``httpx`` before. 1.32 and later
    name it ``huggingface_hub.utils.httpx``; 1.0 to 1.31 depend on ``httpx`` itself."""
    try:
        from huggingface_hub.utils import httpx
    except ImportError:
        import httpx
    return httpx


@contextmanager
def _named(local: str, remote: HubPath):
    """Errors about a cached copy name the file as it is on the Hub."""
    try:
        yield
    except CheckpointError as e:
        if e.path != str(local):
            raise
        raise CheckpointError(remote, e.message) from None


# --- remote reads: every request bounded in time and size -----------------------------


@contextmanager
def _get(url: str, ref: HubRef, headers: dict[str, str] | None = None) -> Iterator[Any]:
    """A streamed GET with the Hub's token and timeouts (``hub_timeout()`` to connect and
    for each read); an error status raises as huggingface_hub would, from at most
    ``ERROR_BODY_BYTES`` of its body. Following redirects, to another host too (the Hub
    sends large files to a CDN; the token is not sent there)."""
    from huggingface_hub.utils import build_hf_headers, get_session, hf_raise_for_status

    httpx = _httpx()
    with _hub_errors(ref):
        t = hub_timeout()
        with get_session().stream(
            "GET",
            url,
            headers={**build_hf_headers(), **(headers or {})},
            timeout=httpx.Timeout(t),
            follow_redirects=True,
        ) as r:
            if r.status_code >= 400 and r.status_code != 416:
                body, _ = _body(r, ERROR_BODY_BYTES, url)
                keep = {
                    k: v
                    for k, v in r.headers.items()
                    if k.lower() not in ("content-encoding", "content-length", "transfer-encoding")
                }
                hf_raise_for_status(
                    httpx.Response(r.status_code, headers=keep, content=body, request=r.request)
                )
            yield r


def _body(r, cap: int, what: str | Path) -> tuple[bytes, bool]:
    """At most ``cap`` bytes of ``r``'s body, and whether it held more. The whole of it must
    come within ``hub_timeout()`` seconds per MiB (a server dripping a byte a second never
    trips a read timeout)."""
    t = hub_timeout()
    start, data = time.monotonic(), bytearray()
    for chunk in r.iter_bytes():
        data += chunk
        if len(data) > cap:
            return bytes(data[:cap]), True
        if time.monotonic() - start > t * (1 + len(data) // MIB):
            from huggingface_hub import constants

            raise UsageError(
                f"{what}: the Hub at {constants.ENDPOINT} sends its answer too slowly (under 1 MiB "
                f"in {t} s; HF_HUB_DOWNLOAD_TIMEOUT sets it)"
            )
    return bytes(data), False


def _declared(r) -> int | None:
    """The body length a server announces, if it does."""
    n = r.headers.get("Content-Length", "")
    return int(n) if n.isdigit() else None


class _Remote:
    """One repository at one commit: small files whole, byte ranges of big ones."""

    def __init__(self, ref: HubRef, commit: str) -> None:
        self.ref, self.commit = ref, commit
        self.root = HubPath(f"{ref.repo_id}@{commit}")

    def path(self, name: str) -> HubPath:
        return self.root / name

    def url(self, name: str) -> str:
        from huggingface_hub import hf_hub_url

        return hf_hub_url(self.ref.repo_id, name, revision=self.commit)

    def download(self, name: str) -> str:
        """A whole file through the cache (``hf_hub_download``), as a local path."""
        from huggingface_hub import constants, hf_hub_download

        with _hub_errors(self.ref, name):
            return hf_hub_download(
                self.ref.repo_id,
                name,
                revision=self.commit,
                etag_timeout=constants.HF_HUB_ETAG_TIMEOUT,
            )

    def json(self, name: str, what: str, limit: int = MAX_JSON_BYTES):
        """A JSON file (config, index): from the cache if there, else one bounded GET of
        at most ``limit`` bytes, as for a local file."""
        path = self.path(name)
        local = self.cached(name)
        if local is not None:
            with _named(local, path):
                return read_json_file(Path(local), what, limit)
        with _get(self.url(name), self.ref) as r:
            size = _declared(r)
            if size is not None and size > limit:  # before a byte of it is read
                raise CheckpointError(path, f"{what} is {size} bytes, over the {limit} limit")
            raw, more = _body(r, limit, path)
        if more:
            raise CheckpointError(path, f"{what} is over the {limit}-byte limit")
        return parse_json(raw, path, what)

    def cached(self, name: str) -> str | None:
        from huggingface_hub import try_to_load_from_cache

        found = try_to_load_from_cache(self.ref.repo_id, name, revision=self.commit)
        return found if isinstance(found, str) else None

    def range(self, path: HubPath, start: int, end: int) -> tuple[bytes, int]:
        """Bytes ``[start, end)`` of a file and the file's size, by one range request."""
        with _get(self.url(path.name), self.ref, {"Range": f"bytes={start}-{end - 1}"}) as r:
            if r.status_code == 416:  # the file is shorter than start
                return b"", _total(r.headers.get("Content-Range")) or 0
            if r.status_code != 206:
                raise CheckpointError(
                    path,
                    f"the Hub answered HTTP {r.status_code} to a byte-range request; "
                    "refusing to download the whole file",
                )
            size = _total(r.headers.get("Content-Range"))
            data, more = _body(r, end - start, path)
        if more:
            raise CheckpointError(path, f"the Hub sent more than the {end - start} bytes asked for")
        if size is None:
            raise CheckpointError(path, "the Hub sent a malformed byte-range answer")
        return data, size

    def header(self, path: Path) -> SafetensorsHeader:
        """A safetensors header: from the local cache, else two range requests."""
        if not isinstance(path, HubPath):
            return read_header(path)
        prefix, size = self.range(path, 0, 8)
        n = header_length(prefix, size, path)
        raw, _ = self.range(path, 8, 8 + n) if n else (b"", size)
        if len(raw) != n:
            raise CheckpointError(path, "file ended while reading the header")
        return parse_header(raw, size, path)

    def fetch(self, info: TensorInfo) -> bytes | bytearray:
        """The bytes of one small tensor (``d2t``, ``t2d``): a range request, or the file
        where it was read from the cache."""
        if not isinstance(info.path, HubPath):
            return read_tensor_bytes(info)
        if info.nbytes == 0:
            return b""
        data, _ = self.range(info.path, info.start, info.end)
        if len(data) != info.nbytes:
            raise CheckpointError(info.path, f"tensor {info.name!r}: file ended while reading")
        return data


def _total(content_range: str | None) -> int | None:
    """The full size from ``Content-Range: bytes a-b/size``."""
    m = re.fullmatch(r"bytes (?:\d+-\d+|\*)/(\d+)", (content_range or "").strip())
    return int(m[1]) if m else None


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
    where = f"{ref.source}: the Hub at {constants.ENDPOINT} sent a malformed model-info answer"
    with _get(url, ref) as r:
        raw, more = _body(r, MAX_JSON_BYTES, ref.source)
    if more:
        raise UsageError(f"{where}: over {MAX_JSON_BYTES} bytes")
    try:
        info = parse_json(raw, Path(url), "answer")
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


def _offline() -> bool:
    from huggingface_hub import constants

    return constants.HF_HUB_OFFLINE  # every 1.x and 2.x (is_offline_mode() came in 1.3)


def _repo_cache(ref: HubRef) -> Path:
    """The folder of ``ref``'s repository in the local Hub cache."""
    from huggingface_hub import constants

    return Path(constants.HF_HUB_CACHE) / ("models--" + ref.repo_id.replace("/", "--"))


def _snapshot(ref: HubRef) -> Path:
    """The cached snapshot folder of ``ref`` (offline mode)."""
    from huggingface_hub import snapshot_download

    with _hub_errors(ref):
        return Path(snapshot_download(ref.repo_id, revision=ref.revision, local_files_only=True))


def _uncached_weights(snap: Path) -> list[str]:
    """The weight files a cached snapshot lacks (an online run only range-reads them)."""
    if (snap / INDEX).exists():
        try:
            index = snap / INDEX
            wanted = set(
                parse_index(read_json_file(index, "index", MAX_HEADER_BYTES), index).values()
            )
        except CheckpointError:
            return []  # a broken index: the checkpoint reader reports it
        return sorted(n for n in wanted if not (snap / n).exists())
    return [] if any(snap.glob("*.safetensors")) else ["*.safetensors"]


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
        if self._cache is not None:
            return self._cache.read_file(name, limit)
        path = Path(self._online.download(name))
        return path, read_whole(path, limit)

    def _pinned(self, source: str) -> _Remote:
        """The repository at the commit it was read at, its errors named as ``source``."""
        commit = self._online.commit
        return _Remote(HubRef(self.ref.repo_id, commit, source), commit)

    def local_copy(self, names: list[str]) -> list[Path]:
        """Whole files downloaded into the Hub cache (``hf_hub_download`` at the commit
        read, so the cache, ``HF_TOKEN`` and ``HF_ENDPOINT`` are honoured)."""
        if self._cache is not None:
            return self._cache.local_copy(names)
        remote = self._pinned(self.name)
        return [Path(remote.download(n)) for n in names]

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
            local[path] = Path(self._pinned(str(path)).download(path.name))
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
