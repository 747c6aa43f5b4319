"""Whole-file Hub downloads and Hub messages, against hostile loopback Hubs.

Every Hub file, a header's byte range or a whole file (``verify``'s shard, ``fix
--out``'s copy, a tokenizer file), comes through one bounded downloader: the whole
answer within ``HF_HUB_DOWNLOAD_TIMEOUT`` seconds per MiB, never more bytes than the
file may have (refused on the announced size before a byte is read), a compressed
answer never inflating past a cap, a body that differs from the size the Hub announced
refused. Tokenizer files that cannot be downloaded are DSC712 ("not checked"), as for a
local file that cannot be read. Credentials in ``HF_ENDPOINT`` never reach a message.

The real CLI as a process against tests/hubserver.py; ``HF_HUB_DOWNLOAD_TIMEOUT=1`` so a
deadline costs a second.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import FIXTURES, ROOT, cli_subprocess
from hubserver import Hostile, HubServer, closed_port, hub_env, repo_from_dir

TARGET = FIXTURES / "targets/small"
TOKENIZER = FIXTURES / "target-contract/tokenizers/target"
pytestmark = pytest.mark.slow  # a loopback Hub and a CLI process each

FAST = {"HF_HUB_DOWNLOAD_TIMEOUT": "1"}
SECRET = "PASSWORD-7f3e"
GIB = 1 << 30


def one_line(r) -> str:
    assert "Traceback" not in r.stderr, r.stderr
    assert r.stderr.count("\n") == 1, r.stderr
    return r.stderr


def big_cache_files(tmp_path: Path) -> list[Path]:
    """Files over 1 MiB anywhere in the test's Hub cache (a partial download too)."""
    cache = tmp_path / "hf-cache"
    return [p for p in cache.rglob("*") if p.is_file() and p.stat().st_size > 1 << 20]


def with_tokenizer(folder: Path, dest: Path) -> Path:
    shutil.copytree(folder, dest)
    for f in TOKENIZER.iterdir():
        shutil.copy(f, dest / f.name)
    return dest


def run(tmp_path: Path, hub: HubServer | str, *args, env=None, timeout=30):
    url = hub if isinstance(hub, str) else hub.url
    start = time.monotonic()
    r = cli_subprocess(
        *args, env=hub_env(tmp_path, url, **{**FAST, **(env or {})}), cwd=tmp_path, timeout=timeout
    )
    return r, time.monotonic() - start


# --- items 5, 6, 8: a Hub target's tokenizer files --------------------------------------


def tokenizer_repos(tmp_path: Path) -> tuple[Path, dict]:
    """A local drafter and a Hub target (org/small), both with the same tokenizer files."""
    drafter = with_tokenizer(FIXTURES / "padded", tmp_path / "drafter")
    target = with_tokenizer(TARGET, tmp_path / "target")
    return drafter, {"org/small": repo_from_dir(target)}


def dsc712(out: dict) -> str:
    [f] = [f for f in out["findings"] if f["code"] == "DSC712"]
    return f["message"]


TOKENIZER_JSON_SIZE = (TOKENIZER / "tokenizer.json").stat().st_size

