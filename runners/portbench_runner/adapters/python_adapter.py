"""A framework-free adapter: plain Python values on the CPU.

It exists so the engine itself (timeouts, crashes, resume, overhead) can be tested and
benchmarked without importing a multi-second framework in every worker.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Optional

from .base import Adapter, DeviceMissing

__all__ = ["PythonAdapter"]


class PythonAdapter(Adapter):
    name = "python"

    def load(self) -> None:
        import platform

        if self.flavor != "cpu":
            raise DeviceMissing(f"the python adapter runs on the cpu only, not {self.flavor!r}")
        self.version = platform.python_version()
        self.device = "cpu"
        self.device_name = "cpu"

    def env(self) -> Dict[str, object]:
        return {
            "framework_version": self.version,
            "device": "cpu",
            "device_name": "cpu",
            "device_count": 1,
            "precision": {},
        }

    def put(self, value: Any, dtype: Optional[str] = None, requires_grad: bool = False) -> Any:
        return value

    def is_tensor(self, value: Any) -> bool:
        return False

    def sync(self, value: Any) -> None:
        return None

    def leaf_device(self, leaf: Any) -> Optional[str]:
        return None

    def to_numpy(self, value: Any) -> Any:
        return value

    def compiled(self, fn: Callable[..., Any], **options: Any) -> Callable[..., Any]:
        return fn

    def null_inputs(self) -> Any:
        return 1.0

    def null_op(self, x: Any) -> Any:
        return -x
