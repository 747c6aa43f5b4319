"""MTP / NextN drafters: the draft layers a runtime release reads from the TARGET checkpoint.

A multi-token-prediction drafter has no folder of its own. The runtime rewrites the target's
config into its MTP architecture (vLLM ``SpeculativeConfig.hf_config_override``, SGLang
``ModelConfig._config_draft_model``), builds as many draft layers as a config key says, and
loads them from the target's weights: the layers past the last decoder layer
(``model.layers.{num_hidden_layers + i}``), or ``mtp.*``, per family. A quantised or
re-exported target that dropped them fails at start-up or drafts from weights it never got.

One ``MtpLoader`` per (runtime release, MTP architecture), plain data, every field cited
(``cites``, checked by tests/test_citations.py as the profiles' are). ``loader/mtp.py``
compares a target checkpoint against it; ``rules/mtp.py`` says what the runtime does.

Names: a draft layer's stored prefix is ``layer`` with ``{i}`` its stored index (``first``
plus the step, times the physical layers per step); a module is ``(path, shape)``: a shape
(``H``, ``H,2H``, ``V,H``: hidden size, vocab size of the target's text config) names the
exact tensor ``path.weight``, ``None`` a module that must hold some tensor (a decoder block:
its attention and MLP differ by family and by quantisation).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

VLLM = "vLLM 0.33.0"
SGLANG = "SGLang 0.5.23"

# what a runtime does with a draft tensor the checkpoint does not give
# tracked: vLLM's DefaultModelLoader refuses ("Following weights were not initialized from
#   checkpoint") when the model's load_weights returns its loaded names and the target is not
#   quantised; a quantised target turns the tracking off: the parameter stays as allocated
# silent: nothing checks: the parameter keeps what it was allocated with
Missing = Literal["tracked", "silent"]

Module = tuple[str, str | None]

DEEPSEEK_OWN: tuple[Module, ...] = (
    ("enorm", "H"),
    ("hnorm", "H"),
    ("eh_proj", "H,2H"),
    ("shared_head.norm", "H"),
)
DECODER: tuple[Module, ...] = (
    ("input_layernorm", "H"),
    ("post_attention_layernorm", "H"),
    ("self_attn", None),
    ("mlp", None),
)
# DeepSeek V3 and GLM-4 MoE configs: transformers' config classes alias
# num_nextn_predict_layers to num_mtp_layers, default 1
TF_KEYS = ("num_nextn_predict_layers", "num_mtp_layers")
TF_DEFAULT = (
    "transformers 5.x DeepseekV3Config / Glm4MoeConfig (prose: `num_mtp_layers: int = 1`, "
    "attribute_map num_nextn_predict_layers -> num_mtp_layers)"
)
QWEN_NEXT_ONCE: tuple[Module, ...] = (
    ("mtp.fc", "H,2H"),
    ("mtp.pre_fc_norm_embedding", "H"),
    ("mtp.pre_fc_norm_hidden", "H"),
    ("mtp.norm", "H"),
)


@dataclass(frozen=True)
class MtpLoader:
    """What one runtime release's MTP model for one target family reads from the target."""

    name: str  # "vllm-mtp-deepseek": the runtime and the family, as findings name it
    runtime: str  # "vllm" | "sglang"
    release: str
    architecture: str  # the MTP class the runtime builds
    family: str  # in words: "DeepSeek V3/R1"
    # the targets it is picked for: "arch:<architectures[0]>" or "type:<model_type>"
    targets: tuple[str, ...]
    # the layer count: the first of these keys set in the config's top level (and its
    # text_config with ``count_in_text``), else ``count_default`` (None: no draft layer)
    count_keys: tuple[str, ...] = ("num_nextn_predict_layers",)
    count_in_text: bool = False
    count_default: int | None = None
    count_fixed: int | None = None  # the runtime sets the count itself, whatever the config says
    count_max: int | None = None  # a larger count is refused at start-up (an assert)
    first: str = "num_hidden_layers"  # the stored index of draft layer 0: a config key or "0"
    layer: str = "model.layers.{i}"  # a draft layer's stored prefix
    step_pattern: str | None = None  # a config key whose length is the physical layers per step
    own: tuple[Module, ...] = DEEPSEEK_OWN  # in every draft layer
    decoder: tuple[Module, ...] = DECODER  # the decoder block in every draft layer
    first_of_step: tuple[Module, ...] = ()  # only in a step's first physical layer
    last_of_step: tuple[Module, ...] = ()  # only in a step's last physical layer
    once: tuple[Module, ...] = ()  # full names, loaded once for every layer
    # modules built unquantised for an NVFP4 (modelopt_fp4) target: stored packed, their
    # weight meets a full-width parameter
    fp4_unquantised: tuple[str, ...] = ()
    # what the runtime raises for a draft layer with no stored tensor, quantised or not
    # (``{j}``: its stored index); "": nothing checks a layer as a whole
    layer_check: str = ""
    # every stored draft layer is read into the one built (the index is dropped from the
    # name): a layer stored past the count overwrites it
    stacked: bool = False
    missing: Missing = "tracked"
    # the tensors of a layer it takes from the target instead (never read from the layer)
    from_target: tuple[str, ...] = ()
    cites: dict[str, str] = field(default_factory=dict)

    def matches(self, architecture: str | None, model_type: str | None) -> bool:
        return f"arch:{architecture}" in self.targets or f"type:{model_type}" in self.targets


# --- vLLM 0.33.0 -----------------------------------------------------------------------------
M = "vllm/model_executor/models/"
SPEC = "vllm/config/speculative.py"
LOADER = "vllm/model_executor/model_loader/default_loader.py"
TRACKED = (
    f"{LOADER}:512-514 `model_config.quantization is None and loaded_weights is not None`; "
    f"{LOADER}:568-571 `Following weights were not initialized from` (unquantised: refused; "
    "a quantised target turns the tracking off)"
)
SPEC_IDX = f'{M}utils.py:589-595 `f"model.layers.{{base + i}}.",`'

