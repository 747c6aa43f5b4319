"""The mutation run: mutmut over the rules, the loader model, the profiles and the repairs,
against the in-process tests only, then a score per area.

    pip install -e '.[mutation]'
    nice -n 19 python tools/mutation.py run [--max-children 1] [--all-operators] [MUTANT_GLOB ...]
    nice -n 19 python tools/mutation.py run --sample 50 [--seed S] [--area A ...] [--max-children 1]
    nice -n 19 python tools/mutation.py run --area loader [--again]   # every mutant of an area
    nice -n 19 python tools/mutation.py run --sample 50 --area loader --survivors  # new tests
    nice -n 19 python tools/mutation.py run --full NAME ...   # with every test reaching it
    python tools/mutation.py score            # the table again, from mutants/
    python tools/mutation.py survivors [AREA] # the surviving mutants' names (mutmut show NAME)
    python tools/mutation.py killed-by [AREA] # each killed mutant and the test that failed first

`--sample N` tests N mutants of each area, the same ones on every run of the same code
(those whose name hashes lowest): a score in minutes where the whole run takes hours;
`--area A` (repeatable) takes only that area (`loader`, `profiles`, ...), all of its mutants
without `--sample`. Those runs go on where the last stopped: a mutant judged on the same code
keeps its verdict (`--again` judges them all anew, `--survivors` the survivors and those no
test reached, after new tests: mutmut reruns only the functions whose code changed).

The configuration is `[tool.mutmut]` of pyproject.toml (what is mutated, which tests run,
what is copied into `mutants/`). This wrapper adds one thing mutmut 3 does not do: it
mutates the functions decorated with `@rule`, `@repair` and `@property` (mutmut skips every
decorated function, and every rule and repair of this project is one). Those decorators
register or wrap the function once and call it unchanged, so mutmut's trampoline, placed
under them, switches between the original and each mutant as it does for any function.
It judges the loader's and the profiles' mutants by their own tests and the rules' tables
(``AREA_TESTS``; `--full`: by every test that reaches them). It hands each mutant's tests to
pytest one module at a time, the cheapest first and the
fastest test first (``ordered``), and records the test that killed it. `mutants/`
(git-ignored) keeps the results: a second `run` tests only what changed.
See CONTRIBUTING.md ("Mutation testing") for the run time and how to read the score.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from fnmatch import fnmatch
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# the areas the score is given for: (name, the file patterns that make it up)
AREAS = (
    ("rules", ("dspark_ckpt/rules/*",)),
    ("loader", ("dspark_ckpt/loader/*",)),
    ("profiles", ("dspark_ckpt/profiles/*",)),
    (
        "repairs",
        (
            "dspark_ckpt/commands/repair.py",
            "dspark_ckpt/commands/draft.py",
            "dspark_ckpt/commands/draft_map.py",
            "dspark_ckpt/commands/prune.py",
            "dspark_ckpt/commands/convert.py",
        ),
    ),
)
# the tests an area's mutants are judged by, of those mutmut finds reaching the mutated
# function (an area not named here: all of them). The loader model and the profiles are
# reached by every test (each inspects a drafter), the repair and fix tests among them: a
# survivor there ran ~1,000 tests, 70% of their time in tests/commands/. Their own tests and
# the rules' tables, which judge every drafter through them, kill what the whole selection
# kills (CONTRIBUTING.md, "Mutation testing"); `--full` runs all of them.
AREA_TESTS = {
    "loader": ("tests/loader/", "tests/rules/", "tests/profiles/"),
    "profiles": ("tests/profiles/", "tests/rules/", "tests/loader/"),
}
# decorators that register or wrap a function without calling it at definition time
MUTATED_DECORATORS = {"rule", "repair", "property"}
# the one-character bugs (issue 29): a comparison, boolean or arithmetic operator swapped, a
# `not` dropped, `is`/`in` negated, True/False flipped, a number moved by one, a ternary or a
# match case forced. `--all-operators` adds mutmut's others: every string literal (messages,
# mostly) changed, each call argument dropped or made None, each assignment made None.
ONE_CHARACTER = {
    "operator_number",
    "operator_name",
    "operator_augmented_assignment",
    "operator_remove_unary_ops",
    "operator_keywords",
    "operator_swap_op",
    "operator_match",
    "operator_if_exp",
}
# mutmut's exit-code verdicts, grouped as the score counts them
KILLED = {"killed", "timeout", "segfault", "caught by type check"}


def _one_character_operators() -> None:
    from mutmut.mutation import mutators

    ops = mutators.mutation_operators
    ops[:] = [(t, op) for t, op in ops if op.__name__ in ONE_CHARACTER]


def _allow_our_decorators() -> None:
    import libcst as cst
    from mutmut.mutation import file_mutation

    arrange = file_mutation.function_trampoline_arrangement

    def function_trampoline_arrangement(function, mutants, class_name):
        """mutmut's, with the decorators kept on the trampoline only: the original's copy
        and the mutants are plain functions (a rule is registered once, by its trampoline)."""
        empty, nodes, assign, names = arrange(function, mutants, class_name)
        plain = [
            n.with_changes(
                decorators=[
                    d
                    for d in n.decorators
                    if _decorator_name(d.decorator) not in MUTATED_DECORATORS
                ]
            )
            for n in nodes[1:]
        ]
        return empty, [nodes[0], *plain], assign, names

    file_mutation.function_trampoline_arrangement = function_trampoline_arrangement

    visitor = next(
        c
        for c in vars(file_mutation).values()
        if isinstance(c, type) and hasattr(c, "_skip_node_and_children")
    )
    skip = visitor._skip_node_and_children

    def _skip_node_and_children(self, node):
        if isinstance(node, cst.FunctionDef) and node.decorators:
            names = {_decorator_name(d.decorator) for d in node.decorators}
            if names <= MUTATED_DECORATORS:
                bare = node.with_changes(decorators=[])
                position = self.get_metadata(file_mutation.PositionProvider, node, None)
                if position and position.start.line in self._ignored_node_lines:
                    return skip(self, node)
                return skip(self, bare)
        return skip(self, node)

    visitor._skip_node_and_children = _skip_node_and_children


def ordered(tests, seconds: dict[str, float]) -> list[str]:
    """A mutant's tests in the order that finds a failing one soonest: mutmut hands pytest
    them as an unordered set and stops at the first failure (-x). Each module's tests stay
    together (its module fixtures, the rule tables' targets, are built once), the modules
    cheapest first, and in each module the fastest test first."""
    by_module: dict[str, list[str]] = {}
    for t in tests:
        by_module.setdefault(t.split("::", 1)[0], []).append(t)
    cost = {m: sum(seconds.get(t, 0.0) for t in ts) for m, ts in by_module.items()}
    return [
        t
        for m in sorted(by_module, key=lambda m: (cost[m], m))
        for t in sorted(by_module[m], key=lambda t: (seconds.get(t, 0.0), t))
    ]


# the mutants this run judges, where each is named (the clean run before them runs only the
# tests they will run)
CLEAN_RUN: list[str] = []


def _fastest_first() -> None:
    """Each mutant's tests in ``ordered``'s order, and the test that killed it written to
    ``mutants/killed-by/NAME`` (mutmut keeps only the exit code)."""
    from mutmut.runners.harness import PytestRunner
    from mutmut.state import state
    from mutmut.utils.file_utils import change_cwd

    regular = PytestRunner._pytest_args_regular_run

    def _pytest_args_regular_run(self, tests):
        return regular(self, ordered(tests, state().duration_by_test))

    class Killer:
        def __init__(self, name: str) -> None:
            self.name = name

        def pytest_runtest_logreport(self, report) -> None:
            if report.failed:
                out = ROOT / "mutants" / "killed-by" / self.name
                if not out.exists():
                    out.parent.mkdir(exist_ok=True)
                    out.write_text(report.nodeid + "\n")

    def run_tests(self, *, mutant_name, tests):
        plugins = [Killer(mutant_name)] if mutant_name else []
        if mutant_name:
            tests = narrowed(mutant_name, tests)
        elif tests and CLEAN_RUN:  # the clean run: only the tests the mutants will run
            tests = sorted({t for name in CLEAN_RUN for t in narrowed(name, tests)})
        with change_cwd("mutants"):
            return int(self.execute_pytest(self._pytest_args_regular_run(tests), plugins=plugins))

    PytestRunner._pytest_args_regular_run = _pytest_args_regular_run
    PytestRunner.run_tests = run_tests


def mutant_area(name: str) -> str | None:
    """The area of a mutant (``dspark_ckpt.loader.model.x_f__mutmut_3``): its module's."""
    parts = name.split(".")
    for i in range(len(parts) - 1, 0, -1):
        path = "/".join(parts[:i]) + ".py"
        if (ROOT / path).is_file():
            return area_of(path)
    return None


def narrowed(name: str, tests) -> list[str]:
    """Of the tests that reach mutant ``name``'s function, those of its area's
    ``AREA_TESTS`` (all of them where none is one of those)."""
    tests = list(tests)
    dirs = AREA_TESTS.get(mutant_area(name))
    own = [t for t in tests if t.startswith(dirs)] if dirs else []
    return own or tests


def killed_by(mutants: Path, area: str | None) -> dict[str, str]:
    """The killed mutants (of ``area``) and the test that failed first on each, where the
    run recorded it."""
    return {
        k: (mutants / "killed-by" / k).read_text().strip()
        for name, v in verdicts(mutants).items()
        if area in (None, name)
        for k, status in v.items()
        if status in KILLED and (mutants / "killed-by" / k).exists()
    }


def _decorator_name(expr) -> str:
    import libcst as cst

    if isinstance(expr, cst.Call):
        expr = expr.func
    if isinstance(expr, cst.Name):
        return expr.value
    return ""


def area_of(path: str) -> str | None:
    if any(fnmatch(path, p) for p in _config().get("do_not_mutate", ())):
        return None
    for name, patterns in AREAS:
        if any(fnmatch(path, p) for p in patterns):
            return name
    return None


def _config() -> dict:
    try:
        import tomllib
    except ImportError:  # Python 3.10
        import tomli as tomllib

    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mutmut"]


def verdicts(mutants: Path) -> dict[str, dict[str, str]]:
    """Each area's mutants and their verdicts, from mutmut's `.meta` files under `mutants`
    (only the sample's, when the last run was a `--sample` run)."""
    from mutmut.stats import status_by_exit_code

    sample = mutants / "sample.txt"
    chosen = set(sample.read_text().split()) if sample.exists() else None
    by_area: dict[str, dict[str, str]] = {name: {} for name, _ in AREAS}
    for meta in sorted(mutants.rglob("*.py.meta")):
        source = meta.relative_to(mutants).as_posix().removesuffix(".meta")
        area = area_of(source)
        if area is None:
            continue
        codes = json.loads(meta.read_text())["exit_code_by_key"]
        by_area[area].update(
            (k, status_by_exit_code[c]) for k, c in codes.items() if chosen is None or k in chosen
        )
    return by_area


def results(mutants: Path) -> dict[str, Counter]:
    """The verdict counts per area."""
    return {area: Counter(v.values()) for area, v in verdicts(mutants).items()}


def survivors(mutants: Path, area: str | None) -> list[str]:
    return [
        k
        for name, v in verdicts(mutants).items()
        if area in (None, name)
        for k, status in v.items()
        if status == "survived"
    ]


def sample(mutants: Path, n: int | None, seed: str = "", areas=()) -> list[str]:
    """N mutants of each area (of ``areas`` only, where given): those whose names (after
    ``seed``) hash lowest, the same on every run of the same code; another seed draws another
    sample. ``n`` None: every mutant of those areas."""
    import hashlib

    (mutants / "sample.txt").unlink(missing_ok=True)
    chosen = []
    for area, names in verdicts(mutants).items():
        if areas and area not in areas:
            continue
        key = lambda k: hashlib.sha256((seed + k).encode()).hexdigest()  # noqa: E731
        chosen += sorted(names, key=key)[:n]
    (mutants / "sample.txt").write_text("\n".join(sorted(chosen)) + "\n")
    return chosen


def generate(max_children: int) -> None:
    """mutmut's first step alone: the copy in mutants/ and its mutants."""
    from mutmut import __main__ as mm

    mm.set_mutant_under_test("mutant_generation")
    Path("mutants").mkdir(exist_ok=True)
    mm.copy_src_dir()
    mm.copy_also_copy_files()
    mm.setup_source_paths()
    mm.store_lines_covered_by_tests()
    mm.create_mutants(max_children)


def table(by_area: dict[str, Counter]) -> str:
    """One row per area: killed (timeouts among them), survived, the rest, and the score."""
    head = (
        f"{'area':<10} {'mutants':>8} {'killed':>7} {'timeout':>8} {'survived':>9} "
        f"{'no test':>8} {'unrun':>6} {'score':>7}"
    )
    lines = [head]
    for name, counts in by_area.items():
        killed = sum(counts[s] for s in KILLED)
        survived = counts["survived"]
        no_test = counts["no tests"]
        unrun = sum(counts.values()) - killed - survived - no_test
        tested = killed + survived
        score = f"{100 * killed / tested:6.1f}%" if tested else "     -"
        total = sum(counts.values())
        lines.append(
            f"{name:<10} {total:>8} {killed:>7} {counts['timeout']:>8} {survived:>9} "
            f"{no_test:>8} {unrun:>6} {score:>7}"
        )
    lines.append("score: killed (a timeout counts as killed, as mutmut counts it) of the mutants")
    lines.append("a test ran on; no test: no selected test reaches the function; unrun: not yet")
    return "\n".join(lines)


def _option(rest: list[str], flag: str) -> str | None:
    """The value after ``flag`` in ``rest`` (both removed), None where it is absent."""
    if flag not in rest:
        return None
    at = rest.index(flag)
    value = rest[at + 1]
    del rest[at : at + 2]
    return value


def main(argv: list[str]) -> int:
    import os

    os.chdir(ROOT)
    command, *rest = argv or ["run"]
    if command == "score":
        print(table(results(ROOT / "mutants")))
        return 0
    if command == "survivors":
        print("\n".join(survivors(ROOT / "mutants", rest[0] if rest else None)))
        return 0
    if command == "killed-by":
        found = killed_by(ROOT / "mutants", rest[0] if rest else None)
        print("\n".join(f"{k}  {test}" for k, test in sorted(found.items())))
        return 0
    if command != "run":
        print(f"usage: {sys.argv[0]} run|score|survivors|killed-by [...]", file=sys.stderr)
        return 2
    if "--all-operators" in rest:
        rest.remove("--all-operators")
    else:
        _one_character_operators()
    _allow_our_decorators()
    _fastest_first()
    if "--full" in rest:  # every test that reaches the mutated function, in every area
        rest.remove("--full")
        AREA_TESTS.clear()
    from mutmut.__main__ import cli

    (ROOT / "mutants/sample.txt").unlink(missing_ok=True)
    if "--sample" in rest or "--area" in rest:
        n = _option(rest, "--sample")
        seed = _option(rest, "--seed") or ""
        areas = []
        while "--area" in rest:
            areas.append(_option(rest, "--area"))
        unknown = set(areas) - {name for name, _ in AREAS}
        if unknown:
            print(f"no such area: {', '.join(sorted(unknown))}", file=sys.stderr)
            return 2
        again, retry = "--again" in rest, "--survivors" in rest
        rest[:] = [a for a in rest if a not in ("--again", "--survivors")]
        children = int(rest[rest.index("--max-children") + 1]) if "--max-children" in rest else 1
        generate(children)
        chosen = sample(ROOT / "mutants", int(n) if n else None, seed, areas)
        # a mutant judged by an earlier run of the same code keeps its verdict (mutmut
        # reruns every mutant it is named); --again judges them all anew
        unjudged = {
            k
            for v in verdicts(ROOT / "mutants").values()
            for k, s in v.items()
            if s == "not checked"
        }
        if retry:  # after new tests (mutmut reruns only changed code): the survivors again,
            # and those no test reached
            unjudged |= {
                k
                for v in verdicts(ROOT / "mutants").values()
                for k, s in v.items()
                if s in ("survived", "no tests")
            }
        todo = sorted(chosen) if again else sorted(set(chosen) & unjudged)
        if not todo:
            print(table(results(ROOT / "mutants")))
            return 0
        rest += todo

    try:
        named = [a for a in rest if "__mutmut_" in a and "*" not in a]
        if AREA_TESTS and named and all(mutant_area(a) in AREA_TESTS for a in named):
            CLEAN_RUN[:] = named
        cli.main(["run", *rest], standalone_mode=False)
    finally:
        print(table(results(ROOT / "mutants")))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
