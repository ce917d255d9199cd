"""Synthetic cells for the store and the scoreboard: real cell folders (plan.json, env.json,
results.jsonl, sessions.jsonl) written through the contract's own types, so every line
passes the typed reader.

- :func:`write_cell`  one cell of chosen cases and outcomes (tests build their stores with it)
- :func:`sweep`       a release sweep as issue 28's will look: several frameworks and
                      releases on the CPU, with a case that becomes portable, one that breaks
                      in the newest release, a flaky one, a speed step, and a predicted series
- :func:`bulk`        many records fast (the store-size benchmark's synthetic million):
                      template records varied per line, still valid records

    python benchmarks/store_data.py OUT_DIR   # the sweep, for a look at the scoreboard
"""

from __future__ import annotations

import copy
import json
import random
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for _path in (ROOT / "runners", ROOT / "src"):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from portbench_runner.contract import (  # noqa: E402
    Category,
    EnvDocument,
    ErrorInfo,
    EvidenceKind,
    FallbackSettings,
    Integrity,
    IntegrityVerdict,
    Outcome,
    Plan,
    PlanAccelerator,
    PlanCase,
    PlanFunction,
    PredictionMethod,
    PredictionSettings,
    Provenance,
    RecordFactory,
    SessionLine,
    SessionStatus,
    Stage,
    Timing,
    WarmTiming,
    WorkerInfo,
    dumps,
)
from portbench_runner.contract.records import CaseResult  # noqa: E402

__all__ = ["CaseSpec", "bulk", "sweep", "write_cell"]


@dataclass(frozen=True)
class CaseSpec:
    """One case of a synthetic cell: its id, outcome, message, and warm samples."""

    case: str
    outcome: str = "pass"
    message: str = ""
    category: str = "type"
    samples_ms: tuple[float, ...] = ()
    code: str | None = None
    """The case's code hash (default: derived from its id)."""

    @property
    def function(self) -> str:
        return self.case.split("::", 1)[0]


