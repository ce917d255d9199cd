"""Writing the profiles' locks: resolved with ``uv pip compile`` where PyPI serves every
wheel, written from the frameworks' documented release pins (``verified=false``) where it
does not (TPU wheels, paper-era CUDA JAX wheels on JAX's own index, jaxlib 0.4.7).

Run ``portbench images lock [--only PROFILE]``; review the diff like any code change.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..errors import EnvironmentBuildError
from .locks import lock_path

__all__ = ["LOCK_INPUTS", "LockInput", "write_lock"]

#: PyTorch's own index of CPU builds: the only one serving ``torch==X+cpu``.
PYTORCH_CPU_INDEX = "https://download.pytorch.org/whl/cpu"
# NumPy of the study's era: TensorFlow 2.11 fails at import with NumPy 2.
PAPER_NUMPY = "numpy==1.23.5"
# The glibc of each profile's base (bullseye 2.31, bookworm 2.36): wheels must run there.
PLATFORMS = {"3.9": "x86_64-manylinux_2_31", "3.11": "x86_64-manylinux_2_31"}


@dataclass(frozen=True)
class LockInput:
    requirements: tuple[str, ...]
    python: str
    verified: bool
    """False: no index reachable from here resolves it; written from documented pins."""
    source: str
    find_links: str | None = None
    indexes: tuple[tuple[str, str], ...] = ()
    """(package, index URL): packages that only that index serves (``# index:`` lines)."""


def _inputs() -> dict[tuple[str, str, str], LockInput]:
    table: dict[tuple[str, str, str], LockInput] = {}
    pypi = "uv pip compile against PyPI"
    for profile in ("paper", "paper-nearest"):
        table[(profile, "torch", "cpu")] = LockInput(
            ("torch==1.12.0", PAPER_NUMPY),
            "3.9",
            True,
            pypi + " (PyPI's 1.12.0 wheel is a CUDA 10.2 build; it runs on the CPU)",
        )
        table[(profile, "torch", "cuda")] = LockInput(
            ("torch==1.12.0", PAPER_NUMPY), "3.9", True, pypi + " (CUDA 10.2 build)"
        )
        table[(profile, "tensorflow", "cpu")] = LockInput(
            ("tensorflow-cpu==2.11.0", PAPER_NUMPY), "3.9", True, pypi
        )
        table[(profile, "tensorflow", "cuda")] = LockInput(
            ("tensorflow==2.11.0", PAPER_NUMPY),
            "3.9",
            True,
            pypi + " (CUDA 11.2 libraries come from the base image)",
        )
        table[(profile, "torch", "tpu")] = LockInput(
            ("torch==1.12.0", "torch-xla==1.12", PAPER_NUMPY),
            "3.9",
            False,
            "torch-xla 1.12 was never on PyPI: documented pairing from PyTorch/XLA's release bucket",
        )
        table[(profile, "tensorflow", "tpu")] = LockInput(
            ("tensorflow==2.11.0", "libtpu-nightly==0.1.dev20221109", PAPER_NUMPY),
            "3.9",
            False,
            "TF 2.11 TPU VMs ship a preinstalled build; documented libtpu pairing",
        )
    table[("paper", "jax", "cpu")] = LockInput(
        (
            "jax==0.4.8",
            "jaxlib==0.4.7",
            PAPER_NUMPY,
            "scipy==1.10.1",
            "ml-dtypes==0.1.0",
            "opt-einsum==3.3.0",
        ),
        "3.9",
        False,
        "jaxlib 0.4.7 is no longer served by PyPI (earliest: 0.4.13); pins from JAX's release index",
    )
    table[("paper", "jax", "cuda")] = LockInput(
        (
            "jax==0.4.8",
            "jaxlib==0.4.7+cuda11.cudnn86",
            PAPER_NUMPY,
            "scipy==1.10.1",
            "ml-dtypes==0.1.0",
            "opt-einsum==3.3.0",
        ),
        "3.9",
        False,
        "CUDA jaxlib wheels live on JAX's release index, not PyPI",
    )
    table[("paper", "jax", "tpu")] = LockInput(
        (
            "jax==0.4.8",
            "jaxlib==0.4.7",
            "libtpu-nightly==0.1.dev20230327",
            PAPER_NUMPY,
            "scipy==1.10.1",
            "ml-dtypes==0.1.0",
            "opt-einsum==3.3.0",
        ),
        "3.9",
        False,
        "libtpu-nightly from JAX's release index (jax[tpu]==0.4.8)",
    )
    nearest_jax = ("jax==0.4.13", "jaxlib==0.4.13", PAPER_NUMPY, "scipy==1.10.1")
    table[("paper-nearest", "jax", "cpu")] = LockInput(nearest_jax, "3.9", True, pypi)
    table[("paper-nearest", "jax", "cuda")] = LockInput(
        (
            "jax==0.4.13",
            "jaxlib==0.4.13+cuda11.cudnn86",
            PAPER_NUMPY,
            "scipy==1.10.1",
            "ml-dtypes==0.2.0",
            "opt-einsum==3.3.0",
        ),
        "3.9",
        False,
        "CUDA jaxlib 0.4.13 wheels live on JAX's release index",
    )
    table[("paper-nearest", "jax", "tpu")] = LockInput(
        (
            "jax==0.4.13",
            "jaxlib==0.4.13",
            "libtpu-nightly==0.1.dev20230622",
            PAPER_NUMPY,
            "scipy==1.10.1",
            "ml-dtypes==0.2.0",
            "opt-einsum==3.3.0",
        ),
        "3.9",
        False,
        "libtpu-nightly from JAX's release index (jax[tpu]==0.4.13)",
    )
    table[("current", "jax", "cpu")] = LockInput(
        ("jax==0.10.2", "jaxlib==0.10.2"), "3.11", True, pypi
    )
    table[("current", "jax", "cuda")] = LockInput(("jax[cuda12]==0.10.2",), "3.11", True, pypi)
    table[("current", "jax", "tpu")] = LockInput(
        ("jax[tpu]==0.10.2",), "3.11", True, pypi + " (libtpu is on PyPI)"
    )
    table[("current", "torch", "cpu")] = LockInput(
        ("torch==2.13.0+cpu", "numpy"),
        "3.11",
        True,
        "uv pip compile against PyPI + the CPU wheel of PyTorch's cpu index (here: /opt/wheels)",
        find_links="/opt/wheels",
        indexes=(("torch", PYTORCH_CPU_INDEX),),
    )
    table[("current", "torch", "cuda")] = LockInput(
        ("torch==2.13.0", "numpy"), "3.11", True, pypi + " (CUDA build with its nvidia packages)"
    )
    table[("current", "torch", "tpu")] = LockInput(
        ("torch==2.9.0", "torch-xla[tpu]==2.9.0", "numpy"),
        "3.11",
        False,
        "torch-xla's newest release (2.9.0) pairs with torch 2.9.0; libtpu from PyTorch/XLA's index",
    )
    table[("current", "tensorflow", "cpu")] = LockInput(
        ("tensorflow-cpu==2.20.0",), "3.11", True, pypi
    )
    table[("current", "tensorflow", "cuda")] = LockInput(
        ("tensorflow[and-cuda]==2.20.0",), "3.11", True, pypi
    )
    table[("current", "tensorflow", "tpu")] = LockInput(
        ("tensorflow-tpu==2.20.0",),
        "3.11",
        False,
        "tensorflow-tpu needs libtpu from Google's index at install time",
    )
    table.update(_predict_inputs(pypi))
    return table


def _predict_inputs(pypi: str) -> dict[tuple[str, str, str], LockInput]:
    """Predicted cells' environments (#30, docs/predictions.md): torch_xla on its CPU
    client (one torch-xla release per profile, paired with the same torch release, which
    PyPI serves as a CUDA build), and TensorFlow's ordinary wheel, which declares its GPU
    kernels (tensorflow-cpu does not)."""
    table: dict[tuple[str, str, str], LockInput] = {}
    for profile in ("paper", "paper-nearest"):
        table[(profile, "tensorflow", "predict")] = LockInput(
            ("tensorflow==2.11.0", PAPER_NUMPY), "3.9", True, pypi
        )
    table[("paper-nearest", "torch", "predict")] = LockInput(
        ("torch==2.1.0", "torch-xla==2.1.0", PAPER_NUMPY, "setuptools<70"),
        "3.9",
        True,
        pypi + " (torch-xla 2.1.0 is the oldest PyPI serves; the study ran 1.12)",
    )
    table[("current", "torch", "predict")] = LockInput(
        # setuptools: torch.compile's inductor imports it on Python 3.11.
        ("torch==2.9.0", "torch-xla==2.9.0", "numpy", "setuptools"),
        "3.11",
        True,
        pypi + " (torch-xla 2.9.0 is the newest PyPI serves)",
    )
    table[("current", "tensorflow", "predict")] = LockInput(
        ("tensorflow==2.20.0",), "3.11", True, pypi
    )
    return table


LOCK_INPUTS = _inputs()


def _header(profile: str, framework: str, flavor: str, spec: LockInput) -> str:
    verified = "true" if spec.verified else "false"
    lines = [
        f"# portbench-lock: profile={profile} framework={framework} flavor={flavor} python={spec.python} verified={verified}",
        f"# source: {spec.source}; regenerate with `portbench images lock`",
    ]
    if not spec.verified:
        lines.append("# unverified: not resolved from here; builds say so")
    lines += [f"# index: {package} {url}" for package, url in spec.indexes]
    return "\n".join(lines) + "\n"


def write_lock(profile: str, framework: str, flavor: str) -> Path:
    """Resolve (or write from documented pins) one lock; returns its path."""
    spec = LOCK_INPUTS[(profile, framework, flavor)]
    path = lock_path(profile, framework, flavor)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not spec.verified:
        path.write_text(
            _header(profile, framework, flavor, spec) + "\n".join(spec.requirements) + "\n"
        )
        return path
    uv = shutil.which("uv")
    if uv is None:
        raise EnvironmentBuildError("resolving locks needs uv; pip install uv")
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "requirements.in"
        source.write_text("\n".join(spec.requirements) + "\n")
        out = Path(tmp) / "lock.txt"
        cmd = [
            uv,
            "pip",
            "compile",
            str(source),
            "--quiet",
            "--no-header",
            "--generate-hashes",
            "--python-version",
            spec.python,
            "--python-platform",
            PLATFORMS[spec.python],
            "-o",
            str(out),
        ]
        if spec.find_links:
            cmd += ["--find-links", spec.find_links]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise EnvironmentBuildError(
                f"resolving {path.name} ({profile}) failed: {proc.stderr.strip().splitlines()[-1:]}",
                log=proc.stderr,
            )
        # uv's "via" comments name the temporary input file; they carry no information.
        body = "\n".join(
            line for line in out.read_text().splitlines() if "requirements.in" not in line
        )
    path.write_text(_header(profile, framework, flavor, spec) + body + "\n")
    return path
