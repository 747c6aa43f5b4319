"""A checkpoint's source as ``fix`` plans to leave it, before anything is written.

``OverlaySource`` wraps the source of a checkpoint already read and substitutes the
files fix makes: its new ``config.json`` and the new safetensors files (the very bytes
that will be written, so the planned checkpoint is read from them). Every other file is
the checkpoint's own, its headers as they were read: a plan reads no header twice.
``build_checkpoint(OverlaySource(...), files=...)`` is the planned checkpoint.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dspark_ckpt.source.atomic import open_to_read
from dspark_ckpt.source.base import Source
from dspark_ckpt.source.layout import CONFIG
from dspark_ckpt.source.pieces import Pieces
from dspark_ckpt.source.safetensors import (
    MAX_JSON_BYTES,
    SafetensorsHeader,
    TensorInfo,
    parse_header,
    parse_json,
)

if TYPE_CHECKING:
    from dspark_ckpt.source.checkpoint import Checkpoint


def parse_made_bytes(data: bytes | Pieces, dest: Path) -> SafetensorsHeader:
    """Our own strict reader's view of a safetensors file about to be written at
    ``dest``: its bytes, or the pieces it is made of (whose first holds the header)."""
    head, size = (data, len(data)) if isinstance(data, bytes) else (data.head, data.size)
    n = int.from_bytes(head[:8], "little")
    return parse_header(head[8 : 8 + n], size, dest)


class OverlaySource(Source):
    """``ckpt``'s source with ``config`` (new bytes of its config.json, or None: as it
    is) and ``added`` (new or rewritten safetensors files: destination -> their bytes, or
    the pieces they are made of) in place."""

    def __init__(
        self,
        ckpt: Checkpoint,
        *,
        config: bytes | None,
        added: dict[Path, bytes | Pieces],
        tensors: dict[Path, dict[str, TensorInfo]] | None = None,
        values: dict[tuple[Path, str], bytes] | None = None,
    ):
        self.base, self.ckpt = ckpt.origin, ckpt
        self.name, self.is_local = ckpt.origin.name, ckpt.origin.is_local
        self.config, self.added = config, added
        # a file's tensors as planned (``fix``'s repairs): a tensor there reads the bytes
        # its offsets name in its path's file, or the new ``values`` given for it
        self.tensors, self.values = tensors or {}, values or {}

    @property
    def root(self) -> Path:
        return self.base.root

    @property
    def folder(self) -> Path | None:
        return self.base.folder

    @property
    def jail(self) -> Path | None:
        return self.base.jail

    def names(self) -> frozenset[str]:
        return self.base.names()

    def file_names(self) -> frozenset[str]:
        return self.base.file_names()

    def path(self, name: str) -> Path:
        return self.base.path(name)

    def read_json(self, name: str, what: str, limit: int = MAX_JSON_BYTES) -> Any:
        if name == CONFIG and self.config is not None:
            return parse_json(self.config, self.path(name), what)
        if name == CONFIG and self.ckpt.config is not None:
            return self.ckpt.config  # as read
        return self.base.read_json(name, what, limit)

    def weight_path(self, name: str) -> Path:
        return self.base.weight_path(name)

    def read_header(self, path: Path) -> SafetensorsHeader:
        if path in self.added:
            return parse_made_bytes(self.added[path], path)
        return self.base.read_header(path)

    def read_metadata(self, path: Path) -> dict[str, str] | None:
        if path in self.added:
            return parse_made_bytes(self.added[path], path).metadata
        return self.base.read_metadata(path)

    def read_tensors(self, paths: Iterable[Path]) -> Iterator[dict[str, TensorInfo]]:
        known: dict[Path, dict[str, TensorInfo]] = {}
        if len(self.ckpt.files) == 1:  # its own dict: a file of 1M tensors is not copied
            known[self.ckpt.files[0]] = self.ckpt.tensors
        else:
            for name, info in self.ckpt.tensors.items():
                known.setdefault(info.path, {})[name] = info
        for path in paths:
            if path in self.tensors:
                yield self.tensors[path]
            elif path in self.added:
                yield parse_made_bytes(self.added[path], path).tensors
            elif path in known:
                yield known[path]
            else:
                yield from self.base.read_tensors([path])

    def read_bytes(self, info: TensorInfo) -> bytes | bytearray:
        if (info.path, info.name) in self.values:
            return self.values[info.path, info.name]
        if info.path in self.added:
            data = self.added[info.path]
            if isinstance(data, Pieces):
                return data.read(info.start, info.end, open_to_read)
            return data[info.start : info.end]
        return self.base.read_bytes(info)

    def read_file(self, name: str, limit: int) -> tuple[Path, bytes]:
        return self.base.read_file(name, limit)

    def local_copy(self, names: list[str]) -> list[Path]:
        return self.base.local_copy(names)

    def local_tensors(self, infos: list[TensorInfo]) -> list[TensorInfo]:
        return self.base.local_tensors(infos)
