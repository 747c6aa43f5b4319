"""Hostile tokenizer files and check configurations, through the real CLI (issue 21).

The drafter/target tokenizer comparison reads files the user did not write: a
``tokenizer.json`` whose keys come in any order, whose ``added_tokens`` is not a list,
whose ``tokenizer_config.json`` keys are not ids, a token of megabytes, a declared vocab
of 2^31 ids with a 100-id file, a FIFO swapped in after the folder was listed. Each gives
the tokenizer findings (DSC710/711/712) or one line, never a traceback, a hang or an
allocation the files do not ask for. The same for a ``dspark-ckpt.toml`` or
``pyproject.toml`` nested 100k deep (one line naming the file, exit 2).
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FIXTURES, ROOT, cli
from synth import drafter, head

TOKENIZERS = FIXTURES / "target-contract" / "tokenizers"
TIMEOUT_S = 30


def target_doc() -> dict:
    return json.loads((TOKENIZERS / "target" / "tokenizer.json").read_text())


def target_config() -> dict:
    return json.loads((TOKENIZERS / "target" / "tokenizer_config.json").read_text())


def folders(tmp_path: Path, vocab: int = 100) -> tuple[Path, Path]:
    """A drafter and a target of ``vocab`` ids; the target holds the fixture tokenizer,
    the drafter its tokenizer_config.json (each test writes the drafter's tokenizer.json)."""
    d = drafter(tmp_path / "d", vocab=vocab, draft=100, tensors={"lm_head.weight": head(100, 8, 0)})
    t = tmp_path / "t"
    t.mkdir()
    (t / "config.json").write_text(
        json.dumps({"architectures": ["Qwen3ForCausalLM"], "vocab_size": vocab})
    )
    for f in ("tokenizer.json", "tokenizer_config.json"):
        shutil.copy(TOKENIZERS / "target" / f, t / f)
    shutil.copy(TOKENIZERS / "target" / "tokenizer_config.json", d / "tokenizer_config.json")
    return d, t


def write(path: Path, doc) -> Path:
    path.write_text(json.dumps(doc, ensure_ascii=False, indent=2))
    return path


def inspect(d: Path, t: Path):
    r = cli("inspect", d, "--target", t, "--format", "json")
    assert "Traceback" not in r.stdout + r.stderr
    return r.exit_code, r.json


def codes(rep: dict) -> list[str]:
    return sorted(f["code"] for f in rep["findings"] if f["code"].startswith("DSC7"))


def finding(rep: dict, code: str) -> dict:
    [f] = [f for f in rep["findings"] if f["code"] == code]
    return f


def tokenizer_check(rep: dict) -> dict:
    [tok] = [c for c in rep["target_checks"] if c["check"] == "tokenizer"]
    return tok


# --- 1. every part that matters is compared, whatever the key order ---------------------


@pytest.mark.parametrize("first", ["added_tokens", "model"])
def test_added_tokens_are_compared_before_or_after_the_model(first, tmp_path):
    """Another special token at id 97 is DSC710 whether ``added_tokens`` is written before
    ``"model"`` (as the tokenizers library does) or after it (a wrong PASS before)."""
    d, t = folders(tmp_path)
    (d / "tokenizer_config.json").unlink()  # its added_tokens_decoder would say id 97 too
    doc = target_doc()
    doc["added_tokens"][0]["content"] = "<|other|>"
    rest = {k: v for k, v in doc.items() if k not in ("added_tokens", "model")}
    second = "model" if first == "added_tokens" else "added_tokens"
    write(d / "tokenizer.json", {**rest, first: doc[first], second: doc[second]})
    rc, rep = inspect(d, t)
    assert rc == 1 and "DSC710" in codes(rep)
    assert "id 97: drafter '<|other|>', target '<|endoftext|>'" in finding(rep, "DSC710")["message"]


def test_the_same_tokenizer_in_another_key_order_is_the_same(tmp_path):
    """Parsed (the bytes differ), not hashed: the order of keys changes nothing."""
    d, t = folders(tmp_path)
    doc = target_doc()
    write(d / "tokenizer.json", dict(reversed(list(doc.items()))))
    rc, rep = inspect(d, t)
    assert codes(rep) == [] and rc == 0
    tok = tokenizer_check(rep)
    assert tok["result"] == "same" and tok["detail"] == "the same 100 ids"


# --- 4. memory bounded by what the files hold ---------------------------------------------


def limited(gib: float):
    limit = int(gib * (1 << 30))
    return lambda: resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def test_a_declared_vocab_of_2_31_ids_allocates_nothing_per_id(tmp_path):
    """V = Vt = 2^31-1 with a 100-id tokenizer: the comparison costs what the files hold
    (it asked 32 bytes per declared id before: ~64 GiB), under a 1 GiB address space."""
    d, t = folders(tmp_path, vocab=2**31 - 1)
    shutil.copy(TOKENIZERS / "one-token" / "tokenizer.json", d / "tokenizer.json")
    r = subprocess.run(
        [sys.executable, "-m", "dspark_ckpt", "inspect", d, "--target", t, "--format", "json"],
        capture_output=True, text=True, timeout=TIMEOUT_S, preexec_fn=limited(1),
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert r.returncode == 1, r.stderr
    rep = json.loads(r.stdout)
    assert "DSC710" in codes(rep)
    tok = tokenizer_check(rep)
    assert tok["differing_ids"] == 1 and tok["compared_ids"] == 2**31 - 1


# --- 5. a FIFO swapped in after the listing does not block --------------------------------

# the CLI, with the target folder's tokenizer.json replaced by a FIFO once it was listed:
# the moment an attacker (or a sync tool) would pick
SWAP_AFTER_LISTING = """
import os, runpy, sys
from pathlib import Path
from dspark_ckpt.source.local import LocalSource
victim = Path(sys.argv[1])
listed = LocalSource.file_names
def file_names(self):
    names = listed(self)
    if self.root.resolve() == victim.parent.resolve() and not victim.is_fifo():
        fifo = victim.with_name('.fifo')
        os.mkfifo(fifo)
        os.replace(fifo, victim)
    return names
LocalSource.file_names = file_names
sys.argv = ['dspark-ckpt', *sys.argv[2:]]
runpy.run_module('dspark_ckpt', run_name='__main__')
"""


def test_a_fifo_renamed_over_the_targets_tokenizer_json_is_refused_not_waited_on(tmp_path):
    d, t = folders(tmp_path)
    shutil.copy(TOKENIZERS / "one-token" / "tokenizer.json", d / "tokenizer.json")
    victim = t / "tokenizer.json"
    argv = ["inspect", d, "--target", t, "--format", "json"]
    r = subprocess.run(
        [sys.executable, "-c", SWAP_AFTER_LISTING, victim, *map(str, argv)],
        capture_output=True, text=True, timeout=TIMEOUT_S,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert victim.is_fifo()
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    assert codes(rep) == ["DSC712"]
    assert (
        f"{victim}: cannot be read: is a FIFO, not a regular file"
        in (finding(rep, "DSC712")["message"])
    )


# --- 8. malformed tokenizer content: findings, never a traceback ---------------------------


@pytest.mark.parametrize("key", ["²", "①", "1" * 5000, "٣", " 7", "+7", "-1"])
def test_added_tokens_decoder_keys_that_are_not_ids_are_not_checked(key, tmp_path):
    """``isdigit()`` is true of ``²`` and ``①``, and ``int()`` of 5000 digits raises: the
    keys an id can have are ASCII digits; any other key is DSC712, naming the file."""
    d, t = folders(tmp_path)
    shutil.copy(TOKENIZERS / "one-token" / "tokenizer.json", d / "tokenizer.json")
    cfg = target_config()
    cfg["added_tokens_decoder"][key] = {"content": "<|x|>", "special": True}
    write(d / "tokenizer_config.json", cfg)
    rc, rep = inspect(d, t)
    assert rc == 0 and codes(rep) == ["DSC712"]
    message = finding(rep, "DSC712")["message"]
    assert f"{d / 'tokenizer_config.json'}: added_tokens_decoder key " in message
    assert "is not a token id" in message and len(message) < 500


@pytest.mark.parametrize("value", ["1", "true", "2.5", "NaN", '"x"', "{}"])
def test_added_tokens_that_are_not_a_list_are_not_checked(value, tmp_path):
    d, t = folders(tmp_path)
    text = json.dumps(target_doc(), indent=2)
    start = text.index('"added_tokens": [')
    end = text.index("],", start) + 1
    (d / "tokenizer.json").write_text(text[:start] + f'"added_tokens": {value}' + text[end:])
    rc, rep = inspect(d, t)
    assert rc == 0 and codes(rep) == ["DSC712"]
    message = finding(rep, "DSC712")["message"]
    assert str(d / "tokenizer.json") in message
    assert ("added_tokens is not a list" in message) or ("NaN is not valid JSON" in message)


@pytest.mark.parametrize(
    "entry",
    [1, None, {"id": "7", "content": "x"}, {"id": 7, "content": 7}, {"id": True, "content": "x"}],
)
def test_added_token_entries_of_another_shape_are_not_checked(entry, tmp_path):
    d, t = folders(tmp_path)
    doc = target_doc()
    doc["added_tokens"].append(entry)
    write(d / "tokenizer.json", doc)
    rc, rep = inspect(d, t)
    assert rc == 0 and codes(rep) == ["DSC712"]
    assert (
        "added_tokens[3] is not a token (an object with an integer id and"
        in (finding(rep, "DSC712")["message"])
    )


@pytest.mark.parametrize("vocab", ["[1, 2]", '{"a": "b"}', '{"a": -1}', "7"])
def test_a_vocab_of_another_shape_is_not_checked(vocab, tmp_path):
    d, t = folders(tmp_path)
    doc = target_doc()
    doc["model"]["vocab"] = json.loads(vocab)
    write(d / "tokenizer.json", doc)
    rc, rep = inspect(d, t)
    assert rc == 0 and codes(rep) == ["DSC712"], rep["findings"]
    assert "model.vocab" in finding(rep, "DSC712")["message"]


# --- 7. what the findings quote stays bounded --------------------------------------------


def test_a_4mb_token_is_quoted_cut(tmp_path):
    d, t = folders(tmp_path)
    doc = target_doc()
    doc["model"]["vocab"] = {
        ("x" * 4_000_000 if i == 42 else k): i for k, i in doc["model"]["vocab"].items()
    }
    write(d / "tokenizer.json", doc)
    r = cli("inspect", d, "--target", t, "--format", "json")
    assert r.exit_code == 1 and len(r.stdout) < 20_000
    message = finding(r.json, "DSC710")["message"]
    assert "id 42: drafter 'xxxx" in message and "xx[... 3999920 characters ...]xx" in message
    [diff] = tokenizer_check(r.json)["first_differences"]
    assert diff["id"] == 42 and diff["target"] == "qq" and len(diff["drafter"]) < 200
    r = cli("inspect", d, "--target", t)
    assert r.exit_code == 1 and len(r.stdout) < 20_000


def test_50k_special_token_differences_are_counted_not_listed(tmp_path):
    """Both sides know 50k special tokens, each at another id: five are quoted, the rest
    counted."""
    n = 50_000
    d, t = folders(tmp_path, vocab=2 * n + 100)
    for folder, base in ((d, 100), (t, 100 + n)):
        cfg = target_config()
        cfg["added_tokens_decoder"] = {
            str(base + k): {"content": f"<|s{k}|>" + "y" * 100, "special": True} for k in range(n)
        }
        cfg["eos_token"] = ("e" if folder == d else "f") * 1_000_000
        write(folder / "tokenizer_config.json", cfg)
    shutil.copy(TOKENIZERS / "target" / "tokenizer.json", d / "tokenizer.json")
    r = cli("inspect", d, "--target", t, "--format", "json")
    assert "Traceback" not in r.stdout + r.stderr
    assert len(r.stdout) < 40_000
    tok = tokenizer_check(r.json)
    assert len(tok["special_differences"]) == 6
    assert tok["special_differences"][-1] == "[... 49996 items ...]"
    assert "50001 special-token difference(s)" in tok["detail"]
    message = finding(r.json, "DSC711")["message"]
    assert "; [... 49996 items ...]" in message and "[... 999920 characters ...]" in message
    assert len(message) < 3000
    r = cli("inspect", d, "--target", t)
    assert len(r.stdout) < 40_000


# --- 8. a check configuration nested 100k deep ---------------------------------------------

DEEP = 100_000
NESTED = {
    "inline table": "x = " + "{a = " * DEEP + "1" + "}" * DEEP + "\n",
    "array": "x = " + "[" * DEEP + "]" * DEEP + "\n",
    # tomllib takes time and memory quadratic in the parts of a dotted key (100k parts:
    # minutes and tens of GB): 5000 are refused before it runs
    "dotted key": ".".join(["a"] * 5000) + " = 1\n",
    "table header": "[" + ".".join(["a"] * 5000) + "]\n",
    "integer of 5000 digits": "x = 1" + "0" * 5000 + "\n",
}


@pytest.mark.parametrize("shape", NESTED)
@pytest.mark.parametrize("name", ["dspark-ckpt.toml", "pyproject.toml"])
def test_a_check_configuration_nested_deep_is_one_line_exit_2(name, shape, tmp_path, monkeypatch):
    body = NESTED[shape]
    if name == "pyproject.toml":
        body = "[tool.dspark-ckpt]\n" + body.replace("[a.", "[tool.dspark-ckpt.a.")
    (tmp_path / name).write_text(body)
    monkeypatch.chdir(tmp_path)
    r = cli("check")
    assert r.exit_code == 2, r.stdout
    [line] = r.stderr.splitlines()
    assert line.startswith(f"dspark-ckpt: error: {name}: invalid TOML: "), line
    assert len(line) < 300
    r = cli("check", "--config", tmp_path / name)
    assert r.exit_code == 2
    assert r.stderr.startswith(f"dspark-ckpt: error: {tmp_path / name}: invalid TOML: ")
    assert len(r.stderr.splitlines()) == 1


def test_a_check_configuration_that_is_a_fifo_is_one_line(tmp_path):
    os.mkfifo(tmp_path / "dspark-ckpt.toml")
    r = subprocess.run(
        [sys.executable, "-m", "dspark_ckpt", "check", "--config", tmp_path / "dspark-ckpt.toml"],
        capture_output=True, text=True, timeout=TIMEOUT_S,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert r.returncode == 2
    assert r.stderr == f"dspark-ckpt: error: {tmp_path / 'dspark-ckpt.toml'}: not a regular file\n"


def test_a_check_configuration_over_1_mib_is_refused_unread(tmp_path, monkeypatch):
    (tmp_path / "dspark-ckpt.toml").write_text("# " + "x" * (1 << 20) + "\n")
    monkeypatch.chdir(tmp_path)
    r = cli("check")
    assert r.exit_code == 2
    assert r.stderr == (
        "dspark-ckpt: error: dspark-ckpt.toml: configuration is 1048579 bytes, "
        "over the 1048576 limit\n"
    )
