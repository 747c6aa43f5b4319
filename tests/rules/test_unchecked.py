"""What was not checked is said (rules/unchecked.py): the checks a target folder without
weights, or a bare --target-vocab-size, leaves undecided are listed with why, for this
drafter under the evaluated profiles; a target that gives every fact leaves none.
Judged by the engine in-process on real safetensors files."""

from __future__ import annotations

import pytest
from rules_harness import EAGLE3, Tgt, head
from synth import VT, markov

from dspark_ckpt.profiles.registry import get_profile
from dspark_ckpt.rules.unchecked import NO_WEIGHTS, VOCAB_ONLY_ET, VOCAB_ONLY_MODEL

PADDED = {"embed_tokens.weight": head(128), "lm_head.weight": head(128), **markov(128, 128)}
CONFIG_ONLY = Tgt.of(hidden_size=8, num_hidden_layers=4)  # no weights: Et unknown
WITH_WEIGHTS = Tgt.of(embed_rows=128, hidden_size=8, num_hidden_layers=4)


def skipped(report) -> dict[str, tuple[str, tuple[str, ...]]]:
    return {n.code: (n.reason, n.profiles) for n in report.not_checked}


def test_a_padded_drafter_against_a_target_without_weights_is_partial(bench):
    r = bench.case(tensors=PADDED, target=CONFIG_ONLY, vocab=128, draft=128, profile="vllm")
    found = skipped(r)
    assert found["DSC207"] == (NO_WEIGHTS, ())  # Vd > Et could not be asked
    # its rule alone: SGLang's and both TensorRT-LLM DSpark routes' (the Markov bias [V] meets
    # the target head's logits)
    assert found["DSC605"] == (
        NO_WEIGHTS,
        ("sglang-dspark", "trtllm-dspark", "trtllm-dspark-legacy"),
    )
    assert set(found) == {"DSC207", "DSC605"} and r.partial
    assert r.ok  # the verdict stands on the checks made: nothing else is wrong


def test_the_same_drafter_against_the_target_with_weights_is_complete(bench):
    r = bench.case(tensors=PADDED, target=WITH_WEIGHTS, vocab=128, draft=128, profile="vllm")
    assert r.not_checked == [] and not r.partial


def test_an_equal_drafter_needs_no_et_under_vllm(bench):
    # DSC207 only concerns a padded drafter, DSC605 only TensorRT-LLM DSpark
    r = bench.case(tensors={"lm_head.weight": head(VT)}, target=CONFIG_ONLY, profile="vllm")
    assert set(skipped(r)) == {"DSC605"}
    assert r.under("vllm").not_checked == [] and r.under("trtllm-dspark-legacy").partial


def test_target_vocab_size_alone_leaves_the_target_checks_undone(bench):
    r = bench.case(tensors=PADDED, target=VT, vocab=128, draft=128, profile="vllm")
    found = skipped(r)
    assert found["DSC207"][0] == VOCAB_ONLY_ET
    # the hidden-state checks, under every profile that feeds the target's states (TensorRT-LLM's
    # standalone DSpark route too: TorchLlmArgs validation reads its target_layer_ids)
    fed = tuple(n for n in r.verdicts if get_profile(n).hidden_states is not None)
    assert "trtllm-dspark" in fed and found["DSC701"] == (VOCAB_ONLY_MODEL, fed)
    assert {"DSC702", "DSC703", "DSC705"} <= set(found)
    assert {"DSC710", "DSC711"} <= set(found)  # no tokenizer files to compare
    assert "DSC106" in found  # Vd > Vt: whether the target is Qwen3-Omni is unknown


def test_an_eagle3_drafter_without_aux_states_has_no_hidden_state_checks_to_miss(bench):
    config = {**EAGLE3, "eagle_config": {"use_aux_hidden_state": False}}
    r = bench.case(config=config, target=VT, profile="vllm-eagle3")
    assert not any(code.startswith("DSC70") for code in skipped(r))


VERIFIER = {"speculators_config": {"verifier": {"architectures": ["Qwen3ForCausalLM"]}}}


@pytest.mark.parametrize(
    ("target", "result"),
    [
        (VT, "not checked"),  # the vocab size alone: nothing to compare
        (Tgt.of(hidden_size=8, num_hidden_layers=4), "same"),
        (Tgt.of(architectures=["LlamaForCausalLM"], hidden_size=16, num_hidden_layers=2),
         "differ"),
    ],
)  # fmt: skip
def test_each_target_comparison_says_same_differ_or_not_checked(bench, target, result):
    """The report's target_checks: the aux state width (fc's, 8) against the target's
    hidden_size, the trained target's layers (num_target_layers 4) against its layers, the
    verifier's architecture against the target's."""
    from dspark_ckpt.profiles.registry import PROFILES
    from dspark_ckpt.rules.engine import target_checks

    config = {"num_target_layers": 4, **VERIFIER}
    r = bench.case(config=config, target=target, profile="vllm")
    got = {c["check"]: c["result"] for c in target_checks(r.facts, [PROFILES["vllm"]])}
    checks = ("aux_state_width", "num_target_layers", "architecture")
    assert {k: got[k] for k in checks} == dict.fromkeys(checks, result), got
