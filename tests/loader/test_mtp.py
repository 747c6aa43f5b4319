"""dspark_ckpt/loader/mtp.py: the draft layers an MTP runtime builds against what a target
stores, on target checkpoints written with each family's names (fixtures/mtp_targets.py),
each limit on both sides."""

from __future__ import annotations

import mtp_targets as MT  # fixtures/, on sys.path through tests/conftest.py
import pytest

from dspark_ckpt.facts.mtp import read_mtp_target
from dspark_ckpt.loader.mtp import Count, mtp_model, resolve_count
from dspark_ckpt.profiles.mtp import LOADERS

BY_NAME = {x.name: x for x in LOADERS}
N = MT.N  # DeepSeek's first MTP layer is model.layers.N
LAYER = MT.FAMILIES["deepseek_v3"][1]


def model(tmp_path, family, loader, **kw):
    return mtp_model(read_mtp_target(MT.write(tmp_path / "t", family, **kw)), BY_NAME[loader])


@pytest.mark.parametrize(
    "extra,beyond",
    [
        ({}, ()),
        # the first index past the one layer built, and one further: both past the count
        ({f"model.layers.{N + 1}.enorm.weight": (MT.H,)}, (N + 1,)),
        ({f"model.layers.{N + 3}.enorm.weight": (MT.H,)}, (N + 3,)),
        # an index sorting between N+1 and N+2 as text ("10" < "2"): each index once, in order
        (
            {
                f"model.layers.{N + 8}.enorm.weight": (MT.H,),
                f"model.layers.{N + 8}.hnorm.weight": (MT.H,),
                f"model.layers.{N + 1}.enorm.weight": (MT.H,),
            },
            (N + 1, N + 8),
        ),
        # a name under the layer block that is no layer index is no layer past the count
        ({"model.layers.norm.weight": (MT.H,)}, ()),
    ],
    ids=["none", "next-index", "a-gap-then-one", "two-each-once", "no-index"],
)
def test_the_layers_stored_past_the_count(tmp_path, extra, beyond):
    m = model(tmp_path, "deepseek_v3", "vllm-mtp-deepseek", extra=extra)
    assert m.layers == (N,)
    assert m.beyond == beyond


def test_a_second_layer_declared_is_built_not_beyond(tmp_path):
    second = {f"model.layers.{N + 1}.{k[len(f'model.layers.{N}.') :]}": v for k, v in LAYER.items()}
    m = model(
        tmp_path,
        "deepseek_v3",
        "vllm-mtp-deepseek",
        config={"num_nextn_predict_layers": 2},
        extra=second,
    )
    assert (m.layers, m.missing_layers, m.beyond) == ((N, N + 1), (), ())


@pytest.mark.parametrize(
    ("declared", "value"), [(0, 0), (1, 1), (2, 2), (-1, None), ("1", None), (True, 1)]
)
def test_a_declared_layer_count_is_taken_from_0_up(tmp_path, declared, value):
    """0 is a count (no draft layer: DSC801 says so), a negative or a string is none."""
    t = read_mtp_target(
        MT.write(tmp_path / "t", "deepseek_v3", config={"num_nextn_predict_layers": declared})
    )
    got = resolve_count(t, BY_NAME["vllm-mtp-deepseek"])
    assert (got.value, got.key, got.declared) == (value, "num_nextn_predict_layers", declared)


def test_no_count_key_and_no_default_names_the_first_key_or_count(tmp_path):
    t = read_mtp_target(
        MT.write(tmp_path / "t", "ernie", config={"num_nextn_predict_layers": None})
    )
    x = BY_NAME["vllm-mtp-ernie"]
    assert resolve_count(t, x) == Count(None, x.count_keys[0])
