"""How a profile's release feeds the target's hidden states to its drafter.

The entries are ``HiddenStates`` values (``schema.py``) in the runtime modules
(``vllm_hidden.py`` for vLLM, ``sglang.py``, ``trtllm.py``), one per release and family,
set as each profile's ``hidden_states``; the rules that read them are in
``dspark_ckpt/rules/target.py``.
"""

from __future__ import annotations

from dspark_ckpt.profiles.schema import HiddenStates, Profile


def hidden_states(p: Profile) -> HiddenStates | None:
    """How ``p``'s release feeds the target's hidden states (None: not read)."""
    return p.hidden_states


__all__ = ["HiddenStates", "hidden_states"]
