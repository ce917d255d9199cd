"""List a framework's public functions and classes by walking its module tree, inside a cell.

``python -m portbench_runner enumerate --framework F --out FILE [--members]
[--import-submodules]``

Standard library only; the framework is imported here, in the cell's interpreter, because
the list depends on the installed version. The rules (written down in docs/sampling.md):

1. A *public path* is a dotted path from the framework's root module whose every component
   is public (does not start with ``_``): ``torch._C``, ``jax._src`` and every ``torch._*``
   are never walked, and ``_name`` attributes are never listed.
2. A module is walked when it is reached under a public path, its ``__name__`` belongs to
   the framework's own packages (``MODULE_ROOTS``) and is public too: ``torch.os`` (the
   standard library's ``os``, imported by torch) and ``jax.interpreters.traceback_util``
   (really ``jax._src.traceback_util``) are not walked. The one exception is TensorFlow's
   generated API tree (``API_NAMESPACES``): ``tf.nn`` is ``tensorflow._api.v2.nn``.
   Outside those trees a module is walked only at the path equal to its ``__name__``
   (``torch.functional.F`` is ``torch.nn.functional`` imported as ``F``: not walked there).
   Each module is walked once; paths under ``EXCLUDED``, and modules whose ``__name__`` is
   under them (whatever path reaches them), are not walked at all.
3. A listed name is a class (``inspect.isclass``) or a function (any other callable: Python
   functions, builtins, jit wrappers, ufunc objects). Constants, dtypes and other
   non-callables are not listed; nor are JAX's scalar types (``jax.numpy.float32``), which
   are callable classes but stand for a dtype (``_is_scalar_type``). An object defined
   outside the framework's packages (a NumPy or ``typing`` re-export) is not listed.
4. Aliases: one object reached by several public paths is listed once, under its shortest
   path (fewest components, then alphabetical); the other paths are kept as ``aliases``.
5. ``--import-submodules`` first imports every public submodule of each walked package
   (``pkgutil``), so modules that ``import F`` does not load (``jax.scipy.linalg`` in some
   versions) are walked too; by default only what ``import F`` loads is seen, as the study.
   Each directory is searched once, each import may take ``--import-timeout`` seconds, and
   every import that fails or times out is named in ``import_failures`` with its reason.
6. ``--members`` also lists public methods of listed classes (kind ``method``), named
   through the class that defines them when that class is listed, else the shortest path.
"""

from __future__ import annotations

import argparse
import datetime
import inspect
import json
import platform
import signal
import sys
import threading
import time
import types
import warnings
from collections import Counter, deque
from typing import Any, Deque, Dict, List, Optional, Set, Tuple

SCHEMA = 1

#: Top-level packages whose objects count as the framework's own.
ROOTS: Dict[str, Tuple[str, ...]] = {
    "torch": ("torch",),
    "tensorflow": ("tensorflow", "keras", "tf_keras", "tensorflow_estimator", "tensorboard"),
    "jax": ("jax", "jaxlib"),
}

#: Top-level packages whose modules are walked (jaxlib's are compiler bindings: MLIR, XLA).
MODULE_ROOTS: Dict[str, Tuple[str, ...]] = {
    "torch": ("torch",),
    "tensorflow": ("tensorflow", "keras", "tf_keras", "tensorflow_estimator", "tensorboard"),
    "jax": ("jax",),
}

#: Private module names that hold a generated public API (TensorFlow's tf_export trees).
API_NAMESPACES: Dict[str, Tuple[str, ...]] = {
    "torch": (),
    "tensorflow": (
        "tensorflow._api",
        "keras.api",
        "keras._tf_keras",
        "tf_keras.api",
        "tensorboard.summary._tf",
        "tensorflow_estimator.python.estimator.api",
    ),
    "jax": (),
}

#: Submodule names never imported by ``--import-submodules``: test suites, not API.
NOT_IMPORTED = ("test", "tests", "conftest", "setup")

#: Default seconds one submodule import may take under ``--import-submodules``: the
#: slowest seen on the reference machine (TensorFlow 2.21's ``tensorflow.v2``, which runs
#: the whole API's __init__ again) takes about 3 s; a minute means it is stuck.
IMPORT_TIMEOUT_S = 60.0


class ImportTimedOut(BaseException):
    """Raised inside a submodule import that ran past its time. A BaseException, so the
    imported module's own ``except Exception`` cannot swallow it and carry on."""


