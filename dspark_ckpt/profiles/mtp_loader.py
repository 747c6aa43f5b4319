"""The MTP loader's fields (``MtpLoader``) and the module tuples the entries share; the
entries are ``mtp_vllm.py`` and ``mtp_sglang.py``, the registry ``mtp.py``."""

from __future__ import annotations

from dataclasses import field
from typing import Literal

from dspark_ckpt.record import record

VLLM = "vLLM 0.33.0"
SGLANG = "SGLang 0.5.23"

# what a runtime does with a draft tensor the checkpoint does not give
# tracked: vLLM's DefaultModelLoader refuses ("Following weights were not initialized from
#   checkpoint") when the model's load_weights returns its loaded names and the target is not
#   quantised, for a module with no quant method (``checked``: a norm, a plain nn.Linear or
#   nn.Parameter); one with a quant method (a vLLM linear layer, a head, FusedMoE experts)
#   counts as loaded and stays as allocated; a quantised target turns the tracking off: every
#   parameter stays as allocated
# silent: nothing checks: the parameter keeps what it was allocated with
# strict: the MTP model's own load_weights compares every parameter with the names it loaded
#   and raises (``strict_error``), quantised or not
Missing = Literal["tracked", "silent", "strict"]

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


@record
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
    count_floor: int | None = None  # a smaller count builds this many (max(count, floor))
    first: str = "num_hidden_layers"  # the stored index of draft layer 0: a config key or "0"
    # a draft layer's stored prefix: ``{i}`` its stored index (``first`` + k), ``{k}`` the
    # draft step k itself
    layer: str = "model.layers.{i}"
    # other stored prefixes the loader reads a draft layer under (it strips or maps a prefix
    # first): each layer is judged under the first one it is stored under, else ``layer``
    layer_also: tuple[str, ...] = ()
    # ``layer_also`` is read for the first max(count - also_short, 1) draft layers only
    also_short: int = 0
    step_pattern: str | None = None  # a config key whose length is the physical layers per step
    own: tuple[Module, ...] = DEEPSEEK_OWN  # in every draft layer
    decoder: tuple[Module, ...] = DECODER  # the decoder block in every draft layer
    first_of_step: tuple[Module, ...] = ()  # only in a step's first physical layer
    last_of_step: tuple[Module, ...] = ()  # only in a step's last physical layer
    once: tuple[Module, ...] = ()  # full names, loaded once for every layer
    # other stored spellings of a once-loaded module's leading ``mtp.`` (the loader strips
    # or maps a prefix first): the module is read under any of them
    once_also: tuple[str, ...] = ()
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
    # "tracked": the modules vLLM's weight tracking checks (no quant method), as a part of a
    # module's dotted name ends (``norm``: enorm, shared_head.norm, input_layernorm ...)
    checked: tuple[str, ...] = ("norm",)
    strict_error: str = ""  # what a strict loader raises for a parameter never loaded
    # another stored path a module of a draft layer is read under (the loader renames it
    # first): (module path, stored path); a module path "a|b" is either module (the config
    # picks which: a dense or a MoE MLP)
    also: tuple[tuple[str, str], ...] = ()
    # stored names under a draft layer the loader raises on (a KeyError on its parameter
    # dict): regular expressions matched against the name past the layer's prefix
    refused: tuple[str, ...] = ()
    refused_error: str = ""
    # the stored names it reads at all (regular expressions matched from the start of the
    # name): a checkpoint it raises on for any other name (``refused_error``)
    accepts: tuple[str, ...] = ()
    # a dense-only MTP build: config keys listing the MoE layer indices (a "1,2" string or a
    # list), default every index from 1 below num_hidden_layers; a draft layer listed is
    # refused when the model is built (``moe_error``)
    moe_keys: tuple[str, ...] = ()
    moe_error: str = ""
    # the serving option the draft layers read depend on ("": none): every value it can take
    # is judged (each of the declared layers is checked), and the findings say which work
    serving: str = ""
    # the tensors of a layer it takes from the target instead (never read from the layer)
    from_target: tuple[str, ...] = ()
    cites: dict[str, str] = field(default_factory=dict)

    def matches(self, architecture: str | None, model_type: str | None) -> bool:
        return f"arch:{architecture}" in self.targets or f"type:{model_type}" in self.targets


# DeepSeek V4's MTP layer as its checkpoints store it (mtp.{k}.*): separate e_proj / h_proj,
# its final norm as ``norm``, its hyper-connection head (bare parameters), and a V4 decoder
# layer under its own names (attn, ffn, attn_norm, ffn_norm, its hyper-connection mixes)
DEEPSEEK_V4_OWN: tuple[Module, ...] = (
    ("enorm", "H"),
    ("hnorm", "H"),
    ("e_proj", "H,H"),
    ("h_proj", "H,H"),
    ("norm", "H"),
    ("hc_head_fn", "=hc,hcH"),
    ("hc_head_base", "=hc"),
    ("hc_head_scale", "=1"),
)
DEEPSEEK_V4_DECODER: tuple[Module, ...] = (
    ("attn_norm", "H"),
    ("ffn_norm", "H"),
    ("attn", None),
    ("ffn", None),
    ("hc_attn_fn", "=mix,hcH"),
    ("hc_ffn_fn", "=mix,hcH"),
    ("hc_attn_base", "=mix"),
    ("hc_ffn_base", "=mix"),
    ("hc_attn_scale", "=3"),
    ("hc_ffn_scale", "=3"),
)
# Qwen4Exp's MTP fusion (hc_count > 1): fc_embedding and a shared fc_hidden instead of fc,
# pre_fc_norm_hidden over the hc_count streams, and the hyper-connection mixer, loaded once
QWEN4_EXP_ONCE: tuple[Module, ...] = (
    ("mtp.fc_embedding", "H,H"),
    ("mtp.fc_hidden", "H,H"),
    ("mtp.pre_fc_norm_embedding", "H"),
    ("mtp.pre_fc_norm_hidden", "hccH"),
    ("mtp.hyper_connection_mixer", None),
)
QWEN4_EXP_DECODER: tuple[Module, ...] = (
    ("self_attn", None),
    ("mlp", None),
    ("attn_hyper_connection", None),
    ("mlp_hyper_connection", None),
)
