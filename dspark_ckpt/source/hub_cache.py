"""Whole files written into the Hugging Face Hub cache, in huggingface_hub's layout.

``models--org--name/blobs/<sha256>`` holds the bytes, ``snapshots/<commit>/<name>`` is a
relative symlink to it (a copy where symlinks cannot be made): what ``hf_hub_download``
writes, so huggingface_hub, other tools and our own offline runs
(``HF_HUB_OFFLINE=1``, by commit) find the file. Atomic: the blob is streamed into a
``.incomplete`` file beside it, fsynced, then renamed; the link is made under a
temporary name, then renamed over the old one. A failure at any point (the download
refused mid-way, a signal) removes the temporary file: nothing partial is left.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import shutil
from collections.abc import Callable
from pathlib import Path

from dspark_ckpt.errors import CheckpointError, WriteError

Fill = Callable[[Callable[[bytes], None]], None]


def _plain(name: str) -> bool:
    return name not in ("", ".", "..") and not any(c in name for c in "/\\\0")


def store(repo: Path, commit: str, name: str, fill: Fill) -> Path:
    """``fill(write)`` streams the bytes of the top-level file ``name`` of ``repo`` (its
    cache folder) at ``commit``; they become a blob and the snapshot's link to it, which is
    returned. Whatever ``fill`` raises is raised after the partial blob is removed. A
    cache that cannot be written is a ``WriteError`` naming the cache folder."""
    if not _plain(name):
        raise CheckpointError(name, "not a plain file name; not downloaded")
    blobs, snap = repo / "blobs", repo / "snapshots" / commit
    token = secrets.token_hex(8)
    tmp = blobs / f"{token}.incomplete"
    try:
        blobs.mkdir(parents=True, exist_ok=True)
        snap.mkdir(parents=True, exist_ok=True)
        f = open(tmp, "xb")  # noqa: SIM115 - closed below, on every path
    except OSError as e:
        raise WriteError(repo, e.strerror or str(e)) from None
    digest = hashlib.sha256()

    def write(chunk: bytes) -> None:
        digest.update(chunk)
        try:
            f.write(chunk)
        except OSError as e:  # disk full
            raise WriteError(repo, e.strerror or str(e)) from None

    try:
        with f:
            fill(write)
            try:
                f.flush()
                os.fsync(f.fileno())
            except OSError as e:
                raise WriteError(repo, e.strerror or str(e)) from None
        blob = blobs / digest.hexdigest()
        _replace(tmp, blob, repo)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    link, tmp_link = snap / name, snap / f".{token}.link"
    try:
        try:
            os.symlink(os.path.relpath(blob, snap), tmp_link)
        except OSError:  # no symlinks here (Windows without developer mode): a copy
            try:
                shutil.copyfile(blob, tmp_link)
            except OSError as e:
                raise WriteError(repo, e.strerror or str(e)) from None
        _replace(tmp_link, link, repo)
    except BaseException:
        tmp_link.unlink(missing_ok=True)
        raise
    return link


def _replace(src: Path, dest: Path, repo: Path) -> None:
    try:
        os.replace(src, dest)
    except OSError as e:
        raise WriteError(repo, e.strerror or str(e)) from None
