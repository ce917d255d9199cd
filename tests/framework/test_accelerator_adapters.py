"""The ROCm, XPU and MPS paths of the adapters with the real CPU builds as stand-ins.

PyTorch's CPU build has ``torch.xpu``, ``torch.mps`` and ``torch.backends.mps``, which
report no device; jax and tensorflow-cpu have no ROCm backend. So what is tested here is
what a user without the hardware (or with the wrong build) meets: the sentence, the sync
function the cell would call, the fallback probe's reading of torch's own warnings. None
of it has run on AMD, Intel or Apple GPUs."""

from __future__ import annotations

import platform
import warnings
from typing import Any

import pytest

from portbench_runner.adapters import make_adapter
from portbench_runner.adapters.base import DeviceMismatch, DeviceMissing
from portbench_runner.adapters.rocm import check_gfx

ROCM = {
    "id": "rocm-mi300x",
    "flavor": "rocm",
    "device_match": "MI300X",
    "generic": "rocm",
    "gfx": "gfx942",
}
XPU = {"id": "xpu", "flavor": "xpu", "device_match": "", "generic": "xpu"}
MPS = {"id": "mps", "flavor": "mps", "device_match": "", "generic": "mps"}


def _load(framework: str, accelerator: dict[str, Any]) -> str:
    adapter = make_adapter(framework, accelerator["flavor"], accelerator)
    with pytest.raises(DeviceMissing) as caught:
        adapter.load()
    message = str(caught.value)
    assert "\n" not in message
    return message


# -- torch ------------------------------------------------------------------------------


def test_torch_cpu_build_is_not_a_rocm_build() -> None:
    torch = pytest.importorskip("torch")
    assert torch.version.hip is None
    assert _load("torch", ROCM) == (
        f"torch {torch.__version__} is not a ROCm build (torch.version.hip is None); the rocm "
        "cell needs PyTorch's ROCm wheel (its lock names PyTorch's rocm index)"
    )


def test_torch_xpu_reports_no_intel_gpu() -> None:
    torch = pytest.importorskip("torch")
    assert not torch.xpu.is_available()
    assert _load("torch", XPU) == (
        f"torch {torch.__version__} sees no Intel GPU (torch.xpu.is_available() is False; "
        "built with XPU: False); use PyTorch's xpu wheel and check /dev/dri and the render group"
    )


def test_torch_mps_reports_no_device_off_macos() -> None:
    torch = pytest.importorskip("torch")
    assert not torch.backends.mps.is_available()
    assert _load("torch", MPS) == (
        f"torch {torch.__version__} sees no MPS device (torch.backends.mps.is_built() is "
        f"{torch.backends.mps.is_built()}, is_available() is False); MPS needs a macOS build of "
        f"torch on Apple silicon, and this is {platform.system()} on {platform.machine()}"
    )


@pytest.mark.parametrize(
    ("accelerator", "refusal"),
    [
        (ROCM, "Torch not compiled with CUDA enabled"),  # HIP answers to torch.cuda
        (XPU, "Torch not compiled with XPU enabled"),
        (MPS, "without MPS backend"),
    ],
    ids=["rocm", "xpu", "mps"],
)
def test_torch_sync_calls_each_devices_own_synchronize(
    accelerator: dict[str, Any], refusal: str
) -> None:
    torch = pytest.importorskip("torch")
    adapter: Any = make_adapter("torch", accelerator["flavor"], accelerator)
    adapter.torch = torch  # what load() sets; the device itself is not here
    with pytest.raises((RuntimeError, AssertionError), match=refusal):
        adapter.sync(None)


