"""TensorFlow's kernel registry and ``tf.raw_ops``: which dtypes each op has a kernel for
on each device type (declared), and, for the ops whose inputs a signature can make, whether
the kernel runs.

Declared: every registered kernel of an op (``kernels.get_all_registered_kernels``) on a
device type (``CPU`` -> ``cpu``, ``GPU`` -> ``cuda``, ``TPU`` -> ``tpu``), its constraint on
the op's type attribute giving the dtypes (no constraint: every type the op's signature
allows). The registry is the installed build's: a CPU-only wheel registers no GPU kernel.

Run (the rule, also in docs/census.md): an op is run when its signature alone can make its
inputs: it is not stateful, it has one to three inputs, every input is a single tensor typed
by the same ``type`` attribute, and every other attribute has a default. Inputs are arrays
of shape (2, 3) in the case's dtype from the case's seed (no ref-typed argument: those ops do not run
eagerly). A ``NotFoundError`` (no kernel for
the dtype) is a failure of the op; any other error says only that generated inputs do not
suit the op (a shape, a value range), so the case is a skip with that reason, never a
failure; a dtype the signature does not allow ("not in the list of allowed values") is a
failure, as a missing kernel is. On an accelerator the result is compared with the CPU's, 1e-3.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Set, Tuple

from ..adapters.base import DTYPE_NAMES
from .entry import EntryRun

__all__ = ["DATABASE", "DTYPES", "describe", "list_operators", "run_entry"]

DATABASE = "tensorflow.python.framework.kernels.get_all_registered_kernels"
#: Every dtype a census tries per entry, declared or not: a dtype that works but is not
#: declared is a finding too.
DTYPES = DTYPE_NAMES
DEVICE_TYPES = {"CPU": "cpu", "GPU": "cuda", "TPU": "tpu"}
COMPARE_CPU_TOL = 1e-3
SHAPE = (2, 3)
NOT_ALLOWED = "is not in the list of allowed values"
_ops: Optional[List[Tuple[str, Any, Dict[str, List[str]]]]] = None


def _type_attr(op_def: Any) -> Optional[str]:
    """The attribute typing the op's inputs, if one ``type`` attribute types them all."""
    names = {arg.type_attr for arg in op_def.input_arg}
    if len(names) != 1 or "" in names:
        return None
    return str(names.pop())


def _runnable(op_def: Any) -> bool:
    attr = _type_attr(op_def)
    if attr is None or op_def.is_stateful or not 1 <= len(op_def.input_arg) <= 3:
        return False
    if not op_def.output_arg:
        return False
    args = list(op_def.input_arg) + list(op_def.output_arg)
    if any(arg.number_attr or arg.type_list_attr or arg.is_ref for arg in args):
        return False
    return all(a.name == attr or a.HasField("default_value") for a in op_def.attr)


def _dtype_name(enum: int) -> str:
    from tensorflow.python.framework import dtypes

    try:
        return str(dtypes.as_dtype(enum).name)
    except Exception:
        return ""


def _registry() -> List[Tuple[str, Any, Dict[str, List[str]]]]:
    """(op name, op def, declared dtypes per device type), sorted by name."""
    global _ops
    if _ops is not None:
        return _ops
    from tensorflow.python.framework import kernels, op_def_registry

    declared: Dict[str, Dict[str, Set[str]]] = {}
    for kernel in kernels.get_all_registered_kernels().kernel:
        device_type = DEVICE_TYPES.get(kernel.device_type)
        op_def = op_def_registry.get(kernel.op)
        attr = _type_attr(op_def) if op_def is not None else None
        if device_type is None or attr is None:
            continue
        allowed = None
        for constraint in kernel.constraint:
            if constraint.name == attr:
                allowed = [_dtype_name(t) for t in constraint.allowed_values.list.type]
        if allowed is None:
            spec = [a for a in op_def.attr if a.name == attr]
            values = spec[0].allowed_values.list.type if spec else []
            allowed = [_dtype_name(t) for t in values] if values else list(DTYPES)
        found = declared.setdefault(kernel.op, {}).setdefault(device_type, set())
        found.update(d for d in allowed if d in DTYPES)
    _ops = [
        (name, op_def_registry.get(name), {k: sorted(v) for k, v in sorted(by_device.items())})
        for name, by_device in sorted(declared.items())
    ]
    return _ops


