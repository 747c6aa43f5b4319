"""What ``fix`` can do about a finding: a repair, declared beside its rule.

A repair is a pure function of the facts (like the rule it belongs to) that returns the
change it would make, as plain data: config keys set, moved or removed, tensors dropped,
cut, renamed, given new values or copied from the target's rows. ``commands/fix.py``
turns changes into files; nothing here reads or writes one. A repair is *safe* when the runtime serves the repaired
drafter as the producer trained it (the padded rows it trims can never be a token; the
``d2t`` it drops is one the runtime has no parameter for), *unsafe* when it rests on a
guess (``fix --unsafe-fixes`` applies those). A value the tool cannot know (a mask token
id, aux layer ids) is never guessed: the repair answers ``Needs`` and ``fix --set
KEY=VALUE`` gives it.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Sequence
from dataclasses import field
from typing import Any

from dspark_ckpt.record import record

SAFE, UNSAFE = "safe", "unsafe"
ASKS = "asks"  # a repair that only ever asks for a value (``Needs``): ``fix --set`` gives it

# the command a hint gives, with the placeholders the docs use: a finding knows no paths
FIX_COMMAND = "dspark-ckpt fix DRAFTER --target T --out DIR"
SIDE_FILES = "dspark-ckpt fix DRAFTER --target T"  # what --emit-d2t / --emit-mask add to


def fix_command(*, key: str | None = None, value: str = "VALUE", unsafe: bool = False) -> str:
    """The runnable ``fix`` command a hint gives, in backquotes: ``--set KEY=VALUE`` (quoted
    for a shell) where the repair needs a value, ``--unsafe-fixes`` where it rests on a guess."""
    extra = f" --set {shlex.quote(f'{key}={value}')}" if key else ""
    return f"`{FIX_COMMAND}{extra}{' --unsafe-fixes' if unsafe else ''}`"


def emit_command(flag: str) -> str:
    """The runnable ``fix`` command a hint gives for a side file (``--emit-d2t``,
    ``--emit-mask``: written in the current folder), in backquotes."""
    return f"`{SIDE_FILES} {flag}`"


# --- changes: what a repair does, as data ----------------------------------------------


@record
class SetKey:
    """Set ``key`` of config.json (dotted: ``dflash_config.mask_token_id``) to ``value``."""

    key: str
    value: Any


@record
class DelKey:
    """Remove ``key`` from config.json."""

    key: str


@record
class NewConfig:
    """Replace config.json as a whole (a translation into another format)."""

    config: dict = field(hash=False)
    why: str = ""


@record
class Drop:
    """Drop tensor ``name`` from the checkpoint."""

    name: str


@record
class Drops:
    """Drop every tensor of ``names``: one change for many (a million unexpected names
    are planned at the cost of one object, not one each)."""

    names: tuple[str, ...]


@record
class Cut:
    """Keep the first ``rows`` rows of tensor ``name`` (its bytes: the source's rows)."""

    name: str
    rows: int


@record
class Rename:
    """Store tensor ``name`` as ``new`` (its bytes unchanged)."""

    name: str
    new: str


@record
class Put:
    """Store ``values`` (a numpy array, or a function giving it: made only where the
    change is) as tensor ``name``, replacing any tensor of that name; ``what`` says where
    the values come from."""

    name: str
    values: Any = field(hash=False, compare=False)
    what: str = ""


@record
class TargetRows:
    """Store rows ``rows`` (in that order) of the target's tensor ``source`` (its header
    entry) as tensor ``name``, in the target's dtype: read by offset from the target's
    file (a Hub target by range requests), only those rows."""

    name: str
    source: Any = field(hash=False, compare=False)  # a TensorInfo of the target
    rows: Sequence[int] = field(default=(), hash=False, compare=False, repr=False)
    what: str = ""
    shard: str | None = None  # the drafter's file to store a new tensor in (None: fix's own)


@record
class Rows:
    """Keep rows ``rows`` of tensor ``name``, in that order (a head cut to a pruned vocab)."""

    name: str
    rows: Sequence[int] = field(hash=False, compare=False, repr=False)


Change = SetKey | DelKey | NewConfig | Drop | Drops | Cut | Rename | Put | TargetRows | Rows


@record
class Fix:
    """A repair's answer: the changes that repair the finding, and one line saying what
    they do (``trim the 28 padded rows ...``)."""

    changes: tuple[Change, ...]
    summary: str
    safety: str | None = None  # None: the repair's own; a repair safe only sometimes says


@record
class Needs:
    """A repair's answer where a value must come from the user: the config ``key``
    (``fix --set KEY=VALUE``) and why nothing in the checkpoint says it."""

    key: str
    why: str
    value: str = "VALUE"  # what the hint's ``--set`` shows: a placeholder, or what the config says


@record
class Repair:
    """A finding code's repair: its name (``trim-padding``), whether it is safe, and
    ``plan(facts, profile, finding) -> Fix | Needs | None`` (None: nothing to do for
    this occurrence, e.g. the tensor it would change is not there)."""

    name: str
    safety: str
    plan: Callable[..., Fix | Needs | None]
    doc: str = ""

    def __post_init__(self) -> None:
        if self.safety not in (SAFE, UNSAFE, ASKS):
            raise ValueError(f"repair {self.name}: safety {self.safety!r}")


def repair(name: str, safety: str) -> Callable[[Callable], Repair]:
    """Declare the decorated function as a repair (its docstring: what it does, for
    docs/fix.md); give the result to ``@rule(..., repair=...)``."""

    def make(plan: Callable) -> Repair:
        return Repair(name, safety, plan, " ".join((plan.__doc__ or "").split()))

    return make
