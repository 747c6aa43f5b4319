"""What a rule reports: a ``Finding`` of one code, and the ``Code`` it is of.

The codes themselves (severity, title, explanation, hint) are registered with their
rule (``registry.py``) and listed in ``codes.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dspark_ckpt.source.safetensors import TensorInfo

ERROR, WARNING, INFO = "error", "warning", "info"
SEVERITY_ORDER = {ERROR: 0, WARNING: 1, INFO: 2}


@dataclass(frozen=True)
class Code:
    code: str
    severity: str
    title: str
    explanation: str
    hint: str | None = None


def _code(code: str) -> Code:
    from dspark_ckpt.rules.codes import CODES  # every rule module, registered

    return CODES[code]


@dataclass(frozen=True)
class Finding:
    code: str
    message: str
    tensor: str | None = None  # the tensor or config key concerned
    file: str | None = None  # the file concerned, where one is
    hint: str | None = None  # overrides the code's default hint
    severity: str = ""  # the code's severity unless overridden (``check``'s config)
    profile: str | None = None  # the runtime profile whose rule found it (None: every runtime)

    def __post_init__(self) -> None:
        if not self.severity:
            object.__setattr__(self, "severity", _code(self.code).severity)

    @property
    def title(self) -> str:
        return _code(self.code).title

    @property
    def fix_hint(self) -> str | None:
        return self.hint or _code(self.code).hint


def new_finding(code: str, message: str, info: TensorInfo | None = None, *, tensor=None, hint=None):
    return Finding(
        code,
        message,
        tensor=tensor or (info.name if info else None),
        file=str(info.path) if info else None,
        hint=hint,
    )
