"""vLLM 0.33.0's Gemma 4 MTP assistant (``Gemma4MTPModel``, profile ``vllm-gemma4-assistant``):
the model vLLM builds for a drafter whose config is a Gemma 4 assistant (model_type
gemma4_assistant, rewritten by config/speculative.py:1106-1115). A Gemma4MultiTokenPredictor
under model.* built from text_config: embed_tokens, pre_projection, q-only KV-shared layers
(no k/v projections at all), norm, post_projection; lm_head tied to model.embed_tokens unless
the assistant's top-level tie_word_embeddings is false; masked_embedding.* at the top level
with use_ordered_embeddings (models/gemma4_mtp.py:336-504). Loaded by AutoWeightsLoader through
its mapper (pre_/post_projection moved under model., gate/up stacked), a name it has no
parameter for refused, the loaded names returned: vLLM's weight tracking refuses an RMSNorm or
the centroids nothing filled, and leaves a linear layer, the embedding or the head nothing
filled uninitialised (gemma4_mtp.py:590-600, model_loader/default_loader.py:511-572). Firing
rows and their clean twins, in-process through the engine, on the SGLang rows' fixture."""

from __future__ import annotations

import pytest
from gemma4_assistant import gemma4_assistant
from rules_harness import DROP, check, clean, fires, ids, zeros
from synth import VT, H

PROFILE = "vllm-gemma4-assistant"
SGLANG = "sglang-gemma4-assistant"
FFN = 16
L = "model.layers.0."
G4, G4_OK = gemma4_assistant(VT, H, FFN)
ORDERED, ORDERED_OK = gemma4_assistant(VT, H, FFN, ordered=True)
UNTIED = {**G4, "tie_word_embeddings": False}  # the assistant's own key (gemma4_mtp.py:487)
HEAD = {"lm_head.weight": zeros("F32", (VT, H))}
BARE = {  # the decoder layers stored without model.
    **{k: DROP for k in G4_OK if k.startswith(L)},
    **{k.removeprefix("model."): v for k, v in G4_OK.items() if k.startswith(L)},
}
LANGUAGE_MODEL = {  # model.* stored under model.language_model. (a multimodal export)
    **{k: DROP for k in G4_OK if k.startswith("model.")},
    **{"model.language_model." + k[6:]: v for k, v in G4_OK.items() if k.startswith("model.")},
}


def row(kind, code: str, name: str, **kw):
    kw.setdefault("config", G4)
    kw["tensors"] = {**G4_OK, **kw.get("tensors", {})}
    return kind(code, f"vllm-gemma4-{name}", profile=PROFILE, **kw)


