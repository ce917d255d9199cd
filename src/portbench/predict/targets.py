"""Which targets a framework can be predicted for, and how (docs/predictions.md).

``portbench bench --framework F --accelerator T --predict``: ``T`` is an id of the
accelerator table whose flavor is ``cuda`` or ``tpu``, or one of JAX's platform names
(``cuda``, ``rocm``) for targets the table has no id for yet. The cell runs on this
machine's CPU, in an environment of its own where the method needs one (torch_xla;
TensorFlow's ordinary wheel, which declares its GPU kernels), and is named
``<framework>/<target>-predicted/<profile>``: never the id of an observed cell.
"""

from __future__ import annotations

from dataclasses import dataclass

from portbench_runner.contract import PredictionControl, PredictionMethod, PredictionSettings

from ..accelerators import load_accelerators
from ..errors import UsageError

__all__ = ["PREDICTED_SUFFIX", "PredictSpec", "predict_spec"]

#: Appended to the target in a predicted cell's id: ``jax/tpu-predicted/current``.
PREDICTED_SUFFIX = "-predicted"
#: JAX platform names accepted as targets beside the table's ids (``cuda`` names any CUDA GPU
#: as ``gpu`` does; ``rocm`` any AMD GPU, as the table's generic ``rocm`` id does).
PLATFORM_TARGETS = {"cuda": "cuda", "rocm": "rocm"}
#: An id's flavor names the platform lowered for: a model's id (``rocm-mi300x``, ``tpu-v6e``)
#: predicts what its flavor's platform does, since XLA lowers for a platform, not a model
#: (TPU generations and GPU models differ only where a compiler on the hardware decides).
_PLATFORM_OF_FLAVOR = {"cuda": "cuda", "rocm": "rocm", "tpu": "tpu"}
_LOWERED, _CPU_RUN = PredictionMethod.LOWERED, PredictionControl.CPU_RUN
_CPU_TWIN = PredictionControl.CPU_TWIN


@dataclass(frozen=True)
class PredictSpec:
    """How one framework is predicted for one target."""

    framework: str
    target: str
    """The accelerator id (or JAX platform name) predicted for."""
    platform: str
    """``cuda``, ``rocm`` or ``tpu``: the platform lowered for or whose kernels are read."""
    method: PredictionMethod
    """The last two (declared kernels, the dispatcher) make ``declared`` evidence, the
    others ``predicted``."""
    control: PredictionControl
    """``cpu_run``: the case runs on the CPU and the look is the prediction; ``cpu_twin``:
    the case runs on XLA's CPU client and its CPU twin is the control."""
    env_flavor: str
    """The environment the cell runs in: the profile's lock of that flavor."""

    @property
    def cell_accelerator(self) -> str:
        return f"{self.target}{PREDICTED_SUFFIX}"

    def settings(self) -> PredictionSettings:
        """The plan's ``prediction``."""
        return PredictionSettings(self.method, self.target, self.platform, self.control)


def _platform(target: str) -> str:
    if target in PLATFORM_TARGETS:
        return PLATFORM_TARGETS[target]
    table = load_accelerators()
    if target not in table:
        known = [i for i, a in table.items() if a.flavor != "cpu"] + list(PLATFORM_TARGETS)
        raise UsageError(f"cannot predict unknown target '{target}' (known: {', '.join(known)})")
    flavor = table[target].flavor
    if flavor not in _PLATFORM_OF_FLAVOR:
        raise UsageError(
            f"cannot predict '{target}' ({flavor}): predictions lower for cuda, rocm or tpu "
            "targets only; run it observed, without --predict"
        )
    return _PLATFORM_OF_FLAVOR[flavor]


def predict_spec(framework: str, target: str, profile: str) -> PredictSpec:
    """The prediction of ``framework`` for ``target`` under ``profile``, or one sentence
    saying why there is none."""
    platform = _platform(target)
    if framework == "jax":
        return PredictSpec(framework, target, platform, _LOWERED, _CPU_RUN, "cpu")
    if platform == "rocm":
        raise UsageError(
            f"{framework} has no way here to predict a ROCm GPU (no ROCm build of it is read "
            f"for prediction yet); predict jax for {target}, or {framework} for cuda or tpu"
        )
    if framework == "torch" and platform == "tpu":
        if profile == "paper":
            raise UsageError(
                "torch-xla 1.12 (the study's) is on no index pip reaches; predict with "
                "--profile paper-nearest (torch-xla 2.1.0, the oldest PyPI serves) instead"
            )
        return PredictSpec(
            framework, target, platform, PredictionMethod.XLA_CPU, _CPU_TWIN, "predict"
        )
    if framework == "torch":
        # PyPI's torch 1.12.0 wheel (paper profiles' CPU lock) is a CUDA build: its
        # dispatcher declares the CUDA kernels. The current CPU lock is a +cpu build.
        flavor = "cpu" if profile in ("paper", "paper-nearest") else "cuda"
        return PredictSpec(
            framework, target, platform, PredictionMethod.DISPATCHER, _CPU_RUN, flavor
        )
    if framework == "tensorflow":
        method = (
            PredictionMethod.DECLARED_KERNEL if platform == "cuda" else PredictionMethod.XLA_CPU
        )
        return PredictSpec(framework, target, platform, method, _CPU_RUN, "predict")
    raise UsageError(f"cannot predict {framework} (known: jax, torch, tensorflow)")