VLLM_DEEPSEEK = MtpLoader(
    name="vllm-mtp-deepseek",
    runtime="vllm",
    release=VLLM,
    architecture="DeepSeekMTPModel",
    family="DeepSeek V3/R1",
    targets=("type:deepseek_v3",),
    count_keys=TF_KEYS,
    count_default=1,
    own=(*DEEPSEEK_OWN, ("shared_head.head", "V,H")),
    layer_check="MTP speculative decoding layer {j} weights missing from checkpoint",
    cites={
        "count_default": TF_DEFAULT,
        "targets": f'{SPEC}:749-762 `"DeepSeekMTPModel"`',
        "count_keys": f"{SPEC}:756 `num_nextn_predict_layers`; {M}deepseek_mtp.py:151-152 "
        "`self.num_mtp_layers = config.num_nextn_predict_layers`",
        "first": f"{M}deepseek_mtp.py:151 `self.mtp_start_layer_idx = config.num_hidden_layers`",
        "layer": SPEC_IDX,
        "own": f"{M}deepseek_mtp.py:85-87 `self.eh_proj = nn.Linear(config.hidden_size * 2`; "
        f"{M}deepseek_mtp.py:61-65 `self.head = ParallelLMHead(`",
        "decoder": f"{M}deepseek_mtp.py:562-565 `mtp_block`",
        "layer_check": f"{M}deepseek_mtp.py:526-533 `MTP speculative decoding layer`",
        "missing": TRACKED,
    },
)
V32 = "vllm/models/deepseek_v32/nvidia/mtp.py"
VLLM_DEEPSEEK_V32 = replace(
    VLLM_DEEPSEEK,
    name="vllm-mtp-deepseek-v32",
    architecture="DeepseekV32MTPModel",
    family="DeepSeek V3.2 / GLM-5 (DSA)",
    targets=("type:deepseek_v32", "type:glm_moe_dsa"),
    cites={
        **VLLM_DEEPSEEK.cites,
        "targets": f'{SPEC}:733 `use_v32_mtp`; {SPEC}:749-762 `"DeepseekV32MTPModel"`; '
        f'{M}registry.py:716 `"vllm.models.deepseek_v32"`',
        "count_keys": f"{SPEC}:756 `num_nextn_predict_layers`; {V32}:175-176 "
        "`self.num_mtp_layers = config.num_nextn_predict_layers`",
        "first": f"{V32}:175 `self.mtp_start_layer_idx = config.num_hidden_layers`",
        "own": f"{V32}:72-74 `self.eh_proj = nn.Linear(config.hidden_size * 2`; "
        f"{V32}:91 `self.shared_head = SharedHead(`",
        "decoder": f"{V32}:334-340 `_rewrite_spec_layer_name`",
        "layer_check": f"{V32}:490-497 `MTP speculative decoding layer`",
        "missing": f"{V32}:498 `return loaded_params`; {TRACKED}",
    },
)
VLLM_GLM4_MOE = MtpLoader(
    name="vllm-mtp-glm4-moe",
    runtime="vllm",
    release=VLLM,
    architecture="Glm4MoeMTPModel",
    family="GLM-4.5 / 4.6 MoE",
    targets=("arch:Glm4MoeForCausalLM",),
    count_keys=TF_KEYS,
    count_default=1,
    from_target=("shared_head.head", "embed_tokens"),
    cites={
        "count_default": TF_DEFAULT,
        "targets": f'{SPEC}:848-856 `"Glm4MoeMTPModel"`',
        "count_keys": f"{SPEC}:850 `num_nextn_predict_layers`; {M}glm4_moe_mtp.py:135-136 "
        "`self.mtp_start_layer_idx = config.num_hidden_layers`",
        "first": f"{M}glm4_moe_mtp.py:135 `self.mtp_start_layer_idx = config.num_hidden_layers`",
        "layer": SPEC_IDX,
        "own": f"{M}glm4_moe_mtp.py:90-94 `self.eh_proj = nn.Linear(config.hidden_size * 2`",
        "decoder": f"{M}glm4_moe_mtp.py:98 `self.mtp_block = Glm4MoeDecoderLayer(`",
        "from_target": f"{M}glm4_moe_mtp.py:273-277 `shared_head.head.weight`",
        "missing": f"{M}glm4_moe_mtp.py:412 `return loaded_params`; {TRACKED}",
    },
)
QWEN_LAYER_CITES = {
    "first": "the draft layers are stored from 0 under mtp.layers",
    "own": f"{M}qwen3_next_mtp.py:79-82 `self.fc = ColumnParallelLinear(` (fc and its norms "
    "are the model's, loaded once: no module of its own in a layer)",
    "decoder": f"{M}qwen3_next_mtp.py:88-95 `Qwen3NextDecoderLayer(`",
}
VLLM_QWEN3_NEXT = MtpLoader(
    name="vllm-mtp-qwen3-next",
    runtime="vllm",
    release=VLLM,
    architecture="Qwen3NextMTP",
    family="Qwen3-Next",
    targets=("type:qwen3_next",),
    count_default=1,
    first="0",
    layer="mtp.layers.{i}",
    own=(),
    once=QWEN_NEXT_ONCE,
    fp4_unquantised=("mtp.fc",),
    cites={
        "fp4_unquantised": f'{M}qwen3_next_mtp.py:70-79 `quant_config.get_name() == "modelopt_fp4"`',
        "targets": f'{SPEC}:908-914 `"Qwen3NextMTP"`',
        "count_keys": f'{M}qwen3_next_mtp.py:63 `getattr(config, "num_nextn_predict_layers", 1)`',
        "count_default": f'{M}qwen3_next_mtp.py:63 `getattr(config, "num_nextn_predict_layers", 1)`',
        **QWEN_LAYER_CITES,
        "layer": f'{M}qwen3_next_mtp.py:238-242 `name = name.replace("mtp.", "model.")`',
        "once": f"{M}qwen3_next_mtp.py:79-82 `self.fc = ColumnParallelLinear(`; "
        f"{M}qwen3_next_mtp.py:107-111 `self.pre_fc_norm_embedding = Qwen3NextRMSNorm(`",
        "missing": f"{M}qwen3_next_mtp.py:244-245 `loader.load_weights`; {TRACKED}",
    },
)
VLLM_QWEN3_5 = MtpLoader(
    name="vllm-mtp-qwen3.5",
    runtime="vllm",
    release=VLLM,
    architecture="Qwen3_5MTP",
    family="Qwen3.5",
    targets=("type:qwen3_5", "type:qwen3_5_text"),
    count_keys=("mtp_num_hidden_layers",),
    count_in_text=True,
    count_default=1,
    first="0",
    layer="mtp.layers.{i}",
    own=(),
    once=QWEN_NEXT_ONCE,
    fp4_unquantised=("mtp.fc",),
    cites={
        "fp4_unquantised": f'{M}qwen3_5_mtp.py:88-98 `quant_config.get_name() == "modelopt_fp4"`',
        "targets": f'{SPEC}:985-1008 `"Qwen3_5MoeMTP" if is_moe else "Qwen3_5MTP"`',
        "count_in_text": f"{SPEC}:998-1001 `text_config = get_hf_text_config(hf_config)`",
        "count_keys": f"{SPEC}:998-1001 `mtp_num_hidden_layers`",
        "count_default": f'{M}qwen3_5_mtp.py:82 `getattr(config, "mtp_num_hidden_layers", 1)`',
        **QWEN_LAYER_CITES,
        "layer": f'{M}qwen3_5_mtp.py:310-315 `name = name.replace("mtp.", "model.")`',
        "once": f"{M}qwen3_5_mtp.py:98-101 `self.fc = ColumnParallelLinear(`; "
        f"{M}qwen3_5_mtp.py:139 `self.pre_fc_norm_embedding`",
        "missing": f"{M}qwen3_5_mtp.py:318-319 `loader.load_weights`; {TRACKED}",
    },
)
VLLM_QWEN3_5_MOE = replace(
    VLLM_QWEN3_5,
    name="vllm-mtp-qwen3.5-moe",
    architecture="Qwen3_5MoeMTP",
    family="Qwen3.5-MoE",
    targets=("type:qwen3_5_moe", "type:qwen3_5_moe_text"),
)
VLLM_MIMO = MtpLoader(
    name="vllm-mtp-mimo",
    runtime="vllm",
    release=VLLM,
    architecture="MiMoMTPModel",
    family="MiMo",
    targets=("arch:MiMoForCausalLM",),
    first="0",
    layer="model.mtp_layers.{i}",
    own=(
        ("token_layernorm", "H"),
        ("hidden_layernorm", "H"),
        ("input_proj", "H,2H"),
        ("final_layernorm", "H"),
    ),
    cites={
        "targets": f'{SPEC}:795-804 `"MiMoMTPModel"`',
        "count_keys": f"{SPEC}:797 `num_nextn_predict_layers`",
        "first": f'{SPEC}:799-801 `"num_hidden_layers": 0`; {M}mimo_mtp.py:96 '
        "`self.mtp_start_layer_idx = config.num_hidden_layers`",
        "layer": f'{M}mimo_mtp.py:181-184 `f"model.mtp_layers.{{i}}."`',
        "own": f"{M}mimo_mtp.py:54-58 `self.input_proj = nn.Linear(`",
        "decoder": f"{M}mimo_mtp.py:167-173 `.mtp_block.self_attn.`",
        "missing": f"{M}mimo_mtp.py:215-222 `loader.load_weights`; {TRACKED}",
    },
)
VLLM_ERNIE = MtpLoader(
    name="vllm-mtp-ernie",
    runtime="vllm",
    release=VLLM,
    architecture="ErnieMTPModel",
    family="Ernie 4.5 MoE",
    targets=("type:ernie4_5_moe",),
    count_max=1,
    first="0",
    layer="model",
    own=(
        ("mtp_emb_norm.{i}", "H"),
        ("mtp_hidden_norm.{i}", "H"),
        ("mtp_linear_proj.{i}", "H,2H"),
    ),
    decoder=tuple((f"mtp_block.{{i}}.{path}", shape) for path, shape in DECODER),
    cites={
        "targets": f'{SPEC}:880-886 `"ErnieMTPModel"`',
        "count_keys": f"{SPEC}:883 `num_nextn_predict_layers`; {M}ernie_mtp.py:92 "
        "`self.num_mtp_layers = config.num_nextn_predict_layers`",
        "count_max": f'{M}ernie_mtp.py:149-160 `"model.mtp_emb_norm.0."` (only the .0 '
        "block is mapped: a second layer's weights never reach the model)",
        "first": f"{M}ernie_mtp.py:149-153 `spec_layer = self.config.num_hidden_layers`",
        "layer": f'{M}ernie_mtp.py:153-160 `"model.mtp_block.0."`',
        "own": f"{M}ernie_mtp.py:53-57 `self.mtp_linear_proj = nn.Linear(`",
        "decoder": f"{M}ernie_mtp.py:58 `self.mtp_block = LlamaDecoderLayer(`",
        "missing": f"{M}ernie_mtp.py:211-218 `loader.load_weights`; {TRACKED}",
    },
)
VLLM_LONGCAT = MtpLoader(
    name="vllm-mtp-longcat-flash",
    runtime="vllm",
    release=VLLM,
    architecture="LongCatFlashMTPModel",
    family="LongCat-Flash",
    targets=("type:longcat_flash",),
    count_fixed=1,
    first="0",
    layer="model.mtp.layers.{i}",
    own=(("eh_proj", "H,2H"), ("enorm.m", "H"), ("hnorm.m", "H")),
    decoder=(
        ("input_layernorm", "H"),
        ("post_attention_layernorm", "H"),
        ("self_attn", None),
        ("transformer_layer.mlp", None),
    ),
    once=(("model.mtp.norm", "H"),),
    cites={
        "targets": f'{SPEC}:1032-1037 `"LongCatFlashMTPModel"`',
        "count_fixed": f"{M}longcat_flash_mtp.py:85-86 `self.num_mtp_layers = 1`",
        "first": f'{M}longcat_flash_mtp.py:185 `"model.mtp.layers.0.eh_proj.weight"`',
        "layer": f'{M}longcat_flash_mtp.py:184-188 `"model.mtp.layers.0.eh_proj.weight"`',
        "own": f"{M}longcat_flash_mtp.py:185-188 `enorm.m.weight`",
        "decoder": f"{M}longcat_flash_mtp.py:189-208 `transformer_layer.mlp.down_proj.weight`",
        "once": f'{M}longcat_flash_mtp.py:209 `"model.mtp.norm.weight"`',
        "missing": f'{M}longcat_flash_mtp.py:312-316 `"model.mtp" in weight_name`; {TRACKED}',
    },
)
VLLM_NEMOTRON_H = MtpLoader(
    name="vllm-mtp-nemotron-h",
    runtime="vllm",
    release=VLLM,
    architecture="NemotronHMTPModel",
    family="Nemotron-H",
    targets=("type:nemotron_h", "type:nemotron_h_puzzle", "type:nemotron_h_mtp"),
    count_max=1,
    first="0",
    layer="mtp.layers.{i}",
    step_pattern="mtp_hybrid_override_pattern",
    own=(("norm", "H"),),
    decoder=(("mixer", None),),
    first_of_step=(("enorm", "H"), ("hnorm", "H"), ("eh_proj", "H,2H")),
    last_of_step=(("final_layernorm", "H"),),
    cites={
        "targets": f'{SPEC}:895-906 `"NemotronHMTPModel"`',
        "count_keys": f"{M}nemotron_h_mtp.py:246 `num_nextn_predict_layers`",
        "targets_need": f"{SPEC}:895-899 `hf_config.num_nextn_predict_layers > 0` (no key, or 0: "
        "no MTP draft at all)",
        "count_max": f"{M}nemotron_h_mtp.py:247-249 `Only one MTP layer is supported`",
        "first": f'{M}nemotron_h_mtp.py:462 `name.replace("mtp.layers.", "model.layers.")`',
        "layer": f'{M}nemotron_h_mtp.py:462 `name.replace("mtp.layers.", "model.layers.")`',
        "step_pattern": f"{M}nemotron_h_mtp.py:251-262 `total_layers = self.num_mtp_layers * self.pattern_len`",
        "own": f"{M}nemotron_h.py:529 `self.norm = RMSNorm`",
        "decoder": f"{M}nemotron_h.py:520 `self.mixer = NemotronHAttention(`",
        "first_of_step": f"{M}nemotron_h_mtp.py:69-76 `self.eh_proj = ColumnParallelLinear(`",
        "last_of_step": f"{M}nemotron_h_mtp.py:87-88 `self.final_layernorm = RMSNorm(`",
        "missing": f"{M}nemotron_h_mtp.py:544 `return loaded_params`; {TRACKED}",
    },
)
VLLM_BAILING = MtpLoader(
    name="vllm-mtp-bailing",
    runtime="vllm",
    release=VLLM,
    architecture="BailingMoeV25MTPModel",
    family="Bailing MoE V2.5 (Ling / Ring)",
    targets=("type:bailing_hybrid", "arch:BailingMoeV2_5ForCausalLM"),
    own=(("enorm", "H"), ("hnorm", "H"), ("eh_proj", "H,2H"), ("final_layernorm", "H")),
    decoder=(
        ("input_layernorm", "H"),
        ("post_attention_layernorm", "H"),
        ("attention", None),
        ("mlp", None),
    ),
    from_target=("shared_head.head",),
    layer_check="Bailing MTP speculative decoding layer {j} weights are missing from checkpoint",
    cites={
        "targets": f'{SPEC}:950-961 `"BailingMoeV25MTPModel"`',
        "count_keys": f"{SPEC}:955 `num_nextn_predict_layers`",
        "first": f"{M}bailing_moe_mtp.py:303-306 `mtp_idx = layer_idx - self.config.num_hidden_layers`",
        "layer": f'{M}bailing_moe_mtp.py:297-299 `name.startswith("model.layers.")`',
        "own": f"{M}bailing_moe_mtp.py:78-80 `self.eh_proj = nn.Linear(config.hidden_size * 2`; "
        f"{M}bailing_moe_mtp.py:98 `self.final_layernorm = RMSNorm`",
        "decoder": f"{M}bailing_moe_mtp.py:309-312 `.attention.`",
        "from_target": f"{M}bailing_moe_mtp.py:332-334 `load_lm_head(loaded_weight)`",
        "layer_check": f"{M}bailing_moe_mtp.py:380-386 `weights are missing from checkpoint`",
        "missing": f"{M}bailing_moe_mtp.py:389 `return loaded_params`; {TRACKED}",
    },
)

