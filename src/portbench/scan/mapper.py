"""Build the API map of one framework release: its public names, and the operators each reaches.

Run by path with an interpreter that has the framework (``portbench scan-map`` does it):
``python mapper.py --framework torch --out FILE``, with ``runners/`` on ``PYTHONPATH``.
Standard library, the framework and ``portbench_runner.enumerate_api`` only, so it runs in
any cell environment, as the enumeration walker does (Python 3.8+).

What it writes (one JSON document):

- ``names``: every public path of the framework as ``portbench enumerate`` walks it
  (functions and classes, with ``--import-submodules``), each with its kind and the
  canonical path of its object (one object reached by several paths has one canonical);
  class members (methods and attributes) under the class that owns them, and the public
  modules and module attributes (``torch.float32``) so that they are known, not unknown.
- ``classes``: each listed class's listed bases in method resolution order, so a member
  inherited from ``torch.nn.Module`` resolves for ``torch.nn.Linear``.
- ``ops``: per canonical path, the census operators it reaches and how that was found:
  ``opinfo`` (torch: the entry of ``op_db`` whose function, method, in-place variant or
  alias is this object), ``traced`` (torch: the torch functions a call made, seen by a
  ``TorchFunctionMode``, mapped through ``opinfo``; JAX: the primitives of the call's
  jaxpr; TensorFlow: the op types of the call's ``tf.function`` graph).
- ``returns``: the framework class a call returned (``torch.zeros`` -> ``torch.Tensor``),
  so methods on the result resolve.

Calls are made with guessed arguments (small float32 and int32 arrays, a PRNG key); a name
no guess can call is listed without operators, and counted.
"""

from __future__ import annotations

import sys

# Run by path, this file's folder comes first on sys.path, where portbench's own modules
# (html.py, among others) would shadow the standard library's for the framework: drop it,
# as asv's benchmark runner drops its own.
if __name__ == "__main__":
    sys.path[:] = [p for p in sys.path if p and p != sys.path[0]] if sys.path else []

import argparse
import contextlib
import datetime
import importlib
import inspect
import json
import os
import platform
import re
import signal
import time
import types
import warnings
from functools import partial
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Set, Tuple

SCHEMA = 1
#: Seconds one guessed call may take before it is abandoned (SIGALRM).
CALL_TIMEOUT_S = 5.0
#: Namespaces whose functions are called with guessed arguments; outside them a name is
#: listed without operators (calling torch.distributed or tf.io with made-up arguments
#: could block or write files, and they hold no census operator anyway).
TRACED = {
    "torch": ("torch", "torch.nn.functional", "torch.linalg", "torch.fft", "torch.special"),
    "jax": (
        "jax.numpy",
        "jax.numpy.linalg",
        "jax.numpy.fft",
        "jax.lax",
        "jax.lax.linalg",
        "jax.nn",
        "jax.scipy.special",
        "jax.scipy.linalg",
        "jax.scipy.signal",
        "jax.scipy.fft",
        "jax.scipy.ndimage",
        "jax.scipy.stats.norm",
        "jax.random",
        "jax.image",
    ),
    "tensorflow": (
        "tensorflow",
        "tensorflow.math",
        "tensorflow.nn",
        "tensorflow.linalg",
        "tensorflow.signal",
        "tensorflow.image",
        "tensorflow.random",
        "tensorflow.bitwise",
    ),
}
#: Classes whose instances are built with guessed arguments and called (layers, modules).
TRACED_CLASSES = {"torch": ("torch.nn",), "jax": (), "tensorflow": ("tensorflow.keras.layers",)}
#: Names never called: they change the process's state or touch files.
NOT_CALLED = re.compile(
    r"(^|\.)(set_\w*|manual_seed|seed|initial_seed|save|load|compile|use_deterministic\w*|"
    r"print|py_function|numpy_function|no_op|Print|write_file|read_file)$"
)
#: Graph nodes and primitives that are plumbing, not operators.
PLUMBING = {
    "jax": {"pjit", "jit", "closed_call", "custom_jvp_call", "custom_vjp_call", "remat"},
    "tensorflow": {
        "Placeholder",
        "Const",
        "Identity",
        "IdentityN",
        "NoOp",
        "PartitionedCall",
        "StatefulPartitionedCall",
    },
    "torch": set(),
}

