"""The site: hostile names and messages stay text, every link is relative and resolves (so
it works from disk), trend files for machines, and the steps of a timing series."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from conftest import ROOT

from portbench.cli import main
from portbench.scoreboard.steps import detect_steps

from ..store.cells import CaseSpec, CellSpec, write_cell

HOSTILE_FUNCTION = 'torch.<script>alert("f")</script>'
HOSTILE_MESSAGE = "<img src=x onerror=alert(1)> & </td></tr><script>alert(2)</script>"
HOSTILE_LABEL = '"><script>alert(3)</script>'
HOSTILE_HOST = "<b onmouseover=alert(4)>host</b>"


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.scripts = 0
        self.handlers: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "script":
            self.scripts += 1
        for name, value in attrs:
            if name.startswith("on"):
                self.handlers.append(name)
            if name in ("href", "src") and value is not None:
                self.links.append(value)


def _site(tmp_path: Path) -> Path:
    runs = tmp_path / "runs"
    hostile = [
        CaseSpec(f"{HOSTILE_FUNCTION}::float16", "fail", HOSTILE_MESSAGE),
        CaseSpec("torch.add::float32", samples_ms=(0.1,) * 8),
    ]
    write_cell(
        runs,
        CellSpec(
            "torch",
            "cpu",
            "1.0",
            hostile,
            label=HOSTILE_LABEL,
            host=HOSTILE_HOST,
            started_at="2026-11-10T10:00:00.000+00:00",
        ),
        "a",
    )
    write_cell(
        runs,
        CellSpec(
            "torch",
            "cpu",
            "1.1",
            [
                CaseSpec(f"{HOSTILE_FUNCTION}::float16"),
                CaseSpec("torch.add::float32", samples_ms=(0.3,) * 8),
            ],
            started_at="2026-11-11T10:00:00.000+00:00",
        ),
        "b",
    )
    store = tmp_path / "s.duckdb"
    assert main(["ingest", "--store", str(store), str(runs)]) == 0
    site = tmp_path / "site"
    assert main(["scoreboard", "--store", str(store), "--out", str(site)]) == 0
    return site


def test_hostile_names_and_messages_are_text_never_markup(tmp_path: Path) -> None:
    site = _site(tmp_path)
    pages = sorted(site.rglob("*.html"))
    assert len(pages) >= 6
    seen_message = seen_function = False
    for page in pages:
        text = page.read_text()
        parser = _Page()
        parser.feed(text)
        assert parser.scripts == 0, page
        assert parser.handlers == [], page
        assert "<script>" not in text and "<img" not in text and "<b onmouseover" not in text
        seen_message |= "&lt;img src=x onerror=alert(1)&gt; &amp; &lt;/td&gt;" in text
        seen_function |= "torch.&lt;script&gt;alert(&#34;f&#34;)&lt;/script&gt;" in text
    assert seen_message and seen_function
    # The hostile function has a page, under a file name made of safe characters only.
    names = [p.name for p in (site / "functions").iterdir()]
    assert any(n.startswith("torch-torch.-script-alert-f-script-") for n in names)
    assert all(re.fullmatch(r"[A-Za-z0-9._-]+\.html", n) for n in names)


def test_every_link_is_relative_and_resolves_from_disk(tmp_path: Path) -> None:
    site = _site(tmp_path)
    for page in site.rglob("*.html"):
        parser = _Page()
        parser.feed(page.read_text())
        for link in parser.links:
            assert not re.match(r"^[a-z]+:|^/", link), (page, link)
            target = link.split("#", 1)[0]
            if target:
                assert (page.parent / target).resolve().is_file(), (page, link)


def test_trend_files_say_each_release_and_change(tmp_path: Path) -> None:
    site = _site(tmp_path)
    index = json.loads((site / "trend" / "index.json").read_text())
    (entry,) = index["files"]
    assert entry["framework"] == "torch" and entry["target"] == "cpu"
    trend = json.loads((site / "trend" / entry["file"]).read_text())
    (series,) = trend["series"]
    assert series["kind"] == "observed" and series["suite"] == "cases"
    assert [r["release"] for r in series["releases"]] == ["1.0", "1.1"]
    assert series["releases"][0]["functions"] == {"complete": 1, "pass": 1, "total": 2}
    assert series["releases"][1]["functions"] == {"pass": 2, "total": 2}
    (change,) = series["changes"]
    assert change["fixed"] == [f"{HOSTILE_FUNCTION}::float16"] and change["broke"] == []
    # Built twice from the same store, the trend files are the same bytes.
    again = tmp_path / "again"
    assert main(["scoreboard", "--store", str(tmp_path / "s.duckdb"), "--out", str(again)]) == 0
    assert (again / "trend" / entry["file"]).read_bytes() == (
        site / "trend" / entry["file"]
    ).read_bytes()


@pytest.mark.parametrize(
    ("series", "expected"),
    [
        ([1.0, 1.02, 0.99, 1.01, 2.0, 2.05, 1.98, 2.01], [(4, 2.0)]),
        ([1.0, 1.01, 0.99, 1.0, 1.02, 0.98], []),
        ([1.0, 1.05, 1.04, 0.5, 0.51, 0.52, 0.5], [(3, 0.5)]),
        ([5.0, 5.1, 4.9, 5.0, 5.2, 5.05, 5.15], []),
        ([1.0, 1.0, 1.0, 3.0, 3.0, 9.0, 9.0], [(3, 3.0), (5, 3.0)]),
    ],
)
def test_steps_are_found_where_the_level_changes_and_not_in_noise(
    series: list[float], expected: list[tuple[int, float]]
) -> None:
    found = [(s.index, round(s.ratio, 0 if s.ratio > 1.5 else 1)) for s in detect_steps(series)]
    assert found == [(i, round(r, 0 if r > 1.5 else 1)) for i, r in expected]


def test_the_scoreboard_of_the_reference_runs_shows_each_of_them(tmp_path: Path) -> None:
    store = tmp_path / "s.duckdb"
    assert main(["ingest", "--store", str(store), str(ROOT / "results" / "reference")]) == 0
    site = tmp_path / "site"
    assert main(["scoreboard", "--store", str(store), "--out", str(site)]) == 0
    html = (site / "index.html").read_text()
    for text in ("torch 2.13.0", "jax 0.11.2", "tensorflow 2.20.0", "gpu-h100"):
        assert text in html
    # torch 2.11.0 on the H100 is behind torch 2.13.0, which other cells and the locks name.
    assert "torch 2.13.0 is known" in html
