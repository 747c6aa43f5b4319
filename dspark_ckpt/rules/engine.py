"""The engine: run every registered rule over the gathered facts, per profile.

``evaluate_profiles`` applies the rules every runtime shares once and each selected
or evaluated profile's own; ``report`` makes the ``Report`` of one inspection, with
the drafter/target comparisons made (``target_checks``). The engine emits two codes
itself (``inputs.py``): DSC001 (an input that could not be read) and DSC108 (a drafter
family no profile covers). It reads nothing: ``commands/inspect.py`` opens and gathers.
"""

from __future__ import annotations

from dataclasses import field, replace
from functools import cache

from dspark_ckpt.errors import CheckpointError
from dspark_ckpt.facts.config import DrafterConfig
from dspark_ckpt.facts.gather import Facts
from dspark_ckpt.facts.target import Target
from dspark_ckpt.facts.tokenizer import NOT_CHECKED
from dspark_ckpt.facts.vocab import classify, padded_rows
from dspark_ckpt.profiles.hidden_states import hidden_states
from dspark_ckpt.profiles.registry import (
    DEFAULT_PROFILE,
    PROFILES,
    Profile,
    applicable_profiles,
    covered,
    default_profile,
    detect_family,
    resolve_profile,
)
from dspark_ckpt.record import record
from dspark_ckpt.rules import codes  # noqa: F401 (every rule module, registered)
from dspark_ckpt.rules.findings import ERROR, SEVERITY_ORDER, Finding
from dspark_ckpt.rules.inputs import UNCOVERED, uncovered_finding, unreadable_finding
from dspark_ckpt.rules.registry import COMMON, PROFILE, RULES, TARGET, Rule
from dspark_ckpt.rules.repairs import ASKS, UNSAFE, Fix, Needs, Repair, fix_command
from dspark_ckpt.rules.target import (
    aux_ids,
    aux_width,
    capture_points,
    for_target,
    trained_layers,
    uses_aux,
    valid_ids,
    verifier,
)
from dspark_ckpt.rules.unchecked import NotChecked, not_checked
from dspark_ckpt.source.checkpoint import Checkpoint


@record(frozen=False)
class Report:
    profile: str
    drafter_source: str
    target: Target | None  # None when the target's weights could not be read
    drafter: DrafterConfig | None = None  # None when the checkpoint could not be read
    checkpoint: Checkpoint | None = None
    findings: list[Finding] = field(default_factory=list)
    verdicts: dict[str, bool] = field(default_factory=dict)
    profiles: list[str] = field(default_factory=list)  # the selected profiles; [profile] if empty
    family: str | None = None  # the detected drafter family (None: unknown)
    # --profile names that do not apply to the drafter's family: not evaluated, no verdict
    not_applicable: list[str] = field(default_factory=list)
    # rows = finding codes, columns = evaluated profiles: the worst severity found there
    checks: dict[str, dict[str, str]] = field(default_factory=dict)
    facts: Facts | None = None  # what the rules read (None: not read, or not judged)
    # the findings of the evaluated profiles that are not selected, by profile: their own
    # rules' (the common findings are in ``findings``)
    others: dict[str, list[Finding]] = field(default_factory=dict)
    # each drafter/target comparison made, as plain data (the JSON report's target_checks)
    target_checks: list[dict] = field(default_factory=list)
    # the checks the target as given left undecided, and why (unchecked.py)
    not_checked: list[NotChecked] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.profiles and self.profile:
            self.profiles = [self.profile]

    @property
    def classification(self) -> str | None:
        if self.target is None:
            return None
        return (
            classify(self.drafter.draft_vocab_size, self.target.vocab_size)
            if self.drafter
            else None
        )

    @property
    def padded_rows(self) -> int:
        if self.classification is None:
            return 0
        return padded_rows(self.drafter.draft_vocab_size, self.target.vocab_size)

    @property
    def expanded_input_vocab(self) -> bool:
        return self.classification is not None and self.drafter.vocab_size > self.target.vocab_size

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == ERROR]

    def under(self, profile: str) -> Report:
        """This report as one of its selected profiles sees it: the common findings and
        that profile's own."""
        found = [f for f in self.findings if f.profile in (None, profile)]
        skipped = [n for n in self.not_checked if not n.profiles or profile in n.profiles]
        return replace(
            self, profile=profile, profiles=[profile], findings=found, not_checked=skipped
        )

    @property
    def ok(self) -> bool:
        return not self.errors

    @property
    def failing_elsewhere(self) -> dict[str, list[Finding]]:
        """Why each failing profile that does not decide ``ok`` fails: its own rules'
        errors, else the errors every runtime shares."""
        common = [f for f in self.errors if f.profile is None]
        return {
            name: [f for f in self.others.get(name, []) if f.severity == ERROR] or common
            for name, passed in self.verdicts.items()
            if not passed and name not in self.profiles
        }

    @property
    def elsewhere(self) -> list[tuple[Finding, list[str]]]:
        """The findings of the profiles that do not decide, each with the profiles it was
        found under, leaving out those the deciding profiles show as they are: every cell
        of the matrix that is not ``ok`` is explained here or in ``findings``."""
        shown = {_same(f) for f in self.findings}
        grouped: dict[tuple, tuple[Finding, list[str]]] = {}
        for name, found in self.others.items():
            for f in found:
                if _same(f) not in shown:
                    grouped.setdefault(_same(f), (f, []))[1].append(name)
        return sorted(grouped.values(), key=lambda g: (SEVERITY_ORDER[g[0].severity], g[0].code))

    @property
    def partial(self) -> bool:
        """True when some check could not be made (``not_checked``): the verdict stands
        on the checks that were."""
        return bool(self.not_checked)

    @property
    def covered(self) -> bool:
        """False when no profile covers the drafter's family: it was not judged (exit 3)."""
        return not any(f.code == UNCOVERED for f in self.findings)