CASES = [
    # the whole assistant, as Hugging Face lays it out: model.* under the predictor, the
    # projections moved there by hf_to_vllm_mapper (gemma4_mtp.py:451-455), the head tied
    row(clean, "DSC652", "whole", exactly=()),
    row(clean, "DSC112", "whole-names", exactly=()),
    row(clean, "DSC113", "whole-shapes", exactly=()),
    # gate/up stored fused is the gate_up_proj parameter itself (gemma4.py:266)
    row(clean, "DSC652", "fused-gate-up", exactly=(), tensors={
        **{f"{L}mlp.{m}_proj.weight": DROP for m in ("gate", "up")},
        L + "mlp.gate_up_proj.weight": zeros("F32", (2 * FFN, H))}),
    # an RMSNorm has no quant method: the weight tracking refuses it (default_loader.py:567-572)
    row(fires, "DSC652", "no-q-norm", tensors={L + "self_attn.q_norm.weight": DROP},
        says="raises 'Following weights were not initialized", exactly=("DSC652",)),
    row(fires, "DSC652", "no-final-norm", tensors={"model.norm.weight": DROP},
        says="filled norm"),
    # a linear layer counts as loaded (its quant method): left uninitialised, no error
    row(fires, "DSC652", "no-q-proj", tensors={L + "self_attn.q_proj.weight": DROP},
        says="layers.0.self_attn.q_proj", says_not="raises", exactly=("DSC652",)),
    row(fires, "DSC652", "no-pre-projection", tensors={"pre_projection.weight": DROP},
        says="pre_projection", says_not="raises"),
    # layer_scalar is a persistent buffer, loaded by name, never tracked (gemma4_mtp.py:304)
    row(fires, "DSC652", "no-layer-scalar", tensors={L + "layer_scalar": DROP},
        says="layers.0.layer_scalar"),
    # q-only attention: no k/v projection or k_norm (gemma4_mtp.py:183-197), where SGLang's
    # builds them: a shipped one is refused (models/utils.py:443)
    row(fires, "DSC112", "k-proj-shipped", verdicts={PROFILE: False, SGLANG: True},
        tensors={L + "self_attn.k_proj.weight": zeros("F32", (H, H))},
        says="model.layers.0.self_attn.k_proj.weight", exactly=("DSC112",)),
    # the mapper knows model.* only: a bare layers.* or model.language_model.* is refused
    row(fires, "DSC112", "bare-layers", tensors=BARE, says="layers.0.input_layernorm.weight"),
    row(fires, "DSC112", "language-model", tensors=LANGUAGE_MODEL,
        says="model.language_model."),
    # without use_ordered_embeddings no masked_embedding is built (gemma4_mtp.py:496-514)
    row(fires, "DSC112", "unordered-centroids",
        tensors={"masked_embedding.centroids.weight": zeros("F32", (4, H))},
        says="masked_embedding.centroids.weight", exactly=("DSC112",)),
    # use_ordered_embeddings: the centroids (an nn.Linear, no quant method: tracked) and
    # token_ordering (a buffer: torch.empty when not shipped), outside model.
    row(clean, "DSC652", "ordered", config=ORDERED, tensors=ORDERED_OK, exactly=()),
    row(fires, "DSC652", "ordered-no-centroids", config=ORDERED,
        tensors={**ORDERED_OK, "masked_embedding.centroids.weight": DROP},
        says="filled masked_embedding.centroids", exactly=("DSC652",)),
    row(fires, "DSC652", "ordered-no-token-ordering", config=ORDERED,
        tensors={**ORDERED_OK, "masked_embedding.token_ordering": DROP},
        says="masked_embedding.token_ordering", says_not="raises", exactly=("DSC652",)),
    row(fires, "DSC113", "ordered-centroids-shape", config=ORDERED,
        tensors={**ORDERED_OK, "masked_embedding.centroids.weight": zeros("F32", (5, H))},
        says="masked_embedding.centroids.weight is [5, 8]", exactly=("DSC113",)),
    # shapes the weight loaders assert: pre_projection [H, 2 * backbone], the MLP
    row(fires, "DSC113", "pre-projection-shape",
        tensors={"pre_projection.weight": zeros("F32", (H, 3 * H))},
        says="pre_projection.weight is [8, 24]", exactly=("DSC113",)),
    row(fires, "DSC113", "backbone-width", config={**G4, "backbone_hidden_size": 12},
        says="builds it [8, 24]", verdicts={SGLANG: True}),
    row(fires, "DSC113", "down-proj-shape", tensors={L + "mlp.down_proj.weight": zeros("F32", (H, 12))},
        says="model.layers.0.mlp.down_proj.weight is [8, 12]", exactly=("DSC113",)),
    # the tie (true where the key is absent): the head is model.embed_tokens, a shipped
    # lm_head.weight skipped as its alias (models/utils.py:202-213)
    row(fires, "DSC670", "tied-head-skipped", tensors=HEAD, says="its own embed_tokens",
        exactly=("DSC670",)),
    row(fires, "DSC652", "tied-no-embedding", tensors={"model.embed_tokens.weight": DROP},
        says="embed_tokens", exactly=("DSC652",)),
    # untied: its own ParallelLMHead (481-486); the embedding is then the target's (not read)
    row(clean, "DSC670", "untied-head", config=UNTIED, exactly=(),
        tensors={**HEAD, "model.embed_tokens.weight": DROP}),
    row(fires, "DSC652", "untied-no-head", config=UNTIED, says="(lm_head)", exactly=("DSC652",)),
    # rewritten to Gemma4MTPModel only for the assistants' model_type (1106-1115)
    row(fires, "DSC664", "not-an-assistant-model-type", config={**G4, "model_type": "gemma4_text"},
        says="model_type 'gemma4_text'"),
    row(clean, "DSC664", "unified-model-type", exactly=(),
        config={**G4, "model_type": "gemma4_unified_assistant"}),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_case(bench, case):
    check(bench, case)


@pytest.mark.parametrize(
    "arch", ["Gemma4AssistantForCausalLM", "Gemma4UnifiedAssistantForCausalLM"]
)
def test_both_runtimes_judge_an_assistant_by_their_own_profile(bench, arch):
    """A drafter naming either assistant class is judged by both runtimes with no profile
    named: vLLM by the class it rewrites the config to (Gemma4MTPModel), SGLang by its own."""
    config = {**G4, "architectures": [arch]}
    report = bench.case(config, G4_OK, profile=None)
    assert report.verdicts == {PROFILE: True, SGLANG: True}
    broken = bench.case(config, {**G4_OK, L + "self_attn.q_norm.weight": DROP}, profile=None)
    assert broken.verdicts == {PROFILE: False, SGLANG: False}
    assert not [n for n in report.not_checked if "Gemma4MTP" in n.reason]
