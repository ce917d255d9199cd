"""Predicted cells with the real frameworks on this CPU machine (#30): a JAX cell lowered for
a TPU and a CUDA GPU, its records, and the report that keeps them apart from observed cells.
torch_xla and an older JAX run only where an interpreter with them is named (they are
multi-GB or Python 3.9 installs): PORTBENCH_TORCH_XLA_PYTHON, PORTBENCH_OLD_JAX_PYTHON."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, project_with_cases, read_jsonl, validate

CASES = """
import numpy as np
from portbench_runner.api import case


@case("eig")
def eig(ctx):
    import jax.numpy as jnp

    w, _ = ctx.measure(jnp.linalg.eig, ctx.put(np.array([[2.0, 1.0], [0.0, 3.0]])))
    ctx.check_close(np.sort(ctx.to_numpy(w).real), [2.0, 3.0], dtype="float64")


@case("add")
def add(ctx):
    import jax.numpy as jnp

    out = ctx.measure(jnp.add, ctx.put(np.ones(4)), ctx.put(np.ones(4)))
    ctx.check_close(out, np.full(4, 2.0), dtype="float64")


@case("wrong-on-the-cpu")
def wrong(ctx):
    import jax.numpy as jnp

    out = ctx.measure(jnp.linalg.eig, ctx.put(np.eye(2)))
    ctx.check(False, "this case's own check fails on the CPU")
