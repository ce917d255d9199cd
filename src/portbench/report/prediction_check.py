"""Predictions checked against the study (#30): the recorded outcome of each function on a
device beside what a predicted cell said of the same device.

For each predicted cell whose target is a study device with outcomes (T4 and TPU v3 for
torch and TensorFlow, T4 for JAX), per function: the study "fails" when the function is
partial or complete with the study's harness errors left out; the prediction "fails" when
any case was predicted to fail. Only functions with both a study outcome and a prediction
count (n); the others are counted apart. Precision and recall of "fails on the target"
carry Wilson 95% intervals (``scipy.stats.binomtest(...).proportion_ci(method="wilson")``),
"n/a" where the denominator is zero. Every miss is listed with its explanation from
``paper/prediction-misses.toml`` (kind: not_visible, harness, different_test,
prediction_wrong), or "unexplained" until someone reads it.
"""

from __future__ import annotations

import tomllib
from collections import Counter
from dataclasses import dataclass
from typing import Any

from portbench_runner.contract import Outcome, StudyRecord

from ..errors import UsageError
from ..paths import project_root
from .load import Cell
from .predicted import predicted_outcomes, prediction_of, versions
from .published import outcomes_without_harness

__all__ = ["MISS_KINDS", "Confusion", "confusion", "load_misses", "prediction_checks"]

MISS_KINDS = ("not_visible", "harness", "different_test", "prediction_wrong")
_FAILING = ("partial", "complete")
_TESTED = ("pass", "partial", "complete")


@dataclass(frozen=True)
class Confusion:
    """Per-function agreement of one prediction with one recorded device."""

    pairs: dict[str, tuple[bool, bool]]
    """function -> (study fails, predicted fails), for functions with both."""
    not_predicted: tuple[str, ...]
    """Functions the study tested that the prediction could not say anything of."""
    not_in_study: tuple[str, ...]
    """Predicted functions the study has no outcome for."""

    def count(self, study: bool, predicted: bool) -> int:
        return sum(1 for pair in self.pairs.values() if pair == (study, predicted))

    @property
    def n(self) -> int:
        return len(self.pairs)


def _by_function(outcomes: dict[tuple[str, str | None], str]) -> dict[str, str]:
    """Outcome per function name (a function of two study test files: the worse)."""
    order = {"complete": 3, "partial": 2, "pass": 1, "cpu_too": 0, "untested": 0}
    merged: dict[str, str] = {}
    for (function, _file), outcome in outcomes.items():
        held = merged.get(function)
        if held is None or order.get(outcome, 0) > order.get(held, 0):
            merged[function] = outcome
    return merged


def confusion(predicted: Cell, study: Cell) -> Confusion:
    """The per-function confusion of ``predicted`` against the ``study`` cell."""
    said = _by_function(predicted_outcomes(predicted))
    recorded = _by_function(outcomes_without_harness(study))
    pairs: dict[str, tuple[bool, bool]] = {}
    not_predicted = []
    for function, outcome in sorted(recorded.items()):
        if outcome not in _TESTED:
            continue
        guess = said.get(function)
        if guess in _TESTED:
            pairs[function] = (outcome in _FAILING, guess in _FAILING)
        elif function in said:
            not_predicted.append(function)
    not_in_study = tuple(
        f for f, o in sorted(said.items()) if o in _TESTED and recorded.get(f) not in _TESTED
    )
    return Confusion(pairs, tuple(not_predicted), not_in_study)


def _interval(k: int, n: int) -> str:
    if n == 0:
        return "n/a"
    from scipy.stats import binomtest

    low, high = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    return f"{k}/{n} = {k / n:.2f} [{low:.2f}, {high:.2f}]"


