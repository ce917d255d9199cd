"""Sweeps: one cell per framework release, in one resumable run directory (docs/releases.md).

- :mod:`.state`    the run directory's sweep.json and sweep.jsonl
- :mod:`.run`      running the releases not yet settled, pruning their images
- :mod:`.commands` ``portbench sweep``
"""
