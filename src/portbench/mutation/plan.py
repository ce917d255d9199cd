"""A mutation run's plan: the cell's plan with each case planned once unmutated and once per
mutant, marked as a mutation run (plan ``mutation``, each case's ``mutant``)."""

from __future__ import annotations

from dataclasses import replace

from portbench_runner.contract import MutationSettings, Plan, PlanCase, PlanInvalid
from portbench_runner.mutation import BASELINE, MUTANT_KINDS, mutant_case_id

from ..errors import UsageError

__all__ = ["check_kinds", "mutation_plan"]


def check_kinds(kinds: list[str]) -> tuple[str, ...]:
    """The mutant kinds asked for, in the canonical order; all of them when none is named."""
    unknown = sorted(set(kinds) - set(MUTANT_KINDS))
    if unknown:
        raise UsageError(
            f"unknown mutant kind {unknown[0]!r}; pass --kinds with some of "
            f"{', '.join(MUTANT_KINDS)}"
        )
    return tuple(k for k in MUTANT_KINDS if not kinds or k in kinds)


def _planned(case: PlanCase, kinds: tuple[str, ...]) -> list[PlanCase]:
    return [
        replace(case, id=mutant_case_id(case.id, kind), mutant=kind) for kind in (BASELINE, *kinds)
    ]


def mutation_plan(plan: Plan, kinds: tuple[str, ...], settings: MutationSettings) -> Plan:
    """``plan`` (a cell's, compiled as bench compiles it) as a mutation run: every case
    planned unmutated first (its own id), then once per kind (``<id>.mutant-<kind>``)."""
    try:
        functions = tuple(
            replace(f, cases=tuple(c for case in f.cases for c in _planned(case, kinds)))
            for f in plan.functions
        )
        return replace(plan, functions=functions, mutation=settings)
    except PlanInvalid as exc:
        raise UsageError(f"the mutation plan cannot be made ({exc})") from None
