"""Census listings as the host checks them, and the plans compiled from them."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from portbench.accelerators import get_accelerator
from portbench.census.listing import parse_listing
from portbench.census.plan import CensusOptions, compile_census_plan
from portbench.errors import ResultsError, UsageError
from portbench.plan import CellSpec
from portbench_runner.contract import Plan

LISTING: dict[str, Any] = {
    "schema": 1,
    "kind": "census-listing",
    "framework": "torch",
    "python": "3.11.7",
    "database": {"name": "op_db", "version": "2.13.0", "entries": 3},
    "dtypes": ["bool", "float32", "float64"],
    "operators": [
        {
            "entry": 0,
            "op": "add",
            "variant": "",
            "declared": {"cpu": ["float32", "float64"], "cuda": ["float32"]},
            "reference": True,
        },
        {
            "entry": 1,
            "op": "max",
            "variant": "reduction_with_dim",
            "declared": {"cpu": ["bool", "float32"]},
            "reference": False,
        },
        {
            "entry": 2,
            "op": "nn.functional.relu",
            "variant": "",
            "declared": {"cpu": ["float32"]},
            "reference": False,
        },
    ],
}


def _parse(doc: dict[str, Any]) -> Any:
    return parse_listing(json.dumps(doc).encode(), "listing.json", "torch")


def _bad(mutate: Any) -> str:
    doc = copy.deepcopy(LISTING)
    mutate(doc)
    with pytest.raises(ResultsError) as caught:
        _parse(doc)
    return str(caught.value)


def test_a_good_listing_is_read_entry_by_entry() -> None:
    listing = _parse(LISTING)
    assert [o.name for o in listing.operators] == [
        "add",
        "max.reduction_with_dim",
        "nn.functional.relu",
    ]
    assert listing.operators[0].declared["cuda"] == ("float32",)
    assert listing.database.version == "2.13.0"


@pytest.mark.parametrize(
    ("mutate", "words"),
    [
        (
            lambda d: d["operators"][1]["declared"]["cpu"].append("bfloat61"),
            "unknown dtype 'bfloat61'",
        ),
        (lambda d: d["operators"][2].update(op="add"), "listed twice"),
        (lambda d: d["operators"][2].update(entry=7), "past the database"),
        (lambda d: d["operators"][0].update(entry=True), "'entry' is missing or not"),
        (lambda d: d["operators"][0].update(op="add; rm -rf"), "names letters"),
        (lambda d: d["operators"][0].update(reference="yes"), "'reference'"),
        (lambda d: d.update(framework="jax"), "not 'torch'"),
        (lambda d: d.update(schema=2), "schema 2"),
        (lambda d: d.update(operators=[]), "no operator"),
        (lambda d: d["operators"].append("add"), "a JSON object"),
    ],
)
def test_a_listing_with_one_bad_entry_is_refused_whole(mutate: Any, words: str) -> None:
    message = _bad(mutate)
    assert words in message
    assert message.startswith("listing.json")


def test_bytes_that_are_not_json_are_refused() -> None:
    with pytest.raises(ResultsError, match="not JSON"):
        parse_listing(b'{"schema": 1, "kind": "census-li', "listing.json", "torch")


def _cell() -> CellSpec:
    return CellSpec("torch", get_accelerator("cpu"), "host", "host")


def test_the_plan_has_one_case_per_entry_and_dtype_with_stable_ids() -> None:
    listing = _parse(LISTING)
    plan = compile_census_plan(_cell(), listing, [], CensusOptions(), "0" * 64)
    assert Plan.from_json(plan.to_json(), "plan") == plan  # what the runner reads back
    ids = plan.case_ids
    assert len(ids) == 9
    assert "census:max.reduction_with_dim::bool" in ids
    again = compile_census_plan(_cell(), listing, [], CensusOptions(), "0" * 64)
    assert plan.functions == again.functions  # seeds and ids are the same every time
    entry = plan.functions[1].census
    assert entry is not None
    assert (entry.database, entry.version, entry.entry) == ("op_db", "2.13.0", 1)
    assert plan.census is not None and plan.census.timing is True
    assert plan.rerun_prefix.startswith("portbench census --framework torch")


def test_ops_select_an_operator_with_all_its_variants_or_one_variant() -> None:
    listing = _parse(LISTING)
    plan = compile_census_plan(
        _cell(), listing, [], CensusOptions(ops=("max", "add"), dtypes=("float32",)), ""
    )
    assert plan.case_ids == [
        "census:add::float32",
        "census:max.reduction_with_dim::float32",
    ]


@pytest.mark.parametrize(
    ("options", "words"),
    [
        (CensusOptions(ops=("addd",)), "addd not in op_db 2.13.0"),
        (CensusOptions(dtypes=("float128",)), "--dtypes 'float128'"),
        (CensusOptions(cases=("census:add::int8",)), "holds no census case"),
    ],
)
def test_a_selection_that_names_nothing_is_one_sentence(options: CensusOptions, words: str) -> None:
    with pytest.raises(UsageError, match=words.replace(".", r"\.").replace("(", r"\(")):
        compile_census_plan(_cell(), _parse(LISTING), [], options, "")
