"""``python -m portbench_runner census-list --framework F --out FILE``: the database's entries.

Runs in the cell's interpreter because the database is the installed version's. The file
is untrusted input to the host, which validates every entry before compiling a plan.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
from typing import List, Optional

from . import LISTING_SCHEMA, database_module

__all__ = ["main"]


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="portbench_runner census-list")
    parser.add_argument("--framework", required=True)
    parser.add_argument("--out", required=True, help="the listing file to create")
    parser.add_argument(
        "--site", action="append", default=[], help="a folder of the census lock's packages"
    )
    args = parser.parse_args(argv)
    # Appended: the cell's own packages win over the census lock's.
    sys.path.extend(folder for folder in args.site if folder not in sys.path)
    try:
        module = database_module(args.framework)
        database = module.describe()
        operators = module.list_operators()
    except ImportError as exc:
        print(
            f"error: the {args.framework} census database does not import here "
            f"({type(exc).__name__}: {exc}); the census lock adds its test-only packages",
            file=sys.stderr,
        )
        return 3
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    document = {
        "schema": LISTING_SCHEMA,
        "kind": "census-listing",
        "framework": args.framework,
        "python": platform.python_version(),
        "database": database,
        # A database with fixed-dtype entries (JAX's harnesses) lists the dtypes it uses.
        "dtypes": list(module.dtypes()) if hasattr(module, "dtypes") else list(module.DTYPES),
        "operators": operators,
    }
    with open(args.out, "x", encoding="utf-8") as handle:
        json.dump(document, handle)
        handle.write("\n")
    return 0
