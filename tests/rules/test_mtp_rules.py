"""The MTP / NextN rules (DSC801-DSC810), in-process on target checkpoints written with the
names and shapes each family's release stores (fixtures/mtp_targets.py): a firing row and a
clean twin per family group, judged by the loader named in the row."""

from __future__ import annotations

from dataclasses import dataclass, field

import mtp_targets as MT  # fixtures/, on sys.path through tests/conftest.py
import pytest

from dspark_ckpt.commands.mtp import inspect_mtp, run_loader
from dspark_ckpt.facts.mtp import read_mtp_target
from dspark_ckpt.profiles.mtp import LOADERS, loaders_for

BY_NAME = {x.name: x for x in LOADERS}
N = MT.N  # the tiny targets' decoder layers: their first MTP layer is model.layers.2


@dataclass(frozen=True)
class MtpCase:
    code: str
    id: str
    fires: bool
    family: str
    loader: str
    drop: tuple[str, ...] = ()
    shapes: dict = field(default_factory=dict)
    extra: dict = field(default_factory=dict)
    config: dict = field(default_factory=dict)
    dtype: str = "BF16"
    says: str | None = None


def fires(code, id, family, loader, says=None, **kw):
    return MtpCase(code, id, True, family, loader, says=says, **kw)


def clean(code, id, family, loader, **kw):
    return MtpCase(code, id, False, family, loader, **kw)


