"""``check``'s gate says what it did not check: a run whose verdict is partial (a check
not made, for a target without weights or given by its vocab size alone) carries the
checks not made and fails, unless a written reason allows it (``allow-partial``, globally
or per pair, or ``--allow-partial``). Through ``commands/check`` in-process, on real
safetensors files; the formats and exit codes are tests/cli/test_partial_gate.py's."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
import synth
from conftest import FIXTURES

from dspark_ckpt.commands.check import run_check
from dspark_ckpt.commands.check_config import ConfigError, load_config
from dspark_ckpt.commands.inspect import inspect_checkpoint
from dspark_ckpt.commands.runs import ALLOWED_BY_FLAG, run_of_report
from dspark_ckpt.facts.target import target_from_vocab_size

PADDED, EAGLE = FIXTURES / "padded", FIXTURES / "pruned-eagle3"
SMALL = FIXTURES / "targets/small"
# the checks a bare vocab size leaves undecided for the pruned EAGLE-3 fixture (vllm-eagle3)
VOCAB_ONLY = [
    "DSC650",
    "DSC651",
    "DSC671",
    "DSC687",
    "DSC693",
    "DSC701",
    "DSC702",
    "DSC703",
    "DSC705",
]
VOCAB_ONLY += ["DSC710", "DSC711"]
H = 8  # synth's drafter hidden size
EAGLE3 = {
    "architectures": ["LlamaForCausalLMEagle3"],
    "model_type": "llama",
    "target_layer_ids": None,
}


def config(tmp_path: Path, text: str):
    path = tmp_path / "dspark-ckpt.toml"
    path.write_text(text)
    return load_config(path)


def pair(name: str, drafter: Path, target: str, extra: str = "") -> str:
    return f'[[pairs]]\nname = "{name}"\ndrafter = "{drafter}"\n{target}\n{extra}\n'


def weightless(tmp_path: Path) -> Path:
    """fixtures/targets/small without its weights: its config alone."""
    folder = tmp_path / "weightless"
    folder.mkdir()
    shutil.copy(SMALL / "config.json", folder / "config.json")
    return folder


def runs_by_name(result) -> dict[str, object]:
    return {(run.name, run.profile): run for run in result.runs}


def test_a_vocab_only_pass_is_partial_and_fails_where_the_real_target_fails(tmp_path):
    """The issue's case: an EAGLE-3 drafter trained on aux layers [1, 3, 5] has no finding
    against a bare vocab size; against its real target (8 layers) vLLM feeds [2, 4, 5]
    instead (DSC651). The vocab-only run now fails as partial, naming DSC651."""
    drafter = synth.drafter(
        tmp_path / "drafter",
        vocab=100,
        draft=100,
        hidden=H,
        config={**EAGLE3, "eagle_config": {"eagle_aux_hidden_state_layer_ids": [1, 3, 5]}},
        tensors={"fc.weight": synth.T("F32", (H, 3 * H), np.zeros((H, 3 * H), np.float32))},
    )
    target = synth.target(
        tmp_path / "target",
        {"architectures": ["Qwen3ForCausalLM"], "vocab_size": 100, "hidden_size": H,
         "num_hidden_layers": 8},
        embed_rows=100,
    )  # fmt: skip
    cfg = config(
        tmp_path,
        "profiles = ['vllm-eagle3']\n"
        + pair("vocab", drafter, "target-vocab-size = 100")
        + pair("whole", drafter, f'target = "{target}"'),
    )
    result = run_check(cfg)
    vocab, whole = runs_by_name(result)[("vocab", "vllm-eagle3")], result.runs[1]
    assert vocab.errors == [] and vocab.partial and vocab.partial_fails and not vocab.ok
    assert "DSC651" in [n.code for n in vocab.not_checked]
    assert [f.code for f in whole.errors] == ["DSC651"] and not whole.partial
    assert result.ok is False and result.partial is True


def test_every_check_not_made_is_carried_with_why(tmp_path):
    cfg = config(tmp_path, pair("e3", EAGLE, "target-vocab-size = 100"))
    [run] = run_check(cfg).runs
    assert run.profile == "vllm-eagle3"
    assert [n.code for n in run.not_checked] == VOCAB_ONLY
    assert all(n.reason.startswith("--target-vocab-size gives Vt alone") for n in run.not_checked)
    assert run.partial_text == f"partial: 11 check(s) not made ({', '.join(VOCAB_ONLY)})"
    assert (run.ok, run.partial_allowed) == (False, None)


def test_a_target_folder_without_weights_is_partial_per_profile(tmp_path):
    """Each run carries the checks not made under its own profile: DSC605 is a check of
    SGLang's and TensorRT-LLM's (the Markov bias against the target head's rows), DSC207
    every runtime's."""
    cfg = config(
        tmp_path,
        "profiles = ['vllm', 'sglang-dspark']\n"
        + pair("padded", PADDED, f'target = "{weightless(tmp_path)}"'),
    )
    runs = runs_by_name(run_check(cfg))
    assert [n.code for n in runs[("padded", "vllm")].not_checked] == ["DSC207"]
    assert [n.code for n in runs[("padded", "sglang-dspark")].not_checked] == [
        "DSC207",
        "DSC605",
    ]
    assert runs[("padded", "vllm")].partial_fails


def test_whole_targets_see_no_change(tmp_path):
    cfg = config(
        tmp_path,
        pair("padded", PADDED, f'target = "{SMALL}"') + pair("e3", EAGLE, f'target = "{SMALL}"'),
    )
    result = run_check(cfg)
    assert [(r.partial, r.ok) for r in result.runs] == [(False, True), (False, True)]
    assert result.ok and not result.partial


def test_allow_partial_with_a_reason_globally_and_per_pair(tmp_path):
    cfg = config(
        tmp_path,
        'allow-partial = "the targets live on the serving cluster"\n'
        + pair("global", EAGLE, "target-vocab-size = 100")
        + pair("own", PADDED, "target-vocab-size = 100", 'allow-partial = "  smoke test  "'),
    )
    result = run_check(cfg)
    runs = runs_by_name(result)
    g, own = runs[("global", "vllm-eagle3")], runs[("own", "vllm")]
    assert g.ok and g.partial and g.partial_allowed == "the targets live on the serving cluster"
    assert own.ok and own.partial and own.partial_allowed == "smoke test"
    assert result.ok and result.partial


def test_allow_partial_from_the_command_line_fills_only_pairs_without_a_reason(tmp_path):
    cfg = config(
        tmp_path,
        pair("flag", EAGLE, "target-vocab-size = 100")
        + pair("own", PADDED, "target-vocab-size = 100", 'allow-partial = "smoke test"')
        + pair("broken", PADDED, f'target = "{SMALL}"', "profiles = ['vllm-legacy']"),
    )
    assert run_check(cfg).ok is False
    result = run_check(cfg, allow_partial=True)
    runs = runs_by_name(result)
    assert runs[("flag", "vllm-eagle3")].partial_allowed == ALLOWED_BY_FLAG
    assert runs[("own", "vllm")].partial_allowed == "smoke test"
    # it allows a partial verdict, never an error: vllm-legacy still fails the padded drafter
    assert [r.ok for r in result.runs] == [True, True, False]


def test_inspect_runs_say_partial_but_are_no_gate():
    """inspect's CI formats carry the checks not made; its verdict (and exit code) stands
    on the checks made."""
    report = inspect_checkpoint(str(EAGLE), target_from_vocab_size(100), None)
    run = run_of_report(report.under(report.profile))
    assert run.partial and [n.code for n in run.not_checked] == VOCAB_ONLY
    assert run.ok and not run.partial_fails and run.partial_allowed is None
    gated = run_of_report(report, gate=True)
    assert gated.partial_fails and not gated.ok


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "allow-partial = true\n",
            "allow-partial: a partial verdict passes only with a written reason: "
            'allow-partial = "why", got true',
        ),
        (
            "allow-partial = ''\n",
            "allow-partial: a partial verdict passes only with a written reason: "
            'allow-partial = "why"',
        ),
        ("allow-partial = 5\n", "allow-partial: expected a string (the reason), got 5"),
        (
            "[[pairs]]\ndrafter = 'd'\ntarget-vocab-size = 100\nallow-partial = ' '\n",
            "pairs[0].allow-partial: a partial verdict passes only with a written reason: "
            'allow-partial = "why"',
        ),
        (
            "[[pairs]]\ndrafter = 'd'\ntarget-vocab-size = 100\nallow-partial = false\n",
            "pairs[0].allow-partial: a partial verdict passes only with a written reason: "
            'allow-partial = "why", got false',
        ),
    ],
)
def test_allow_partial_needs_a_written_reason(tmp_path, text, expected):
    (tmp_path / "d").mkdir()
    if "[[pairs]]" not in text:
        text += "[[pairs]]\ndrafter = 'd'\ntarget-vocab-size = 100\n"
    with pytest.raises(ConfigError) as e:
        config(tmp_path, text)
    assert str(e.value) == f"{tmp_path / 'dspark-ckpt.toml'}: {expected}"