"""


def _bench(home: Path, run_dir: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PORTBENCH_HOME": str(home)}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), str(ROOT / "runners")])
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "portbench.cli",
            "bench",
            "--framework",
            "jax",
            "--profile",
            "host",
            "--run-dir",
            str(run_dir),
            *extra,
        ],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
        check=False,
    )


@pytest.fixture(scope="module")
def predicted(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, dict]]:
    """The records of a tpu and a cuda prediction of the three cases, by case name."""
    pytest.importorskip("jax")
    tmp = tmp_path_factory.mktemp("predicted")
    home = project_with_cases(tmp, "jax", CASES)
    found: dict[str, dict[str, dict]] = {}
    # Model ids predict their flavor's platform (#31): an MI300X is lowered for rocm.
    for target in ("tpu", "cuda", "rocm-mi300x"):
        proc = _bench(home, tmp / "run", "--accelerator", target, "--predict")
        assert proc.returncode == 0, proc.stdout + proc.stderr
        cell = tmp / "run" / f"jax-{target}-predicted-host"
        records = read_jsonl(cell / "results.jsonl")
        found[target] = {r["case_name"]: r for r in records}
    found["dirs"] = {"run": {"path": str(tmp / "run")}, "home": {"path": str(home)}}
    return found


def test_a_lowering_the_target_refuses_is_a_predicted_failure(predicted: dict) -> None:
    eig = predicted["tpu"]["eig"]
    validate(eig, "record")
    assert (eig["outcome"], eig["stage"], eig["category"]) == ("fail", "call", "not_implemented")
    assert eig["evidence_kind"] == "predicted"
    assert eig["prediction"]["method"] == "lowered"
    assert eig["prediction"]["verdict"] == "fail"
    assert "'eig' not found for platform tpu" in eig["error"]["message"]
    assert eig["cell"] == "jax/tpu-predicted/host"
    assert eig["rerun"].endswith(
        "--predict --profile host --backend host --case probe.sandbox::eig"
    )


def test_a_model_id_is_lowered_for_its_flavors_platform(predicted: dict) -> None:
    add = predicted["rocm-mi300x"]["add"]
    validate(add, "record")
    assert (add["outcome"], add["evidence_kind"]) == ("pass", "predicted")
    assert (add["prediction"]["target"], add["prediction"]["platform"]) == ("rocm-mi300x", "rocm")
    assert add["cell"] == "jax/rocm-mi300x-predicted/host"


@pytest.mark.parametrize(
    ("framework", "target", "says"),
    [
        ("torch", "rocm-mi300x", "torch has no way here to predict a ROCm GPU"),
        ("jax", "xpu-max1550", "cannot predict 'xpu-max1550' (xpu)"),
        ("jax", "mps", "cannot predict 'mps' (mps)"),
    ],
)
def test_a_target_with_no_prediction_is_one_sentence(
    tmp_path: Path, framework: str, target: str, says: str
) -> None:
    from portbench.errors import UsageError
    from portbench.predict.targets import predict_spec

    with pytest.raises(UsageError, match=r"^[^\n]+$") as refused:
        predict_spec(framework, target, "current")
    assert says in str(refused.value)


def test_host_work_for_the_target_is_a_predicted_fallback(predicted: dict) -> None:
    eig = predicted["cuda"]["eig"]
    assert (eig["outcome"], eig["category"]) == ("fail", "fallback")
    assert eig["evidence"]["host_work"][0]["what"].startswith("cuhybrid_eig")
    add = predicted["cuda"]["add"]
    assert add["outcome"] == "pass" and add["prediction"]["verdict"] == "pass"
    assert add["timing"]["warm"] is None  # a prediction times nothing of the target


def test_a_case_failing_its_cpu_control_is_not_predictable(predicted: dict) -> None:
    # Model ids predict their flavor's platform (#31): an MI300X is lowered for rocm.
    for target in ("tpu", "cuda", "rocm-mi300x"):
        wrong = predicted[target]["wrong-on-the-cpu"]
        validate(wrong, "record")
        assert wrong["outcome"] == "skip"
        assert wrong["prediction"]["verdict"] == "not_predictable"
        assert wrong["reason"].startswith("not predictable: the CPU control fails")


def test_predicted_cells_stay_out_of_the_observed_portability_table(
    predicted: dict, tmp_path: Path
) -> None:
    from rich.console import Console

    from portbench.report.commands import build_report

    run = Path(predicted["dirs"]["run"]["path"])
    home = Path(predicted["dirs"]["home"]["path"])
    observed = _bench(home, run, "--accelerator", "cpu")
    assert observed.returncode == 0, observed.stdout + observed.stderr
    os.environ["PORTBENCH_HOME"] = str(home)
    try:
        build_report([run], tmp_path / "report", Console(file=open(os.devnull, "w")))
    finally:
        del os.environ["PORTBENCH_HOME"]
    tables = tmp_path / "report" / "tables"
    portability = (tables / "portability.csv").read_text()
    assert "jax/cpu/host" in portability
    assert "predicted" not in portability
    summary = (tables / "predicted.csv").read_text().splitlines()
    assert len(summary) == 4  # the header and the three predicted cells, apart
    tpu = next(line for line in summary if line.startswith("jax/tpu-predicted/host"))
    # 3 cases: eig predicted to fail, add predicted to pass, one not predictable
    assert ",3,1,1,1,0," in tpu
    failures = (tables / "failures.csv").read_text()
    assert "predicted" not in failures


def test_one_pass_over_two_targets_records_what_two_cells_do(
    predicted: dict, tmp_path: Path
) -> None:
    home = Path(predicted["dirs"]["home"]["path"])
    proc = _bench(home, tmp_path / "pass", "--accelerator", "tpu,cuda", "--predict")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    cells = {}
    for target in ("tpu", "cuda"):
        cell = tmp_path / "pass" / f"jax-{target}-predicted-host"
        cells[target] = {r["case_name"]: r for r in read_jsonl(cell / "results.jsonl")}
        (session,) = read_jsonl(cell / "sessions.jsonl")
        assert (session["status"], session["records_written"]) == ("complete", 3)
        assert json.loads((cell / "env.json").read_text())["cell"] == f"jax/{target}-predicted/host"
        plan = json.loads((cell / "plan.json").read_text())
        assert plan["cell"] == f"jax/{target}-predicted/host"

        def said(r: dict) -> tuple:
            return (r["cell"], r["outcome"], r["category"], r["prediction"]["verdict"])

        assert cells[target].keys() == predicted[target].keys()
        for name, record in cells[target].items():
            validate(record, "record")
            assert said(record) == said(predicted[target][name])
    # One control: each case ran once, in one worker, for both cells.
    for name, record in cells["tpu"].items():
        assert record["worker"] == cells["cuda"][name]["worker"]
        assert record["timing"] == cells["cuda"][name]["timing"]


@pytest.mark.skipif(
    not os.environ.get("PORTBENCH_OLD_JAX_PYTHON"),
    reason="needs PORTBENCH_OLD_JAX_PYTHON: an interpreter with jax 0.4.13 (paper-nearest)",
)
def test_jax_0_4_13_lowers_for_the_platform_asked(tmp_path: Path) -> None:
    code = (
        "import jax, jax.numpy as jnp, numpy as np\n"
        "from portbench_runner.adapters.jax_adapter import lowered_text, lowering_limit\n"
        "x = jnp.asarray(np.eye(3))\n"
        "print(jax.__version__)\n"
        "print('lapack' in lowered_text(jax, jnp.linalg.qr, (x,), {}, 'cpu'))\n"
        "print('Qr' in lowered_text(jax, jnp.linalg.qr, (x,), {}, 'tpu'))\n"
        "try:\n"
        "    lowered_text(jax, jnp.linalg.svd, (x,), {}, 'cuda')\n"
        "except Exception as exc:\n"
        "    print(lowering_limit(exc, 'cuda'))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "runners")}
    proc = subprocess.run(
        [os.environ["PORTBENCH_OLD_JAX_PYTHON"], "-c", code],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        check=False,
    )
    lines = proc.stdout.split("\n")
    assert proc.returncode == 0, proc.stderr
    assert lines[0].startswith("0.4.") and lines[1:3] == ["True", "True"]
    assert "a CPU jaxlib lacks the GPU kernel descriptors" in lines[3]


@pytest.mark.skipif(
    not os.environ.get("PORTBENCH_TORCH_XLA_PYTHON"),
    reason="needs PORTBENCH_TORCH_XLA_PYTHON: an interpreter with torch and torch_xla "
    "(images/locks/*/torch-predict.txt, several GB)",
)
def test_torch_xla_cpu_client_counts_a_fallback(tmp_path: Path) -> None:
    cases = """
import numpy as np
from portbench_runner.api import case


@case("poisson")
def poisson(ctx):
    import torch

    ctx.not_comparable("random draws differ between devices")
    out = ctx.measure(torch.poisson, ctx.put(np.array([1.0, 2.0, 3.0])), warm=False)
    ctx.check(tuple(out.shape) == (3,), "shape")
"""
    home = project_with_cases(tmp_path, "torch", cases)
    env = {**os.environ, "PORTBENCH_HOME": str(home)}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), str(ROOT / "runners")])
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "portbench.cli",
            "bench",
            "--framework",
            "torch",
            "--accelerator",
            "tpu",
            "--predict",
            "--profile",
            "host",
            "--python",
            os.environ["PORTBENCH_TORCH_XLA_PYTHON"],
            "--run-dir",
            str(tmp_path / "run"),
        ],
        capture_output=True,
        text=True,
        timeout=900,
        env=env,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (record,) = read_jsonl(tmp_path / "run" / "torch-tpu-predicted-host" / "results.jsonl")
    assert (record["outcome"], record["category"]) == ("fail", "fallback")
    assert record["prediction"]["method"] == "xla_cpu"
    assert "aten::poisson" in record["error"]["message"]