VLLM_OPENPANGU = MtpLoader(
    name="vllm-mtp-openpangu",
    runtime="vllm",
    release=VLLM,
    architecture="OpenPanguMTPModel",
    family="openPangu Ultra MoE",
    targets=("type:pangu_ultra_moe",),
    own=(*DEEPSEEK_OWN, ("shared_head.head", "V,H")),
    cites={
        "targets": f'{SPEC}:777-783 `"OpenPanguMTPModel"`',
        "count_keys": f"{M}openpangu_mtp.py:76-77 `self.num_mtp_layers = config.num_nextn_predict_layers`",
        "first": f"{M}openpangu_mtp.py:140-143 `mtp_idx = layer_idx - self.config.num_hidden_layers`",
        "layer": f"{M}openpangu_mtp.py:134-143 `def get_spec_layer`",
        "own": f"{M}openpangu_mtp.py:61-67 `self.eh_proj = nn.Linear(config.hidden_size * 2`; "
        f"{M}deepseek_mtp.py:61-65 `self.head = ParallelLMHead(`",
        "decoder": f"{M}openpangu_mtp.py:69 `self.mtp_block = OpenPanguDecoderLayer`",
        "missing": f"{M}openpangu_mtp.py:242 `return loaded_params`; {TRACKED}",
    },
)
VLLM_EXAONE_MOE = replace(
    VLLM_QWEN3_NEXT,
    name="vllm-mtp-exaone-moe",
    architecture="ExaoneMoeMTP",
    family="EXAONE MoE",
    targets=("type:exaone_moe",),
    fp4_unquantised=(),  # its fc takes the quantisation config as it is
    cites={
        "targets": f'{SPEC}:973-979 `"ExaoneMoeMTP"`',
        "count_keys": f'{M}exaone_moe_mtp.py:56 `getattr(config, "num_nextn_predict_layers", 1)`',
        "count_default": f'{M}exaone_moe_mtp.py:56 `getattr(config, "num_nextn_predict_layers", 1)`',
        "first": "the draft layers are stored from 0 under mtp.layers",
        "own": f"{M}exaone_moe_mtp.py:63 `self.fc = ColumnParallelLinear(` (fc and its norms "
        "are the model's, loaded once)",
        "decoder": f'{M}exaone_moe_mtp.py:72-80 `prefix=f"{{prefix}}.layers.{{idx}}",`',
        "layer": f'{M}exaone_moe_mtp.py:194-197 `name = name.replace("mtp.", "model.")`',
        "once": f"{M}exaone_moe_mtp.py:63 `self.fc = ColumnParallelLinear(`; "
        f"{M}exaone_moe_mtp.py:82-84 `self.pre_fc_norm_hidden = RMSNorm`",
        "missing": f"{M}exaone_moe_mtp.py:201-202 `loader.load_weights`; {TRACKED}",
    },
)
VLLM_EXAONE4_5 = replace(
    VLLM_EXAONE_MOE,
    name="vllm-mtp-exaone4.5",
    architecture="Exaone4_5_MTP",
    family="EXAONE 4.5",
    targets=("type:exaone4_5",),
    cites={
        "targets": f'{SPEC}:980-986 `"Exaone4_5_MTP"`',
        "count_keys": f'{M}exaone4_5_mtp.py:59 `getattr(config, "num_nextn_predict_layers", 1)`',
        "count_default": f'{M}exaone4_5_mtp.py:59 `getattr(config, "num_nextn_predict_layers", 1)`',
        "first": "the draft layers are stored from 0 under mtp.layers",
        "own": f"{M}exaone4_5_mtp.py:66 `self.fc = ColumnParallelLinear(` (fc and its norms "
        "are the model's, loaded once)",
        "decoder": f'{M}exaone4_5_mtp.py:75-83 `prefix=f"{{prefix}}.layers.{{idx}}",`',
        "layer": f'{M}exaone4_5_mtp.py:191-194 `name = name.replace("mtp.", "model.")`',
        "once": f"{M}exaone4_5_mtp.py:66 `self.fc = ColumnParallelLinear(`; "
        f"{M}exaone4_5_mtp.py:86 `self.pre_fc_norm_hidden = RMSNorm(`",
        "missing": f"{M}exaone4_5_mtp.py:201-202 `loader.load_weights`; {TRACKED}",
    },
)
VLLM_HY_V3 = MtpLoader(
    name="vllm-mtp-hy-v3",
    runtime="vllm",
    release=VLLM,
    architecture="HYV3MTPModel",
    family="Hunyuan V3",
    targets=("type:hy_v3",),
    own=(("enorm", "H"), ("hnorm", "H"), ("eh_proj", "H,2H"), ("final_layernorm", "H")),
    from_target=("shared_head.head", "embed_tokens"),
    missing="silent",
    cites={
        "targets": f'{SPEC}:1073-1078 `"HYV3MTPModel"`',
        "count_keys": f"{SPEC}:1075 `num_nextn_predict_layers`",
        "first": f"{M}hy_v3_mtp.py:149 `self.mtp_start_layer_idx = config.num_hidden_layers`",
        "layer": SPEC_IDX,
        "own": f"{M}hy_v3_mtp.py:104-106 `self.eh_proj = nn.Linear(config.hidden_size * 2`; "
        f"{M}hy_v3_mtp.py:116 `self.final_layernorm = RMSNorm`",
        "decoder": f"{M}hy_v3_mtp.py:470-478 `.mtp_block.`",
        "from_target": f'{M}hy_v3_mtp.py:330-333 `"lm_head.weight": f"model.layers.{{mtp_start}}'
        f'.shared_head.head.weight",`; {M}hy_v3_mtp.py:463-468 `return "__skip__"`',
        "missing": f"{M}hy_v3_mtp.py:272 `def load_weights(self, weights: Iterable[tuple[str, "
        "torch.Tensor]]):` (returns no set of loaded names: nothing tracks what was loaded)",
    },
)
VLLM_MIMO_V2 = MtpLoader(
    name="vllm-mtp-mimo-v2",
    runtime="vllm",
    release=VLLM,
    architecture="MiMoV2MTPModel",
    family="MiMo-V2 (Pro, Flash)",
    targets=("arch:MiMoV2ForCausalLM", "arch:MiMoV2FlashForCausalLM"),
    count_fixed=1,
    first="0",
    layer="model.mtp.layers.{i}",
    own=(("enorm", "H"), ("hnorm", "H"), ("eh_proj", "H,2H"), ("final_layernorm", "H")),
    decoder=(
        ("input_layernorm", "H"),
        ("pre_mlp_layernorm", "H"),
        ("self_attn", None),
        ("mlp", None),
    ),
    cites={
        "targets": f'{SPEC}:809-829 `"MiMoV2ForCausalLM": "MiMoV2MTPModel",`; '
        f'{SPEC}:831-846 `"MiMoV2FlashForCausalLM"`',
        "count_fixed": f"{M}mimo_v2_mtp.py:53-54 `_MIMO_V2_PRO_NUM_MTP_LAYERS = 1`; "
        f"{SPEC}:820-821 `vLLM currently supports only the first MiMo-V2 MTP layer.`",
        "first": f'{M}mimo_v2_mtp.py:187-192 `prefix=maybe_prefix(prefix, "mtp.layers"),`',
        "layer": f'{M}mimo_v2_mtp.py:284-290 `"model.mtp" not in name`',
        "own": f"{M}mimo_v2_mtp.py:73-77 `self.eh_proj = ReplicatedLinear(`; "
        f"{M}mimo_v2_mtp.py:119 `self.final_layernorm = RMSNorm`",
        "decoder": f"{M}mimo_v2_mtp.py:109 `self.pre_mlp_layernorm = RMSNorm(`",
        "missing": f"{M}mimo_v2_mtp.py:386 `return loaded_params`; {TRACKED}",
    },
)

