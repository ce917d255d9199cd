"""The sampling pipeline: enumerate a framework's API, count its uses in a corpus, sample it.

``enumerate`` runs inside a cell (the list depends on the installed version), ``frequency``
streams a corpus of Python files, ``sample`` draws the stratified, seeded sample and writes
a manifest skeleton for curation. See docs/sampling.md.
"""

from __future__ import annotations

__all__: list[str] = []
