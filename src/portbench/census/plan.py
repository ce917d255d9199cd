"""Compiling a validated census listing into the runner's plan (one function per entry).

Case ids: ``census:<op>[.<variant>]::<dtype>``, stable across runs, devices and profiles,
so census cells pair case by case. One case runs every sample the database makes for its
entry and dtype; the record says how many ran and agreed and which failed first (a case
per sample would multiply the worker round trips by about ten for no new verdict).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..errors import UsageError
from ..plan import CellSpec, PlanOptions, case_seed, plan_document
from .listing import CensusListing, ListedOperator

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


def compile_census_plan(
    cell: CellSpec,
    listing: CensusListing,
    rules: list[dict[str, Any]],
    options: CensusOptions,
    listing_sha256: str,
) -> dict[str, Any]:
    """The plan of a census cell; refused (one sentence) when the selection is empty."""
    database = listing.database
    dtypes = _dtypes(listing, options)
    seed = options.plan.seed
    functions = []
    wanted_cases = set(options.cases)
    for operator in _selected(listing, options):
        cases = []
        for dtype in dtypes:
            if operator.dtypes is not None and dtype not in operator.dtypes:
                continue
            case_id = census_case_id(operator, dtype)
            if wanted_cases and case_id not in wanted_cases:
                continue
            cases.append(
                {
                    "id": case_id,
                    "name": dtype,
                    "dtype": dtype,
                    "seed": case_seed(seed, case_id),
                    "timeout_s": options.plan.case_timeout_s,
                }
            )
        if not cases:
            continue
        functions.append(
            {
                "function": f"{CENSUS_PREFIX}{operator.name}",
                "study_test_file": None,
                "stratum": None,
                "frequency": None,
                "case_file": f"{CENSUS_PREFIX}{database.name}",
                "case_file_sha256": None,
                "untested_reason": None,
                "file_cases": [],
                "census": {
                    "database": database.name,
                    "version": database.version,
                    "entry": operator.entry,
                    "op": operator.op,
                    "variant": operator.variant,
                    "declared": {k: list(v) for k, v in operator.declared.items()},
                    "reference": operator.reference,
                    # The report's row: an operator, or for databases of one-dtype use
                    # cases (JAX's harnesses) the primitive they exercise.
                    "row": operator.op if operator.dtypes is not None else operator.name,
                },
                "cases": cases,
            }
        )
    if not functions:
        raise UsageError(
            "the selection holds no census case; check --ops, --dtypes and --case against "
            "`portbench census --list`"
        )
    plan = plan_document(
        cell=cell.cell_id,
        framework=cell.framework,
        profile=cell.profile,
        backend=cell.backend,
        accelerator=cell.accelerator.to_plan(),
        manifest_root="",
        functions=functions,
        rules=rules,
        options=options.plan,
        rerun_prefix=cell.rerun_prefix("census", *([] if options.timing else ["--no-timing"])),
    )
    plan["census"] = {
        "framework": listing.framework,
        "database": database.name,
        "version": database.version,
        "entries": database.entries,
        "listing_sha256": listing_sha256,
        "dtypes": dtypes,
        "timing": options.timing,
        "max_samples": options.max_samples,
        "site": list(options.site),
    }
    return plan
