"""``portbench report [RUN_DIR...]`` and ``portbench publish``."""

from __future__ import annotations

import argparse
import hashlib
import shutil
import time
from pathlib import Path
from typing import Any

from rich.console import Console

from portbench_runner.contract import Plan

from ..errors import PlanError, ResultsError
from ..paths import project_root, results_dir, state_dir
from ..plan import read_any_plan
from ..writable import require_writable
from .census import census_tables, is_census
from .census_html import write_census_html
from .fallbacks import fallback_cases, fallbacks
from .figures import write_figures
from .latency import generation_pairs, latency_tables, version_tables
from .load import Cell, load_cell, load_runs
from .names import run_argument, tell_apart, with_label
from .predicted import is_predicted, predicted_tables
from .publish import CONTENTS, publish
from .published import harness_cases, portbench_beside, published_outcomes, published_strata
from .render import write_files, write_html
from .study import default_archive, import_study, study_cells_dir
from .study_latency import published_latency, study_quantity_beside
from .tables import (
    Table,
    cpu_too,
    curation,
    failure_categories,
    failures,
    portability,
    provenance,
    strata,
)
from .terminal import print_tables
from .versions import release_tables

__all__ = ["build_report", "register"]


def register(subparsers: Any) -> None:
    report = subparsers.add_parser(
        "report", help="merge runs into tables (terminal, Markdown, LaTeX, CSV, JSON, HTML)"
    )
    report.add_argument(
        "runs",
        nargs="*",
        metavar="RUN_DIR[=LABEL]",
        help="run or cell directories, each with an optional label of your choosing that "
        "names its cells in the tables (default: everything under results/ except "
        "results/reference/)",
    )
    report.add_argument(
        "--with-reference",
        action="store_true",
        help="also fold in the project's reference runs (results/reference/)",
    )
    report.add_argument(
        "--out", type=Path, default=None, help="output directory (default: report/)"
    )
    report.add_argument(
        "--full", action="store_true", help="every row in the terminal, not the first 12"
    )
    report.add_argument(
        "--wide",
        action="store_true",
        help="each table at its natural width, one line a row (for `less -S` or a file), "
        "instead of wrapping long names to the terminal's width",
    )
    report.add_argument(
        "--svg",
        type=Path,
        default=None,
        metavar="FILE",
        help="also save what the terminal shows as an SVG picture (width: the terminal's, "
        "or COLUMNS)",
    )
    report.add_argument(
        "--study",
        type=Path,
        default=None,
        help="the study's results: its repository (directory or archive); default: "
        "paper/study-timings-b220f30.tar.xz",
    )
    report.add_argument(
        "--no-study", action="store_true", help="leave the study's imported cells out"
    )
    report.add_argument(
        "--store",
        type=Path,
        default=None,
        metavar="FILE",
        help="read every cell from the store (portbench ingest) instead of run directories",
    )
    report.set_defaults(func=_report)
    study = subparsers.add_parser(
        "import-study",
        help="write the study's published results as cells (profile `study`)",
    )
    study.add_argument(
        "source",
        type=Path,
        nargs="?",
        default=None,
        help="the for-ai/portability repository, a directory or archive (default: the "
        "committed paper/study-timings-b220f30.tar.xz)",
    )
    study.add_argument("--out", type=Path, required=True, help="a new directory for the cells")
    study.set_defaults(func=_import_study)
    publish = subparsers.add_parser(
        "publish", help="pack the report directory into one archive with hashed contents"
    )
    publish.add_argument(
        "--report", type=Path, default=None, help="the report directory (default: report/)"
    )
    publish.add_argument(
        "--out",
        type=Path,
        default=None,
        help="the archive (default: dist/report-<date>.tar.gz, git-ignored)",
    )
    publish.set_defaults(func=_publish)


