"""vLLM 0.33.0's profiles for the DFlash variant architectures whose model differs from the
DFlash loader's (``vllm-dflash``) in what the checks read: each a ``Profile.derive`` of it,
only the changed fields, each cited at the 0.33.0 wheel (``profiles/variants.py`` says
which architecture each judges, and why the others are judged as their family or not at
all).
"""

from __future__ import annotations

from dspark_ckpt.profiles.vllm import REGISTRY, VLLM, VLLM_DFLASH_0_31, M

DFLASH2_PY = M + "qwen3_dflash2.py"
XPRESS_PY = M + "qwen3_xpress.py"
READ = "==0.33.0"  # the one release read

# DFlash2 (DFlash2DraftModel): the DFlash model with a candidate selector and, in every decoder
# layer, grouped convolutions around attention and the MLP, sized by dflash_config keys it reads
# with [] (a missing key: KeyError at build); the DFlash loader and its names otherwise
VLLM_DFLASH2 = VLLM_DFLASH_0_31.derive(
    name="vllm-dflash2",
    release=VLLM,
    releases=READ,
    variant="dflash2",
    sources=(DFLASH2_PY, M + "qwen3_dflash.py", REGISTRY),
    cites={
        "extra_modules": f"{DFLASH2_PY}:381-388 `self.candidate_selector = CandidateSelector(`; "
        f"{DFLASH2_PY}:325-337 `self.predecessor_codebook = nn.Parameter(` "
        "`self.hidden_projection = ReplicatedLinear(`; "
        f"{DFLASH2_PY}:260-265 `self.attention_conv = DFlashGroupedConv(` "
        "`self.mlp_conv = DFlashGroupedConv(`; "
        f"{DFLASH2_PY}:190-196 `self.base_kernel = nn.Parameter(` "
        "`self.kernel_projection = ReplicatedLinear(`",
        "required_keys": f'{DFLASH2_PY}:248-254 `taps=int(draft_config["conv_kernel_size"])` '
        '`group_size=int(draft_config["conv_group_size"])`; '
        f'{DFLASH2_PY}:376-386 `rank=int(draft_config["selector_rank"])` '
        '`top_k=int(draft_config["selector_top_k"])`',
    },
    extra_modules=(
        "candidate_selector:predecessor_codebook,successor_codebook,hidden_projection.weight",
        "layers.*.attention_conv:base_kernel,kernel_projection.weight",
        "layers.*.mlp_conv:base_kernel,kernel_projection.weight",
    ),
    required_keys=(
        "dflash_config.selector_rank",
        "dflash_config.selector_top_k",
        "dflash_config.conv_kernel_size",
        "dflash_config.conv_group_size",
    ),
)

# XPress (Qwen3XPressModel, DFlashQwen3XPressModel): the DFlash model with a refiner head
# (xpress_head) over the full vocabulary, its own load_weights (no fc drop, d2t skipped,
# mix.L required)
VLLM_XPRESS = VLLM_DFLASH_0_31.derive(
    name="vllm-xpress",
    release=VLLM,
    releases=READ,
    variant="xpress",
    sources=(XPRESS_PY, M + "qwen3_dflash.py", REGISTRY),
    cites={
        "extra_modules": f"{XPRESS_PY}:255-264 `self.xpress_head = XPressRefinerHead(`; "
        f"{XPRESS_PY}:47-58 `self.w1 = nn.Embedding(vocab_size, r)` `self.w2 = nn.Linear(`; "
        f'{XPRESS_PY}:227-236 `"mlp.gate_proj.weight": "mlp_gate.weight",`; '
        f'{XPRESS_PY}:320-327 `name = "model.xpress_head." + mapped`',
        "required_tensors": f"{XPRESS_PY}:352-353 `XPress checkpoint is missing xpress_head.mix.L`",
        "vocab_equal_target": f"{XPRESS_PY}:299-304 `XPress currently requires a full-vocab draft`",
        "missing_d2t": f"{XPRESS_PY}:305 `self.draft_id_to_target_id = None` (no d2t path)",
        "d2t_param": f'{XPRESS_PY}:319-320 `if "t2d" in name or "d2t" in name:` (skipped)',
        "dropped_unbuilt": f'{XPRESS_PY}:340-349 `skip_substrs = ["mask_embedding", '
        '"xpress_head.mix_L"]` (fc is not dropped without aux states: refused)',
        "mask_hidden": f'{XPRESS_PY}:328-329 `name = "model." + name` (no mask_hidden '
        f"parameter); {M}utils.py:443 `There is no module or parameter named`",
    },
    extra_modules=(
        *(f"xpress_head.{m}" for m in ("w1", "down_h", "down_g", "in_proj", "w2")),
        *(f"xpress_head.mlp_{m}|xpress_head.mlp.{m}_proj" for m in ("gate", "up", "down")),
    ),
    required_tensors=("xpress_head.mix.L",),
    vocab_equal_target=True,
    missing_d2t="unused",
    d2t_param="ignored",
    dropped_unbuilt=("mask_embedding",),
    mask_hidden="no_parameter",
)

PROFILES = (VLLM_DFLASH2, VLLM_XPRESS)
