"""Compiling a validated census listing into the runner's plan (one function per entry).

Case ids: ``census:<op>[.<variant>]::<dtype>``, stable across runs, devices and profiles,
so census cells pair case by case. One case runs every sample the database makes for its
entry and dtype; the record says how many ran and agreed and which failed first (a case
per sample would multiply the worker round trips by about ten for no new verdict).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from portbench_runner.contract import (
    CensusEntry,
    CensusSettings,
    Plan,
    PlanCase,
    PlanFunction,
    PlanInvalid,
    Rule,
)

from ..errors import UsageError
from ..plan import CellSpec, PlanOptions, case_seed, new_plan
from .listing import CensusListing, DatabaseInfo, ListedOperator

__all__ = ["CENSUS_PREFIX", "CensusOptions", "census_case_id", "compile_census_plan"]

CENSUS_PREFIX = "census:"
#: A census case runs a handful of small samples: a minute is generous, and a hung
#: operator must not hold the cell for the bench default of 15 minutes.
DEFAULT_CENSUS_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class CensusOptions:
    """What ``portbench census`` selects and how it runs."""

    ops: tuple[str, ...] = ()
    """Operators to run (``add`` selects every variant of add; ``add.xyz`` one variant)."""
    dtypes: tuple[str, ...] = ()
    cases: tuple[str, ...] = ()
    timing: bool = True
    max_samples: int = 0
    """At most this many samples per entry and dtype; 0: every sample."""
    site: tuple[str, ...] = ()
    """Folders the worker adds to its path (the census lock's packages, for interpreters)."""
    plan: PlanOptions = field(
        default_factory=lambda: PlanOptions(case_timeout_s=DEFAULT_CENSUS_TIMEOUT_S)
    )


def census_case_id(operator: ListedOperator, dtype: str) -> str:
    return f"{CENSUS_PREFIX}{operator.name}::{dtype}"


def _selected(listing: CensusListing, options: CensusOptions) -> list[ListedOperator]:
    if not options.ops:
        return list(listing.operators)
    wanted = set(options.ops)
    chosen = [o for o in listing.operators if o.name in wanted or o.op in wanted]
    found = {o.name for o in chosen} | {o.op for o in chosen}
    missing = sorted(wanted - found)
    if missing:
        raise UsageError(
            f"{', '.join(missing[:5])} not in {listing.database.name} {listing.database.version}; "
            "`portbench census --list` shows its operators"
        )
    return chosen


def _dtypes(listing: CensusListing, options: CensusOptions) -> list[str]:
    unknown = sorted(set(options.dtypes) - set(listing.dtypes))
    if unknown:
        raise UsageError(
            f"--dtypes {unknown[0]!r} is not one the census tries "
            f"(allowed: {', '.join(listing.dtypes)})"
        )
    return [d for d in listing.dtypes if not options.dtypes or d in options.dtypes]


def _function(
    operator: ListedOperator,
    database: DatabaseInfo,
    dtypes: list[str],
    options: CensusOptions,
) -> PlanFunction | None:
    """The planned function of one listed operator: a case per dtype it runs in (None when
    the selection leaves it none)."""
    wanted = set(options.cases)
    cases = []
    for dtype in dtypes:
        if operator.dtypes is not None and dtype not in operator.dtypes:
            continue
        case_id = census_case_id(operator, dtype)
        if wanted and case_id not in wanted:
            continue
        seed = case_seed(options.plan.seed, case_id)
        cases.append(PlanCase(case_id, dtype, seed, options.plan.case_timeout_s, dtype=dtype))
    if not cases:
        return None
    entry = CensusEntry(
        database=database.name,
        version=database.version,
        entry=operator.entry,
        op=operator.op,
        variant=operator.variant,
        declared={k: tuple(v) for k, v in operator.declared.items()},
        reference=operator.reference,
        # The report's row: an operator, or for databases of one-dtype use cases (JAX's
        # harnesses) the primitive they exercise.
        row=operator.op if operator.dtypes is not None else operator.name,
    )
    return PlanFunction(
        function=f"{CENSUS_PREFIX}{operator.name}",
        case_file=f"{CENSUS_PREFIX}{database.name}",
        cases=tuple(cases),
        file_cases=(),
        census=entry,
    )


def compile_census_plan(
    cell: CellSpec,
    listing: CensusListing,
    rules: Sequence[Rule],
    options: CensusOptions,
    listing_sha256: str,
) -> Plan:
    """The plan of a census cell; refused (one sentence) when the selection is empty."""
    database = listing.database
    dtypes = _dtypes(listing, options)
    try:
        planned = [_function(o, database, dtypes, options) for o in _selected(listing, options)]
    except PlanInvalid as exc:
        raise UsageError(f"the listing of {database.name} {database.version}: {exc}") from None
    functions = tuple(f for f in planned if f is not None)
    if not functions:
        raise UsageError(
            "the selection holds no census case; check --ops, --dtypes and --case against "
            "`portbench census --list`"
        )
    plan = new_plan(
        cell,
        "",
        functions,
        tuple(rules),
        options.plan,
        cell.rerun_prefix("census", *([] if options.timing else ["--no-timing"])),
    )
    settings = CensusSettings(
        framework=listing.framework,
        database=database.name,
        version=database.version,
        entries=database.entries,
        listing_sha256=listing_sha256,
        dtypes=tuple(dtypes),
        timing=options.timing,
        max_samples=options.max_samples,
        site=tuple(options.site),
    )
    return replace(plan, census=settings)