def study_cells(source: Path | None) -> list[Cell]:
    """The study's cells, imported once per input and cached by its content."""
    archive = source or default_archive()
    if not archive.exists():
        raise ResultsError(
            f"{archive} does not exist; pass --study with the study's repository or "
            "archive, or --no-study"
        )
    # An archive is imported once and cached by its content; a checkout can change under
    # us, so it is imported afresh (about a second).
    if archive.is_file():
        cache = study_cells_dir(archive)
    else:
        key = hashlib.sha256(str(archive.resolve()).encode()).hexdigest()[:12]
        cache = state_dir() / "study" / f"checkout-{key}"
        shutil.rmtree(cache, ignore_errors=True)
    if not (cache / "NOT-IMPORTED.txt").exists():
        import_study(archive, cache)
    return [load_cell(p) for p in sorted(cache.iterdir()) if p.is_dir()]


def all_tables(cells: list[Cell]) -> list[Table]:
    latency, latency_summary = latency_tables(cells)
    checked, _ = published_latency(cells)
    return [
        portability(cells),
        published_outcomes(cells),
        portbench_beside(cells),
        strata(cells),
        published_strata(cells),
        harness_cases(cells),
        failures(cells),
        failure_categories(cells),
        fallbacks(cells),
        fallback_cases(cells),
        cpu_too(cells),
        latency_summary,
        checked,
        study_quantity_beside(cells),
        generation_pairs(cells),
        *version_tables(cells),
        *release_tables(cells),
        *latency,
        curation(cells),
        provenance(cells),
    ]


def mutation_tables(runs: list[Path | str], with_reference: bool = False) -> list[Table]:
    """The kill rates of the mutation runs among ``runs`` (none: results/), a table of
    their own: their records are never results (issue 33)."""
    from ..mutation.render import report_table
    from ..mutation.summary import summarize
    from .load import REFERENCE, find_cells

    paths = [run_argument(str(run))[0] for run in runs] or [results_dir()]
    found = find_cells([p for p in paths if p.exists()])
    if not runs and not with_reference:
        found = [c for c in found if REFERENCE not in c.relative_to(results_dir()).parts[:1]]
    cells = [c for c in found if _is_mutation(c)]
    if not cells:
        return []
    table: Table = report_table(summarize(cells))
    return [table]


def _is_mutation(cell: Path) -> bool:
    try:
        plan = read_any_plan(cell / "plan.json")
    except PlanError:
        return False
    return isinstance(plan, Plan) and plan.is_mutation


def load_labelled(runs: list[Path | str], with_reference: bool = False) -> list[Cell]:
    """The cells of ``runs`` (``RUN_DIR`` or ``RUN_DIR=LABEL``; none: results/), each once."""
    if not runs:
        return load_runs(None, with_reference)
    cells: dict[Path, Cell] = {}
    for run in runs:
        path, label = run_argument(str(run))
        for cell in with_label(load_runs([path]), label):
            # A cell reached through two arguments is one cell; the later label wins.
            cells[cell.path.resolve()] = cell
    return list(cells.values())


