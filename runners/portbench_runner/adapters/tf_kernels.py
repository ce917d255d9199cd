"""What a predicted TensorFlow cell reads of ops and kernels (the adapter's look): the type
attributes of executed ops, the GPU kernels TensorFlow declares for them, and which XLA
refusals say nothing of a TPU. Standard library only; the framework is passed in."""

from __future__ import annotations

import re
from typing import Any, Dict, List, Optional

__all__ = [
    "NOT_KERNELS",
    "eager_type_attrs",
    "gpu_kernel_missing",
    "library_nodes",
    "node_type_attrs",
    "xla_look_limit",
]

#: Graph nodes that are no kernels of their own (function arguments and results, sends and
#: receives between partitions) or that run on the host by design.
NOT_KERNELS = (
    "_Arg",
    "_Retval",
    "_DeviceArg",
    "_DeviceRetval",
    "_Send",
    "_Recv",
    "_HostSend",
    "_HostRecv",
    "NoOp",
)
#: Kernels registered for DEVICE_DEFAULT serve every device, GPUs included.
_GPU_DEVICE_TYPES = ("GPU", "DEFAULT")


def eager_type_attrs(attrs: Any) -> Dict[str, List[int]]:
    """An eager op callback's attrs (name, value, name, value...) -> its type attrs."""
    found: Dict[str, List[int]] = {}
    items = list(attrs or ())
    for name, value in zip(items[::2], items[1::2]):
        dtype = getattr(value, "as_datatype_enum", None)
        if dtype is not None:
            found[str(name)] = [int(dtype)]
        elif (
            isinstance(value, (list, tuple))
            and value
            and all(hasattr(v, "as_datatype_enum") for v in value)
        ):
            found[str(name)] = [int(v.as_datatype_enum) for v in value]
        elif isinstance(value, int) and str(name) in ("T", "Tidx", "Tindices", "dtype", "out_type"):
            found[str(name)] = [int(value)]
    return found


def node_type_attrs(node: Any) -> Dict[str, List[int]]:
    """A graph node's type attrs."""
    found: Dict[str, List[int]] = {}
    for name, value in node.attr.items():
        if value.WhichOneof("value") == "type":
            found[name] = [int(value.type)]
        elif value.WhichOneof("value") == "list" and value.list.type:
            found[name] = [int(t) for t in value.list.type]
    return found


def library_nodes(library: Any, functions: List[str]) -> List[Any]:
    """The graph nodes of ``functions`` as ``library`` (the eager context: ``has_function``,
    ``get_function_def``) holds them, with the functions they call (call ops, control-flow
    bodies), each function once. An XLA-compiled function's own ops are left out: XLA
    compiles them, no kernel runs them."""
    nodes: List[Any] = []
    pending = list(functions)
    done = set()
    while pending:
        name = pending.pop(0)
        if name in done or not library.has_function(name):
            continue
        done.add(name)
        definition = library.get_function_def(name)
        if "_XlaMustCompile" in definition.attr and definition.attr["_XlaMustCompile"].b:
            continue
        for node in definition.node_def:
            nodes.append(node)
            pending.append(node.op)  # a call of a function by its own name
            for value in node.attr.values():
                if value.WhichOneof("value") == "func":
                    pending.append(value.func.name)
                elif value.WhichOneof("value") == "list":
                    pending.extend(function.name for function in value.list.func)
    return nodes


_XLA_REFUSED = re.compile(r"No registered '(\w+)' OpKernel for XLA_\w+_JIT")
#: What compiling the whole call as one XLA function refuses that says nothing of a TPU: its
#: results or arguments are no XLA values (strings, resources), or it creates variables.
_XLA_HARNESS_OPS = {"_Retval", "_Arg"}
_XLA_HARNESS_TEXT = re.compile(r"failed to lift variable creations")


def xla_look_limit(message: str) -> Optional[str]:
    """Why an XLA compilation error of the whole call is a limit of the look, or None when
    it is XLA refusing an op of the call (what a TPU would refuse too)."""
    if _XLA_HARNESS_TEXT.search(message):
        return "the call creates variables, which one XLA function cannot hold"
    refused = set(_XLA_REFUSED.findall(message))
    if refused and refused <= _XLA_HARNESS_OPS:
        return "the call's results or arguments are no XLA values (strings, resources)"
    return None


def gpu_kernel_missing(
    tf: Any, kernels: Any, op: str, attrs: Dict[str, List[int]]
) -> Optional[str]:
    """Why ``op`` with these type attrs has no GPU kernel declared, or None if it has one."""
    gpu = [
        k
        for k in kernels.get_registered_kernels_for_op(op).kernel
        if k.device_type in _GPU_DEVICE_TYPES
    ]
    if not gpu:
        return f"{op} (no GPU kernel at all)"
    for kernel in gpu:
        if kernel.label:
            continue
        fits = True
        for constraint in kernel.constraint:
            allowed = set(constraint.allowed_values.list.type)
            given = attrs.get(constraint.name)
            if given is not None and not set(given) <= allowed:
                fits = False
                break
        if fits:
            return None
    named = ", ".join(
        f"{k}={'/'.join(tf.dtypes.as_dtype(t).name for t in v)}" for k, v in sorted(attrs.items())
    )
    return f"{op} ({named or 'these types'})"
