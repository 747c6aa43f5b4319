"""Hugging Face Hub repositories as DRAFTER or TARGET, read header-only.

``org/name``, ``org/name@revision`` and ``hf://org/name[@revision]`` name a model
repository; a local path that exists always wins over a Hub id. Online, the repo
listing and commit come from ``/api/models/{repo}/revision/{rev}``, JSON files
(config, index) through ``hf_hub_download`` (so the local cache is used and
filled), and each safetensors header through two HTTP range requests (its 8-byte
length, then exactly its header), validated by the same strict parser as local
files. ``d2t`` / ``t2d`` are fetched with one range request of just their bytes.
No other weight byte is read. A safetensors file already in the local cache is
read there instead. With ``HF_HUB_OFFLINE=1`` everything comes from the cache.

``HF_TOKEN``, ``HF_ENDPOINT``, ``HF_HUB_OFFLINE``, ``HF_HOME`` / ``HF_HUB_CACHE``
are honoured through huggingface_hub itself, imported only here and only for
Hub sources. A missing, gated or unreachable repository is a ``UsageError``.
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath

from dspark_ckpt.checkpoint import (
    CONFIG,
    HUB_PREFIX,
    INDEX,
    Checkpoint,
    Target,
    _check_index_agrees,
    _headers,
    is_local,
    load_checkpoint,
    load_target,
    pick_weights,
    read_index,
    target_from,
)
from dspark_ckpt.errors import CheckpointError, TargetError, UsageError
from dspark_ckpt.safetensors_io import (
    SafetensorsHeader,
    TensorInfo,
    header_length,
    parse_header,
    read_header,
    read_json_file,
)
from dspark_ckpt.target_model import SideFiles

PREFIX = HUB_PREFIX
# owner/name as the Hub allows them, then an optional @revision (a branch, tag or commit)
HUB_ID = re.compile(r"([A-Za-z0-9][\w.-]{0,95})/([\w.-]{1,96})(?:@(\S+))?")
WORKERS = 8  # parallel header reads for many-shard checkpoints


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


@contextmanager
def _hub_errors(ref: HubRef):
    """Turn huggingface_hub / HTTP failures into one-line ``UsageError``s."""
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
    except (errors.LocalEntryNotFoundError, errors.OfflineModeIsEnabled):
        commits = sorted(p.name for p in _repo_cache(ref).glob("snapshots/*"))
        if commits:  # cached by commit (an online inspect), with no ref for this name
            raise UsageError(
                f"{where}the local Hub cache ({constants.HF_HUB_CACHE}) cannot resolve "
                f"{ref.named} offline (HF_HUB_OFFLINE is set); it holds {ref.repo_id} at "
                f"commit(s) {', '.join(commits)}: name one ({ref.repo_id}@{commits[0]})"
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


# --- remote reads ----------------------------------------------------------------------


class _Remote:
    """One repository at one commit: downloads of small files, byte ranges of big ones."""

    def __init__(self, ref: HubRef, commit: str) -> None:
        self.ref, self.commit = ref, commit
        self.root = HubPath(f"{ref.repo_id}@{commit}")

    def path(self, name: str) -> HubPath:
        return self.root / name

    def download(self, name: str) -> str:
        """A small file (config, index) through the cache, as a local path."""
        from huggingface_hub import hf_hub_download

        with _hub_errors(self.ref):
            return hf_hub_download(self.ref.repo_id, name, revision=self.commit)

    def json(self, name: str, what: str):
        local = self.download(name)
        with _named(local, self.path(name)):
            return read_json_file(Path(local), what)

    def cached(self, name: str) -> str | None:
        from huggingface_hub import try_to_load_from_cache

        found = try_to_load_from_cache(self.ref.repo_id, name, revision=self.commit)
        return found if isinstance(found, str) else None

    def range(self, path: HubPath, start: int, end: int) -> tuple[bytes, int]:
        """Bytes ``[start, end)`` of a file and the file's size, by one range request."""
        from huggingface_hub import hf_hub_url
        from huggingface_hub.utils import build_hf_headers, get_session, hf_raise_for_status

        url = hf_hub_url(self.ref.repo_id, path.name, revision=self.commit)
        headers = {**build_hf_headers(), "Range": f"bytes={start}-{end - 1}"}
        with _hub_errors(self.ref), get_session().stream("GET", url, headers=headers) as r:
            if r.status_code == 416:  # the file is shorter than start
                return b"", _total(r.headers.get("Content-Range")) or 0
            if r.status_code >= 400:
                r.read()
                hf_raise_for_status(r)
            if r.status_code != 206:
                raise CheckpointError(
                    path,
                    f"the Hub answered HTTP {r.status_code} to a byte-range request; "
                    "refusing to download the whole file",
                )
            size = _total(r.headers.get("Content-Range"))
            data = r.read()
        if size is None or len(data) > end - start:
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

    def fetch(self, info: TensorInfo) -> bytes | None:
        """The bytes of one small tensor (``d2t``, ``t2d``); None: read the local file."""
        if not isinstance(info.path, HubPath):
            return None
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
    """The commit a revision resolves to, and the repo's file names at it."""
    from huggingface_hub import HfApi

    with _hub_errors(ref):
        info = HfApi().model_info(ref.repo_id, revision=ref.revision)
    return info.sha, {s.rfilename for s in info.siblings or []}


