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
FAMILY_NAMES = {"mtp": "an MTP", "eagle": "an EAGLE-1", "medusa": "a Medusa"}


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
        "check the config's architectures / model_type; this tool judges DSpark, DFlash and "
        "EAGLE-3 (P-EAGLE) drafters only"
    ),
)
def uncovered_finding(cfg: DrafterConfig, ckpt: Checkpoint, family: str | None) -> Finding:
    """The drafter is not a DSpark, DFlash or EAGLE-3 drafter (an MTP head, EAGLE-1, Medusa, or a
    config that names no family): no profile mirrors how a runtime loads it, so it is not judged,
    and never by another family's rules. inspect exits 3."""
    what = (
        f"{FAMILY_NAMES.get(family, 'a ' + str(family))} drafter"
        if family
        else ("a drafter of no known family")
    )
    names = ", ".join(cfg.architectures) or cfg.model_type or "none"
    return Finding(
        UNCOVERED,
        f"this is {what} (architectures/model_type: {names}): no profile covers it, so it "
        "is not judged (profiles cover DSpark, DFlash and EAGLE-3 / P-EAGLE drafters)",
        file=str(ckpt.config_path),
    )
