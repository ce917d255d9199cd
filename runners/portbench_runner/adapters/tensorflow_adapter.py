"""TensorFlow: tf.device scopes with soft placement off, .numpy() on every output leaf."""

from __future__ import annotations

import contextlib
import os
import re
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple, cast

from .. import fallback, prediction
from .base import Adapter, DeviceMissing
from .tf_kernels import (
    NOT_KERNELS,
    eager_type_attrs,
    gpu_kernel_missing,
    library_nodes,
    node_type_attrs,
    xla_look_limit,
)

__all__ = ["TensorFlowAdapter"]

_DEVICE_RE = re.compile(r"device:([A-Za-z_]+):(\d+)", re.IGNORECASE)
#: ROCm builds of TensorFlow (tensorflow-rocm) name AMD GPUs ``GPU`` too.
_TF_KIND = {"cpu": "CPU", "cuda": "GPU", "rocm": "GPU", "tpu": "TPU"}


class TensorFlowAdapter(Adapter):
    name = "tensorflow"

    def load(self) -> None:
        import tensorflow as tf

        self.tf = tf
        self.version = tf.__version__
        kind = _TF_KIND.get(self.flavor)
        if kind is None:
            raise DeviceMissing(
                f"portbench runs tensorflow on {', '.join(_TF_KIND)}, not {self.flavor!r} (no "
                f"TensorFlow plugin for {self.flavor} is pinned)"
            )
        if self.flavor == "rocm" and not tf.test.is_built_with_rocm():
            raise DeviceMissing(
                f"tensorflow {self.version} is not a ROCm build; the rocm cell needs tensorflow-rocm"
            )
        if self.flavor == "tpu":
            resolver = tf.distribute.cluster_resolver.TPUClusterResolver(tpu="local")
            tf.config.experimental_connect_to_cluster(resolver)
            tf.tpu.experimental.initialize_tpu_system(resolver)
        physical = tf.config.list_physical_devices(kind)
        if not physical:
            raise DeviceMissing(
                f"tensorflow {self.version} sees no {kind} device "
                f"(built with CUDA: {tf.test.is_built_with_cuda()})"
            )
        self.device = f"/device:{kind}:0"
        if self.flavor in ("cuda", "rocm"):
            details = tf.config.experimental.get_device_details(physical[0])
            self.device_name = details.get("device_name", "GPU")
        elif self.flavor == "tpu":
            self.device_name = "TPU " + os.environ.get("TPU_ACCELERATOR_TYPE", "")
        else:
            self.device_name = "cpu"
        self.check_device_name(self.device_name)

    def env(self) -> Dict[str, object]:
        tf = self.tf
        build = dict(tf.sysconfig.get_build_info())
        kind = _TF_KIND[self.flavor]
        return {
            "framework_version": self.version,
            "device": self.device,
            "device_name": self.device_name,
            "device_count": len(tf.config.list_physical_devices(kind)),
            "cuda_runtime": build.get("cuda_version"),
            "cudnn_version": build.get("cudnn_version"),
            "rocm_version": build.get("rocm_version"),
            "threads": {
                "intra_op": tf.config.threading.get_intra_op_parallelism_threads(),
                "inter_op": tf.config.threading.get_inter_op_parallelism_threads(),
            },
            "precision": {
                "tensor_float_32_execution": tf.config.experimental.tensor_float_32_execution_enabled(),
                "TF_XLA_FLAGS": os.environ.get("TF_XLA_FLAGS"),
                "XLA_FLAGS": os.environ.get("XLA_FLAGS"),
            },
        }

    @contextlib.contextmanager
    def case_scope(self) -> Iterator[None]:
        tf = self.tf
        previous = tf.config.get_soft_device_placement()
        # Off unless the plan asks (the study's soft-placement experiment); when on, the
        # placement probe records where the ops went instead.
        tf.config.set_soft_device_placement(bool(self.fallback_settings.get("soft_placement")))
        try:
            with tf.device(self.device):
                yield
        finally:
            # Restored even when the case raised, so no state leaks into the next case.
            tf.config.set_soft_device_placement(previous)

    def put(self, value: Any, dtype: Optional[str] = None, requires_grad: bool = False) -> Any:
        tf = self.tf
        with tf.device(self.device):
            tensor = value if isinstance(value, tf.Tensor) else tf.constant(value)
            if dtype is not None:
                tensor = tf.cast(tensor, getattr(tf, dtype))
            # identity places a copy on the target device even if the constant was cached.
            tensor = tf.identity(tensor)
            if requires_grad:
                tensor = tf.Variable(tensor)
        return tensor

    def leaves(self, value: Any) -> List[Any]:
        return cast(List[Any], self.tf.nest.flatten(value, expand_composites=True))

    def is_tensor(self, value: Any) -> bool:
        return isinstance(value, (self.tf.Tensor, self.tf.Variable))

    def sync(self, value: Any) -> None:
        # .numpy() on every leaf, nested and composite ones included: it blocks until
        # that value exists on the host. Graph tensors (no .numpy) have nothing to wait for.
        for leaf in self.leaves(value):
            to_host = getattr(leaf, "numpy", None)
            if callable(to_host):
                to_host()

    def leaf_device(self, leaf: Any) -> Optional[str]:
        where = getattr(leaf, "device", "") or ""
        match = _DEVICE_RE.search(where)
        if match is None:
            return None
        expected = _TF_KIND[self.flavor]
        if match.group(1).upper() != expected:
            return f"tensor on {where}, not {self.device}"
        return None

    def target_kind(self) -> str:
        """``GPU``, ``TPU`` or ``CPU``: the device type the cell's ops should run on."""
        match = _DEVICE_RE.search(str(self.device))
        return match.group(1).upper() if match else _TF_KIND[self.flavor]

    def evidence(
        self,
        fn: Callable[..., Any],
        args: Tuple[Any, ...],
        kwargs: Dict[str, object],
        before: Any,
        repeatable: bool,
    ) -> Optional[Dict[str, object]]:
        kind = self.target_kind()
        if kind == "CPU":
            return None  # the target is the host: there is nowhere to fall back to
        probe = "tf-placement"
        if not repeatable:
            return fallback.unseen(probe, kind, "a call that changes state is not run again")
        executed, unexported = self.executed_ops(fn, args, kwargs)
        if unexported:
            # Only a function's placed graph says where its ops ran; its definition does not.
            return fallback.unseen(
                probe,
                kind,
                f"TensorFlow exported no placed graph of {unexported[0][:80]} on this call "
                "(it does so only when it instantiates a function)",
            )
        return fallback.evidence(
            probe,
            kind,
            fallback.tf_host_work(executed, kind),
            extra={
                "ops_seen": len(executed),
                "soft_placement": bool(self.fallback_settings.get("soft_placement")),
            },
        )

    def _run_watched(
        self,
        fn: Callable[..., Any],
        args: Tuple[Any, ...],
        kwargs: Dict[str, Any],
        on_eager_op: Callable[[Any, Any, Any], None],
    ) -> Tuple[List[Any], List[str]]:
        """Call ``fn`` once more: ``on_eager_op(op_type, attrs, outputs)`` for each eager op
        it executes (an op callback); returns the nodes of the tf.function graphs it ran
        (the run metadata's partitions) and the tf.functions it called whose graphs did not
        come back.

        TensorFlow exports a function's partition graphs only when it instantiates the
        function, which a warm call does not (the first look of a process sees none either):
        those functions are named, for the caller to read from the function library or to
        say it could not see."""
        from tensorflow.python.eager import context
        from tensorflow.python.framework import op_callbacks

        eager = context.context()
        called: List[str] = []

        def seen(
            op_type: Any,
            inputs: Any,
            attrs: Any,
            outputs: Any,
            op_name: Any = None,
            graph: Any = None,
        ) -> None:
            if graph is None:  # an executed eager op, not one added to a graph being traced
                if eager.has_function(str(op_type)):
                    called.append(str(op_type))
                on_eager_op(op_type, attrs, outputs)

        op_callbacks.add_op_callback(seen)
        eager.enable_run_metadata()
        try:
            self.sync(fn(*args, **kwargs))
        finally:
            op_callbacks.remove_op_callback(seen)
            metadata = eager.export_run_metadata()
            eager.disable_run_metadata()
        nodes = [
            node
            for function in metadata.function_graphs
            for partition in function.partition_graphs
            for node in partition.node
        ]
        return nodes, ([] if metadata.function_graphs else called)

    def executed_ops(
        self, fn: Callable[..., Any], args: Tuple[Any, ...], kwargs: Dict[str, object]
    ) -> Tuple[List[Tuple[str, str]], List[str]]:
        """(op, device) of every op one more call of ``fn`` executes: eager ops through an
        op callback, ops inside tf.function graphs from the run metadata's partitions; and
        the tf.functions it ran whose placed graphs TensorFlow did not export this time.

        The placement log (``set_log_device_placement``) would say the same, but it only
        takes effect before the first op of the process and then logs every call."""
        executed: List[Tuple[str, str]] = []

        def eager_op(op_type: Any, attrs: Any, outputs: Any) -> None:
            for output in outputs or ():
                executed.append((str(op_type), str(getattr(output, "device", "") or "")))

        nodes, unexported = self._run_watched(fn, args, kwargs, eager_op)
        executed.extend(
            (node.op, node.device) for node in nodes if node.op not in ("_Arg", "_Retval")
        )
        return executed, unexported

    def look_for(
        self, fn: Callable[..., Any], args: Tuple[Any, ...], kwargs: Dict[str, Any], platform: str
    ) -> Dict[str, Any]:
        """A predicted cell's look: for a GPU, every op one more call runs must have a GPU
        kernel declared for its dtypes; for a TPU, the call must compile with XLA (on the
        CPU: a TPU runs TensorFlow's compute ops through XLA)."""
        if platform == "cuda":
            return self.declared_look(fn, args, kwargs)
        return self.xla_look(fn, args, kwargs)

    def declared_look(
        self, fn: Callable[..., Any], args: Tuple[Any, ...], kwargs: Dict[str, Any]
    ) -> Dict[str, Any]:
        from tensorflow.python.framework import kernels

        if not kernels.get_registered_kernels_for_op("MatMul").kernel or not any(
            k.device_type == "GPU" for k in kernels.get_registered_kernels_for_op("MatMul").kernel
        ):
            return prediction.look_limit(
                f"this TensorFlow {self.version} build declares no GPU kernels "
                "(tensorflow-cpu); predict in the profile's tensorflow-predict environment"
            )
        missing = []
        ops = self.executed_op_types(fn, args, kwargs)
        if not ops:
            # Graph-mode sessions and pure-Python calls run no op the callbacks see.
            return prediction.look_limit("no op of the call was seen executing")
        for op, attrs in ops:
            why = gpu_kernel_missing(self.tf, kernels, op, attrs)
            if why is not None:
                missing.append(why)
        if missing:
            # Worded as TensorFlow words the two refusals, so the framework's rules class
            # them as they class an observed one: no kernel at all, or none for the types.
            errors = self.tf.errors
            if any(why.endswith("(no GPU kernel at all)") for why in missing):
                exc: Exception = errors.UnimplementedError(
                    None,
                    None,
                    "UNIMPLEMENTED on GPU, no kernel declared: " + "; ".join(missing[:4]),
                )
            else:
                exc = errors.NotFoundError(
                    None,
                    None,
                    f"No registered '{missing[0].split(' ')[0]}' OpKernel for 'GPU' devices "
                    f"compatible with node (declared kernels): {'; '.join(missing[:4])}",
                )
            return prediction.look_refused(exc)
        return prediction.look_clean(f"{len(ops)} ops, each with a GPU kernel declared")

    def xla_look(
        self, fn: Callable[..., Any], args: Tuple[Any, ...], kwargs: Dict[str, Any]
    ) -> Dict[str, Any]:
        tf = self.tf
        try:
            compiled = tf.function(fn, jit_compile=True)
            with tf.device("/CPU:0"):
                self.sync(compiled(*args, **kwargs))
        except tf.errors.OpError as exc:
            limit = xla_look_limit(str(exc))
            return prediction.look_limit(limit) if limit else prediction.look_refused(exc)
        except Exception as exc:
            # Tracing refused the Python function itself (state, non-tensor results):
            # that says nothing of the TPU.
            return prediction.look_limit(
                f"the call cannot be compiled as one XLA function here "
                f"({type(exc).__name__}: {str(exc)[:160]})"
            )
        return prediction.look_clean("compiles and runs with XLA on the CPU")

    def executed_op_types(
        self, fn: Callable[..., Any], args: Tuple[Any, ...], kwargs: Dict[str, Any]
    ) -> List[Tuple[str, Dict[str, List[int]]]]:
        """(op, {type attr: [DataType enum, ...]}) of each op one more call of ``fn`` runs:
        eager ops through an op callback, ops inside tf.function graphs from the run
        metadata's partitions. Ops of XLA clusters are left out (XLA compiles them)."""
        found: List[Tuple[str, Dict[str, List[int]]]] = []

        def eager_op(op_type: Any, attrs: Any, outputs: Any) -> None:
            found.append((str(op_type), eager_type_attrs(attrs)))

        nodes, unexported = self._run_watched(fn, args, kwargs, eager_op)
        # Warm functions: their ops and types from the function library (the graph as
        # traced, before the CPU optimizer's rewrites, which is what a GPU would be given).
        from tensorflow.python.eager import context

        nodes.extend(library_nodes(context.context(), unexported))
        found.extend((node.op, node_type_attrs(node)) for node in nodes)
        from tensorflow.python.framework import op_def_registry

        # A call of a tf.function shows as an op named after the function (no op of the
        # registry): its own ops are in the partition graphs.
        # Ops named with a leading underscore are the CPU graph optimizer's own rewrites
        # (oneDNN's _MklNative*, the remapper's _UnaryOpsComposition): on a GPU the
        # optimizer leaves the original op, which this machine never saw, so they are
        # left out rather than refused.
        return [
            (op, attrs)
            for op, attrs in found
            if op not in NOT_KERNELS
            and not op.startswith(("_", "Xla"))
            and op_def_registry.get(op) is not None
        ]

    def to_numpy(self, value: Any) -> Any:
        import numpy as np

        tf = self.tf
        if isinstance(value, (tf.Tensor, tf.Variable)):
            if value.dtype == tf.bfloat16:
                value = tf.cast(value, tf.float32)
            return np.asarray(value.numpy())
        if isinstance(value, tf.RaggedTensor):
            return value.to_list()
        return np.asarray(value)

    def compiled(self, fn: Callable[..., Any], **options: Any) -> Callable[..., Any]:
        options.setdefault("jit_compile", True)
        return cast(Callable[..., Any], self.tf.function(fn, **options))

    def graph(self, fn: Callable[..., Any], **options: Any) -> Callable[..., Any]:
        """``tf.function`` without XLA: the graph executor."""
        return cast(Callable[..., Any], self.tf.function(fn, **options))

    def null_op(self, x: Any) -> Any:
        return self.tf.negative(x)
