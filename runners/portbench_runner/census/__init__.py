"""Census: every operator of a framework's own database, run inside the cell.

Two halves, both standard library plus the framework under test:

- ``listing``: ``python -m portbench_runner census-list --framework F --out FILE`` writes
  the database's entries as this version ships them (names, declared dtypes per device
  type, whether a reference exists). The host validates the file and compiles the plan.
- ``case``: the worker runs one planned entry x dtype on the cell's device, with the
  database's own sample inputs, and checks it (``run_census_case``).

Each framework's database lives in its own module (``torch_db``), imported lazily.
"""

from __future__ import annotations

from typing import Any

__all__ = ["DATABASES", "LISTING_SCHEMA", "database_module"]

#: Listing schema history: 1 - first version (operators with entry, op, variant,
#: declared dtypes per device type, reference, optionally the dtypes the entry runs in;
#: the candidate dtypes; the database).
LISTING_SCHEMA = 1

#: The module holding each framework's database adapter.
DATABASES = {"torch": "torch_db", "jax": "jax_db", "tensorflow": "tf_db", "python": "python_db"}


def database_module(framework: str) -> Any:
    """The database adapter of ``framework`` (ValueError: the framework has none yet)."""
    import importlib

    name = DATABASES.get(framework)
    if name is None:
        raise ValueError(
            f"no census database for {framework!r} (known: {', '.join(sorted(DATABASES))})"
        )
    return importlib.import_module(f"{__name__}.{name}")
