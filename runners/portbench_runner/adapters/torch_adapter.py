"""PyTorch: explicit devices, CUDA synchronize, XLA mark_step + wait_device_ops; ROCm, XPU and
MPS devices through ``torch_devices``."""

from __future__ import annotations

import contextlib
import os
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple, cast

from .. import fallback, prediction
from ..contract import PredictionControl, PredictionMethod
from . import torch_devices
from .base import Adapter, DeviceMissing

__all__ = ["TorchAdapter"]


#: Dispatch keys under which an operator's kernel serves a CUDA tensor.
_DECLARED_KEYS = ("CUDA", "CompositeExplicitAutograd", "CompositeImplicitAutograd")


def dispatched_ops(
    torch: Any, fn: Callable[..., Any], args: Tuple[Any, ...], kwargs: Dict[str, Any]
) -> Optional[List[str]]:
    """The ``aten::name.overload`` of each operator one more call of ``fn`` dispatches to a
    backend kernel (below autograd and composite decompositions), in first-seen order;
    None where this torch has no dispatch mode."""
    try:
        from torch.utils._python_dispatch import TorchDispatchMode
    except ImportError:
        return None
    seen: List[str] = []

    class Listing(TorchDispatchMode):  # type: ignore[misc]
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # type: ignore[no-untyped-def]
            schema = func._schema
            name = schema.name + (f".{schema.overload_name}" if schema.overload_name else "")
            if name not in seen:
                seen.append(name)
            return func(*args, **(kwargs or {}))

    with Listing():
        fn(*args, **kwargs)
    return seen


