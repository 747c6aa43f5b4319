"""The registry of finding codes: one code, one function, one place.

Each code is one function registered with ``@rule``: its severity, title, default
hint, scope and (for ``fix``) its repair. The function's docstring is the code's
explanation (``dspark-ckpt explain CODE``, SARIF rule metadata, docs/findings.md), so
what a code means stands beside what makes it fire. ``codes.py`` loads every rule
module and lists the codes; ``engine.py`` runs them over the gathered ``Facts``.

Codes are stable public API: never renumber or reuse one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from dspark_ckpt.record import record

if TYPE_CHECKING:
    from dspark_ckpt.rules.repairs import Repair

ERROR, WARNING, INFO = "error", "warning", "info"
SEVERITY_ORDER = {ERROR: 0, WARNING: 1, INFO: 2}


@record
class Code:
    """A finding code as ``explain``, SARIF and the docs show it."""

    code: str
    severity: str
    title: str
    explanation: str
    hint: str | None = None


# how the engine calls a rule, and what it returns
COMMON = "common"  # shared by every runtime: rule(facts) -> findings
PROFILE = "profile"  # per runtime profile: rule(facts, profile) -> findings
# per profile, on the target model's hidden states, where the runtime feeds them to the
# drafter: rule(facts, profile, hidden_states) -> findings
TARGET = "target"
ENGINE = "engine"  # emitted by the engine itself (an unreadable input, an uncovered family)
# per MTP loader, on the target checkpoint that holds the draft layers (rules/mtp.py):
# rule(mtp_target, mtp_loader) -> findings; run by commands/mtp.py, never by the engine
MTP = "mtp"
SCOPES = (COMMON, PROFILE, TARGET, ENGINE, MTP)


@record
class Rule:
    code: str
    severity: str
    title: str
    hint: str | None
    scope: str
    check: Callable  # the function; its docstring is the explanation
    repair: Repair | None = None  # what ``fix`` does about it (None: nothing)

    @property
    def explanation(self) -> str:
        """The docstring as one paragraph: its lines joined, every run of whitespace one
        space (tests/rules/test_registry.py checks that each code has one)."""
        return " ".join((self.check.__doc__ or "").split())

    @property
    def as_code(self) -> Code:
        return Code(self.code, self.severity, self.title, self.explanation, self.hint)


RULES: dict[str, Rule] = {}  # filled as the rule modules load; codes.py loads them all


def rule(
    code: str,
    severity: str,
    title: str,
    *,
    scope: str,
    hint: str | None = None,
    repair: Repair | None = None,
) -> Callable[[Callable], Callable]:
    """Register the decorated function as the one place of ``code``."""
    if severity not in SEVERITY_ORDER or scope not in SCOPES:
        raise ValueError(f"{code}: severity {severity!r}, scope {scope!r}")

    def register(check: Callable) -> Callable:
        if code in RULES:
            raise ValueError(f"{code} is registered twice ({RULES[code].check.__qualname__})")
        RULES[code] = Rule(code, severity, title, hint, scope, check, repair)
        return check

    return register
