"""Every draft architecture vLLM 0.33.0 and SGLang 0.5.23 register, and how dspark-ckpt
answers a drafter that names it: the profile line that judges it, or why none does.

vLLM's are the 68 names of ``_SPECULATIVE_DECODING_MODELS`` (model_executor/models/
registry.py); SGLang's the ``EntryClass`` names of its EAGLE, DFlash, DSpark, MTP and NextN
model files (its registry resolves ``architectures[0]``: models/registry.py:93-104). Each row
cites where the runtime registers the name and the class it builds. A name in
``variants.VARIANTS`` is judged by the profile that map gives, whatever the row says.

Pure data: the registry (``registry.route``) reads it to route a drafter by its architecture.
This module imports nothing of the profiles (``families.py`` reads its ``FAMILY_OF``).
"""

from __future__ import annotations

from dspark_ckpt.profiles.variants import NOT_JUDGED, SERVED_AS, VARIANTS
from dspark_ckpt.record import record

VLLM, SGLANG = "vLLM", "SGLang"
RELEASE = {VLLM: "vLLM 0.33.0", SGLANG: "SGLang 0.5.23"}
KEY = {VLLM: "vllm", SGLANG: "sglang"}

# the families a row names (the profiles' Family values, and those no profile covers)
DSPARK, DFLASH, EAGLE3, EAGLE1, MTP = "dspark", "dflash", "eagle3", "eagle", "mtp"

VREG = "vllm/model_executor/models/registry.py"
VM = "vllm/model_executor/models/"
SM = "python/sglang/srt/models/"

# --- the reasons a name is not judged ----------------------------------------------------
# (issue 31's MTP check, inspect TARGET with its MTP option, judges the target's layers)
MTP_REASON = "MTP: the draft layers are read from the target checkpoint, not from a drafter folder"


def _mtp_answer(key: tuple[str, str]) -> str:
    """What ``inspect TARGET --mtp`` does for an MTP class: the loader that checks the
    target's layers, or why none does (the MTP tables are read only here, where a reason
    is asked: a drafter's inspect never loads them)."""
    from dspark_ckpt.profiles.mtp import LOADERS, UNJUDGED

    loader = next((x.name for x in LOADERS if (x.runtime, x.architecture) == key), None)
    if loader is not None:
        return f"`dspark-ckpt inspect TARGET --mtp` checks them ({loader})"
    return f"`dspark-ckpt inspect TARGET --mtp` does not judge them: {UNJUDGED[key]}"


SG_MTP_REASON = (
    MTP_REASON + " (SGLang rewrites the target's architecture to this draft class, "
    "configs/model_config.py)"
)
HIDDEN_REASON = (
    "not a drafter: ExtractHiddenStatesModel writes the target's hidden states out for "
    "training and proposes no tokens"
)


def _variant(what: str) -> str:
    return f"{what} with its own model and loader: no profile models it yet"


@record
class Architecture:
    """One name a runtime release registers for drafting."""

    name: str  # what a drafter's config.json names in ``architectures``
    runtime: str  # vLLM or SGLang
    builds: str  # the class the runtime builds for it
    cite: str  # where it is registered and the class defined, as profiles cite
    family: str  # the drafter family it belongs to ("" none of them)
    line: str = ""  # the profile line that judges it ("": none)
    reason: str = ""  # why it is not judged, where no line does

    @property
    def judged_by(self) -> str:
        """The profile (or line) that judges it: the variants' answer first (``VARIANTS``,
        or none for a variant in ``NOT_JUDGED``), then the row's; "" where none does."""
        key = (KEY[self.runtime], self.name)
        return "" if key in NOT_JUDGED else VARIANTS.get(key, self.line)

    @property
    def why(self) -> str:
        """Why no profile judges it: the variants' reason first, then the row's; for an MTP
        name, whether ``inspect TARGET --mtp`` checks its layers (and by which loader) or
        why not."""
        key = (KEY[self.runtime], self.name)
        if self.family == MTP:
            return f"{self.reason}: {_mtp_answer(key)}"
        return NOT_JUDGED.get(key, self.reason)

    @property
    def answer(self) -> str:
        """The table's answer in words: the profile, or the reason."""
        return f"judged by `{self.judged_by}`" if self.judged_by else self.why


