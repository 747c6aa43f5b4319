"""A small Hugging Face Hub-compatible HTTP server for the tests, and a Hub cache builder.

The server answers exactly what dspark-ckpt's Hub path uses:

- ``GET /api/models/{repo}[/revision/{rev}]``: the commit and the file listing;
- ``HEAD`` / ``GET /{repo}/resolve/{rev}/{file}``: with ``X-Repo-Commit`` and ``ETag``
  headers, and byte ranges (``Range: bytes=a-b``, answered 206 + ``Content-Range``);
- Hub error codes (``X-Error-Code``) for a missing repo, revision or file, a gated
  repo, and a private one read without the right ``HF_TOKEN``.

Every request is logged with the byte ranges of file data it sent, so a test can
assert that no weight byte beyond the headers and the mapping tensors left it.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
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


class HubServer:
    def __init__(self, repos: dict[str, Repo]) -> None:
        self.repos = repos
        self.log: list[Sent] = []
        self._lock = threading.Lock()
        handler = type("Handler", (_Handler,), {"hub": self})
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> HubServer:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
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

    def _serve(self, body: bool) -> None:
        path = unquote(urlsplit(self.path).path)
        parts = path.strip("/").split("/")
        auth = self.headers.get("Authorization")
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
        raw = json.dumps(
            {"id": repo_id, "sha": commit, "siblings": [{"rfilename": n} for n in repo.files]}
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def _file(self, repo_id, rev, name, body, path, auth) -> None:
        if (repo := self._repo(repo_id)) is None:
            self.hub.record(Sent(self.command, path, name, None, None, auth))
            return
        commit = repo.resolve(rev)
        if commit is None:
            self.hub.record(Sent(self.command, path, name, None, None, auth))
            return self._error(404, "RevisionNotFound")
        data = repo.files.get(name)
        if data is None:
            self.hub.record(Sent(self.command, path, name, None, None, auth))
            return self._error(404, "EntryNotFound", commit)
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
        self.hub.record(
            Sent(self.command, path, name, start if body else None, end if body else None, auth)
        )
        self.send_response(status)
        self.send_header("X-Repo-Commit", commit)
        self.send_header("ETag", f'"{repo.etags[name]}"')
        self.send_header("Accept-Ranges", "bytes")
        if status == 206:
            self.send_header("Content-Range", f"bytes {start}-{end - 1}/{len(data)}")
        self.send_header("Content-Length", str(end - start))
        self.end_headers()
        if body:
            self.wfile.write(data[start:end])


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
