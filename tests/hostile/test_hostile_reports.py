"""Round four of the write attacks, through the real CLI: a report write touches nothing
but its own file, reports never replace an input of the run, ``--set`` errors blame the
``--set``, append-only and immutable folders are refused before anything is written."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import synth
from conftest import FIXTURES, ROOT, cli

SMALL = FIXTURES / "targets/small"
LEGACY = ("--profile", "vllm-legacy")


def listing(folder: Path) -> dict[str, bytes]:
    """Every file of ``folder`` (hidden ones too) and its bytes."""
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


# --- 1. a report write is a plain temp + rename ----------------------------------------


def test_a_report_write_touches_nothing_else_in_its_folder(tmp_path):
    """``inspect -o reports/report.json`` "recovered" the report's folder: it deleted every
    file named like ``.NAME.<12 hex>.(tmp|bak|undo)`` and obeyed an undo record planted
    there (``ledger.csv`` replaced by a planted backup). Now nothing but the report
    changes."""
    reports = tmp_path / "reports"
    reports.mkdir()
    (reports / "ledger.csv").write_text("the user's ledger")
    (reports / ".ledger.csv.0123456789ab.bak").write_text("planted")
    (reports / ".notes.aaaaaaaaaaaa.tmp").write_text("the user's")
    entry = {"dest": "ledger.csv", "temp": ".ledger.csv.bbbbbbbbbbbb.tmp", "new": False}
    lines = [{"made": False}, {**entry, "backup": ".ledger.csv.0123456789ab.bak"}]
    record = reports / ".dspark-ckpt-write.cccccccccccc.undo"
    record.write_text("".join(json.dumps(x) + "\n" for x in lines))
    before = listing(reports)
    for fmt in ("json", "table"):
        r = cli("inspect", FIXTURES / "padded", "--target", SMALL, "--format", fmt,
                "-o", reports / "report.json")  # fmt: skip
        assert r.exit_code == 0 and r.stderr == "", r.stderr
        after = listing(reports)
        assert after.pop("report.json") and after == before
    assert (reports / "ledger.csv").read_text() == "the user's ledger"


def test_an_existing_report_is_replaced_keeping_its_mode(tmp_path):
    """Other existing files are replaced, as ruff's ``--output-file`` does."""
    out = tmp_path / "report.json"
    out.write_text("old")
    out.chmod(0o600)
    r = cli("inspect", FIXTURES / "padded", "--target", SMALL, "--format", "json", "-o", out)
    assert r.exit_code == 0, r.stderr
    assert json.loads(out.read_text())["drafter"] and out.stat().st_mode & 0o777 == 0o600
    assert sorted(os.listdir(tmp_path)) == ["report.json"]


# --- 2. reports never replace an input ---------------------------------------------------


