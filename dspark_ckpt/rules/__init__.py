"""Rules: one finding code, one function, one place, with its explanation and hint.

Rules are pure functions of the gathered facts (and of a profile, for the rules a
runtime release parameterises); the engine runs them and returns findings and verdicts.
"""
