"""SGLang 0.5.23's profiles for the DFlash variant architectures whose model differs from the
DFlash loader's (``sglang-dflash``) in what the checks read: each a ``Profile.derive`` of
it, only the changed fields, each cited (``profiles/variants.py`` says which architecture
each judges).
"""

from __future__ import annotations

from dspark_ckpt.profiles.sglang import PROFILES as SGLANG_PROFILES
from dspark_ckpt.profiles.sglang import SG_DFLASH, SG_DFLASH_CFG, SGLANG, SGLANG_RELEASES

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

PROFILES = (SGLANG_DFLASH2, SGLANG_LAGUNA)