__all__ = ["SCHEMA", "build_map", "main"]


class CallTimedOut(BaseException):
    """A guessed call ran past CALL_TIMEOUT_S (a BaseException: no ``except Exception``
    inside the framework swallows it)."""


@contextlib.contextmanager
def _deadline(seconds: float) -> Iterator[None]:
    usable = hasattr(signal, "setitimer")
    if not usable:
        yield
        return

    def expire(signum: int, frame: Any) -> None:
        raise CallTimedOut()

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _attempt(call: Callable[[], Any]) -> Tuple[bool, Any]:
    """(ok, value) of ``call()`` under the deadline; any failure is (False, None)."""
    try:
        with _deadline(CALL_TIMEOUT_S), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return True, call()
    except KeyboardInterrupt:
        raise
    except BaseException:
        return False, None


def _resolve(path: str) -> Any:
    parts = path.split(".")
    obj: Any = importlib.import_module(parts[0])
    for part in parts[1:]:
        obj = getattr(obj, part)
    return obj


def _path_key(path: str) -> Tuple[int, str]:
    return (path.count("."), path)


def _public(names: Sequence[str]) -> List[str]:
    return sorted(name for name in names if not name.startswith("_"))


class ApiTable:
    """Public paths, their objects and kinds, collected from the enumeration and members."""

    def __init__(self, framework: str) -> None:
        self.framework = framework
        self.kinds: Dict[str, str] = {}
        self.canonical: Dict[str, str] = {}
        self.objects: Dict[str, Any] = {}
        self.by_id: Dict[int, str] = {}
        self.bases: Dict[str, List[str]] = {}
        self.skipped: Dict[str, int] = {}

    def add_enumeration(self, rows: List[Dict[str, Any]]) -> None:
        for row in rows:
            name = str(row["name"])
            ok, obj = _attempt(partial(_resolve, name))
            if not ok:
                self.skipped["unresolvable"] = self.skipped.get("unresolvable", 0) + 1
                continue
            canonical = self.by_id.setdefault(id(obj), name)
            self.objects.setdefault(canonical, obj)
            for path in [name, *row.get("aliases", [])]:
                self.kinds[path] = str(row["kind"])
                self.canonical[path] = canonical

    def add_modules_and_attributes(self) -> None:
        """Every prefix of a listed path that is a module; their other public attributes."""
        prefixes: Set[str] = set()
        for path in list(self.kinds):
            parts = path.split(".")
            prefixes.update(".".join(parts[:end]) for end in range(1, len(parts)))
        for prefix in sorted(prefixes):
            if prefix in self.kinds:
                continue
            ok, obj = _attempt(partial(_resolve, prefix))
            if not ok or not isinstance(obj, types.ModuleType):
                continue
            self.kinds[prefix] = "module"
            for attr in _public(dir(obj)):
                path = "%s.%s" % (prefix, attr)
                if path not in self.kinds and path not in prefixes:
                    self.kinds[path] = "attribute"

    def add_members(self) -> None:
        """Members of every listed class, each owned by the most basic listed class that has
        the same object (``torch.nn.Module.to``, not ``torch.nn.Linear.to``)."""
        classes = {
            path: self.objects[path]
            for path, kind in self.kinds.items()
            if kind == "class" and self.canonical.get(path) == path
        }
        class_by_id = {id(cls): path for path, cls in classes.items()}
        for path, cls in classes.items():
            mro = getattr(cls, "__mro__", ())[1:]
            self.bases[path] = [class_by_id[id(base)] for base in mro if id(base) in class_by_id]
        groups: Dict[int, List[str]] = {}
        raws: Dict[int, Any] = {}
        for path, cls in sorted(classes.items()):
            try:
                attrs = _public(dir(cls))
            except Exception:
                continue
            for attr in attrs:
                owner = next((c for c in getattr(cls, "__mro__", ()) if attr in vars(c)), None)
                if owner is None:
                    continue
                raw = vars(owner)[attr]
                groups.setdefault(id(raw), []).append("%s.%s" % (path, attr))
                raws[id(raw)] = raw
        for key, paths in groups.items():
            raw = raws[key]
            func = getattr(raw, "__func__", raw)
            kind = "method" if inspect.isroutine(func) or inspect.isroutine(raw) else "attribute"
            if inspect.isclass(raw):
                kind = "class"
            owners = {p.rsplit(".", 1)[0]: p for p in paths}
            # The most basic owner: no other candidate class is among its bases.
            basic = [
                o for o in owners if not any(b in owners for b in self.bases.get(o, []) if b != o)
            ]
            # Among unrelated owners (torch.Tensor and the legacy torch.FloatTensor both
            # reach TensorBase's methods), the one most other owners derive from.
            derived = {o: sum(o in self.bases.get(other, []) for other in owners) for o in basic}
            best = min(basic or list(owners), key=lambda o: (-derived.get(o, 0), _path_key(o)))
            canonical = owners[best]
            for member in paths:
                if member in self.kinds and self.kinds[member] != "attribute":
                    continue  # listed already (a nested class, a function alias)
                self.kinds[member] = kind
                self.canonical[member] = canonical
            if kind == "method":
                self.objects.setdefault(canonical, raw)
                self.by_id.setdefault(key, canonical)
                bound = getattr(raw, "__func__", None)
                if bound is not None:
                    self.by_id.setdefault(id(bound), canonical)

    def class_of(self, value: Any) -> Optional[str]:
        """The listed class ``value`` is an instance of (the first in its MRO), if any."""
        for cls in getattr(type(value), "__mro__", ()):
            path = self.by_id.get(id(cls))
            if path is not None and self.kinds.get(path) == "class":
                return path
        return None


