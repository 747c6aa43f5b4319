"""What reaches a terminal or a CI log, hostile: values from files that try to become
workflow commands, and inputs quoted whole.

GitHub's runner reads a job's output line by line (``\\n``, ``\\r`` and ``\\r\\n`` end
one) and acts on two kinds of line (actions/runner, src/Runner.Common/ActionCommand.cs):
``TryParseV2`` trims the leading whitespace and takes a line that then starts with
``::`` (``::error file=README.md::...``, ``::stop-commands::TOKEN``, which silences every
later annotation); the legacy ``TryParse`` takes ``##[`` anywhere in a line. Every
format the tool prints (the table action.yml shows in the log, JSON, github, junit,
sarif) and its stderr lines are checked here against that reading, through the real CLI.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from conftest import ROOT
from synth import T, drafter, drafter_config, head, target, write_json, write_safetensors

# values written into config files, tensor and folder names
NEWLINE = "X\n::error file=README.md,line=1::forged by a newline"
CARRIAGE = "Y\r::warning::forged by a carriage return"
LEGACY = "Z ##[error]legacy command ##[stop-commands]tok"
DTYPE = "bfloat16\n::error::forged by torch_dtype"
QUANT = "fp8\n::stop-commands::tok ##[warning]q"
TENSOR = "extra\n::error::forged by a tensor name ##[error]t"
FOLDER = "drafter\n::error::forged by a path ##[error]p"
PAIR = "pair\n::error::forged by a pair name ##[error]n"
REASON = "ok\n::error::forged by an allow-partial reason ##[error]r"

LINE_END = re.compile(r"\r\n|\r|\n")
# the annotations the github format means to write: one per finding, nothing else
OURS = re.compile(r"::(error|warning|notice) (file=[^,:]*,)?title=[^,:]*::[^\r\n]*")


def workflow_commands(out: str) -> list[str]:
    """The lines of ``out`` GitHub's runner would act on: ``::`` after leading blanks
    (Python's ``lstrip`` trims at least what .NET's ``TrimStart`` does), or ``##[``
    anywhere in the line."""
    return [line for line in LINE_END.split(out) if line.lstrip().startswith("::") or "##[" in line]


def run(*args, cwd: Path | None = None, columns: int = 120, timeout: float = 120):
    """The CLI as a process, its stdout and stderr as bytes decoded (the runner's view)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": str(columns)}
    return subprocess.run(
        [sys.executable, "-m", "dspark_ckpt", *map(str, args)],
        capture_output=True,
        cwd=cwd,
        timeout=timeout,
        env=env,
    )


def text(stream: bytes) -> str:
    return stream.decode("utf-8", errors="replace")


# --- a drafter and a target whose every printed value is hostile ----------------------


def hostile_pair(root: Path) -> tuple[Path, Path]:
    """A DSpark drafter (in a folder whose name holds a command) with hostile
    architectures, verifier, tensor name; a target with hostile architectures,
    torch_dtype and quant_method. One layer: DSC703 fires and quotes the config."""
    d = drafter(
        root / FOLDER,
        vocab=100,
        draft=100,
        config={
            "architectures": ["Qwen3DSparkForCausalLM", NEWLINE, CARRIAGE, LEGACY],
            "speculators_config": {
                "verifier": {"architectures": [NEWLINE, LEGACY], "name_or_path": NEWLINE}
            },
        },
        tensors={"lm_head.weight": head(100, 8, 1), TENSOR: T("F32", (2,), np.ones(2))},
    )
    t = target(
        root / "target",
        {
            "architectures": [CARRIAGE, LEGACY],
            "vocab_size": 100,
            "hidden_size": 8,
            "num_hidden_layers": 1,
            "torch_dtype": DTYPE,
            "quantization_config": {"quant_method": QUANT},
        },
        embed_rows=100,
    )
    return d, t


def check_config(root: Path, d: Path, t: Path) -> Path:
    config = root / "dspark-ckpt.toml"
    config.write_text(
        "[[pairs]]\n"
        f"name = {json.dumps(PAIR)}\n"
        f"drafter = {json.dumps(str(d))}\n"
        f"target = {json.dumps(str(t))}\n"
        'profiles = ["vllm", "trtllm-dspark"]\n'
        # partial verdicts (a bare vocab size), failing and allowed with a hostile reason
        "[[pairs]]\n"
        f"name = {json.dumps(PAIR + ' partial')}\n"
        f"drafter = {json.dumps(str(d))}\n"
        "target-vocab-size = 100\n"
        "[[pairs]]\n"
        f"name = {json.dumps(PAIR + ' allowed')}\n"
        f"drafter = {json.dumps(str(d))}\n"
        "target-vocab-size = 100\n"
        f"allow-partial = {json.dumps(REASON)}\n"
    )
    return config


PROFILES = ["--profile", "vllm,trtllm-dspark"]  # DSC112 (the tensor) and DSC703 decide
COMMANDS = {
    **{
        f"inspect-{fmt}": lambda d, t, c, out, fmt=fmt: [
            "inspect", d, "--target", t, *PROFILES, "--format", fmt
        ]
        for fmt in ("table", "json", "github", "junit", "sarif")
    },
    **{
        f"check-{fmt}": lambda d, t, c, out, fmt=fmt: ["check", "--config", c, "--format", fmt]
        for fmt in ("table", "json", "github", "junit", "sarif")
    },
    "fix-table": lambda d, t, c, out: ["fix", d, "--target", t, "--emit-mask", "--out", out],
    "verify-table": lambda d, t, c, out: [
        "verify", d, "--target", t, "--device", "cpu", "--tokens", "4"
    ],
}  # fmt: skip


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    root = tmp_path_factory.mktemp("hostile")
    d, t = hostile_pair(root)
    return root, d, t, check_config(root, d, t)


# every command at the width of a CI log; the tables narrow too (another layout)
RUNS = [(c, 120) for c in COMMANDS] + [(c, 60) for c in COMMANDS if c.endswith("table")]


@pytest.mark.parametrize(("command", "columns"), RUNS, ids=[f"{c}-{w}" for c, w in RUNS])
def test_no_value_becomes_a_workflow_command(hostile, tmp_path, command, columns):
    """A newline, a carriage return, ``::`` or ``##[`` in a config value, a tensor name, a
    folder or a pair name: no line of stdout or stderr is a command the runner obeys but
    the github format's own annotations, one per finding, none forged."""
    root, d, t, config = hostile
    r = run(*COMMANDS[command](d, t, config, tmp_path / FOLDER), cwd=tmp_path, columns=columns)
    out, err = text(r.stdout), text(r.stderr)
    assert r.returncode in (0, 1), err
    assert "Traceback" not in err
    assert workflow_commands(err) == []
    found = workflow_commands(out)
    if command.endswith("github"):
        # the runner takes a line as ::command (TryParseV2) before it looks for ##[
        assert found and all(OURS.fullmatch(line) for line in found), found
        # a quoted value stays in the message, where the runner reads no property
        assert not any("README.md" in line.split("::")[1] for line in found)
        assert "##[" not in out
    else:
        assert found == []
    if command.endswith("json") or command.endswith("sarif"):
        json.loads(out)
    if command.endswith("junit"):
        ET.fromstring(r.stdout)


def test_the_values_are_shown_escaped_on_their_line(hostile):
    """The table shows each hostile value whole, on one line: a newline or a carriage
    return escaped as the other control characters are (``\\n``), so the ``::`` after it
    is mid-line; the ``[`` of ``##[`` escaped (``\\x5b``)."""
    root, d, t, _ = hostile
    out = text(run("inspect", d, "--target", t, *PROFILES, "--format", "full", columns=400).stdout)
    assert "X\\n::error file=README.md,line=1::forged by a newline" in out
    assert "Y\\r::warning::forged by a carriage return" in out
    assert "Z ##\\x5berror]legacy command ##\\x5bstop-commands]tok" in out
    assert "bfloat16\\n::error::forged by torch_dtype" in out
    assert "fp8\\n::stop-commands::tok ##\\x5bwarning]q" in out
    assert "extra\\n::error::forged by a tensor name ##\\x5berror]t" in out
    assert "drafter\\n::error::forged by a path ##\\x5berror]p" in out


def test_partial_runs_show_a_hostile_reason_escaped(hostile):
    """check's partial runs quote the pair name and the allow-partial reason: escaped in
    the table, one annotation each in the github format, none forged."""
    root, d, t, config = hostile
    table = text(run("check", "--config", config, columns=400).stdout)
    assert "allowed: ok\\n::error::forged by an allow-partial reason ##\\x5berror]r" in table
    assert "pair\\n::error::forged by a pair name ##\\x5berror]n partial [vllm]" in table
    gh = text(run("check", "--config", config, "--format", "github").stdout)
    partial = [line for line in gh.splitlines() if ",title=partial::" in line]
    assert [line.split(" ")[0] for line in partial] == ["::error", "::notice"]
    assert all(OURS.fullmatch(line) for line in partial), partial
    assert "(allowed: ok%0A\\x3a:error::forged by an allow-partial reason ##\\x5berror]r)" in gh


def test_json_keeps_the_values_exactly(hostile):
    """JSON (and SARIF) carry a value unchanged to the program that reads them: ``[`` after
    ``##`` is written ``\\u005b``, which any JSON reader reads back as ``[``."""
    root, d, t, _ = hostile
    r = run("inspect", d, "--target", t, *PROFILES, "--format", "json")
    assert b"##[" not in r.stdout and b"##\\u005b" in r.stdout
    report = json.loads(r.stdout)
    assert report["drafter"]["architectures"][1:] == [NEWLINE, CARRIAGE, LEGACY]
    assert report["target"]["dtype"] == DTYPE and report["target"]["quantization"] == QUANT


def test_a_value_folded_to_a_line_start_is_no_command(tmp_path):
    """No newline needed: the table wraps a long value at a fixed width in a CI log, and
    can bring a ``::`` to a line's start: a folder named with words ``::warning::wrapped``
    (wrapped at its spaces in verify's and fix's head), a run of colons in the
    architectures (cut at the width in inspect's head)."""
    folder = " ".join(["::warning::wrapped"] * 13)  # 246 characters: one name
    d = drafter(
        tmp_path / folder,
        vocab=100,
        draft=100,
        config={"architectures": ["Qwen3DSparkForCausalLM", ":" * 600]},
        tensors={"lm_head.weight": head(100, 8, 1)},
    )
    t = target(tmp_path / "t", {"architectures": ["Qwen3ForCausalLM"], "vocab_size": 100})
    for columns in (120, 61):
        argvs = [
            ["inspect", d, "--target", t],
            ["verify", d, "--target", t, "--device", "cpu", "--tokens", "4"],
            ["fix", d, "--target", t, "--emit-mask", "--force"],
        ]
        for argv in argvs:
            r = run(*argv, cwd=tmp_path, columns=columns)
            out = text(r.stdout)
            assert "wrapped" in out, (argv[0], text(r.stderr))
            assert workflow_commands(out) == [], (argv[0], columns)
            assert workflow_commands(text(r.stderr)) == [], (argv[0], columns)


# --- item 7: one cap on every quoted list or string -----------------------------------

TOKENIZER = {"version": "1.0", "added_tokens": [], "model": {"type": "BPE", "merges": []}}
VOCAB = {f"t{i}": i for i in range(100)}
TARGET_CONFIG = {
    "architectures": ["Qwen3ForCausalLM"],
    "vocab_size": 100,
    "hidden_size": 8,
    "num_hidden_layers": 4,
}


def tokenizer(folder: Path, vocab: dict, **config) -> None:
    write_json(
        folder / "tokenizer.json", {**TOKENIZER, "model": {**TOKENIZER["model"], "vocab": vocab}}
    )
    if config:
        write_json(folder / "tokenizer_config.json", config)


def big_case(root: Path, name: str, n: int) -> tuple[Path, Path]:
    """A drafter and target pair of ``name`` whose finding quotes an input of size ``n``."""
    config: dict = {}
    if name == "layer_ids":
        config["target_layer_ids"] = list(range(n))
    if name == "verifier":
        config["speculators_config"] = {
            "verifier": {"architectures": [f"Arch{i}" for i in range(n)]}
        }
    d = drafter(
        root / "d", vocab=100, draft=100, config=config, tensors={"lm_head.weight": head(100, 8, 1)}
    )
    t = target(root / "t", TARGET_CONFIG, embed_rows=100)
    if name == "token":
        tokenizer(d, {"A" * n: 0, **{k: v for k, v in VOCAB.items() if v}})
        tokenizer(t, VOCAB)
    if name == "specials":
        tokenizer(d, VOCAB, added_tokens_decoder=specials(n, 1000))
        tokenizer(t, VOCAB, added_tokens_decoder=specials(n, 200_000))
    return d, t


def specials(n: int, first: int) -> dict:
    return {str(first + i): {"content": f"<s{i}>", "special": True} for i in range(n)}


# the issue's sizes are in the slow run; these are already far over the cap
SIZES = {"layer_ids": 100_000, "verifier": 20_000, "token": 1_000_000, "specials": 5_000}
FULL = {"layer_ids": 1_000_000, "verifier": 200_000, "token": 4_000_000, "specials": 50_000}
MAX_OUTPUT = 256 * 1024  # bytes any format prints for one of these pairs


def longest(value) -> tuple[int, int]:
    """The longest string and the longest list (or object) anywhere in ``value``."""
    if isinstance(value, str):
        return len(value), 0
    items = list(value.values()) if isinstance(value, dict) else value
    if not isinstance(items, list):
        return 0, 0
    inner = [longest(v) for v in items] or [(0, 0)]
    return max(s for s, _ in inner), max(len(items), *(n for _, n in inner))


def bounded_outputs(tmp_path: Path, name: str, n: int) -> None:
    from dspark_ckpt.rules.findings import MAX_ITEMS, MAX_QUOTED

    d, t = big_case(tmp_path, name, n)
    for fmt in ("table", "json", "github", "junit", "sarif"):
        r = run("inspect", d, "--target", t, "--format", fmt)
        assert r.returncode in (0, 1), r.stderr
        assert len(r.stdout) < MAX_OUTPUT, (fmt, len(r.stdout))
        assert len(r.stderr) < MAX_OUTPUT, (fmt, len(r.stderr))
        out = text(r.stdout)
        if fmt != "table":  # where the table wraps the marker, it is on two lines
            assert "characters ...]" in out or "items ...]" in out, (fmt, out[:2000])
        if fmt == "json":
            report = json.loads(out)
            for f in report["findings"]:
                assert len(f["message"]) <= MAX_QUOTED, f["code"]
            for part in ("drafter", "target", "target_checks"):
                chars, items = longest(report[part])
                assert chars <= MAX_QUOTED and items <= MAX_ITEMS, (part, chars, items)
        if fmt == "junit":
            ET.fromstring(r.stdout)


@pytest.mark.parametrize("name", SIZES)
def test_every_quoted_input_is_bounded(tmp_path, name):
    """1M target_layer_ids, 200k verifier architectures, a 4 MB token, 50k special-token
    differences (here a tenth to a quarter of that): a finding, and the JSON report's
    drafter, target and target checks, quote at most ``MAX_QUOTED`` characters of a string
    and ``MAX_ITEMS`` items of a list, so every format stays small."""
    bounded_outputs(tmp_path, name, SIZES[name])


@pytest.mark.slow
@pytest.mark.parametrize("name", FULL)
def test_every_quoted_input_is_bounded_at_the_issues_sizes(tmp_path, name):
    bounded_outputs(tmp_path, name, FULL[name])


# --- item 9: junit bounds its values, never the document -------------------------------


def test_junit_with_a_long_shard_name_is_well_formed(tmp_path):
    """A 6000-character shard name made of characters XML escapes (``&<"``): the report
    is well formed, the name bounded inside its value, never cut through markup."""
    root = tmp_path / "d"
    write_json(root / "config.json", drafter_config(100, 100))
    write_safetensors(root / "a.safetensors", {"a": T("F32", (2,), np.ones(2))})
    shard = '&<"' * 2000 + ".safetensors"
    write_json(
        root / "model.safetensors.index.json",
        {"weight_map": {"a": "a.safetensors", "b": shard}},
    )
    target(tmp_path / "t", TARGET_CONFIG)
    config = tmp_path / "dspark-ckpt.toml"
    config.write_text(f'[[pairs]]\nname = {json.dumps(shard)}\ndrafter = "d"\ntarget = "t"\n')
    r = run("check", "--config", config, "--format", "junit", cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    suites = ET.fromstring(r.stdout)
    (case,) = suites.iter("testcase")
    (failure,) = case.iter("failure")
    assert "missing shard" in failure.text and '&<"&<"' in failure.text
    assert case.get("classname").startswith('dspark-ckpt.&<"&<"')
