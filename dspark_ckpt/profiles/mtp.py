"""MTP / NextN drafters: the draft layers a runtime release reads from the TARGET checkpoint.

A multi-token-prediction drafter has no folder of its own. The runtime rewrites the target's
config into its MTP architecture (vLLM ``SpeculativeConfig.hf_config_override``, SGLang
``ModelConfig._config_draft_model``), builds as many draft layers as a config key says, and
loads them from the target's weights: the layers past the last decoder layer
(``model.layers.{num_hidden_layers + i}``), or ``mtp.*``, per family. A quantised or
re-exported target that dropped them fails at start-up or drafts from weights it never got.

One ``MtpLoader`` (``mtp_loader.py``) per (runtime release, MTP architecture), plain data,
every field cited (``cites``, checked by tests/test_citations.py as the profiles' are): vLLM
0.33.0's in ``mtp_vllm.py``, ``mtp_vllm_models.py`` and ``mtp_vllm_exports.py``, SGLang 0.5.23's in ``mtp_sglang.py``
and ``mtp_sglang_models.py``, registered here with the MTP architectures not judged and why
(``UNJUDGED``). ``loader/mtp.py``
compares a target checkpoint against it; ``rules/mtp.py`` says what the runtime does.

Names: a draft layer's stored prefix is ``layer`` with ``{i}`` its stored index (``first``
plus the step, times the physical layers per step); a module is ``(path, shape)``: a shape
(``H``, ``H,2H``, ``V,H``: hidden size, vocab size of the target's text config) names the
exact tensor ``path.weight``, a shape after ``=`` the bare parameter ``path`` itself
(DeepSeek V4's hyper-connection tensors), ``None`` a module that must hold some tensor (a
decoder block: its attention and MLP differ by family and by quantisation).
"""

from __future__ import annotations

from dspark_ckpt.profiles import mtp_sglang as sg
from dspark_ckpt.profiles import mtp_sglang_models as sm
from dspark_ckpt.profiles import mtp_vllm as vl
from dspark_ckpt.profiles import mtp_vllm_exports as ve
from dspark_ckpt.profiles import mtp_vllm_models as vm
from dspark_ckpt.profiles.mtp_loader import SGLANG, VLLM, Module, MtpLoader

__all__ = ["LOADERS", "RUNTIMES", "UNJUDGED", "Module", "MtpLoader", "loaders_for"]

LOADERS: tuple[MtpLoader, ...] = (
    vl.VLLM_DEEPSEEK,
    vl.VLLM_DEEPSEEK_V32,
    vl.VLLM_GLM4_MOE,
    vl.VLLM_QWEN3_NEXT,
    vl.VLLM_QWEN3_5,
    vl.VLLM_QWEN3_5_MOE,
    vl.VLLM_MIMO,
    vl.VLLM_ERNIE,
    vl.VLLM_LONGCAT,
    vl.VLLM_NEMOTRON_H,
    vl.VLLM_BAILING,
    vl.VLLM_OPENPANGU,
    vl.VLLM_EXAONE_MOE,
    vl.VLLM_EXAONE4_5,
    vl.VLLM_HY_V3,
    vl.VLLM_MIMO_V2,
    vm.VLLM_GLM5_NEXT,
    vm.VLLM_KIMI_K3,
    vm.VLLM_MINIMAX_M3,
    vm.VLLM_DOTS3_NOTE,
    vm.VLLM_INTERNS2_MOBIUS,
    vm.VLLM_BAILING_V3,
    vm.VLLM_MIMO_V2_OMNI,
    vm.VLLM_STEP3P5,
    vm.VLLM_STEP5,
    vm.VLLM_HY_V4,
    vm.VLLM_DEEPSEEK_V4,
    vm.VLLM_QWEN4_EXP,
    vm.VLLM_INKLING,
    ve.VLLM_GLM4_MOE_LITE,
    ve.VLLM_GLM_OCR,
    ve.VLLM_PARSE_AUX,
    sg.SGLANG_DEEPSEEK,
    sg.SGLANG_GLM4_MOE,
    sg.SGLANG_QWEN3_NEXT,
    sg.SGLANG_QWEN3_5,
    sg.SGLANG_MIMO,
    sg.SGLANG_LONGCAT,
    sg.SGLANG_BAILING,
    sg.SGLANG_ERNIE,
    sg.SGLANG_NEMOTRON_H,
    sg.SGLANG_QWEN3_MOE,
    sg.SGLANG_GLM5_NEXT,
    sg.SGLANG_GLM_MOE_DSA,
    sg.SGLANG_EXAONE_MOE,
    sg.SGLANG_HY_V3,
    sg.SGLANG_GLM4_MOE_LITE,
    sg.SGLANG_MIMO_V2,
    sm.SGLANG_STEP3P5,
    sm.SGLANG_HY_V4,
    sm.SGLANG_DEEPSEEK_V4,
    sm.SGLANG_QWEN4_EXP,
    sm.SGLANG_GIGACHAT35,
    sm.SGLANG_INKLING,
    sm.SGLANG_DOTS3_NOTE,
    sm.SGLANG_GLM_OCR,
    sm.SGLANG_IQUEST_Q1,
)
RUNTIMES = {"vllm": VLLM, "sglang": SGLANG}

# The MTP architectures each release registers that no loader above judges, and why: the
# answer `inspect TARGET --mtp` gives for a target the runtime drafts with one of them.
UNJUDGED: dict[tuple[str, str], str] = {
    ("vllm", "Gemma4MTPModel"): "a separate assistant checkpoint, not layers of the target: "
    "vLLM picks it for a draft model whose own config is a gemma4_assistant "
    "(vllm/config/speculative.py:1106-1115), a whole small Gemma 4 model loaded by "
    "AutoWeightsLoader (vllm/model_executor/models/gemma4_mtp.py:590-600); the assistant is "
    "a drafter folder, judged by inspect DRAFTER (profile vllm-gemma4-assistant), and "
    "inspect --mtp picks no loader for it",
}


def loaders_for(architecture: str | None, model_type: str | None) -> list[MtpLoader]:
    """The loaders a target of this architecture / model type is drafted with, per runtime."""
    return [x for x in LOADERS if x.matches(architecture, model_type)]
