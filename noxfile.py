"""portbench's sessions: thin wrappers over the ``portbench`` command.

Cells come from the package (frameworks) and the accelerator table, so ``nox -l`` lists
``bench(jax, cpu)`` ... ``bench(torch, tpu-v3)`` from one source of truth.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nox

ROOT = Path(__file__).parent
sys.path.insert(0, str(ROOT / "src"))

from portbench.accelerators import load_accelerators  # noqa: E402
from portbench.images.lockgen import PYTORCH_CPU_INDEX  # noqa: E402
from portbench.manifest import FRAMEWORKS  # noqa: E402

nox.options.sessions = ["lint", "tests", "cloud_schema"]
nox.options.reuse_existing_virtualenvs = True

PYTHON = "3.11"
#: Ctrl-C reaches nox and portbench together; nox then waits this long before its SIGTERM
#: (0.3 s by default, then SIGKILL at 0.5 s: a killed portbench prints nothing and writes no
#: session line). portbench needs up to a minute: the cell's session ends (the container's
#: supervisor gets the signal, finishes its record, the container goes), then the summary
#: and the resume command. A run that ends sooner returns at once.
INTERRUPT_TIMEOUT_S = 120.0
TERMINATE_TIMEOUT_S = 30.0
CELLS = [
    nox.param(framework, accelerator, id=f"{framework}, {accelerator}")
    for framework in FRAMEWORKS
    for accelerator in load_accelerators()
]
# What the framework-backed tests need (rules tested against real exceptions): CPU builds.
# torch's CPU build (+cpu) is on PyTorch's own index only; PyPI's torch is the multi-GB CUDA one.
TORCH_CPU = "torch==2.13.0+cpu"
TEST_FRAMEWORKS = ["jax", TORCH_CPU, "tensorflow-cpu"]
# What the census's databases import beside the framework (PyTorch's OpInfo, JAX's harnesses).
CENSUS_EXTRAS = ["expecttest", "absl-py"]


def _install_frameworks(session: nox.Session) -> None:
    """The CPU builds: torch alone from PyTorch's CPU index (a configured wheelhouse is the
    fallback where it cannot be reached), then the rest, and torch's dependencies, from PyPI."""
    session.install("--no-deps", "--index-url", PYTORCH_CPU_INDEX, TORCH_CPU)
    session.install(*TEST_FRAMEWORKS, *CENSUS_EXTRAS)


def _install(session: nox.Session, *extras: str) -> None:
    spec = f".[{','.join(extras)}]" if extras else "."
    session.install("-e", spec)


@nox.session(python=PYTHON, default=False)
@nox.parametrize(("framework", "accelerator"), CELLS)
def bench(session: nox.Session, framework: str, accelerator: str) -> None:
    """Run one cell; extra arguments go to `portbench bench` (e.g. -- --profile paper)."""
    _install(session)
    session.run(
        "portbench",
        "bench",
        "--framework",
        framework,
        "--accelerator",
        accelerator,
        *session.posargs,
        interrupt_timeout=INTERRUPT_TIMEOUT_S,
        terminate_timeout=TERMINATE_TIMEOUT_S,
    )


@nox.session(python=PYTHON, default=False)
@nox.parametrize(("framework", "accelerator"), CELLS)
def census(session: nox.Session, framework: str, accelerator: str) -> None:
    """Every operator of the framework's own database in one cell (-- --no-timing, --ops)."""
    _install(session)
    session.run(
        "portbench",
        "census",
        "--framework",
        framework,
        "--accelerator",
        accelerator,
        *session.posargs,
        interrupt_timeout=INTERRUPT_TIMEOUT_S,
        terminate_timeout=TERMINATE_TIMEOUT_S,
    )


@nox.session(python=PYTHON, default=False)
@nox.parametrize(("framework", "accelerator"), CELLS)
def mutate(session: nox.Session, framework: str, accelerator: str) -> None:
    """Kill rates of one cell's checks against mutants (-- --functions, --kinds, --profile)."""
    _install(session)
    session.run(
        "portbench",
        "mutate",
        "--framework",
        framework,
        "--accelerator",
        accelerator,
        *session.posargs,
    )


@nox.session(python=PYTHON, default=False)
@nox.parametrize(("framework", "accelerator"), CELLS)
def image(session: nox.Session, framework: str, accelerator: str) -> None:
    """Build (or reuse) the pinned image of one cell (-- --profile P)."""
    _install(session)
    session.run(
        "portbench",
        "images",
        "build",
        "--framework",
        framework,
        "--accelerator",
        accelerator,
        *session.posargs,
    )