# --- running the rules ------------------------------------------------------------------


@cache
def rules_of(scope: str) -> tuple[Rule, ...]:
    """The registered rules of one scope, in code order."""
    return tuple(r for _, r in sorted(RULES.items()) if r.scope == scope)


def common_findings(f: Facts) -> list[Finding]:
    """The findings of the rules every runtime shares."""
    return [_repairable(f, None, x) for r in rules_of(COMMON) for x in r.check(f)]


def profile_findings(f: Facts, p: Profile) -> list[Finding]:
    """The findings of one profile's rules, the target model's included where the
    runtime feeds the drafter the target's hidden states (its aux states, or with
    EAGLE-3's use_aux_hidden_state false its last ones: each target rule says which it
    judges)."""
    out = [x for r in rules_of(PROFILE) for x in r.check(f, p)]
    hs = for_target(f, hidden_states(p))
    if hs is not None:
        out += [x for r in rules_of(TARGET) for x in r.check(f, p, hs)]
    return [_repairable(f, p, x) for x in out]


def plan_repair(f: Facts, p: Profile | None, finding: Finding) -> tuple[Repair, Fix | Needs] | None:
    """What ``fix`` would do about ``finding`` (found under ``p``; None: a common rule's):
    its code's repair and that repair's answer, or None where there is nothing to do."""
    if finding.planned is not None:  # answered when the finding was made
        return finding.planned or None
    r = RULES[finding.code].repair
    answer = r.plan(f, p, finding) if r is not None else None
    return None if answer is None else (r, answer)


def _repairable(f: Facts, p: Profile | None, finding: Finding) -> Finding:
    """``finding`` with its repair's answer, and marked with the safety of the repair
    ``fix`` has for it, if any: ``asks`` where it needs a value only the user can give.
    Where that repair needs a value or ``--unsafe-fixes``, the hint ends with the command
    that runs it (unless it gives one already)."""
    planned = plan_repair(f, p, finding)
    if planned is None:
        return replace(finding, planned=())
    r, answer = planned
    safety = (answer.safety or r.safety) if isinstance(answer, Fix) else ASKS
    hint = finding.fix_hint
    if safety in (ASKS, UNSAFE) and "dspark-ckpt fix" not in (hint or ""):
        run = (
            fix_command(key=answer.key, value=answer.value)
            if isinstance(answer, Needs)
            else fix_command(unsafe=True)
        )
        hint = f"{hint}: {run}" if hint else run
    return replace(finding, repair=safety, planned=planned, hint=hint)


def _same(f: Finding) -> tuple:
    """What a reader sees of a finding, its profile aside: two alike are shown once."""
    return (f.code, f.severity, f.message, f.tensor, f.file, f.fix_hint)


def _sorted(findings: list[Finding]) -> list[Finding]:
    return sorted(findings, key=lambda f: (SEVERITY_ORDER[f.severity], f.code))


@record(frozen=False)
class Evaluation:
    findings: list[Finding]  # common findings plus those of the selected profiles
    verdicts: dict[str, bool]  # one per evaluated profile
    checks: dict[str, dict[str, str]]  # code -> evaluated profile -> worst severity
    others: dict[str, list[Finding]]  # the findings of each evaluated profile not selected


