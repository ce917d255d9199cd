"""The worker: imports the framework once, then runs the cases the supervisor asks for.

It reads one command per line on stdin (``run`` a case, ``stop``) and answers on its pipe
(``protocol.py``). Everything it reports is bounded and strict JSON; a case whose own code
breaks the report (a category that is not one, an exception whose ``str`` raises) is an
``error``, not a failure of the framework.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import time
import traceback
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

from . import api, fallback, prediction
from .adapters import DeviceMismatch, DeviceMissing, make_adapter
from .bounds import MESSAGE_CHARS, REASON_CHARS, TRACEBACK_CHARS, TRACEBACK_LINES, clip, safe_str
from .classify import CATEGORIES, classify
from .context import Context
from .differential import cpu_reference
from .envinfo import collect_env
from .plan import CaseEntry, Plan, load_plan
from .procs import die_with_parent
from .protocol import ProtocolError, decode, encode
from .signals import CaseBug, CheckFailed, FallbackDetected, SkipCase, StageFailure

__all__ = ["outcome_from_exception", "run_worker"]

FRAMEWORK_PACKAGES = {
    "torch": ("torch", "torch_xla", "functorch"),
    "tensorflow": ("tensorflow", "keras", "tf_keras"),
    "jax": ("jax", "jaxlib"),
}
# Exception types that, raised outside the context's wrapped calls and without any
# framework frame in the traceback, mean the case's own code is wrong.
CASE_BUG_TYPES = (NameError, SyntaxError, ImportError, AttributeError, KeyError, IndexError)


def _trimmed_traceback(exc: BaseException) -> str:
    try:
        lines = traceback.format_exception(type(exc), exc, exc.__traceback__)
    except Exception:
        lines = traceback.format_tb(exc.__traceback__)
    text = "".join(lines).splitlines()
    if len(text) > TRACEBACK_LINES:
        text = ["...", *text[-TRACEBACK_LINES:]]
    # Lines are bounded in number, not length: a 10 MB message is one line.
    return clip("\n".join(text), TRACEBACK_CHARS)


def _error_fields(exc: BaseException) -> Dict[str, str]:
    return {
        "type": f"{type(exc).__module__}.{type(exc).__qualname__}",
        "message": clip(safe_str(exc), MESSAGE_CHARS),
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


def _str_works(exc: BaseException) -> bool:
    try:
        str(exc)
    except Exception:
        return False
    return True


def outcome_from_exception(
    exc: BaseException, stage: str, framework: str, rules: List[Dict[str, Any]]
) -> Dict[str, Any]:
    """Outcome fields of a case that raised ``exc`` while the context was at ``stage``."""
    original = exc.original if isinstance(exc, StageFailure) else exc
    if not _str_works(original):
        # An exception that cannot even say what it is came from the case's own code.
        return {"outcome": "error", "error": _error_fields(original)}
    if isinstance(exc, SkipCase):
        return {"outcome": "skip", "reason": clip(safe_str(exc) or "skipped", REASON_CHARS)}
    if isinstance(exc, CheckFailed):
        if exc.category not in CATEGORIES:
            bug = CaseBug(
                f"ctx.check was given category {str(exc.category)[:60]!r}, which is not one of "
                f"{', '.join(CATEGORIES)}"
            )
            return {"outcome": "error", "error": _error_fields(bug)}
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
        self._loaded: Dict[str, Union[Dict[str, api.CaseSpec], BaseException]] = {}

    def cases(self, relative: str, listed: Optional[List[str]] = None) -> Dict[str, api.CaseSpec]:
        """The file's cases by name; raises what the import raised (an ``error`` outcome).

        ``listed`` is the host's reading of the file (its literal ``@case`` names); a file
        that registers other names at run time would run cases nobody planned, or skip some
        silently, so it is refused as a whole.
        """
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
            found = {case_spec.name: case_spec for case_spec in api.registered_cases()}
            if listed is not None and set(found) != set(listed):
                unseen = sorted(set(found) - set(listed))
                missing = sorted(set(listed) - set(found))
                raise CaseBug(
                    f"{relative} registers cases at run time that the host cannot list "
                    f"(not listed: {unseen[:5]}, listed but not registered: {missing[:5]}); "
                    'register each case with a literal @case("name") decorator'
                )
        except BaseException as exc:
            self._loaded[relative] = exc
            raise
        self._loaded[relative] = found
        return found


class Worker:
    def __init__(self, plan: Plan, pipe_fd: int) -> None:
        self.plan = plan
        self.pipe_fd = pipe_fd
        self.adapter: Any = None
        self._cpu_adapter: Any = None
        # The warm-phase cap the supervisor sent with the case being run (a cell budget).
        self._warm_cap_s: Optional[float] = None

    def send(self, message: Dict[str, Any]) -> None:
        data = encode(message)
        while data:
            written = os.write(self.pipe_fd, data)
            data = data[written:]

    def start(self, collect: bool) -> bool:
        accelerator = self.plan["accelerator"]
        self.adapter = make_adapter(self.plan["framework"], accelerator["flavor"], accelerator)
        self.adapter.fallback_settings = fallback.settings_from_plan(self.plan)
        try:
            self.adapter.load()
        except (DeviceMissing, DeviceMismatch) as exc:
            self.send({"type": "fatal", "message": clip(str(exc), MESSAGE_CHARS)})
            return False
        except Exception as exc:
            self.send(
                {
                    "type": "fatal",
                    "message": f"{self.plan['framework']} failed to load in this cell "
                    f"({type(exc).__name__}: {clip(safe_str(exc), MESSAGE_CHARS)}); "
                    "check the cell's environment",
                }
            )
            return False
        env = collect_env(self.adapter, self.plan.get("timing")) if collect else None
        self.send({"type": "hello", "pid": os.getpid(), "env": env})
        return True

    def _context(
        self,
        adapter: Any,
        case: Dict[str, Any],
        on_stage: Optional[Callable[[str], None]],
        twin: bool = False,
    ) -> Context:
        return Context(
            adapter,
            case["id"],
            case["seed"],
            self.plan["profile"],
            "cpu" if twin else self.plan["accelerator"]["id"],
            self._timing(),
            on_stage=on_stage,
            keep_output=bool(self.plan.get("differential")),
            cold_only=twin,
        )

    def _timing(self) -> Optional[Dict[str, Any]]:
        """The plan's timing settings, with the cap the supervisor sent for this case."""
        timing = self.plan.get("timing")
        if self._warm_cap_s is None:
            return timing
        return {**(timing or {}), "warm_cap_s": self._warm_cap_s}

    def _execute(self, adapter: Any, spec: api.CaseSpec, ctx: Context) -> Dict[str, Any]:
        """Run one case body under ``adapter``; its outcome fields (no timing)."""
        fields: Dict[str, Any]
        try:
            with adapter.case_scope():
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
            try:
                fields = outcome_from_exception(
                    exc, ctx.stage, self.plan["framework"], self.plan["rules"]
                )
            except Exception as inner:  # classifying a case's own broken exception
                fields = {"outcome": "error", "error": _error_fields(inner)}
        return fields

    def cpu_adapter(self) -> Any:
        """The framework's CPU, loaded once per worker, for the differential twin."""
        if self._cpu_adapter is None:
            adapter = make_adapter(self.plan["framework"], "cpu", {"id": "cpu", "flavor": "cpu"})
            adapter.load()
            self._cpu_adapter = adapter
        return self._cpu_adapter

    def _differential(
        self, fields: Dict[str, Any], spec: api.CaseSpec, case: Dict[str, Any], ctx: Context
    ) -> None:
        """Run the case's CPU twin and fold what it says into ``fields`` (differential.py)."""
        try:
            adapter = self.cpu_adapter()
        except Exception as exc:
            fields["cpu_reference"] = {
                "outcome": "error",
                "message": clip(f"the CPU could not be loaded: {safe_str(exc)}", MESSAGE_CHARS),
                "compared": False,
            }
            return
        twin_ctx = self._context(adapter, case, None, twin=True)
        twin = self._execute(adapter, spec, twin_ctx)
        reference, mismatch = cpu_reference(fields, twin, ctx, twin_ctx)
        fields["cpu_reference"] = reference
        if mismatch is not None:
            fields.update(
                {
                    "outcome": "fail",
                    "stage": "check",
                    "category": "precision",
                    "error": {
                        "type": "portbench.DifferentialMismatch",
                        "message": clip(mismatch, MESSAGE_CHARS),
                        "traceback": "",
                    },
                }
            )

    def run_case(
        self, entry: CaseEntry, files: CaseFiles, on_stage: Optional[Callable[[str], None]] = None
    ) -> Dict[str, Any]:
        case = entry["case"]
        ctx = self._context(self.adapter, case, on_stage)
        function = entry["function"]
        if function.get("census") is not None:
            return self._predicted(self.run_census_case(ctx, entry), ctx)
        try:
            specs = files.cases(function["case_file"], function.get("file_cases"))
        except BaseException as exc:
            return {"outcome": "error", "error": _error_fields(exc), "timing": None}
        spec = specs.get(case["name"])
        if spec is None:
            message = f"case {case['name']!r} is not registered by {function['case_file']}"
            return {
                "outcome": "error",
                "error": {"type": "LookupError", "message": message, "traceback": ""},
            }
        fields = self._execute(self.adapter, spec, ctx)
        if self.plan.get("differential") and fields["outcome"] in ("pass", "fail"):
            if on_stage is not None:
                on_stage("check")  # a crash in the CPU twin is recorded at the check stage
            self._differential(fields, spec, case, ctx)
        fields["timing"] = ctx.timing
        # Cut back here too: a case may have replaced ctx.evidence with something that
        # would not even fit in one protocol message.
        try:
            evidence = fallback.clean_evidence(ctx.evidence)
        except Exception:  # planted objects whose str() raises
            evidence = None
        if evidence is not None:
            fields["evidence"] = evidence
        return self._predicted(fields, ctx)

    def _predicted(self, fields: Dict[str, Any], ctx: Context) -> Dict[str, Any]:
        """A predicted cell's record fields (prediction.py); an observed cell's unchanged."""
        return prediction.fold(
            fields,
            ctx.look,
            self.adapter.fallback_settings.get("predict"),
            lambda exc, stage: list(classify(exc, stage, self.plan["rules"])),
            _error_fields,
        )

    def run_census_case(self, ctx: Context, entry: CaseEntry) -> Dict[str, Any]:
        """A census case: an entry of the framework's own database, not a case file."""
        from .census.case import run_census_case

        try:
            return run_census_case(
                self.adapter, ctx, entry["function"], entry["case"], self.plan, _error_fields
            )
        except Exception as exc:
            try:
                fields = outcome_from_exception(
                    exc, ctx.stage, self.plan["framework"], self.plan["rules"]
                )
            except Exception as inner:
                fields = {"outcome": "error", "error": _error_fields(inner)}
            fields["timing"] = ctx.timing
            return fields

    def report(self, case_id: str, fields: Dict[str, Any]) -> None:
        """Send a case's result; a result JSON cannot carry is the case's bug, sent as error."""
        try:
            data = encode({"type": "result", "case": case_id, "outcome": fields})
        except (TypeError, ValueError) as exc:
            bug = CaseBug(f"the case's result cannot be reported ({safe_str(exc)[:200]})")
            data = encode(
                {
                    "type": "result",
                    "case": case_id,
                    "outcome": {"outcome": "error", "error": _error_fields(bug), "timing": None},
                }
            )
        while data:
            written = os.write(self.pipe_fd, data)
            data = data[written:]

    def serve(self, commands: Any) -> None:
        """Run each case the supervisor asks for, until ``stop`` or the end of stdin."""
        entries = self.plan_index()
        files = CaseFiles(self.plan["manifest_root"], self.plan["framework"])
        for raw in commands:
            try:
                command = decode(raw, ("run", "stop"))
            except ProtocolError:
                break  # only the supervisor writes our stdin: it is gone or confused
            if command["type"] == "stop" or command.get("case") not in entries:
                break
            case_id = command["case"]
            cap = command.get("warm_cap_s")
            self._warm_cap_s = float(cap) if isinstance(cap, (int, float)) else None
            self.send({"type": "start", "case": case_id})
            started = time.time()

            def on_stage(stage: str, case_id: str = case_id) -> None:
                self.send({"type": "stage", "case": case_id, "stage": stage})

            fields = self.run_case(entries[case_id], files, on_stage)
            fields["started_at"] = started
            fields["duration_s"] = time.time() - started
            self.report(case_id, fields)
        self.send({"type": "bye"})

    def plan_index(self) -> Dict[str, CaseEntry]:
        index: Dict[str, CaseEntry] = {}
        for function in self.plan["functions"]:
            for case in function["cases"]:
                index[case["id"]] = {"function": function, "case": case}
        return index


def run_worker(plan_path: str, pipe_fd: int, collect_env_flag: bool, parent: int) -> int:
    die_with_parent(parent)
    plan = load_plan(plan_path)
    worker = Worker(plan, pipe_fd)
    if not worker.start(collect_env_flag):
        return 3
    worker.serve(sys.stdin.buffer)
    return 0
