"""The comparison report: loads any set of runs and renders tables for terminal, Markdown,
LaTeX, CSV, JSON and one static HTML page."""