def build_report(
    runs: list[Path | str],
    out: Path,
    console: Console,
    full: bool = False,
    study: Path | None = None,
    with_study: bool = True,
    with_reference: bool = False,
    wide: bool = False,
    loaded: list[Cell] | None = None,
) -> list[Path]:
    # Before any cell is read: a folder that cannot be written is one sentence, not a traceback.
    require_writable(out, "pass --out with a directory you can write")
    # ``loaded``: cells read elsewhere (the store); the study's then come from there too.
    if loaded is not None and any(c.is_study for c in loaded):
        with_study = False
    cells = tell_apart(loaded if loaded is not None else load_labelled(runs, with_reference))
    if not cells and (runs or not with_study):
        # Named folders without a cell are a mistake (a wrong path), never a study-only report.
        where = ", ".join(str(r) for r in runs[:3]) if runs else "results/"
        raise ResultsError(
            f"no portbench cells found in {where} (no cell directory with plan.json or "
            'results.jsonl); pass run directories (results/<run-id>) or run `nox -s "bench(jax, '
            'cpu)"` first'
        )
    # Cells from the store hold the study's too (placed last): they are not ours.
    ours = len(cells) - sum(c.is_study for c in cells) if loaded is not None else len(cells)
    if with_study:
        cells += study_cells(study)
    # Predicted cells (#30), bench or census, are another kind of evidence: their own
    # tables, never rows of the tables of observed cells.
    predicted = [c for c in cells if is_predicted(c)]
    cells = [c for c in cells if not is_predicted(c)]
    ours -= len(predicted)
    # Census cells answer another question (every operator of a database, not the study's
    # sample): their own tables and heat map, never rows of the portability tables.
    censuses = [c for c in cells if is_census(c)]
    cells = [c for c in cells if not is_census(c)]
    ours -= len(censuses)
    census = census_tables(censuses)
    tables = (
        all_tables(cells)
        + predicted_tables(predicted, cells)
        + mutation_tables(runs, with_reference)
    )
    written: list[Path] = []
    for table in tables + census:
        written += write_files(table, out / "tables")
    heat_map = write_census_html(censuses, out)
    written += [heat_map] if heat_map is not None else []
    # The per-operator support tables are the heat map's data: files and census.html only.
    tables += [t for t in census if not t.name.startswith("census-support-")]
    figures = write_figures(tables, cells, out / "figures")
    written += figures
    failed = [f"{c.name} ({c.status})" for c in cells if c.status != "complete"]
    damaged = sum(c.unreadable_lines for c in cells)
    summary = (
        f"{ours} portbench cells from {len({c.path.parent for c in cells[:ours]})} runs"
        + (f", {len(cells) - ours} study cells" if with_study or len(cells) > ours else "")
        + "; "
        + (f"not complete: {', '.join(failed)}; " if failed else "all complete; ")
        + f"{damaged} unreadable result lines"
        + (f"; {len(censuses)} census cells (census.html)" if censuses else "")
        + (f"; {len(predicted)} predicted cells, apart" if predicted else "")
    )
    written.append(write_html(tables, out, summary, [f for f in figures if f.suffix == ".svg"]))
    print_tables(tables, console, full, wide)
    console.print(summary)
    console.print(f"report: {out / 'index.html'} and {out / 'tables'}/")
    return written


def _report(args: argparse.Namespace) -> int:
    console = Console(record=args.svg is not None)
    if args.svg is not None:
        # Checked before the report is built: a wrong path costs a second, not a report.
        require_writable(args.svg.parent, "pass --svg a file in a directory you can write")
    loaded = None
    if args.store is not None:
        from ..store.cells import load_store_cells

        loaded = load_store_cells(args.store)
    build_report(
        args.runs,
        args.out or project_root() / "report",
        console,
        args.full,
        args.study,
        not args.no_study,
        args.with_reference,
        args.wide,
        loaded,
    )
    if args.svg is not None:
        args.svg.parent.mkdir(parents=True, exist_ok=True)
        console.save_svg(str(args.svg), title=f"portbench report ({console.width} columns)")
        console.print(f"terminal picture: {args.svg}")
    return 0


def _import_study(args: argparse.Namespace) -> int:
    if args.out.exists() and any(args.out.iterdir()):
        raise ResultsError(f"{args.out} is not empty; name a new directory for the study's cells")
    written = import_study(args.source or default_archive(), args.out)
    Console().print(f"{len(written)} study cells in {args.out} (see NOT-IMPORTED.txt)")
    return 0


def _publish(args: argparse.Namespace) -> int:
    folder = args.report or project_root() / "report"
    # dist/ is git-ignored: an archive never lands in the project's tracked tree.
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    archive = args.out or project_root() / "dist" / f"report-{stamp}.tar.gz"
    result = publish(folder, archive)
    console = Console()
    console.print(f"{result.archive}: {result.files} files, sha256 of each in report/{CONTENTS}")
    if result.links_left_out:
        console.print(
            f"[yellow]note:[/] left out (not regular files): {', '.join(result.links_left_out)}"
        )
    return 0