# --- SGLang 0.5.23 ---------------------------------------------------------------------------
S = "python/sglang/srt/"
SILENT = "nothing checks what was loaded"
SG_DS_LOADER = f"{S}models/deepseek_common/deepseek_weight_loader.py"

SGLANG_DEEPSEEK = MtpLoader(
    name="sglang-nextn-deepseek",
    runtime="sglang",
    release=SGLANG,
    architecture="DeepseekV3ForCausalLMNextN",
    family="DeepSeek V3/R1/V3.2",
    targets=("arch:DeepseekV3ForCausalLM", "arch:DeepseekV32ForCausalLM"),
    count_keys=TF_KEYS,
    count_default=1,
    count_max=1,
    missing="silent",
    from_target=("shared_head.head", "embed_tokens"),
    cites={
        "targets": f'{S}configs/model_config.py:1032-1036 `"DeepseekV3ForCausalLMNextN"`',
        "count_keys": f"{SG_DS_LOADER}:563-566 `num_nextn_predict_layers`",
        "count_default": TF_DEFAULT,
        "count_max": f"{SG_DS_LOADER}:567 `Only 1 nextn layer is supported`",
        "first": f"{SG_DS_LOADER}:570-572 `else self.config.num_hidden_layers`",
        "layer": f'{SG_DS_LOADER}:577 `nextn_layer_prefix=f"model.layers.{{nextn_layer_id}}"`',
        "own": f'{SG_DS_LOADER}:578-583 `"shared_head.norm",`; {S}models/deepseek_nextn.py:90 '
        "`self.enorm = RMSNorm`",
        "decoder": f"{SG_DS_LOADER}:332-336 `model.decoder`",
        "from_target": f'{SG_DS_LOADER}:327-329 `if "shared_head.head" in name or "embed_tokens" in name:`',
        "missing": f"{SG_DS_LOADER}:324-326 `if not name.startswith(layer_prefix):` ({SILENT})",
    },
)
SGLANG_GLM4_MOE = MtpLoader(
    name="sglang-nextn-glm4-moe",
    runtime="sglang",
    release=SGLANG,
    architecture="Glm4MoeForCausalLMNextN",
    family="GLM-4.5 / 4.6 MoE",
    targets=("arch:Glm4MoeForCausalLM",),
    count_keys=TF_KEYS,
    count_default=1,
    count_max=1,
    missing="silent",
    from_target=("shared_head.head", "embed_tokens"),
    cites={
        "targets": f'{S}configs/model_config.py:1063-1064 `"Glm4MoeForCausalLMNextN"`',
        "count_keys": f"{S}models/glm4_moe.py:1077-1079 `num_nextn_predict_layers`",
        "count_default": TF_DEFAULT,
        "count_max": f"{S}models/glm4_moe.py:1080 `Only 1 nextn layer is supported`",
        "first": f"{S}models/glm4_moe.py:1082-1085 `else self.config.num_hidden_layers`",
        "layer": f'{S}models/glm4_moe.py:1129 `nextn_layer_prefix = f"model.layers.{{nextn_layer_id}}"`',
        "own": f'{S}models/glm4_moe.py:1130-1135 `"shared_head.norm",`; '
        f"{S}models/glm4_moe_nextn.py:70 `self.eh_proj = nn.Linear(2 * config.hidden_size`",
        "decoder": f"{S}models/glm4_moe_nextn.py:73 `self.decoder = Glm4MoeDecoderLayer(`",
        "from_target": f'{S}models/glm4_moe.py:1163 `if "shared_head.head" in name or "embed_tokens" in name`',
        "missing": f"{S}models/glm4_moe.py:1158-1163 `nextn_layer_prefix` ({SILENT})",
    },
)
SGLANG_QWEN3_NEXT = MtpLoader(
    name="sglang-mtp-qwen3-next",
    runtime="sglang",
    release=SGLANG,
    architecture="Qwen3NextForCausalLMMTP",
    family="Qwen3-Next",
    targets=("arch:Qwen3NextForCausalLM",),
    count_fixed=1,
    first="0",
    layer="mtp.layers.{i}",
    own=(),
    once=QWEN_NEXT_ONCE,
    missing="silent",
    cites={
        "targets": f'{S}configs/model_config.py:1134-1136 `"Qwen3NextForCausalLMMTP"`',
        "count_fixed": f"{S}configs/model_config.py:1134-1136 `num_nextn_predict_layers = 1`",
        "own": f"{S}models/qwen3_next_mtp.py:60 `self.fc = nn.Linear(2 * config.hidden_size` "
        "(fc and its norms are the model's, loaded once)",
        "first": f'{S}models/qwen3_next.py:1183-1184 `name = name.replace("mtp", "model")`',
        "layer": f'{S}models/qwen3_next.py:1173-1184 `if "mtp" not in name:`',
        "decoder": f"{S}models/qwen3_next_mtp.py:69 `self.model = Qwen3NextModel(`",
        "once": f'{S}models/qwen3_next.py:1177-1181 `"mtp.fc.weight",`; '
        f"{S}models/qwen3_next_mtp.py:60-65 `self.pre_fc_norm_hidden`",
        "missing": f"{S}models/qwen3_next.py:1170-1174 `params_dict = dict(self.named_parameters())` ({SILENT})",
    },
)
SGLANG_QWEN3_5 = MtpLoader(
    name="sglang-mtp-qwen3.5",
    runtime="sglang",
    release=SGLANG,
    architecture="Qwen3_5ForCausalLMMTP",
    family="Qwen3.5 / Qwen3.5-MoE",
    targets=(
        "arch:Qwen3_5ForConditionalGeneration",
        "arch:Qwen3_5MoeForConditionalGeneration",
        "arch:Qwen3_5ForCausalLM",
        "arch:Qwen3_5MoeForCausalLM",
    ),
    count_fixed=1,
    first="0",
    layer="mtp.layers.{i}",
    own=(),
    once=QWEN_NEXT_ONCE,
    missing="silent",
    cites={
        "targets": f'{S}configs/model_config.py:1159-1166 `"Qwen3_5MoeForConditionalGeneration",`',
        "count_fixed": f"{S}configs/model_config.py:1179-1181 `num_nextn_predict_layers = 1`",
        "own": f"{S}models/qwen3_5_mtp.py:129 `self.fc = nn.Linear(2 * config.hidden_size` "
        "(fc and its norms are the model's, loaded once)",
        "first": f"{S}models/qwen3_5_mtp.py:135-137 `mtp_config.num_hidden_layers = 1`",
        "layer": f'{S}models/qwen3_5_mtp.py:362-367 `name = name.replace("mtp.", "model.")`',
        "decoder": f'{S}models/qwen3_5_mtp.py:135-141 `add_prefix("mtp", prefix)`',
        "once": f"{S}models/qwen3_5_mtp.py:129-134 `self.fc = nn.Linear(2 * config.hidden_size`",
        "missing": f'{S}models/qwen3_5_mtp.py:362-363 `if "mtp" not in name:` ({SILENT})',
    },
)

