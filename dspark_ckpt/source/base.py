"""Where a checkpoint's files come from: the ``Source`` interface.

A ``Source`` is the only thing that touches disk or network. ``LocalSource``
(``local.py``) reads a folder, or one named ``.safetensors`` file in it; ``HubSource``
(``hub.py``) a Hugging Face Hub repository (online: header-only range requests; offline:
the cache snapshot, through a ``LocalSource``); ``OverlaySource`` (``overlay.py``) a source
as ``fix`` plans to leave it. ``checkpoint.build_checkpoint`` holds the layout logic
(which files hold the weights, the index cross-check) once, for all of them.
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from dspark_ckpt.errors import CheckpointError
from dspark_ckpt.source.safetensors import (
    MAX_JSON_BYTES,
    SafetensorsHeader,
    TensorInfo,
    TooLarge,
    read_regular,
)

HUB_PREFIX = "hf://"  # always a Hub repository

# told of each safetensors file once its header is read: the CLI's progress bar for
# checkpoints of many shards or on the Hub (set by the caller, never by the library)
on_header: ContextVar[Callable[[Path], None] | None] = ContextVar("on_header", default=None)

# headers already read, by path and stat: ``check`` sets one for its run, so that a target
# shared by many pairs has its headers read once (None: every header is read anew)
header_cache: ContextVar[dict[tuple, SafetensorsHeader] | None] = ContextVar(
    "header_cache", default=None
)


def told(path: Path) -> None:
    """Tell ``on_header``'s listener, if any, that ``path``'s header was read."""
    if (report := on_header.get()) is not None:
        report(path)


def is_local(name: str | Path) -> bool:
    """An existing local path always wins over a Hub id (``hf://`` always means the Hub)."""
    if isinstance(name, Path):
        return True
    return not name.startswith(HUB_PREFIX) and os.path.lexists(name)


class UnreadableFile(Exception):
    """A whole file (``Source.read_file``) that cannot be read: ``path``, the local file,
    and ``reason``, the system's words; ``too_large`` when it is over the limit asked."""

    def __init__(self, path: Path, reason: str = "", *, too_large: bool = False) -> None:
        self.path, self.reason, self.too_large = path, reason, too_large
        super().__init__(f"{path}: {reason or 'too large'}")


def read_whole(path: Path, limit: int) -> bytes:
    """A local file's bytes, refused (``UnreadableFile``) over ``limit``, unreadable or
    not a regular file: ``read_regular``'s non-blocking open, as for every file."""
    try:
        return read_regular(path, limit)
    except TooLarge:
        raise UnreadableFile(path, too_large=True) from None
    except CheckpointError as e:
        raise UnreadableFile(path, e.message) from None


class Source(ABC):
    """A checkpoint folder's files, wherever they are.

    ``name``: as the user named it. ``root``: the folder (a local ``Path``, or on the Hub
    its ``hf://org/name@commit`` pseudo-path). ``is_local``: the user named a local path
    (a Hub repository is not, even read from the cache). ``folder``: the local folder its
    files are read from (the Hub cache snapshot offline), None online; ``jail``: where
    that folder's symlinks may lead. ``files``: the weight files where the user named
    them (one ``.safetensors`` file), else None: the folder's layout decides.
    """

    name: str
    is_local: bool = False
    files: list[Path] | None = None

    def prepare(self, *, weights: bool) -> None:  # noqa: B027 - most sources need nothing
        """Before a checkpoint is read from it (``weights``: it must hold weights): the Hub
        checks its settings and lists the repository, or finds the cache snapshot."""

    @property
    @abstractmethod
    def root(self) -> Path: ...

    @property
    def folder(self) -> Path | None:
        return None

    @property
    def jail(self) -> Path | None:
        return self.folder

    @abstractmethod
    def names(self) -> frozenset[str]:
        """Every top-level name of the folder (files, folders, links), as listed."""

    def file_names(self) -> frozenset[str]:
        """The top-level regular files (tokenizer and other side files)."""
        return self.names()

    def path(self, name: str) -> Path:
        """The path under which a top-level file is named (in messages, in findings)."""
        return self.root / name

    @abstractmethod
    def read_json(self, name: str, what: str, limit: int = MAX_JSON_BYTES) -> Any:
        """A top-level JSON file (config, index), read strictly, at most ``limit`` bytes."""

    @abstractmethod
    def weight_path(self, name: str) -> Path:
        """The path a top-level weight file's header is read from (checked, where local,
        to stay inside the jail)."""

    @abstractmethod
    def read_header(self, path: Path) -> SafetensorsHeader:
        """One safetensors header."""

    def read_metadata(self, path: Path) -> dict[str, str] | None:
        """The ``__metadata__`` of one safetensors header."""
        return self.read_header(path).metadata

    def read_tensors(self, paths: Iterable[Path]) -> Iterator[dict[str, TensorInfo]]:
        """The tensors of each file's header, in order (``on_header`` told of each)."""
        for path in paths:
            header = self.read_header(path)
            told(path)
            yield header.tensors

    @abstractmethod
    def read_bytes(self, info: TensorInfo) -> bytes | bytearray:
        """The bytes of one tensor (``d2t``, ``t2d``: small, checked by the caller)."""

    @abstractmethod
    def read_file(self, name: str, limit: int) -> tuple[Path, bytes]:
        """A small top-level file whole (a tokenizer file): the local path it was read
        from and its bytes. Raises ``UnreadableFile`` over ``limit`` or when unreadable."""

    def local_copy(self, names: list[str]) -> list[Path]:
        """Top-level files whole on local disk: a local source's own; the Hub downloads
        them into its cache."""
        return [self.path(n) for n in names]

    def localized(self, names: list[str]) -> Source:
        """This source with ``names`` on local disk (``fix --out`` copies them): itself,
        where its files are local already."""
        return self

    def local_tensors(self, infos: list[TensorInfo]) -> list[TensorInfo]:
        """The same tensors in local files (``verify`` loads them whole): unchanged where
        they are local already."""
        return list(infos)
