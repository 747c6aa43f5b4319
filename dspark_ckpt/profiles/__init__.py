"""Profiles: how one runtime release loads one drafter family, as typed data.

One entry per runtime release, every rule field cited to the ``file:line`` of that
release it was read from. A new release is a new entry, never a branch in a rule.
"""
