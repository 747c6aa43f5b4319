"""``fix hf://org/repo --out DIR`` on a Hub drafter that ships only pickle weights
(``pytorch_model.bin``, or a sharded ``.bin`` index): downloaded into the Hub cache by the
bounded downloader (offline: read from the cache), converted without running the pickle,
repaired as the local folder is. The loopback Hub server and cache of tests/hubserver.py,
never the network."""

from __future__ import annotations

import json

import pytest
from conftest import FIXTURES, cli, cli_subprocess
from hubserver import HubServer, build_cache, hub_env, repo_from_dir
from test_fix_pickle import pickled, tensors

torch = pytest.importorskip("torch")

PADDED, SMALL = FIXTURES / "padded", FIXTURES / "targets/small"


def sharded(dest):
    """The padded fixture as two ``.bin`` shards and their index."""
    from safetensors.torch import load_file

    dest.mkdir()
    sd = load_file(PADDED / "model.safetensors")
    names = sorted(sd)
    wmap = {}
    for i, part in enumerate((names[::2], names[1::2])):
        shard = f"pytorch_model-{i + 1:05d}-of-00002.bin"
        torch.save({n: sd[n] for n in part}, dest / shard)
        wmap |= dict.fromkeys(part, shard)
    index = {"metadata": {"total_size": 0}, "weight_map": wmap}
    (dest / "pytorch_model.bin.index.json").write_text(json.dumps(index))
    (dest / "config.json").write_bytes((PADDED / "config.json").read_bytes())
    return dest


def reference(tmp_path):
    r = cli("fix", PADDED, "--target", SMALL, "--out", tmp_path / "reference")
    assert r.exit_code == 0, r.stderr
    return tensors(tmp_path / "reference")


def same(got: dict, want: dict) -> bool:
    return set(got) == set(want) and all(got[k].tobytes() == want[k].tobytes() for k in want)


@pytest.mark.slow
@pytest.mark.parametrize("layout", ["single", "sharded"])
def test_a_hub_pickle_drafter_is_downloaded_converted_and_repaired(tmp_path, layout):
    src = pickled(PADDED, tmp_path / "d") if layout == "single" else sharded(tmp_path / "d")
    with HubServer({"org/d": repo_from_dir(src)}) as hub:
        r = cli_subprocess(
            "fix", "hf://org/d", "--target", SMALL, "--out", tmp_path / "o", "--format", "json",
            env=hub_env(tmp_path, hub.url),
        )  # fmt: skip
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["drafter"] == "hf://org/d"
    assert any("nothing in the pickle was run" in n for n in out["notes"])
    assert same(tensors(tmp_path / "o"), reference(tmp_path))
    assert json.loads((tmp_path / "o/config.json").read_text())["draft_vocab_size"] == 100


def offline(tmp_path, *args):
    """The CLI as a process reading the Hub cache ``tmp_path / cache`` offline
    (huggingface_hub reads its cache and offline settings once, at import)."""
    cache = {"HF_HUB_OFFLINE": "1", "HF_HUB_CACHE": str(tmp_path / "cache")}
    return cli_subprocess(*args, env={**cache, "HF_HOME": str(tmp_path / "hf-home")})


def test_an_offline_hub_cache_of_pickles_is_converted(tmp_path):
    src = pickled(PADDED, tmp_path / "d")
    build_cache(tmp_path / "cache", "org/d", repo_from_dir(src))
    r = offline(tmp_path, "fix", "org/d", "--target", SMALL, "--out", tmp_path / "o")
    assert r.returncode == 0, r.stdout + r.stderr
    assert same(tensors(tmp_path / "o"), reference(tmp_path))
    assert sorted(p.name for p in (tmp_path / "o").iterdir()) == [
        "config.json",
        "model.safetensors",
    ]


def test_inspect_of_a_hub_pickle_drafter_names_the_fix_that_converts_it(tmp_path):
    src = pickled(PADDED, tmp_path / "d")
    build_cache(tmp_path / "cache", "org/d", repo_from_dir(src))
    r = offline(tmp_path, "inspect", "org/d", "--target", SMALL)
    assert r.returncode == 1
    assert "holds only pickle weights" in r.stderr
    command = r.stderr.strip().split("without running the pickle: ")[1].split()
    assert command[:3] == ["dspark-ckpt", "fix", f"hf://org/d@{commit_of(src)}"]
    assert command[3:] == ["--target", "TARGET", "--out", "org-d-safetensors"]
    fixed = offline(tmp_path, "fix", command[2], "--target", SMALL, "--out", tmp_path / "o")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr  # it runs
    assert same(tensors(tmp_path / "o"), reference(tmp_path))


def commit_of(src) -> str:  # the commit build_cache names the snapshot by
    return repo_from_dir(src).commit
