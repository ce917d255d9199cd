"""Mutation runs (issue 33): each passing case run again once per mutant, the mutant applied
inside ``ctx.measure``; a mutant the case still passes under survives. Standard library and
the framework under test only, as everything in the runner."""

from .kinds import (
    BASELINE,
    DESCRIPTIONS,
    MUTANT_KINDS,
    VALUE_KINDS,
    mutant_case_id,
    split_mutant_id,
)

__all__ = [
    "BASELINE",
    "DESCRIPTIONS",
    "MUTANT_KINDS",
    "VALUE_KINDS",
    "mutant_case_id",
    "split_mutant_id",
]
