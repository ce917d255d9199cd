"""The JAX manifest holds every `jax` row of the study's function list exactly once."""

from __future__ import annotations

import csv
from collections import Counter

from conftest import ROOT
from portbench.manifest import load_manifest


def _study_rows(framework: str) -> list[dict[str, str]]:
    with open(ROOT / "paper" / "functions.csv", newline="") as handle:
        return [row for row in csv.DictReader(handle) if row["framework"] == framework]


def test_every_study_row_is_present_once_with_its_stratum() -> None:
    manifest = load_manifest("jax")
    by_key = {entry.key: entry for entry in manifest.functions}
    rows = _study_rows("jax")
    assert len(rows) == 65
    assert Counter(e.key for e in manifest.functions).most_common(1)[0][1] == 1
    for row in rows:
        entry = by_key[(row["function"], row["study_test_file"])]
        assert entry.stratum == row["stratum"], row["function"]
        assert entry.frequency == int(row["frequency"]), row["function"]
    assert len(manifest.functions) == len(rows)


def test_every_function_has_at_least_three_cases() -> None:
    thin = {e.function: len(e.cases) for e in load_manifest("jax").functions if len(e.cases) < 3}
    assert thin == {}


def test_both_prngkey_rows_have_distinct_cases() -> None:
    rows = [e for e in load_manifest("jax").functions if e.function == "jax.random.PRNGKey"]
    assert sorted(e.study_test_file for e in rows) == ["PRNGKey_test.py", "PRNG_test.py"]
    assert not set(rows[0].cases) & set(rows[1].cases)
