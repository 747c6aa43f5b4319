"""tools/mutation.py's own part of the mutation run (CONTRIBUTING.md, "Mutation testing"):
the areas, the sample, the score table, read from mutmut's results files."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import mutmut  # noqa: F401 - the test extra pins it: tools/mutation.py reads its results

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("mutation", ROOT / "tools/mutation.py")
mutation = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mutation)


def results(root: Path, files: dict[str, dict[str, int | None]]) -> Path:
    """A mutants/ folder holding mutmut's .meta files: source path -> name -> exit code."""
    for path, codes in files.items():
        meta = root / f"{path}.meta"
        meta.parent.mkdir(parents=True, exist_ok=True)
        meta.write_text(json.dumps({"exit_code_by_key": codes}))
    return root


def test_each_area_and_the_profile_tables_left_out():
    assert mutation.area_of("dspark_ckpt/rules/vocab.py") == "rules"
    assert mutation.area_of("dspark_ckpt/loader/model.py") == "loader"
    assert mutation.area_of("dspark_ckpt/profiles/schema.py") == "profiles"
    assert mutation.area_of("dspark_ckpt/commands/repair.py") == "repairs"
    assert mutation.area_of("dspark_ckpt/commands/inspect.py") is None
    assert mutation.area_of("dspark_ckpt/profiles/vllm.py") is None  # data, built at import


def test_the_sample_is_the_same_each_time_and_the_score_counts_only_it(tmp_path):
    names = {f"dspark_ckpt.rules.vocab.x_f__mutmut_{i}": 1 for i in range(1, 11)}
    names["dspark_ckpt.rules.vocab.x_f__mutmut_3"] = 0  # survived
    root = results(tmp_path / "mutants", {"dspark_ckpt/rules/vocab.py": names})
    first = mutation.sample(root, 4)
    assert len(first) == 4 and mutation.sample(root, 4) == first
    assert (root / "sample.txt").read_text().split() == sorted(first)
    assert mutation.sample(root, 4, seed="1") != first  # another seed, another sample
    mutation.sample(root, 10)
    counts = mutation.results(root)["rules"]
    assert counts["killed"] == 9 and counts["survived"] == 1
    assert mutation.survivors(root, "rules") == ["dspark_ckpt.rules.vocab.x_f__mutmut_3"]
    row = next(line for line in mutation.table(mutation.results(root)).splitlines()
               if line.startswith("rules"))  # fmt: skip
    assert row.split() == ["rules", "10", "9", "0", "1", "0", "0", "90.0%"]


def test_a_sample_of_one_area_leaves_the_others_out(tmp_path):
    root = results(
        tmp_path / "mutants",
        {
            "dspark_ckpt/rules/vocab.py": {f"dspark_ckpt.rules.vocab.x_f__mutmut_{i}": 1 for i in range(5)},
            "dspark_ckpt/loader/model.py": {f"dspark_ckpt.loader.model.x_g__mutmut_{i}": None for i in range(5)},
        },
    )  # fmt: skip
    chosen = mutation.sample(root, 3, areas=["loader"])
    assert len(chosen) == 3 and all(".loader." in k for k in chosen)
    assert set(chosen) < set(mutation.sample(root, None, areas=["loader"]))
    assert len(mutation.sample(root, None, areas=["loader"])) == 5  # None: the whole area
    counts = mutation.results(root)
    assert sum(counts["rules"].values()) == 0 and counts["loader"]["not checked"] == 5


def test_the_loader_s_and_the_profiles_mutants_run_their_own_tests_and_the_rules():
    assert (
        mutation.mutant_area("dspark_ckpt.loader.model.xǁLoaderModelǁmissing__mutmut_3") == "loader"
    )
    assert mutation.mutant_area("dspark_ckpt.profiles.releases.x_history__mutmut_1") == "profiles"
    assert mutation.mutant_area("dspark_ckpt.commands.repair.x_plan__mutmut_1") == "repairs"
    tests = [
        "tests/commands/test_fix.py::t",
        "tests/rules/test_cases.py::t",
        "tests/loader/test_names.py::t",
    ]
    loader = "dspark_ckpt.loader.names.x_span__mutmut_1"
    assert mutation.narrowed(loader, tests) == tests[1:]
    # only tests outside the area's own: all of them, never none (pytest would run everything)
    assert mutation.narrowed(loader, tests[:1]) == tests[:1]
    assert mutation.narrowed("dspark_ckpt.rules.vocab.x_f__mutmut_1", tests) == tests  # fmt: skip


def test_a_mutant_s_tests_run_module_by_module_cheapest_first():
    seconds = {"a.py::slow": 5.0, "a.py::fast": 0.1, "b.py::x": 1.0, "b.py::y": 2.0, "c.py::z": 0.0}
    assert mutation.ordered(set(seconds), seconds) == [
        "c.py::z", "b.py::x", "b.py::y", "a.py::fast", "a.py::slow",
    ]  # fmt: skip


def test_killed_by_names_the_first_failing_test_of_each_killed_mutant(tmp_path):
    root = results(
        tmp_path / "mutants",
        {"dspark_ckpt/loader/names.py": {"dspark_ckpt.loader.names.x_has__mutmut_1": 1,
                                         "dspark_ckpt.loader.names.x_has__mutmut_2": 0}},
    )  # fmt: skip
    (root / "killed-by").mkdir()
    (root / "killed-by/dspark_ckpt.loader.names.x_has__mutmut_1").write_text(
        "tests/loader/t.py::a\n"
    )
    assert mutation.killed_by(root, "loader") == {
        "dspark_ckpt.loader.names.x_has__mutmut_1": "tests/loader/t.py::a"
    }
    assert mutation.killed_by(root, "rules") == {}
