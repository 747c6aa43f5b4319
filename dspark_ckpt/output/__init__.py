"""Outputs: results rendered, one module per format (table, JSON, GitHub, JUnit, SARIF).

Emitters see only results and decide nothing. Every value from a file is escaped before
it reaches a terminal or a CI log. Only the boxed tables import Rich.
"""