Q = {"quantization_config": {"quant_method": "fp8"}}
FP4 = {"quantization_config": {"quant_method": "modelopt", "quant_algo": "NVFP4"}}
DS61 = f"model.layers.{N}."
RULE_CASES = [
    # DSC801: no layer count
    fires("DSC801", "ernie-no-count", "ernie", "vllm-mtp-ernie",
          config={"num_nextn_predict_layers": None}, says="has no default"),
    clean("DSC801", "ernie-count", "ernie", "vllm-mtp-ernie"),
    fires("DSC801", "deepseek-zero", "deepseek_v3", "vllm-mtp-deepseek",
          config={"num_nextn_predict_layers": 0}, says="is 0"),
    clean("DSC801", "deepseek-no-key-default-1", "deepseek_v3", "vllm-mtp-deepseek",
          config={"num_nextn_predict_layers": None}),
    fires("DSC801", "nemotron-no-pattern", "nemotron_h", "vllm-mtp-nemotron-h",
          config={"mtp_hybrid_override_pattern": None}, says="mtp_hybrid_override_pattern"),
    clean("DSC801", "nemotron-pattern", "nemotron_h", "vllm-mtp-nemotron-h"),
    fires("DSC801", "qwen3.5-count-string", "qwen3_5", "vllm-mtp-qwen3.5",
          config={"text.mtp_num_hidden_layers": "1"}, says="not a layer count"),
    # DSC802: a draft layer dropped (a quantised / re-exported target)
    fires("DSC802", "deepseek-dropped", "deepseek_v3", "vllm-mtp-deepseek", drop=(DS61,),
          says="MTP speculative decoding layer 2 weights missing"),
    clean("DSC802", "deepseek-kept", "deepseek_v3", "vllm-mtp-deepseek"),
    fires("DSC802", "deepseek-v32-dropped", "deepseek_v32", "vllm-mtp-deepseek-v32",
          drop=(DS61,), says="refused at start-up"),
    clean("DSC802", "deepseek-v32-kept", "deepseek_v32", "vllm-mtp-deepseek-v32"),
    fires("DSC802", "sglang-deepseek-dropped", "deepseek_v3", "sglang-nextn-deepseek",
          drop=(DS61,), says="uninitialised"),
    clean("DSC802", "sglang-deepseek-kept", "deepseek_v3", "sglang-nextn-deepseek"),
    fires("DSC802", "glm-dropped-quantised", "glm4_moe", "vllm-mtp-glm4-moe", drop=(DS61,),
          config=Q, says="quantised (fp8)"),
    clean("DSC802", "glm-kept-quantised", "glm4_moe", "vllm-mtp-glm4-moe", config=Q),
    fires("DSC802", "glm-dropped", "glm4_moe", "vllm-mtp-glm4-moe", drop=(DS61,),
          says="Following weights were not initialized"),
    fires("DSC802", "qwen3-next-two-declared", "qwen3_next", "vllm-mtp-qwen3-next",
          config={"num_nextn_predict_layers": 2}, says="mtp.layers.1.*"),
    clean("DSC802", "qwen3-next-one", "qwen3_next", "vllm-mtp-qwen3-next"),
    fires("DSC802", "qwen3.5-moe-dropped", "qwen3_5_moe", "vllm-mtp-qwen3.5-moe",
          drop=("mtp.layers.",), says="mtp.layers.0.*"),
    clean("DSC802", "qwen3.5-moe-kept", "qwen3_5_moe", "vllm-mtp-qwen3.5-moe"),
    fires("DSC802", "mimo-dropped", "mimo", "vllm-mtp-mimo", drop=("model.mtp_layers.",)),
    clean("DSC802", "mimo-kept", "mimo", "vllm-mtp-mimo"),
    fires("DSC802", "longcat-dropped", "longcat_flash", "vllm-mtp-longcat-flash",
          drop=("model.mtp.layers.",)),
    clean("DSC802", "longcat-kept", "longcat_flash", "vllm-mtp-longcat-flash"),
    fires("DSC802", "nemotron-second-dropped", "nemotron_h", "vllm-mtp-nemotron-h",
          drop=("mtp.layers.1.",), says="mtp.layers.1.*"),
    fires("DSC802", "bailing-dropped", "bailing", "vllm-mtp-bailing", drop=(DS61,),
          config=Q, says="MTP speculative decoding layer 2"),
    clean("DSC802", "bailing-kept", "bailing", "vllm-mtp-bailing"),
    fires("DSC802", "ernie-dropped", "ernie", "vllm-mtp-ernie", drop=("model.mtp_",)),
    # DSC803: one tensor of a layer missing
    # vLLM's weight tracking (default_loader.py:531-572) refuses a module with no quant
    # method (a norm; DeepSeek's eh_proj, a plain nn.Linear) and counts one with a quant
    # method (a vLLM linear layer, a head) as loaded: uninitialised, no error
    fires("DSC803", "deepseek-no-eh-proj", "deepseek_v3", "vllm-mtp-deepseek",
          drop=(f"{DS61}eh_proj",), says=f"not initialized from checkpoint': {DS61}eh_proj"),
    fires("DSC803", "deepseek-no-enorm", "deepseek_v3", "vllm-mtp-deepseek",
          drop=(f"{DS61}enorm",), says=f"not initialized from checkpoint': {DS61}enorm.weight"),
    fires("DSC803", "deepseek-no-own-head", "deepseek_v3", "vllm-mtp-deepseek",
          drop=(f"{DS61}shared_head.head",),
          says="shared_head.head.weight): vLLM's weight tracking counts a module with a quant"),
    fires("DSC803", "deepseek-no-enorm-quantised", "deepseek_v3", "vllm-mtp-deepseek",
          drop=(f"{DS61}enorm",), config=Q, says="turns the loaded-weights check off"),
    fires("DSC803", "vllm-qwen3-next-no-fc", "qwen3_next", "vllm-mtp-qwen3-next",
          drop=("mtp.fc.",), says="(mtp.fc.weight): vLLM's weight tracking counts a module"),
    fires("DSC803", "vllm-qwen3-next-no-norm", "qwen3_next", "vllm-mtp-qwen3-next",
          drop=("mtp.norm.",), says="not initialized from checkpoint': mtp.norm.weight"),
    fires("DSC803", "vllm-glm-no-mlp", "glm4_moe", "vllm-mtp-glm4-moe", drop=(f"{DS61}mlp.",),
          says="counts a module with a quant method (a linear layer, a head, FusedMoE experts) "
          f"as loaded: it drafts from uninitialised weights (acceptance near zero, no error); "
          f"{DS61}mlp refused at start-up instead where the block holds"),
    clean("DSC803", "sglang-takes-the-target-head", "deepseek_v3", "sglang-nextn-deepseek",
          drop=(f"{DS61}shared_head.head",)),
    fires("DSC803", "glm-no-enorm", "glm4_moe", "sglang-nextn-glm4-moe",
          drop=(f"{DS61}enorm",), says="uninitialised"),
    clean("DSC803", "glm-enorm", "glm4_moe", "sglang-nextn-glm4-moe"),
    fires("DSC803", "qwen3-next-no-fc", "qwen3_next", "sglang-mtp-qwen3-next",
          drop=("mtp.fc.",), says="mtp.fc.weight"),
    clean("DSC803", "qwen3-next-fc", "qwen3_next", "sglang-mtp-qwen3-next"),
    fires("DSC803", "qwen3.5-no-pre-fc-norm", "qwen3_5", "sglang-mtp-qwen3.5",
          drop=("mtp.pre_fc_norm_hidden",)),
    clean("DSC803", "qwen3.5-whole", "qwen3_5", "sglang-mtp-qwen3.5"),
    fires("DSC803", "mimo-no-input-proj", "mimo", "vllm-mtp-mimo",
          drop=("model.mtp_layers.0.input_proj",), says="input_proj"),
    fires("DSC803", "ernie-no-linear-proj", "ernie", "vllm-mtp-ernie",
          drop=("model.mtp_linear_proj",), says="model.mtp_linear_proj.0.weight"),
    clean("DSC803", "ernie-whole", "ernie", "vllm-mtp-ernie"),
    fires("DSC803", "longcat-no-final-norm", "longcat_flash", "vllm-mtp-longcat-flash",
          drop=("model.mtp.norm",), says="model.mtp.norm.weight"),
    fires("DSC803", "nemotron-no-final-norm", "nemotron_h", "vllm-mtp-nemotron-h",
          drop=("mtp.layers.1.final_layernorm",), says="mtp.layers.1.final_layernorm"),
    clean("DSC803", "nemotron-whole", "nemotron_h", "vllm-mtp-nemotron-h"),
    fires("DSC803", "bailing-no-attention", "bailing", "vllm-mtp-bailing",
          drop=(f"{DS61}attention.",), says=f"{DS61}attention refused at start-up instead where the block holds"),
    clean("DSC803", "bailing-whole", "bailing", "vllm-mtp-bailing"),
    # DSC804: a misshapen draft tensor
    fires("DSC804", "deepseek-eh-proj-square", "deepseek_v3", "vllm-mtp-deepseek",
          shapes={f"{DS61}eh_proj.weight": (MT.H, MT.H)}, says="[8, 16]"),
    clean("DSC804", "deepseek-eh-proj", "deepseek_v3", "vllm-mtp-deepseek"),
    fires("DSC804", "qwen3-next-fc-transposed", "qwen3_next", "vllm-mtp-qwen3-next",
          shapes={"mtp.fc.weight": (2 * MT.H, MT.H)}),
    clean("DSC804", "qwen3-next-fc-packed-int4-not-judged", "qwen3_next",
          "vllm-mtp-qwen3-next", shapes={"mtp.fc.weight": (2 * MT.H, MT.H)}, dtype="U8"),
    fires("DSC804", "qwen3-next-nvfp4-fc-packed", "qwen3_next", "vllm-mtp-qwen3-next",
          shapes={"mtp.fc.weight": (MT.H, MT.H)}, dtype="U8", config=FP4,
          says="is [8, 8], the model builds [8, 16]"),
    clean("DSC804", "qwen3.5-nvfp4-fc-bf16", "qwen3_5", "vllm-mtp-qwen3.5", config=FP4),
    fires("DSC804", "deepseek-head-of-another-vocab", "deepseek_v3", "vllm-mtp-deepseek",
          shapes={f"{DS61}shared_head.head.weight": (MT.V + 1, MT.H)}, says="[33, 8]"),
    # DSC805: more layers than the runtime loads
    fires("DSC805", "sglang-deepseek-two", "deepseek_v3", "sglang-nextn-deepseek",
          config={"num_nextn_predict_layers": 2}, says="at most 1"),
    clean("DSC805", "vllm-deepseek-two", "deepseek_v3", "vllm-mtp-deepseek",
          config={"num_nextn_predict_layers": 2},
          extra={f"model.layers.{N + 1}.{k[len(DS61):]}": v
                 for k, v in MT.FAMILIES["deepseek_v3"][1].items()}),
    fires("DSC805", "nemotron-two-steps", "nemotron_h", "vllm-mtp-nemotron-h",
          config={"num_nextn_predict_layers": 2}),
    fires("DSC805", "ernie-two", "ernie", "vllm-mtp-ernie",
          config={"num_nextn_predict_layers": 2}),
    fires("DSC805", "deepseek-a-billion-layers-not-walked", "deepseek_v3", "vllm-mtp-deepseek",
          config={"num_nextn_predict_layers": 10**9}, says="at most 4096"),
    clean("DSC801", "deepseek-count-true-reads-as-1", "deepseek_v3", "vllm-mtp-deepseek",
          config={"num_nextn_predict_layers": True}),
    clean("DSC805", "sglang-qwen3-next-fixes-one", "qwen3_next", "sglang-mtp-qwen3-next",
          config={"num_nextn_predict_layers": 3}),
    # DSC806: layers stored past the count
    fires("DSC806", "deepseek-stores-two-declares-one", "deepseek_v3", "vllm-mtp-deepseek",
          extra={f"model.layers.{N + 1}.enorm.weight": (MT.H,)}, says="model.layers.3.*"),
    clean("DSC806", "deepseek-stores-one", "deepseek_v3", "vllm-mtp-deepseek"),
    fires("DSC806", "sglang-qwen3-next-second-unused", "qwen3_next", "sglang-mtp-qwen3-next",
          extra={"mtp.layers.1.input_layernorm.weight": (MT.H,)}, says="mtp.layers.1.*"),
    # the families added beside them: openPangu, EXAONE MoE / 4.5, Hunyuan V3, MiMo-V2
    fires("DSC802", "openpangu-dropped", "openpangu", "vllm-mtp-openpangu", drop=(DS61,),
          says="Following weights were not initialized"),
    clean("DSC802", "openpangu-kept", "openpangu", "vllm-mtp-openpangu"),
    fires("DSC803", "exaone-moe-no-fc", "exaone_moe", "vllm-mtp-exaone-moe",
          drop=("mtp.fc.",), says="(mtp.fc.weight): vLLM's weight tracking counts"),
    clean("DSC803", "exaone-moe-whole", "exaone_moe", "vllm-mtp-exaone-moe"),
    fires("DSC802", "exaone4.5-dropped", "exaone4_5", "vllm-mtp-exaone4.5",
          drop=("mtp.layers.",)),
    clean("DSC802", "exaone4.5-kept", "exaone4_5", "vllm-mtp-exaone4.5"),
    fires("DSC803", "hy-v3-no-final-norm-silent", "hy_v3", "vllm-mtp-hy-v3",
          drop=(f"{DS61}final_layernorm",), says="nothing checks"),
    clean("DSC803", "hy-v3-head-from-the-target", "hy_v3", "vllm-mtp-hy-v3"),
    fires("DSC806", "mimo-v2-three-stored-one-loaded", "mimo_v2", "vllm-mtp-mimo-v2",
          says="model.mtp.layers.1.*"),
    clean("DSC806", "mimo-v2-one-stored", "mimo_v2", "vllm-mtp-mimo-v2",
          drop=("model.mtp.layers.1.", "model.mtp.layers.2.")),
    fires("DSC803", "mimo-v2-no-pre-mlp-norm", "mimo_v2", "vllm-mtp-mimo-v2",
          drop=("model.mtp.layers.0.pre_mlp_layernorm",)),
    # SGLang's MiMo, LongCat, Bailing, Ernie, Nemotron-H and Qwen3-MoE drafts
    fires("DSC808", "sglang-mimo-two-layers-stack", "mimo", "sglang-mtp-mimo",
          extra={"model.mtp_layers.1.input_proj.weight": (MT.H, 2 * MT.H)},
          says="model.mtp_layers.1.* are read into its one draft layer"),
    clean("DSC808", "sglang-mimo-one-layer", "mimo", "sglang-mtp-mimo"),
    clean("DSC808", "vllm-mimo-loads-each-layer", "mimo", "vllm-mtp-mimo",
          config={"num_nextn_predict_layers": 2},
          extra={f"model.mtp_layers.1.{k[len('model.mtp_layers.0.'):]}": v
                 for k, v in MT.FAMILIES["mimo"][1].items()}),
    clean("DSC806", "sglang-mimo-stacks-not-ignores", "mimo", "sglang-mtp-mimo",
          extra={"model.mtp_layers.1.input_proj.weight": (MT.H, 2 * MT.H)}),
    fires("DSC803", "sglang-longcat-no-enorm", "longcat_flash", "sglang-nextn-longcat-flash",
          drop=("model.mtp.layers.0.enorm",), says="uninitialised"),
    clean("DSC803", "sglang-longcat-whole", "longcat_flash", "sglang-nextn-longcat-flash"),
    fires("DSC805", "sglang-bailing-two", "bailing_v2", "sglang-nextn-bailing",
          config={"num_nextn_predict_layers": 2}),
    clean("DSC805", "sglang-bailing-one", "bailing_v2", "sglang-nextn-bailing"),
    fires("DSC801", "sglang-bailing-no-count", "bailing_v2", "sglang-nextn-bailing",
          config={"num_nextn_predict_layers": None}),
    fires("DSC802", "sglang-ernie-dropped", "ernie", "sglang-mtp-ernie",
          drop=("model.mtp_",), says="not found in weights"),
    clean("DSC802", "sglang-ernie-kept", "ernie", "sglang-mtp-ernie"),
    fires("DSC802", "sglang-nemotron-dropped", "nemotron_h", "sglang-mtp-nemotron-h",
          drop=("mtp.",), says="mtp.layers.0.*, mtp.layers.1.*"),
    clean("DSC802", "sglang-nemotron-kept", "nemotron_h", "sglang-mtp-nemotron-h"),
    fires("DSC802", "sglang-qwen3-moe-without-mtp", "qwen3_moe", "sglang-mtp-qwen3-moe",
          drop=("mtp.",)),
    clean("DSC802", "sglang-qwen3-moe-with-mtp", "qwen3_moe", "sglang-mtp-qwen3-moe"),
    # the families whose vLLM source lies under vllm/models/<family>/: GLM-5 Next
    fires("DSC802", "glm5-next-dropped-quantised", "glm5_next", "vllm-mtp-glm5-next",
          drop=(DS61,), config=Q, says="MTP speculative decoding layer 2 weights missing"),
    clean("DSC802", "glm5-next-kept", "glm5_next", "vllm-mtp-glm5-next"),
    fires("DSC801", "glm5-next-no-count", "glm5_next", "vllm-mtp-glm5-next",
          config={"num_nextn_predict_layers": None}),
    fires("DSC803", "glm5-next-vl-no-eh-proj", "glm5_next_vl", "vllm-mtp-glm5-next",
          drop=("model.language_model.layers.2.eh_proj",),
          says="model.language_model.layers.2.eh_proj"),
    fires("DSC802", "glm5-next-vl-dropped", "glm5_next_vl", "vllm-mtp-glm5-next",
          drop=("model.language_model.layers.2.",)),
    clean("DSC802", "glm5-next-vl-kept-under-language-model", "glm5_next_vl",
          "vllm-mtp-glm5-next"),
    clean("DSC802", "glm5-next-vl-kept-under-model-layers", "glm5_next_vl",
          "vllm-mtp-glm5-next", drop=("model.language_model.layers.2.",),
          extra=MT.FAMILIES["glm5_next"][1]),
    fires("DSC806", "glm5-next-vl-second-layer-unused", "glm5_next_vl", "vllm-mtp-glm5-next",
          extra={"model.language_model.layers.3.enorm.weight": (MT.H,)},
          says="model.language_model.layers.3.*"),
    fires("DSC802", "sglang-glm5-next-dropped", "glm5_next_vl", "sglang-nextn-glm5-next",
          drop=("model.language_model.layers.2.",), says="uninitialised"),
    clean("DSC802", "sglang-glm5-next-kept", "glm5_next_vl", "sglang-nextn-glm5-next"),
    fires("DSC803", "sglang-glm5-next-no-hnorm", "glm5_next_vl", "sglang-nextn-glm5-next",
          drop=("model.language_model.layers.2.hnorm",)),
    clean("DSC805", "sglang-glm5-next-fixes-one", "glm5_next_vl", "sglang-nextn-glm5-next",
          config={"text.num_nextn_predict_layers": 3}),
    # Kimi K3 (vLLM): its layers under language_model.model.layers, or model.layers
    fires("DSC802", "kimi-k3-dropped", "kimi_k3", "vllm-mtp-kimi-k3",
          drop=("language_model.model.layers.2.",), says="MTP speculative decoding layer 2"),
    clean("DSC802", "kimi-k3-kept", "kimi_k3", "vllm-mtp-kimi-k3"),
    fires("DSC803", "kimi-k3-no-own-head", "kimi_k3", "vllm-mtp-kimi-k3",
          drop=("language_model.model.layers.2.shared_head.head",),
          says="language_model.model.layers.2.shared_head.head.weight"),
    clean("DSC803", "kimi-k3-whole-under-model-layers", "kimi_k3", "vllm-mtp-kimi-k3",
          drop=("language_model.",), extra=MT.FAMILIES["deepseek_v3"][1]),
    fires("DSC801", "kimi-k3-no-count", "kimi_k3", "vllm-mtp-kimi-k3",
          config={"text.num_nextn_predict_layers": None}),
    # GLM-5 (DSA) under SGLang: DeepSeek's NextN loader
    fires("DSC802", "sglang-glm5-dsa-dropped", "glm_moe_dsa", "sglang-nextn-glm-moe-dsa",
          drop=(DS61,), says="uninitialised"),
    clean("DSC802", "sglang-glm5-dsa-kept", "glm_moe_dsa", "sglang-nextn-glm-moe-dsa"),
    fires("DSC805", "sglang-glm5-dsa-two", "glm_moe_dsa", "sglang-nextn-glm-moe-dsa",
          config={"num_nextn_predict_layers": 2}, says="at most 1"),
    clean("DSC802", "vllm-glm5-dsa-kept", "glm_moe_dsa", "vllm-mtp-deepseek-v32"),
    # dots3 note (vLLM): DeepSeek V3.2's MTP loader
    fires("DSC802", "dots3-note-dropped", "dots3_note", "vllm-mtp-dots3-note", drop=(DS61,),
          says="MTP speculative decoding layer 2 weights missing"),
    clean("DSC802", "dots3-note-kept", "dots3_note", "vllm-mtp-dots3-note"),
    clean("DSC801", "dots3-note-no-count-defaults-to-1", "dots3_note", "vllm-mtp-dots3-note",
          config={"num_nextn_predict_layers": None}),
    # Intern-S2-Mobius (vLLM): Qwen3.5-MoE's MTP
    fires("DSC802", "interns2-mobius-dropped", "interns2_mobius", "vllm-mtp-interns2-mobius",
          drop=("mtp.layers.",), says="mtp.layers.0.*"),
    clean("DSC802", "interns2-mobius-kept", "interns2_mobius", "vllm-mtp-interns2-mobius"),
    # EXAONE MoE under SGLang: one draft layer, mtp.fc and its norms once
    fires("DSC803", "sglang-exaone-moe-no-fc", "exaone_moe", "sglang-mtp-exaone-moe",
          drop=("mtp.fc.",), says="uninitialised"),
    clean("DSC803", "sglang-exaone-moe-whole", "exaone_moe", "sglang-mtp-exaone-moe"),
    fires("DSC802", "sglang-exaone-moe-dropped", "exaone_moe", "sglang-mtp-exaone-moe",
          drop=("mtp.layers.",)),
    # Hunyuan V3 under SGLang: one layer, its final_layernorm read as shared_head.norm
    fires("DSC803", "sglang-hy-v3-no-final-norm", "hy_v3", "sglang-nextn-hy-v3",
          drop=(f"{DS61}final_layernorm",), says="uninitialised"),
    clean("DSC803", "sglang-hy-v3-whole", "hy_v3", "sglang-nextn-hy-v3"),
    clean("DSC805", "sglang-hy-v3-fixes-one", "hy_v3", "sglang-nextn-hy-v3",
          config={"num_nextn_predict_layers": 2}),
    # GLM-4 MoE Lite under SGLang: GLM's NextN loader, no default count
    fires("DSC801", "sglang-glm4-moe-lite-no-count", "glm4_moe_lite",
          "sglang-nextn-glm4-moe-lite", config={"num_nextn_predict_layers": None}),
    fires("DSC802", "sglang-glm4-moe-lite-dropped", "glm4_moe_lite",
          "sglang-nextn-glm4-moe-lite", drop=(DS61,)),
    clean("DSC802", "sglang-glm4-moe-lite-kept", "glm4_moe_lite", "sglang-nextn-glm4-moe-lite"),
    # Bailing MoE V3 (vLLM): Bailing V2.5's layout with self_attn
    fires("DSC802", "bailing-v3-dropped", "bailing_v3", "vllm-mtp-bailing-v3", drop=(DS61,),
          says="Bailing V3 MTP speculative decoding layer 2 weights are missing"),
    clean("DSC802", "bailing-v3-kept", "bailing_v3", "vllm-mtp-bailing-v3"),
    fires("DSC803", "bailing-v3-no-attention", "bailing_v3", "vllm-mtp-bailing-v3",
          drop=(f"{DS61}self_attn.",), says=f"{DS61}self_attn"),
    # MiMo-V2 under SGLang: every model.mtp.layers.{i} read into its one layer
    fires("DSC808", "sglang-mimo-v2-three-stack", "mimo_v2", "sglang-mtp-mimo-v2",
          says="model.mtp.layers.1.*"),
    clean("DSC808", "sglang-mimo-v2-one-stored", "mimo_v2", "sglang-mtp-mimo-v2",
          drop=("model.mtp.layers.1.", "model.mtp.layers.2.")),
    fires("DSC803", "sglang-mimo-v2-no-enorm", "mimo_v2", "sglang-mtp-mimo-v2",
          drop=("model.mtp.layers.0.enorm",), says="uninitialised"),
    # MiMo-V2-Omni (vLLM): MiMo-V2's MTP, its first layer only
    fires("DSC806", "mimo-v2-omni-three-stored-one-loaded", "mimo_v2_omni",
          "vllm-mtp-mimo-v2-omni", says="model.mtp.layers.1.*"),
    fires("DSC802", "mimo-v2-omni-dropped", "mimo_v2_omni", "vllm-mtp-mimo-v2-omni",
          drop=("model.mtp.layers.0.",)),
    clean("DSC802", "mimo-v2-omni-kept", "mimo_v2_omni", "vllm-mtp-mimo-v2-omni"),
    # MiniMax M3 (vLLM): language_model.model.mtp.layers.{i}, counted by num_mtp_modules
    fires("DSC802", "minimax-m3-two-modules-one-stored", "minimax_m3", "vllm-mtp-minimax-m3",
          config={"text.num_mtp_modules": 2},
          says="Failed to load MTP layer 1 weights from checkpoint"),
    clean("DSC802", "minimax-m3-one", "minimax_m3", "vllm-mtp-minimax-m3"),
    clean("DSC801", "minimax-m3-no-count-defaults-to-1", "minimax_m3", "vllm-mtp-minimax-m3",
          config={"text.num_mtp_modules": None}),
    fires("DSC803", "minimax-m3-no-final-norm", "minimax_m3", "vllm-mtp-minimax-m3",
          drop=("language_model.model.mtp.layers.0.final_layernorm",),
          says="language_model.model.mtp.layers.0.final_layernorm.weight"),
    fires("DSC804", "minimax-m3-eh-proj-square", "minimax_m3", "vllm-mtp-minimax-m3",
          shapes={"language_model.model.mtp.layers.0.eh_proj.weight": (MT.H, MT.H)}),
    # Step-3.5 / Step-3.7 (vLLM, SGLang) and Step5 (vLLM): strict loaders, quantised or not
    clean("DSC803", "step3p5-whole-head-as-output", "step3p5", "vllm-mtp-step3p5"),
    fires("DSC803", "step3p5-no-hnorm-quantised-still-refused", "step3p5", "vllm-mtp-step3p5",
          drop=("model.layers.3.hnorm",), config=Q,
          says="refused at start-up, the target quantised (fp8) or not"),
    fires("DSC802", "step3p5-second-layer-dropped", "step3p5", "vllm-mtp-step3p5",
          drop=("model.layers.3.",), says="Some parameters like"),
    clean("DSC802", "step3p5-both-layers", "step3p5", "vllm-mtp-step3p5"),
    fires("DSC801", "step3p5-no-count", "step3p5", "vllm-mtp-step3p5",
          config={"num_nextn_predict_layers": None}),
    clean("DSC803", "step3p5-moe-draft-layer", "step3p5", "vllm-mtp-step3p5",
          drop=("model.layers.2.mlp.",), extra=MT._step_layer("model.layers.2.", mlp="moe")),
    fires("DSC809", "step3p5-eh-proj-quantised-scale", "step3p5", "vllm-mtp-step3p5",
          extra={"model.layers.2.eh_proj.weight_scale_inv": (1, 1)},
          says="model.layers.2.eh_proj.weight_scale_inv"),
    clean("DSC809", "step3p5-eh-proj-bias-skipped", "step3p5", "vllm-mtp-step3p5",
          extra={"model.layers.2.eh_proj.bias": (MT.H,)}),
    fires("DSC809", "step3p5-fused-projection-under-transformer", "step3p5",
          "vllm-mtp-step3p5", drop=("model.layers.2.self_attn.",),
          extra={"model.layers.2.transformer.self_attn.q_proj.weight": (MT.H, MT.H)},
          says="model.layers.2.transformer.self_attn.q_proj.weight"),
    clean("DSC809", "step3p5-norm-under-transformer", "step3p5", "vllm-mtp-step3p5",
          drop=("model.layers.2.input_layernorm",),
          extra={"model.layers.2.transformer.input_layernorm.weight": (MT.H,)}),
    clean("DSC803", "step3p5-norm-under-transformer-is-read", "step3p5", "vllm-mtp-step3p5",
          drop=("model.layers.2.input_layernorm",),
          extra={"model.layers.2.transformer.input_layernorm.weight": (MT.H,)}),
    clean("DSC809", "sglang-step3p5-fused-projection-under-transformer", "step3p5",
          "sglang-mtp-step3p5", drop=("model.layers.2.self_attn.",),
          extra={"model.layers.2.transformer.self_attn.q_proj.weight": (MT.H, MT.H)}),
    clean("DSC803", "sglang-step3p5-attention-under-transformer-is-read", "step3p5",
          "sglang-mtp-step3p5", drop=("model.layers.2.self_attn.",),
          extra={"model.layers.2.transformer.self_attn.q_proj.weight": (MT.H, MT.H)}),
    fires("DSC809", "sglang-step3p5-hnorm-scale", "step3p5", "sglang-mtp-step3p5",
          extra={"model.layers.3.hnorm.weight_scale": (1,)}, says="KeyError"),
    fires("DSC802", "sglang-step3p5-second-dropped", "step3p5", "sglang-mtp-step3p5",
          drop=("model.layers.3.",),
          says="speculative_num_steps up to 1 reads only whole layers, 2 or more does not"),
    fires("DSC803", "sglang-step3p5-first-no-enorm", "step3p5", "sglang-mtp-step3p5",
          drop=("model.layers.2.enorm",), says="none avoids it"),
    clean("DSC802", "sglang-step3p5-kept", "step3p5", "sglang-mtp-step3p5"),
    clean("DSC802", "step3p7-kept", "step3p7", "vllm-mtp-step3p5"),
    fires("DSC802", "sglang-step3p7-dropped", "step3p7", "sglang-mtp-step3p5",
          drop=("model.layers.2.",), says="Some parameters like"),
    clean("DSC810", "step5-dense-draft-layer", "step5", "vllm-mtp-step5"),
    clean("DSC810", "step5-default-moe-layers-below-the-decoder", "step5", "vllm-mtp-step5",
          config={"moe_layers_enum": None}),
    fires("DSC810", "step5-enum-lists-the-draft-layer", "step5", "vllm-mtp-step5",
          config={"moe_layers_enum": "1,2"}, says="Step5 MTP supports dense draft layers only"),
    fires("DSC810", "step5-list-lists-the-draft-layer", "step5", "vllm-mtp-step5",
          config={"moe_layers_enum": None, "moe_layer_list": [1, 2]}, says="model.layers.2"),
    fires("DSC803", "step5-no-head-quantised", "step5", "vllm-mtp-step5",
          drop=("model.layers.2.shared_head.output",), config=Q,
          says="model.layers.2.shared_head.head.weight"),
    clean("DSC803", "step5-layer-stored-as-layers", "step5", "vllm-mtp-step5",
          drop=("model.layers.2.",), extra=MT._step_layer("layers.2.")),
    clean("DSC809", "step5-skips-an-unexpected-name", "step5", "vllm-mtp-step5",
          extra={"model.layers.2.eh_proj.weight_scale_inv": (1, 1)}),
    fires("DSC801", "step5-no-count-config-default-0", "step5", "vllm-mtp-step5",
          config={"num_nextn_predict_layers": None}),
    # Hunyuan V4: vLLM reads model.mtp_layers.{k} or model.layers.{N + k} (the latter for
    # max(n - 1, 1) layers of the max(n, 1) it builds); SGLang model.mtp_layers.0 alone
    clean("DSC802", "hy-v4-kept-under-mtp-layers", "hy_v4", "vllm-mtp-hy-v4"),
    clean("DSC802", "hy-v4-kept-under-model-layers", "hy_v4", "vllm-mtp-hy-v4",
          drop=("model.mtp_layers.",), extra=MT._hy_v4_layer(f"model.layers.{N}.")),
    fires("DSC802", "hy-v4-two-declared-one-exported", "hy_v4", "vllm-mtp-hy-v4",
          config={"num_nextn_predict_layers": 2},
          says="(model.mtp_layers.1.*): refused at start-up ('Following weights"),
    fires("DSC802", "hy-v4-second-under-model-layers-not-read", "hy_v4", "vllm-mtp-hy-v4",
          config={"num_nextn_predict_layers": 2},
          extra=MT._hy_v4_layer(f"model.layers.{N + 1}."), says="model.mtp_layers.1.*"),
    clean("DSC802", "hy-v4-two-declared-both-exported", "hy_v4", "vllm-mtp-hy-v4",
          config={"num_nextn_predict_layers": 2}, extra=MT._hy_v4_layer("model.mtp_layers.1.")),
    clean("DSC801", "hy-v4-zero-builds-one", "hy_v4", "vllm-mtp-hy-v4",
          config={"num_nextn_predict_layers": 0}),
    fires("DSC803", "hy-v4-no-final-norm-quantised", "hy_v4", "vllm-mtp-hy-v4",
          drop=("model.mtp_layers.0.final_layernorm",), config=Q, says="quantised (fp8)"),
    fires("DSC806", "hy-v4-second-stored-one-declared", "hy_v4", "vllm-mtp-hy-v4",
          extra={"model.mtp_layers.1.enorm.weight": (MT.H,)}, says="model.mtp_layers.1.*"),
    clean("DSC806", "hy-v4-one-stored-one-declared", "hy_v4", "vllm-mtp-hy-v4"),
    fires("DSC803", "sglang-hy-v4-no-final-norm", "hy_v4", "sglang-nextn-hy-v4",
          drop=("model.mtp_layers.0.final_layernorm",), says="uninitialised"),
    clean("DSC803", "sglang-hy-v4-whole", "hy_v4", "sglang-nextn-hy-v4"),
    fires("DSC802", "sglang-hy-v4-under-model-layers-not-read", "hy_v4", "sglang-nextn-hy-v4",
          drop=("model.mtp_layers.",), extra=MT._hy_v4_layer(f"model.layers.{N}."),
          says="model.mtp_layers.0.*"),
    fires("DSC806", "sglang-hy-v4-second-never-read", "hy_v4", "sglang-nextn-hy-v4",
          config={"num_nextn_predict_layers": 2}, extra=MT._hy_v4_layer("model.mtp_layers.1."),
          says="model.mtp_layers.1.*"),
    # DeepSeek V4: mtp.{k}.* under V4's own names, hyper-connection tensors stored bare
    clean("DSC803", "deepseek-v4-whole", "deepseek_v4", "vllm-mtp-deepseek-v4"),
    fires("DSC803", "deepseek-v4-no-hc-head-fn", "deepseek_v4", "vllm-mtp-deepseek-v4",
          drop=("mtp.0.hc_head_fn",), says="not initialized from checkpoint': mtp.0.hc_head_fn"),
    # its e_proj is a ReplicatedLinear (deepseek_v4/nvidia/mtp.py:103): counted as loaded
    fires("DSC803", "deepseek-v4-no-e-proj", "deepseek_v4", "vllm-mtp-deepseek-v4",
          drop=("mtp.0.e_proj",), says="vLLM's weight tracking counts a module with a quant"),
    fires("DSC803", "deepseek-v4-no-ffn-mix-quantised", "deepseek_v4", "vllm-mtp-deepseek-v4",
          drop=("mtp.0.hc_ffn_fn",), config=Q, says="uninitialised"),
    fires("DSC804", "deepseek-v4-mix-of-another-hc", "deepseek_v4", "vllm-mtp-deepseek-v4",
          config={"hc_mult": 2}, says="mtp.0.hc_attn_fn is [24, 32], the model builds [8, 16]"),
    clean("DSC804", "deepseek-v4-mix-shapes", "deepseek_v4", "vllm-mtp-deepseek-v4"),
    fires("DSC802", "deepseek-v4-dropped", "deepseek_v4", "vllm-mtp-deepseek-v4",
          drop=("mtp.",), says="MTP speculative decoding layer 2 weights missing"),
    fires("DSC802", "deepseek-v4-two-declared-one-stored", "deepseek_v4",
          "vllm-mtp-deepseek-v4", config={"num_nextn_predict_layers": 2}, says="mtp.1.*"),
    clean("DSC802", "deepseek-v4-second-under-model-layers", "deepseek_v4",
          "vllm-mtp-deepseek-v4", config={"num_nextn_predict_layers": 2},
          extra=MT._deepseek_v4_layer(f"model.layers.{N + 1}.")),
    fires("DSC806", "deepseek-v4-second-stored-one-declared", "deepseek_v4",
          "vllm-mtp-deepseek-v4", extra=MT._deepseek_v4_layer("mtp.1."), says="mtp.1.*"),
    fires("DSC803", "sglang-deepseek-v4-no-e-proj", "deepseek_v4", "sglang-nextn-deepseek-v4",
          drop=("mtp.0.e_proj",), says="uninitialised"),
    clean("DSC803", "sglang-deepseek-v4-whole-head-from-target", "deepseek_v4",
          "sglang-nextn-deepseek-v4", drop=("mtp.0.head.",)),
    fires("DSC806", "sglang-deepseek-v4-second-never-read", "deepseek_v4",
          "sglang-nextn-deepseek-v4", extra=MT._deepseek_v4_layer("mtp.1."), says="mtp.1.*"),
    # Qwen4Exp: fc_embedding / fc_hidden / pre_fc_norm_hidden (hc_count x H) / the mixer,
    # once; vLLM reads them under mtp. or a language-model prefix, SGLang under mtp. alone
    clean("DSC803", "qwen4-exp-whole", "qwen4_exp", "vllm-mtp-qwen4-exp"),
    fires("DSC803", "qwen4-exp-no-fc-hidden", "qwen4_exp", "vllm-mtp-qwen4-exp",
          drop=("mtp.fc_hidden",), says="mtp.fc_hidden.weight"),
    fires("DSC804", "qwen4-exp-pre-fc-norm-hidden-one-stream", "qwen4_exp",
          "vllm-mtp-qwen4-exp", shapes={"mtp.pre_fc_norm_hidden.weight": (MT.H,)},
          says="is [8], the model builds [16]"),
    clean("DSC804", "qwen4-exp-pre-fc-norm-hidden-two-streams", "qwen4_exp",
          "vllm-mtp-qwen4-exp"),
    clean("DSC803", "qwen4-exp-under-model-language-model", "qwen4_exp", "vllm-mtp-qwen4-exp",
          drop=("mtp.",), extra=MT._qwen4_exp("model.language_model.mtp.")),
    clean("DSC802", "qwen4-exp-layer-under-language-model", "qwen4_exp", "vllm-mtp-qwen4-exp",
          drop=("mtp.",), extra=MT._qwen4_exp("language_model.mtp.")),
    fires("DSC802", "qwen4-exp-two-declared-one-stored", "qwen4_exp", "vllm-mtp-qwen4-exp",
          config={"text.mtp_num_hidden_layers": 2}, says="mtp.layers.1.*"),
    clean("DSC803", "sglang-qwen4-exp-whole", "qwen4_exp", "sglang-mtp-qwen4-exp"),
    fires("DSC803", "sglang-qwen4-exp-reads-mtp-names-only", "qwen4_exp",
          "sglang-mtp-qwen4-exp", drop=("mtp.",),
          extra=MT._qwen4_exp("model.language_model.mtp."), says="mtp.fc_embedding.weight"),
    fires("DSC803", "sglang-qwen4-exp-no-mixer", "qwen4_exp", "sglang-mtp-qwen4-exp",
          drop=("mtp.hyper_connection_mixer",), says="uninitialised"),
    # Inkling (vLLM): strict; depth k is built for num_speculative_tokens above k
    clean("DSC802", "inkling-three-depths", "inkling", "vllm-mtp-inkling"),
    fires("DSC802", "inkling-third-depth-dropped", "inkling", "vllm-mtp-inkling",
          drop=("model.mtp.layers.2.",),
          says="num_speculative_tokens up to 2 reads only whole layers, 3 or more does not"),
    fires("DSC803", "inkling-first-depth-no-input-proj-quantised", "inkling",
          "vllm-mtp-inkling", drop=("model.mtp.layers.0.input_proj",), config=Q,
          says="missing required parameters"),
    fires("DSC801", "inkling-no-mtp-config", "inkling", "vllm-mtp-inkling",
          config={"mtp_config": None}),
    clean("DSC801", "inkling-mtp-config-count", "inkling", "vllm-mtp-inkling"),
    fires("DSC809", "inkling-norm-scale", "inkling", "vllm-mtp-inkling",
          extra={"model.mtp.layers.1.embed_norm.weight_scale": (1,)},
          says="Unexpected Inkling MTP weight"),
    clean("DSC809", "inkling-norm-bias-skipped", "inkling", "vllm-mtp-inkling",
          extra={"model.mtp.layers.1.embed_norm.bias": (MT.H,)}),
    # SGLang's multi-layer EAGLE loaders: draft worker k reads layer k alone
    clean("DSC802", "sglang-gigachat35-two-heads", "gigachat35", "sglang-nextn-gigachat35"),
    fires("DSC802", "sglang-gigachat35-second-head-dropped", "gigachat35",
          "sglang-nextn-gigachat35", drop=(f"model.layers.{N + 1}.",),
          says="speculative_num_steps up to 1 reads only whole layers, 2 or more does not"),
    fires("DSC803", "sglang-gigachat35-first-no-eh-proj", "gigachat35",
          "sglang-nextn-gigachat35", drop=(f"{DS61}eh_proj",), says="none avoids it"),
    fires("DSC801", "sglang-gigachat35-no-count", "gigachat35", "sglang-nextn-gigachat35",
          config={"num_nextn_predict_layers": None}),
    clean("DSC802", "sglang-inkling-three-depths-counted-by-n-layers", "inkling",
          "sglang-mtp-inkling", config={"mtp_config": {"n_layers": 3}}),
    fires("DSC802", "sglang-inkling-no-n-layers-defaults-to-8", "inkling",
          "sglang-mtp-inkling", says="speculative_num_steps up to 3 reads only whole layers"),
    fires("DSC803", "sglang-inkling-second-depth-no-embed-norm", "inkling",
          "sglang-mtp-inkling", config={"mtp_config": {"n_layers": 3}},
          drop=("model.mtp.layers.1.embed_norm",), says="unloaded RMSNorm stays all-ones"),
    # SGLang's dots3 note (its Dots3Config fixes one layer) and GLM-OCR NextN loaders
    clean("DSC802", "sglang-dots3-note-kept", "dots3_note", "sglang-nextn-dots3-note"),
    fires("DSC802", "sglang-dots3-note-dropped", "dots3_note", "sglang-nextn-dots3-note",
          drop=(DS61,), says="uninitialised"),
    clean("DSC805", "sglang-dots3-note-fixes-one", "dots3_note", "sglang-nextn-dots3-note",
          config={"num_nextn_predict_layers": 2}),
    fires("DSC806", "sglang-dots3-note-second-never-read", "dots3_note",
          "sglang-nextn-dots3-note", extra={f"model.layers.{N + 1}.enorm.weight": (MT.H,)},
          says=f"model.layers.{N + 1}.*"),
    clean("DSC802", "sglang-glm-ocr-kept-under-language-model", "glm_ocr",
          "sglang-nextn-glm-ocr"),
    clean("DSC802", "sglang-glm-ocr-kept-under-model-layers", "glm_ocr",
          "sglang-nextn-glm-ocr", drop=("model.language_model.",),
          extra=MT._deepseek_layer(f"model.layers.{N}.", MT.H, MT.V, head=False)),
    fires("DSC802", "sglang-glm-ocr-dropped", "glm_ocr", "sglang-nextn-glm-ocr",
          drop=("model.language_model.",), says=f"model.layers.{N}.*"),
    fires("DSC805", "sglang-glm-ocr-two", "glm_ocr", "sglang-nextn-glm-ocr",
          config={"text.num_nextn_predict_layers": 2}, says="at most 1"),
    fires("DSC801", "sglang-glm-ocr-no-count", "glm_ocr", "sglang-nextn-glm-ocr",
          config={"text.num_nextn_predict_layers": None}),
    # vLLM's GLM-4.7 Flash MTP reads index 0 of the checkpoint the draft is loaded from: the
    # target itself holds its first decoder layer there, a separate MTP export the MTP layer
    fires("DSC803", "glm4-moe-lite-target-is-no-mtp-export", "glm4_moe_lite",
          "vllm-mtp-glm4-moe-lite", says="model.layers.0.enorm.weight"),
    clean("DSC803", "glm4-moe-lite-separate-mtp-export", "glm4_moe_lite",
          "vllm-mtp-glm4-moe-lite", drop=("model.layers.",),
          extra=MT._deepseek_layer("model.layers.0.", MT.H, MT.V)),
    fires("DSC801", "glm4-moe-lite-export-no-count", "glm4_moe_lite", "vllm-mtp-glm4-moe-lite",
          config={"num_nextn_predict_layers": None}),
    # vLLM's GLM-OCR MTP: past the text model's decoder layers (its num_hidden_layers)
    clean("DSC802", "glm-ocr-kept-under-language-model", "glm_ocr", "vllm-mtp-glm-ocr"),
    fires("DSC802", "glm-ocr-dropped", "glm_ocr", "vllm-mtp-glm-ocr",
          drop=("model.language_model.",), says="Following weights were not initialized"),
    fires("DSC803", "glm-ocr-no-hnorm", "glm_ocr", "vllm-mtp-glm-ocr",
          drop=(f"model.language_model.layers.{N}.hnorm",),
          says=f"model.language_model.layers.{N}.hnorm.weight"),
    # Nemotron Parse 3.5's auxiliary step: decoder.extra_proj.0 / extra_heads.0
    clean("DSC803", "parse-aux-whole", "parse_aux", "vllm-mtp-parse-aux"),
    fires("DSC803", "parse-aux-no-extra-head", "parse_aux", "vllm-mtp-parse-aux",
          drop=("decoder.extra_heads.",), says="decoder.extra_heads.0"),
    # IQuest Q1's separate MTP export (SGLang), judged on the export itself
    clean("DSC809", "sglang-iquest-q1-export", "iquest_q1", "sglang-mtp-iquest-q1"),
    fires("DSC809", "sglang-iquest-q1-export-with-a-target-name", "iquest_q1",
          "sglang-mtp-iquest-q1", extra={"model.norm.weight": (MT.H,)},
          says="Unexpected MTP weight"),
    fires("DSC803", "sglang-iquest-q1-export-no-head", "iquest_q1", "sglang-mtp-iquest-q1",
          drop=("lm_head.",), says="lm_head.weight"),
    clean("DSC803", "sglang-iquest-q1-export-whole", "iquest_q1", "sglang-mtp-iquest-q1"),
]  # fmt: skip

