"""The scoreboard: a static site from the store (docs/scoreboard.md).

- :mod:`.model`        runs, results and plans read from the store, grouped into series
- :mod:`.history`      a series release by release: case states, function outcomes, moves
- :mod:`.regressions`  flips, flaky cases, timings and steps between releases
- :mod:`.steps`        the step detector over a whole series (asv's idea)
- :mod:`.releases`     the newest release known (locks, stored cells): staleness
- :mod:`.pages`        what each page shows
- :mod:`.site`         the pages written (jinja2, autoescaped), :mod:`.trend` for machines
- :mod:`.alerts`       ``--fail-on regression``
"""

__all__: list[str] = []
