"""``portbench census``: every operator of a framework's own database, run as one cell.

The cell lists the database (``listing``) with the census lock layered on its environment
(``environment``); the host validates the listing and compiles the plan (``plan``), then
runs it as any cell runs (``run``). The report's census tables are in ``report.census``.
"""