def _import_bounded(name: str, timeout_s: float) -> None:
    """Import ``name``, interrupted after ``timeout_s`` seconds where SIGALRM can do it
    (POSIX, main thread). A C call that never returns to Python cannot be interrupted
    this way; the host's wall-clock limit on the whole walk covers that case."""
    import importlib

    usable = (
        timeout_s > 0
        and hasattr(signal, "setitimer")
        and threading.current_thread() is threading.main_thread()
    )
    if not usable:
        importlib.import_module(name)
        return

    def _expire(signum: int, frame: Any) -> None:
        raise ImportTimedOut(name)

    previous = signal.signal(signal.SIGALRM, _expire)
    signal.setitimer(signal.ITIMER_REAL, timeout_s)
    try:
        importlib.import_module(name)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


#: Public paths that are not walked, with the reason recorded in the output's rules.
EXCLUDED: Dict[str, Dict[str, str]] = {
    "torch": {
        "torch.ops": "dynamic operator namespaces: contents depend on what was loaded",
        "torch.classes": "dynamic TorchScript class namespaces",
    },
    "tensorflow": {
        "tensorflow.python": "implementation tree, reachable only as a side effect of importing",
        "tensorflow.core": "protocol buffers and implementation",
        "tensorflow.compiler": "implementation (XLA, MLIR bindings)",
        "tensorflow.tools": "build and packaging helpers",
        "tensorflow.include": "C headers",
        "tensorflow.dtensor": "implementation package; the API is tf.experimental.dtensor",
        "tensorflow.tsl": "implementation (TSL bindings)",
    },
    "jax": {},
}

RULES_TEXT = [
    "public path: every component from the root module is public (no leading underscore)",
    "modules are walked when reached under a public path and owned by the framework's packages",
    "listed: classes and other callables owned by the framework; constants, dtypes (JAX's scalar types included) and re-exports of other packages are not",
    "one object, one name: the shortest public path (then alphabetical); other paths are aliases",
]

__all__ = ["SCHEMA", "enumerate_framework", "main"]


def _owned(module_name: Any, roots: Tuple[str, ...]) -> bool:
    if not isinstance(module_name, str) or not module_name:
        # Builtins made by C extensions often carry no __module__: found inside, so ours.
        return True
    return module_name.split(".", 1)[0] in roots


def _in_api(name: str, api: Tuple[str, ...]) -> bool:
    return any(name == prefix or name.startswith(prefix + ".") for prefix in api)


def _public_module(name: Any, roots: Tuple[str, ...], api: Tuple[str, ...]) -> bool:
    if not isinstance(name, str) or name.split(".", 1)[0] not in roots:
        return False
    if _in_api(name, api):
        return True
    return not any(part.startswith("_") for part in name.split("."))


def _is_excluded(path: str, excluded: Dict[str, str]) -> bool:
    return any(path == prefix or path.startswith(prefix + ".") for prefix in excluded)


def _is_scalar_type(obj: Any) -> bool:
    """A dtype that is also a class: ``jax.numpy.float32`` is made by a metaclass of JAX's
    and carries a NumPy dtype in its ``dtype`` attribute. Calling it casts, so it would pass
    for a class; the rules do not list dtypes (torch's and TensorFlow's are not callable)."""
    if not inspect.isclass(obj) or type(obj) is type:
        return False
    try:
        dtype = vars(obj).get("dtype")
    except TypeError:
        return False
    module = getattr(type(dtype), "__module__", "") or ""
    return module.split(".", 1)[0] == "numpy" and hasattr(dtype, "itemsize")


def _path_key(path: str) -> Tuple[int, str]:
    return (path.count("."), path)


def _public_attributes(obj: Any) -> List[str]:
    try:
        names = dir(obj)
    except Exception:
        return []
    return sorted(name for name in names if not name.startswith("_"))


