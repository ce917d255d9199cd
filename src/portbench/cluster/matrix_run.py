"""``portbench matrix --engine ray``: which cells, from a new request or a run to resume.

A new run writes its request (profile, frameworks, backend, selection, accelerators) as
``matrix-request.json``, so ``--resume RUN`` alone finishes it: cells whose every planned
case is recorded and whose last session ended complete are not sent again; a cell that
landed in part is sent with its records, so the node that takes it runs only the rest;
cells that never landed start afresh. Each session of the matrix writes its summary
(``matrix.json``, then ``matrix-2.json``...), never over an earlier one.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console

from portbench_runner.contract import (
    CaseRecord,
    ContractError,
    DocumentInvalid,
    Fields,
    JSONObject,
)

from ..accelerators import load_accelerators
from ..cellrun import new_run_dir
from ..errors import UsageError
from ..images.accelerator_locks import not_pinned
from ..manifest import load_manifest
from ..outcomes import function_outcomes
from ..plan import (
    CellSpec,
    PlanOptions,
    check_label,
    compile_plan,
    read_plan,
    timing_for_mode,
)
from ..results import read_document, read_results, read_sessions
from ..results.safeio import write_new
from ..rules import load_rules
from ..selection import split_selection
from ..writable import make_dir, require_writable
from .dispatch import CellJob, connect, dispatch_cells
from .resources import advertised_accelerators, cell_resources
from .serve import CellOrder

__all__ = ["REQUEST", "ray_matrix"]

REQUEST = "matrix-request.json"


@dataclass(frozen=True)
class MatrixRequest:
    """What a matrix run was asked for (``matrix-request.json``), so ``--resume`` alone
    finishes it with the same cells and plan options (the label included)."""

    profile: str
    frameworks: tuple[str, ...]
    backend: str
    functions: tuple[str, ...]
    cases: tuple[str, ...]
    timing: str
    accelerators: tuple[str, ...]
    label: str | None = None

    def to_json(self) -> JSONObject:
        out: JSONObject = {
            "schema": 1,
            "kind": "matrix-request",
            "profile": self.profile,
            "frameworks": list(self.frameworks),
            "backend": self.backend,
            "functions": list(self.functions),
            "cases": list(self.cases),
            "timing": self.timing,
            "accelerators": list(self.accelerators),
        }
        if self.label is not None:
            out["label"] = self.label
        return out

    @classmethod
    def from_json(cls, obj: object, where: str) -> MatrixRequest:
        f = Fields(obj, where, DocumentInvalid)
        return cls(
            f.text("profile"),
            f.texts("frameworks"),
            f.text("backend"),
            f.texts("functions"),
            f.texts("cases"),
            f.text("timing"),
            f.texts("accelerators"),
            f.opt_text("label"),
        )


def _request(args: argparse.Namespace, advertised: list[str]) -> MatrixRequest:
    if args.resume is None:
        return MatrixRequest(
            args.profile,
            tuple(args.frameworks),
            args.backend,
            tuple(args.functions),
            tuple(args.case),
            args.timing,
            tuple(args.accelerators or advertised),
            check_label(args.label),
        )
    if args.functions or args.case or args.accelerators:
        raise UsageError(
            "--resume takes the matrix's cells from the run's matrix-request.json; drop "
            "--functions, --case and --accelerators"
        )
    document = read_document(args.resume / REQUEST, "matrix request")
    try:
        return MatrixRequest.from_json(document, str(args.resume / REQUEST))
    except ContractError:
        raise UsageError(
            f"{args.resume} holds no readable {REQUEST}; pass the directory of a matrix run "
            "made with --engine ray"
        ) from None


def _cell_state(cell_dir: Path) -> tuple[bool, tuple[CaseRecord, ...]]:
    """(complete, the records kept) of a cell landed before; (False, ()) if none did."""
    if not (cell_dir / "plan.json").exists():
        return False, ()
    plan = read_plan(cell_dir / "plan.json")
    read = read_results(cell_dir / "results.jsonl")
    sessions, _bad = read_sessions(cell_dir / "sessions.jsonl")
    complete = set(plan.case_ids) <= read.recorded and bool(sessions) and sessions[-1].complete
    # The host's own records of a dead supervisor's cases are not sent: the node runs them.
    return complete, tuple(r for r in read.records if not r.for_dead_supervisor)


def _function_counts(cell_dir: Path) -> dict[str, int] | None:
    """pass/partial/complete/untested over a landed cell's functions, as ``bench`` counts them."""
    if not (cell_dir / "plan.json").exists():
        return None
    plan = read_plan(cell_dir / "plan.json")
    counts = dict.fromkeys(("pass", "partial", "complete", "untested"), 0)
    records = read_results(cell_dir / "results.jsonl").records
    for outcome in function_outcomes(plan, records).values():
        counts[outcome] = counts.get(outcome, 0) + 1
    return counts


