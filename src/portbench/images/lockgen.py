"""Writing the profiles' locks: resolved with ``uv pip compile`` where PyPI serves every
wheel, written from the frameworks' documented release pins (``verified=false``) where it
does not (TPU wheels, paper-era CUDA JAX wheels on JAX's own index, jaxlib 0.4.7).

Run ``portbench images lock [--only PROFILE]``; review the diff like any code change.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..errors import EnvironmentBuildError
from .accelerator_locks import accelerator_current
from .locks import load_lock, lock_path
from .uvtool import run_uv, uv_reason

__all__ = ["CURRENT", "LOCK_INPUTS", "CurrentLock", "LockInput", "current_version", "write_lock"]

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
    platform: str | None = None
    """uv's ``--python-platform`` where it is not the profile's Linux (macOS locks)."""
    env: tuple[tuple[str, str], ...] = ()
    """Variables uv resolves under (``MACOSX_DEPLOYMENT_TARGET`` for macOS wheels' tags)."""


@dataclass(frozen=True)
class CurrentLock:
    """How a lock of ``current`` pins its framework: ``template`` with ``{version}`` filled
    in by the version the lock pins now (``portbench images refresh`` moves it)."""

    package: str
    """The package whose pinned version is the framework's (``tensorflow-cpu``)."""
    template: tuple[str, ...]
    verified: bool
    source: str
    find_links: str | None = None
    indexes: tuple[tuple[str, str], ...] = ()
    platform: str | None = None
    env: tuple[tuple[str, str], ...] = ()
    follows: str | None = None
    """A flavor whose lock's release this one takes when refreshed (``cpu``: an MPS cell
    measures the release the CPU cells measure), rather than the newest."""

    def requirements(self, version: str) -> tuple[str, ...]:
        return tuple(item.format(version=version) for item in self.template)


_PYPI = "uv pip compile against PyPI"
CURRENT: dict[tuple[str, str], CurrentLock] = {
    ("jax", "cpu"): CurrentLock("jax", ("jax=={version}", "jaxlib=={version}"), True, _PYPI),
    ("jax", "cuda"): CurrentLock("jax", ("jax[cuda12]=={version}",), True, _PYPI),
    ("jax", "tpu"): CurrentLock(
        "jax", ("jax[tpu]=={version}",), True, _PYPI + " (libtpu is on PyPI)"
    ),
    ("torch", "cpu"): CurrentLock(
        "torch",
        ("torch=={version}+cpu", "numpy"),
        True,
        _PYPI + " + the CPU wheel of PyTorch's cpu index (here: /opt/wheels)",
        find_links="/opt/wheels",
        indexes=(("torch", PYTORCH_CPU_INDEX),),
    ),
    ("torch", "cuda"): CurrentLock(
        "torch",
        ("torch=={version}", "numpy"),
        True,
        _PYPI + " (CUDA build with its nvidia packages)",
    ),
    ("torch", "tpu"): CurrentLock(
        "torch-xla",
        ("torch=={version}", "torch-xla[tpu]=={version}", "numpy"),
        False,
        "torch-xla's newest release ({version}) pairs with torch {version}; libtpu from PyTorch/XLA's index",
    ),
    ("tensorflow", "cpu"): CurrentLock(
        "tensorflow-cpu", ("tensorflow-cpu=={version}",), True, _PYPI
    ),
    ("tensorflow", "cuda"): CurrentLock(
        "tensorflow", ("tensorflow[and-cuda]=={version}",), True, _PYPI
    ),
    ("tensorflow", "tpu"): CurrentLock(
        "tensorflow-tpu",
        ("tensorflow-tpu=={version}",),
        False,
        "tensorflow-tpu needs libtpu from Google's index at install time",
    ),
    # AMD (rocm), Intel (xpu) and Apple (mps): their table says where each build comes from.
    **accelerator_current(),
    # Predicted cells (#30, docs/predictions.md): torch_xla on its CPU client, paired with
    # the torch release of the same version (PyPI's CUDA build; setuptools: inductor
    # imports it on Python 3.11), and TensorFlow's ordinary wheel, which declares its GPU
    # kernels (tensorflow-cpu does not).
    ("torch", "predict"): CurrentLock(
        "torch-xla",
        ("torch=={version}", "torch-xla=={version}", "numpy", "setuptools"),
        True,
        _PYPI + " (torch-xla {version} is the newest PyPI serves)",
    ),
    ("tensorflow", "predict"): CurrentLock("tensorflow", ("tensorflow=={version}",), True, _PYPI),
}
#: What ``current`` pinned when its locks were first written (used where a lock is missing).
CURRENT_DEFAULTS = {
    "jax": "0.10.2",
    "torch": "2.13.0",
    "torch-xla": "2.9.0",
    "tensorflow-cpu": "2.20.0",
    "tensorflow": "2.20.0",
    "tensorflow-tpu": "2.20.0",
    "tensorflow-rocm": "2.14.0.600",
}


def current_version(framework: str, flavor: str) -> str:
    """The framework version ``current``'s lock pins now (its build suffix, ``+cpu``, cut)."""
    package = CURRENT[(framework, flavor)].package
    path = lock_path("current", framework, flavor)
    if path.exists():
        pinned = load_lock(path).pins.get(package)
        if pinned:
            return pinned.split("+", 1)[0]
    return CURRENT_DEFAULTS[package]


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
    for (framework, flavor), current in CURRENT.items():
        version = current_version(framework, flavor)
        table[("current", framework, flavor)] = LockInput(
            current.requirements(version),
            "3.11",
            current.verified,
            current.source.format(version=version),
            find_links=current.find_links,
            indexes=current.indexes,
            platform=current.platform,
            env=current.env,
        )
    table.update(_predict_inputs(pypi))
    return table


def _predict_inputs(pypi: str) -> dict[tuple[str, str, str], LockInput]:
    """The paper profiles' environments of predicted cells (#30, docs/predictions.md);
    ``current``'s are in :data:`CURRENT`, so ``portbench images refresh`` moves them."""
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


def write_lock(
    profile: str,
    framework: str,
    flavor: str,
    spec: LockInput | None = None,
    dest: Path | None = None,
    torch_backend: str | None = None,
) -> Path:
    """Resolve (or write from documented pins) one lock; returns its path.

    ``spec`` and ``dest`` default to the table's entry and the lock's own path (a refresh
    passes its own); ``torch_backend`` is uv's ``--torch-backend`` (``cpu``: PyTorch's CPU
    index for torch alone).
    """
    spec = spec or LOCK_INPUTS[(profile, framework, flavor)]
    path = dest or lock_path(profile, framework, flavor)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not spec.verified:
        path.write_text(
            _header(profile, framework, flavor, spec) + "\n".join(spec.requirements) + "\n"
        )
        return path
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "requirements.in"
        source.write_text("\n".join(spec.requirements) + "\n")
        out = Path(tmp) / "lock.txt"
        cmd = [
            "pip",
            "compile",
            str(source),
            "--quiet",
            "--no-header",
            "--generate-hashes",
            "--python-version",
            spec.python,
            "--python-platform",
            spec.platform or PLATFORMS[spec.python],
            "-o",
            str(out),
        ]
        if spec.find_links:
            cmd += ["--find-links", spec.find_links]
        if torch_backend:
            cmd += ["--torch-backend", torch_backend]
        proc = run_uv(cmd, dict(spec.env))
        if proc.returncode != 0:
            raise EnvironmentBuildError(
                f"resolving {path.name} ({profile}) failed: {uv_reason(proc.stderr)}",
                log=proc.stderr,
            )
        # uv's "via" comments name the temporary input file; they carry no information.
        body = "\n".join(
            line for line in out.read_text().splitlines() if "requirements.in" not in line
        )
    path.write_text(_header(profile, framework, flavor, spec) + body + "\n")
    return path