def _vllm(
    name: str,
    reg: int,
    builds: str,
    path: str,
    line: int | None,
    family: str,
    judged: str = "",
    reason: str = "",
) -> Architecture:
    cite = f'{VREG}:{reg} `"{name}"`'
    cite += f"; {path}:{line} `class {builds}`" if line else f"; {path} (exports {builds})"
    return Architecture(name, VLLM, builds, cite, family, judged, reason)


def _sglang(
    name: str,
    path: str,
    entry: int,
    line: int | None,
    family: str,
    judged: str = "",
    reason: str = "",
) -> Architecture:
    cite = f"{SM}{path}:{entry} `EntryClass`"
    cite += f"; {SM}{path}:{line} `class {name}`" if line else f" `{name}`"
    return Architecture(name, SGLANG, name, cite, family, judged, reason)


def _mtp_vllm(name: str, reg: int, builds: str, path: str, line: int | None) -> Architecture:
    return _vllm(name, reg, builds, path, line, MTP, reason=MTP_REASON)


def _mtp_sglang(name: str, path: str, entry: int, line: int | None) -> Architecture:
    return _sglang(name, path, entry, line, MTP, reason=SG_MTP_REASON)


V_DSPARK, V_DFLASH, V_EAGLE3, V_EAGLE = "vllm-dspark", "vllm-dflash", "vllm-eagle3", "vllm-eagle"
S_DSPARK, S_DFLASH, S_EAGLE3, S_EAGLE = (
    "sglang-dspark",
    "sglang-dflash",
    "sglang-eagle3",
    "sglang-eagle",
)
DV4 = "vllm/models/deepseek_v4/__init__.py"

