"""The study's imported results, checked against counts made here straight from its raw files
(the committed archive of its *_timings folders), with no portbench code in between."""

from __future__ import annotations

import csv
import json
import statistics
import tarfile
from collections import defaultdict
from pathlib import Path

import pytest
from conftest import ROOT

from portbench.errors import ResultsError
from portbench.report.load import Cell, load_cell
from portbench.report.published import published_latency, published_outcomes
from portbench.report.study import default_archive, import_study
from portbench.report.tables import portability

PAPER = ROOT / "paper"


@pytest.fixture(scope="module")
def study_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("study")
    import_study(default_archive(), out)
    return out


@pytest.fixture(scope="module")
def cells(study_dir: Path) -> list[Cell]:
    return [load_cell(p) for p in sorted(study_dir.iterdir()) if p.is_dir()]


@pytest.fixture(scope="module")
def raw() -> dict[str, object]:
    with tarfile.open(default_archive()) as tar:
        return {
            m.name: json.load(tar.extractfile(m))  # type: ignore[arg-type]
            for m in tar.getmembers()
            if m.isfile() and m.name.endswith(".json")
        }


def _node_key(nodeid: str) -> str:
    path, *_, test = nodeid.split("::")
    return path.split("/")[-1] + ":" + test


def _functions(framework: str) -> dict[str, str]:
    with open(PAPER / "functions.csv", newline="") as handle:
        return {
            r["study_test_file"]: r["function"]
            for r in csv.DictReader(handle)
            if r["framework"] == framework
        }


def test_every_study_device_becomes_a_cell_with_its_provenance(cells: list[Cell]) -> None:
    ids = {c.cell_id for c in cells}
    for framework in ("torch", "tensorflow", "jax"):
        for accelerator in ("cpu", "gpu-t4", "gpu-a100", "tpu-v2", "tpu-v3"):
            assert f"{framework}/{accelerator}/study" in ids
    by_id = {c.cell_id: c for c in cells}
    # No report for the A100: every function untested, never counted as passing.
    a100 = by_id["torch/gpu-a100/study"]
    assert (a100.env or {})["study"]["report"] is None
    assert all(r["outcome"] == "skip" and r["study_outcome"] == "unrecorded" for r in a100.records)
    # JAX's TPU report is a byte copy of its T4 report: said, and not used.
    jax_tpu = by_id["jax/tpu-v3/study"]
    assert "byte copy" in (jax_tpu.env or {})["study"]["report_note"]
    assert {r["outcome"] for r in jax_tpu.records} == {"skip"}


def test_torch_t4_outcomes_match_an_independent_count_of_the_report(
    cells: list[Cell], raw: dict[str, object]
) -> None:
    report = raw["pytorch_timings/t4_vm/test_failure_report.json"]
    timed: set[str] = set()
    for n in (1, 2, 3):
        timed |= set(raw[f"pytorch_timings/t4_vm/gpu_{n}.json"])  # type: ignore[arg-type]
    files = _functions("torch")
    per_file: dict[str, list[str]] = defaultdict(list)
    keys = {_node_key(t["nodeid"]): t["outcome"] for t in report["tests"]}  # type: ignore[index]
    for key in set(keys) | timed:
        test_file = key.split(":")[0]
        if "_cpu" in key or test_file not in files:
            continue
        per_file[test_file].append(keys.get(key, "absent"))
    expected = defaultdict(int)
    for test_file in files:
        values = per_file.get(test_file, [])
        if "failed" in values:
            expected["partial" if "passed" in values else "complete"] += 1
        else:
            expected["pass" if "passed" in values else "untested"] += 1
    table = portability(cells)
    row = next(r for r in table.rows if r[0] == "torch/gpu-t4/study")
    got = {h: row[table.headers.index(h)] for h in ("pass", "partial", "complete", "untested")}
    assert got == dict(expected, **{k: expected[k] for k in got})


def test_table_8_recount_stands_beside_the_printed_counts(cells: list[Cell]) -> None:
    table = published_outcomes(cells)
    rows = [r for r in table.rows if r[0] == "Table 8" and r[4].endswith("/study")]
    assert len(rows) == 6  # every framework on gpu and tpu
    headers = table.headers
    for row in rows:
        cell = next(c for c in cells if c.cell_id == row[4])
        counts = defaultdict(int)
        outcomes: dict[str, list[str]] = defaultdict(list)
        for r in cell.records:
            outcomes[r["study_test_file"]].append(r["outcome"])
        for f in (cell.plan or {})["functions"]:
            values = outcomes.get(f["study_test_file"], [])
            if "fail" in values:
                counts["partial" if "pass" in values else "complete"] += 1
            else:
                counts["pass" if "pass" in values else "untested"] += 1
        for key in ("pass", "partial", "complete", "untested"):
            assert row[headers.index(key)] == counts[key], (row[4], key)
        if row[headers.index("pass")]:
            printed = [int(x) for x in row[3].split("/")]
            diff = [counts["pass"] - printed[0], counts["partial"] - printed[1]]
            assert row[-1].startswith(f"recount - printed: {diff[0]:+d}/{diff[1]:+d}")