HOSTILE_TOKENIZERS = {
    "http-500": (Hostile(status={"tokenizer.json": 500}), "answered HTTP 500"),
    "http-404": (Hostile(status={"tokenizer.json": 404}), "answered HTTP 404"),
    "file-scheme": (
        Hostile(redirects={"tokenizer.json": "file:///etc/passwd"}),
        "redirected it to a file:// URL, which is not followed",
    ),
    "redirect-loop": (Hostile(redirects={"tokenizer.json": ""}), "redirects in a loop"),
    "size-differs": (
        Hostile(resize={"tokenizer.json": TOKENIZER_JSON_SIZE + 7}),
        f"the Hub announced {TOKENIZER_JSON_SIZE + 7} bytes and sent {TOKENIZER_JSON_SIZE}",
    ),
    "cut-short": (
        Hostile(truncate={"tokenizer.json": 100}),
        f"the answer ended after 100 of its {TOKENIZER_JSON_SIZE} bytes",
    ),
    "announced-1.5GiB": (
        Hostile(huge={"tokenizer.json": 3 * GIB // 2}),
        "is too large to be a tokenizer file",
    ),
    "gzip-bomb-2GiB": (
        Hostile(gzip={"tokenizer.json": 2 * GIB}),
        "compressed answer inflates more than 100-fold",
    ),
    "drip": (Hostile(drip_whole="tokenizer.json"), "sends its answer too slowly"),
}


@pytest.mark.parametrize("mode", list(HOSTILE_TOKENIZERS), ids=list(HOSTILE_TOKENIZERS))
def test_a_hub_tokenizer_that_cannot_be_downloaded_is_dsc712(tmp_path, mode):
    """docs/target.md: a tokenizer file that cannot be read is DSC712, "not checked". On
    the Hub that is any download that fails: an error status, a redirect loop or to
    another scheme, a body of another size than announced, over the 1 GiB cap announced
    (refused before the body) or inflated (a 2 MB gzip body of 2 GiB), dripped. Never a
    traceback, never exit 2, quickly, and nothing big left in the Hub cache."""
    hostile, reason = HOSTILE_TOKENIZERS[mode]
    drafter, repos = tokenizer_repos(tmp_path)
    with HubServer(repos, hostile) as hub:
        r, took = run(
            tmp_path, hub, "inspect", drafter, "--target", "hf://org/small", "--format", "json"
        )
        assert hub.requests("org/small", "tokenizer.json")
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    message = dsc712(json.loads(r.stdout))
    commit = repos["org/small"].commit
    assert f"hf://org/small@{commit}/tokenizer.json" in message, message
    assert reason in message, message
    assert "cannot reach" not in message
    assert took < 10, took
    assert big_cache_files(tmp_path) == []
    assert list((tmp_path / "hf-cache").rglob("*.incomplete")) == []  # no partial blob


def test_a_healthy_hub_tokenizer_is_compared_and_cached(tmp_path):
    """The same setup with a Hub that behaves: compared (same), no DSC712, and the files
    land in the Hub cache under their commit, where an offline run finds them."""
    drafter, repos = tokenizer_repos(tmp_path)
    with HubServer(repos) as hub:
        r, _ = run(
            tmp_path, hub, "inspect", drafter, "--target", "hf://org/small", "--format", "json"
        )
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert [f["code"] for f in out["findings"]] == ["DSC401"]
    [tok] = [c for c in out["target_checks"] if c["check"] == "tokenizer"]
    assert tok["result"] == "same"
    commit = repos["org/small"].commit
    snap = tmp_path / "hf-cache/models--org--small/snapshots" / commit
    assert (snap / "tokenizer.json").read_bytes() == (TOKENIZER / "tokenizer.json").read_bytes()
    assert (snap / "tokenizer.json").is_symlink()  # the huggingface_hub layout: blob + link
    assert not [p for p in snap.parent.parent.rglob("*") if ".tmp" in p.name]


# --- items 5, 6, 8: verify's and fix --out's whole-file downloads ------------------------


def shard_repos() -> dict:
    return {"org/sharded": repo_from_dir(FIXTURES / "sharded")}


HEAD_SHARD = "model-00001-of-00003.safetensors"  # holds lm_head.weight


def shard_size() -> int:
    return (FIXTURES / "sharded" / HEAD_SHARD).stat().st_size


HOSTILE_SHARDS = {
    "drip": (Hostile(drip_whole=HEAD_SHARD), "sends its answer too slowly"),
    "size-differs": (
        Hostile(resize={HEAD_SHARD: shard_size() + 1}),
        f"is {shard_size() + 1} bytes, not the {shard_size()} its header read said",
    ),
    # the shard may be 4792 bytes: that cap stops the inflating body before the
    # decompression cap does (a tokenizer file's 1 GiB cap does not, above)
    "gzip-bomb-2GiB": (
        Hostile(gzip={HEAD_SHARD: 2 * GIB}),
        f"is over the {shard_size()} bytes its header read said",
    ),
    "redirect-loop": (Hostile(redirects={HEAD_SHARD: ""}), "redirects in a loop"),
}


def only_other_shards_cached(tmp_path) -> bool:
    """The Hub cache holds no part of the head's shard: no partial blob, no link to it, and
    a blob for each complete file verify also read (the Markov head's shard), none more."""
    cache = tmp_path / "hf-cache"
    files = [p for p in cache.rglob("*") if not p.is_dir()]
    links = [p for p in files if "snapshots" in p.parts]
    blobs = [p for p in files if "blobs" in p.parts]
    partial = [p for p in files if p.name.endswith(".incomplete")]
    return not partial and HEAD_SHARD not in {p.name for p in links} and len(blobs) == len(links)


@pytest.mark.parametrize("mode", list(HOSTILE_SHARDS), ids=list(HOSTILE_SHARDS))
def test_verify_whole_file_download_is_bounded(tmp_path, mode):
    """verify downloads the shard holding lm_head whole. Its headers come at once; the
    whole-file GET drips at 4 bytes/s, sends another size than announced, or a gzip bomb:
    one line naming the Hub file, within seconds, nothing big left in the cache. (A byte
    every 0.25 s would take an hour for this 13 KB shard without a whole-answer deadline.)"""
    hostile, reason = HOSTILE_SHARDS[mode]
    repos = shard_repos()
    with HubServer(repos, hostile) as hub:
        r, _ = run(tmp_path, hub, "verify", "org/sharded", "--target", TARGET, timeout=60)
        # the server sees the hang-up at its next byte (0.25 s on), maybe after the
        # client's process has ended: wait for it a moment
        waited = time.monotonic() + 2
        while mode == "drip" and not hub.drips and time.monotonic() < waited:
            time.sleep(0.05)
        drips = list(hub.drips)
    line = one_line(r)
    assert r.returncode in (1, 2), line
    commit = repos["org/sharded"].commit
    assert f"org/sharded@{commit}/{HEAD_SHARD}" in line, line
    assert reason in line, line
    if mode == "drip":  # the client hung up on the dripping answer after about 1 s
        assert len(drips) == 1 and drips[0] < 5, drips
    assert big_cache_files(tmp_path) == []
    assert only_other_shards_cached(tmp_path)


def test_a_shard_over_its_header_read_size_is_refused_before_download(tmp_path):
    """The header read from the Hub gave the file's size: a whole-file answer announcing
    another is refused before a byte of its body is read (the range reads of its header
    are answered from the real file)."""
    repos = shard_repos()
    with HubServer(repos, Hostile(huge={HEAD_SHARD: 3 * GIB // 2})) as hub:
        r, _ = run(tmp_path, hub, "verify", "org/sharded", "--target", TARGET, timeout=60)
    line = one_line(r)
    assert r.returncode in (1, 2)
    assert f"is {3 * GIB // 2} bytes, not the {shard_size()} its header read said" in line, line
    assert HEAD_SHARD in line, line
    assert big_cache_files(tmp_path) == []


def test_sigterm_mid_download_leaves_no_partial_file_in_the_cache(tmp_path):
    """A whole-file download dripping under a long deadline, ended by SIGTERM: the usual
    exit, and no partial blob (``.incomplete``) or link left in the Hub cache."""
    repos = shard_repos()
    with HubServer(repos, Hostile(drip_whole=HEAD_SHARD)) as hub:
        env = {
            **os.environ,
            "PYTHONPATH": str(ROOT),
            **hub_env(tmp_path, hub.url, HF_HUB_DOWNLOAD_TIMEOUT="60"),
        }
        proc = subprocess.Popen(
            [sys.executable, "-m", "dspark_ckpt", "verify", "org/sharded", "--target", TARGET],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            deadline = time.monotonic() + 60
            while not list((tmp_path / "hf-cache").rglob("*.incomplete")):
                assert proc.poll() is None and time.monotonic() < deadline, proc.poll()
                time.sleep(0.05)
            time.sleep(0.5)  # some bytes of it are written
            proc.send_signal(signal.SIGTERM)
            _, err = proc.communicate(timeout=20)
        finally:
            proc.kill()
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert "Traceback" not in err
    assert only_other_shards_cached(tmp_path)


def test_fix_out_downloads_then_an_offline_run_finds_the_cache(tmp_path):
    """fix --out downloads every file through the bounded downloader into the Hub cache
    layout; afterwards HF_HUB_OFFLINE=1 reads the same commit from that cache."""
    repos = shard_repos()
    commit = repos["org/sharded"].commit
    with HubServer(repos) as hub:
        r, _ = run(
            tmp_path,
            hub,
            "fix",
            "org/sharded",
            "--target",
            TARGET,
            "--emit-mask",
            "--out",
            tmp_path / "out",
        )
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "out" / "model.safetensors.index.json").is_file()
    r, _ = run(
        tmp_path,
        closed_port(),
        "inspect",
        f"org/sharded@{commit}",
        "--target",
        TARGET,
        env={"HF_HUB_OFFLINE": "1"},
    )
    assert r.returncode == 0, r.stderr


def test_whole_file_downloads_follow_a_cross_host_redirect(tmp_path):
    """The Hub sends files to a CDN on another host: whole-file downloads follow it, as
    the range reads do (huggingface_hub's own download refused that without the Hub's
    headers)."""
    repos = shard_repos()
    with HubServer(repos) as cdn, HubServer(repos, Hostile(redirect=cdn.url)) as hub:
        r, _ = run(
            tmp_path, hub, "fix", "org/sharded", "--target", TARGET, "--emit-mask",
            "--out", tmp_path / "out",
        )  # fmt: skip
        assert r.returncode == 0, r.stderr
        data = repos["org/sharded"].files[HEAD_SHARD]
        assert (0, len(data)) in cdn.data_reads("org/sharded", HEAD_SHARD)
    assert (tmp_path / "out" / HEAD_SHARD).read_bytes() == data


# --- item 8: settings that crashed -------------------------------------------------------


def test_a_huge_download_timeout_is_no_overflow(tmp_path):
    """HF_HUB_DOWNLOAD_TIMEOUT=9999999999 means "wait long", never an OverflowError."""
    drafter, repos = tokenizer_repos(tmp_path)
    repos["org/sharded"] = repo_from_dir(FIXTURES / "sharded")
    env = {"HF_HUB_DOWNLOAD_TIMEOUT": "9999999999"}
    with HubServer(repos) as hub:
        r, _ = run(tmp_path, hub, "inspect", drafter, "--target", "org/small", env=env)
        assert r.returncode == 0, r.stderr
        r, _ = run(tmp_path, hub, "verify", "org/sharded", "--target", TARGET, env=env)
        assert r.returncode == 0, r.stderr


def test_a_non_ascii_token_is_one_line_without_the_token(tmp_path):
    token = "hf_tökén_" + SECRET
    with HubServer({"org/padded": repo_from_dir(FIXTURES / "padded")}) as hub:
        r, _ = run(
            tmp_path, hub, "inspect", "org/padded", "--target", TARGET, env={"HF_TOKEN": token}
        )
    assert r.returncode == 2
    line = one_line(r)
    assert "HF_TOKEN" in line and "ASCII" in line, line
    assert SECRET not in line and "ö" not in line


# --- item 12: what happened, not "cannot reach the Hub" -----------------------------------

REDIRECTS = {
    "config-loop": ({"config.json": ""}, "redirects in a loop"),
    "config-file": (
        {"config.json": "file:///etc/passwd"},
        "redirected it to a file:// URL, which is not followed",
    ),
    "config-ftp": ({"config.json": "ftp://127.0.0.1/x"}, "to a ftp:// URL, which is not followed"),
    "model-info-loop": ({"api/models/org/padded": ""}, "redirects in a loop"),
}


@pytest.mark.parametrize("mode", list(REDIRECTS), ids=list(REDIRECTS))
def test_a_redirect_loop_or_a_refused_scheme_says_so(tmp_path, mode):
    redirects, said = REDIRECTS[mode]
    with HubServer({"org/padded": repo_from_dir(FIXTURES / "padded")}) as hub:
        hub.hostile.redirects = redirects
        r, took = run(tmp_path, hub, "inspect", "org/padded", "--target", TARGET)
    assert r.returncode == 2
    line = one_line(r)
    assert said in line and hub.url in line, line
    assert "cannot reach" not in line
    assert took < 10


# --- item 2: credentials in HF_ENDPOINT ---------------------------------------------------

CREDENTIAL_CASES = {
    "refused": (None, "cannot reach the Hub"),
    "http-500": (Hostile(status={"": 500}), "answered HTTP 500"),
    "timeout": (Hostile(silent=""), "timed out"),
    "malformed-model-info": (Hostile(model_info=b"[]"), "malformed model-info answer"),
    "redirect-loop": (Hostile(redirects={"config.json": ""}), "redirects in a loop"),
    "drip": (Hostile(drip="config.json"), "too slowly"),
}


def with_credentials(url: str) -> str:
    return url.replace("http://", f"http://user:{SECRET}@")


@pytest.mark.parametrize("mode", list(CREDENTIAL_CASES), ids=list(CREDENTIAL_CASES))
@pytest.mark.parametrize("fmt", ["text", "github"])
def test_credentials_in_hf_endpoint_are_never_printed(tmp_path, mode, fmt):
    """HF_ENDPOINT=http://user:PASSWORD@host: every Hub error names the Hub as
    http://***@host, in inspect's line and in check --format github's annotations."""
    hostile, said = CREDENTIAL_CASES[mode]
    (tmp_path / "dspark-ckpt.toml").write_text(
        f'[[pairs]]\ndrafter = "hf://org/padded"\ntarget = "{TARGET}"\n'
    )
    repos = {"org/padded": repo_from_dir(FIXTURES / "padded")}
    with HubServer(repos, hostile) as hub:
        url = closed_port() if hostile is None else hub.url
        endpoint = with_credentials(url)
        if fmt == "text":
            r, _ = run(tmp_path, endpoint, "inspect", "hf://org/padded", "--target", TARGET)
            assert r.returncode == 2
            line = one_line(r)
        else:
            r, _ = run(tmp_path, endpoint, "check", "--format", "github")
            assert r.returncode in (1, 2), r.stderr
            line = r.stdout + r.stderr
            assert "Traceback" not in line
    assert SECRET not in line, line
    assert said in line, line
    assert url.replace("http://", "http://***@") in line, line


def test_credentials_in_a_malformed_hf_endpoint_are_never_printed(tmp_path):
    for endpoint in (f"http://user:{SECRET}@256.1.1.1", f"http://user:{SECRET}@[::1"):
        r, _ = run(tmp_path, endpoint, "inspect", "hf://org/padded", "--target", TARGET)
        assert r.returncode == 2
        line = one_line(r)
        assert SECRET not in line and "HF_ENDPOINT" in line and "***" in line, line
