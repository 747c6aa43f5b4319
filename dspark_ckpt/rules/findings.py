"""What a rule reports: a ``Finding`` of one registered code.

The codes themselves (severity, title, explanation, hint) are registered with their
rule (``registry.py``) and listed in ``codes.py``. A finding is made only by its rule,
or by the engine for the codes it emits itself, so its code is registered by then.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from dspark_ckpt.rules.registry import ERROR, INFO, RULES, SEVERITY_ORDER, WARNING, Code

if TYPE_CHECKING:
    from dspark_ckpt.source.safetensors import TensorInfo

__all__ = ["ERROR", "INFO", "SEVERITY_ORDER", "WARNING", "Code", "Finding", "new_finding"]


@dataclass(frozen=True)
class Finding:
    code: str
    message: str
    tensor: str | None = None  # the tensor or config key concerned
    file: str | None = None  # the file concerned, where one is
    hint: str | None = None  # overrides the code's default hint
    severity: str = ""  # the code's severity unless overridden (``check``'s config)
    profile: str | None = None  # the runtime profile whose rule found it (None: every runtime)
    repair: str | None = None  # "safe" / "unsafe": what ``fix`` can do about it (the engine's)

    def __post_init__(self) -> None:
        if not self.severity:
            object.__setattr__(self, "severity", RULES[self.code].severity)

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