SGLANG_MIMO = replace(
    VLLM_MIMO,
    name="sglang-mtp-mimo",
    runtime="sglang",
    release=SGLANG,
    architecture="MiMoMTP",
    count_keys=(),
    count_fixed=1,
    stacked=True,
    missing="silent",
    cites={
        "targets": f'{S}configs/model_config.py:1092-1093 `"MiMoMTP"`',
        "count_fixed": f"{S}models/mimo_mtp.py:45 `self.mtp_block = Qwen2DecoderLayer(` (one "
        "layer, whatever the config declares)",
        "first": f"{S}models/mimo_mtp.py:185 `model.mtp_layers.(\\d+).`",
        "layer": f"{S}models/mimo_mtp.py:185-192 `model.mtp_layers.(\\d+).`",
        "own": f"{S}models/mimo_mtp.py:39-41 `self.input_proj = nn.Linear(`",
        "decoder": f"{S}models/mimo_mtp.py:192 `model.mtp_block.`",
        "stacked": f"{S}models/mimo_mtp.py:185-192 `name = name.replace(group.group(), "
        '"model.mtp_block.")` (any index maps onto the one layer: the last read wins)',
        "missing": f"{S}models/mimo_mtp.py:172-174 `weight_loader(param, loaded_weight)` ({SILENT})",
    },
)
SGLANG_LONGCAT = replace(
    VLLM_LONGCAT,
    name="sglang-nextn-longcat-flash",
    runtime="sglang",
    release=SGLANG,
    architecture="LongcatFlashForCausalLMNextN",
    targets=("arch:LongcatFlashForCausalLM",),
    missing="silent",
    cites={
        "targets": f'{S}configs/model_config.py:1085-1090 `"LongcatFlashForCausalLMNextN"`',
        "count_fixed": f'{S}models/longcat_flash_nextn.py:516 `"model.mtp.layers.0.eh_proj.weight"` '
        "(only layer 0 is mapped)",
        "first": f'{S}models/longcat_flash_nextn.py:516 `"model.mtp.layers.0.eh_proj.weight"`',
        "layer": f'{S}models/longcat_flash_nextn.py:516-519 `"model.mtp.layers.0.eh_proj.weight"`',
        "own": f"{S}models/longcat_flash_nextn.py:516-519 `enorm.m.weight`",
        "decoder": f"{S}models/longcat_flash_nextn.py:534 `transformer_layer.mlp.down_proj.weight`",
        "once": f'{S}models/longcat_flash_nextn.py:540 `"model.mtp.norm.weight"`',
        "missing": f'{S}models/longcat_flash_nextn.py:547-548 `if ".mtp." not in name:` ({SILENT})',
    },
)
SGLANG_BAILING = replace(
    VLLM_BAILING,
    name="sglang-nextn-bailing",
    runtime="sglang",
    release=SGLANG,
    architecture="BailingMoeForCausalLMNextN",
    family="Bailing MoE V1 / V2 (Ling)",
    targets=("arch:BailingMoeForCausalLM", "arch:BailingMoeV2ForCausalLM"),
    count_max=1,
    layer_check="",
    missing="silent",
    from_target=("shared_head.head", "embed_tokens"),
    cites={
        "targets": f'{S}configs/model_config.py:1120-1127 `"BailingMoeForCausalLMNextN"`; '
        f"{S}models/bailing_moe_nextn.py:255-256 `BailingMoEForCausalLM.load_weights`",
        "count_keys": f"{S}models/bailing_moe.py:947-949 `num_nextn_predict_layers`",
        "count_max": f"{S}models/bailing_moe.py:949 `Only 1 nextn layer is supported`",
        "first": f"{S}models/bailing_moe.py:951-955 `else self.config.num_hidden_layers`",
        "layer": f'{S}models/bailing_moe.py:970 `nextn_layer_prefix = f"model.layers.{{nextn_layer_id}}"`',
        "own": f'{S}models/bailing_moe.py:971-976 `"final_layernorm",`',
        "decoder": f"{S}models/bailing_moe.py:1025-1026 `model.decoder`",
        "from_target": f'{S}models/bailing_moe.py:1014 `if "shared_head.head" in name or '
        '"embed_tokens" in name:`',
        "missing": f"{S}models/bailing_moe.py:1010-1011 `if not name.startswith(nextn_layer_prefix):` ({SILENT})",
    },
)
SGLANG_ERNIE = replace(
    VLLM_ERNIE,
    name="sglang-mtp-ernie",
    runtime="sglang",
    release=SGLANG,
    architecture="Ernie4_5_MoeForCausalLMMTP",
    targets=("arch:Ernie4_5_MoeForCausalLM",),
    count_keys=(),
    count_fixed=1,
    count_max=None,
    layer_check="MTP layers 'mtp_*.0.*' not found in weights",
    missing="silent",
    cites={
        "targets": f'{S}configs/model_config.py:1128-1132 `"Ernie4_5_MoeForCausalLMMTP"`',
        "count_fixed": f'{S}models/ernie4_eagle.py:145-149 `f"mtp_emb_norm.{{self.mtp_layer_id}}",` '
        "(one layer: mtp_layer_id 0)",
        "first": f'{S}models/ernie4_eagle.py:145-149 `f"mtp_emb_norm.{{self.mtp_layer_id}}",`',
        "layer": f'{S}models/ernie4_eagle.py:160-161 `name = name.replace(f".{{self.mtp_layer_id}}.", ".")`',
        "own": f"{S}models/ernie4_eagle.py:54-56 `self.mtp_linear_proj = nn.Linear(`",
        "decoder": f"{S}models/ernie4_eagle.py:59 `self.mtp_block = Ernie4DecoderLayer(`",
        "layer_check": f"{S}models/ernie4_eagle.py:183-185 `not found in weights.`",
        "missing": f"{S}models/ernie4_eagle.py:143-144 `mtp_layer_found = False` (the layer is "
        f"checked, not its tensors: {SILENT})",
    },
)
SGLANG_NEMOTRON_H = replace(
    VLLM_NEMOTRON_H,
    name="sglang-mtp-nemotron-h",
    runtime="sglang",
    release=SGLANG,
    architecture="NemotronHForCausalLMMTP",
    targets=("arch:NemotronHForCausalLM", "arch:NemotronHPuzzleForCausalLM"),
    count_keys=(),
    count_fixed=1,
    count_max=None,
    missing="silent",
    cites={
        "targets": f'{S}configs/model_config.py:1197-1202 `"NemotronHForCausalLMMTP"`',
        "count_fixed": f"{S}configs/model_config.py:1197-1203 `num_nextn_predict_layers = 1`",
        "first": f'{S}models/nemotron_h_mtp.py:388 `has_mtp_layers |= name.startswith("mtp.layers.")`',
        "layer": f'{S}models/nemotron_h_mtp.py:388 `name.startswith("mtp.layers.")`',
        "step_pattern": f"{S}models/nemotron_h_mtp.py:227-242 `total_layers = self.num_mtp_layers * self.pattern_len`",
        "own": f"{S}models/nemotron_h.py:560 `self.norm = RMSNorm`",
        "decoder": f"{S}models/nemotron_h.py:551 `self.mixer = NemotronHMLP(`",
        "first_of_step": f"{S}models/nemotron_h_mtp.py:63-69 `self.eh_proj = ColumnParallelLinear(`",
        "last_of_step": f"{S}models/nemotron_h_mtp.py:82-83 `self.final_layernorm = RMSNorm(`",
        "missing": f"{S}models/nemotron_h_mtp.py:398 `super().load_weights(normalized_weights(), "
        f"is_mtp=True)` ({SILENT})",
    },
)
SGLANG_QWEN3_MOE = replace(
    SGLANG_QWEN3_NEXT,
    name="sglang-mtp-qwen3-moe",
    architecture="Qwen3MoeForCausalLMMTP",
    family="Qwen3-MoE",
    targets=("arch:Qwen3MoeForCausalLM",),
    cites={
        **SGLANG_QWEN3_NEXT.cites,
        "targets": f'{S}configs/model_config.py:1155-1157 `"Qwen3MoeForCausalLMMTP"`',
        "count_fixed": f"{S}configs/model_config.py:1155-1157 `num_nextn_predict_layers = 1`",
        "own": f"{S}models/qwen3_moe_mtp.py:51 `self.fc = nn.Linear(2 * config.hidden_size` "
        "(fc and its norms are the model's, loaded once)",
        "once": f'{S}models/qwen3_moe.py:1184-1191 `"mtp.fc.weight",`',
        "layer": f'{S}models/qwen3_moe.py:1180-1191 `name = name.replace("mtp", "model")`',
        "first": f'{S}models/qwen3_moe.py:1191 `name = name.replace("mtp", "model")`',
        "decoder": f"{S}models/qwen3_moe_mtp.py:56 `self.model = Qwen3MoeModel(`",
        "missing": f'{S}models/qwen3_moe.py:1180-1182 `if "mtp" not in name:` ({SILENT})',
    },
)

