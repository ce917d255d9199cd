"""``portbench list`` (what a cell would run) and ``portbench doctor`` (what this machine has)."""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from portbench_runner.contract import member

from ..accelerators import is_present, load_accelerators
from ..manifest import FRAMEWORKS, load_manifest
from ..paths import runners_dir

__all__ = ["register"]


def register(subparsers: Any) -> None:
    listing = subparsers.add_parser("list", help="the functions and cases a cell would run")
    listing.add_argument("--framework", required=True)
    listing.add_argument("--functions", nargs="+", default=[])
    listing.add_argument("--json", action="store_true", help="print JSON instead of a table")
    listing.set_defaults(func=_list)
    doctor = subparsers.add_parser("doctor", help="engines, accelerators, frameworks, Pythons here")
    doctor.set_defaults(func=_doctor)


def _list(args: argparse.Namespace) -> int:
    manifest = load_manifest(args.framework)
    wanted = set(args.functions)
    entries = [e for e in manifest.functions if not wanted or e.function in wanted]
    if args.json:
        rows = [
            {
                "function": e.function,
                "study_test_file": e.study_test_file,
                "stratum": e.stratum,
                "cases": [e.case_id(c) for c in e.cases],
                "untested": e.untested,
            }
            for e in entries
        ]
        print(json.dumps(rows, indent=2))
        return 0
    table = Table(
        title=f"{args.framework}: {len(entries)} functions, {sum(len(e.cases) for e in entries)} cases"
    )
    for column in ("function", "study test file", "stratum", "cases"):
        table.add_column(column)
    for e in entries:
        table.add_row(e.function, e.study_test_file, e.stratum, ", ".join(e.cases))
    Console().print(table)
    return 0


def _pythons() -> list[tuple[str, str]]:
    found = []
    pyenv_root = Path.home() / ".pyenv" / "versions"
    for path in sorted(pyenv_root.glob("3.*/bin/python3")):
        version = path.parent.parent.name
        # The runner supports Python 3.8 and newer.
        if tuple(int(p) for p in version.split(".")[:2]) >= (3, 8):
            found.append((version, str(path)))
    for name in ("python3.8", "python3.9", "python3.10", "python3.11", "python3.12", "python3.13"):
        exe = shutil.which(name)
        if exe and "/shims/" not in exe and not any(exe == p for _, p in found):
            found.append((name.removeprefix("python"), exe))
    return found


def _probe(python: str) -> dict[str, object]:
    env = {"PYTHONPATH": str(runners_dir())}
    try:
        out = subprocess.run(
            [python, "-m", "portbench_runner", "probe", *FRAMEWORKS],
            capture_output=True,
            text=True,
            timeout=60,
            env=env,
            check=True,
        ).stdout
        result: dict[str, object] = json.loads(out)
        return result
    except (OSError, subprocess.SubprocessError, ValueError):
        return {}


def _doctor(args: argparse.Namespace) -> int:
    console = Console()
    engines = Table(title="backends")
    engines.add_column("backend")
    engines.add_column("available")
    engines.add_column("detail")
    from ..backends import BACKENDS, make_backend

    for name in BACKENDS:
        try:
            ok, why = make_backend(name).available()
        except ImportError as exc:
            ok, why = False, f"not installed ({exc})"
        engines.add_row(name, "yes" if ok else "no", why)
    console.print(engines)
    accel = Table(title="accelerators")
    accel.add_column("id")
    accel.add_column("flavor")
    accel.add_column("present")
    accel.add_column("found")
    for acc in load_accelerators().values():
        present, found = is_present(acc)
        accel.add_row(acc.id, acc.flavor, "yes" if present else "no", found)
    console.print(accel)
    pythons = Table(title="Pythons and their frameworks")
    for column in ("python", "path", *FRAMEWORKS):
        pythons.add_column(column)
    rows = [(sys.version.split()[0] + " (this)", sys.executable), *_pythons()]
    for version, path in rows:
        info = member(_probe(path), "frameworks")
        cells = [
            ", ".join(f"{k} {v}" for k, v in member(info, fw).items()) or "-" for fw in FRAMEWORKS
        ]
        pythons.add_row(version, path, *cells)
    console.print(pythons)
    return 0
