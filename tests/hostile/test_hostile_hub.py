"""A hostile Hub: servers that never answer, drip, send endless or huge bodies, answer
model-info with something else, redirect to another origin; and malformed settings.

Each runs the real CLI as a process against the loopback Hub (tests/hubserver.py) in a
hostile mode, with ``HF_HUB_DOWNLOAD_TIMEOUT=1`` so a timeout costs a second: the
command must end on its own, quickly, with one line on stderr and no traceback.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import FIXTURES, ROOT, cli_subprocess
from hubserver import Hostile, HubServer, closed_port, hub_env, repo_from_dir

TARGET = FIXTURES / "targets/small"
# each test starts a loopback Hub and a CLI process that reads its settings at start-up
pytestmark = pytest.mark.slow

FAST = {"HF_HUB_DOWNLOAD_TIMEOUT": "1", "HF_HUB_ETAG_TIMEOUT": "1"}


def repos(name: str = "padded") -> dict:
    return {f"org/{name}": repo_from_dir(FIXTURES / name), "org/small": repo_from_dir(TARGET)}


def inspect_hub(tmp_path: Path, hub: HubServer, drafter: str = "org/padded", **env):
    start = time.monotonic()
    r = cli_subprocess(
        "inspect",
        drafter,
        "--target",
        TARGET,
        env=hub_env(tmp_path, hub.url, **{**FAST, **env}),
        timeout=30,
    )
    return r, time.monotonic() - start


def one_line(r) -> str:
    assert "Traceback" not in r.stderr, r.stderr
    assert r.stderr.count("\n") == 1, r.stderr
    return r.stderr


def cache_files(tmp_path: Path) -> list[Path]:
    return [p for p in (tmp_path / "hf-cache").rglob("*") if p.is_file()]


# --- 6: timeouts --------------------------------------------------------------------


def test_a_hub_that_never_answers_times_out(tmp_path):
    with HubServer(repos(), Hostile(silent="")) as hub:
        r, took = inspect_hub(tmp_path, hub)
    assert r.returncode == 2
    assert "timed out" in one_line(r) and hub.url in r.stderr
    assert "HF_HUB_DOWNLOAD_TIMEOUT" in r.stderr
    assert took < 10


def test_a_hub_that_drips_is_cut_off(tmp_path):
    """A byte every 0.25 s never trips the 1 s read timeout, even on a loaded machine: the
    whole answer has a deadline."""
    with HubServer(repos(), Hostile(drip="")) as hub:
        r, took = inspect_hub(tmp_path, hub)
    assert r.returncode == 2
    assert "too slowly" in one_line(r)
    assert took < 10


def test_a_drip_on_a_header_read_is_cut_off(tmp_path):
    """Listing and config come at once; the range reads of the weights drip."""
    with HubServer(repos(), Hostile(drip=".safetensors")) as hub:
        r, took = inspect_hub(tmp_path, hub)
    assert r.returncode == 2
    assert "too slowly" in one_line(r) and "model.safetensors" in r.stderr
    assert took < 10


@pytest.mark.parametrize(
    ("stuck", "silent"), [("worker", ".safetensors"), ("main", "")], ids=["worker", "main"]
)
def test_sigterm_ends_a_header_read_stuck_in_a_worker_thread(tmp_path, stuck, silent):
    """The shards' range requests never get an answer, in the header-reading threads (or
    model-info, in the main thread); with a long timeout, SIGTERM must still end the
    process within a second."""
    with HubServer(repos("sharded"), Hostile(silent=silent)) as hub:
        env = {
            **os.environ,
            "PYTHONPATH": str(ROOT),
            **hub_env(tmp_path, hub.url, HF_HUB_DOWNLOAD_TIMEOUT="60"),
        }
        proc = subprocess.Popen(
            [sys.executable, "-m", "dspark_ckpt", "inspect", "org/sharded", "--target", TARGET],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            deadline = time.monotonic() + 20
            while not any(s.path.endswith(silent) for s in hub.log):
                assert proc.poll() is None and time.monotonic() < deadline, proc.poll()
                time.sleep(0.05)
            time.sleep(0.3)  # the reads are waiting
            sent = time.monotonic()
            proc.send_signal(signal.SIGTERM)
            _, err = proc.communicate(timeout=10)
            took = time.monotonic() - sent
        finally:
            proc.kill()
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert err == "dspark-ckpt: terminated; nothing written\n"
    assert took < 1.0, took


# --- 7, 8: byte caps ------------------------------------------------------------------


def test_an_endless_range_answer_is_capped(tmp_path):
    with HubServer(repos(), Hostile(endless_range=True)) as hub:
        r, took = inspect_hub(tmp_path, hub, HF_HUB_DOWNLOAD_TIMEOUT="30")
    assert r.returncode == 1
    line = one_line(r)
    assert "/model.safetensors: the Hub sent more than the 8 bytes asked for" in line
    assert took < 10


def test_a_huge_config_is_refused_before_it_is_downloaded(tmp_path):
    big = 2 << 30
    with HubServer(repos(), Hostile(huge={"config.json": big})) as hub:
        r, took = inspect_hub(tmp_path, hub, HF_HUB_DOWNLOAD_TIMEOUT="30")
    assert r.returncode == 1
    assert f"config.json: config is {big} bytes, over the 16000000 limit" in one_line(r)
    assert took < 10
    assert cache_files(tmp_path) == []  # nothing of it left in the Hub cache


def test_a_huge_config_sent_without_its_length_is_capped(tmp_path):
    """A server that does not say how big the file is: the stream is cut at the limit."""
    with HubServer(repos(), Hostile(huge={"config.json": 2 << 30}, unsized=True)) as hub:
        r, took = inspect_hub(tmp_path, hub, HF_HUB_DOWNLOAD_TIMEOUT="30")
    assert r.returncode == 1
    assert "config.json: config is over the 16000000-byte limit" in one_line(r)
    assert took < 20


# --- 14: answers that are not what the Hub API promises; malformed settings ----------


@pytest.mark.parametrize(
    "body",
    [
        b"<html><body>Please log in to the Wi-Fi</body></html>",
        b"[]",
        b"{}",
        b'{"sha": "../../etc", "siblings": []}',
        b'{"sha": "' + b"a" * 40 + b'", "siblings": {}}',
        b'{"sha": "' + b"a" * 40 + b'", "siblings": [{"rfilename": 3}]}',
    ],
    ids=["html", "list", "empty", "bad-sha", "siblings-object", "rfilename-int"],
)
def test_a_model_info_answer_that_is_not_model_info(tmp_path, body):
    with HubServer(repos(), Hostile(model_info=body)) as hub:
        r, _ = inspect_hub(tmp_path, hub)
    assert r.returncode == 2
    assert f"the Hub at {hub.url} sent a malformed model-info answer" in one_line(r)


@pytest.mark.parametrize(
    "env",
    [
        {"HF_ENDPOINT": "http://256.1.1.1"},
        {"HF_ENDPOINT": "http://[::1"},
        {"HF_ENDPOINT": "not a url"},
        {"HF_ENDPOINT": "ftp://127.0.0.1"},
        {"HF_HUB_DOWNLOAD_TIMEOUT": "soon"},
    ],
    ids=["bad-ip", "bad-ipv6", "no-scheme", "ftp", "bad-timeout"],
)
def test_malformed_hub_settings_are_one_line(tmp_path, env):
    full = {**hub_env(tmp_path, "http://127.0.0.1:9"), **env}
    r = cli_subprocess("inspect", "hf://org/padded", "--target", TARGET, env=full, timeout=30)
    assert r.returncode == 2
    line = one_line(r)
    assert line.startswith("dspark-ckpt: error: ")
    assert next(iter(env)) in line or "cannot reach the Hub" in line, line


# --- 21: a cross-host redirect is followed, and its failures say what happened ---------


def test_a_cross_host_redirect_is_followed(tmp_path):
    """The Hub sends files to a CDN on another host: reads follow it."""
    with HubServer(repos()) as cdn, HubServer(repos(), Hostile(redirect=cdn.url)) as hub:
        r, _ = inspect_hub(tmp_path, hub)
        assert r.returncode == 0, r.stderr
        assert cdn.data_reads("org/padded", "model.safetensors")


def test_a_failed_download_online_never_claims_offline_mode(tmp_path):
    """fix --out downloads whole files; the Hub redirects them to a CDN that is down: the
    error says where it could not reach, not that HF_HUB_OFFLINE is set (it is not)."""
    cdn = closed_port()
    with HubServer(repos(), Hostile(redirect=cdn)) as hub:
        env = hub_env(tmp_path, hub.url, **FAST)
        r = cli_subprocess(
            "fix",
            "org/padded",
            "--target",
            TARGET,
            "--emit-mask",
            "--out",
            tmp_path / "out",
            env=env,
        )
    line = one_line(r)
    assert r.returncode == 2
    assert "HF_HUB_OFFLINE" not in line
    assert "config.json" in line and hub.url in line
    assert f"cannot reach {cdn}, where the Hub at {hub.url} redirected" in line
    assert not (tmp_path / "out").exists()
