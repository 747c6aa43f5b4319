"""SGLang 0.5.23's Gemma 4 MTP assistant (``Gemma4AssistantForCausalLM`` and the unified
class, profile ``sglang-gemma4-assistant``): pre_projection over [the target's embedding, its
hidden state], a Gemma4TextModel under model.* built from text_config whose layers read K/V
from the target (q only), post_projection, its own head (model.embed_tokens where tied, the
class default), the centroid head with use_ordered_embeddings (models/gemma4_mtp.py:59-135),
loaded by Gemma 4's loader once masked_embedding. is stripped (372-381): a name it has no
parameter for is skipped, a parameter nothing loaded keeps its initial value with a log line
(models/gemma4_causal.py:1409-1439). Firing rows and their clean twins, in-process through
the engine; each row's comment names the source line that decides it."""

from __future__ import annotations

import pytest
from gemma4_assistant import gemma4_assistant
from rules_harness import DROP, check, clean, fires, ids, zeros
from synth import VT, H

PROFILE = "sglang-gemma4-assistant"
FFN = 16
L = "model.layers.0."
G4, G4_OK = gemma4_assistant(VT, H, FFN)
ORDERED, ORDERED_OK = gemma4_assistant(VT, H, FFN, ordered=True)


def _text(**keys) -> dict:
    return {**G4, "text_config": {**G4["text_config"], **keys}}


def _language_model(tensors: dict) -> dict:
    """The model.* names stored under model.language_model. instead (a multimodal export)."""
    inner = [k for k, v in tensors.items() if k.startswith("model.") and v is not None]
    return {
        **{k: DROP for k in inner},
        **{"model.language_model." + k.removeprefix("model."): tensors[k] for k in inner},
    }


UNTIED = _text(tie_word_embeddings=False)
HEAD = {"lm_head.weight": zeros("F32", (VT, H))}
PLE = {
    "model.per_layer_model_projection.weight": zeros("F32", (2, H)),
    "model.per_layer_projection_norm.weight": zeros("F32", (2,)),
    L + "per_layer_input_gate.weight": zeros("F32", (2, H)),
    L + "per_layer_projection.weight": zeros("F32", (H, 2)),
    L + "post_per_layer_input_norm.weight": zeros("F32", (H,)),
}
NO_PLE_KEY = {**G4, "text_config": {k: v for k, v in G4["text_config"].items()
                                    if k != "hidden_size_per_layer_input"}}  # fmt: skip


def row(kind, code: str, name: str, **kw):
    kw.setdefault("config", G4)
    kw["tensors"] = {**G4_OK, **kw.get("tensors", {})}
    return kind(code, f"gemma4-{name}", profile=PROFILE, **kw)


