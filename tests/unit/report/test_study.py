"""The study's imported results, checked against counts made here straight from its raw files
(the committed archive of its *_timings folders), with no portbench code in between."""

from __future__ import annotations

import csv
import json
import statistics
import tarfile
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT

from portbench.errors import ResultsError
from portbench.report import study
from portbench.report.load import Cell, load_cell
from portbench.report.published import (
    harness_cases,
    outcomes_without_harness,
    published_outcomes,
    published_strata,
)
from portbench.report.study import default_archive, import_study, study_cells_dir
from portbench.report.study_latency import published_latency
from portbench.report.tables import failure_categories, portability
from portbench_runner import classify

PAPER = ROOT / "paper"


# The tests count from the files as written, apart from the typed layer the tables use.
def _raw(cell: Cell) -> list[dict[str, Any]]:
    text = (cell.path / "results.jsonl").read_text()
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _env(cell: Cell) -> dict[str, Any]:
    return dict(json.loads((cell.path / "env.json").read_text()))


def _plan(cell: Cell) -> dict[str, Any]:
    return dict(json.loads((cell.path / "plan.json").read_text()))


@pytest.fixture(scope="module")
def study_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("study")
    import_study(default_archive(), out)
    return out


@pytest.fixture(scope="module")
def cells(study_dir: Path) -> list[Cell]:
    return [load_cell(p) for p in sorted(study_dir.iterdir()) if p.is_dir()]


@pytest.fixture(scope="module")
def raw() -> dict[str, Any]:
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
    assert _env(a100)["study"]["report"] is None
    assert all(r["outcome"] == "skip" and r["study_outcome"] == "unrecorded" for r in _raw(a100))
    # JAX's TPU report is its T4 report (made under the T4 VM's Python): said, and not used.
    jax_tpu = by_id["jax/tpu-v3/study"]
    assert "not this VM's" in _env(jax_tpu)["study"]["report_note"]
    assert {r["outcome"] for r in _raw(jax_tpu)} == {"skip"}


def _created(raw: dict[str, object], path: str) -> float:
    return float(raw[path]["created"])  # type: ignore[index]


def test_each_device_takes_its_newest_standard_placement_report(
    cells: list[Cell], raw: dict[str, object]
) -> None:
    by_id = {c.cell_id: c for c in cells}
    for cell_id, folder in (
        ("tensorflow/gpu-t4/study", "tensorflow_timings/t4_vm/"),
        ("tensorflow/tpu-v3/study", "tensorflow_timings/tpu_vm/"),
    ):
        reports = [p for p in raw if p.startswith(folder) and p.endswith("failure_report.json")]
        assert len(reports) == 2
        newest = max(reports, key=lambda p: _created(raw, p))
        assert _env(by_id[cell_id])["study"]["report"] == newest
    # Soft placement is a cell of its own, never a device's outcome.
    soft = by_id["tensorflow/gpu-t4/study-soft"]
    assert "soft_placement/" in _env(soft)["study"]["report"]
    for cell in cells:
        if cell.profile == "study":
            assert "soft" not in str(_env(cell)["study"]["report"])


def test_no_test_of_a_report_is_dropped(cells: list[Cell], raw: dict[str, object]) -> None:
    """Two classes of one TensorFlow file can hold tests of one name: each is its own record."""
    files = _functions("tensorflow")
    for cell in cells:
        env = _env(cell)["study"]
        if cell.framework != "tensorflow" or not env["report"]:
            continue
        tests = raw[env["report"]]["tests"]  # type: ignore[index]
        expected = sum(1 for t in tests if _node_key(t["nodeid"]).split(":")[0] in files)
        from_report = [r for r in _raw(cell) if r["study_outcome"] != "absent from report"]
        assert len(from_report) == expected, cell.cell_id


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


def _count(cell: Cell, keep: Callable[[dict[str, Any]], bool] | None = None) -> dict[str, int]:
    """pass/partial/complete/untested of every planned function, from its records."""
    counts: dict[str, int] = defaultdict(int)
    outcomes: dict[str, list[str]] = defaultdict(list)
    for r in _raw(cell):
        if keep is None or keep(r):
            outcomes[r["study_test_file"]].append(r["outcome"])
    for f in _plan(cell)["functions"]:
        values = outcomes.get(f["study_test_file"], [])
        if "fail" in values:
            counts["partial" if "pass" in values else "complete"] += 1
        else:
            counts["pass" if "pass" in values else "untested"] += 1
    return counts