def _independent_latency(
    raw: dict[str, object], framework: str, use_report: bool
) -> dict[str, tuple[float, float]]:
    """The study's method, rewritten from its description: per sub-test the mean of all its
    timed calls over the runs, per function the mean over sub-tests timed on both devices."""
    layout = {
        "torch": ("pytorch_timings/t4_vm/gpu_{}.json", "pytorch_timings/tpu_vm/tpu_{}.json"),
        "tensorflow": (
            "tensorflow_timings/t4_vm/gpu/gpu_{}.json",
            "tensorflow_timings/tpu_vm/tpu/tpu_{}.json",
        ),
        "jax": ("jax_timings/t4_vm/gpu/gpu_{}.json", "jax_timings/tpu_vm/tpu/tpu_{}.json"),
    }[framework]
    reports = {
        "torch": ("pytorch_timings/t4_vm/", "pytorch_timings/tpu_vm/"),
        "tensorflow": ("tensorflow_timings/t4_vm/", "tensorflow_timings/tpu_vm/"),
        "jax": ("jax_timings/t4_vm/", "jax_timings/tpu_vm/"),
    }[framework]
    sides = []
    for pattern, folder in zip(layout, reports):
        passed = {
            _node_key(t["nodeid"])
            for t in raw[folder + "test_failure_report.json"]["tests"]  # type: ignore[index]
            if t["outcome"] == "passed"
        }
        ops: dict[str, list[float]] = defaultdict(list)
        for n in (1, 2, 3):
            for key, value in raw[pattern.format(n)].items():  # type: ignore[attr-defined]
                if "_cpu" in key or (use_report and key not in passed):
                    continue
                case = key.replace("_cuda", "").replace("_xla", "")
                ops[case] += value["operations"]
        sides.append({k: statistics.fmean(v) * 1000 for k, v in ops.items() if v})
    gpu, tpu = sides
    shared: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for key in set(gpu) & set(tpu):
        shared[key.split(":")[0]].append((gpu[key], tpu[key]))
    return {
        f: (statistics.fmean(a for a, _ in v), statistics.fmean(b for _, b in v))
        for f, v in shared.items()
    }


def test_tables_5_to_7_recomputed_for_at_least_90_percent_of_rows(
    cells: list[Cell], raw: dict[str, object]
) -> None:
    table, summary = published_latency(cells)
    total = sum(v["rows"] for v in summary.values())
    matched = sum(v["matched"] for v in summary.values())
    assert total == 43 + 51 + 61
    assert matched / total >= 0.9, summary
    headers = table.headers
    study_file = {}
    for framework in ("torch", "tensorflow", "jax"):
        with open(PAPER / "functions.csv", newline="") as handle:
            for r in csv.DictReader(handle):
                if r["framework"] == framework:
                    study_file[(framework, r["paper_label"])] = r["study_test_file"]
                    study_file[(framework, r["function"])] = r["study_test_file"]
    names = {"Table 5": "torch", "Table 6": "tensorflow", "Table 7": "jax"}
    independent = {fw: _independent_latency(raw, fw, fw != "jax") for fw in names.values()}
    checked = 0
    for row in table.rows:
        framework = names[row[0]]
        test_file = study_file.get((framework, row[2]))
        value = independent[framework].get(test_file or "")
        if value is None or row[headers.index("recomputed gpu")] == "":
            continue
        assert row[headers.index("recomputed gpu")] == pytest.approx(round(value[0], 3), abs=1e-3)
        assert row[headers.index("recomputed tpu")] == pytest.approx(round(value[1], 3), abs=1e-3)
        if row[headers.index("match")] == "yes":
            assert abs(value[0] - float(row[3])) <= 0.0015 + 0.001 * float(row[3])
        checked += 1
    assert checked >= 140
    assert all(r[-1] for r in table.rows if r[headers.index("match")] == "no")


def test_a_folder_that_is_not_the_study_is_one_sentence(tmp_path: Path) -> None:
    (tmp_path / "x.json").write_text("{}")
    with pytest.raises(ResultsError, match="none of the study's"):
        import_study(tmp_path, tmp_path / "out")
    with pytest.raises(ResultsError, match="does not exist"):
        import_study(tmp_path / "missing", tmp_path / "out")


def test_report_and_import_refuse_bad_input_in_one_sentence(tmp_path: Path) -> None:
    import subprocess
    import sys

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "portbench.cli", *args],
            check=False,
            capture_output=True,
            text=True,
        )

    missing = run("report", str(tmp_path / "nothing"), "--out", str(tmp_path / "r"))
    assert missing.returncode != 0 and "Traceback" not in missing.stderr
    assert missing.stderr.strip().count("\n") == 0 and "does not exist" in missing.stderr
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("")
    busy = run("import-study", "--out", str(tmp_path / "full"))
    assert busy.returncode != 0 and "is not empty" in busy.stderr
    assert not (tmp_path / "full" / "NOT-IMPORTED.txt").exists()


def test_every_imported_line_is_loaded(study_dir: Path, cells: list[Cell]) -> None:
    """Each study test (file:test) is its own line; two files can hold tests of one name,
    so no line is taken for a duplicate and none is skipped."""
    for cell in cells:
        lines = (cell.path / "results.jsonl").read_text().splitlines()
        assert cell.unreadable_lines == 0, (cell.cell_id, cell.problems)
        assert len(cell.records) == len(lines), cell.cell_id