def test_the_probe_hears_torchs_warn_once_warnings_every_time() -> None:
    torch = pytest.importorskip("torch")
    from portbench_runner.adapters.torch_devices import warnings_of

    before = torch.is_warn_always_enabled()
    matrix = torch.eye(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.cholesky(matrix)  # torch's TORCH_WARN_ONCE: the process has now warned once
    heard = warnings_of(torch, lambda: torch.cholesky(matrix))
    assert any("torch.cholesky is deprecated" in m for m in heard)
    assert torch.is_warn_always_enabled() == before


def test_mps_and_xpu_fallback_warnings_become_host_work(monkeypatch: pytest.MonkeyPatch) -> None:
    torch = pytest.importorskip("torch")
    from portbench_runner.adapters.torch_devices import (
        fallback_evidence,
        mps_fallback_ops,
        xpu_fallback_ops,
    )

    # torch's own words (MPSFallback.mm; torch-xpu-ops' XPUFallback.template).
    mps = (
        "The operator 'aten::bitwise_and.Tensor_out' is not currently supported on the MPS "
        "backend and will fall back to run on the CPU. This may have performance implications."
    )
    assert mps_fallback_ops([mps, "unrelated"]) == [
        ("cpu_fallback", "aten::bitwise_and.Tensor_out")
    ]
    named = "The operator 'aten::dot on the XPU backend is falling back to run on the CPU."
    unnamed = (
        "Aten Op fallback from XPU to CPU happens. This may have performance implications. "
        "If need debug the fallback ops please set environment variable "
        "`PYTORCH_DEBUG_XPU_FALLBACK=1` "
    )
    assert xpu_fallback_ops([named]) == [("cpu_fallback", "aten::dot")]
    assert xpu_fallback_ops([unnamed]) == [
        ("cpu_fallback", "an aten op (set PYTORCH_DEBUG_XPU_FALLBACK=1 to name it)")
    ]

    # The probe around a call that warns as torch does when an op falls back.
    def call() -> None:
        warnings.warn(named, UserWarning, stacklevel=1)

    monkeypatch.delenv("PYTORCH_ENABLE_XPU_FALLBACK", raising=False)
    evidence = fallback_evidence(torch, "xpu", lambda value: None, call, (), {}, True)
    assert evidence["seen"] and evidence["fallback"] is True
    assert evidence["host_work"] == [{"kind": "cpu_fallback", "what": "aten::dot"}]
    assert evidence["fallback_enabled"] is False  # XPU's fallback list runs on the CPU anyway
    # MPS with its switch off: an op without a kernel raises, nothing can fall back.
    monkeypatch.delenv("PYTORCH_ENABLE_MPS_FALLBACK", raising=False)
    off = fallback_evidence(torch, "mps", lambda value: None, call, (), {}, True)
    assert off["seen"] and off["fallback"] is False
    assert off["note"] == "PYTORCH_ENABLE_MPS_FALLBACK is off: no op can fall back"
    monkeypatch.setenv("PYTORCH_ENABLE_MPS_FALLBACK", "1")
    unseen = fallback_evidence(torch, "mps", lambda value: None, call, (), {}, False)
    assert unseen["seen"] is False and unseen["fallback"] is None


# -- jax and tensorflow -----------------------------------------------------------------


def test_jax_without_the_rocm_plugin_says_it_has_no_rocm_backend() -> None:
    jax = pytest.importorskip("jax")
    message = _load("jax", ROCM)
    assert message.startswith(f"jax {jax.__version__} has no 'rocm' backend: ")
    assert _load("jax", XPU) == (
        "portbench runs jax on cpu, cuda, rocm, tpu, not 'xpu' (no JAX plugin for xpu is pinned)"
    )


def test_tensorflow_cpu_is_not_a_rocm_build() -> None:
    tf = pytest.importorskip("tensorflow")
    assert _load("tensorflow", ROCM) == (
        f"tensorflow {tf.__version__} is not a ROCm build; the rocm cell needs tensorflow-rocm"
    )
    assert _load("tensorflow", MPS) == (
        "portbench runs tensorflow on cpu, cuda, rocm, tpu, not 'mps' (no TensorFlow plugin "
        "for mps is pinned)"
    )


# -- the gfx target ---------------------------------------------------------------------


def test_a_gfx_target_other_than_the_ids_is_a_mismatch() -> None:
    check_gfx("gfx942:sramecc+:xnack-", ROCM)
    check_gfx("", ROCM)  # not reported: the device name alone is checked
    with pytest.raises(DeviceMismatch) as caught:
        check_gfx("gfx90a:sramecc+:xnack-", ROCM)
    assert str(caught.value) == (
        "accelerator 'rocm-mi300x' expects gfx target gfx942, but this GPU is gfx90a; run the "
        "cell with the id of the hardware present (or the generic 'rocm')"
    )
