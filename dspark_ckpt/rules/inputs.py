"""The two codes the engine emits itself, about what could not be judged: DSC001 (an
input that could not be read) and DSC108 (a drafter family no profile covers)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dspark_ckpt.rules.findings import ERROR, Finding
from dspark_ckpt.rules.registry import ENGINE, rule

if TYPE_CHECKING:
    from dspark_ckpt.errors import CheckpointError
    from dspark_ckpt.facts.config import DrafterConfig
    from dspark_ckpt.source.checkpoint import Checkpoint

UNREADABLE = "DSC001"
UNCOVERED = "DSC108"
# the families no profile covers, as a message names them
FAMILY_NAMES = {
    "dspark": "a DSpark",
    "dflash": "a DFlash",
    "eagle3": "an EAGLE-3",
    "mtp": "an MTP",
    "eagle": "an EAGLE-1",
    "medusa": "a Medusa",
}


@rule(
    "DSC001",
    ERROR,
    "unreadable or malformed checkpoint",
    scope=ENGINE,
    hint="re-export the checkpoint with safetensors' save_file / save_model",
)
def unreadable_finding(err: CheckpointError) -> Finding:
    """A config, index or safetensors file could not be read, or breaks the format (bad header,
    offsets, dtype, shard name, a pickle file, a special file or a link out of the checkpoint).
    Runtimes fail at load time or, worse, read garbage."""
    return Finding(UNREADABLE, err.message, file=err.path, hint=err.hint)


@rule(
    "DSC108",
    ERROR,
    "no profile covers this drafter family",
    scope=ENGINE,
    hint=(
        "check the config's architectures / model_type; the message says why this one is not "
        "judged (docs/profiles.md lists every draft architecture vLLM and SGLang register, "
        "with the profile that judges it or why none does)"
    ),
)
def uncovered_finding(
    cfg: DrafterConfig, ckpt: Checkpoint, family: str | None, why: tuple[str, ...] = ()
) -> Finding:
    """No profile mirrors how a runtime loads this drafter, so it is not judged, and never by
    another family's rules: an MTP drafter (its draft layers are read from the target
    checkpoint, where the target's own MTP check judges them), a model that drafts nothing (vLLM's
    ExtractHiddenStatesModel), a registered draft architecture whose loader no profile models
    yet (each says which class the runtime builds and why), Medusa, or a config that names no
    family (a drafter published under its target's class, LlamaForCausalLM, when neither
    ``--profile`` nor its path names the method it is served with). inspect exits 3. Where a
    runtime judges the architecture and another registers it without a profile, the drafter
    is judged and the other runtime's reason is listed as a check not made."""
    what = (
        f"{FAMILY_NAMES.get(family, 'a ' + str(family))} drafter"
        if family
        else ("a drafter of no known family")
    )
    names = ", ".join(cfg.architectures) or cfg.model_type or "none"
    if why:
        reason = "; ".join(why)
    elif family is None:  # the method it is served with says it: vLLM reads it from there
        reason = (
            "its config names no family; name the method it is served with by a profile "
            "(--profile vllm-eagle3, vllm-eagle, vllm-dflash or vllm), as vLLM reads it from "
            "--speculative-config"
        )
    else:
        reason = (
            "no profile covers it (profiles cover DSpark, DFlash, EAGLE-3 / P-EAGLE and "
            "classic EAGLE drafters)"
        )
    return Finding(
        UNCOVERED,
        f"this is {what} (architectures/model_type: {names}), not judged: {reason}",
        file=str(ckpt.config_path),
    )