# the engine-emitted code: a target no MTP loader is picked for
UNJUDGED_CASES = [
    fires("DSC807", "qwen3-dense-no-mtp", "deepseek_v3", "",
          config={"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3"}),
    clean("DSC807", "deepseek-judged", "deepseek_v3", ""),
]  # fmt: skip
CASES = RULE_CASES + UNJUDGED_CASES  # every code's rows (tests/rules/test_cases.py)


def _write(tmp_path, case: MtpCase):
    return MT.write(
        tmp_path / "t",
        case.family,
        drop=case.drop,
        shapes=case.shapes,
        extra=case.extra,
        config=case.config,
        dtype=case.dtype,
    )


@pytest.mark.parametrize("case", RULE_CASES, ids=lambda c: f"{c.code}-{c.id}")
def test_mtp_rule_case(tmp_path, case):
    check_mtp_case(tmp_path, case)


def check_mtp_case(tmp_path, case: MtpCase) -> None:
    """Write ``case``'s target and hold the findings of the loader it names to the row."""
    t = read_mtp_target(_write(tmp_path, case))
    loader = BY_NAME[case.loader]
    assert loader in loaders_for(t.architecture, t.model_type), "the row's loader is picked"
    found = [f for f in run_loader(t, loader).findings if f.code == case.code]
    if not case.fires:
        assert found == [], [f.message for f in found]
        return
    assert found, f"{case.code} does not fire"
    assert all(f.profile == loader.name for f in found)
    if case.says:
        assert any(case.says in f.message for f in found), [f.message for f in found]


