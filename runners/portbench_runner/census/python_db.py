"""A framework-free census database: Python's ``operator`` functions on scalars.

It exists, as the ``python`` adapter does, so the census machinery (listing, validation,
plans, records, crash and timeout handling, the report) can be tested without importing a
framework. Its ``engine.*`` entries misbehave on purpose: one kills its process, one hangs,
one exits; each must cost its own case and nothing else.
"""

from __future__ import annotations

import ctypes
import operator
import os
import time
from typing import Any, Callable, Dict, List, Optional, Tuple

from ..contract import CensusEntry, CensusSettings
from .entry import DatabaseInfo, EntryRun, ListedOperator

__all__ = ["DATABASE", "DTYPES", "describe", "list_operators", "run_entry"]

DATABASE = "portbench_runner.census.python_db"
DTYPES = ("bool", "int64", "float64", "complex128")
_TYPES = {"bool": bool, "int64": int, "float64": float, "complex128": complex}


def _segfault(a: Any, b: Any) -> Any:
    return ctypes.string_at(0)


def _hang(a: Any, b: Any) -> Any:
    time.sleep(600)


def _exit(a: Any, b: Any) -> Any:
    os._exit(7)


def _sum_ref(a: Any, b: Any) -> Any:
    return sum((a, b))


def _wrong_ref(a: Any, b: Any) -> Any:
    return a - b + 1


#: name -> (callable, declared dtypes on the CPU, reference or None).
OPERATORS: Dict[str, Tuple[Callable[..., Any], Tuple[str, ...], Optional[Callable[..., Any]]]] = {
    "add": (operator.add, ("int64", "float64", "complex128"), _sum_ref),
    "floordiv": (operator.floordiv, ("int64", "float64", "complex128"), None),
    "truediv": (operator.truediv, ("float64", "complex128"), None),
    "sub.wrong_reference": (operator.sub, ("int64", "float64"), _wrong_ref),
    "engine.segfault": (_segfault, ("float64",), None),
    "engine.hang": (_hang, ("float64",), None),
    "engine.exit": (_exit, ("float64",), None),
}


def describe() -> DatabaseInfo:
    import platform

    return {"name": DATABASE, "version": platform.python_version(), "entries": len(OPERATORS)}


def list_operators() -> List[ListedOperator]:
    rows: List[ListedOperator] = []
    for index, (name, (_fn, declared, ref)) in enumerate(OPERATORS.items()):
        op, _, variant = name.partition(".")
        if op == "engine":
            op, variant = name, ""
        rows.append(
            {
                "entry": index,
                "op": op,
                "variant": variant,
                "declared": {"cpu": list(declared)},
                "reference": ref is not None,
            }
        )
    return rows


def run_entry(
    ctx: Any, adapter: Any, census: CensusEntry, dtype: str, settings: Optional[CensusSettings]
) -> Tuple[EntryRun, List[str]]:
    """Samples: pairs of small values of the dtype, from the case's seed."""
    from ..signals import StageFailure

    name = census.op + ("." + census.variant if census.variant else "")
    fn, _declared, ref = OPERATORS[name]
    kind = _TYPES[dtype]
    base = ctx.seed % 7 + 1
    samples = [(kind(base + i), kind(i + 1)) for i in range(3)]
    run = EntryRun("reference" if ref is not None else "none")
    run.samples = len(samples)
    for index, (a, b) in enumerate(samples):
        try:
            if index == 0:
                out = ctx.measure(fn, a, b, warm=settings is not None and settings.timing)
            else:
                ctx.stage = "call"
                out = fn(a, b)
        except StageFailure as exc:
            run.fail(exc.stage, exc.original, index)
            continue
        except Exception as exc:
            run.fail("call", exc, index)
            continue
        run.ran += 1
        ctx.stage = "check"
        if ref is None:
            run.unchecked += 1
        elif ref(a, b) == out:
            run.agreed += 1
        else:
            run.check_failures += 1
            run.fail("check", AssertionError(f"{out!r} != reference {ref(a, b)!r}"), index)
    return run, []