@pytest.fixture
def gate(tmp_path, monkeypatch) -> Path:
    """A folder with a check configuration, a drafter and its target."""
    shutil.copytree(FIXTURES / "padded", tmp_path / "drafter")
    shutil.copytree(SMALL, tmp_path / "target")
    pair = '[[pairs]]\ndrafter = "drafter"\ntarget = "target"\nprofiles = ["vllm-legacy"]\n'
    (tmp_path / "dspark-ckpt.toml").write_text(pair)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def everything(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


OVER_AN_INPUT = {
    "config-as-sarif": (
        ["check", "--also", "sarif:dspark-ckpt.toml"],
        "dspark-ckpt.toml: is the configuration (dspark-ckpt.toml), an input of this run; "
        "refusing to write the sarif report (--also) over it",
    ),
    "drafter-config-as-json": (
        ["check", "--also", "json:drafter/config.json"],
        "drafter/config.json: is in the checkpoint folder (drafter) of the drafter of "
        "pairs[0], an input of this run; refusing to write the json report (--also) over it",
    ),
    "check-output-over-a-shard": (
        ["check", "-o", "target/model.safetensors"],
        "target/model.safetensors: is in the checkpoint folder (target) of the target of "
        "pairs[0], an input of this run; refusing to write the table report (-o) over it",
    ),
    "target-config": (
        ["inspect", "drafter", "--target", "target", "-o", "target/config.json"],
        "target/config.json: is in the checkpoint folder (target) of the target, an input of "
        "this run; refusing to write the table report (-o) over it",
    ),
    "the-drafter-file-named": (
        [
            "inspect",
            "drafter/model.safetensors",
            "--target",
            "target",
            "--format",
            "json",
            "-o",
            "drafter/model.safetensors",
        ],  # fmt: skip
        "drafter/model.safetensors: is the drafter (drafter/model.safetensors), an input of "
        "this run; refusing to write the json report (-o) over it",
    ),
    "two-formats-one-path": (
        ["check", "--also", "json:out.json", "--also", "sarif:./out.json"],
        "out.json: is both the json report (--also) and the sarif report (--also); give "
        "each report its own path",
    ),
    "output-and-also": (
        ["check", "--format", "json", "-o", "out.json", "--also", "junit:out.json"],
        "out.json: is both the json report (-o) and the junit report (--also); give each "
        "report its own path",
    ),
}


@pytest.mark.parametrize("case", OVER_AN_INPUT)
def test_a_report_never_replaces_an_input_nor_shares_a_path(gate, case):
    """``check --also sarif:dspark-ckpt.toml`` turned the gate's configuration into
    SARIF, ``--also json:drafter/config.json`` replaced the drafter's config, ``inspect
    -o target/config.json`` the target's; two formats to one path were both written.
    Each is a usage error naming both roles, and nothing is written."""
    args, message = OVER_AN_INPUT[case]
    if case == "two-formats-one-path" or case == "output-and-also":
        (gate / "out.json").write_text("old")
    before = everything(gate)
    r = cli(*args)
    assert (r.exit_code, r.stderr) == (2, f"dspark-ckpt: error: {message}\n")
    assert everything(gate) == before


def test_a_new_report_beside_the_checkpoint_is_written(gate):
    """Only an existing input is protected: a new file in the drafter's folder is no
    input of this run."""
    r = cli("inspect", "drafter", "--target", "target", "--format", "json", "-o", "drafter/r.json")
    assert r.exit_code == 0, r.stderr
    assert json.loads((gate / "drafter/r.json").read_text())["drafter"]["source"] == "drafter"


# --- 4. --set errors name the --set ------------------------------------------------------

SET_ERRORS = {
    "NaN": "--set mask_token_id=NaN: mask_token_id must be an integer in "
    "[-2147483647, 2147483647], got 'NaN'; the source is unchanged, nothing written",
    "5.0": "--set mask_token_id=5.0: mask_token_id must be an integer in "
    "[-2147483647, 2147483647], got 5.0; the source is unchanged, nothing written",
    "1e400": "--set mask_token_id=1e400: 1e400 is beyond a float64; config.json holds finite "
    "numbers only",
}


@pytest.mark.parametrize("value", SET_ERRORS)
def test_set_errors_name_the_set_and_what_the_key_takes(tmp_path, value):
    """``--set mask_token_id=NaN`` said "config.json: config is not valid JSON" and
    ``=5.0`` "changed while fix ran?", blaming a valid, untouched source."""
    src = tmp_path / "src"
    shutil.copytree(FIXTURES / "padded", src)
    before = everything(tmp_path)
    for mode in (["--diff"], ["--in-place", "--force"]):
        r = cli("fix", src, "--target", SMALL, "--set", f"mask_token_id={value}", *mode)
        assert (r.exit_code, r.stderr) == (2, f"dspark-ckpt: error: {SET_ERRORS[value]}\n")
        assert everything(tmp_path) == before


# --- 5. append-only and immutable folders ------------------------------------------------


def chattr(flag: str, folder: Path) -> bool:
    return subprocess.run(["chattr", flag, folder], capture_output=True).returncode == 0


@pytest.fixture
def flags_fs(tmp_path) -> Path:
    """A folder on a filesystem that keeps inode flags: the test folder, else one in the
    repository's filesystem (ext4, xfs, btrfs keep them; tmpfs does not)."""
    for base in (tmp_path, ROOT / "tests"):
        probe = base / f".flags-probe-{os.getpid()}"
        probe.mkdir()
        try:
            if chattr("+a", probe):
                chattr("-a", probe)
                if base != tmp_path:
                    probe.rmdir()
                    probe = Path(__import__("tempfile").mkdtemp(dir=base, prefix=".flags-"))
                yield probe
                break
        finally:
            if probe.exists():
                chattr("-a", probe) and chattr("-i", probe)
                shutil.rmtree(probe, ignore_errors=True)
    else:
        pytest.skip("chattr needs root and a filesystem that keeps inode flags")


def sealed_runs(base: Path) -> list[tuple[list, Path, Path]]:
    """(args, the folder that gets the flag, the destination the error names) for each
    kind of write: a checkpoint in place, a copy into an existing or a new folder, a
    report."""
    src = synth.padded_sharded(base / "src")
    shutil.copytree(src, base / "ro")
    (base / "out").mkdir()
    (base / "parent").mkdir()
    fix = ["fix", "--target", SMALL, "--emit-d2t", *LEGACY]
    return [
        ([*fix[:1], src, *fix[1:], "--in-place", "--force"], src, src),
        ([*fix[:1], base / "ro", *fix[1:], "--out", base / "out"], base / "out", base / "out"),
        (
            [*fix[:1], base / "ro", *fix[1:], "--out", base / "parent/new"],
            base / "parent",
            base / "parent",
        ),
        (
            ["inspect", base / "ro", "--target", SMALL, "-o", base / "out/r.txt"],
            base / "out",
            base / "out",
        ),  # fmt: skip
    ]


@pytest.mark.parametrize("flag", ["+a", "+i"])
def test_an_append_only_or_immutable_folder_is_refused_before_anything_is_written(flags_fs, flag):
    """In an append-only folder fix left four temporary files it could no longer remove.
    Now the folder's flags are read first: one line naming it, exit 2, nothing left."""
    why = {"+a": "append-only (chattr +a)", "+i": "immutable (chattr +i)"}[flag]
    for args, folder, named in sealed_runs(flags_fs):
        before = everything(flags_fs)
        assert chattr(flag, folder)
        try:
            r = cli(*args)
        finally:
            chattr(flag.replace("+", "-"), folder)
        assert r.exit_code == 2, (args, r.stderr)
        [line] = r.stderr.splitlines()
        assert line.startswith(f"dspark-ckpt: error: {named}: cannot write: the folder is {why}")
        assert line.endswith("; nothing written")
        assert everything(flags_fs) == before and not (flags_fs / "parent/new").exists()
