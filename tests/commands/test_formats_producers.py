"""``fix --to`` against the producers' own conversions on the same input
(fixtures/producer_conversions.py, run once in its own process): speculators 0.9.0's
``Eagle3Converter`` and ``DFlashConverter``, and SpecForge 0.2.0's ``export_to_sglang`` / ``export_to_hf``. Every
tensor's name, dtype, shape and bytes must be the producer's; the config's parsed JSON too,
but for the keys transformers' serialisation writes (``transformers_version``) and
``auto_map``, which names the ``config.py`` speculators copies beside it (not written)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import FIXTURES, cli
from rules.test_producers import _require_producers
from test_formats import raw

pytestmark = pytest.mark.slow
SERIALISATION = ("transformers_version", "auto_map")


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    _require_producers()
    out = tmp_path_factory.mktemp("conversions")
    p = subprocess.run(
        [sys.executable, str(FIXTURES / "producer_conversions.py"), str(out)],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert p.returncode == 0, p.stderr[-4000:]
    return out


def config(folder, drop=()) -> dict:
    cfg = json.loads((folder / "config.json").read_text())
    return {k: v for k, v in cfg.items() if k not in drop}


def fix_to(src, to, out, target, *more):
    r = cli("fix", src, "--target", target, "--to", to, "--out", out, *more)
    assert r.exit_code == 0, r.stdout + r.stderr
    return out


def test_to_speculators_writes_what_speculators_converter_writes(made, tmp_path):
    ours = fix_to(made / "native", "speculators", tmp_path / "ours", made / "target")
    theirs = made / "speculators"
    assert raw(ours) == raw(theirs)
    assert config(ours) == config(theirs, SERIALISATION)


def test_dflash_to_speculators_writes_what_speculators_converter_writes(made, tmp_path):
    ours = fix_to(made / "dflash-native", "speculators", tmp_path / "ours", made / "target")
    theirs = made / "dflash-speculators"
    assert raw(ours) == raw(theirs)
    assert config(ours) == config(theirs, SERIALISATION)
    back = fix_to(ours, "native", tmp_path / "back", made / "target")
    src = (made / "dflash-native" / "model.safetensors").read_bytes()
    assert (back / "model.safetensors").read_bytes() == src


def test_the_producers_native_file_comes_back_byte_for_byte(made, tmp_path):
    """native -> speculators -> native: the weights file safetensors' own writer wrote is
    the one written back; then native -> speculators -> native again changes no byte."""
    s1 = fix_to(made / "native", "speculators", tmp_path / "s1", made / "target")
    n1 = fix_to(s1, "native", tmp_path / "n1", made / "target")
    src = (made / "native" / "model.safetensors").read_bytes()
    assert (n1 / "model.safetensors").read_bytes() == src
    s2 = fix_to(n1, "speculators", tmp_path / "s2", made / "target")
    n2 = fix_to(s2, "native", tmp_path / "n2", made / "target")
    for a, b in ((s1, s2), (n1, n2)):
        assert {p.name: p.read_bytes() for p in a.iterdir()} == {
            p.name: p.read_bytes() for p in b.iterdir()
        }


def test_to_sglang_and_to_hf_write_what_specforge_exports(made, tmp_path):
    target, hf, sglang = made / "target", made / "specforge-hf", made / "specforge-sglang"
    ours = fix_to(hf, "sglang", tmp_path / "sglang", target, "--profile", "sglang-eagle3")
    assert raw(ours) == raw(sglang)
    assert config(ours) == config(sglang)
    ours = fix_to(sglang, "hf", tmp_path / "hf", target, "--profile", "sglang-eagle3")
    assert raw(ours) == raw(hf)
    assert config(ours) == config(hf)


def test_a_specforge_training_checkpoint_exports_as_specforge_exports_it(made, tmp_path):
    """SpecForge's training layout (training_state.pt, its draft config beside it as
    config.json): read without running the pickle, written as each exporter writes it."""
    train = tmp_path / "run-step1"
    train.mkdir()
    (train / "training_state.pt").write_bytes((made / "run-step1/training_state.pt").read_bytes())
    (train / "config.json").write_bytes((made / "draft_config.json").read_bytes())
    for to in ("sglang", "hf"):
        ours = fix_to(train, to, tmp_path / to, made / "target", "--profile", "sglang-eagle3")
        theirs = made / f"specforge-{to}"
        assert raw(ours) == raw(theirs)
        assert config(ours) == config(theirs)
