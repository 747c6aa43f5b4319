"""The drafter against the target model itself (DSC701-DSC712): hidden sizes, aux layer
ids, the target's architecture and tokenizer. Firing rows and their clean twins, judged
by the engine in-process, on small target folders built once per module.

The drafter is synth.py's (hidden 8, fc [8, 16]: 2 aux states of width 8; target_layer_ids
[0, 1], eagle_config aux ids [1, 2]); each target has Vt 100."""

from __future__ import annotations

from pathlib import Path

import pytest
from rules_harness import EAGLE3, Case, Tgt, check, clean, fires, head, ids, zeros
from synth import VT, H

LLAMA = ["LlamaForCausalLM"]
H8 = Tgt.of(architectures=LLAMA, hidden_size=H, num_hidden_layers=4)  # the drafter's width
H16 = Tgt.of(architectures=LLAMA, hidden_size=16, num_hidden_layers=4)
GEMMA = Tgt.of(architectures=["Gemma3ForCausalLM"], hidden_size=H, num_hidden_layers=4)
UNKNOWN_ARCH = Tgt.of(architectures=["MyOwnForCausalLM"], hidden_size=H, num_hidden_layers=4)
TOKENIZED = Tgt.of(tokenizer="target")  # the target folder holds tokenizer files
UNTOKENIZED = Tgt.of()
OWN_HEADS = {"embed_tokens.weight": head(VT), "lm_head.weight": head(VT)}
VERIFIER_QWEN = {
    "speculators_config": {
        "verifier": {"architectures": ["Qwen3ForCausalLM"], "name_or_path": "Qwen/Qwen3-8B"}
    }
}


def broken_tokenizer(folder: Path) -> None:
    (folder / "tokenizer.json").write_text('{"model": {"vocab": ')


