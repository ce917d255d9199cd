"""The store's cells as the report's cells: ``portbench report --store FILE``.

Each cell the store holds (tampered ones left out) comes back as the report's
:class:`~portbench.report.load.Cell`, its plan, env, session lines and counted records read
back through the contract's typed reader from the JSON the store keeps, so the report made
from the store is the report made from the run directories, with the same loaders after
this point. A cell's path is ``<run>/<cell folder>`` as it was ingested (no path of any
machine).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

import duckdb

from portbench_runner.contract import (
    DOCUMENT,
    LINE,
    CaseRecord,
    ContractError,
    EnvDocument,
    LineRefused,
    Plan,
    SessionLine,
    StudyPlan,
    StudyRecord,
    is_study_plan,
    read_json,
)

from ..report.load import Cell
from ..results import AnyRecord
from .db import StoreError, open_store

__all__ = ["load_store_cells"]

_CELLS = """
SELECT c.cell_key, c.cell_id, c.plan_json, c.env_json, c.run_id, c.cell_dir
FROM cells c JOIN cell_state s USING (cell_key)
WHERE NOT s.tampered AND (?::VARCHAR IS NULL OR c.framework = ?)
"""


def _plan(text: str, where: str) -> Plan | StudyPlan:
    obj = read_json(text, DOCUMENT)
    return StudyPlan.from_json(obj, where) if is_study_plan(obj) else Plan.from_json(obj, where)


def _record(kind: str, text: str) -> AnyRecord:
    obj = read_json(text, LINE)
    return StudyRecord.from_json(obj) if kind == "study" else CaseRecord.from_json(obj)


def _grouped(con: duckdb.DuckDBPyConnection, sql: str) -> dict[str, list[tuple[str, str]]]:
    out: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for key, kind, text in con.execute(sql).fetchall():
        out[str(key)].append((str(kind), str(text)))
    return out


def load_store_cells(
    store: Path, framework: str | None = None, functions: Iterable[str] | None = None
) -> list[Cell]:
    """Every cell of the store that is not tampered, as the report reads cells: all of
    them, or those of ``framework``, holding only the records of ``functions`` (the store
    narrows a query with its own index: what ``portbench scan`` asks of evidence)."""
    wanted = sorted(set(functions)) if functions is not None else None
    with open_store(store, write=False) as con:
        cells = con.execute(_CELLS, [framework, framework]).fetchall()
        con.execute("CREATE TEMP TABLE wanted (function VARCHAR)")
        if wanted:
            con.executemany("INSERT INTO wanted VALUES (?)", [[f] for f in wanted])
        records = _grouped(
            con,
            "SELECT cell_key, record_kind, record_json FROM counted_records "
            + ("WHERE function IN (SELECT function FROM wanted) " if wanted is not None else "")
            + "ORDER BY cell_key, started_at, case_id",
        )
        sessions = _grouped(
            con,
            "SELECT cell_key, 'session', line_json FROM sessions "
            "ORDER BY cell_key, coalesce(ended_at, ''), idx",
        )
    out: list[Cell] = []
    for key, cell_id, plan_json, env_json, run_id, cell_dir in cells:
        where = f"{run_id}/{cell_dir}"
        try:
            plan = _plan(plan_json, f"the store's plan of {where}")
            env = EnvDocument.from_json(read_json(env_json, DOCUMENT), where) if env_json else None
            lines = tuple(SessionLine.from_json(read_json(t, LINE)) for _, t in sessions[key])
            read = tuple(_record(kind, text) for kind, text in records[key])
        except (ContractError, LineRefused) as exc:
            raise StoreError(
                f"{store}: the stored cell {where} does not read back ({exc}); the store was "
                "changed outside portbench: ingest its cells anew into a new store"
            ) from None
        framework, accelerator, profile = ([*str(cell_id).split("/"), "?", "?"])[:3]
        out.append(
            Cell(
                Path(str(run_id or "store")) / str(cell_dir or key[:12]),
                str(cell_id),
                framework,
                accelerator,
                profile,
                plan,
                env,
                lines,
                read,
                label=(plan.label or "") if isinstance(plan, (Plan, StudyPlan)) else "",
            )
        )
    # The order the report gives run directories: by path, the study's cells after them.
    return sorted(out, key=lambda c: (c.is_study, str(c.path)))