def _in(path: str, namespaces: Sequence[str]) -> bool:
    return path.rsplit(".", 1)[0] in namespaces


def _callable_names(table: ApiTable, namespaces: Sequence[str], kind: str) -> List[str]:
    return sorted(
        path
        for path, k in table.kinds.items()
        if k == kind
        and table.canonical.get(path) == path
        and _in(path, namespaces)
        and not NOT_CALLED.search(path)
    )


# -- torch ---------------------------------------------------------------------------------


def _torch_ops(table: ApiTable) -> Tuple[Dict[str, Dict[str, Any]], Dict[str, str], Dict[str, int]]:
    import torch
    from torch.overrides import TorchFunctionMode

    ops: Dict[str, Dict[str, Any]] = {}
    returns: Dict[str, str] = {}
    counts = {"opinfo_entries": 0, "traced": 0, "not_traced": 0}
    try:
        from torch.testing._internal.common_methods_invocations import op_db
    except Exception as exc:  # expecttest missing: no operator names at all
        raise SystemExit("cannot import torch's op_db (%s); install expecttest" % exc) from None
    direct: Dict[str, Set[str]] = {}
    for info in op_db:
        counts["opinfo_entries"] += 1
        name = str(info.name) + ("." + info.variant_test_name if info.variant_test_name else "")
        variants = [info.op, info.method_variant, info.inplace_variant]
        for alias in getattr(info, "aliases", ()) or ():
            variants += [alias.op, alias.method_variant, alias.inplace_variant]
        found = False
        for variant in variants:
            canonical = table.by_id.get(id(variant)) if variant is not None else None
            if canonical is not None:
                direct.setdefault(canonical, set()).add(name)
                found = True
        if not found:
            # Entries whose op is a lambda: the public function of the same name.
            canonical = table.canonical.get("torch." + str(info.name))
            if canonical is not None:
                direct.setdefault(canonical, set()).add(name)
    for canonical, names in direct.items():
        ops[canonical] = {"ops": sorted(names), "via": "opinfo"}

    class Recorder(TorchFunctionMode):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__()
            self.seen: List[Any] = []

        def __torch_function__(
            self, func: Any, types_: Any, args: Any = (), kwargs: Any = None
        ) -> Any:
            self.seen.append(func)
            return func(*args, **(kwargs or {}))

    torch.manual_seed(0)

    def tensors() -> List[List[Any]]:
        x = torch.rand(4, 4) + 0.5
        i = torch.randint(0, 4, (4, 4))
        return [
            [x],
            [x, x.clone()],
            [i],
            [i, i.clone()],
            [x, 1],
            [x, x.clone(), x.clone()],
            [4],
            [4, 4],
            ["ij,jk->ik", x, x.clone()],
        ]

    def record(call: Callable[[], Any]) -> Tuple[bool, Any, List[Any]]:
        recorder = Recorder()

        def run() -> Any:
            with recorder:
                return call()

        ok, value = _attempt(run)
        return ok, value, recorder.seen

    def reached(seen: List[Any], own: str) -> Set[str]:
        names: Set[str] = set()
        for func in seen:
            canonical = table.by_id.get(id(func))
            if canonical is not None and canonical != own and canonical in direct:
                names.update(direct[canonical])
        return names

    for path in _callable_names(table, TRACED["torch"], "function"):
        func = table.objects[path]
        for args in tensors():
            ok, value, seen = record(partial(func, *args))
            if ok:
                cls = table.class_of(value)
                if cls is not None:
                    returns[path] = cls
                if path not in ops:
                    names = reached(seen, path)
                    if names:
                        ops[path] = {"ops": sorted(names), "via": "traced"}
                break
    tensor = table.canonical.get("torch.Tensor")

    def fresh_call(attr: str, args: List[Any]) -> Any:
        return getattr(torch.rand(4, 4) + 0.5, attr)(*args)

    for path in sorted(p for p, k in table.kinds.items() if k == "method"):
        if tensor is None or table.canonical.get(path) != path or not path.startswith(tensor + "."):
            continue
        attr = path.rsplit(".", 1)[1]
        if NOT_CALLED.search(path) or attr.endswith("_"):
            continue  # in-place methods return their receiver: nothing new to learn
        for args in ([], [-1], [torch.rand(4, 4) + 0.5], [1], [0]):
            ok, value = _attempt(partial(fresh_call, attr, args))
            if ok:
                cls = table.class_of(value)
                if cls is not None:
                    returns[path] = cls
                break
    inputs = [
        lambda: torch.rand(2, 4),
        lambda: torch.rand(2, 4, 8),
        lambda: torch.rand(2, 4, 8, 8),
        lambda: torch.rand(2, 4, 8, 8, 8),
        lambda: torch.randint(0, 4, (2, 4)),
    ]
    module_base = table.canonical.get("torch.nn.Module")
    for path in sorted(p for p, k in table.kinds.items() if k == "class"):
        if table.canonical.get(path) != path or not _in(path, TRACED_CLASSES["torch"]):
            continue
        if module_base not in table.bases.get(path, []):
            continue
        cls = table.objects[path]
        made = _construct(cls)
        if made is None:
            counts["not_traced"] += 1
            continue
        for make in inputs:
            ok, _value, seen = record(partial(_apply, made, make))
            if ok:
                names = reached(seen, path)
                if names:
                    ops[path] = {"ops": sorted(names), "via": "traced"}
                    counts["traced"] += 1
                break
        else:
            counts["not_traced"] += 1
    return ops, returns, counts


