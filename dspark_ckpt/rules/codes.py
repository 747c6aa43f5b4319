"""Every finding code, generated from the registry: ``CODES``, in code order (built
where first read).

``dspark-ckpt explain``, the SARIF rule metadata and docs/findings.md read the codes
from here; each one is registered beside its rule (``registry.py``).
"""

from __future__ import annotations

from functools import cache

from dspark_ckpt.errors import UsageError

# every rule module: importing one registers its codes
from dspark_ckpt.rules import (  # noqa: F401
    aux_default,
    d2t,
    d2t_conventions,
    heads,
    inputs,
    load,
    model,
    mtp,
    names,
    served,
    shapes,
    target,
    tied,
    tokenizer,
    translation,
    variants,
    vocab,
)
from dspark_ckpt.rules.findings import Code
from dspark_ckpt.rules.registry import RULES


@cache
def _codes() -> dict[str, Code]:
    return {code: RULES[code].as_code for code in sorted(RULES)}


def __getattr__(name: str):
    """``CODES`` built where first read: ``inspect`` imports this module for its rules and
    reads no ``Code`` (building all of them was a hundredth of its start-up)."""
    if name == "CODES":
        return _codes()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def get_code(code: str) -> Code:
    """A finding code by name (case-insensitive); a ``UsageError`` for an unknown one."""
    codes = _codes()
    try:
        return codes[code.strip().upper()]
    except KeyError:
        what = f"unknown finding code {code!r}" if code.strip() else "give a finding code"
        raise UsageError(f"{what}; known: {', '.join(codes)}") from None