class TorchAdapter(Adapter):
    name = "torch"
    # torch_xla's xla_model where the cell runs on an XLA device; None until load() finds
    # one, so a cell on any other device (or one whose load has not run) is not on XLA.
    xm: Any = None

    def load(self) -> None:
        torch_devices.prepare_environment(self.flavor)
        import torch

        self.torch = torch
        self.version = torch.__version__
        self.xm = None
        if self.prediction is not None and self.prediction.control is PredictionControl.CPU_TWIN:
            self._load_xla_cpu()
        elif self.flavor == "cpu":
            self.device = torch.device("cpu")
            self.device_name = "cpu"
        elif self.flavor == "cuda":
            if not torch.cuda.is_available():
                raise DeviceMissing(
                    f"torch {self.version} sees no CUDA device "
                    f"(built for CUDA {torch.version.cuda}); check the driver and the "
                    "container's GPU request"
                )
            self.device = torch.device("cuda", 0)
            self.device_name = torch.cuda.get_device_name(0)
        elif self.flavor == "tpu":
            try:
                import torch_xla.core.xla_model as xm
            except ImportError as exc:
                raise DeviceMissing(f"torch_xla is not importable: {exc}") from exc
            self.xm = xm
            self.device = xm.xla_device()
            self.device_name = "%s %s" % (
                xm.xla_device_hw(self.device),
                os.environ.get("TPU_ACCELERATOR_TYPE", ""),
            )
        elif self.flavor in torch_devices.FLAVORS:
            self.device, self.device_name = torch_devices.select_device(
                torch, self.flavor, self.version, self.accelerator
            )
        else:
            raise DeviceMissing(f"unknown flavor {self.flavor!r} for torch")
        self.check_device_name(self.device_name)

    def _load_xla_cpu(self) -> None:
        """A predicted TPU cell: torch_xla's XLA device on its CPU client (PJRT_DEVICE=CPU),
        where ops XLA cannot lower fall back to aten:: (counted) or fail."""
        os.environ["PJRT_DEVICE"] = "CPU"
        try:
            import torch_xla.core.xla_model as xm
        except ImportError as exc:
            raise DeviceMissing(
                f"torch_xla is not importable ({exc}); a predicted torch TPU cell runs in the "
                "profile's torch-predict environment"
            ) from exc
        self.xm = xm
        self.device = xm.xla_device()
        self.device_name = f"{xm.xla_device_hw(self.device)} (XLA CPU client)"

    @property
    def on_xla(self) -> bool:
        return self.xm is not None

    @contextlib.contextmanager
    def case_scope(self) -> Iterator[None]:
        # Process-wide switches outlive the case that flips them and would make a later
        # case's outcome depend on the order cases ran in. The first torch.compile of a
        # worker turns distributions' argument validation off for the whole process
        # (dynamo's TorchPatcher); a case may also change the default dtype or grad mode.
        torch = self.torch
        distribution = torch.distributions.Distribution
        validate = distribution._validate_args
        default_dtype = torch.get_default_dtype()
        grad = torch.is_grad_enabled()
        try:
            yield
        finally:
            distribution.set_default_validate_args(validate)
            torch.set_default_dtype(default_dtype)
            torch.set_grad_enabled(grad)

    def env(self) -> Dict[str, object]:
        torch = self.torch
        precision: Dict[str, object] = {
            "cuda_matmul_allow_tf32": torch.backends.cuda.matmul.allow_tf32,
            "cudnn_allow_tf32": torch.backends.cudnn.allow_tf32,
        }
        facts: Dict[str, object] = {
            "framework_version": self.version,
            "device": str(self.device),
            "device_name": self.device_name,
            "cuda_runtime": torch.version.cuda,
            "threads": torch.get_num_threads(),
            "interop_threads": torch.get_num_interop_threads(),
            "precision": precision,
        }
        if hasattr(torch, "get_float32_matmul_precision"):
            precision["float32_matmul_precision"] = torch.get_float32_matmul_precision()
        if self.flavor == "cuda":
            facts["device_count"] = torch.cuda.device_count()
            facts["cudnn_version"] = torch.backends.cudnn.version()
            cap = torch.cuda.get_device_capability(0)
            facts["compute_capability"] = "%d.%d" % cap
        elif self.on_xla:
            import torch_xla

            facts["torch_xla_version"] = torch_xla.__version__
            facts["device_count"] = len(self.xm.get_xla_supported_devices())
        elif self.flavor in torch_devices.FLAVORS:
            facts.update(torch_devices.device_facts(torch, self.flavor))
        else:
            facts["device_count"] = 1
        return facts

    def _dtype(self, name: Optional[str]) -> Any:
        if name is None:
            return None
        dtype = getattr(self.torch, name, None)
        if not isinstance(dtype, self.torch.dtype):
            raise ValueError(f"torch has no dtype {name!r}")
        return dtype

    def put(self, value: Any, dtype: Optional[str] = None, requires_grad: bool = False) -> Any:
        torch = self.torch
        if isinstance(value, torch.Tensor):
            tensor = value
        else:
            import numpy as np

            tensor = torch.from_numpy(np.array(value))
        tensor = tensor.to(device=self.device, dtype=self._dtype(dtype))
        if requires_grad:
            tensor.requires_grad_(True)
        return tensor

    def is_tensor(self, value: Any) -> bool:
        return isinstance(value, (self.torch.Tensor, self.torch.nn.Module))

    def sync(self, value: Any) -> None:
        # Synchronizing the whole device covers every output leaf, nested ones included.
        if self.flavor == "cuda":
            self.torch.cuda.synchronize(self.device)
        elif self.on_xla:
            self.xm.mark_step()
            self.xm.wait_device_ops()
        elif self.flavor in torch_devices.FLAVORS:
            torch_devices.sync_module(self.torch, self.flavor).synchronize()

    def leaf_device(self, leaf: Any) -> Optional[str]:
        if isinstance(leaf, self.torch.nn.Module):
            for name, tensor in list(leaf.named_parameters()) + list(leaf.named_buffers()):
                where = self.leaf_device(tensor)
                if where is not None:
                    return f"module {type(leaf).__name__}.{name}: {where}"
            return None
        if leaf.device.type != self.device.type:
            return f"tensor on {leaf.device}, not {self.device}"
        return None

    def xla_fallback_counters(self) -> Dict[str, int]:
        """torch_xla's ``aten::`` counters: each counts calls of an op XLA could not lower,
        run by PyTorch's CPU kernel with the tensors copied off the device and back."""
        import torch_xla.debug.metrics as met

        return {
            name: int(met.counter_value(name) or 0)
            for name in met.counter_names()
            if name.startswith("aten::")
        }

    def before_call(self) -> Any:
        if not self.on_xla:
            return None
        return {"counters": self.xla_fallback_counters()}

    def evidence(
        self,
        fn: Callable[..., Any],
        args: Tuple[Any, ...],
        kwargs: Dict[str, object],
        before: Any,
        repeatable: bool,
    ) -> Optional[Dict[str, object]]:
        if self.flavor == "cuda":
            return self.cuda_evidence(fn, args, kwargs, repeatable)
        if self.flavor == "rocm":
            return torch_devices.rocm_evidence(self.torch, self.sync, fn, args, kwargs, repeatable)
        if self.flavor in ("mps", "xpu"):
            return torch_devices.fallback_evidence(
                self.torch, self.flavor, self.sync, fn, args, kwargs, repeatable
            )
        if not self.on_xla:
            return None
        probe = "torch_xla-counters"
        hardware = str(self.xm.xla_device_hw(self.device))
        if not isinstance(before, dict) or not isinstance(before.get("counters"), dict):
            return fallback.unseen(
                probe, hardware, "the counters could not be read before the call"
            )
        # The counters span the cold call and every warm one: a rise of n over k calls.
        return fallback.evidence(
            probe,
            hardware,
            fallback.xla_counter_delta(before["counters"], self.xla_fallback_counters()),
            note="aten:: counters over the cold and warm calls; each op ran outside XLA",
        )

    def cuda_evidence(
        self,
        fn: Callable[..., Any],
        args: Tuple[Any, ...],
        kwargs: Dict[str, object],
        repeatable: bool,
    ) -> Dict[str, object]:
        """One more call under the profiler; its copies, in time order, show host round
        trips. Written without a GPU at hand: the reader is tested on event names only."""
        probe = "torch-cuda-profiler"
        if not repeatable:
            return fallback.unseen(probe, "cuda", "a call that changes state is not run again")
        from torch.profiler import ProfilerActivity, profile

        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            self.sync(fn(*args, **kwargs))
        events = sorted(prof.events(), key=lambda e: e.time_range.start)
        return fallback.evidence(
            probe, "cuda", fallback.torch_cuda_host_work(str(e.name) for e in events)
        )

    def look_for(
        self, fn: Callable[..., Any], args: Tuple[Any, ...], kwargs: Dict[str, Any], platform: str
    ) -> Dict[str, Any]:
        """A predicted CUDA cell's look: every operator the call dispatched to a CPU kernel
        must have a CUDA kernel (or a composite one) in this build's dispatcher."""
        if self.prediction is None or self.prediction.method is not PredictionMethod.DISPATCHER:
            return prediction.look_limit("no look for this method")
        has = getattr(self.torch._C, "_dispatch_has_kernel_for_dispatch_key", None)
        if has is None or not has("aten::add.Tensor", "CUDA"):
            return prediction.look_limit(
                f"torch {self.version} declares no CUDA kernels (a CPU-only build); predict "
                "with a CUDA build of torch"
            )
        ops = dispatched_ops(self.torch, fn, args, kwargs)
        if ops is None:
            return prediction.look_limit(
                f"torch {self.version} has no dispatch mode to list the operators a call runs"
            )
        missing = [op for op in ops if not any(has(op, key) for key in _DECLARED_KEYS)]
        if missing:
            return prediction.look_refused(
                NotImplementedError(
                    f"Could not run '{missing[0]}' with arguments from the 'CUDA' backend: "
                    f"no CUDA kernel is declared for {', '.join(missing[:5])}"
                )
            )
        return prediction.look_clean(f"{len(ops)} operators, each with a CUDA kernel declared")

    def to_numpy(self, value: Any) -> Any:
        torch = self.torch
        if not isinstance(value, torch.Tensor):
            import numpy as np

            return np.asarray(value)
        tensor = value.detach().cpu()
        if tensor.dtype == torch.bfloat16:
            tensor = tensor.float()
        if tensor.is_complex():
            tensor = tensor.resolve_conj()
        return tensor.numpy()

    def compiled(self, fn: Callable[..., Any], **options: Any) -> Callable[..., Any]:
        from ..signals import SkipCase

        if not hasattr(self.torch, "compile"):
            raise SkipCase(f"torch.compile does not exist in torch {self.version}")
        return cast(Callable[..., Any], self.torch.compile(fn, **options))

    def null_op(self, x: Any) -> Any:
        return self.torch.neg(x)