def evaluate_profiles(facts: Facts, selected: list[str], evaluated: list[str]) -> Evaluation:
    """Apply the common rules once and each profile's rules; ``selected`` decide the
    findings reported, ``evaluated`` (a superset) get a verdict and a matrix column."""
    common = common_findings(facts)
    per_profile = {
        name: [replace(f, profile=name) for f in profile_findings(facts, PROFILES[name])]
        for name in evaluated
    }
    verdicts = {
        name: not any(f.severity == ERROR for f in common + found)
        for name, found in per_profile.items()
    }
    checks: dict[str, dict[str, str]] = {}
    for name, found in per_profile.items():
        for f in common + found:
            row = checks.setdefault(f.code, {})
            if name not in row or SEVERITY_ORDER[f.severity] < SEVERITY_ORDER[row[name]]:
                row[name] = f.severity
    findings = common + [f for name in selected for f in per_profile[name]]
    others = {name: _sorted(found) for name, found in per_profile.items() if name not in selected}
    return Evaluation(_sorted(findings), verdicts, dict(sorted(checks.items())), others)


def select_profiles(
    profile: str | list[str] | None,
    family: str | None,
    judges: tuple[str, ...] | None = None,
) -> tuple[list[str], list[str], list[str]]:
    """(selected, evaluated, not applicable) profile names.

    Only the profiles of the drafter's family are evaluated (each gets a verdict), and of
    those only ``judges`` where the drafter's architecture names them (``route``); a
    profile of another family never decides and gets none. ``None`` selects the
    family's default (the first evaluated where the architecture leaves the default out),
    and so does a list naming no evaluated profile. A family no profile covers selects and
    evaluates nothing."""
    names = [] if profile is None else [profile] if isinstance(profile, str) else list(profile)
    # a RUNTIME==VERSION (--runtime) becomes that release's profile for the family
    names = list(dict.fromkeys(resolve_profile(name, family) for name in names))
    asked_all = PROFILES.is_all(names)  # --profile all: the family's, nothing skipped
    evaluated = applicable_profiles(family)
    if judges is not None:  # the architecture's (``route``): a variant's own profile included
        evaluated = list(judges)
    elif evaluated and not asked_all:  # a variant architecture's own profile, asked by name
        evaluated += [n for n in names if PROFILES[n].family == family and n not in evaluated]
    selected = [n for n in names if n in evaluated]
    if evaluated and not selected:  # the default, else the first of the default's runtime
        runtime = PROFILES[default_profile(family)].runtime
        mine = [n for n in evaluated if PROFILES[n].runtime == runtime] or evaluated
        selected = [default_profile(family) if default_profile(family) in evaluated else mine[0]]
    return selected, evaluated, [] if asked_all else [n for n in names if n not in evaluated]


def report(
    source: str,
    ckpt: Checkpoint,
    facts: Facts,
    family: str | None,
    selection: tuple[list[str], list[str], list[str]],
    unjudged: tuple[str, ...] = (),
) -> Report:
    """The report of one drafter judged under ``selection`` (``select_profiles``);
    ``unjudged``: why a runtime that registers its architecture judges it by no profile
    (``route``), each a check not made (DSC108)."""
    selected, evaluated, skipped = selection
    result = evaluate_profiles(facts, selected, evaluated)
    undecided = not_checked(facts, [PROFILES[n] for n in result.verdicts])
    undecided += [NotChecked(UNCOVERED, why) for why in unjudged]
    return Report(
        selected[0],
        source,
        facts.target,
        facts.cfg,
        ckpt,
        result.findings,
        result.verdicts,
        profiles=selected,
        family=family,
        checks=result.checks,
        facts=facts,
        others=result.others,
        not_applicable=skipped,
        target_checks=target_checks(facts, [PROFILES[n] for n in result.verdicts]),
        not_checked=undecided,
    )


# --- the reports on what was not judged -------------------------------------------------


def unreadable_report(
    source: str,
    target: Target | None,
    profile: str | list[str] | None,
    err: CheckpointError,
    checkpoint: Checkpoint | None = None,
    drafter: DrafterConfig | None = None,
) -> Report:
    """The report for a checkpoint (or its target) that could not be read: one DSC001
    error, and ``drafter``, the drafter's config where it could be read."""
    finding = unreadable_finding(err)
    family = detect_family(drafter) if drafter else None
    if family is not None and not covered(family):  # an MTP, EAGLE-1 ... drafter: no verdict
        selected, evaluated, skipped = [""], [], []
    elif family is None:  # the family is unknown: the profiles asked for, else the default
        names = [profile] if isinstance(profile, str) else list(profile or [DEFAULT_PROFILE])
        names = list(dict.fromkeys(resolve_profile(name) for name in names))
        selected, evaluated, skipped = names, names, []
    else:
        selected, evaluated, skipped = select_profiles(profile, family)
    return Report(
        selected[0],
        source,
        target,
        drafter=drafter,
        checkpoint=checkpoint,
        findings=[finding],
        verdicts=dict.fromkeys(evaluated, False),
        profiles=selected,
        family=family,
        not_applicable=skipped,
    )


