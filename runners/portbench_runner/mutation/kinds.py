"""The mutant kinds of a mutation run (issue 33) and what each changes.

A mutant is a wrong answer the measured call gives instead of its own: applied inside
``ctx.measure`` to the call's output (or, for ``raise``, to the call itself; for ``state``,
to what a stateful call changed). A case that still passes under a mutant lets it survive.
"""

from __future__ import annotations

from typing import Dict, Tuple

__all__ = [
    "BASELINE",
    "DEFAULT_FLOAT_SCALE",
    "DESCRIPTIONS",
    "MUTANT_KINDS",
    "OUTPUT_KINDS",
    "VALUE_KINDS",
    "mutant_case_id",
    "split_mutant_id",
]

#: The planned run of a case without a mutant: its mutants apply only if it passes.
BASELINE = "none"

DESCRIPTIONS: Dict[str, str] = {
    "float": "every float (and complex) element moved up by the scale times its dtype's "
    "tolerance in the case API's table (rtol*|x| + atol)",
    "off_by_one": "every integer element plus one; one boolean element flipped",
    "dtype": "every array cast to another dtype of its family (float32 <-> float64, "
    "float16/bfloat16 -> float32, int32 <-> int64, bool -> int32), values kept",
    "shape": "a trailing axis of length 1 added to every array",
    "nan": "one float element (the middle one) of every array set to NaN",
    "raise": "the measured call raises instead of returning",
    "state": "a stateful call's touched state (tensors it was given or bound to, module "
    "and optimizer parameters, variables) moved as 'float' moves outputs, after the call",
}
MUTANT_KINDS: Tuple[str, ...] = tuple(DESCRIPTIONS)
#: Mutants of the returned value: a case whose output is checked should kill every one.
VALUE_KINDS: Tuple[str, ...] = ("float", "off_by_one", "dtype", "shape", "nan")
#: Mutants applied to the measured call's output (the value kinds).
OUTPUT_KINDS = VALUE_KINDS
#: float's move in units of the dtype's elementwise tolerance: twice the table's
#: reduction scale, so a reduction checked at its own tolerance still kills it.
DEFAULT_FLOAT_SCALE = 20.0

_SEPARATOR = ".mutant-"


def mutant_case_id(case_id: str, kind: str) -> str:
    """The planned id of ``case_id`` run under mutant ``kind`` (the baseline keeps the id)."""
    return case_id if kind == BASELINE else f"{case_id}{_SEPARATOR}{kind}"


def split_mutant_id(planned_id: str) -> Tuple[str, str]:
    """(case id, mutant kind) of a planned id :func:`mutant_case_id` made."""
    head, sep, kind = planned_id.rpartition(_SEPARATOR)
    if sep and kind in DESCRIPTIONS:
        return head, kind
    return planned_id, BASELINE
