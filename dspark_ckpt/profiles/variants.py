"""The DFlash / DSpark variants judged by a profile of their own (issue 31): each (runtime,
architecture) mapped to the name of the profile that judges it. ``architectures.py`` consults
it before its own answer; a name here is judged by that profile."""

from __future__ import annotations

# (runtime key "vllm" or "sglang", architecture) -> profile name
VARIANTS: dict[tuple[str, str], str] = {}