CASES: list[Case] = [
    # DSC701: fc built for states of another width than the target's hidden_size
    fires("DSC701", "eagle3-h8-on-h16", profile="vllm-eagle3", config=EAGLE3, target=H16,
          says="builds fc for target hidden states 8 wide (hidden_size (no target_hidden_size)) "
          "but the target's hidden_size is 16 (hidden_size); fc.weight is [8, 16]"),
    clean("DSC701", "eagle3-h8-on-h8", profile="vllm-eagle3", config=EAGLE3, target=H8,
          exactly=()),
    clean("DSC701", "eagle3-target-hidden-size-16", profile="vllm-eagle3", target=H16,
          config={**EAGLE3, "target_hidden_size": 16},
          tensors={"fc.weight": zeros("F32", (H, 2 * 16))}),
    fires("DSC701", "dspark-h8-on-h16", target=H16, says="vLLM fails with a shape error"),
    # the width the weights take: fc's columns, else input_norm's length; a whole number of
    # target states says target_hidden_size is what is wrong, another width the drafter
    fires("DSC701", "eagle3-input-norm-takes-2-states", profile="vllm-eagle3", target=H16,
          config={**EAGLE3, "norm_before_fc": True},
          tensors={"fc.weight": None, "input_norm.weight": zeros("F32", (32,))},
          says="; input_norm.weight is [32]", hint='set "target_hidden_size": 16'),
    fires("DSC701", "eagle3-fc-24-on-16", profile="vllm-eagle3", target=H16, config=EAGLE3,
          tensors={"fc.weight": zeros("F32", (H, 24))},
          hint="trained for a target whose hidden_size is 8"),
    clean("DSC701", "trtllm-reads-no-target-hidden-size", profile="trtllm-dspark-legacy",
          config={"target_hidden_size": 16}, target=H8),
    # DSC702: the target's embedding or head given to a drafter of another width
    fires("DSC702", "eagle3-shares-both", profile="vllm-eagle3", config=EAGLE3, target=H16,
          says="gives the drafter the target's embed_tokens.weight and lm_head.weight (16 "
          "wide, the target's hidden_size) but the drafter's hidden_size is 8",
          exactly=("DSC701", "DSC702")),
    clean("DSC702", "eagle3-own-embed-and-head", profile="vllm-eagle3", config=EAGLE3,
          tensors=OWN_HEADS, target=H16, exactly=("DSC701",)),
    clean("DSC702", "sglang-own-embed-with-target-hidden-size", profile="sglang-eagle3",
          config={**EAGLE3, "target_hidden_size": 16},
          tensors={"fc.weight": zeros("F32", (H, 2 * 16)), "lm_head.weight": head(VT)},
          target=H16),
    # SGLang shares the target's embedding unless target_hidden_size differs from hidden_size
    # (llama.py:910-916 set_embed): equal to it, or absent, it is shared
    fires("DSC702", "sglang-target-hidden-size-equal-to-hidden-size", profile="sglang-eagle3",
          config={**EAGLE3, "target_hidden_size": H}, tensors={"lm_head.weight": head(VT)},
          target=H16, says="gives the drafter the target's embed_tokens.weight (16 wide"),
    # an explicit null is a value to set_embed (hasattr, None != hidden_size): its own kept
    # (and llama_eagle3.py's fc is None * n_aux wide: DSC657); the MLA class reads it with `or`
    clean("DSC702", "sglang-null-target-hidden-size", profile="sglang-eagle3",
          config={**EAGLE3, "target_hidden_size": None}, tensors={"lm_head.weight": head(VT)},
          target=H16),
    fires("DSC702", "sglang-no-target-hidden-size", profile="sglang-eagle3", config=EAGLE3,
          tensors={"lm_head.weight": head(VT)}, target=H16,
          says="gives the drafter the target's embed_tokens.weight (16 wide"),
    fires("DSC702", "trtllm-always-shares", profile="trtllm-dspark-legacy", tensors=OWN_HEADS,
          target=H16, says="embed_tokens.weight and lm_head.weight"),
    # DSC703: aux layer ids the target has no layer for
    fires("DSC703", "dspark-id-9-of-4-layers", config={"target_layer_ids": [0, 9]}, target=H8,
          says="target_layer_ids [0, 9]: [9] outside [-1, 3] for a target of 4 layers"),
    clean("DSC703", "dspark-ids-within", config={"target_layer_ids": [0, 3]}, target=H8),
    fires("DSC703", "eagle3-repeated-ids", profile="vllm-eagle3",
          config={**EAGLE3, "eagle_aux_hidden_state_layer_ids": [1, 2, 2]}, target=H8,
          says="repeated ids (each layer is captured once)"),
    clean("DSC703", "eagle3-last-boundary", profile="vllm-eagle3",
          config={**EAGLE3, "eagle_aux_hidden_state_layer_ids": [1, 2, 4]}, target=H8),
    fires("DSC703", "sglang-eagle3-id-past-n-1", profile="sglang-eagle3",
          config={**EAGLE3, "eagle_config": {"eagle_aux_hidden_state_layer_ids": [1, 3]}},
          target=H8, says="[3] outside [-1, 2]", verdicts={"sglang-eagle3": False}),
    clean("DSC703", "vllm-eagle3-reads-other-keys", profile="vllm-eagle3",
          config={**EAGLE3, "eagle_config": {"eagle_aux_hidden_state_layer_ids": [1, 3]}},
          target=H8),
    fires("DSC703", "sglang-dspark-refuses-at-start-up", profile="sglang-dspark",
          config={"target_layer_ids": [0, 4]}, target=H8,
          says="refuses the config at start-up"),
    # DSC704: a drafter made for another target
    fires("DSC704", "num-target-layers-8-on-4", config={"num_target_layers": 8}, target=H8,
          says="trained on a target of 8 layers (num_target_layers) but the target has 4"),
    clean("DSC704", "num-target-layers-4-on-4", config={"num_target_layers": 4}, target=H8),
    fires("DSC704", "verifier-qwen-on-llama", config=VERIFIER_QWEN, target=H8,
          says="made for Qwen3ForCausalLM (Qwen/Qwen3-8B) (speculators_config.verifier) but "
          "the target is LlamaForCausalLM"),
    clean("DSC704", "verifier-qwen-on-qwen", config=VERIFIER_QWEN,
          target=Tgt.of(hidden_size=H, num_hidden_layers=4)),
    # DSC705: a target vLLM takes no aux hidden states from
    fires("DSC705", "gemma3-target", profile="vllm-eagle3", config=EAGLE3, target=GEMMA,
          says="the target's architecture Gemma3ForCausalLM does not give aux hidden states in "
          "vLLM (its model class does not implement SupportsEagle3)", exactly=("DSC705",)),
    clean("DSC705", "llama-target", profile="vllm-eagle3", config=EAGLE3, target=H8),
    # eagle_config.use_aux_hidden_state false: the runner takes no aux states and checks no
    # SupportsEagle3 (gpu_model_runner.py:5169-5175); no target rule applies (true: it fires)
    clean("DSC705", "gemma3-eagle3-without-aux-states", profile="vllm-eagle3", target=GEMMA,
          config={**EAGLE3, "eagle_config": {"use_aux_hidden_state": False}}, exactly=()),
    fires("DSC705", "gemma3-eagle3-aux-states-true", profile="vllm-eagle3", target=GEMMA,
          config={**EAGLE3, "eagle_config": {"use_aux_hidden_state": True}},
          says="Gemma3ForCausalLM does not give aux hidden states"),
    # without aux states the target's last hidden states reach the first layer as they are
    # (llama_eagle3.py: 'hidden_states and input_embeds must have the same last dimension')
    fires("DSC701", "eagle3-h8-on-h16-without-aux-states", profile="vllm-eagle3", target=H16,
          config={**EAGLE3, "eagle_config": {"use_aux_hidden_state": False}},
          says="takes no aux hidden states (use_aux_hidden_state false) and feeds the target's "
          "last hidden states as they are, 16 wide"),
    fires("DSC701", "sglang-eagle3-h8-on-h16-without-aux-states", profile="sglang-eagle3",
          target=H16, config={**EAGLE3, "eagle_config": {"use_aux_hidden_state": False}},
          tensors={"lm_head.weight": head(VT)}, says="takes no aux hidden states"),
    clean("DSC701", "eagle3-h8-on-h8-without-aux-states", profile="vllm-eagle3", target=H8,
          config={**EAGLE3, "eagle_config": {"use_aux_hidden_state": False}}),
    # the target's embedding and head are given without aux states too (DSC702 still applies)
    fires("DSC702", "eagle3-without-aux-states-shares-both", profile="vllm-eagle3", target=H16,
          config={**EAGLE3, "eagle_config": {"use_aux_hidden_state": False}},
          says="embed_tokens.weight and lm_head.weight (16 wide"),
    clean("DSC702", "eagle3-without-aux-states-own-heads", profile="vllm-eagle3", target=H16,
          config={**EAGLE3, "eagle_config": {"use_aux_hidden_state": False}},
          tensors=OWN_HEADS),
    # the aux-state rules judge nothing where no aux state is fed (ids past the target)
    clean("DSC703", "eagle3-ids-past-target-without-aux-states", profile="vllm-eagle3",
          target=H8, config={**EAGLE3, "eagle_aux_hidden_state_layer_ids": [1, 9],
                             "eagle_config": {"use_aux_hidden_state": False}}),
    fires("DSC703", "eagle3-ids-past-target-with-aux-states", profile="vllm-eagle3",
          target=H8, config={**EAGLE3, "eagle_aux_hidden_state_layer_ids": [1, 9]},
          says="[9] outside"),
    clean("DSC705", "gemma3-sglang-not-judged", profile="sglang-eagle3", config=EAGLE3,
          target=GEMMA),
    clean("DSC705", "unknown-architecture-not-judged", profile="vllm-eagle3", config=EAGLE3,
          target=UNKNOWN_ARCH),
    # DSC710: ids that name other tokens
    fires("DSC710", "one-token-renamed", tokenizer="one-token", target=TOKENIZED,
          says="1 of the 100 shared ids name other tokens (first: id 42: drafter 'Ġrenamed', "
          "target 'qq')", exactly=("DSC710",)),
    clean("DSC710", "same-tokenizer", tokenizer="target", target=TOKENIZED, exactly=()),
    # DSC711: special tokens that differ
    fires("DSC711", "other-eos", tokenizer="specials", target=TOKENIZED,
          says="eos_token: drafter '<|endoftext|>', target '<|im_end|>'",
          exactly=("DSC711",), verdicts={"vllm": True}),
    clean("DSC711", "same-specials", tokenizer="target", target=TOKENIZED),
    # DSC712: the tokenizer could not be compared
    fires("DSC712", "drafter-has-none", target=TOKENIZED,
          says="drafter folder holds no tokenizer.json", exactly=("DSC712",)),
    fires("DSC712", "broken-drafter-tokenizer", tokenizer="one-token", target=TOKENIZED,
          mutate=broken_tokenizer, says="tokenizer.json: is not valid JSON"),
    clean("DSC712", "neither-has-one", target=UNTOKENIZED, exactly=()),
    clean("DSC712", "target-by-vocab-size", tokenizer="target"),
]  # fmt: skip


@pytest.mark.parametrize("c", CASES, ids=ids(CASES))
def test_case(bench, c):
    check(bench, c)
