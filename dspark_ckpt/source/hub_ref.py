"""A Hub repository as the user names it: ``org/name``, ``org/name@revision`` or
``hf://org/name[@revision]`` (a local path that exists always wins), and the pseudo-path
of a file in it at a commit."""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

from dspark_ckpt.errors import UsageError
from dspark_ckpt.record import record
from dspark_ckpt.source.base import (
    HUB_PREFIX,
    is_local,
)

PREFIX = HUB_PREFIX
# owner/name as the Hub allows them, then an optional @revision (a branch, tag or commit)
HUB_ID = re.compile(r"([A-Za-z0-9][\w.-]{0,95})/([\w.-]{1,96})(?:@(\S+))?")


class HubPath(PurePosixPath):
    """The pseudo-path of a file in a Hub repo at a commit: ``hf://org/name@sha/file``."""

    def __str__(self) -> str:
        return PREFIX + super().__str__()


@record
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