def _ppc(counts: dict[str, int]) -> str:
    return "/".join(str(counts[k]) for k in ("pass", "partial", "complete"))


def test_table_8_recount_stands_beside_the_printed_counts(cells: list[Cell]) -> None:
    table = published_outcomes(cells)
    h = table.headers
    rows = [r for r in table.rows if r[0] == "Table 8" and r[h.index("recount")] != "-"]
    assert len(rows) == 5  # every framework on gpu and tpu, but JAX's TPU (no usable report)
    by_id = {c.cell_id: c for c in cells}
    for row in rows:
        device = {"gpu": "gpu-t4", "tpu": "tpu-v3"}[row[2]]
        counts = _count(by_id[f"{row[1]}/{device}/study"])
        assert row[h.index("recount")] == _ppc(counts)
        printed = [int(x) for x in row[3].split("/")]
        diff = [counts["pass"] - printed[0], counts["partial"] - printed[1]]
        assert f"recount - printed: {diff[0]:+d}/{diff[1]:+d}" in row[-1]


def test_a_harness_error_is_never_counted_as_a_framework_failure(
    cells: list[Cell], raw: dict[str, Any]
) -> None:
    """JAX's ones, zeros and vjp "failed" on the T4 because the study called its own timing
    helper wrongly: found here from the raw report's messages, with no portbench code."""
    report = raw["jax_timings/t4_vm/gpu/test_failure_report.json"]
    helper = {
        _node_key(t["nodeid"])
        for t in report["tests"]
        if t["outcome"] == "failed" and "partial_timed() takes" in t["call"]["crash"]["message"]
    }
    assert len(helper) == 130
    jax = next(c for c in cells if c.cell_id == "jax/gpu-t4/study")
    harness_files = {key.split(":")[0] for key in helper}
    for (_, test_file), outcome in outcomes_without_harness(jax).items():
        if test_file in harness_files:
            assert outcome not in ("partial", "complete"), test_file
    # The recount without harness errors is the recount without those sub-tests (and the
    # other sub-tests the rules mark: none in JAX's report beyond these).
    expected = _count(jax, lambda r: r["study_key"] not in helper)
    table = published_outcomes(cells)
    h = table.headers
    row = next(r for r in table.rows if r[:3] == ["Table 8", "jax", "gpu"])
    assert row[h.index("without harness")] == _ppc(expected)
    assert row[h.index("recount")] != row[h.index("without harness")]
    listed = {
        (r[0], r[1], r[2])
        for r in harness_cases(cells).rows
        if r[0] == "jax/gpu-t4/study" and r[4] == "timer-helper-called-wrongly"
    }
    assert len(listed) == len(helper)


def test_table_4_three_ways(cells: list[Cell]) -> None:
    table = published_strata(cells)
    h = table.headers
    by_id = {c.cell_id: c for c in cells}
    row = next(r for r in table.rows if r[3] == "torch/tpu-v3/study")
    counts = _count(by_id["torch/tpu-v3/study"])
    failing = counts["partial"] + counts["complete"]
    tested = failing + counts["pass"]
    assert row[h.index("recount all")] == f"{100 * failing / tested:.0f}% ({failing}/{tested})"
    clean = _count(by_id["torch/tpu-v3/study"], lambda r: not r.get("harness"))
    failing = clean["partial"] + clean["complete"]
    tested = failing + clean["pass"]
    assert row[h.index("no-harness all")] == f"{100 * failing / tested:.0f}% ({failing}/{tested})"


