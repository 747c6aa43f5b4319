"""What a rule reports: a ``Finding`` of one registered code.

The codes themselves (severity, title, explanation, hint) are registered with their
rule (``registry.py``) and listed in ``codes.py``. A finding is made only by its rule,
or by the engine for the codes it emits itself, so its code is registered by then.
"""

from __future__ import annotations

from dataclasses import field
from typing import TYPE_CHECKING, Any

from dspark_ckpt.record import record
from dspark_ckpt.rules.registry import ERROR, INFO, RULES, SEVERITY_ORDER, WARNING, Code

if TYPE_CHECKING:
    from dspark_ckpt.source.safetensors import TensorInfo

__all__ = [
    "ERROR",
    "INFO",
    "MAX_ITEMS",
    "MAX_QUOTED",
    "SEVERITY_ORDER",
    "WARNING",
    "Code",
    "Finding",
    "bounded",
    "new_finding",
]

# The one cap on what a finding or a report quotes from its input (a 4 MB token, 1M layer
# ids): a string keeps at most MAX_QUOTED characters (PATH_MAX: a real path is never cut),
# a list MAX_ITEMS items, their middle left out and counted.
MAX_QUOTED = 4096
MAX_ITEMS = 64


def bounded(value: Any) -> Any:
    """``value`` as a finding or a report quotes it: a string of more than ``MAX_QUOTED``
    characters or a list (tuple, dict) of more than ``MAX_ITEMS`` items keeps its start
    and its end, the middle replaced by ``[... N characters ...]`` / ``[... N items ...]``;
    the items of a list and the values of a dict bounded alike. Anything else is kept."""
    if isinstance(value, str):
        if len(value) <= MAX_QUOTED:
            return value
        cut = len(value) - MAX_QUOTED
        while len(value) - cut + len(f"[... {cut} characters ...]") > MAX_QUOTED:
            cut += 1  # room for the marker itself (a few steps: its digits change once)
        head = (len(value) - cut) // 2
        return f"{value[:head]}[... {cut} characters ...]{value[head + cut :]}"
    if isinstance(value, (list, tuple)):
        if len(value) > MAX_ITEMS:
            half = (MAX_ITEMS - 1) // 2
            left = len(value) - 2 * half
            value = [*value[:half], f"[... {left} items ...]", *value[len(value) - half :]]
        return [bounded(v) for v in value]
    if isinstance(value, dict):
        items = list(value.items())
        if len(items) > MAX_ITEMS:
            half = (MAX_ITEMS - 1) // 2
            left = len(items) - 2 * half
            items = [*items[:half], (f"[... {left} items ...]", None), *items[len(items) - half :]]
        return {bounded(k): bounded(v) for k, v in items}
    return value


@record
class Finding:
    code: str
    message: str
    tensor: str | None = None  # the tensor or config key concerned
    file: str | None = None  # the file concerned, where one is
    hint: str | None = None  # overrides the code's default hint
    severity: str = ""  # the code's severity unless overridden (``check``'s config)
    profile: str | None = None  # the runtime profile whose rule found it (None: every runtime)
    # what ``fix`` can do about it (the engine's): "safe", "unsafe" (--unsafe-fixes), "asks" (a
    # value only the user can give: --set KEY=VALUE), None (nothing)
    repair: str | None = None
    # the engine's answer of the code's repair for this finding (``engine.plan_repair``),
    # kept for ``fix``; () where it has none
    planned: Any = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not self.severity:
            object.__setattr__(self, "severity", RULES[self.code].severity)
        for name in ("message", "tensor", "file", "hint"):  # however a rule quoted its input
            text = getattr(self, name)
            if isinstance(text, str) and len(text) > MAX_QUOTED:
                object.__setattr__(self, name, bounded(text))

    @property
    def title(self) -> str:
        return RULES[self.code].title

    @property
    def fix_hint(self) -> str | None:
        return self.hint or RULES[self.code].hint


def new_finding(code: str, message: str, info: TensorInfo | None = None, *, tensor=None, hint=None):
    return Finding(
        code,
        message,
        tensor=tensor or (info.name if info else None),
        file=str(info.path) if info else None,
        hint=hint,
    )