def _summary_path(run_dir: Path) -> Path:
    path, index = run_dir / "matrix.json", 1
    while path.exists():
        index += 1
        path = run_dir / f"matrix-{index}.json"
    return path


def ray_matrix(args: argparse.Namespace, console: Console) -> list[JSONObject]:
    """Run (or resume) the matrix on the cluster; the summary rows, also written to disk."""
    ray = connect(args.address)
    table = load_accelerators()
    nodes = [n.get("Resources", {}) for n in ray.nodes() if n.get("Alive")]
    advertised = advertised_accelerators(nodes, table)
    request = _request(args, advertised)
    unknown = [a for a in request.accelerators if a not in table]
    if unknown:
        raise UsageError(f"unknown accelerator '{unknown[0]}' (known: {', '.join(table)})")
    chosen = [table[a] for a in request.accelerators]
    profile, backend = request.profile, request.backend
    shares = split_selection(
        list(request.frameworks),
        list(request.functions),
        list(request.cases),
        chosen,
        profile,
        backend,
    )
    run_dir: Path = args.resume or args.run_dir or new_run_dir()
    hint = "pass --run-dir with a directory you can write"
    require_writable(run_dir, hint)
    make_dir(run_dir, hint, exist_ok=True)
    if args.resume is None and not write_new(run_dir / REQUEST, request.to_json()):
        raise UsageError(
            f"{run_dir} holds a matrix run already; finish it with --resume {run_dir}, or pass "
            "another --run-dir"
        )
    console.print(f"{len(nodes)} node(s) alive; cells of profile {profile} → {run_dir}")
    rows: list[JSONObject] = []
    jobs: list[CellJob] = []
    run_id = run_dir.name
    for acc in chosen:
        for framework in request.frameworks:
            cell = f"{framework}/{acc.id}/{profile}"
            share = shares.get(framework)
            if share is None:
                rows.append({"cell": cell, "status": "not selected"})
                continue
            unpinned = not_pinned(profile, framework, acc.flavor)
            if unpinned:
                rows.append({"cell": cell, "status": "not pinned", "reason": unpinned})
                continue
            complete, kept = _cell_state(run_dir / cell.replace("/", "-"))
            if complete:
                rows.append({"cell": cell, "status": "complete", "reason": "landed before"})
                continue
            options = PlanOptions(
                functions=share.functions,
                cases=share.cases,
                timing=timing_for_mode(request.timing),
                label=request.label,
            )
            # Compiled here and sent whole: every plan option reaches the node, which runs
            # this plan (its case files checked) and compiles nothing.
            plan = compile_plan(
                CellSpec(framework, acc, profile, backend),
                load_manifest(framework),
                load_rules(framework),
                options,
            )
            order = CellOrder(run_id, plan, backend, kept)
            needed = cell_resources(acc.id, profile, backend)
            jobs.append(CellJob(cell, order, needed, plan.case_count))
    for ident, acc in table.items():
        if ident in request.accelerators:
            continue
        served = any(n.get(f"accel:{ident}", 0) >= 1 for n in nodes)
        why = "covered by a more specific id" if served else f"no node advertises accel:{ident}"
        rows += [
            {"cell": f"{fw}/{acc.id}/{profile}", "status": "unreachable", "reason": why}
            for fw in request.frameworks
        ]
    started = time.monotonic()
    try:
        dispatch_cells(jobs, run_dir, console, args.unreachable_after)
    finally:
        # A job with no row was never sent (the head stopped before it could be).
        rows = [{"cell": j.cell, **(j.row or {"status": "not sent"})} for j in jobs] + rows
        for row in rows:
            if row["status"] in ("complete", "incomplete"):
                counts = _function_counts(run_dir / str(row["cell"]).replace("/", "-"))
                if counts is not None:
                    row["functions"] = counts
        document = {
            "schema": 1,
            "kind": "matrix",
            "engine": "ray",
            "profile": profile,
            "timing": request.timing,
            "wall_s": round(time.monotonic() - started, 3),
            "cells": rows,
        }
        write_new(_summary_path(run_dir), document)
        ray.shutdown()
    return rows