def _independent_latency(raw: dict[str, Any], framework: str) -> dict[str, tuple[float, float]]:
    """The study's method, rewritten from its description: per sub-test the mean of all its
    timed calls over the runs; per function the mean over the sub-tests that have timed calls
    in every run on both devices and that the device's newest report does not fail (a failure
    of the study's own timing helper aside). JAX's TPU report is its T4 report: not used."""
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
        "tensorflow": ("tensorflow_timings/t4_vm/gpu/", "tensorflow_timings/tpu_vm/tpu/"),
        "jax": ("jax_timings/t4_vm/gpu/", None),
    }[framework]
    sides = []
    for pattern, folder in zip(layout, reports):
        outcome: dict[str, str] = {}
        if folder:
            for t in raw[folder + "test_failure_report.json"]["tests"]:
                crash = str(((t.get("call") or {}).get("crash") or {}).get("message"))
                helper = t["outcome"] == "failed" and "partial_timed() takes" in crash
                outcome[_node_key(t["nodeid"])] = "passed" if helper else t["outcome"]
        ops: dict[str, list[list[float]]] = defaultdict(list)
        for n in (1, 2, 3):
            for key, value in raw[pattern.format(n)].items():
                if "_cpu" in key or outcome.get(key, "passed") != "passed":
                    continue
                ops[key.replace("_cuda", "").replace("_xla", "")].append(value["operations"])
        sides.append(
            {
                k: statistics.fmean(x for run in v for x in run) * 1000
                for k, v in ops.items()
                if len(v) == 3 and all(v)
            }
        )
    gpu, tpu = sides
    shared: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for key in set(gpu) & set(tpu):
        shared[key.split(":")[0]].append((gpu[key], tpu[key]))
    return {
        f: (statistics.fmean(a for a, _ in v), statistics.fmean(b for _, b in v))
        for f, v in shared.items()
    }


def test_tables_5_to_7_recounted_row_by_row(cells: list[Cell], raw: dict[str, Any]) -> None:
    table, summary = published_latency(cells)
    assert sum(v.rows for v in summary.values()) == 43 + 51 + 61
    matched = {k: v.matched for k, v in summary.items()}
    assert matched == {"torch": 43, "tensorflow": 51, "jax": 61}, [
        r for r in table.rows if r[-2] == "no"
    ]
    headers = table.headers
    study_file = {}
    with open(PAPER / "functions.csv", newline="") as handle:
        for r in csv.DictReader(handle):
            study_file[(r["framework"], r["paper_label"])] = r["study_test_file"]
            study_file.setdefault((r["framework"], r["function"]), r["study_test_file"])
    names = {"Table 5": "torch", "Table 6": "tensorflow", "Table 7": "jax"}
    independent = {fw: _independent_latency(raw, fw) for fw in names.values()}
    checked = 0
    for row in table.rows:
        framework = names[row[0]]
        value = independent[framework].get(study_file.get((framework, row[2])) or "")
        if value is None:
            continue
        assert row[headers.index("recount gpu")] == pytest.approx(round(value[0], 3), abs=1e-3)
        assert row[headers.index("recount tpu")] == pytest.approx(round(value[1], 3), abs=1e-3)
        assert abs(value[0] - float(row[3])) <= 0.0015 + 0.001 * float(row[3])
        checked += 1
    assert checked >= 150
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
        assert len(_raw(cell)) == len(lines), cell.cell_id


def _failed_texts(report: dict[str, Any]) -> list[str]:
    """The crash message and pytest's lines of every failed test of a report."""
    out = []
    for t in report["tests"]:
        if t["outcome"] != "failed":
            continue
        phase = next(
            t[s] for s in ("setup", "call", "teardown") if t.get(s, {}).get("outcome") == "failed"
        )
        out.append(f"{phase['crash']['message']}\n{phase.get('longrepr')}")
    return out


def test_forced_placement_failures_are_named_even_inside_assertions(
    cells: list[Cell], raw: dict[str, Any]
) -> None:
    """TensorFlow on the T4 with soft placement off: every failure whose report says
    "Could not satisfy device specification", raised directly or inside the study's own
    AssertionError, is `placement` (counted here from the raw report)."""
    phrase = "Could not satisfy device specification"
    placed = [
        t
        for t in _failed_texts(raw["tensorflow_timings/t4_vm/gpu/test_failure_report.json"])
        if phrase in t
    ]
    assert len(placed) == 172
    assert sum(t.startswith("AssertionError") for t in placed) == 5
    t4 = next(c for c in cells if c.cell_id == "tensorflow/gpu-t4/study")
    named = [r for r in _raw(t4) if r["outcome"] == "fail" and r["category"] == "placement"]
    assert len(named) == len(placed)
    assert {r["rule"] for r in named} == {"tf.forced-placement"}
    inside = [r for r in named if (r["error"]["message"] or "").startswith("AssertionError")]
    assert len(inside) == 5


