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
