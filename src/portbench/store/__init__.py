"""The store: every record of every cell, census, study cell and archive ingested, in one
DuckDB file, with provenance (docs/store.md).

- :mod:`.db`       opening the store: its lock and schema version
- :mod:`.schema`   tables, views and migrations
- :mod:`.bundle`   a cell's files read through the typed results layer
- :mod:`.facts`    a cell's keys (release, device, Python, NumPy...)
- :mod:`.rows`     typed cells as rows, and the hashes that identify them
- :mod:`.reading`  cells read into rows, in a pool of processes where it pays
- :mod:`.ingest`   one transaction per ingest, nothing stored twice
- :mod:`.archive`  cell archives: packed here, checked whole there
- :mod:`.export`   Parquet out, another store's Parquet in
- :mod:`.cells`    the store's cells as the report's (and ``portbench scan``'s) cells
"""

from .db import StoreError, default_store, open_store
from .schema import SCHEMA_VERSION

__all__ = ["SCHEMA_VERSION", "StoreError", "default_store", "open_store"]
