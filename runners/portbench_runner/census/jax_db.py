"""JAX's primitive harnesses: the use cases jax2tf's limitation tables are generated from.

Newer jax ships them as ``jax._src.internal_test_util.test_harnesses``; jax 0.4.x as
``jax.experimental.jax2tf.tests.primitive_harness``. Both import ``absl`` (the census lock
adds it). Each harness is one primitive (its group), one use case (its name) and one dtype,
with ``jax_unimplemented`` limitations per device type: what the database declares.

A harness carries no reference values, so on the CPU a case has to run (jitted, on the
device) and its outcome is set beside the limitations; on an accelerator the result is
compared with the same harness run on the CPU in this process.
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, Tuple

from .entry import EntryRun

__all__ = ["DATABASE", "describe", "dtypes", "list_operators", "run_entry"]

MODULES = (
    "jax._src.internal_test_util.test_harnesses",
    "jax.experimental.jax2tf.tests.primitive_harness",
)
DATABASE = MODULES[0]
#: Census device types and JAX's names for them in limitations (ROCm is "gpu" there too).
DEVICES = {"cpu": "cpu", "cuda": "gpu", "rocm": "gpu", "tpu": "tpu"}
COMPARE_CPU_TOL = 1e-3
_module: Any = None


def _harnesses() -> Tuple[str, List[Any]]:
    global _module
    if _module is None:
        import importlib

        import jax

        # Harnesses are defined at import for the dtypes JAX enables: the worker runs with
        # x64 on (the adapter's setting), so the listing must see the same harness list.
        jax.config.update("jax_enable_x64", True)

        failures: List[ImportError] = []
        for name in MODULES:
            try:
                if name == MODULES[1]:
                    _without_converter()
                _module = importlib.import_module(name)
                break
            except ImportError as exc:
                failures.append(exc)
        else:
            if all(_absent(exc, name) for exc, name in zip(failures, MODULES)):
                # Not a missing test-only package the census lock could add: this jax's
                # wheel holds no harness module at all, so there is nothing to census.
                raise ValueError(
                    f"jax {jax.__version__} ships no primitive harnesses (neither "
                    f"{' nor '.join(MODULES)} is in its package): there is no database to "
                    "census in this version"
                )
            raise failures[-1]
    return _module.__name__, list(_module.all_harnesses)


def _without_converter() -> None:
    """Let jax 0.4.x's ``jax2tf.tests.primitive_harness`` import without its parent package.

    The harness module needs only jax, numpy and absl, but ``jax.experimental.jax2tf``'s
    ``__init__`` imports the converter, which imports TensorFlow: a jax cell has none, and
    the census needs no converter. The two parent packages are registered as plain
    namespace modules over their folders (when the real ones are not imported already and
    the harness file is there), so the import runs the harness module alone."""
    import os
    import sys
    import types

    import jax.experimental

    parent = "jax.experimental.jax2tf"
    if parent in sys.modules:
        return
    folders = [os.path.join(p, "jax2tf") for p in jax.experimental.__path__]
    folder = next(
        (f for f in folders if os.path.isfile(os.path.join(f, "tests", "primitive_harness.py"))),
        None,
    )
    if folder is None:
        return
    for name, path in ((parent, folder), (f"{parent}.tests", os.path.join(folder, "tests"))):
        module = types.ModuleType(name)
        module.__path__ = [path]
        sys.modules[name] = module


def _absent(exc: ImportError, module: str) -> bool:
    """Whether ``exc`` says ``module`` itself (or a package above it) is not there, rather
    than something it imports."""
    missing = getattr(exc, "name", None)
    return (
        isinstance(exc, ModuleNotFoundError)
        and bool(missing)
        and (module == missing or module.startswith(f"{missing}."))
    )


def load() -> None:
    """Import the harnesses (the worker calls this outside a case's device scope)."""
    _harnesses()


def _dtype_name(dtype: Any) -> str:
    import numpy as np

    return str(np.dtype(dtype).name)


def _declared(harness: Any) -> Dict[str, List[str]]:
    dtype = _dtype_name(harness.dtype)
    declared = {}
    for device_type, jax_name in DEVICES.items():
        limited = any(
            jax_name in limit.devices and limit.filter(device=jax_name, dtype=harness.dtype)
            for limit in harness.jax_unimplemented
        )
        declared[device_type] = [] if limited else [dtype]
    return declared


def describe() -> Dict[str, Any]:
    import jax

    name, harnesses = _harnesses()
    return {"name": f"{name}.all_harnesses", "version": jax.__version__, "entries": len(harnesses)}


def dtypes() -> List[str]:
    return sorted({_dtype_name(h.dtype) for h in _harnesses()[1]})


_variant_names: List[str] = []
_by_name: Dict[Tuple[str, str], Any] = {}


def _variants(harnesses: List[Any]) -> List[str]:
    """Each harness's name as a case id part: characters other than letters, digits, '_',
    '.', '-' made '_' (names hold ':' from slices), and made unique within their group."""
    if len(_variant_names) == len(harnesses):
        return _variant_names
    seen: Dict[Tuple[str, str], int] = {}
    names = _variant_names
    del names[:]
    for harness in harnesses:
        name = re.sub(r"[^A-Za-z0-9_.\-]", "_", str(harness.name))[:160]
        # The n-th harness of a repeated name gets '_n': its name, not its place in the
        # list, identifies it (the list's order is not the same in every process).
        count = seen.get((harness.group_name, name), 0) + 1
        seen[(harness.group_name, name)] = count
        names.append(name if count == 1 else f"{name}_{count}")
    return names


def list_operators() -> List[Dict[str, Any]]:
    rows = []
    harnesses = _harnesses()[1]
    for index, (harness, variant) in enumerate(zip(harnesses, _variants(harnesses))):
        rows.append(
            {
                "entry": index,
                "op": str(harness.group_name),
                "variant": variant,
                "declared": _declared(harness),
                "reference": False,
                "dtypes": [_dtype_name(harness.dtype)],
            }
        )
    return rows


def _entry(census: Dict[str, Any]) -> Any:
    harnesses = _harnesses()[1]
    by_name = {(h.group_name, name): h for h, name in zip(harnesses, _variants(harnesses))}
    harness = by_name.get((census["op"], census["variant"]))
    if harness is None:
        from ..signals import CaseBug

        raise CaseBug(
            f"no harness {census['op']}/{census['variant']} in this jax: the plan was listed "
            "by another version or configuration; list the census again"
        )
    return harness


def run_entry(
    ctx: Any, adapter: Any, census: Dict[str, Any], dtype: str, settings: Dict[str, Any]
) -> Tuple[EntryRun, List[str]]:
    """Run one harness jitted on the cell's device (one sample: the harness's arguments)."""
    import jax
    import numpy as np

    from ..signals import StageFailure

    harness = _entry(census)
    on_cpu = adapter.flavor == "cpu"
    run = EntryRun("none" if on_cpu else "cpu")
    run.samples = 1
    expectations = [
        str(limit.description)[:80]
        for limit in harness.jax_unimplemented
        if limit.filter(device=DEVICES.get(adapter.flavor, adapter.flavor), dtype=harness.dtype)
    ]
    args = harness.dyn_args_maker(np.random.RandomState(ctx.seed))
    fn = jax.jit(harness.dyn_fun)
    try:
        placed = [jax.device_put(a, adapter.device) for a in args]
    except Exception as exc:
        run.fail("setup", exc, 0)
        return run, expectations
    try:
        output = ctx.measure(fn, *placed, warm=bool(settings.get("timing")))
    except StageFailure as exc:
        run.fail(exc.stage, exc.original, 0)
        return run, expectations
    run.ran = 1
    if on_cpu:
        run.unchecked = 1
        return run, expectations
    try:
        cpu = jax.devices("cpu")[0]
        expected = fn(*[jax.device_put(a, cpu) for a in args])
    except Exception:
        run.unchecked = 1
        return run, expectations
    try:
        for got, want in zip(
            jax.tree_util.tree_leaves(output), jax.tree_util.tree_leaves(expected)
        ):
            np.testing.assert_allclose(
                np.asarray(got, dtype=np.float64) if np.asarray(got).dtype.kind == "V" else got,
                want,
                rtol=COMPARE_CPU_TOL,
                atol=COMPARE_CPU_TOL,
            )
    except Exception as exc:
        run.check_failures = 1
        run.fail("check", exc, 0)
        return run, expectations
    run.agreed = 1
    return run, expectations
