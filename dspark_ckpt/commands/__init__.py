"""Commands: ``inspect``, ``check``, ``fix`` and ``verify`` as library calls.

Each runs the pipeline (source -> facts -> rules) and returns a result object; none
prints, and none knows about output formats or exit codes.
"""
