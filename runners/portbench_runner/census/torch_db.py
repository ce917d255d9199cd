"""PyTorch's OpInfo database (``op_db``): its entries, and one entry x dtype run on a device.

The database ships in the wheel (``torch.testing._internal``) and imports ``expecttest``;
the census lock adds it. Samples are made on the CPU with the case's seed, so every device
gets the same inputs, then moved to the target device: a move that fails is a ``setup``
failure of the device (a dtype it lacks), not of the database.

Checks: on a CPU cell, against the entry's own reference (OpInfo ``ref``, NumPy-based) where
it has one and the sample converts to NumPy; on an accelerator, against the same sample run
on the CPU in this process, with the tolerance of PyTorch's own ``test_compare_cpu``
(1e-3 absolute and relative). A sample with no usable reference only has to run.
"""

from __future__ import annotations

import itertools
from typing import Any, Callable, Dict, List, Optional, Tuple

from ..adapters.base import DTYPE_NAMES
from .entry import EntryRun

__all__ = ["DATABASE", "DTYPES", "describe", "list_operators", "run_entry"]

DATABASE = "torch.testing._internal.common_methods_invocations.op_db"
#: Every dtype a census tries per entry, declared or not: a dtype that works but is not
#: declared is a finding too.
DTYPES = DTYPE_NAMES
#: Device types whose declared dtypes every listing records (OpInfo declares CPU and CUDA).
DEVICE_TYPES = ("cpu", "cuda")
#: Tolerances (rtol, atol) against a float64 reference for half-precision results: those
#: of torch.testing for the dtype (otherwise the comparison would take the reference's).
REFERENCE_TOL: Dict[str, Tuple[Optional[float], Optional[float]]] = {
    "float16": (1e-3, 1e-5),
    "bfloat16": (1.6e-2, 1e-5),
}
#: PyTorch's test_compare_cpu tolerance for device-versus-CPU results.
COMPARE_CPU_TOL = 1e-3
#: The test of PyTorch's own suite whose expectations (skips, expected failures) apply to
#: each check, as (class, test) for DecorateInfo.is_active.
CHECK_TESTS = {
    "reference": ("TestCommon", "test_numpy_ref"),
    "cpu": ("TestCommon", "test_compare_cpu"),
}


def _op_db() -> List[Any]:
    from torch.testing._internal.common_methods_invocations import op_db

    return list(op_db)


def load() -> None:
    """Import op_db once, before the first case (a missing expecttest is an error then)."""
    _op_db()


def describe() -> Dict[str, Any]:
    """Which database this is, in which version."""
    import torch

    return {"name": DATABASE, "version": torch.__version__, "entries": len(_op_db())}


def _dtype_names(dtypes: Any) -> List[str]:
    names = {str(d).replace("torch.", "") for d in dtypes}
    return sorted(name for name in names if name in DTYPES)


def _has_reference(op: Any) -> bool:
    ref = getattr(op, "ref", None)
    # Some versions mark "no reference" with a sentinel object instead of None.
    return callable(ref)


def _declared(op: Any) -> Dict[str, List[str]]:
    """Declared dtypes per device type: CPU and CUDA always (CUDA falls back to the CPU's
    where the entry names none), and every other device type the entry names (``mps``,
    ``xpu``, ``hpu``, ``rocm``: the ``dtypesIf`` table of newer versions)."""
    declared = {dt: _dtype_names(op.supported_dtypes(dt)) for dt in DEVICE_TYPES}
    for device_type, dtypes in (getattr(op, "dtypesIf", None) or {}).items():
        if device_type not in declared and dtypes is not None:
            declared[str(device_type)] = _dtype_names(dtypes)
    return declared


def list_operators() -> List[Dict[str, Any]]:
    """One row per entry of op_db, in database order."""
    rows = []
    for index, op in enumerate(_op_db()):
        rows.append(
            {
                "entry": index,
                "op": str(op.name),
                "variant": str(op.variant_test_name or ""),
                "declared": _declared(op),
                "reference": _has_reference(op),
            }
        )
    return rows


def _entry(index: int, op_name: str, variant: str) -> Any:
    ops = _op_db()
    op = ops[index] if 0 <= index < len(ops) else None
    if op is None or op.name != op_name or (op.variant_test_name or "") != variant:
        from ..signals import CaseBug

        raise CaseBug(
            f"op_db entry {index} is not {op_name!r}/{variant!r} in this torch: the plan was "
            "listed by another version; list the census again"
        )
    return op


def _expectations(op: Any, device_type: str, dtype: Any, check: str) -> List[str]:
    """The database's own skips and expected failures for this check, device and dtype."""
    test = CHECK_TESTS.get(check)
    if test is None:
        return []
    found = []
    for info in list(getattr(op, "decorators", ()) or ()) + list(getattr(op, "skips", ()) or ()):
        try:
            active = info.is_active(test[0], test[1], device_type, dtype, {})
        except TypeError:  # before param_kwargs (torch < 2.0)
            active = info.is_active(test[0], test[1], device_type, dtype)
        except Exception:
            active = False
        if not active:
            continue
        for decorator in getattr(info, "decorators", ()) or ():
            name = getattr(decorator, "__qualname__", None) or type(decorator).__name__
            found.append(str(name)[:80])
    return found[:10]


def _holds(sample: Any, dtype: Any) -> bool:
    """Whether a tensor of ``dtype`` is among the sample's input, args and kwargs."""
    import torch

    found = []

    def look(value: Any) -> Any:
        if isinstance(value, torch.Tensor) and value.dtype == dtype:
            found.append(True)
        return value

    sample.transform(look)
    return bool(found)


def _call(op: Any, sample: Any) -> Any:
    return op(sample.input, *sample.args, **sample.kwargs)


