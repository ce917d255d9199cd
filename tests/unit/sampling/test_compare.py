"""The comparison with the study: which corpus, both top 20s, and how many of the study's
top 20 this ranking's top 20 holds."""

from __future__ import annotations

import json
from pathlib import Path

from portbench.sampling.compare import compare_strata, render_summary, top_overlap
from portbench.sampling.frequency import load_frequency

STUDY = [
    # The study lists only some of its top 20 (the rest were excluded), by its own rank.
    {"framework": "fw", "function": "fw.a", "stratum": "top20", "frequency_rank": "1"},
    {"framework": "fw", "function": "fw.b", "stratum": "top20", "frequency_rank": "3"},
    {"framework": "fw", "function": "fw.b", "stratum": "top20", "frequency_rank": "3"},
    {"framework": "fw", "function": "fw.gone", "stratum": "top20", "frequency_rank": "4"},
    {"framework": "fw", "function": "fw.c", "stratum": "7", "frequency_rank": "140"},
    {"framework": "other", "function": "x.y", "stratum": "top20", "frequency_rank": "1"},
]


def test_overlap_and_summary(tmp_path: Path) -> None:
    # 30 names: fw.a is used most; fw.b has uses only as a bare identifier.
    names = [{"name": "fw.a", "kind": "function", "uses": 100, "identifier_uses": 100}]
    names.append({"name": "fw.b", "kind": "function", "uses": 0, "identifier_uses": 500})
    names += [
        {"name": f"fw.n{i:02d}", "kind": "function", "uses": i, "identifier_uses": i}
        for i in range(1, 29)
    ]
    doc = {
        "schema": 1,
        "kind": "frequency",
        "framework": "fw",
        "corpus": {"source": "x", "description": "folder x: an offline stand-in"},
        "enumeration": {},
        "counts": {"files_read": 9, "files_matched": 4},
        "file_filter": "study",
        "limit": 3001,
        "names": names,
    }
    path = tmp_path / "freq.json"
    path.write_text(json.dumps(doc))
    frequency = load_frequency(path)
    aliases = {n["name"]: n["name"] for n in names}
    rows = compare_strata(frequency, aliases, STUDY)
    # fw.gone is not enumerated here: it can never be in our top 20.
    assert top_overlap(rows, "uses") == (1, 3)
    assert top_overlap(rows, "identifier_uses") == (2, 3)
    text = render_summary(frequency, rows, STUDY)
    assert text.startswith(
        "corpus: folder x: an offline stand-in; 4 of 9 files counted (filter study, limit 3001)"
    )
    assert "by uses: 1 of the 3 the study lists" in text
    assert "by identifier_uses: 2 of the 3 the study lists" in text
    assert "| 1 | `fw.a (100)` | `fw.b (500)` | `fw.a` |" in text
    assert "| 2 | `fw.n28 (28)` | `fw.a (100)` |  |" in text
    assert "| 3 | `fw.n27 (27)` | `fw.n28 (28)` | `fw.b` |" in text