VLLM_ARCHITECTURES = (
    _vllm(
        "ExtractHiddenStatesModel", 656, "ExtractHiddenStatesModel",
        VM + "extract_hidden_states.py", 319, "", reason=HIDDEN_REASON,
    ),
    _mtp_vllm("MiMoMTPModel", 657, "MiMoMTP", VM + "mimo_mtp.py", 153),
    _mtp_vllm("MiMoV2MTPModel", 658, "MiMoV2MTP", VM + "mimo_v2_mtp.py", 223),
    _mtp_vllm("MiMoV2OmniMTPModel", 659, "MiMoV2OmniMTP", VM + "mimo_v2_mtp.py", 389),
    _vllm(
        "EagleCohereForCausalLM", 660, "EagleCohereForCausalLM", VM + "cohere_eagle.py", 139,
        EAGLE1, "vllm-eagle-cohere",
    ),
    _vllm(
        "EagleLlamaForCausalLM", 661, "EagleLlamaForCausalLM", VM + "llama_eagle.py", 146,
        EAGLE1, V_EAGLE,
    ),
    _vllm(
        "EagleLlama4ForCausalLM", 662, "EagleLlama4ForCausalLM", VM + "llama4_eagle.py", 176,
        EAGLE1, "vllm-eagle-llama4",
    ),
    _vllm(
        "EagleMiniCPMForCausalLM", 663, "EagleMiniCPMForCausalLM", VM + "minicpm_eagle.py",
        305, EAGLE1, "vllm-eagle-minicpm",
    ),
    _vllm(
        "DFlashDraftModel", 664, "DFlashQwen3ForCausalLM", VM + "qwen3_dflash.py", 736,
        DFLASH, V_DFLASH,
    ),
    _vllm(
        "LiLiCorrDraftModel", 665, "LiLiCorrForCausalLM", VM + "lilicorr.py", 465, DFLASH,
        reason=_variant("a LiLiCorr DFlash drafter"),
    ),
    _vllm(
        "DFlash2DraftModel", 666, "DFlash2Qwen3ForCausalLM", VM + "qwen3_dflash2.py", 395,
        DFLASH, V_DFLASH,
    ),
    _vllm(
        "DFlash2BeamDraftModel", 667, "DFlash2BeamForCausalLM",
        "vllm/models/beam/__init__.py", None, DFLASH, V_DFLASH,
    ),
    _vllm(
        "MuseGlimmerAssistantModel", 674, "DFlashQwen3ForCausalLM", VM + "qwen3_dflash.py",
        736, DFLASH, V_DFLASH,
    ),
    _vllm(
        "DFlashMuseGlimmerAssistantModel", 675, "DFlashQwen3ForCausalLM",
        VM + "qwen3_dflash.py", 736, DFLASH, V_DFLASH,
    ),
    _vllm("DSparkDraftModel", 676, "DSparkDeepseekV4ForCausalLM", DV4, None, DSPARK, V_DSPARK),
    _vllm(
        "DSparkV41DraftModel", 677, "DSparkDeepseekV4ForCausalLM",
        "vllm/models/deepseek_v41/__init__.py", None, DSPARK, V_DSPARK,
    ),
    _vllm(
        "Qwen3DSparkModel", 681, "Qwen3DSparkForCausalLM", VM + "qwen3_dspark.py", 233,
        DSPARK, V_DSPARK,
    ),
    _vllm(
        "Qwen3OmniDSparkModel", 682, "Qwen3DSparkForCausalLM", VM + "qwen3_dspark.py", 233,
        DSPARK, V_DSPARK,
    ),
    _vllm(
        "Qwen3XPressModel", 686, "Qwen3XPressForCausalLM", VM + "qwen3_xpress.py", 273,
        DFLASH, reason=_variant("a Qwen3 XPress DFlash drafter"),
    ),
    _vllm(
        "DFlashQwen3XPressModel", 687, "Qwen3XPressForCausalLM", VM + "qwen3_xpress.py", 273,
        DFLASH, V_DFLASH,
    ),
    _vllm(
        "K3DSparkModel", 688, "K3DSparkForCausalLM",
        "vllm/models/kimi_k3/nvidia/dspark_mla.py", 433, DSPARK, V_DSPARK,
    ),
    _vllm(
        "MuseSparkDSparkModel", 692, "MuseSparkDSparkForCausalLM",
        "vllm/models/muse_spark/common/dspark.py", 278, DSPARK, V_DSPARK,
    ),
    _vllm(
        "DFlashLagunaForCausalLM", 696, "DFlashLagunaForCausalLM", VM + "laguna_dflash.py",
        238, DFLASH, V_DFLASH,
    ),
    _vllm(
        "Gemma4DSparkModel", 697, "Gemma4DSparkForCausalLM", VM + "gemma4_dspark.py", 283,
        DSPARK, V_DSPARK,
    ),
    *(
        _vllm(name, reg, "Eagle3LlamaForCausalLM", VM + "llama_eagle3.py", 306, EAGLE3, V_EAGLE3)
        for name, reg in (
            ("PEagleDraftModel", 698),
            ("PeagleLlamaForCausalLM", 699),
            ("Eagle3LlamaForCausalLM", 700),
            ("Eagle3MiniMaxM2ForCausalLM", 701),
            ("LlamaForCausalLMEagle3", 702),
            ("Eagle3Qwen2_5vlForCausalLM", 703),
            ("Eagle3Qwen3vlForCausalLM", 704),
        )
    ),
    *(
        _vllm(name, reg, "Eagle3Qwen3ForCausalLM", VM + "qwen3_eagle3.py", 285, EAGLE3, V_EAGLE3)
        for name, reg in (("Eagle3Qwen3ForCausalLM", 705), ("PeagleQwen3ForCausalLM", 706))
    ),
    _vllm(
        "EagleMistralForCausalLM", 707, "EagleMistralForCausalLM", VM + "mistral_eagle.py",
        132, EAGLE1, "vllm-eagle-mistral",
    ),
    _vllm(
        "EagleMistralLarge3ForCausalLM", 708, "EagleMistralLarge3ForCausalLM",
        VM + "mistral_large_3_eagle.py", 129, EAGLE1, "vllm-eagle-mistral-large3",
    ),
    *(
        _vllm(
            name, reg, "Eagle3DeepseekV2ForCausalLM", VM + "deepseek_eagle3.py", 274, EAGLE3,
            V_EAGLE3,
        )
        for name, reg in (
            ("Eagle3DeepseekV2ForCausalLM", 712),
            ("Eagle3DeepseekV3ForCausalLM", 713),
        )
    ),
    _vllm(
        "EagleDeepSeekMTPModel", 714, "EagleDeepseekV3ForCausalLM", VM + "deepseek_eagle.py",
        194, EAGLE1, "vllm-eagle-deepseek",
    ),
    _mtp_vllm("DeepSeekMTPModel", 715, "DeepSeekMTP", VM + "deepseek_mtp.py", 240),
    _mtp_vllm(
        "DeepseekV32MTPModel", 716, "DeepseekV32MTP", "vllm/models/deepseek_v32/__init__.py",
        None,
    ),
    _mtp_vllm("Dots3NoteMTPModel", 717, "Dots3NoteMTP", "vllm/models/dots3_note/__init__.py", None),
    _mtp_vllm("DeepSeekV4MTPModel", 718, "DeepSeekV4MTP", DV4, None),
    _mtp_vllm(
        "BailingMoeV3MTPModel", 719, "BailingMoeV3MTPModel", VM + "bailing_moe_v3_mtp.py", 231
    ),
    _mtp_vllm("MiniMaxM3MTP", 720, "MiniMaxM3MTP", "vllm/models/minimax_m3/__init__.py", None),
    _mtp_vllm(
        "BailingMoeV25MTPModel", 721, "BailingMoeV25MTPModel", VM + "bailing_moe_mtp.py", 202
    ),
    _mtp_vllm("InklingMTPModel", 722, "InklingMTP", "vllm/models/inkling/__init__.py", None),
    # a Gemma 4 MTP assistant, a drafter folder of its own that vLLM builds for a config whose
    # model_type is gemma4_assistant (vllm/config/speculative.py:1106-1115): judged by
    # vllm-gemma4-assistant (variants.VARIANTS)
    _vllm("Gemma4MTPModel", 723, "Gemma4MTP", VM + "gemma4_mtp.py", 440, EAGLE1),
    _mtp_vllm("ErnieMTPModel", 724, "ErnieMTP", VM + "ernie_mtp.py", 143),
    _mtp_vllm("ExaoneMoeMTP", 725, "ExaoneMoeMTP", VM + "exaone_moe_mtp.py", 135),
    _mtp_vllm("Exaone4_5_MTP", 726, "Exaone4_5_MTP", VM + "exaone4_5_mtp.py", 136),
    _mtp_vllm("NemotronHMTPModel", 727, "NemotronHMTP", VM + "nemotron_h_mtp.py", 330),
    _mtp_vllm("LongCatFlashMTPModel", 728, "LongCatFlashMTP", VM + "longcat_flash_mtp.py", 126),
    _mtp_vllm("Glm4MoeMTPModel", 729, "Glm4MoeMTP", VM + "glm4_moe_mtp.py", 194),
    _mtp_vllm("Glm4MoeLiteMTPModel", 730, "Glm4MoeLiteMTP", VM + "glm4_moe_lite_mtp.py", 220),
    _mtp_vllm("GlmOcrMTPModel", 731, "GlmOcrMTP", VM + "glm_ocr_mtp.py", 131),
    _mtp_vllm("Glm5NextMTPModel", 732, "Glm5NextMTP", "vllm/models/glm5next/__init__.py", None),
    _mtp_vllm("OpenPanguMTPModel", 733, "OpenPanguMTP", VM + "openpangu_mtp.py", 98),
    _mtp_vllm("ParseAuxMTPModel", 734, "ParseAuxMTPModel", VM + "nemotron_parse3_5_mtp.py", 28),
    _mtp_vllm("Qwen3NextMTP", 735, "Qwen3NextMTP", VM + "qwen3_next_mtp.py", 177),
    _mtp_vllm("Step5MTP", 736, "Step5MTP", "vllm/models/step5/__init__.py", None),
    _mtp_vllm("Qwen4ExpMTP", 737, "Qwen4ExpMTP", "vllm/models/qwen4_exp/__init__.py", None),
    _mtp_vllm("Step3p5MTP", 738, "Step3p5MTP", VM + "step3p5_mtp.py", 158),
    _mtp_vllm("Qwen3_5MTP", 739, "Qwen3_5MTP", VM + "qwen3_5_mtp.py", 216),
    _mtp_vllm("Qwen3_5MoeMTP", 740, "Qwen3_5MoeMTP", VM + "qwen3_5_mtp.py", 322),
    _mtp_vllm("InternS2MobiusMTP", 741, "InternS2MobiusMTP", VM + "interns2_mobius.py", 446),
    _mtp_vllm("HYV3MTPModel", 742, "HYV3MTP", VM + "hy_v3_mtp.py", 208),
    _mtp_vllm("HYV4MTPModel", 743, "HYV4MTP", "vllm/models/hy_v4/__init__.py", None),
    _mtp_vllm("KimiK3MTPModel", 744, "KimiK3MTP", "vllm/models/kimi_k3/__init__.py", None),
)  # fmt: skip