CASES = [
    # the whole assistant: model.* read as stored (gemma4_causal.py:1300-1301), the top-level
    # projections (gemma4_mtp.py:87-107), the head tied to model.embed_tokens (109-110)
    row(clean, "DSC652", "whole", exactly=()),
    row(clean, "DSC111", "model-root", exactly=()),
    # model.language_model. is read as model. (gemma4_causal.py:1310)
    row(clean, "DSC652", "language-model", tensors=_language_model(G4_OK), exactly=()),
    # gate/up stored fused is the parameter itself (1264-1265); k/v/k_norm are built, loaded
    # if shipped and never read: the layers are KV-shared with the target (gemma4_mtp.py:137-145)
    row(clean, "DSC652", "fused-gate-up", exactly=(), tensors={
        **{f"{L}mlp.{m}_proj.weight": DROP for m in ("gate", "up")},
        L + "mlp.gate_up_proj.weight": zeros("F32", (2 * FFN, H))}),
    row(clean, "DSC666", "kv-shipped", exactly=(), tensors={
        **{f"{L}self_attn.{m}_proj.weight": zeros("F32", (H, H)) for m in "kv"},
        L + "self_attn.k_norm.weight": zeros("F32", (H,))}),
    # a parameter nothing loads keeps its initial value, only logged (1421-1439)
    row(fires, "DSC652", "no-layer-norm", tensors={L + "input_layernorm.weight": DROP},
        says="layers.0.input_layernorm.weight", exactly=("DSC652",)),
    row(fires, "DSC652", "no-q-proj", tensors={L + "self_attn.q_proj.weight": DROP},
        says="layers.0.self_attn.q_proj.weight"),
    # layer_scalar is a persistent buffer, loaded by name (gemma4_causal.py:672, 1300-1301)
    row(fires, "DSC652", "no-layer-scalar", tensors={L + "layer_scalar": DROP},
        says="layers.0.layer_scalar", exactly=("DSC652",)),
    row(fires, "DSC652", "no-pre-projection", tensors={"pre_projection.weight": DROP},
        says="pre_projection.weight"),
    row(fires, "DSC652", "no-post-projection", tensors={"post_projection.weight": DROP},
        says="post_projection.weight"),
    # tied (text_config's class default): the head is model.embed_tokens (gemma4_mtp.py:109-110)
    row(fires, "DSC652", "tied-no-embedding", tensors={"model.embed_tokens.weight": DROP},
        says="embed_tokens.weight", exactly=("DSC652",)),
    # ... and a shipped lm_head names no parameter (the tie's is model.embed_tokens): skipped
    row(fires, "DSC666", "tied-head-skipped", tensors=HEAD, says="lm_head.weight"),
    # untied: its own nn.Linear head (111-112), the embedding unused (the target's is read)
    row(clean, "DSC652", "untied-head", config=UNTIED, exactly=(),
        tensors={**HEAD, "model.embed_tokens.weight": DROP}),
    row(fires, "DSC652", "untied-no-head", config=UNTIED, says="lm_head.weight",
        exactly=("DSC652",)),
    # use_ordered_embeddings: centroids and token_ordering, masked_embedding. stripped (372-377)
    row(clean, "DSC652", "ordered", config=ORDERED, tensors=ORDERED_OK, exactly=()),
    row(fires, "DSC652", "ordered-no-token-ordering", config=ORDERED,
        tensors={**ORDERED_OK, "masked_embedding.token_ordering": DROP},
        says="token_ordering", exactly=("DSC652",)),
    row(fires, "DSC652", "ordered-no-centroids", config=ORDERED,
        tensors={**ORDERED_OK, "masked_embedding.centroids.weight": DROP}, says="centroids"),
    # without use_ordered_embeddings no centroid head is built (gemma4_mtp.py:115-131): skipped
    row(fires, "DSC666", "unordered-centroids-skipped",
        tensors={"masked_embedding.centroids.weight": zeros("F32", (4, H))},
        says="masked_embedding.centroids.weight"),
    # per-layer embeddings: built unless text_config sets hidden_size_per_layer_input to 0 (its
    # class default is 256; gemma4_causal.py:906-920, 614-635)
    row(fires, "DSC652", "ple-by-default", config=NO_PLE_KEY, says="per_layer"),
    row(clean, "DSC652", "ple-shipped", config=NO_PLE_KEY, tensors=PLE, exactly=()),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_case(bench, case):
    check(bench, case)


@pytest.mark.parametrize(
    "arch", ["Gemma4AssistantForCausalLM", "Gemma4UnifiedAssistantForCausalLM"]
)
def test_an_assistant_is_judged_by_its_own_profile(bench, arch):
    """A drafter naming either assistant class gets SGLang's verdict from this profile (the
    architecture routes it; the unified class is the same model: gemma4_mtp.py:400-401)."""
    config = {**G4, "architectures": [arch]}
    report = bench.case(config, G4_OK, profile=None)
    assert report.verdicts[PROFILE] is True
    broken = bench.case(config, {**G4_OK, L + "mlp.down_proj.weight": DROP}, profile=None)
    assert broken.verdicts[PROFILE] is False


def test_vllm_judges_an_assistant_as_the_class_it_builds_for_it(bench):
    """vLLM registers neither assistant class but rewrites a gemma4_assistant config to
    Gemma4MTPModel (vllm/config/speculative.py:1106-1115): that class's profile judges it
    (vllm-gemma4-assistant, tests/rules/test_variant_gemma4_vllm.py), never its classic EAGLE
    profile (DSC680), and no check is left undone for want of a vLLM profile."""
    report = bench.case(G4, G4_OK, profile=None)
    assert report.verdicts == {"vllm-gemma4-assistant": True, PROFILE: True}
    assert "DSC680" not in {f.code for f in report.findings}
    whys = [n.reason for n in report.not_checked]
    assert not any("builds Gemma4MTP" in w for w in whys), whys