class _Walk:
    """One walk of a framework; holds references so object ids stay unique while it runs."""

    def __init__(self, framework: str, excluded: Dict[str, str]) -> None:
        self.framework = framework
        default = (framework.split(".", 1)[0],)
        self.roots = ROOTS.get(framework, default)
        self.module_roots = MODULE_ROOTS.get(framework, default)
        self.api = API_NAMESPACES.get(framework, ())
        self.excluded = excluded
        self.objects: Dict[int, Any] = {}
        self.paths: Dict[int, List[str]] = {}
        self.kinds: Dict[int, str] = {}
        self.skipped: Counter[str] = Counter()
        self.modules_walked = 0
        self.imported_dirs: Set[str] = set()
        self.import_submodules = False
        self.import_timeout_s = IMPORT_TIMEOUT_S
        self.import_failures: Dict[str, str] = {}

    def _add(self, obj: Any, path: str, kind: str) -> None:
        key = id(obj)
        self.objects[key] = obj
        self.kinds.setdefault(key, kind)
        self.paths.setdefault(key, []).append(path)

    def walk(self, root: types.ModuleType) -> None:
        queue: Deque[Tuple[str, types.ModuleType]] = deque([(self.framework, root)])
        seen = {id(root)}
        while queue:
            path, module = queue.popleft()
            self.modules_walked += 1
            if self.import_submodules and path == getattr(module, "__name__", None):
                self._import_submodules(module)
            for attr in _public_attributes(module):
                full = "%s.%s" % (path, attr)
                if _is_excluded(full, self.excluded):
                    self.skipped["excluded_path"] += 1
                    continue
                try:
                    obj = getattr(module, attr)
                except Exception:
                    self.skipped["unreadable"] += 1
                    continue
                if isinstance(obj, types.ModuleType):
                    name = getattr(obj, "__name__", None)
                    if not _public_module(name, self.module_roots, self.api):
                        self.skipped["foreign_or_private_module"] += 1
                    elif _is_excluded(str(name), self.excluded):
                        self.skipped["excluded_path"] += 1
                    elif name != full and not _in_api(str(name), self.api):
                        # ``torch.functional.F`` is torch.nn.functional imported as F: the
                        # module is walked where it lives, so names keep their own path.
                        self.skipped["module_alias"] += 1
                    elif id(obj) not in seen:
                        seen.add(id(obj))
                        self.objects[id(obj)] = obj
                        queue.append((full, obj))
                    continue
                self._add_member(obj, full)

    def _import_submodules(self, package: types.ModuleType) -> None:
        import pkgutil

        # Each directory's submodules are imported once. TensorFlow's generated API root
        # lists tensorflow/_api/v2 in its __path__, and that folder holds v2.py, a copy of
        # the root that (from 2.20 on; not in 2.11) sets the same __path__: searched per
        # package, importing tensorflow.v2 found tensorflow.v2.v2, then tensorflow.v2.v2.v2,
        # ... (each re-running the whole API's __init__): the walk never finished.
        fresh = [d for d in getattr(package, "__path__", None) or [] if d not in self.imported_dirs]
        self.imported_dirs.update(fresh)
        for info in pkgutil.iter_modules(fresh):
            if info.name.startswith("_") or info.name in NOT_IMPORTED:
                continue
            name = "%s.%s" % (package.__name__, info.name)
            if _is_excluded(name, self.excluded) or hasattr(package, info.name):
                continue
            try:
                _import_bounded(name, self.import_timeout_s)
            except ImportTimedOut:
                self.skipped["submodule_import_timed_out"] += 1
                self.import_failures[name] = "timed out after %g s" % self.import_timeout_s
            except BaseException as exc:  # optional dependencies, platform checks, sys.exit
                if isinstance(exc, KeyboardInterrupt):
                    raise
                self.skipped["submodule_import_failed"] += 1
                first = (str(exc).strip().splitlines() or [""])[0]
                self.import_failures[name] = ("%s: %s" % (type(exc).__name__, first))[:300]

    def _add_member(self, obj: Any, full: str) -> None:
        if _is_scalar_type(obj):
            self.skipped["dtype"] += 1
            return
        if inspect.isclass(obj):
            kind = "class"
        elif callable(obj):
            kind = "function"
        else:
            self.skipped["not_callable"] += 1
            return
        if not _owned(getattr(obj, "__module__", None), self.roots):
            self.skipped["foreign_object"] += 1
            return
        self._add(obj, full, kind)

    def add_methods(self) -> None:
        """List public methods of listed classes (``--members``)."""
        class_names = {
            key: min(self.paths[key], key=_path_key)
            for key, kind in self.kinds.items()
            if kind == "class"
        }
        method_paths: Dict[int, List[str]] = {}
        preferred: Dict[int, str] = {}
        for key, class_path in sorted(class_names.items(), key=lambda item: item[1]):
            cls = self.objects[key]
            for attr in _public_attributes(cls):
                owner = next((c for c in getattr(cls, "__mro__", ()) if attr in vars(c)), None)
                if owner is None or not _owned(getattr(owner, "__module__", None), self.roots):
                    continue
                raw = vars(owner)[attr]
                func = getattr(raw, "__func__", raw)
                if not (inspect.isroutine(func) or inspect.isroutine(raw)):
                    continue
                path = "%s.%s" % (class_path, attr)
                method_paths.setdefault(id(raw), []).append(path)
                self.objects.setdefault(id(raw), raw)
                if owner is cls:
                    preferred[id(raw)] = path
        for key, paths in method_paths.items():
            if key in self.kinds:
                continue  # already listed as a function under a module path
            self.kinds[key] = "method"
            self.paths[key] = paths
            if key in preferred:
                self.paths[key] = [preferred[key]] + [p for p in paths if p != preferred[key]]

    def names(self) -> List[Dict[str, object]]:
        rows: List[Dict[str, object]] = []
        for key, kind in self.kinds.items():
            paths = sorted(set(self.paths[key]), key=_path_key)
            name = self.paths[key][0] if kind == "method" else paths[0]
            obj = self.objects[key]
            module = getattr(obj, "__module__", None)
            rows.append(
                {
                    "name": name,
                    "kind": kind,
                    "module": module if isinstance(module, str) else None,
                    "aliases": [p for p in paths if p != name],
                }
            )
        rows.sort(key=lambda row: str(row["name"]))
        return rows


