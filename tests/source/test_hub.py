"""Hugging Face Hub repositories as DRAFTER and TARGET, for real and without the internet.

Online: a Hub-compatible server on 127.0.0.1 (tests/hubserver.py) reached through
``HF_ENDPOINT``; its request log proves that no weight byte beyond the safetensors
headers and the ``d2t`` / ``t2d`` tensors was read. Offline: ``HF_HUB_OFFLINE=1``
against a Hub cache layout built in ``tmp_path``. The CLI runs as a subprocess, so
huggingface_hub reads the environment afresh, as it does for a user: those tests are
marked slow (``python -m pytest -m slow`` runs them).
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from conftest import FIXTURES, cli, cli_subprocess
from hubserver import TOKEN, HubServer, Repo, build_cache, closed_port, hub_env, repo_from_dir

from dspark_ckpt.errors import UsageError
from dspark_ckpt.source.hub import HubRef, hub_ref

TARGET = FIXTURES / "targets/small"


def inspect_json(*args, env=None, cwd=None):
    r = cli_subprocess("inspect", *args, "--format", "json", env=env, cwd=cwd)
    return r, (json.loads(r.stdout) if r.stdout else None)


def local_json(drafter: Path) -> dict:
    return cli("inspect", drafter, "--target", TARGET, "--format", "json").json


def same_verdict(hub: dict, local: dict) -> None:
    for key in ("classification", "padded_rows", "verdicts", "ok"):
        assert hub[key] == local[key], key
    assert [(f["code"], f["tensor"]) for f in hub["findings"]] == [
        (f["code"], f["tensor"]) for f in local["findings"]
    ]


def allowed_ranges(data: bytes, mapping=("d2t", "t2d")) -> list[tuple[int, int]]:
    """The bytes a header-only reader may fetch: the header, and the mapping tensors."""
    n = int.from_bytes(data[:8], "little")
    header = json.loads(data[8 : 8 + n])
    out = [(0, 8 + n)]
    for name, entry in header.items():
        if name.split(".")[-1] in mapping:
            a, b = entry["data_offsets"]
            out.append((8 + n + a, 8 + n + b))
    return out


def assert_header_only(hub: HubServer, repos: dict[str, Repo]) -> int:
    """No safetensors byte outside the allowed ranges left the server; returns bytes sent."""
    sent = 0
    for repo_id, repo in repos.items():
        for name, data in repo.files.items():
            if not name.endswith(".safetensors"):
                continue
            allowed = allowed_ranges(data)
            for start, end in hub.data_reads(repo_id, name):
                assert any(a <= start and end <= b for a, b in allowed), (name, start, end)
                sent += end - start
    return sent


# --- naming a repository ------------------------------------------------------------


def test_hub_ids_and_local_paths(tmp_path, monkeypatch):
    assert hub_ref("org/name") == HubRef("org/name", None, "org/name")
    assert hub_ref("org/name@v1.0") == HubRef("org/name", "v1.0", "org/name@v1.0")
    assert hub_ref("hf://Org-1/my.model_x@refs/pr/3") == HubRef(
        "Org-1/my.model_x", "refs/pr/3", "hf://Org-1/my.model_x@refs/pr/3"
    )
    for local in ("./org/name", "/abs/path", "a/b/c", "name", "org/..", FIXTURES / "padded"):
        assert hub_ref(local) is None
    monkeypatch.chdir(tmp_path)
    (tmp_path / "org" / "name").mkdir(parents=True)
    assert hub_ref("org/name") is None  # an existing local path always wins
    assert hub_ref("hf://org/name") is not None
    with pytest.raises(UsageError, match="not a Hub repository id"):
        hub_ref("hf://just-a-name")


def test_credentials_in_urls_never_reach_an_error_message():
    """Every CheckpointError and UsageError redacts URL credentials as it is made (the
    CLI tests of every Hub failure are in tests/hostile/test_hostile_hub_downloads.py)."""
    from dspark_ckpt.errors import CheckpointError, WriteError, redact

    url = "http://user:s3cret@hub.example:8080/api"
    assert redact(url) == "http://***@hub.example:8080/api"
    assert redact(redact(url)) == redact(url)
    assert redact("https://tok@cdn.example/x and ftp://a:b@c") == (
        "https://***@cdn.example/x and ftp://***@c"
    )
    for kept in ("hf://org/name@v1/config.json", "org/name@main", "https://host/p@v1", "a@b"):
        assert redact(kept) == kept
    assert "s3cret" not in str(UsageError(f"the Hub at {url} timed out"))
    e = CheckpointError("hf://org/x@abc/config.json", f"via {url}", hint=f"see {url}")
    assert "s3cret" not in str(e) and "s3cret" not in e.message + e.hint
    assert "s3cret" not in str(WriteError("out", f"cannot reach {url}"))


@pytest.mark.slow
def test_existing_local_path_wins_without_network(tmp_path):
    shutil.copytree(FIXTURES / "padded", tmp_path / "org" / "padded")
    shutil.copytree(TARGET, tmp_path / "org" / "small")
    r, out = inspect_json(
        "org/padded", "--target", "org/small", env=hub_env(tmp_path, closed_port()), cwd=tmp_path
    )
    assert r.returncode == 0, r.stderr
    same_verdict(out, local_json(FIXTURES / "padded"))


def test_local_inspect_never_imports_huggingface_hub():
    code = (
        "import sys\n"
        "from dspark_ckpt.facts.target import open_target\n"
        "from dspark_ckpt.commands.inspect import inspect_checkpoint\n"
        f"r = inspect_checkpoint({str(FIXTURES / 'padded')!r}, open_target({str(TARGET)!r}))\n"
        "assert r.ok\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('huggingface_hub', 'httpx2', 'torch')))\n"
    )
    import subprocess

    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"


# --- online: a Hub-compatible server on 127.0.0.1 -------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("name", ["padded", "pruned-eagle3", "sharded"])
def test_online_inspect_reads_headers_and_mapping_only(tmp_path, name):
    repos = {f"org/{name}": repo_from_dir(FIXTURES / name), "org/small": repo_from_dir(TARGET)}
    with HubServer(repos) as hub:
        r, out = inspect_json(
            f"org/{name}", "--target", "hf://org/small", env=hub_env(tmp_path, hub.url)
        )
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    same_verdict(out, local_json(FIXTURES / name))
    assert out["drafter"]["source"] == f"org/{name}"
    assert out["target"]["embedding_rows"] == 128  # Et read from the target's remote header
    sent = assert_header_only(hub, repos)
    weights = sum(len(d) for n, d in repos[f"org/{name}"].files.items() if n.endswith("tensors"))
    assert sent < weights
    if name == "pruned-eagle3":  # d2t and t2d were read, each exactly once
        data = repos["org/pruned-eagle3"].files["model.safetensors"]
        reads = hub.data_reads("org/pruned-eagle3", "model.safetensors")
        for a, b in allowed_ranges(data)[1:]:
            assert reads.count((a, b)) == 1


@pytest.mark.slow
def test_online_revision_token_and_errors(tmp_path):
    padded = repo_from_dir(FIXTURES / "padded", private=True)
    padded.refs["v1"] = padded.commit
    repos = {
        "org/private": padded,
        "org/gated": repo_from_dir(FIXTURES / "equal", gated=True),
        "org/small": repo_from_dir(TARGET),
    }
    with HubServer(repos) as hub:
        env = hub_env(tmp_path, hub.url)
        ok = cli_subprocess(
            "inspect", "org/private@v1", "--target", "org/small", env={**env, "HF_TOKEN": TOKEN}
        )
        assert ok.returncode == 0, ok.stderr
        assert "/api/models/org/private/revision/v1" in [s.path for s in hub.log]
        assert all(s.auth == f"Bearer {TOKEN}" for s in hub.log if "org/private" in s.path)

        cases = {
            ("org/private", "--target", "org/small"): "no Hub repository org/private",
            ("org/gated", "--target", "org/small"): "org/gated is gated",
            ("org/missing", "--target", "org/small"): "no Hub repository org/missing",
            ("hf://org/small@nope", "--target", "org/small"): "has no revision 'nope'",
            ("org/small", "--target", "org/missing"): "no Hub repository org/missing",
            ("hf://org/a--b", "--target", "org/small"): "not a valid Hub repository id",
        }
        for args, message in cases.items():
            r = cli_subprocess("inspect", *args, env=env)
            assert r.returncode == 2, (args, r.stderr)
            assert r.stdout == ""
            assert r.stderr.count("\n") == 1 and message in r.stderr, r.stderr
            assert "Traceback" not in r.stderr


@pytest.mark.slow
def test_unreachable_hub_is_a_one_line_network_error(tmp_path):
    r = cli_subprocess(
        "inspect", "hf://org/padded", "--target", TARGET, env=hub_env(tmp_path, closed_port())
    )
    assert r.returncode == 2
    said = "dspark-ckpt: error: network: hf://org/padded: cannot reach the Hub at "
    assert r.stderr.startswith(said)
    assert r.stderr.count("\n") == 1


@pytest.mark.slow
def test_online_malformed_remote_header_is_dsc001_naming_the_hub_file(tmp_path):
    bad = repo_from_dir(FIXTURES / "padded")
    bad.files["model.safetensors"] += b"\0" * 16  # trailing bytes after the last tensor
    with HubServer({"org/bad": bad, "org/small": repo_from_dir(TARGET)}) as hub:
        r, out = inspect_json("org/bad", "--target", "org/small", env=hub_env(tmp_path, hub.url))
    assert r.returncode == 1
    [finding] = out["findings"]
    assert finding["code"] == "DSC001"
    assert finding["file"] == f"hf://org/bad@{bad.commit}/model.safetensors"
    assert "16 trailing bytes" in finding["message"]


@pytest.mark.slow
def test_online_prefers_safetensors_already_in_the_cache(tmp_path):
    repo = repo_from_dir(FIXTURES / "pruned-eagle3")
    build_cache(tmp_path / "hf-cache", "org/eagle", repo)
    repos = {"org/eagle": repo, "org/small": repo_from_dir(TARGET)}
    with HubServer(repos) as hub:
        r, out = inspect_json("org/eagle", "--target", "org/small", env=hub_env(tmp_path, hub.url))
    assert r.returncode == 0, r.stderr
    same_verdict(out, local_json(FIXTURES / "pruned-eagle3"))
    assert [s for s in hub.log if s.path.startswith("/org/eagle/")] == []  # all from the cache
    assert hub.data_reads("org/small", "model.safetensors")  # the target is not cached


@pytest.mark.slow
def test_local_checkpoint_for_fix_out_fetches_whole_files_into_the_cache(tmp_path):
    """fix --out copies every file: local_checkpoint turns a Hub checkpoint into a local one."""
    repos = {"org/sharded": repo_from_dir(FIXTURES / "sharded")}
    code = (
        "from pathlib import Path\n"
        "from dspark_ckpt.source.checkpoint import local_checkpoint, open_checkpoint\n"
        "remote = open_checkpoint('org/sharded')\n"
        "local = local_checkpoint(remote)\n"
        "assert local.name == 'org/sharded' and local.index_path is not None\n"
        "assert local.origin.is_local is True and remote.origin.is_local is False\n"
        "assert sorted(local.tensors) == sorted(remote.tensors)\n"
        "assert all(isinstance(f, Path) and f.is_file() for f in local.files)\n"
        "print(len(local.files))\n"
    )
    import os
    import subprocess

    with HubServer(repos) as hub:
        env = {**os.environ, **hub_env(tmp_path, hub.url), "PYTHONPATH": str(FIXTURES.parent)}
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "3"
    for name, data in repos["org/sharded"].files.items():
        if name.endswith(".safetensors"):
            assert (0, len(data)) in hub.data_reads("org/sharded", name)


# --- offline: HF_HUB_OFFLINE=1 and a Hub cache built here ------------------------------


@pytest.mark.slow
def test_offline_reads_the_cache_only(tmp_path):
    cache = tmp_path / "hf-cache"
    sharded = repo_from_dir(FIXTURES / "sharded")
    sharded.refs["v2"] = sharded.commit
    build_cache(cache, "org/eagle", repo_from_dir(FIXTURES / "pruned-eagle3"))
    build_cache(cache, "org/sharded", sharded)
    build_cache(cache, "org/small", repo_from_dir(TARGET))
    env = hub_env(tmp_path, closed_port(), HF_HUB_OFFLINE="1")

    r, out = inspect_json("org/eagle", "--target", "hf://org/small", env=env)
    assert r.returncode == 0, r.stderr
    same_verdict(out, local_json(FIXTURES / "pruned-eagle3"))
    assert out["target"]["source"] == "hf://org/small"
    online = {**env, "HF_HUB_OFFLINE": "0"}  # a closed port: the cache is all there is
    r = cli_subprocess("inspect", "org/eagle", "--target", "org/small", env=online)
    assert r.returncode == 2
    assert r.stderr.rstrip().endswith("holds it: set HF_HUB_OFFLINE=1 to use that)")

    r, out = inspect_json(f"org/sharded@{sharded.commit}", "--target", "org/small@main", env=env)
    assert r.returncode == 0, r.stderr
    same_verdict(out, local_json(FIXTURES / "sharded"))
    assert out["drafter"]["files"] == 3

    r, out = inspect_json("org/sharded@v2", "--target", "org/small", env=env)
    assert r.returncode == 0, r.stderr

    r = cli_subprocess("inspect", "org/uncached", "--target", "org/small", env=env)
    assert r.returncode == 2
    assert "org/uncached is not in the local Hub cache" in r.stderr
    assert "HF_HUB_OFFLINE" in r.stderr and r.stderr.count("\n") == 1


@pytest.mark.slow
def test_a_broken_target_keeps_a_hub_drafters_family_profile(tmp_path):
    """The target fails, the drafter (on the Hub) is still read: an EAGLE-3 drafter's run
    stays vllm-eagle3, in inspect and in check, as with a healthy target."""
    build_cache(tmp_path / "hf-cache", "org/eagle", repo_from_dir(FIXTURES / "pruned-eagle3"))
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "config.json").write_text((TARGET / "config.json").read_text())
    (broken / "model.safetensors").write_bytes(b"garbage!")
    env = hub_env(tmp_path, closed_port(), HF_HUB_OFFLINE="1")
    r, out = inspect_json("org/eagle", "--target", broken, env=env)
    assert r.returncode == 1 and out["profile"] == "vllm-eagle3" and out["family"] == "eagle3"
    (tmp_path / "dspark-ckpt.toml").write_text(
        '[[pairs]]\ndrafter = "hf://org/eagle"\ntarget = "broken"\n'
    )
    r = cli_subprocess("check", "--format", "json", env=env, cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    assert [run["profile"] for run in json.loads(r.stdout)["runs"]] == ["vllm-eagle3"]


@pytest.mark.slow
def test_offline_with_a_partial_cache_says_what_it_lacks(tmp_path):
    """A cache holding configs under their commit only, and no weights (what verify's and
    other tools' single-file downloads leave): offline, that is an incomplete cache (usage
    error), never a broken checkpoint."""
    repos = {"org/padded": repo_from_dir(FIXTURES / "padded"), "org/small": repo_from_dir(TARGET)}
    for repo_id, repo in repos.items():
        config = {"config.json": repo.files["config.json"]}
        folder = build_cache(tmp_path / "hf-cache", repo_id, Repo(config, commit=repo.commit))
        shutil.rmtree(folder.parent.parent / "refs")  # reached by commit, never by name
    env = hub_env(tmp_path, closed_port(), HF_HUB_OFFLINE="1")
    commit, small = repos["org/padded"].commit, repos["org/small"].commit
    r = cli_subprocess("inspect", "org/padded", "--target", "org/small", env=env)
    assert r.returncode == 2 and r.stdout == "" and r.stderr.count("\n") == 1
    assert "cannot resolve org/small offline (HF_HUB_OFFLINE is set)" in r.stderr
    assert r.stderr.rstrip().endswith(f"at commit(s) {small}: name one (org/small@{small})")
    r = cli_subprocess("inspect", "org/padded", "--target", f"org/small@{small}", env=env)
    assert r.returncode == 2 and r.stderr.rstrip().endswith(f"(org/padded@{commit})")
    online = {**env, "HF_HUB_OFFLINE": "0"}  # the endpoint is a closed port
    r = cli_subprocess("inspect", "org/padded", "--target", "org/small", env=online)
    assert r.returncode == 2 and "cannot reach the Hub" in r.stderr
    assert r.stderr.rstrip().endswith("holds only part of it: hf download org/small online)")
    r = cli_subprocess("inspect", f"org/padded@{commit}", "--target", f"org/small@{small}", env=env)
    assert r.returncode == 2 and r.stdout == "" and r.stderr.count("\n") == 1
    assert f"holds org/padded@{commit} at {commit} without its weights" in r.stderr
    assert "hf download org/padded" in r.stderr


# --- fix and verify read Hub repositories too ----------------------------------------


@pytest.mark.slow
def test_fix_reads_a_hub_drafter_header_only(tmp_path):
    repos = {"org/padded": repo_from_dir(FIXTURES / "padded"), "org/small": repo_from_dir(TARGET)}
    with HubServer(repos) as hub:
        env = hub_env(tmp_path, hub.url)
        r = cli_subprocess(
            "fix",
            "org/padded",
            "--target",
            "org/small",
            "--emit-mask",
            "--format",
            "json",
            env=env,
            cwd=tmp_path,
        )
        assert r.returncode == 0, r.stderr
        assert_header_only(hub, repos)  # the mask needs sizes only: no weight byte read
        in_place = cli_subprocess(
            "fix",
            "org/padded",
            "--target-vocab-size",
            "100",
            "--emit-d2t",
            "--in-place",
            "--force",
            env=env,
            cwd=tmp_path,
        )
    assert json.loads(r.stdout)["written"][0]["tensor"] == "draft_vocab_mask"
    assert (tmp_path / "draft_vocab_mask.safetensors").is_file()
    assert in_place.returncode == 2 and "cannot be patched in place" in in_place.stderr


def assert_never_downloaded(hub: HubServer, repo_id: str, repo: Repo, name: str) -> None:
    """``name`` was never requested beyond its header (no HEAD, no whole-file GET)."""
    header = allowed_ranges(repo.files[name], mapping=())[0]
    sent = hub.requests(repo_id, name)
    assert sent, name  # its header was read
    for s in sent:
        assert s.method == "GET" and header[0] <= s.start and s.end <= header[1], (name, s)


def assert_downloaded(hub: HubServer, repo_id: str, repo: Repo, name: str) -> None:
    assert hub.data_reads(repo_id, name).count((0, len(repo.files[name]))) == 1, name


def hub_verify(tmp_path: Path, repos: dict[str, Repo], drafter: str, target: str):
    """``verify --format json`` on Hub repos served locally: the server (its log) and JSON."""
    with HubServer(repos) as hub:
        r = cli_subprocess(
            "verify",
            drafter,
            "--target",
            target,
            "--format",
            "json",
            env=hub_env(tmp_path, hub.url),
            cwd=tmp_path,
        )
    assert r.returncode == 0, r.stderr
    return hub, json.loads(r.stdout)


@pytest.mark.slow
def test_verify_downloads_a_hub_head(tmp_path):
    """Only the shards holding lm_head and the Markov head are downloaded; the backbone's
    are never requested."""
    sharded = repo_from_dir(FIXTURES / "sharded")
    repos = {"org/sharded": sharded, "org/small": repo_from_dir(TARGET)}
    hub, out = hub_verify(tmp_path, repos, "org/sharded", "org/small")
    assert out["ok"] is True
    assert out["modes"]["greedy"]["unmasked_illegal"] > 0  # the same head as the local fixture
    local = cli("verify", FIXTURES / "sharded", "--target", TARGET, "--format", "json").json
    assert out["modes"] == local["modes"]
    index = json.loads(sharded.files["model.safetensors.index.json"])["weight_map"]
    read = {index[n] for n in index if n.startswith(("lm_head.", "markov_head."))}
    for name in read:
        assert_downloaded(hub, "org/sharded", sharded, name)
    others = set(index.values()) - read
    assert others  # the fixture keeps backbone-only shards
    for name in others:
        assert_never_downloaded(hub, "org/sharded", sharded, name)
    assert_never_downloaded(hub, "org/small", repos["org/small"], "model.safetensors")


def sharded_target(root: Path) -> Path:
    """The small target (Vt 100, Et 128) as three shards; lm_head alone in the second."""
    import synth

    root.mkdir(parents=True)
    shutil.copy(TARGET / "config.json", root / "config.json")
    synth.shard(
        root,
        {
            "model.embed_tokens.weight": synth.head(128, 8, 7),
            "lm_head.weight": synth.head(128, 8, 8),
            "model.norm.weight": synth.T("F32", (8,), synth.np.ones(8, synth.np.float32)),
        },
        3,
    )
    return root


@pytest.mark.slow
def test_verify_equal_drafter_downloads_only_the_target_shard_with_lm_head(tmp_path):
    target = repo_from_dir(sharded_target(tmp_path / "target"))
    repos = {"org/equal": repo_from_dir(FIXTURES / "equal"), "org/big": target}
    hub, out = hub_verify(tmp_path, repos, "org/equal", "org/big")
    assert out["head"] == {"source": "target", "shape": [100, 8], "bytes": 100 * 8 * 4}
    assert out["target"]["embedding_rows"] == 128
    assert_downloaded(hub, "org/big", target, "model-00002-of-00003.safetensors")
    for name in ("model-00001-of-00003.safetensors", "model-00003-of-00003.safetensors"):
        assert_never_downloaded(hub, "org/big", target, name)
    assert_downloaded(hub, "org/equal", repos["org/equal"], "model.safetensors")  # Markov head
    assert f"(hf://org/big@{target.commit}/model-00002-of-00003.safetensors)" in out["notes"][0]
