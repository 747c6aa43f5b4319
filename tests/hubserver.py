"""A small Hugging Face Hub-compatible HTTP server for the tests, and a Hub cache builder.

The server answers exactly what dspark-ckpt's Hub path uses:

- ``GET /api/models/{repo}[/revision/{rev}]``: the commit and the file listing;
- ``HEAD`` / ``GET /{repo}/resolve/{rev}/{file}``: with ``X-Repo-Commit`` and ``ETag``
  headers, and byte ranges (``Range: bytes=a-b``, answered 206 + ``Content-Range``);
- Hub error codes (``X-Error-Code``) for a missing repo, revision or file, a gated
  repo, and a private one read without the right ``HF_TOKEN``.

Every request is logged with the byte ranges of file data it sent, so a test can
assert that no weight byte beyond the headers and the mapping tensors left it.

A ``Hostile`` server misbehaves the ways a broken proxy, captive portal or attacker
can: never answering, dripping its answers, sending endless or huge bodies, answering
model-info with something that is not model info, redirecting to another origin, in a
loop or to another scheme, failing with a status, compressing a file into a gzip bomb,
or announcing another size than it sends.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import socket
import threading
import time
import zlib
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

TOKEN = "hf_test_token"


@dataclass
class Repo:
    files: dict[str, bytes]
    commit: str = ""
    refs: dict[str, str] = field(default_factory=dict)  # extra branch/tag names
    gated: bool = False
    private: bool = False

    def __post_init__(self):
        digest = hashlib.sha1(
            json.dumps(sorted(self.files)).encode() + b"".join(self.files.values())
        )
        self.commit = self.commit or digest.hexdigest()
        self.refs = {"main": self.commit, **self.refs}
        self.etags = {n: hashlib.sha256(d).hexdigest() for n, d in self.files.items()}

    def resolve(self, rev: str) -> str | None:
        return rev if rev == self.commit else self.refs.get(rev)


def repo_from_dir(folder: Path, **kw) -> Repo:
    """A repo holding every file of a local checkpoint folder."""
    return Repo({p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}, **kw)


@dataclass
class Sent:
    method: str
    path: str  # /org/name/resolve/rev/file or /api/...
    file: str | None
    start: int | None  # data bytes sent: [start, end)
    end: int | None
    auth: str | None


@dataclass
class Hostile:
    """How a server departs from the Hub (the default: it does not)."""

    silent: str | None = None  # never answer requests whose path ends so ("": all of them)
    drip: str | None = None  # send those answers' bodies a byte every 0.25 s (as silent)
    endless_range: bool = False  # answer range requests 206 with a body that never ends
    model_info: bytes | None = None  # the raw body of every model-info answer (200)
    # file name -> claimed size, streamed (whole-file requests: a range read is answered)
    huge: dict[str, int] = field(default_factory=dict)
    unsized: bool = False  # send huge files without saying their length
    redirect: str | None = None  # answer file requests 302 to this origin, no Hub headers
    drip_whole: str | None = None  # drip whole-file GETs (no Range) whose path ends so
    status: dict[str, int] = field(default_factory=dict)  # path suffix -> this HTTP status
    redirects: dict[str, str] = field(default_factory=dict)  # path suffix -> 302 Location
    # ("" : to the request's own URL, a loop)
    # file -> size its gzip body inflates to (whole-file requests, as huge)
    gzip: dict[str, int] = field(default_factory=dict)
    resize: dict[str, int] = field(default_factory=dict)  # file -> size HEAD / X-Linked-Size say
    truncate: dict[str, int] = field(default_factory=dict)  # file -> bytes sent, then close


class HubServer:
    def __init__(self, repos: dict[str, Repo], hostile: Hostile | None = None) -> None:
        self.repos = repos
        self.hostile = hostile or Hostile()
        self.closing = threading.Event()
        self.log: list[Sent] = []
        self.drips: list[float] = []  # seconds each dripped answer lasted
        self._lock = threading.Lock()
        handler = type("Handler", (_Handler,), {"hub": self})
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> HubServer:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.closing.set()  # ends silent and endless answers
        self.httpd.shutdown()
        self.httpd.server_close()

    def record(self, sent: Sent) -> None:
        with self._lock:
            self.log.append(sent)

    def requests(self, repo_id: str, file: str) -> list[Sent]:
        """Every request for ``file`` in ``repo_id`` (HEAD, GET, whole or ranged), in order."""
        return [s for s in self.log if s.file == file and s.path.startswith(f"/{repo_id}/")]

    def data_reads(self, repo_id: str, file: str) -> list[tuple[int, int]]:
        """The byte ranges of ``file`` in ``repo_id`` the server sent, in order."""
        return [(s.start, s.end) for s in self.requests(repo_id, file) if s.start is not None]


class _Handler(BaseHTTPRequestHandler):
    hub: HubServer
    protocol_version = "HTTP/1.1"

    def log_message(self, *args) -> None:  # quiet
        pass

    def handle(self) -> None:
        with contextlib.suppress(ConnectionError, TimeoutError):
            super().handle()  # a client hanging up on a hostile answer: what the test wants

    def _error(self, status: int, code: str, commit: str | None = None) -> None:
        self.send_response(status)
        self.send_header("X-Error-Code", code)
        self.send_header("X-Error-Message", code)
        if commit:
            self.send_header("X-Repo-Commit", commit)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _repo(self, repo_id: str) -> Repo | None:
        repo = self.hub.repos.get(repo_id)
        if repo is None:
            self._error(404, "RepoNotFound")
            return None
        auth = self.headers.get("Authorization")
        if repo.private and auth != f"Bearer {TOKEN}":
            self._error(401, "RepoNotFound")
            return None
        if repo.gated and auth != f"Bearer {TOKEN}":
            self._error(403, "GatedRepo")
            return None
        return repo

    def do_HEAD(self) -> None:
        self._serve(body=False)

    def do_GET(self) -> None:
        self._serve(body=True)

    def _dripped(self) -> bool:
        path, hostile = unquote(urlsplit(self.path).path), self.hub.hostile
        if hostile.drip is not None and path.endswith(hostile.drip):
            return True
        whole = hostile.drip_whole
        return whole is not None and path.endswith(whole) and "Range" not in self.headers

    def _body(self, data: bytes) -> None:
        if not self._dripped():
            return self.wfile.write(data)
        start = time.monotonic()
        try:
            for i in range(len(data)):
                if self.hub.closing.wait(0.25):
                    return
                self.wfile.write(data[i : i + 1])
                self.wfile.flush()
        finally:  # the client hung up (the write raised), or the server closes
            self.hub.drips.append(time.monotonic() - start)

    def _serve(self, body: bool) -> None:
        path = unquote(urlsplit(self.path).path)
        parts = path.strip("/").split("/")
        auth = self.headers.get("Authorization")
        hostile = self.hub.hostile
        if hostile.silent is not None and path.endswith(hostile.silent):
            self.hub.record(Sent(self.command, path, None, None, None, auth))
            self.hub.closing.wait()
            return
        for suffix, status in hostile.status.items():
            if path.endswith(suffix):
                self.hub.record(Sent(self.command, path, parts[-1], None, None, auth))
                return self._error(status, "EntryNotFound" if status == 404 else "Error")
        for suffix, location in hostile.redirects.items():
            if path.endswith(suffix):
                self.hub.record(Sent(self.command, path, parts[-1], None, None, auth))
                self.send_response(302)
                self.send_header("Location", location or self.path)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
        if hostile.redirect and len(parts) >= 5 and parts[2] == "resolve":
            self.hub.record(Sent(self.command, path, parts[-1], None, None, auth))
            self.send_response(302)
            self.send_header("Location", hostile.redirect + self.path)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if parts[:2] == ["api", "models"] and len(parts) >= 4:
            self.hub.record(Sent(self.command, path, None, None, None, auth))
            return self._model_info("/".join(parts[2:4]), parts[5] if len(parts) > 5 else "main")
        if len(parts) >= 5 and parts[2] == "resolve":
            repo_id, rev, name = "/".join(parts[:2]), parts[3], "/".join(parts[4:])
            return self._file(repo_id, rev, name, body, path, auth)
        self.hub.record(Sent(self.command, path, None, None, None, auth))
        self._error(404, "NotFound")

    def _model_info(self, repo_id: str, rev: str) -> None:
        if (repo := self._repo(repo_id)) is None:
            return
        commit = repo.resolve(rev)
        if commit is None:
            return self._error(404, "RevisionNotFound")
        raw = (
            self.hub.hostile.model_info
            or json.dumps(
                {"id": repo_id, "sha": commit, "siblings": [{"rfilename": n} for n in repo.files]}
            ).encode()
        )
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self._body(raw)

    def _huge(self, commit: str, size: int, body: bool) -> None:
        """A file of ``size`` bytes (all spaces), claimed in full and streamed for real."""
        self.send_response(200)
        self.send_header("X-Repo-Commit", commit)
        self.send_header("ETag", f'"huge-{size}"')
        if self.hub.hostile.unsized:
            self.send_header("Connection", "close")
        else:
            self.send_header("Content-Length", str(size))
        self.end_headers()
        chunk = b" " * (1 << 20)
        while body and size > 0 and not self.hub.closing.is_set():
            self.wfile.write(chunk[: min(size, len(chunk))])
            size -= len(chunk)

    def _gzip(self, commit: str, size: int, body: bool) -> None:
        """A gzip-encoded answer, whatever the client accepts, inflating to ``size`` spaces
        (about 1000 times its own size; the stream is cut there, without its trailer)."""
        bomb = gzip_bomb(size)
        self.send_response(200)
        self.send_header("X-Repo-Commit", commit)
        self.send_header("ETag", f'"gzip-{size}"')
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(bomb)))
        self.end_headers()
        if body:
            self.wfile.write(bomb)

    def _endless(self, commit: str, start: int, size: int) -> None:
        """A 206 whose body never ends (no length; the connection stays open)."""
        self.send_response(206)
        self.send_header("X-Repo-Commit", commit)
        self.send_header("Content-Range", f"bytes {start}-{size - 1}/{size}")
        self.send_header("Connection", "close")
        self.end_headers()
        chunk = b"\0" * (1 << 16)
        while not self.hub.closing.is_set():
            self.wfile.write(chunk)

    def _file(self, repo_id, rev, name, body, path, auth) -> None:
        if (repo := self._repo(repo_id)) is None:
            self.hub.record(Sent(self.command, path, name, None, None, auth))
            return
        commit = repo.resolve(rev)
        if commit is None:
            self.hub.record(Sent(self.command, path, name, None, None, auth))
            return self._error(404, "RevisionNotFound")
        whole = "Range" not in self.headers
        if whole and name in self.hub.hostile.huge:
            self.hub.record(Sent(self.command, path, name, None, None, auth))
            return self._huge(commit, self.hub.hostile.huge[name], body)
        if whole and name in self.hub.hostile.gzip:
            self.hub.record(Sent(self.command, path, name, None, None, auth))
            return self._gzip(commit, self.hub.hostile.gzip[name], body)
        data = repo.files.get(name)
        if data is None:
            self.hub.record(Sent(self.command, path, name, None, None, auth))
            return self._error(404, "EntryNotFound", commit)
        claimed = self.hub.hostile.resize.get(name)
        cut = self.hub.hostile.truncate.get(name)
        start, end, status = 0, len(data), 200
        rng = self.headers.get("Range")
        if rng:
            a, _, b = rng.removeprefix("bytes=").partition("-")
            start, end = int(a), min(int(b) + 1, len(data)) if b else len(data)
            if start >= len(data):
                self.hub.record(Sent(self.command, path, name, None, None, auth))
                self.send_response(416)
                self.send_header("Content-Range", f"bytes */{len(data)}")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            status = 206
            if self.hub.hostile.endless_range and body:
                self.hub.record(Sent(self.command, path, name, start, None, auth))
                return self._endless(commit, start, len(data))
        self.hub.record(
            Sent(self.command, path, name, start if body else None, end if body else None, auth)
        )
        self.send_response(status)
        self.send_header("X-Repo-Commit", commit)
        self.send_header("ETag", f'"{repo.etags[name]}"')
        self.send_header("Accept-Ranges", "bytes")
        if status == 206:
            self.send_header("Content-Range", f"bytes {start}-{end - 1}/{len(data)}")
        if claimed is not None and status == 200:  # HEAD says it; GET sends the real file
            self.send_header("X-Linked-Size", str(claimed))
        length = claimed if claimed is not None and not body else end - start
        self.send_header("Content-Length", str(length))
        if cut is not None and status == 200 and body:  # announce it all, send less, close
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(data[:cut])
            self.close_connection = True
            return
        self.end_headers()
        if body:
            self._body(data[start:end])


_BOMBS: dict[int, bytes] = {}


def gzip_bomb(size: int) -> bytes:
    """A gzip stream of ``size`` spaces, built without compressing them: after a full
    flush a deflate stream starts afresh, so the compressed form of one MiB of spaces is
    repeated (the trailer, which needs the whole CRC, is left off)."""
    if size not in _BOMBS:
        c = zlib.compressobj(9, zlib.DEFLATED, 31)
        mib = b" " * (1 << 20)
        head = c.compress(mib) + c.flush(zlib.Z_FULL_FLUSH)
        block = c.compress(mib) + c.flush(zlib.Z_FULL_FLUSH)
        _BOMBS[size] = head + block * (size // len(mib) - 1)
    return _BOMBS[size]


def build_cache(cache: Path, repo_id: str, repo: Repo) -> Path:
    """The Hub cache layout huggingface_hub writes: blobs, refs, snapshot symlinks."""
    folder = cache / ("models--" + repo_id.replace("/", "--"))
    snap = folder / "snapshots" / repo.commit
    snap.mkdir(parents=True, exist_ok=True)
    (folder / "blobs").mkdir(exist_ok=True)
    (folder / "refs").mkdir(exist_ok=True)
    for ref, commit in repo.refs.items():
        (folder / "refs" / ref).write_text(commit)
    for name, data in repo.files.items():
        blob = folder / "blobs" / hashlib.sha256(data).hexdigest()
        blob.write_bytes(data)
        link = snap / name
        link.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(os.path.relpath(blob, link.parent), link)
    return snap


def closed_port() -> str:
    """An endpoint nothing listens on: any network use fails at once."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}"


def hub_env(tmp_path: Path, endpoint: str, **extra) -> dict:
    """The environment of a CLI process that reaches the Hub at ``endpoint`` only, with
    its own empty cache and no token."""
    return {
        "HF_ENDPOINT": endpoint,
        "HF_HOME": str(tmp_path / "hf-home"),
        "HF_HUB_CACHE": str(tmp_path / "hf-cache"),
        "HF_TOKEN": "",
        "HF_HUB_OFFLINE": "0",
        "HF_HUB_DISABLE_TELEMETRY": "1",
        **extra,
    }
