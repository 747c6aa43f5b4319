"""Every machine format has a published, versioned schema, and what the commands print
follows it: check/v2, fix/v1 and verify/v1 (inspect/v2 in tests/commands/test_inspect.py,
SARIF 2.1.0 in tests/output/test_ci_formats.py), checked with jsonschema on real runs."""

from __future__ import annotations

import functools
import importlib.util
import json

import pytest
from conftest import FIXTURES, ROOT, cli

SCHEMAS = ROOT / "dspark_ckpt" / "schemas"
SMALL, TIGHT = FIXTURES / "targets/small", FIXTURES / "targets/tight"


@functools.cache
def validator(name: str):
    """The published schema ``name`` (itself checked once), as a validator."""
    import jsonschema

    schema = json.loads((SCHEMAS / f"{name}.json").read_text())
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def follows(name: str, obj: dict) -> None:
    errors = sorted(validator(name).iter_errors(obj), key=str)
    assert not errors, [f"{list(e.absolute_path)}: {e.message}" for e in errors[:3]]
    assert obj["schema"] == f"dspark-ckpt/{name.replace('-', '/')}"


def broken(tmp_path):
    """A drafter whose weights are cut short: an input no command can read."""
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken/config.json").write_text((FIXTURES / "padded/config.json").read_text())
    data = (FIXTURES / "padded/model.safetensors").read_bytes()
    (tmp_path / "broken/model.safetensors").write_bytes(data[: len(data) // 2])
    return tmp_path / "broken"


def test_every_published_schema_is_a_valid_schema_naming_itself():
    for path in sorted(SCHEMAS.glob("*.json")):
        schema = json.loads(path.read_text())
        validator(path.stem)
        assert schema["$id"] == "dspark-ckpt/" + path.stem.replace("-", "/"), path.name


def test_check_json_follows_check_v2(tmp_path):
    (tmp_path / "dspark-ckpt.toml").write_text(
        f'[ignore]\nDSC401 = "padded rows are masked by our serving stack"\n\n'
        f'[[pairs]]\nname = "padded"\ndrafter = "{FIXTURES / "padded"}"\n'
        f'target = "{SMALL}"\n\n'
        f'[[pairs]]\nname = "tight"\ndrafter = "{FIXTURES / "padded"}"\ntarget = "{TIGHT}"\n\n'
        f'[[pairs]]\nname = "broken"\ndrafter = "{broken(tmp_path)}"\ntarget = "{SMALL}"\n\n'
        f'[[pairs]]\nname = "vocab"\ndrafter = "{FIXTURES / "padded"}"\ntarget-vocab-size = 100\n'
        f'allow-partial = "the target lives on the cluster"\n'
    )
    r = cli("check", "--config", tmp_path / "dspark-ckpt.toml", "--format", "json")
    assert r.exit_code == 1, r.stderr
    out = r.json
    follows("check-v2", out)
    assert out["ok"] is False and {run["name"] for run in out["runs"]} == {
        "padded",
        "tight",
        "broken",
        "vocab",
    }
    assert any(run["ignored"] for run in out["runs"])  # the reasoned ignore is in the object
    partial = {run["name"]: run["partial"] for run in out["runs"]}
    assert partial == {"padded": False, "tight": False, "broken": False, "vocab": True}
    assert out["partial"] is True


@pytest.mark.parametrize("how", ["out", "side"])
def test_fix_json_follows_fix_v1(tmp_path, how):
    where = ["--out", tmp_path / "fixed"] if how == "out" else []
    mask = tmp_path / "mask.safetensors"
    r = cli(
        "fix", FIXTURES / "padded", "--target", SMALL, "--mask-path", mask, *where,
        "--format", "json",
    )  # fmt: skip
    assert r.exit_code == 0, r.stderr
    follows("fix-v1", r.json)
    assert r.json["written"] and r.json["mask"]["masking_needed"] is True


def test_fix_and_verify_error_objects_follow_their_schemas(tmp_path):
    bad = broken(tmp_path)
    fixed = cli("fix", bad, "--target", SMALL, "--emit-mask", "--out", tmp_path / "o",
                "--format", "json")  # fmt: skip
    assert fixed.exit_code == 1 and fixed.json["ok"] is False
    follows("fix-v1", fixed.json)
    checked = cli("verify", bad, "--target", SMALL, "--device", "cpu", "--format", "json")
    assert checked.exit_code == 1 and checked.json["ok"] is False
    follows("verify-v1", checked.json)


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="verify needs torch")
@pytest.mark.parametrize("target", [SMALL, TIGHT], ids=["small", "tight"])
def test_verify_json_follows_verify_v1(target):
    r = cli("verify", FIXTURES / "padded", "--target", target, "--tokens", "32", "--device",
            "cpu", "--format", "json")  # fmt: skip
    assert r.exit_code in (0, 1), r.stderr
    follows("verify-v1", r.json)