def uncovered_report(
    source: str,
    target: Target,
    cfg: DrafterConfig,
    ckpt: Checkpoint,
    family: str | None,
    profile: str | list[str] | None,
    unjudged: tuple[str, ...] = (),
) -> Report:
    """The report on a drafter no profile judges (an MTP drafter, an unknown family, an
    architecture whose loader no profile models: ``unjudged`` says why, per runtime): one
    DSC108 finding, no verdict; no rule of another family judges it."""
    asked = [] if profile is None else [profile] if isinstance(profile, str) else list(profile)
    return Report(
        "",
        source,
        target,
        cfg,
        ckpt,
        [uncovered_finding(cfg, ckpt, family, unjudged)],
        {},
        profiles=[],
        family=family,
        not_applicable=asked,
    )


# --- the drafter/target comparisons made, for the report ----------------------------------


def _compared(check, runtime, drafter, drafter_key, target, target_key, result, detail=None):
    return {
        "check": check,
        "runtime": runtime,
        "drafter": drafter,
        "drafter_key": drafter_key,
        "target": target,
        "target_key": target_key,
        "result": result,
        "detail": detail,
    }


def _result(a, b) -> str:
    return NOT_CHECKED if a is None or b is None else "same" if a == b else "differ"


def target_checks(f: Facts, profiles: list[Profile]) -> list[dict]:
    """Each drafter/target comparison made, as plain data (the JSON report's
    ``target_checks``): one per runtime where the runtimes read the drafter differently."""
    model = f.target.model
    key = model.key if model else (lambda name: None)
    fc = tuple(f.fc.shape) if f.fc is not None else None
    out = []
    seen: set[tuple[str, str]] = set()
    for p in profiles:
        hs = for_target(f, hidden_states(p))
        if hs is None or (p.runtime, p.family) in seen or not uses_aux(f, p):
            continue
        seen.add((p.runtime, p.family))
        runtime = f"{p.runtime} {p.family}"
        width, wkey = aux_width(f, hs)
        out.append(
            _compared(
                "aux_state_width", runtime, width, wkey, f.ht, key("hidden_size"),
                _result(width, f.ht), f"fc.weight {list(fc)}" if fc else None,
            )
        )  # fmt: skip
        found = aux_ids(f, hs)
        if found is not None and hs.captures is not None:
            ids, ikey, shift = found
            detail = f"captured at {capture_points(ids, shift)}"
            result = NOT_CHECKED
            if f.layers is not None:
                lo, hi = valid_ids(hs, f.layers, shift)
                ok = all(lo <= i <= hi for i in ids) and len(set(ids)) == len(ids)
                result = "within" if ok else "outside"
                detail += f"; valid ids [{lo}, {hi}]"
            out.append(
                _compared(
                    "aux_layer_ids", runtime, ids, ikey, f.layers,
                    key("num_hidden_layers"), result, detail,
                )
            )  # fmt: skip
    archs, name = verifier(f.raw)
    if archs:
        ours = list(model.architectures) if model else None
        result = NOT_CHECKED if not ours else "same" if set(archs) & set(ours) else "differ"
        out.append(
            _compared(
                "architecture", None, archs, "speculators_config.verifier.architectures",
                ours, "architectures", result, name,
            )
        )  # fmt: skip
    trained = trained_layers(f.raw)
    if trained:
        out.append(
            _compared(
                "num_target_layers", None, trained[0], trained[1], f.layers,
                key("num_hidden_layers"), _result(trained[0], f.layers),
            )
        )  # fmt: skip
    if f.tokenizer is not None:
        tok = f.tokenizer
        entry = _compared(
            "tokenizer", None,
            {"files": list(tok.drafter.files), "sha256": tok.drafter.sha256}, None,
            {"files": list(tok.target.files), "sha256": tok.target.sha256}, None,
            tok.result, tok.reason,
        )  # fmt: skip
        entry["compared_ids"] = tok.compared_ids
        entry["differing_ids"] = tok.differing_ids
        entry["first_differences"] = [
            {"id": i, "drafter": a, "target": b} for i, a, b in tok.first_differences
        ]
        entry["special_differences"] = list(tok.special_differences)
        out.append(entry)
    return out