LOADERS: tuple[MtpLoader, ...] = (
    VLLM_DEEPSEEK,
    VLLM_DEEPSEEK_V32,
    VLLM_GLM4_MOE,
    VLLM_QWEN3_NEXT,
    VLLM_QWEN3_5,
    VLLM_QWEN3_5_MOE,
    VLLM_MIMO,
    VLLM_ERNIE,
    VLLM_LONGCAT,
    VLLM_NEMOTRON_H,
    VLLM_BAILING,
    VLLM_OPENPANGU,
    VLLM_EXAONE_MOE,
    VLLM_EXAONE4_5,
    VLLM_HY_V3,
    VLLM_MIMO_V2,
    SGLANG_DEEPSEEK,
    SGLANG_GLM4_MOE,
    SGLANG_QWEN3_NEXT,
    SGLANG_QWEN3_5,
    SGLANG_MIMO,
    SGLANG_LONGCAT,
    SGLANG_BAILING,
    SGLANG_ERNIE,
    SGLANG_NEMOTRON_H,
    SGLANG_QWEN3_MOE,
)
RUNTIMES = {"vllm": VLLM, "sglang": SGLANG}

# The MTP architectures each release registers that no loader above judges, and why: the
# answer `inspect TARGET --mtp` gives for a target the runtime drafts with one of them.
UNJUDGED: dict[tuple[str, str], str] = {
    ("vllm", "DeepSeekV4MTPModel"): "DeepSeek V4's MTP stages (mtp.*, compressed attention, "
    "per-platform source under vllm/models/deepseek_v4) are not modelled yet",
    ("vllm", "Glm4MoeLiteMTPModel"): "the override sets num_hidden_layers to 0, so the layers "
    "are read from index 0 of a separate MTP export: not modelled",
    ("vllm", "GlmOcrMTPModel"): "the override sets num_hidden_layers to 0 (a separate MTP "
    "export): not modelled",
    (
        "vllm",
        "KimiK3MTPModel",
    ): "not modelled yet: its per-platform source (vllm/models/kimi_k3/{nvidia,amd}/mtp.py) is in the wheel, outside model_executor/models",
    ("vllm", "MiMoV2OmniMTPModel"): "not modelled yet (model.mtp.layers.*, one layer)",
    ("vllm", "BailingMoeV3MTPModel"): "not modelled yet",
    ("vllm", "Step3p5MTP"): "not modelled yet (DeepSeek-like layout)",
    (
        "vllm",
        "Step5MTP",
    ): "not modelled yet: its per-platform source (vllm/models/step5/nvidia/mtp.py) is in the wheel, outside model_executor/models",
    (
        "vllm",
        "HYV4MTPModel",
    ): "not modelled yet: its per-platform source (vllm/models/hy_v4/nvidia/mtp.py) is in the wheel, outside model_executor/models",
    (
        "vllm",
        "Qwen4ExpMTP",
    ): "not modelled yet: its per-platform source (vllm/models/qwen4_exp/{nvidia,amd}/mtp.py) is in the wheel, outside model_executor/models",
    ("vllm", "InternS2MobiusMTP"): "not modelled yet",
    (
        "vllm",
        "Dots3NoteMTPModel",
    ): "not modelled yet: its per-platform source (vllm/models/dots3_note/nvidia/mtp.py) is in the wheel, outside model_executor/models",
    (
        "vllm",
        "InklingMTPModel",
    ): "not modelled yet: its per-platform source (vllm/models/inkling/{nvidia,amd}/mtp.py) is in the wheel, outside model_executor/models",
    (
        "vllm",
        "MiniMaxM3MTP",
    ): "not modelled yet: its per-platform source (vllm/models/minimax_m3/{nvidia,amd}/mtp.py) is in the wheel, outside model_executor/models",
    (
        "vllm",
        "Glm5NextMTPModel",
    ): "not modelled yet: its per-platform source (vllm/models/glm5next/common/mtp.py) is in the wheel, outside model_executor/models",
    ("vllm", "Gemma4MTPModel"): "a separate assistant checkpoint, not layers of the target",
    ("vllm", "ParseAuxMTPModel"): "a vision-prefix parser's auxiliary head, not layers past "
    "the decoder",
    ("sglang", "MiMoV2MTP"): "not modelled yet",
    ("sglang", "GlmMoeDsaForCausalLMNextN"): "not modelled yet",
    ("sglang", "Glm4MoeLiteForCausalLMNextN"): "not modelled yet",
    ("sglang", "Step3p5MTP"): "not modelled yet",
    ("sglang", "ExaoneMoEForCausalLMMTP"): "not modelled yet",
    ("sglang", "HYV3ForCausalLMNextN"): "not modelled yet",
    ("sglang", "DeepseekV4ForCausalLMNextN"): "not modelled yet",
    ("sglang", "GigaChat35ForCausalLMNextN"): "not modelled yet",
    ("sglang", "Glm5NextForConditionalGenerationNextN"): "not modelled yet",
    ("sglang", "GlmOcrForConditionalGenerationNextN"): "not modelled yet",
    ("sglang", "HYV4ForCausalLMNextN"): "not modelled yet",
    ("sglang", "InklingForConditionalGenerationMTP"): "not modelled yet",
    ("sglang", "Qwen4ExpForCausalLMMTP"): "not modelled yet",
}


def loaders_for(architecture: str | None, model_type: str | None) -> list[MtpLoader]:
    """The loaders a target of this architecture / model type is drafted with, per runtime."""
    return [x for x in LOADERS if x.matches(architecture, model_type)]