def _apply(made: Any, make: Callable[[], Any]) -> Any:
    return made(make())


def _construct(cls: Any) -> Any:
    """An instance of ``cls`` with every required argument guessed as 4, else None."""
    try:
        params = list(inspect.signature(cls).parameters.values())
    except (TypeError, ValueError):
        params = []
    required = [
        p
        for p in params
        if p.default is inspect.Parameter.empty
        and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    ok, value = _attempt(lambda: cls(*([4] * len(required))))
    return value if ok else None


# -- jax -----------------------------------------------------------------------------------


def _primitives(jaxpr: Any, into: Set[str]) -> None:
    for eqn in jaxpr.eqns:
        into.add(str(eqn.primitive.name))
        for param in eqn.params.values():
            for sub in param if isinstance(param, (list, tuple)) else [param]:
                inner = getattr(sub, "jaxpr", sub)
                if hasattr(inner, "eqns"):
                    _primitives(inner, into)


def _jax_ops(table: ApiTable) -> Tuple[Dict[str, Dict[str, Any]], Dict[str, str], Dict[str, int]]:
    import jax
    import jax.numpy as jnp

    ops: Dict[str, Dict[str, Any]] = {}
    returns: Dict[str, str] = {}
    counts = {"traced": 0, "not_traced": 0}
    x = jnp.linspace(0.5, 1.5, 16, dtype=jnp.float32).reshape(4, 4)
    i = jnp.arange(16, dtype=jnp.int32).reshape(4, 4) % 4
    key = jax.random.key(0)
    x4 = jnp.linspace(0.5, 1.5, 256, dtype=jnp.float32).reshape(1, 4, 8, 8)
    w4 = jnp.linspace(0.5, 1.5, 144, dtype=jnp.float32).reshape(4, 4, 3, 3)
    # (static arguments before, dynamic arguments, static arguments after)
    guesses: List[Tuple[List[Any], List[Any], List[Any]]] = [
        ([], [x], []),
        ([], [x, x], []),
        ([], [i], []),
        ([], [i, i], []),
        ([], [x], [0]),
        ([], [x], [(2, 8)]),
        ([], [x, x, x], []),
        ([], [key], []),
        ([], [key], [(4,)]),
        ([], [key, x], []),
        ([], [], [(4,)]),
        ([], [], [4]),
        (["ij,jk->ik"], [x, x], []),
        ([], [x4, w4], [(1, 1), "SAME"]),
    ]
    plumbing = PLUMBING["jax"]
    for path in _callable_names(table, TRACED["jax"], "function"):
        func = table.objects[path]
        for before, dynamic, after in guesses:

            def call(
                *dyn: Any, func: Any = func, before: List[Any] = before, after: List[Any] = after
            ) -> Any:
                return func(*before, *dyn, *after)

            ok, closed = _attempt(partial(jax.make_jaxpr(call), *dynamic))
            if not ok:
                continue
            seen: Set[str] = set()
            _primitives(closed.jaxpr, seen)
            names = sorted(seen - plumbing)
            if names:
                ops[path] = {"ops": names, "via": "traced"}
            counts["traced"] += 1
            ok, value = _attempt(partial(call, *dynamic))
            cls = table.class_of(value) if ok else None
            if cls is not None:
                returns[path] = cls
            break
        else:
            counts["not_traced"] += 1
    array = table.canonical.get("jax.Array")
    for path in sorted(p for p, k in table.kinds.items() if k == "method"):
        if array is None or table.canonical.get(path) != path or not path.startswith(array + "."):
            continue
        attr = path.rsplit(".", 1)[1]
        for dynamic in ([x], [x, x], [i]):

            def method(*dyn: Any, attr: str = attr) -> Any:
                return getattr(dyn[0], attr)(*dyn[1:])

            ok, closed = _attempt(partial(jax.make_jaxpr(method), *dynamic))
            if ok:
                seen = set()
                _primitives(closed.jaxpr, seen)
                if seen - plumbing:
                    ops[path] = {"ops": sorted(seen - plumbing), "via": "traced"}
                ok, value = _attempt(partial(method, *dynamic))
                cls = table.class_of(value) if ok else None
                if cls is not None:
                    returns[path] = cls
                break
    return ops, returns, counts


# -- tensorflow ----------------------------------------------------------------------------


def _tf_ops(table: ApiTable) -> Tuple[Dict[str, Dict[str, Any]], Dict[str, str], Dict[str, int]]:
    import tensorflow as tf

    ops: Dict[str, Dict[str, Any]] = {}
    returns: Dict[str, str] = {}
    counts = {"traced": 0, "not_traced": 0}
    f32 = tf.TensorSpec([4, 4], tf.float32)
    i32 = tf.TensorSpec([4, 4], tf.int32)
    guesses: List[Tuple[List[Any], List[Any]]] = [
        ([f32], []),
        ([f32, f32], []),
        ([i32], []),
        ([i32, i32], []),
        ([f32], [0]),
        ([f32, f32, f32], []),
        ([], [[4, 4]]),
    ]
    plumbing = PLUMBING["tensorflow"]

    def graph_ops(call: Callable[..., Any], specs: List[Any]) -> Optional[Set[str]]:
        ok, concrete = _attempt(lambda: tf.function(call).get_concrete_function(*specs))
        if not ok:
            return None
        graph_def = concrete.graph.as_graph_def()
        seen = {str(node.op) for node in graph_def.node}
        # Functions called inside the graph (tf.function helpers, loops) live in its library.
        for function in graph_def.library.function:
            seen.update(str(node.op) for node in function.node_def)
        return seen - plumbing

    for path in _callable_names(table, TRACED["tensorflow"], "function"):
        func = table.objects[path]
        for specs, static in guesses:

            def call(*dyn: Any, func: Any = func, static: List[Any] = static) -> Any:
                return func(*dyn, *static)

            seen = graph_ops(call, specs)
            if seen is None:
                continue
            if seen:
                ops[path] = {"ops": sorted(seen), "via": "traced"}
            counts["traced"] += 1
            if any(isinstance(s, tf.TensorSpec) for s in specs):
                returns[path] = table.canonical.get("tensorflow.Tensor", "tensorflow.Tensor")
            break
        else:
            counts["not_traced"] += 1
    layer_inputs = [
        tf.TensorSpec([2, 4], tf.float32),
        tf.TensorSpec([2, 4, 8], tf.float32),
        tf.TensorSpec([2, 8, 8, 4], tf.float32),
        tf.TensorSpec([2, 4], tf.int32),
    ]
    for path in sorted(p for p, k in table.kinds.items() if k == "class"):
        if table.canonical.get(path) != path or not _in(path, TRACED_CLASSES["tensorflow"]):
            continue
        made = _construct(table.objects[path])
        if made is None or not callable(made):
            counts["not_traced"] += 1
            continue
        for spec in layer_inputs:
            seen = graph_ops(lambda t, made=made: made(t), [spec])
            if seen is not None:
                if seen:
                    ops[path] = {"ops": sorted(seen), "via": "traced"}
                counts["traced"] += 1
                break
        else:
            counts["not_traced"] += 1
    return ops, returns, counts


TRACERS = {"torch": _torch_ops, "jax": _jax_ops, "tensorflow": _tf_ops}


def build_map(framework: str) -> Dict[str, Any]:
    """Import ``framework``, walk and trace it; return the map document."""
    from portbench_runner.enumerate_api import enumerate_framework

    started = time.perf_counter()
    enumeration = enumerate_framework(framework, import_submodules=True, import_timeout_s=30.0)
    table = ApiTable(framework)
    rows = enumeration.get("names")
    # The enumeration is free-form JSON (dict[str, object]): narrowed here, where it is read.
    table.add_enumeration(
        [row for row in rows if isinstance(row, dict)] if isinstance(rows, list) else []
    )
    table.add_members()
    table.add_modules_and_attributes()
    walked = time.perf_counter()
    ops, returns, counts = TRACERS[framework](table)
    module = importlib.import_module(framework)
    names = {
        path: [kind, table.canonical.get(path, path)] for path, kind in sorted(table.kinds.items())
    }
    return {
        "schema": SCHEMA,
        "kind": "scan-map",
        "framework": framework,
        "release": str(getattr(module, "__version__", "unknown")),
        "python": platform.python_version(),
        "names": names,
        "classes": {path: bases for path, bases in sorted(table.bases.items()) if bases},
        "ops": {path: ops[path] for path in sorted(ops)},
        "returns": {path: returns[path] for path in sorted(returns)},
        "counts": {
            "names": len(names),
            "canonical": len(set(table.canonical.values())),
            "with_ops": len(ops),
            **counts,
            **{"skipped_" + k: v for k, v in table.skipped.items()},
        },
        "traced_namespaces": list(TRACED[framework]) + list(TRACED_CLASSES[framework]),
        "provenance": {
            "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "executable_python": sys.version.split()[0],
            "platform": platform.platform(),
            "walk_s": round(walked - started, 1),
            "trace_s": round(time.perf_counter() - walked, 1),
            "tool": "portbench.scan.mapper",
            "import_failures": enumeration.get("import_failures", {}),
        },
    }


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="mapper.py")
    parser.add_argument("--framework", required=True, choices=sorted(TRACERS))
    parser.add_argument("--out", required=True, help="JSON file to create (never overwritten)")
    args = parser.parse_args(argv)
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    document = build_map(args.framework)
    with open(args.out, "x", encoding="utf-8") as handle:
        json.dump(document, handle, separators=(",", ":"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
