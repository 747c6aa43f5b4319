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


def test_a_count_read_from_the_top_level_ignores_one_only_in_text_config(tmp_path):
    """A loader reading ``getattr(hf_config, key)`` (count_in_text false) does not see a
    count the text config alone sets: its default; one reading the text config sees it."""
    cfg = {"text.num_nextn_predict_layers": 2}
    t = read_mtp_target(MT.write(tmp_path / "t", "qwen3_5", config=cfg))
    x = BY_NAME["vllm-mtp-deepseek"]
    assert not x.count_in_text and "num_nextn_predict_layers" in x.count_keys
    assert resolve_count(t, x) == Count(1, "default")
    reads_text = BY_NAME["vllm-mtp-qwen3.5"]
    assert reads_text.count_in_text and reads_text.count_fixed is None
    key = reads_text.count_keys[0]
    t = read_mtp_target(MT.write(tmp_path / "u", "qwen3_5", config={f"text.{key}": 2}))
    assert resolve_count(t, reads_text) == Count(2, f"text_config.{key}", 2)


@pytest.mark.parametrize(("pattern", "per_step"), [("*E", 2), ("*", 1), ("", None), (["*"], None)])
def test_the_layers_per_step_are_the_length_of_a_nonempty_pattern(tmp_path, pattern, per_step):
    t = read_mtp_target(
        MT.write(tmp_path / "t", "nemotron_h", config={"mtp_hybrid_override_pattern": pattern})
    )
    assert mtp_model(t, BY_NAME["vllm-mtp-nemotron-h"]).per_step == per_step


@pytest.mark.parametrize(
    ("family", "loader"),
    [("deepseek_v3", "vllm-mtp-deepseek"), ("deepseek_v4", "vllm-mtp-deepseek-v4")],
)
@pytest.mark.parametrize("unset", ["hidden_size", "vocab_size", "hc_mult"])
def test_a_size_the_config_lacks_leaves_the_shapes_it_spans_unjudged(
    tmp_path, family, loader, unset
):
    """A module whose shape needs a size the config does not set is not shape-checked (no
    misshapen entry naming None, no crash); the others still are (a wrong enorm is)."""
    enorm = next(k for k in MT.FAMILIES[family][1] if k.endswith("enorm.weight"))
    m = model(tmp_path, family, loader, config={unset: None}, shapes={enorm: (MT.H + 1,)})
    assert all(None not in want for _, _, want in m.misshapen)
    judged = [name for name, _, _ in m.misshapen]
    assert judged == ([] if unset == "hidden_size" else [enorm])


def test_a_packed_weight_is_shape_checked_only_where_the_model_builds_it_dense(tmp_path):
    """An int32-packed eh_proj of another logical shape is the quantised linear's to judge
    (not misshapen); the same shape in BF16 is misshapen."""
    eh = f"model.layers.{N}.eh_proj.weight"
    wrong = {eh: (MT.H, MT.H)}
    packed = model(tmp_path / "a", "deepseek_v3", "vllm-mtp-deepseek", shapes=wrong, dtype="I32")
    assert packed.misshapen == ()
    dense = model(tmp_path / "b", "deepseek_v3", "vllm-mtp-deepseek", shapes=wrong)
    assert dense.misshapen == ((eh, (MT.H, MT.H), (MT.H, 2 * MT.H)),)


def test_a_norm_is_its_weight_and_a_linear_any_tensor_under_it(tmp_path):
    """A norm (a 1-D shape) is stored only as its exact .weight (a bias alone is missing);
    a linear is stored by any tensor under it (a quantised qweight alone is stored)."""
    p = f"model.layers.{N}."
    m = model(
        tmp_path,
        "deepseek_v3",
        "vllm-mtp-deepseek",
        drop=(f"{p}enorm.weight", f"{p}eh_proj.weight"),
        extra={f"{p}enorm.bias": (MT.H,), f"{p}eh_proj.qweight": (MT.H, MT.H // 4)},
    )
    assert m.missing == (f"{p}enorm.weight",)


def test_a_missing_module_of_no_shape_is_named_without_weight(tmp_path):
    p = f"model.layers.{N}."
    m = model(tmp_path, "deepseek_v3", "vllm-mtp-deepseek", drop=(f"{p}self_attn.",))
    assert m.missing == (f"{p}self_attn",)


@pytest.mark.parametrize(("declared", "too_many"), [(4096, False), (4097, True)])
def test_a_count_up_to_the_walked_limit_is_walked(tmp_path, declared, too_many):
    """MAX_WALKED (4096) layers are walked; one more is too many (not walked)."""
    m = model(
        tmp_path, "deepseek_v3", "vllm-mtp-deepseek", config={"num_nextn_predict_layers": declared}
    )
    assert (m.too_many, len(m.layers)) == (too_many, 4096)