SGLANG_ARCHITECTURES = (
    _sglang("LlamaForCausalLMEagle", "llama_eagle.py", 153, 117, EAGLE1, S_EAGLE),
    _sglang("Qwen2ForCausalLMEagle", "qwen2_eagle.py", 151, 118, EAGLE1, S_EAGLE),
    _sglang(
        "MistralForCausalLMEagle", "mistral_eagle.py", 210, 133, EAGLE1, "sglang-eagle-mistral",
    ),
    _sglang(
        "MistralLarge3ForCausalLMEagle", "mistral_large_3_eagle.py", 83, 59, EAGLE1,
        "sglang-eagle-mistral-large3",
    ),
    _sglang("LlamaForCausalLMEagle3", "llama_eagle3.py", 387, 272, EAGLE3, S_EAGLE3),
    _sglang(
        "Eagle3DeepseekV2ForCausalLM", "kimi_k25_eagle3.py", 523, 315, EAGLE3, S_EAGLE3,
    ),
    *(
        _sglang(name, "dflash.py", 1317, line, DFLASH, S_DFLASH)
        for name, line in (
            ("DFlashDraftModel", 671),
            ("DFlashLagunaForCausalLM", 1057),
            ("MuseGlimmerAssistantModel", 1309),
            ("DFlash2DraftModel", 1264),
            ("DFlash2BeamDraftModel", 1313),
            ("MiniMaxDFlash2DraftModel", 1305),
        )
    ),
    _sglang(
        "LiLiCorrDraftModel", "lilicorr.py", 575, 529, DFLASH,
        reason=_variant("a LiLiCorr DFlash drafter"),
    ),
    *(
        _sglang(name, "dspark.py", 995, line, DSPARK, S_DSPARK)
        for name, line in (
            ("Qwen3DSparkModel", 977),
            ("LingDSparkModel", 981),
            ("DSparkDraftModel", 967),
        )
    ),
    _sglang("DSparkMiniMaxDraftModel", "dspark_minimax.py", 326, 175, DSPARK, S_DSPARK),
    _sglang("Lfm2DSparkDraftModel", "lfm2_dspark.py", 16, 12, DSPARK, S_DSPARK),
    _sglang("DeepseekV4ForCausalLMDSpark", "deepseek_v4_dspark.py", 1217, 685, DSPARK, S_DSPARK),
    *(
        _sglang(
            name, "gemma4_mtp.py", 404, line, EAGLE1,
        )
        for name, line in (
            ("Gemma4AssistantForCausalLM", 59),
            ("Gemma4UnifiedAssistantForCausalLM", 400),
        )
    ),
    _mtp_sglang("BailingMoeForCausalLMNextN", "bailing_moe_nextn.py", 303, 194),
    _mtp_sglang("DeepseekV3ForCausalLMNextN", "deepseek_nextn.py", 326, 248),
    _mtp_sglang("DeepseekV4ForCausalLMNextN", "deepseek_v4_nextn.py", 307, 243),
    _mtp_sglang("Dots3NoteForCausalLMNextN", "dots3_nextn.py", 12, None),
    _mtp_sglang("Ernie4_5_MoeForCausalLMMTP", "ernie4_eagle.py", 203, 101),
    _mtp_sglang("ExaoneMoEForCausalLMMTP", "exaone_moe_mtp.py", 104, 38),
    _mtp_sglang("GigaChat35ForCausalLMNextN", "gigachat35_mtp.py", 215, 134),
    _mtp_sglang("GlmMoeDsaForCausalLMNextN", "glm4_moe.py", 1433, 1288),
    _mtp_sglang("Glm4MoeLiteForCausalLMNextN", "glm4_moe_lite_nextn.py", 183, 136),
    _mtp_sglang("Glm4MoeForCausalLMNextN", "glm4_moe_nextn.py", 164, 120),
    _mtp_sglang("Glm5NextForConditionalGenerationNextN", "glm5_next_nextn.py", 97, 24),
    _mtp_sglang("GlmOcrForConditionalGenerationNextN", "glm_ocr_nextn.py", 172, 128),
    _mtp_sglang("HYV3ForCausalLMNextN", "hunyuan_v3_nextn.py", 256, 117),
    _mtp_sglang("HYV4ForCausalLMNextN", "hunyuan_v4_nextn.py", 244, 175),
    _mtp_sglang("InklingForConditionalGenerationMTP", "inkling.py", 1991, 1771),
    _mtp_sglang("IQuestQ1MTP", "iquest_q1_mtp.py", 204, 139),
    _mtp_sglang("LongcatFlashForCausalLMNextN", "longcat_flash_nextn.py", 681, 282),
    _mtp_sglang("MiMoMTP", "mimo_mtp.py", 207, 87),
    _mtp_sglang("MiMoV2MTP", "mimo_v2_nextn.py", 396, 236),
    _mtp_sglang("NemotronHForCausalLMMTP", "nemotron_h_mtp.py", 434, 317),
    _mtp_sglang("Qwen3_5ForCausalLMMTP", "qwen3_5_mtp.py", 506, 94),
    _mtp_sglang("Qwen3MoeForCausalLMMTP", "qwen3_moe_mtp.py", 129, 38),
    _mtp_sglang("Qwen3NextForCausalLMMTP", "qwen3_next_mtp.py", 149, 40),
    _mtp_sglang("Qwen4ExpForCausalLMMTP", "qwen4_exp_mtp.py", 231, 27),
    _mtp_sglang("Step3p5MTP", "step3p5_mtp.py", 337, 144),
)  # fmt: skip

