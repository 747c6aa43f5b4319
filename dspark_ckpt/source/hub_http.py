"""The bounded HTTP client every Hub byte comes through (``_get`` then ``_read``), the
Hub's settings and its errors in the tool's words, and ``_Remote``: one repository at
one commit, read by range requests and whole-file downloads into the Hub cache.

Every request: connect and read timeouts of ``HF_HUB_DOWNLOAD_TIMEOUT`` seconds
(huggingface_hub's variable, default 10, at most a week), the whole answer within that
many seconds per MiB, never more bytes than asked for (a range) or than the file may
have, a length the server announces over it refused before the body is read, an answer
compressed although ``identity`` was asked for never inflating more than
``INFLATE``-fold, and a body that ends before its announced length or differs from the
``X-Linked-Size`` the Hub announced refused.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from dspark_ckpt.errors import (
    CheckpointError,
    NetworkError,
    UsageError,
    few,
    redact,
    whole_number,
)
from dspark_ckpt.source import hub_cache
from dspark_ckpt.source.hub_ref import PREFIX, HubPath, HubRef
from dspark_ckpt.source.layout import INDEX, PICKLE_SUFFIXES, parse_index
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

COMMIT = re.compile(r"[0-9a-f]{40}")  # what model-info's sha must be: it goes into URLs
MIB = 1 << 20
ERROR_BODY_BYTES = 1 << 16  # what is read of an error answer, for its message
TIMEOUT_VARS = ("HF_HUB_DOWNLOAD_TIMEOUT", "HF_HUB_ETAG_TIMEOUT")
MAX_TIMEOUT = 7 * 86400  # seconds: a larger setting means "wait long" (the OS takes no more)
INFLATE = 100  # a compressed answer may inflate this many times its size (plus 1 MiB)
MAX_DOWNLOAD = 1 << 40  # a whole file whose size nothing announced (1 TiB)


# --- errors ----------------------------------------------------------------------------


def _settings() -> None:
    """Refuse, as one line, the environment huggingface_hub would crash on when imported
    (it parses its timeouts with ``int()`` and ``HF_ENDPOINT`` with ``urlsplit``) or that
    names no usable endpoint."""
    from urllib.parse import urlsplit

    for name in TIMEOUT_VARS:
        value = os.environ.get(name)
        if value is not None and whole_number(value.strip(), 4300) is None:
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
            raise UsageError(f"HF_ENDPOINT={_hidden(endpoint)!r} is not an http(s) URL of a Hub")
    try:
        import huggingface_hub.constants  # noqa: F401
    except ValueError as e:  # no other setting is parsed at import, but if one ever is
        raise UsageError(f"huggingface_hub refuses its HF_* settings: {e}") from None


def _hidden(endpoint: str) -> str:
    """A malformed ``HF_ENDPOINT`` as it may be shown: without what precedes its last
    ``@`` (credentials, even where a stray ``/`` makes them no URL userinfo)."""
    scheme, sep, rest = endpoint.partition("://")
    if sep and "@" in rest:
        return f"{scheme}://***@{rest.rsplit('@', 1)[1]}"
    return redact(endpoint)


def _endpoint() -> str:
    """The Hub's endpoint as messages name it: ``HF_ENDPOINT`` with its credentials, if
    any, redacted (``http://***@host``)."""
    from huggingface_hub import constants

    return redact(constants.ENDPOINT)


def hub_timeout() -> int:
    """Seconds a Hub request may wait to connect, for each read, and per MiB of its answer:
    huggingface_hub's ``HF_HUB_DOWNLOAD_TIMEOUT`` (default 10), as its downloads use it;
    at most ``MAX_TIMEOUT`` (the socket layer overflows on 9999999999)."""
    from huggingface_hub import constants

    return min(constants.HF_HUB_DOWNLOAD_TIMEOUT, MAX_TIMEOUT)


def _headers(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The headers of every request: huggingface_hub's (its user agent, the token), an
    uncompressed answer asked for (sizes and ranges then mean the file's bytes), and
    ``extra``. A value HTTP cannot carry (a token pasted with a non-ASCII character or a
    newline) is a ``UsageError`` that never shows the token."""
    from huggingface_hub.utils import build_hf_headers

    headers = {**build_hf_headers(), "Accept-Encoding": "identity", **(extra or {})}
    for key, value in headers.items():
        if value.isascii() and value.isprintable():
            continue
        if key.lower() == "authorization":
            raise UsageError(
                "the Hub token (HF_TOKEN, or the one saved by `hf auth login`) holds a "
                "character that is not printable ASCII, which HTTP cannot send: a Hub token "
                "is ASCII (hf_...); check it for a typo or a stray character"
            )
        raise UsageError(f"the {key} header for the Hub holds a character HTTP cannot send")
    return headers


def _first_line(err: BaseException | None) -> str:
    text = str(err).strip().splitlines()[0] if err is not None and str(err).strip() else ""
    text = redact(text if len(text) <= 200 else text[:200] + "...")
    return f"{type(err).__name__}: {text}" if text else type(err).__name__


def _failed_url(err: BaseException):
    """The URL a transport error was raised for (after redirects), or None."""
    try:
        return err.request.url  # type: ignore[attr-defined]
    except (AttributeError, RuntimeError):  # httpx raises RuntimeError when none is set
        return None


def _elsewhere(err: BaseException) -> str:
    """Where a request that failed went, when a redirect took it off the Hub's host."""
    from urllib.parse import urlsplit

    url = _failed_url(err)
    if url is None:
        return ""
    hub = urlsplit(_endpoint())
    if (url.scheme, url.host, url.port) == (hub.scheme, hub.hostname, hub.port):
        return ""
    port = f":{url.port}" if url.port else ""
    return f"{url.scheme}://{url.host}{port}"


@contextmanager
def _hub_errors(ref: HubRef, name: str | None = None):
    """Turn huggingface_hub / HTTP failures into one-line ``UsageError``s, a
    ``NetworkError`` where the Hub could not be consulted (``name``: the file being
    downloaded, if any)."""
    from huggingface_hub import constants, errors

    httpx = _httpx()
    endpoint = _endpoint()
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
            raise NetworkError(
                f"{ref.source}: cannot download {name or ref.named} from the Hub at "
                f"{endpoint}: {_first_line(cause or e)}"
            ) from None
        commits = sorted(p.name for p in _repo_cache(ref).glob("snapshots/*"))
        if commits:  # cached by commit (single-file downloads, verify's), no ref for this name
            raise UsageError(
                f"{where}the local Hub cache ({constants.HF_HUB_CACHE}) cannot resolve "
                f"{ref.named} offline (HF_HUB_OFFLINE is set); it holds {ref.repo_id} at "
                f"commit(s) {few(commits)}: name one ({ref.repo_id}@{commits[0]})"
            ) from None
        raise NetworkError(
            f"{where}{ref.named} is not in the local Hub cache ({constants.HF_HUB_CACHE}) "
            "and HF_HUB_OFFLINE is set"
        ) from None
    except errors.HfHubHTTPError as e:
        status = e.response.status_code if e.response is not None else "?"
        raise NetworkError(f"{ref.source}: the Hub at {endpoint} answered HTTP {status}") from None
    except httpx.TimeoutException as e:
        off = _elsewhere(e)
        raise NetworkError(
            f"{where}the Hub at {endpoint} timed out: no answer within "
            f"{hub_timeout()} s"
            + (f" from {off}, where it redirected" if off else "")
            + " (HF_HUB_DOWNLOAD_TIMEOUT sets it)"
            + _offline_hint(ref)
        ) from None
    except httpx.TooManyRedirects:
        from huggingface_hub.utils import get_session

        most = getattr(get_session(), "max_redirects", 20)
        raise NetworkError(
            f"{where}the Hub at {endpoint} redirects in a loop (more than {most} redirects)"
        ) from None
    except httpx.UnsupportedProtocol as e:  # the endpoint is http(s): a redirect led there
        url = _failed_url(e)
        scheme = f"a {url.scheme}:// URL" if url is not None and url.scheme else "a URL"
        raise NetworkError(
            f"{where}the Hub at {endpoint} redirected it to {scheme}, which is not followed "
            "(http and https only)"
        ) from None
    except httpx.InvalidURL as e:
        raise UsageError(f"{ref.source}: the Hub at {endpoint}: {redact(str(e))}") from None
    except httpx.RemoteProtocolError as e:
        raise NetworkError(
            f"{where}the Hub at {endpoint} broke the HTTP protocol: {_first_line(e)}"
        ) from None
    except httpx.HTTPError as e:
        off = _elsewhere(e)
        raise NetworkError(
            (
                f"{where}cannot reach {off}, where the Hub at {endpoint} redirected: "
                if off
                else f"{where}cannot reach the Hub at {endpoint}: "
            )
            + type(e).__name__
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
    for each read), an uncompressed answer asked for; an error status raises as
    huggingface_hub would, from at most ``ERROR_BODY_BYTES`` of its body. Following
    redirects, to another host too (the Hub sends large files to a CDN; the token is not
    sent there), never to another scheme than http(s), at most the client's limit (20).
    Failures while the body is read in the block are ``_hub_errors``' too."""
    from huggingface_hub.utils import get_session, hf_raise_for_status

    httpx = _httpx()
    with _hub_errors(ref):
        t = hub_timeout()
        with get_session().stream(
            "GET",
            url,
            headers=_headers(headers),
            timeout=httpx.Timeout(t),
            follow_redirects=True,
        ) as r:
            if r.status_code >= 400 and r.status_code != 416:
                body = bytearray()
                _read(r, ERROR_BODY_BYTES, redact(url), body.extend)
                keep = {
                    k: v
                    for k, v in r.headers.items()
                    if k.lower() not in ("content-encoding", "content-length", "transfer-encoding")
                }
                hf_raise_for_status(
                    httpx.Response(
                        r.status_code, headers=keep, content=bytes(body), request=r.request
                    )
                )
            yield r


def _read(r, cap: int, what: str | Path, sink: Callable[[bytes], Any]) -> tuple[int, bool]:
    """``r``'s body into ``sink``, at most ``cap`` bytes: how many were read and whether
    the body held more. The one reader of every Hub answer:

    - the whole of it must come within ``hub_timeout()`` seconds per MiB (a server
      dripping a byte a second never trips a read timeout): else a ``UsageError``;
    - decoded, it may not be more than ``INFLATE`` times the bytes that came (plus 1 MiB):
      a server compressing although ``identity`` was asked for cannot send a gzip bomb
      (a ``CheckpointError`` on ``what``, checked before a chunk reaches ``sink``);
    - a body that ends before the length it announced is a ``CheckpointError`` saying so
      (a connection closed mid-file), not a transport error.
    """
    httpx = _httpx()
    t = hub_timeout()
    start, n = time.monotonic(), 0
    try:
        for chunk in r.iter_bytes():
            if n + len(chunk) > INFLATE * r.num_bytes_downloaded + MIB:
                raise CheckpointError(
                    what,
                    f"the Hub's {r.headers.get('Content-Encoding', 'compressed')}-compressed "
                    f"answer inflates more than {INFLATE}-fold (a decompression bomb); "
                    "refused, nothing kept",
                )
            if n + len(chunk) > cap:
                sink(chunk[: cap - n])
                return cap, True
            sink(chunk)
            n += len(chunk)
            if time.monotonic() - start > t * (1 + n // MIB):
                raise NetworkError(
                    f"{what}: the Hub at {_endpoint()} sends its answer too slowly (under 1 MiB "
                    f"in {t} s; HF_HUB_DOWNLOAD_TIMEOUT sets it)"
                )
    except httpx.RemoteProtocolError:
        declared = _declared(r)
        if declared is not None and n < declared:
            raise CheckpointError(
                what,
                f"the answer ended after {n} of its {declared} bytes (the connection closed)",
                hint="download it again",
            ) from None
        raise
    return n, False


def _declared(r) -> int | None:
    """The body length a server announces, if it does."""
    n = r.headers.get("Content-Length", "")
    return whole_number(n.strip(), 4300)


def _announced(r) -> list[int]:
    """Every size of the file an answer announces: its ``Content-Length`` when the body
    is the file's bytes as they are (no ``Content-Encoding``), and the ``X-Linked-Size``
    the Hub sends for large files, on the answer or a redirect to it."""
    sizes = []
    if r.headers.get("Content-Encoding", "identity").lower() == "identity":
        sizes.append(_declared(r))
    for answer in (*r.history, r):
        linked = answer.headers.get("X-Linked-Size", "")
        sizes.append(whole_number(linked.strip(), 4300))
    return [s for s in sizes if s is not None]


class _TooLarge(CheckpointError):
    """A whole file over the limit of what may be downloaded of it."""


class _Remote:
    """One repository at one commit: small files whole, byte ranges of big ones."""

    def __init__(self, ref: HubRef, commit: str, sizes: dict[str, int] | None = None) -> None:
        self.ref, self.commit = ref, commit
        self.root = HubPath(f"{ref.repo_id}@{commit}")
        self.sizes = {} if sizes is None else sizes  # file -> its size, as a range read said

    def path(self, name: str) -> HubPath:
        return self.root / name

    def named(self, path: HubPath) -> HubRef:
        """This repository at its commit, its errors naming ``path`` (a file of it)."""
        return HubRef(self.ref.repo_id, self.commit, str(path))

    def url(self, name: str) -> str:
        from huggingface_hub import hf_hub_url

        return hf_hub_url(self.ref.repo_id, name, revision=self.commit)

    def download(self, name: str, limit: int) -> Path:
        """A whole file into the Hub cache (``hub_cache.store``), as its local path: the
        cached one if it is there already, else one bounded GET of at most ``limit``
        bytes, or exactly the size a range read of it gave. Refused (``_TooLarge``) on an
        announced size over that before a byte of the body is read, and when the body
        is not the size announced; nothing is left in the cache then."""
        cached = self.cached(name)
        if cached is not None:
            return Path(cached)
        path, exact = self.path(name), self.sizes.get(name)
        cap = limit if exact is None else exact
        with _get(self.url(name), self.named(path)) as r:
            announced = _announced(r)
            for size in announced:  # before a byte of the body is read
                if exact is not None and size != exact:
                    raise CheckpointError(
                        path, f"is {size} bytes, not the {exact} its header read said"
                    )
                if size > limit:
                    raise _TooLarge(path, f"is {size} bytes, over the {limit} limit")

            def fill(write: Callable[[bytes], None]) -> None:
                n, more = _read(r, cap, path, write)
                if more:
                    if exact is not None:
                        raise CheckpointError(
                            path, f"is over the {exact} bytes its header read said"
                        )
                    raise _TooLarge(path, f"is over the {limit}-byte limit")
                for size in (*announced, exact):
                    if size is not None and size != n:
                        raise CheckpointError(
                            path,
                            f"the Hub announced {size} bytes and sent {n}",
                            hint="download it again",
                        )

            return hub_cache.store(_repo_cache(self.ref), self.commit, name, fill)

    def json(self, name: str, what: str, limit: int = MAX_JSON_BYTES):
        """A JSON file (config, index): from the cache if there, else one bounded GET of
        at most ``limit`` bytes, as for a local file."""
        path = self.path(name)
        local = self.cached(name)
        if local is not None:
            with _named(local, path):
                return read_json_file(Path(local), what, limit)
        raw = bytearray()
        with _get(self.url(name), self.named(path)) as r:
            for size in _announced(r):
                if size > limit:  # before a byte of it is read
                    raise CheckpointError(path, f"{what} is {size} bytes, over the {limit} limit")
            _, more = _read(r, limit, path, raw.extend)
        if more:
            raise CheckpointError(path, f"{what} is over the {limit}-byte limit")
        return parse_json(bytes(raw), path, what)

    def cached(self, name: str) -> str | None:
        from huggingface_hub import try_to_load_from_cache

        found = try_to_load_from_cache(self.ref.repo_id, name, revision=self.commit)
        return found if isinstance(found, str) else None

    def range(self, path: HubPath, start: int, end: int) -> tuple[bytes, int]:
        """Bytes ``[start, end)`` of a file and the file's size, by one range request."""
        data = bytearray()
        rng = {"Range": f"bytes={start}-{end - 1}"}
        with _get(self.url(path.name), self.named(path), rng) as r:
            if r.status_code == 416:  # the file is shorter than start
                return b"", _total(r.headers.get("Content-Range")) or 0
            if r.status_code != 206:
                raise CheckpointError(
                    path,
                    f"the Hub answered HTTP {r.status_code} to a byte-range request; "
                    "refusing to download the whole file",
                )
            size = _total(r.headers.get("Content-Range"))
            _, more = _read(r, end - start, path, data.extend)
        if more:
            raise CheckpointError(path, f"the Hub sent more than the {end - start} bytes asked for")
        if size is None:
            raise CheckpointError(path, "the Hub sent a malformed byte-range answer")
        self.sizes[path.name] = size
        return bytes(data), size

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


def _repo_cache(ref: HubRef) -> Path:
    """The folder of ``ref``'s repository in the local Hub cache."""
    from huggingface_hub import constants

    return Path(constants.HF_HUB_CACHE) / ("models--" + ref.repo_id.replace("/", "--"))


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
    if any(snap.glob("*.safetensors")) or any(
        p.name.endswith(PICKLE_SUFFIXES) for p in snap.iterdir()
    ):
        return []  # pickles only: the checkpoint reader says so (fix converts them)
    return ["*.safetensors"]


def _offline() -> bool:
    from huggingface_hub import constants

    return constants.HF_HUB_OFFLINE  # every 1.x and 2.x (is_offline_mode() came in 1.3)
