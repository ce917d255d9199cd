"""``python -m portbench ...``: the same as the ``portbench`` command (for a checkout run with
``PYTHONPATH=src``, where no console script is installed)."""

from __future__ import annotations

from .cli import main

raise SystemExit(main())