def _quiet() -> None:
    from huggingface_hub.utils import disable_progress_bars

    disable_progress_bars()  # tiny downloads; stderr stays for our own messages


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
            wanted = set(read_index(snap / INDEX).values())
        except CheckpointError:
            return []  # a broken index: the checkpoint reader reports it
        return sorted(n for n in wanted if not (snap / n).exists())
    return [] if any(snap.glob("*.safetensors")) else ["*.safetensors"]


def _remote_checkpoint(ref: HubRef, *, need_config: bool, weights: bool = True) -> Checkpoint:
    commit, listed = _listing(ref)
    names = {n for n in listed if "/" not in n}  # the checkpoint is the repo's top level
    remote = _Remote(ref, commit)
    config_path = remote.path(CONFIG)
    config = None
    if CONFIG in names:
        config = remote.json(CONFIG, "config")
    elif need_config:
        raise CheckpointError(config_path, "file not found")
    has_weights = INDEX in names or any(n.endswith(".safetensors") for n in names)
    files: list[Path] = []
    index = wmap = None
    if weights or has_weights:
        index_name, found = pick_weights(names, remote.root)
        if index_name is None:
            files = found
        else:
            index = remote.path(index_name)
            local = remote.download(index_name)
            with _named(local, index):
                wmap = read_index(Path(local))
            files = sorted(set(wmap.values()))
            missing = [n for n in files if n not in names]
            if missing:
                raise CheckpointError(index, f"missing shard(s): {', '.join(missing)}")
    paths = [Path(c) if (c := remote.cached(n)) else remote.path(n) for n in files]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(min(WORKERS, max(len(paths), 1))) as pool:
        fetched = pool.map(remote.header, paths)  # in order, WORKERS at a time
        tensors = _headers(paths, read=lambda _path: next(fetched))
    if wmap is not None:
        _check_index_agrees(index, wmap, tensors)
    return Checkpoint(
        ref.source,
        remote.root,
        config_path,
        config,
        paths,
        tensors,
        index,
        fetch=remote.fetch,
        side=SideFiles(frozenset(names), fetch=remote.download),
    )


def load_hub_checkpoint(ref: HubRef, *, need_config: bool = True) -> Checkpoint:
    """A drafter on the Hub: config and every safetensors header, no weights."""
    _quiet()
    if _offline():
        snap = _snapshot(ref)
        missing = _uncached_weights(snap)
        if missing:
            raise UsageError(
                f"{ref.source}: the local Hub cache holds {ref.named} at {snap.name} without "
                f"its weights ({', '.join(missing[:3])}) and HF_HUB_OFFLINE is set: download "
                f"them (hf download {ref.repo_id}) or run online"
            )
        ckpt = load_checkpoint(snap, link_root=snap.parent.parent, need_config=need_config)
        ckpt.source = ref.source
        return ckpt
    return _remote_checkpoint(ref, need_config=need_config)


def load_hub_target(ref: HubRef) -> Target:
    """A target on the Hub: ``Vt`` from its config, ``Et`` from its headers if it has weights."""
    _quiet()
    if _offline():
        snap = _snapshot(ref)
        return replace(load_target(snap, link_root=snap.parent.parent), source=ref.source)
    try:
        ckpt = _remote_checkpoint(ref, need_config=True, weights=False)
    except CheckpointError as e:
        if e.path and e.path.endswith("/" + CONFIG):  # as for a local target: a usage error
            raise TargetError(e) from None
        raise
    return target_from(
        ref.source, ckpt.config, ckpt.config_path, ckpt if ckpt.files else None, ckpt.side
    )


def localize(infos: list[TensorInfo]) -> list[TensorInfo]:
    """The same tensors in local files: for ``verify``, which loads a few tensors whole.

    Each distinct Hub file that holds one of ``infos`` is downloaded once into the Hub
    cache (``hf_hub_download`` at the commit it was read at, so the cache, ``HF_TOKEN``
    and ``HF_ENDPOINT`` are honoured); no other file is. A tensor already in a local file
    is returned unchanged. The downloaded file must hold the tensor exactly as the header
    read from the Hub described it.
    """
    local: dict[HubPath, Path] = {}
    for path in dict.fromkeys(i.path for i in infos if isinstance(i.path, HubPath)):
        repo_id, _, commit = str(path.parent).removeprefix(PREFIX).rpartition("@")
        remote = _Remote(HubRef(repo_id, commit, str(path)), commit)
        local[path] = Path(remote.download(path.name))
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


def download_weights(ckpt: Checkpoint) -> Checkpoint:
    """For ``fix --out``, which copies every file: a Hub checkpoint read online, with its
    config, index and weight files downloaded into the Hub cache, as a local Checkpoint.
    (``verify`` needs a few tensors only: ``localize``.)

    A local checkpoint (or one read from the cache offline) is returned as it is.
    """
    if not isinstance(ckpt.root, HubPath):
        return ckpt
    repo_id, _, commit = str(ckpt.root).removeprefix(PREFIX).rpartition("@")
    remote = _Remote(HubRef(repo_id, commit, ckpt.source), commit)
    config = ckpt.config_path if ckpt.config is not None else None
    names = [p.name for p in (config, ckpt.index_path, *ckpt.files) if p is not None]
    local = [Path(remote.download(n)) for n in names]
    snap = local[0].parent
    out = load_checkpoint(snap, link_root=snap.parent.parent, need_config=ckpt.config is not None)
    out.source = ckpt.source
    return out
