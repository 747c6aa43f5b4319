"""Runtime profiles, as data: how one runtime release loads one drafter family.

``schema.py`` (the typed ``Profile`` and ``HiddenStates``), ``families.py`` (how a config
names its family), one module per runtime holding its release entries (``vllm.py``,
``sglang.py``, ``trtllm.py``), and ``registry.py`` (all of them by name, ``--profile``).
"""