def enumerate_framework(
    framework: str,
    members: bool = False,
    import_submodules: bool = False,
    import_timeout_s: float = IMPORT_TIMEOUT_S,
) -> Dict[str, object]:
    """Import ``framework`` and return the enumeration document (see the module docstring)."""
    import importlib

    excluded = EXCLUDED.get(framework, {})
    started = time.perf_counter()
    module = importlib.import_module(framework)
    imported = time.perf_counter()
    walk = _Walk(framework, excluded)
    walk.import_submodules = import_submodules
    walk.import_timeout_s = import_timeout_s
    with warnings.catch_warnings():
        # Deprecated aliases warn when read; reading them is the point here.
        warnings.simplefilter("ignore")
        walk.walk(module)
        if members:
            walk.add_methods()
    names = walk.names()
    return {
        "schema": SCHEMA,
        "kind": "enumeration",
        "framework": framework,
        "version": str(getattr(module, "__version__", "unknown")),
        "python": platform.python_version(),
        "rules": {
            "text": RULES_TEXT,
            "roots": list(walk.roots),
            "module_roots": list(walk.module_roots),
            "api_namespaces": list(walk.api),
            "excluded": excluded,
            "members": members,
            "import_submodules": import_submodules,
            "import_timeout_s": import_timeout_s if import_submodules else None,
        },
        "counts": dict(Counter(row["kind"] for row in names)),
        "skipped": dict(sorted(walk.skipped.items())),
        "modules_walked": walk.modules_walked,
        # Which submodules --import-submodules could not import, and why (name: reason).
        "import_failures": dict(sorted(walk.import_failures.items())),
        "names": names,
        "provenance": {
            "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "host": platform.node(),
            "executable": sys.executable,
            "platform": platform.platform(),
            "import_s": round(imported - started, 3),
            "walk_s": round(time.perf_counter() - imported, 3),
            "tool": "portbench_runner.enumerate_api",
        },
    }


def main(argv: Optional[List[str]] = None) -> int:
    """``enumerate --framework F --out FILE [--members] [--import-submodules]
    [--import-timeout S]``; returns an exit status."""
    parser = argparse.ArgumentParser(prog="portbench_runner enumerate")
    parser.add_argument("--framework", required=True)
    parser.add_argument("--out", required=True, help="JSON file to create (never overwritten)")
    parser.add_argument("--members", action="store_true", help="also list public methods")
    parser.add_argument(
        "--import-submodules", action="store_true", help="import public submodules first"
    )
    parser.add_argument(
        "--import-timeout",
        type=float,
        default=IMPORT_TIMEOUT_S,
        help="seconds one submodule import may take (0: no limit)",
    )
    args = parser.parse_args(argv)
    if args.import_timeout < 0:
        print("error: --import-timeout must be 0 (no limit) or more", file=sys.stderr)
        return 2
    try:
        document = enumerate_framework(
            args.framework,
            members=args.members,
            import_submodules=args.import_submodules,
            import_timeout_s=args.import_timeout,
        )
    except ImportError as exc:
        print(
            "error: cannot import %s in %s (%s); install it in this cell"
            % (args.framework, sys.executable, exc),
            file=sys.stderr,
        )
        return 2
    try:
        with open(args.out, "x", encoding="utf-8") as handle:
            json.dump(document, handle, indent=1, sort_keys=False)
            handle.write("\n")
    except FileExistsError:
        print("error: %s exists; choose a new --out file" % args.out, file=sys.stderr)
        return 2
    except OSError as exc:
        print(
            "error: cannot write %s (%s); check the folder" % (args.out, exc.strerror),
            file=sys.stderr,
        )
        return 2
    counts, names = document["counts"], document["names"]
    assert isinstance(counts, dict) and isinstance(names, list)
    print(
        "%s %s: %d names (%s)"
        % (
            args.framework,
            document["version"],
            len(names),
            ", ".join("%s %d" % item for item in sorted(counts.items())),
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