def load_misses() -> dict[tuple[str, str, str], dict[str, str]]:
    """(framework/target, function, "missed"|"false alarm") -> {kind, note}, from
    paper/prediction-misses.toml; a kind outside MISS_KINDS is one sentence."""
    path = project_root() / "paper" / "prediction-misses.toml"
    if not path.is_file():
        return {}
    try:
        table = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{path}: not valid TOML ({exc})") from None
    found: dict[tuple[str, str, str], dict[str, str]] = {}
    for entry in table.get("miss", []):
        kind = entry.get("kind")
        if kind not in MISS_KINDS:
            raise UsageError(
                f"{path}: miss of {entry.get('function')!r} has kind {kind!r} "
                f"(allowed: {', '.join(MISS_KINDS)})"
            )
        key = (str(entry.get("cell")), str(entry.get("function")), str(entry.get("miss")))
        found[key] = {"kind": str(kind), "note": str(entry.get("note", ""))}
    return found


def _study_device(cells: list[Cell]) -> dict[tuple[str, str], Cell]:
    return {
        (c.framework, c.accelerator): c
        for c in cells
        if c.profile == "study" and c.study_facts.get("report")
    }


def _first_error(cell: Cell, function: str, failing: bool) -> str:
    for record in cell.records:
        if record.function != function or (isinstance(record, StudyRecord) and record.harness):
            continue
        if failing and record.outcome is not Outcome.FAIL:
            continue
        message = (record.error.message if record.error is not None else "").strip()
        return message.splitlines()[0][:140] if message else record.outcome.value
    return ""


def prediction_checks(predicted: list[Cell], cells: list[Cell]) -> list[Any]:
    """The confusion table and the list of misses, for every predicted cell that predicts
    a study device with outcomes."""
    from .tables import Table

    studies = _study_device(cells)
    misses = load_misses()
    summary = Table(
        "prediction_check",
        "Predictions beside the study's recorded outcomes (per function; fails = partial or "
        "complete, the study's harness errors left out)",
        [
            "predicted cell",
            "release",
            "study cell",
            "n",
            "both fail",
            "predicted only",
            "recorded only",
            "neither",
            "precision of 'fails' [Wilson 95%]",
            "recall of 'fails' [Wilson 95%]",
            "not predictable",
            "not in the study",
        ],
        note="n counts functions with a study outcome and a prediction. Precision: of the "
        "functions predicted to fail, those the study recorded failing; recall: of the "
        "functions the study recorded failing, those predicted. n/a: no such functions.",
    )
    listed = Table(
        "prediction_misses",
        "Each miss of a prediction against the study, explained",
        ["predicted cell", "function", "miss", "kind", "note", "study's error", "predicted"],
    )
    for cell in predicted:
        target = prediction_of(cell)["target"]
        study = studies.get((cell.framework, target))
        if study is None:
            continue
        matrix = confusion(cell, study)
        tp, fp = matrix.count(True, True), matrix.count(False, True)
        fn, tn = matrix.count(True, False), matrix.count(False, False)
        summary.rows.append(
            [
                cell.name,
                versions(cell),
                study.name,
                matrix.n,
                tp,
                fp,
                fn,
                tn,
                _interval(tp, tp + fp),
                _interval(tp, tp + fn),
                len(matrix.not_predicted),
                len(matrix.not_in_study),
            ]
        )
        key_cell = f"{cell.framework}/{target}/{cell.profile}"
        for function, (recorded, guessed) in matrix.pairs.items():
            if recorded == guessed:
                continue
            miss = "missed" if recorded else "false alarm"
            explained = misses.get((key_cell, function, miss), {})
            listed.rows.append(
                [
                    cell.name,
                    function,
                    miss,
                    explained.get("kind", "unexplained"),
                    explained.get("note", ""),
                    _first_error(study, function, True) if recorded else "pass",
                    _first_error(cell, function, True) if guessed else "pass",
                ]
            )
    return [summary, listed]


def miss_kinds(table: Any) -> Counter[str]:
    """How many misses of each kind a ``prediction_misses`` table lists."""
    return Counter(str(row[3]) for row in table.rows)