@nox.session(python=PYTHON, default=False)
def base_images(session: nox.Session) -> None:
    """Make local base images with debootstrap (no registry needed)."""
    _install(session)
    session.run("portbench", "images", "base", *session.posargs)


@nox.session(python=PYTHON, default=False)
def sweep(session: nox.Session) -> None:
    """One cell per release: `nox -s sweep -- --framework jax --no-timing` (docs/releases.md)."""
    _install(session)
    session.run("portbench", "sweep", *(session.posargs or ["--framework", "jax", "--no-timing"]))


@nox.session(python=PYTHON, default=False)
def matrix(session: nox.Session) -> None:
    """Run every cell this machine (or, -- --engine ray, a Ray cluster) can reach (-- --profile P)."""
    _install(session, "ray")
    session.run(
        "portbench",
        "matrix",
        *session.posargs,
        interrupt_timeout=INTERRUPT_TIMEOUT_S,
        terminate_timeout=TERMINATE_TIMEOUT_S,
    )


@nox.session(python=PYTHON, default=False)
def report(session: nox.Session) -> None:
    """Merge runs (default: all under results/ but results/reference/) into report/."""
    _install(session)
    session.run("portbench", "report", *session.posargs)


@nox.session(python=PYTHON, default=False)
def compare(session: nox.Session) -> None:
    """Compare two runs or cells case by case: nox -s compare -- A B [--fail-on slower]."""
    _install(session)
    session.run("portbench", "compare", *session.posargs)


@nox.session(python=PYTHON, default=False)
def publish(session: nox.Session) -> None:
    """Pack report/ into one archive with a list of its contents and their hashes."""
    _install(session)
    session.run("portbench", "publish", *session.posargs)


@nox.session(python=PYTHON, default=False)
def ingest(session: nox.Session) -> None:
    """Add runs, archives or exports to the store (default: results/ and the study's cells)."""
    _install(session)
    session.run("portbench", "ingest", *(session.posargs or ["results", "--study"]))


@nox.session(python=PYTHON, default=False)
def scoreboard(session: nox.Session) -> None:
    """Ingest results/ (or the runs named) and the study, then write the site into site/."""
    _install(session)
    session.run("portbench", "ingest", *(session.posargs or ["results"]), "--study")
    session.run("portbench", "scoreboard", "--out", "site")


@nox.session(python=PYTHON, default=False)
def sample(session: nox.Session) -> None:
    """The sampling pipeline: enumerate, count, sample (arguments go to `portbench sample`)."""
    _install(session)
    session.run("portbench", "sample", *session.posargs)


@nox.session(python=PYTHON, default=False)
def scan(session: nox.Session) -> None:
    """Will a project port? Map its framework calls onto the evidence: -- PATH [--target T]."""
    _install(session)
    session.run("portbench", "scan", *session.posargs)


@nox.session(python=PYTHON, default=False)
def perf(session: nox.Session) -> None:
    """Benchmarks of portbench itself (timing fidelity, overhead, scaling)."""
    _install(session, "test")
    _install_frameworks(session)
    session.run(
        "python",
        "benchmarks/run.py",
        *(session.posargs or ["--json", "benchmarks/results/latest.json"]),
    )


@nox.session(python=PYTHON)
def tests(session: nox.Session) -> None:
    """The test suite, with real frameworks for the rules and manifest tests."""
    _install(session, "test", "corpus", "ray")
    _install_frameworks(session)
    session.run("pytest", *(session.posargs or ["-q"]))


@nox.session(python=PYTHON)
def cloud_schema(session: nox.Session) -> None:
    """The rendered SkyPilot task files, checked against SkyPilot's own task schema."""
    _install(session, "test")
    session.install("skypilot")
    session.run("pytest", "-q", "tests/unit/cluster/test_skypilot.py", *session.posargs)


@nox.session(python=PYTHON)
def lint(session: nox.Session) -> None:
    """ruff (lint and format check); mypy on the host package, then on the runner."""
    _install(session, "lint")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")
    session.run("mypy")
    # The oldest target current mypy accepts (the runner itself runs on 3.8+).
    session.run("mypy", "--python-version", "3.10", "runners/portbench_runner")