@pytest.mark.parametrize("case", UNJUDGED_CASES, ids=lambda c: c.id)
def test_unjudged_target(tmp_path, case):
    r = inspect_mtp(str(_write(tmp_path, case)))
    assert (r.covered, [f.code for f in r.findings]) == (
        (False, ["DSC807"]) if case.fires else (True, [])
    )


def test_deepseek_v3_at_its_real_sizes(tmp_path):
    """DeepSeek-V3's real config (61 decoder layers, FP8) and its MTP layer 61 at the real
    shapes, sparse: whole it passes both runtimes; re-exported without layer 61, vLLM refuses
    it at start-up and SGLang drafts from uninitialised weights."""
    whole = inspect_mtp(str(MT.deepseek_v3_real(tmp_path / "whole")))
    assert whole.ok and whole.all_findings == []
    assert [(r.loader.name, r.model.layers) for r in whole.runs] == [
        ("vllm-mtp-deepseek", (61,)),
        ("sglang-nextn-deepseek", (61,)),
    ]
    dropped = inspect_mtp(str(MT.deepseek_v3_real(tmp_path / "dropped", drop_mtp=True)))
    assert not dropped.ok
    vllm, sglang = ([f.message for f in r.findings] for r in dropped.runs)
    assert len(vllm) == 1 and "MTP speculative decoding layer 61 weights missing" in vllm[0]
    assert len(sglang) == 1 and "uninitialised weights" in sglang[0]


def test_a_real_sized_misshapen_eh_proj_is_refused(tmp_path):
    t = MT.deepseek_v3_real(tmp_path / "t", eh_proj=(7168, 7168))
    [run] = inspect_mtp(str(t), ["vllm"]).runs[:1]
    assert [(f.code, f.tensor) for f in run.findings] == [
        ("DSC804", "model.layers.61.eh_proj.weight")
    ]
    assert "is [7168, 7168], the model builds [7168, 14336]" in run.findings[0].message