def describe() -> Dict[str, Any]:
    import tensorflow as tf

    return {"name": DATABASE, "version": tf.__version__, "entries": len(_registry())}


def list_operators() -> List[Dict[str, Any]]:
    import tensorflow as tf

    rows = []
    for index, (name, op_def, declared) in enumerate(_registry()):
        row: Dict[str, Any] = {
            "entry": index,
            "op": name,
            "variant": "",
            "declared": declared,
            "reference": False,
        }
        if not _runnable(op_def) or not hasattr(tf.raw_ops, name):
            # Declared, not run: the signature cannot make this op's inputs.
            row["dtypes"] = []
        rows.append(row)
    return rows


def _inputs(op_def: Any, dtype: str, seed: int) -> Dict[str, Any]:
    import numpy as np

    rng = np.random.default_rng(seed)
    values = {}
    for arg in op_def.input_arg:
        raw = rng.uniform(0.5, 3.0, SHAPE)
        if dtype == "bool":
            values[arg.name] = raw > 1.5
        elif dtype.startswith("complex"):
            values[arg.name] = (raw + 1j * rng.uniform(0.5, 3.0, SHAPE)).astype(dtype)
        elif dtype == "bfloat16":
            values[arg.name] = raw.astype("float32")
        else:
            values[arg.name] = raw.astype(dtype)
    return values


def run_entry(
    ctx: Any, adapter: Any, census: Dict[str, Any], dtype: str, settings: Dict[str, Any]
) -> Tuple[EntryRun, List[str]]:
    import numpy as np
    import tensorflow as tf

    from ..signals import SkipCase, StageFailure

    ops = _registry()
    index = int(census["entry"])
    if not 0 <= index < len(ops) or ops[index][0] != census["op"]:
        from ..signals import CaseBug

        raise CaseBug(f"registry entry {index} is not {census['op']} in this tensorflow")
    name, op_def, _declared = ops[index]
    fn = getattr(tf.raw_ops, name)
    run = EntryRun("none" if adapter.flavor == "cpu" else "cpu")
    run.samples = 1
    arrays = _inputs(op_def, dtype, ctx.seed)
    try:
        with tf.device(adapter.device):
            inputs = {k: tf.cast(tf.constant(v), dtype) for k, v in arrays.items()}
    except Exception as exc:
        run.fail("setup", exc, 0)
        return run, []
    try:
        with tf.device(adapter.device):
            output = ctx.measure(lambda: fn(**inputs), warm=bool(settings.get("timing")))
    except StageFailure as exc:
        # No kernel for the dtype, or a dtype the op's signature does not allow: the op
        # does not run in this dtype here. Anything else is about the generated inputs.
        if isinstance(exc.original, tf.errors.NotFoundError) or NOT_ALLOWED in str(exc.original):
            run.fail(exc.stage, exc.original, 0)
            return run, []
        raise SkipCase(
            f"inputs made from the signature do not suit {name} "
            f"({type(exc.original).__name__}: {str(exc.original)[:160]})"
        ) from None
    run.ran = 1
    if adapter.flavor == "cpu":
        run.unchecked = 1
        return run, []
    try:
        with tf.device("/CPU:0"):
            expected = fn(**{k: tf.identity(v) for k, v in inputs.items()})
        got = tf.nest.flatten(output)
        want = tf.nest.flatten(expected)
        for a, b in zip(got, want):
            np.testing.assert_allclose(
                tf.cast(a, "float64").numpy() if a.dtype == tf.bfloat16 else a.numpy(),
                tf.cast(b, "float64").numpy() if b.dtype == tf.bfloat16 else b.numpy(),
                rtol=COMPARE_CPU_TOL,
                atol=COMPARE_CPU_TOL,
            )
    except Exception as exc:
        run.check_failures = 1
        run.fail("check", exc, 0)
        return run, []
    run.agreed = 1
    return run, []
