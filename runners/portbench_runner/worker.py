"""The worker: imports the framework once, runs the cases it is given, reports each on its pipe."""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import time
import traceback
from typing import Any, Dict, List, Optional, Tuple

from . import api
from .adapters import DeviceMismatch, DeviceMissing, make_adapter
from .classify import classify
from .context import Context
from .envinfo import collect_env
from .plan import CaseEntry, Plan, load_plan
from .protocol import encode
from .signals import CaseBug, CheckFailed, FallbackDetected, SkipCase, StageFailure

__all__ = ["outcome_from_exception", "run_worker"]

TRACEBACK_LINES = 40
FRAMEWORK_PACKAGES = {
    "torch": ("torch", "torch_xla", "functorch"),
    "tensorflow": ("tensorflow", "keras", "tf_keras"),
    "jax": ("jax", "jaxlib"),
}
# Exception types that, raised outside the context's wrapped calls and without any
# framework frame in the traceback, mean the case's own code is wrong.
CASE_BUG_TYPES = (NameError, SyntaxError, ImportError, AttributeError, KeyError, IndexError)


def _trimmed_traceback(exc: BaseException) -> str:
    lines = traceback.format_exception(type(exc), exc, exc.__traceback__)
    text = "".join(lines).splitlines()
    if len(text) > TRACEBACK_LINES:
        text = ["...", *text[-TRACEBACK_LINES:]]
    return "\n".join(text)


def _error_fields(exc: BaseException) -> Dict[str, str]:
    return {
        "type": f"{type(exc).__module__}.{type(exc).__qualname__}",
        "message": str(exc)[:4000],
        "traceback": _trimmed_traceback(exc),
    }


def _framework_dirs(framework: str) -> Tuple[str, ...]:
    dirs = []
    for name in FRAMEWORK_PACKAGES.get(framework, ()):
        module = sys.modules.get(name)
        path = getattr(module, "__file__", None)
        if path:
            dirs.append(os.path.dirname(os.path.abspath(path)) + os.sep)
    return tuple(dirs)


def _raised_by_framework(exc: BaseException, framework: str) -> bool:
    """True if the framework raised ``exc``: its type or a traceback frame is the framework's."""
    module = type(exc).__module__.split(".")[0]
    if module in FRAMEWORK_PACKAGES.get(framework, ()):
        return True
    dirs = _framework_dirs(framework)
    tb = exc.__traceback__
    while tb is not None:
        if dirs and os.path.abspath(tb.tb_frame.f_code.co_filename).startswith(dirs):
            return True
        tb = tb.tb_next
    return False


def outcome_from_exception(
    exc: BaseException, stage: str, framework: str, rules: List[Dict[str, Any]]
) -> Dict[str, Any]:
    """Outcome fields of a case that raised ``exc`` while the context was at ``stage``."""
    if isinstance(exc, SkipCase):
        return {"outcome": "skip", "reason": str(exc) or "skipped"}
    if isinstance(exc, CheckFailed):
        return {
            "outcome": "fail",
            "stage": "check",
            "category": exc.category,
            "error": _error_fields(exc),
        }
    if isinstance(exc, FallbackDetected):
        return {
            "outcome": "fail",
            "stage": "call",
            "category": "fallback",
            "error": _error_fields(exc),
        }
    if isinstance(exc, StageFailure):
        category, rule = classify(exc.original, exc.stage, rules)
        return {
            "outcome": "fail",
            "stage": exc.stage,
            "category": category,
            "rule": rule,
            "error": _error_fields(exc.original),
        }
    if isinstance(exc, CaseBug) or (
        isinstance(exc, CASE_BUG_TYPES) and not _raised_by_framework(exc, framework)
    ):
        return {"outcome": "error", "error": _error_fields(exc)}
    if not _raised_by_framework(exc, framework) and stage == "setup":
        # Setup code that never reached the framework (NumPy reference, our own helpers).
        return {"outcome": "error", "error": _error_fields(exc)}
    category, rule = classify(exc, stage, rules)
    return {
        "outcome": "fail",
        "stage": stage,
        "category": category,
        "rule": rule,
        "error": _error_fields(exc),
    }


