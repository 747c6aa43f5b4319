"""SGLang 0.5.23's profiles for the DFlash variant architectures whose model differs from the
DFlash loader's (``sglang-dflash``) in what the checks read: each a ``Profile.derive`` of
it, only the changed fields, each cited (``profiles/variants.py`` says which architecture
each judges).
"""

from __future__ import annotations

from dspark_ckpt.profiles.sglang import PROFILES as SGLANG_PROFILES
from dspark_ckpt.profiles.sglang import SG_DFLASH, SG_DFLASH_CFG, SGLANG, SGLANG_RELEASES, S
from dspark_ckpt.profiles.vllm_variants import LILICORR_TENSORS

SG_DFLASH_PROFILE = next(p for p in SGLANG_PROFILES if p.name == "sglang-dflash")
CONV = "base_kernel,kernel_projection.weight?dflash_config.conv_kernel_size"

# DFlash2 (DFlash2DraftModel and its aliases DFlash2BeamDraftModel, MiniMaxDFlash2DraftModel):
# the DFlash model with a candidate selector, refused at build without a selector rank and
# top_k; grouped convolutions in every decoder layer where dflash_config sets them (the base
# DFlash model builds those too)
SGLANG_DFLASH2 = SG_DFLASH_PROFILE.derive(
    name="sglang-dflash2",
    release=SGLANG,
    releases=SGLANG_RELEASES,
    variant="dflash2",
    sources=(SG_DFLASH, SG_DFLASH_CFG),
    cites={
        "extra_modules": f"{SG_DFLASH}:1274 `self.candidate_selector = CandidateSelector(`; "
        f"{SG_DFLASH}:1166-1172 `self.predecessor_codebook = nn.Parameter(` "
        "`self.hidden_projection = nn.Linear(`; "
        f"{SG_DFLASH}:719,733-734 `if not draft_config.conv_kernel_size:` "
        "`attention_conv=grouped_conv(),`; "
        f"{SG_DFLASH}:560-561 `self.base_kernel = nn.Parameter(base_kernel)`",
        "required_keys": f"{SG_DFLASH}:1270-1272 `if not draft_config.selector_rank:`; "
        f"{SG_DFLASH_CFG}:645-649 `DFLASH selector needs rank and top_k together` "
        f'(both read from dflash_config only: {SG_DFLASH_CFG}:445-451 `cfg = config.get("dflash_config", None)`)',
    },
    extra_modules=(
        "candidate_selector:predecessor_codebook,successor_codebook,hidden_projection.weight",
        f"layers.*.attention_conv:{CONV}",
        f"layers.*.mlp_conv:{CONV}",
    ),
    required_keys=("truthy:dflash_config.selector_rank", "truthy:dflash_config.selector_top_k"),
)

# Laguna DFlash (DFlashLagunaForCausalLM): the DFlash model whose attention has Laguna's output
# gate (built unless the config's gating is false: getattr(config, "gating", True)), and one
# RMSNorm per target hidden state; the DFlash loader and its names otherwise
SGLANG_LAGUNA = SG_DFLASH_PROFILE.derive(
    name="sglang-laguna",
    release=SGLANG,
    releases=SGLANG_RELEASES,
    variant="laguna",
    sources=(SG_DFLASH, SG_DFLASH_CFG),
    cites={
        "extra_modules": f"{SG_DFLASH}:1016-1027 "
        '`gating = normalize_gating(getattr(config, "gating", True))` '
        '`if self.gating == "disabled":` `self.g_proj = ColumnParallelLinear(`; '
        f"{SG_DFLASH}:1057-1067 `decoder_layer_cls = DFlashLagunaDecoderLayer` "
        "`self.aux_hidden_norms = nn.ModuleList(`",
    },
    extra_modules=("layers.*.self_attn.g_proj?~gating", "aux_hidden_norms.#"),
)

# LiLiCorr (LiLiCorrDraftModel): the DFlash model with a lattice correction head, lilicorr.*,
# rebuilt from dflash_config's lilicorr_* keys (each required, no default) and checked after the
# load: every head parameter must be there (the DFlash loader would skip a missing one), and
# the grouped convolutions where dflash_config builds them. The head's names are vLLM's.
SG_LILICORR = S + "models/lilicorr.py"
SG_LILICORR_CFG = S + "speculative/lilicorr_utils.py"
SGLANG_LILICORR = SG_DFLASH_PROFILE.derive(
    name="sglang-lilicorr",
    release=SGLANG,
    releases=SGLANG_RELEASES,
    variant="lilicorr",
    sources=(SG_LILICORR, SG_LILICORR_CFG, SG_DFLASH, SG_DFLASH_CFG),
    cites={
        "extra_modules": f"{SG_LILICORR}:534 `self.lilicorr = LiLiCorrHead(`; "
        f"{SG_DFLASH}:719,733-734 `if not draft_config.conv_kernel_size:` "
        "`attention_conv=grouped_conv(),`",
        "required_keys": f"{SG_LILICORR_CFG}:55-60 `if full_key not in dflash_cfg:` "
        f"`is required to rebuild the LiLiCorr`; {SG_LILICORR_CFG}:72-93 "
        '`candidate_topk = required("candidate_topk", int)` '
        '`logit_scale=required("logit_scale", float),`',
        "architectures": f"{SG_LILICORR}:575 `EntryClass = [LiLiCorrDraftModel]`",
        "required_tensors": f"{SG_LILICORR}:459-476 `def check_head_weight_coverage` "
        f"`LiLiCorr checkpoint is missing`; {SG_LILICORR}:568 "
        "`check_head_weight_coverage(self.lilicorr, seen)`",
    },
    extra_modules=(
        "lilicorr:*",
        f"layers.*.attention_conv:{CONV}",
        f"layers.*.mlp_conv:{CONV}",
    ),
    required_keys=tuple(
        f"dflash_config.lilicorr_{k}"
        for k in (
            *("candidate_topk", "hidden_size", "num_layers", "num_heads", "mlp_ratio"),
            *("factor_dim", "vector_eps", "logit_scale"),
        )
    ),
    required_tensors=LILICORR_TENSORS,
    architectures=("LiLiCorrDraftModel",),
)

PROFILES = (SGLANG_DFLASH2, SGLANG_LAGUNA, SGLANG_LILICORR)
