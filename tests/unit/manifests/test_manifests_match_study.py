"""Each curated manifest holds every row of the study's function list for its framework,
exactly once by (function, study_test_file), with the study's stratum and frequency."""

from __future__ import annotations

import csv
from collections import Counter

import pytest
from conftest import ROOT

from portbench.manifest import load_manifest

STUDY_ROWS = {"jax": 65, "torch": 64, "tensorflow": 72}


def _study_rows(framework: str) -> list[dict[str, str]]:
    with open(ROOT / "paper" / "functions.csv", newline="") as handle:
        return [row for row in csv.DictReader(handle) if row["framework"] == framework]


@pytest.mark.parametrize("framework", sorted(STUDY_ROWS))
def test_every_study_row_is_present_once_with_its_stratum(framework: str) -> None:
    manifest = load_manifest(framework)
    rows = _study_rows(framework)
    assert len(rows) == STUDY_ROWS[framework]
    keys = Counter(entry.key for entry in manifest.functions)
    assert max(keys.values()) == 1
    by_key = {entry.key: entry for entry in manifest.functions}
    for row in rows:
        entry = by_key[(row["function"], row["study_test_file"])]
        assert entry.stratum == row["stratum"], row["function"]
        assert entry.frequency == int(row["frequency"]), row["function"]
    assert len(manifest.functions) == len(rows)


@pytest.mark.parametrize("framework", sorted(STUDY_ROWS))
def test_every_function_has_at_least_three_cases(framework: str) -> None:
    thin = {
        e.function: len(e.cases) for e in load_manifest(framework).functions if len(e.cases) < 3
    }
    assert thin == {}


def test_both_prngkey_rows_have_distinct_cases() -> None:
    rows = [e for e in load_manifest("jax").functions if e.function == "jax.random.PRNGKey"]
    assert sorted(e.study_test_file for e in rows) == ["PRNGKey_test.py", "PRNG_test.py"]
    assert not set(rows[0].cases) & set(rows[1].cases)


def test_rows_the_study_replaced_are_kept_and_marked() -> None:
    entry = next(
        e
        for e in load_manifest("torch").functions
        if e.function == "torch.nn.functional.batch_norm"
    )
    assert entry.replaced


def test_tensorflow_rows_the_paper_replaced_are_marked() -> None:
    entry = next(
        e for e in load_manifest("tensorflow").functions if e.function == "tf.compat.v1.nn.raw_rnn"
    )
    assert entry.replaced