ARCHITECTURES = VLLM_ARCHITECTURES + SGLANG_ARCHITECTURES

# each name's rows (one per runtime that registers it), and its family
BY_NAME: dict[str, tuple[Architecture, ...]] = {}
for _row in ARCHITECTURES:
    BY_NAME[_row.name] = (*BY_NAME.get(_row.name, ()), _row)
FAMILY_OF = {name: rows[0].family for name, rows in BY_NAME.items()}


def known(architectures: list[str] | tuple[str, ...]) -> str | None:
    """The first of a config's ``architectures`` that some runtime registers for drafting
    (the name its registry resolves), else None."""
    return next((a for a in architectures if a in BY_NAME), None)


def rows_of(name: str) -> tuple[Architecture, ...]:
    """``name``'s rows, and for a runtime that serves it as a class it registers under another
    name (``SERVED_AS``), that class's row."""
    served = (
        r
        for (runtime, alias), other in SERVED_AS.items()
        if alias == name
        for r in BY_NAME.get(other, ())
        if KEY[r.runtime] == runtime
    )
    return (*BY_NAME.get(name, ()), *served)


def unjudged(name: str) -> tuple[str, ...]:
    """Why ``name`` is not judged by the runtimes that register it and judge it by no profile:
    one line per reason, naming the release of each such runtime and the class it builds."""
    by_reason: dict[str, list[str]] = {}
    for r in rows_of(name):
        if not r.judged_by:
            by_reason.setdefault(r.why, []).append(f"{RELEASE[r.runtime]} builds {r.builds}")
    return tuple(f"{' and '.join(who)}: {why}" for why, who in by_reason.items())