def _result(spec: CaseSpec) -> CaseResult:
    outcome = Outcome(spec.outcome)
    warm = None
    if spec.samples_ms:
        ordered = sorted(spec.samples_ms)
        middle = ordered[len(ordered) // 2]
        q1, q3 = ordered[len(ordered) // 4], ordered[(3 * len(ordered)) // 4]
        warm = WarmTiming(
            median_ms=middle, q1_ms=q1, q3_ms=q3, iqr_ms=q3 - q1, min_ms=ordered[0],
            mean_ms=sum(ordered) / len(ordered), samples=len(ordered), calls_per_sample=1,
            noisy=False, samples_ms=tuple(spec.samples_ms),
        )  # fmt: skip
    timing = Timing(cold_ms=1.0, warm=warm) if outcome is Outcome.PASS else None
    if outcome is Outcome.FAIL:
        return CaseResult(
            outcome, stage=Stage.CALL, category=Category(spec.category),
            error=ErrorInfo("RuntimeError", spec.message or "it failed"), timing=timing,
        )  # fmt: skip
    if outcome is Outcome.SKIP:
        return CaseResult(outcome, reason=spec.message or "does not apply")
    if outcome is Outcome.ERROR:
        return CaseResult(outcome, error=ErrorInfo("NameError", spec.message or "our case broke"))
    return CaseResult(outcome, timing=timing)


@dataclass
class CellSpec:
    framework: str
    accelerator: str
    release: str
    cases: list[CaseSpec]
    profile: str = "current"
    python: str = "3.11.2"
    numpy: str = "2.4.6"
    started_at: str = "2026-11-20T10:00:00.000+00:00"
    host: str = "bench-host"
    predicted: str | None = None
    """A target the cell predicts (issue 30's cells: ``<fw>/<target>-predicted/<profile>``)."""
    tampered: str | None = None
    """Why the cell's records are tampered (issue 27's verdict on its session line)."""
    label: str | None = None
    extra_functions: list[str] = field(default_factory=list)
    """Functions the plan lists with no case recorded (the denominator)."""
    soft_placement: bool = False
    """TensorFlow's soft device placement (the study's ``study-soft`` experiment)."""


def _plan(spec: CellSpec) -> Plan:
    accelerator = f"{spec.predicted}-predicted" if spec.predicted else spec.accelerator
    functions: dict[str, list[CaseSpec]] = {}
    for case in spec.cases:
        functions.setdefault(case.function, []).append(case)
    for name in spec.extra_functions:
        functions.setdefault(name, [])
    return Plan(
        cell=f"{spec.framework}/{accelerator}/{spec.profile}",
        framework=spec.framework,
        profile=spec.profile,
        backend="docker",
        accelerator=PlanAccelerator(accelerator, "cpu"),
        manifest_root="/manifests",
        functions=tuple(
            PlanFunction(
                name,
                f"cases/{name.rsplit('.', 1)[-1]}.py",
                tuple(
                    PlanCase(
                        c.case, c.case.split("::", 1)[1], i, None, c.code or f"{hash_of(c.case)}"
                    )
                    for i, c in enumerate(cases)
                ),
                case_file_sha256=hash_of(name),
            )
            for name, cases in functions.items()
        ),
        rerun_prefix=f"portbench bench --framework {spec.framework}",
        provenance=Provenance(
            release=f"{spec.framework}=={spec.release}", python=spec.python, numpy=spec.numpy
        ),
        prediction=PredictionSettings(PredictionMethod.LOWERED, spec.predicted)
        if spec.predicted
        else None,
        label=spec.label,
        fallback=FallbackSettings(soft_placement=spec.soft_placement),
    )


def hash_of(text: str) -> str:
    import hashlib

    return hashlib.sha256(text.encode()).hexdigest()


def write_cell(root: Path, spec: CellSpec, run: str = "run") -> Path:
    """Write one cell folder under ``root/run``; its path."""
    plan = _plan(spec)
    folder = root / run / plan.cell.replace("/", "-")
    folder.mkdir(parents=True)
    (folder / "plan.json").write_text(dumps(plan.to_json()) + "\n")
    env = EnvDocument(
        cell=plan.cell, framework=spec.framework, accelerator=plan.accelerator.id,
        profile=spec.profile, backend="docker", started_at=spec.started_at,
        facts={
            "framework_version": spec.release, "python": {"version": spec.python},
            "packages": {"numpy": spec.numpy}, "host": {"hostname": spec.host},
            "device": {"device_name": "cpu"},
        },
    )  # fmt: skip
    (folder / "env.json").write_text(dumps(env.to_json()) + "\n")
    factory = RecordFactory(plan)
    with open(folder / "results.jsonl", "w") as handle:
        for case in spec.cases:
            record = factory.record(
                case.case, _result(case), WorkerInfo(1, 0), started_at=1.7e9, duration_s=0.01
            )
            if spec.predicted and record.evidence_kind is EvidenceKind.OBSERVED:
                raise AssertionError("a predicted cell's records are predicted")
            handle.write(dumps(record.to_json()) + "\n")
    integrity = Integrity(IntegrityVerdict.TAMPERED, spec.tampered) if spec.tampered else None
    session = SessionLine(
        cell=plan.cell, status=SessionStatus.COMPLETE, reason=None,
        started_at=spec.started_at, ended_at=spec.started_at,
        records_written=len(spec.cases), index=0, integrity=integrity,
    )  # fmt: skip
    (folder / "sessions.jsonl").write_text(dumps(session.to_json()) + "\n")
    return folder


# -- a sweep -----------------------------------------------------------------------------------

TORCH = [
    "1.12.0",
    "1.13.1",
    "2.0.1",
    "2.1.2",
    "2.2.2",
    "2.3.1",
    "2.4.1",
    "2.5.1",
    "2.13.0",
    "2.15.0",
]
JAX = ["0.4.13", "0.4.20", "0.4.25", "0.4.30", "0.4.35", "0.5.3", "0.6.2", "0.10.2"]
DTYPES = ["float16", "bfloat16", "float32", "float64", "int32"]


def _samples(rng: random.Random, level: float) -> tuple[float, ...]:
    return tuple(round(level * rng.uniform(0.97, 1.03), 6) for _ in range(12))


def _torch_case(rng: random.Random, release: str, case: str, index: int) -> CaseSpec:
    position = TORCH.index(release)
    function, name = case.split("::")
    if case == "torch.log1p::float16":
        # Portable from 2.1.2 on: "not implemented for 'Half'" before it.
        if position < TORCH.index("2.1.2"):
            return CaseSpec(case, "fail", "\"log1p_cpu\" not implemented for 'Half'", "type")
        return CaseSpec(case, samples_ms=_samples(rng, 0.02))
    if case == "torch.cumsum::bfloat16" and release == TORCH[-1]:
        return CaseSpec(
            case, "fail", "cumsum: result outside tolerance (max abs diff 0.5)", "precision"
        )
    if case == "torch.sort::float32":
        # A speed step: twice as slow from 2.4.1 on.
        level = 0.05 if position < TORCH.index("2.4.1") else 0.10
        return CaseSpec(case, samples_ms=_samples(rng, level))
    if name == "int32" and function == "torch.erf":
        return CaseSpec(case, "fail", "\"erf_cpu\" not implemented for 'Int'", "type")
    return CaseSpec(case, samples_ms=_samples(rng, 0.01 * (1 + index % 7)))


def sweep(root: Path, seed: int = 29) -> list[Path]:
    """A synthetic release sweep (see the module's docstring); the cell folders."""
    rng = random.Random(seed)
    functions = ["torch.log1p", "torch.cumsum", "torch.sort", "torch.erf", "torch.add"]
    cases = [f"{f}::{d}" for f in functions for d in DTYPES]
    cells: list[Path] = []
    for position, release in enumerate(TORCH):
        python = "3.9.2" if position < 5 else "3.11.2"
        numpy = "1.23.5" if position < 5 else "2.4.6"
        specs = [_torch_case(rng, release, case, i) for i, case in enumerate(cases)]
        cell = CellSpec("torch", "cpu", release, specs, python=python, numpy=numpy,
                        started_at=f"2026-11-{10 + position:02d}T10:00:00.000+00:00")  # fmt: skip
        cells.append(write_cell(root, cell, f"sweep-torch-{release}"))
    # The newest release run twice: torch.add::float16 passes in one run, fails in the other.
    flaky = [
        CaseSpec(c.case, "fail", "flaky: tolerance exceeded once", "precision")
        if c.case == "torch.add::float16"
        else c
        for c in (_torch_case(rng, TORCH[-1], case, i) for i, case in enumerate(cases))
    ]
    again = CellSpec("torch", "cpu", TORCH[-1], flaky, profile="host", python="3.11.7",
                     started_at="2026-11-21T10:00:00.000+00:00", host="second-host")  # fmt: skip
    cells.append(write_cell(root, again, "rerun-torch"))
    # JAX on the CPU, observed and predicted for tpu, side by side.
    jax_cases = [f"jax.numpy.linalg.eig::{d}" for d in ("float32", "float64")] + [
        f"jax.numpy.sqrt::{d}" for d in DTYPES
    ]
    for position, release in enumerate(JAX):
        observed = [CaseSpec(c, samples_ms=_samples(rng, 0.02)) for c in jax_cases]
        cells.append(write_cell(root, CellSpec("jax", "cpu", release, observed,
                     started_at=f"2026-11-{10 + position:02d}T12:00:00.000+00:00"), f"sweep-jax-{release}"))  # fmt: skip
        predicted = [
            CaseSpec(
                c,
                "fail",
                "MLIR translation rule for primitive 'eig' not found for platform tpu",
                "not_implemented",
            )
            if "eig" in c
            else CaseSpec(c)
            for c in jax_cases
        ]
        cells.append(write_cell(root, CellSpec("jax", "cpu", release, predicted, predicted="tpu",
                     started_at=f"2026-11-{10 + position:02d}T13:00:00.000+00:00"), f"predict-jax-{release}"))  # fmt: skip
    return cells


# -- many records fast ----------------------------------------------------------------------------


def bulk(
    root: Path, records: int, per_cell: int = 5000, seed: int = 1, machine: str = "host"
) -> int:
    """About ``records`` records in cells of ``per_cell``: one template record per cell
    (made by the factory), each line a copy with its own case id, outcome and samples.
    ``machine`` names the cells' host (cells of two calls with other machines differ).
    Returns the records written."""
    rng = random.Random(seed)
    written = 0
    index = 0
    while written < records:
        count = min(per_cell, records - written)
        release = TORCH[index % len(TORCH)]
        template_cases = [
            CaseSpec(f"synthetic.f{i // 10}::c{i}", samples_ms=(0.1,) * 12) for i in range(count)
        ]
        spec = CellSpec("torch", "cpu", release, template_cases[:1],
                        started_at=f"2026-10-{1 + index % 28:02d}T{index % 24:02d}:00:00.000+00:00",
                        host=f"{machine}-{index}")  # fmt: skip
        folder = write_cell(root, spec, f"bulk-{index:05d}")
        plan_spec = CellSpec(spec.framework, spec.accelerator, spec.release, template_cases,
                             started_at=spec.started_at, host=spec.host)  # fmt: skip
        (folder / "plan.json").write_text(dumps(_plan(plan_spec).to_json()) + "\n")
        template = json.loads((folder / "results.jsonl").read_text())
        with open(folder / "results.jsonl", "w") as handle:
            for case in template_cases:
                line = copy.deepcopy(template)
                _vary(line, case.case, rng)
                handle.write(json.dumps(line, separators=(",", ":"), sort_keys=True) + "\n")
        written += count
        index += 1
    return written


def _vary(line: dict[str, object], case: str, rng: random.Random) -> None:
    line["case"] = case
    line["function"] = case.split("::", 1)[0]
    line["case_name"] = case.split("::", 1)[1]
    line["rerun"] = f"portbench bench --framework torch --case {case}"
    warm = line["timing"]["warm"]  # type: ignore[index]
    samples = [round(rng.uniform(0.05, 0.2), 6) for _ in range(12)]
    ordered = sorted(samples)
    warm.update(  # type: ignore[union-attr]
        median_ms=ordered[6], q1_ms=ordered[3], q3_ms=ordered[9], iqr_ms=ordered[9] - ordered[3],
        min_ms=ordered[0], mean_ms=sum(samples) / 12, samples_ms=samples,
    )  # fmt: skip
    if rng.random() < 0.05:
        line.update(outcome="fail", stage="call", category="type", timing=None,
                    error={"type": "RuntimeError", "message": f"not implemented for {case}", "traceback": ""})  # fmt: skip


def cells(
    specs: Iterable[CellSpec], root: Path, run: Callable[[int], str] = lambda i: f"run{i}"
) -> list[Path]:
    return [write_cell(root, spec, run(i)) for i, spec in enumerate(specs)]


if __name__ == "__main__":
    out = Path(sys.argv[1])
    made = sweep(out)
    print(f"{len(made)} synthetic cells under {out}")
