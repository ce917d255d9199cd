"""A ``--functions``/``--case`` selection over several frameworks, checked before any cell.

``matrix`` builds one environment per cell (a gigabyte or more each), so a typo in a
function name must stop it before the first build, not after the first cell ran. Each name
belongs to the framework whose manifest lists it; a framework that none of the names selects
is left out of the run (and listed as such).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .accelerators import Accelerator
from .errors import UsageError
from .manifest import load_manifest
from .plan import CellSpec, PlanOptions, compile_plan
from .rules import load_rules

__all__ = ["Selection", "split_selection"]


@dataclass(frozen=True)
class Selection:
    functions: tuple[str, ...] = ()
    cases: tuple[str, ...] = ()


def _unknown(kind: str, names: list[str], frameworks: Sequence[str], how: str) -> UsageError:
    shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
    verb = f"{kind} {shown} is" if len(names) == 1 else f"{kind}s {shown} are"
    return UsageError(f"{verb} in no manifest of {', '.join(frameworks)}; {how}")


def split_selection(
    frameworks: Sequence[str],
    functions: Sequence[str],
    cases: Sequence[str],
    accelerators: Sequence[Accelerator],
    profile: str,
    backend: str,
) -> dict[str, Selection]:
    """Each framework's share of the selection (all frameworks when nothing is selected).

    Every framework's plan is compiled once per accelerator with its share, so whatever
    ``bench`` would refuse (an unknown name, a selection holding no case) is refused here,
    as one sentence, before anything is built.
    """
    if not functions and not cases:
        return {framework: Selection() for framework in frameworks}
    manifests = {framework: load_manifest(framework) for framework in frameworks}
    shares: dict[str, Selection] = {}
    for framework, manifest in manifests.items():
        known_functions = {f.function for f in manifest.functions}
        known_cases = set(manifest.case_ids())
        share = Selection(
            tuple(f for f in functions if f in known_functions),
            tuple(c for c in cases if c in known_cases),
        )
        if share.functions or share.cases:
            shares[framework] = share
    chosen_functions = {f for s in shares.values() for f in s.functions}
    chosen_cases = {c for s in shares.values() for c in s.cases}
    unknown = [f for f in functions if f not in chosen_functions]
    if unknown:
        how = "`portbench list --framework F` shows a framework's functions"
        raise _unknown("function", unknown, frameworks, how)
    missing = [c for c in cases if c not in chosen_cases]
    if missing:
        raise _unknown("case", missing, frameworks, "`portbench list` shows the case ids")
    for framework, share in shares.items():
        rules = load_rules(framework)
        options = PlanOptions(functions=share.functions, cases=share.cases)
        for accelerator in accelerators:
            cell = CellSpec(framework, accelerator, profile, backend)
            compile_plan(cell, manifests[framework], rules, options)
    return shares