class CaseFiles:
    """Imports each case file once and indexes its registered cases by name."""

    def __init__(self, root: str, framework: str) -> None:
        self.root = root
        self.framework = framework
        self._loaded: Dict[str, Any] = {}

    def cases(self, relative: str) -> Dict[str, api.CaseSpec]:
        """The file's cases by name; raises what the import raised (an ``error`` outcome)."""
        cached = self._loaded.get(relative)
        if isinstance(cached, BaseException):
            raise cached
        if cached is not None:
            return cached
        path = os.path.join(self.root, relative)
        folder = os.path.dirname(path)
        if folder not in sys.path:
            # Case files may share helpers that live beside them.
            sys.path.insert(0, folder)
        module_name = "portbench_cases_%s_%s" % (
            self.framework,
            relative.replace("/", "_").replace(".py", ""),
        )
        api.clear_registry()
        try:
            spec = importlib.util.spec_from_file_location(module_name, path)
            if spec is None or spec.loader is None:
                raise ImportError(f"cannot load case file {path}")
            module = importlib.util.module_from_spec(spec)
            sys.modules[module_name] = module
            spec.loader.exec_module(module)
        except BaseException as exc:
            self._loaded[relative] = exc
            raise
        found = {spec.name: spec for spec in api.registered_cases()}
        self._loaded[relative] = found
        return found


class Worker:
    def __init__(self, plan: Plan, pipe_fd: int) -> None:
        self.plan = plan
        self.pipe_fd = pipe_fd
        self.adapter: Any = None

    def send(self, message: Dict[str, Any]) -> None:
        data = encode(message)
        while data:
            written = os.write(self.pipe_fd, data)
            data = data[written:]

    def start(self, collect: bool) -> bool:
        accelerator = self.plan["accelerator"]
        self.adapter = make_adapter(self.plan["framework"], accelerator["flavor"], accelerator)
        try:
            self.adapter.load()
        except (DeviceMissing, DeviceMismatch) as exc:
            self.send({"type": "fatal", "message": str(exc)})
            return False
        except Exception as exc:
            self.send(
                {
                    "type": "fatal",
                    "message": f"{self.plan['framework']} failed to load in this cell "
                    f"({type(exc).__name__}: {exc}); check the cell's environment",
                }
            )
            return False
        env = collect_env(self.adapter, self.plan.get("timing")) if collect else None
        self.send({"type": "hello", "pid": os.getpid(), "env": env})
        return True

    def run_case(self, entry: CaseEntry, files: CaseFiles) -> Dict[str, Any]:
        case = entry["case"]
        ctx = Context(
            self.adapter,
            case["id"],
            case["seed"],
            self.plan["profile"],
            self.plan["accelerator"]["id"],
            self.plan.get("timing"),
        )
        fields: Dict[str, Any]
        try:
            specs = files.cases(entry["function"]["case_file"])
        except BaseException as exc:
            return {"outcome": "error", "error": _error_fields(exc), "timing": None}
        spec = specs.get(case["name"])
        if spec is None:
            message = f"case {case['name']!r} is not registered by {entry['function']['case_file']}"
            return {
                "outcome": "error",
                "error": {"type": "LookupError", "message": message, "traceback": ""},
            }
        try:
            with self.adapter.case_scope():
                spec.func(ctx, **spec.params)
            if ctx.timing is None:
                fields = {
                    "outcome": "error",
                    "error": {
                        "type": "CaseBug",
                        "message": "the case never called ctx.measure: nothing was timed",
                        "traceback": "",
                    },
                }
            else:
                fields = {"outcome": "pass"}
        except Exception as exc:
            fields = outcome_from_exception(
                exc, ctx.stage, self.plan["framework"], self.plan["rules"]
            )
        fields["timing"] = ctx.timing
        return fields

    def run(self, todo: List[str]) -> None:
        entries = self.plan_index()
        files = CaseFiles(self.plan["manifest_root"], self.plan["framework"])
        for case_id in todo:
            entry = entries[case_id]
            self.send({"type": "start", "case": case_id})
            started = time.time()
            fields = self.run_case(entry, files)
            fields["started_at"] = started
            fields["duration_s"] = time.time() - started
            self.send({"type": "result", "case": case_id, "outcome": fields})
        self.send({"type": "bye"})

    def plan_index(self) -> Dict[str, CaseEntry]:
        index: Dict[str, CaseEntry] = {}
        for function in self.plan["functions"]:
            for case in function["cases"]:
                index[case["id"]] = {"function": function, "case": case}
        return index


def run_worker(
    plan_path: str, pipe_fd: int, collect_env_flag: bool, todo_json: Optional[str]
) -> int:
    plan = load_plan(plan_path)
    todo = json.loads(todo_json) if todo_json is not None else json.load(sys.stdin)
    worker = Worker(plan, pipe_fd)
    if not worker.start(collect_env_flag):
        return 3
    worker.run(todo)
    return 0
