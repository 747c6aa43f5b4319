"""Profiles: how one runtime release loads one drafter family, as typed data.

One entry per runtime release, every rule field cited to the ``file:line`` of that
release it was read from. A new release is a new entry, never a branch in a rule: the
entry before it plus the fields that changed (``Profile.derive``), each with its cite.

``schema.py`` (the typed ``Profile`` and ``HiddenStates``), ``families.py`` (how a config
names its family), one module per runtime holding its release entries (``vllm.py``,
``sglang.py``, ``trtllm.py``; vLLM's hidden-state feeding in ``vllm_hidden.py``), and
``registry.py`` (all of them by name, ``--profile``).
"""
