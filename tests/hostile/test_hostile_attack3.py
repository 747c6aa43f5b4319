"""Round six's attacks through the real CLI, each a failure found before its fix: a layer
index no ``int`` takes (``layers.²``, ``str.isdigit`` says yes) or one of 5000 digits
(over ``int``'s 4300-digit limit) in a drafter's or an MTP target's tensor names."""

from __future__ import annotations

import mtp_targets as MT
import pytest
import synth
from conftest import cli_subprocess
from synth import T

# an index ``str.isdigit`` takes that ``int`` refuses or that is past its digit limit,
# an index no module tree has, and a digit of another script (``int`` reads it as 2)
ODD = {"super": "²", "5000_digits": "9" * 5000, "20_digits": "9" * 20, "arabic": "٢"}


def no_traceback(r) -> None:
    assert "Traceback" not in r.stderr, r.stderr[-800:]
    assert r.returncode in (0, 1), (r.returncode, r.stderr[-800:])


@pytest.mark.parametrize("index", ODD.values(), ids=ODD.keys())
def test_a_drafter_layer_index_no_int_takes_is_an_unexpected_name(tmp_path, index):
    name = f"layers.{index}.input_layernorm.weight"
    d = synth.drafter(tmp_path / "d", vocab=100, draft=100, tensors={name: T("F32", (8,))})
    for fmt in ("table", "json"):
        r = cli_subprocess("inspect", d, "--target-vocab-size", "100", "--format", fmt)
        no_traceback(r)
        assert r.returncode == 1 and "DSC112" in r.stdout  # a name the runtime's model lacks


@pytest.mark.parametrize("family", ["deepseek_v3", "qwen3_next", "deepseek_v4", "mimo"])
@pytest.mark.parametrize("index", ODD.values(), ids=ODD.keys())
def test_an_mtp_layer_index_no_int_takes_is_no_crash(tmp_path, family, index):
    parent = {"deepseek_v3": "model.layers", "qwen3_next": "mtp.layers", "deepseek_v4": "mtp"}
    parent = parent.get(family, "model.mtp_layers")
    t = MT.write(tmp_path / "t", family, extra={f"{parent}.{index}.enorm.weight": (MT.H,)})
    for fmt in ("table", "json", "sarif"):
        r = cli_subprocess("inspect", t, "--mtp", "--format", fmt)
        no_traceback(r)
        assert r.returncode == 0, r.stdout[-800:]  # no runtime builds it: never loaded


@pytest.mark.parametrize("value", ["x", 0, True, 2**40, [4]])
def test_an_mtp_targets_hidden_size_no_model_is_built_from_is_one_line(tmp_path, value):
    """The draft layers' shapes are judged by the target's hidden_size: one the runtime cannot
    build a model from is an error naming config.json (it passed, every shape unchecked)."""
    t = MT.write(tmp_path / "t", "deepseek_v3", config={"hidden_size": value})
    r = cli_subprocess("inspect", t, "--mtp")
    no_traceback(r)
    assert r.returncode == 1 and "hidden_size must be an integer" in r.stderr + r.stdout
    assert "config.json" in r.stderr + r.stdout