def test_every_study_cell_says_why_its_cases_failed(cells: list[Cell]) -> None:
    """At most 10% of a study cell's failures (or one) are `other`, left for curation."""
    table = failure_categories(cells)
    rows = {r[0]: r for r in table.rows}
    studied = [c for c in cells if c.is_study and any(r["outcome"] == "fail" for r in _raw(c))]
    assert studied
    for cell in studied:
        failed = [r for r in _raw(cell) if r["outcome"] == "fail"]
        other = [r for r in failed if r["category"] == "other"]
        assert len(other) <= max(1, len(failed) // 10), (cell.cell_id, [r["case"] for r in other])
        assert rows[cell.name][1:3] == [len(failed), len(other)]
    # Named where the older rules said nothing: TPU lowering errors, TF's forced placement.
    torch_tpu = next(c for c in cells if c.cell_id == "torch/tpu-v3/study")
    lowered = [r for r in _raw(torch_tpu) if r.get("rule") == "torch.xla-lowering"]
    assert lowered and all(r["category"] == "lowering" for r in lowered)
    assert any("Error while lowering" in (r["error"]["message"] or "") for r in lowered)


def test_a_study_test_that_hands_a_device_tensor_to_numpy_failed_by_its_harness(
    cells: list[Cell], raw: dict[str, Any]
) -> None:
    """On the T4, relaxedonehotcategorical_test.py gives its CUDA probabilities to SciPy for
    the reference: torch refuses to make NumPy of a CUDA tensor, so the test's own reference
    failed (counted here from the raw report): `harness`, never `other`."""
    phrase = "can't convert cuda:0 device type tensor to numpy"
    failed = [
        t
        for t in _failed_texts(raw["pytorch_timings/t4_vm/test_failure_report.json"])
        if phrase in t
    ]
    assert len(failed) == 1
    t4 = next(c for c in cells if c.cell_id == "torch/gpu-t4/study")
    marked = [r for r in _raw(t4) if phrase in ((r.get("error") or {}).get("message") or "")]
    assert [(r["outcome"], r["category"], r["rule"]) for r in marked] == [
        ("fail", "harness", "harness:device-tensor-to-numpy")
    ]
    assert marked[0]["harness"]["rule"] == "device-tensor-to-numpy"


def test_a_failure_keeps_the_exception_lines_its_category_was_read_from(cells: list[Cell]) -> None:
    """A torch.testing comparison that broke on a TPU is categorized from the exception it
    raised inside (kept in error.traceback), not from its first line alone."""
    torch_tpu = next(c for c in cells if c.cell_id == "torch/tpu-v3/study")
    comparing = [
        r
        for r in _raw(torch_tpu)
        if r["outcome"] == "fail"
        and (r["error"]["message"] or "").startswith("RuntimeError: Comparing")
    ]
    assert comparing
    for r in comparing:
        assert r["error"]["traceback"], r["case"]
        if "Error while lowering" in r["error"]["traceback"]:
            assert r["category"] == "lowering", r["case"]


def test_the_study_cache_is_keyed_by_every_file_that_decides_a_category(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    files = {
        "paper/harness.toml": "",
        "manifests/torch/rules.toml": "schema = 1\n",
        "manifests/tensorflow/rules.toml": "schema = 1\n",
        "manifests/jax/rules.toml": "schema = 1\n",
    }
    for name, text in files.items():
        (home / name).parent.mkdir(parents=True, exist_ok=True)
        (home / name).write_text(text)
    archive = tmp_path / "study.tar"
    archive.write_bytes(b"the same archive throughout")
    monkeypatch.setenv("PORTBENCH_HOME", str(home))
    keys = [study_cells_dir(archive)]
    assert study_cells_dir(archive) == keys[0]  # stable while nothing changes
    for name, text in files.items():
        (home / name).write_text(text + "# edited\n")
        keys.append(study_cells_dir(archive))
    (home / "manifests/jax/rules.toml").unlink()
    keys.append(study_cells_dir(archive))
    assert len(set(keys)) == len(keys), keys
    assert all(k.parent == home / ".portbench" / "study" for k in keys)
    # The matcher is the runner's module this process imports (never a copy under the home).
    assert Path(classify.__file__) in study._category_sources()