def _to_device(sample: Any, device: Any) -> Any:
    import torch

    def move(value: Any) -> Any:
        return value.to(device) if isinstance(value, torch.Tensor) else value

    return sample.transform(move)


_comparer: Any = None


def _compare(actual: Any, expected: Any, rtol: Optional[float], atol: Optional[float]) -> None:
    global _comparer
    if _comparer is None:
        from torch.testing._internal.common_utils import TestCase

        _comparer = TestCase()
    # PyTorch's own comparison: per-dtype tolerances, NumPy results accepted, nested
    # outputs walked; the reference may differ in dtype (NumPy computes in float64).
    _comparer.assertEqual(
        actual, expected, exact_dtype=False, exact_device=False, rtol=rtol, atol=atol
    )


def _has_half(value: Any) -> bool:
    if isinstance(value, (list, tuple)):
        return any(_has_half(v) for v in value)
    return str(getattr(value, "dtype", "")) == "float16"


def _reference_tolerance(dtype_name: str, expected: Any) -> Tuple[Optional[float], Optional[float]]:
    """The case dtype's tolerance; else float16's where NumPy computed the reference in
    float16 (it promotes int8, uint8 and bool inputs of acos, cos... to float16, PyTorch to
    float32): a reference is not held to more precision than it has."""
    tolerance = REFERENCE_TOL.get(dtype_name)
    if tolerance is None and _has_half(expected):
        tolerance = REFERENCE_TOL["float16"]
    return tolerance or (None, None)


def _reference(op: Any, sample: Any) -> Callable[[], Any]:
    import torch

    def widen(value: Any) -> Any:
        if isinstance(value, torch.Tensor) and value.dtype in (torch.float16, torch.bfloat16):
            return value.double()
        return value

    # Half-precision inputs go to the reference in float64, as PyTorch's own reference
    # tests compute in higher precision: NumPy has no bfloat16, and a float16 NumPy sum
    # accumulates differently from PyTorch's; the comparison keeps the half tolerance.
    numpy_sample = sample.transform(widen).numpy()
    return lambda: op.ref(numpy_sample.input, *numpy_sample.args, **numpy_sample.kwargs)


def run_entry(
    ctx: Any,
    adapter: Any,
    census: Dict[str, Any],
    dtype_name: str,
    settings: Dict[str, Any],
) -> Tuple[EntryRun, List[str]]:
    """Run every sample (up to ``settings['max_samples']``) of one entry in one dtype.

    Returns what happened and the database's expectations for the check. Raises
    ``SkipCase`` when the database makes no sample for this dtype (a gap of the database,
    not of the device).
    """
    import torch

    from ..signals import SkipCase, StageFailure

    op = _entry(int(census["entry"]), str(census["op"]), str(census["variant"]))
    dtype = getattr(torch, dtype_name)
    on_cpu = adapter.flavor == "cpu"
    check = ("reference" if _has_reference(op) else "none") if on_cpu else "cpu"
    expectations = _expectations(op, adapter.device.type, dtype, check)
    limit = int(settings.get("max_samples") or 0) or None
    torch.manual_seed(ctx.seed)
    try:
        samples = list(itertools.islice(op.sample_inputs("cpu", dtype, requires_grad=False), limit))
    except Exception as exc:
        raise SkipCase(
            f"OpInfo makes no {dtype_name} sample for this entry "
            f"({type(exc).__name__}: {str(exc)[:200]})"
        ) from None
    if not samples:
        raise SkipCase(f"OpInfo makes no {dtype_name} sample for this entry")
    if not any(_holds(sample, dtype) for sample in samples):
        # Some generators ignore the dtype asked for (broadcast_shapes takes shapes,
        # _scaled_mm makes float8): such samples say nothing of this dtype.
        raise SkipCase(f"OpInfo's {dtype_name} samples for this entry hold no {dtype_name} tensor")
    run = EntryRun(check)
    run.samples = len(samples)
    for index, cpu_sample in enumerate(samples):
        ctx.stage = "setup"
        try:
            sample = cpu_sample if on_cpu else _to_device(cpu_sample, adapter.device)
        except Exception as exc:
            run.fail("setup", exc, index)
            continue
        try:
            if index == 0:
                # The first sample is the timed one (cold, then warm unless timing is off).
                output = ctx.measure(_call, op, sample, warm=bool(settings.get("timing")))
            else:
                ctx.stage = "call"
                output = _call(op, sample)
                problems = adapter.placement_problems(output)
                if problems:
                    from ..signals import FallbackDetected

                    raise FallbackDetected("; ".join(problems[:3]))
        except StageFailure as exc:
            run.fail(exc.stage, exc.original, index)
            continue
        except Exception as exc:
            run.fail("call", exc, index)
            continue
        run.ran += 1
        ctx.stage = "check"
        if check == "none":
            run.unchecked += 1
            continue
        try:
            if check == "reference":
                expected = _reference(op, cpu_sample)()
                tolerance = _reference_tolerance(dtype_name, expected)
            else:
                expected = _call(op, cpu_sample)
                tolerance = (COMPARE_CPU_TOL, COMPARE_CPU_TOL)
        except Exception:
            # NumPy has no bfloat16, and references take what NumPy takes: a sample the
            # reference cannot compute is unchecked, never counted against the operator.
            run.unchecked += 1
            continue
        try:
            if check == "cpu":
                # As test_compare_cpu: both outputs through the sample's own post-processing.
                output = sample.output_process_fn_grad(output)
                expected = cpu_sample.output_process_fn_grad(expected)
            _compare(output, expected, *tolerance)
        except Exception as exc:
            run.check_failures += 1
            run.fail("check", exc, index)
            continue
        run.agreed += 1
    return run, expectations
