"""A case's message reaches the report's Markdown as text, never as HTML."""

from __future__ import annotations

from pathlib import Path

import pytest
from journeyhelp import make_home, run

HOSTILE = """
from portbench_runner.api import case

@case("loud")
def loud(ctx):
    def call():
        raise RuntimeError(
            "<script>alert(1)</script> <img src=x onerror=alert(2)> a|b\\n| forged | row |"
        )
    ctx.measure(call)
"""


def test_case_messages_reach_curation_md_escaped(tmp_path: Path) -> None:
    pytest.importorskip("jax")
    home = make_home(tmp_path, HOSTILE)
    run_dir = tmp_path / "run"
    bench = run(
        home,
        "bench",
        "--framework",
        "jax",
        "--accelerator",
        "cpu",
        "--profile",
        "host",
        "--run-dir",
        str(run_dir),
    )
    assert bench.returncode != 0 or "fail" in bench.stdout, bench.stdout + bench.stderr
    out = tmp_path / "report"
    report = run(home, "report", str(run_dir), "--no-study", "--out", str(out))
    assert report.returncode == 0, report.stdout + report.stderr
    curation = (out / "tables" / "curation.md").read_text()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in curation
    assert "&lt;img src=x onerror=alert(2)&gt;" in curation
    for text in list((out / "tables").glob("*.md")):
        body = text.read_text()
        assert "<script" not in body and "<img" not in body, text.name
    # The message's own '|' and line break stay inside its one cell.
    row = next(line for line in curation.splitlines() if "alert(1)" in line)
    assert "a\\|b" in row
    assert not any(line.startswith("| forged") for line in curation.splitlines())
