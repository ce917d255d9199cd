"""The worker: imports the framework once, then runs the cases the supervisor asks for.

It reads one command per line on stdin (``run`` a case, ``stop``) and answers on its pipe
(``protocol.py``). Everything it reports is bounded and strict JSON; a case whose own code
breaks the report (a category that is not one, an exception whose ``str`` raises) is an
``error``, not a failure of the framework.
"""

from __future__ import annotations

import errno
import importlib.util
import os
import platform
import sys
import time
import traceback
from dataclasses import replace
from typing import Any, BinaryIO, Callable, Dict, Iterable, Optional, Sequence, Tuple, Union

from . import api, fallback, prediction
from .adapters import DeviceMismatch, DeviceMissing, make_adapter
from .classify import classify
from .context import Context
from .contract import (
    CATEGORIES,
    COMMANDS,
    MESSAGE_CHARS,
    REASON_CHARS,
    TRACEBACK_CHARS,
    TRACEBACK_LINES,
    Bye,
    CaseResult,
    Category,
    ContractError,
    CpuReference,
    ErrorInfo,
    Evidence,
    Fatal,
    Hello,
    Message,
    Outcome,
    Plan,
    PlanCase,
    PlanFunction,
    PredictionSettings,
    Result,
    Rule,
    Run,
    Stage,
    StageReached,
    Start,
    Timing,
    TimingSettings,
    clip,
    decode,
    encode,
    load_plan,
    safe_str,
    strict,
)
from .contract.bounds import CASE_FILE_BYTES
from .differential import cpu_reference
from .envinfo import collect_env
from .hygiene import WorkerState
from .procs import die_with_parent, limit_file_size
from .signals import CaseBug, CheckFailed, FallbackDetected, SkipCase, StageFailure
from .workerproc import OUTPUT_MARK_ENV, case_mark

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


def _error(exc: BaseException) -> ErrorInfo:
    return ErrorInfo(
        f"{type(exc).__module__}.{type(exc).__qualname__}",
        clip(safe_str(exc), MESSAGE_CHARS),
        _trimmed_traceback(exc),
    )


def _bug(message: str) -> CaseResult:
    """An ``error``: the case used the runner wrongly (a bug of ours, not the framework's)."""
    return CaseResult(Outcome.ERROR, error=ErrorInfo("CaseBug", message))


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


def _failure(
    stage: str, category: str, exc: BaseException, rule: Optional[str] = None
) -> CaseResult:
    return CaseResult(Outcome.FAIL, Stage(stage), Category(category), rule, error=_error(exc))


def outcome_from_exception(
    exc: BaseException, stage: str, framework: str, rules: Iterable[Rule]
) -> CaseResult:
    """The result of a case that raised ``exc`` while the context was at ``stage``."""
    original = exc.original if isinstance(exc, StageFailure) else exc
    if not _str_works(original):
        # An exception that cannot even say what it is came from the case's own code.
        return CaseResult(Outcome.ERROR, error=_error(original))
    if isinstance(original, OSError) and original.errno == errno.EFBIG:
        # The worker's file size limit (procs.limit_file_size): the case's own doing.
        return CaseResult(
            Outcome.ERROR,
            reason=f"the case wrote a file past the cell's limit of {CASE_FILE_BYTES >> 20} "
            "MiB a file",
            error=_error(original),
        )
    if isinstance(exc, SkipCase):
        return CaseResult(Outcome.SKIP, reason=clip(safe_str(exc) or "skipped", REASON_CHARS))
    if isinstance(exc, CheckFailed):
        if exc.category not in CATEGORIES:
            bug = CaseBug(
                f"ctx.check was given category {str(exc.category)[:60]!r}, which is not one of "
                f"{', '.join(CATEGORIES)}"
            )
            return CaseResult(Outcome.ERROR, error=_error(bug))
        return _failure("check", exc.category, exc)
    if isinstance(exc, FallbackDetected):
        return _failure("call", "fallback", exc)
    if isinstance(exc, StageFailure):
        category, rule = classify(exc.original, exc.stage, rules)
        return _failure(exc.stage, category, exc.original, rule)
    if isinstance(exc, CaseBug) or (
        isinstance(exc, CASE_BUG_TYPES) and not _raised_by_framework(exc, framework)
    ):
        return CaseResult(Outcome.ERROR, error=_error(exc))
    if not _raised_by_framework(exc, framework) and stage == "setup":
        # Setup code that never reached the framework (NumPy reference, our own helpers).
        return CaseResult(Outcome.ERROR, error=_error(exc))
    category, rule = classify(exc, stage, rules)
    return _failure(stage, category, exc, rule)


class CaseFiles:
    """Imports each case file once and indexes its registered cases by name."""

    def __init__(self, root: str, framework: str) -> None:
        self.root = root
        self.framework = framework
        self._loaded: Dict[str, Union[Dict[str, api.CaseSpec], BaseException]] = {}

    def cases(
        self, relative: str, listed: Optional[Sequence[str]] = None
    ) -> Dict[str, api.CaseSpec]:
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
        # The supervisor's token for case marks in the output; out of the environment
        # before any case runs, so no case reads it.
        token = os.environ.pop(OUTPUT_MARK_ENV, "")
        self.output_mark = case_mark(token) if token else b""
        self.adapter: Any = None
        self._cpu_adapter: Any = None
        # A mutation run's state (its baselines), made on its first case.
        self._mutation: Any = None
        # The warm-phase cap the supervisor sent with the case being run (a cell budget).
        self._warm_cap_s: Optional[float] = None

    def send(self, message: Message) -> None:
        data = encode(message)
        while data:
            written = os.write(self.pipe_fd, data)
            data = data[written:]

    def start(self, collect: bool) -> bool:
        plan = self.plan
        acc = plan.accelerator
        names = {"id": acc.id, "flavor": acc.flavor, "device_match": acc.device_match}
        names.update({"generic": acc.generic, "gfx": acc.gfx})
        self.adapter = make_adapter(plan.framework, acc.flavor, names)
        self.adapter.fallback_settings = plan.fallback.to_json()
        self.adapter.prediction = plan.prediction
        try:
            self.adapter.load()
        except (DeviceMissing, DeviceMismatch) as exc:
            self.send(Fatal(clip(str(exc), MESSAGE_CHARS)))
            return False
        except Exception as exc:
            self.send(
                Fatal(
                    f"{plan.framework} failed to load in this cell "
                    f"({type(exc).__name__}: {clip(safe_str(exc), MESSAGE_CHARS)}); "
                    "check the cell's environment"
                )
            )
            return False
        env = collect_env(self.adapter, self._settings()) if collect else None
        numpy = getattr(sys.modules.get("numpy"), "__version__", None)
        self.send(
            Hello(
                os.getpid(),
                env,
                platform.python_version(),
                numpy if isinstance(numpy, str) else None,
            )
        )
        return True

    def _context(
        self,
        adapter: Any,
        case: PlanCase,
        on_stage: Optional[Callable[[str], None]],
        twin: bool = False,
    ) -> Context:
        return Context(
            adapter,
            case.id,
            case.seed,
            self.plan.profile,
            "cpu" if twin else self.plan.accelerator.id,
            self._timing(),
            on_stage=on_stage,
            keep_output=self.plan.differential,
            cold_only=twin,
        )

    def _settings(self) -> Optional[TimingSettings]:
        return dict(self.plan.timing) if self.plan.timing else None

    def _timing(self) -> Optional[TimingSettings]:
        """The plan's timing settings, with the cap the supervisor sent for this case."""
        settings = self._settings()
        if self._warm_cap_s is None:
            return settings
        return {**(settings or {}), "warm_cap_s": self._warm_cap_s}

    def _execute(self, adapter: Any, spec: api.CaseSpec, ctx: Context) -> CaseResult:
        """Run one case body under ``adapter``; its result (no timing)."""
        try:
            with adapter.case_scope():
                spec.func(ctx, **spec.params)
        except Exception as exc:
            try:
                return outcome_from_exception(exc, ctx.stage, self.plan.framework, self.plan.rules)
            except Exception as inner:  # classifying a case's own broken exception
                return CaseResult(Outcome.ERROR, error=_error(inner))
        if ctx.timing is None:
            return _bug("the case never called ctx.measure: nothing was timed")
        return CaseResult(Outcome.PASS)

    def cpu_adapter(self) -> Any:
        """The framework's CPU, loaded once per worker, for the differential twin."""
        if self._cpu_adapter is None:
            adapter = make_adapter(self.plan.framework, "cpu", {"id": "cpu", "flavor": "cpu"})
            adapter.load()
            self._cpu_adapter = adapter
        return self._cpu_adapter

    def _differential(
        self, result: CaseResult, spec: api.CaseSpec, case: PlanCase, ctx: Context
    ) -> CaseResult:
        """Run the case's CPU twin and fold what it says into ``result`` (differential.py)."""
        try:
            adapter = self.cpu_adapter()
        except Exception as exc:
            message = clip(f"the CPU could not be loaded: {safe_str(exc)}", MESSAGE_CHARS)
            return replace(
                result, cpu_reference=CpuReference(Outcome.ERROR, message=message, compared=False)
            )
        twin_ctx = self._context(adapter, case, None, twin=True)
        twin = self._execute(adapter, spec, twin_ctx)
        reference, mismatch = cpu_reference(result, twin, ctx, twin_ctx)
        result = replace(result, cpu_reference=reference)
        if mismatch is None:
            return result
        error = ErrorInfo("portbench.DifferentialMismatch", clip(mismatch, MESSAGE_CHARS))
        return replace(
            result,
            outcome=Outcome.FAIL,
            stage=Stage.CHECK,
            category=Category.PRECISION,
            error=error,
        )

    def run_case(
        self,
        function: PlanFunction,
        case: PlanCase,
        files: CaseFiles,
        on_stage: Optional[Callable[[str], None]] = None,
    ) -> CaseResult:
        ctx = self._context(self.adapter, case, on_stage)
        if function.census is not None:
            return self._predicted(self.run_census_case(ctx, function, case), ctx)
        try:
            specs = files.cases(function.case_file, function.file_cases)
        except BaseException as exc:
            return CaseResult(Outcome.ERROR, error=_error(exc))
        spec = specs.get(case.name)
        if spec is None:
            message = f"case {case.name!r} is not registered by {function.case_file}"
            return CaseResult(Outcome.ERROR, error=ErrorInfo("LookupError", message))
        if self.plan.is_mutation:
            mutant: CaseResult = self._mutation_runner().run(spec, case, on_stage)
            return mutant
        result = self._execute(self.adapter, spec, ctx)
        if self.plan.differential and result.outcome in (Outcome.PASS, Outcome.FAIL):
            if on_stage is not None:
                on_stage("check")  # a crash in the CPU twin is recorded at the check stage
            result = self._differential(result, spec, case, ctx)
        return self._predicted(self._with_measurement(result, ctx), ctx)

    def _predicted(self, result: CaseResult, ctx: Context) -> CaseResult:
        """A predicted cell's result (prediction.py), with one result per sibling target
        from the same control and the same looks; an observed cell's unchanged."""
        settings = self.plan.prediction
        if settings is None:
            return result
        looks = ctx.looks or {}

        def fold(target: PredictionSettings) -> CaseResult:
            return prediction.fold(
                result,
                looks.get(target.looks_at),
                target,
                lambda exc, stage: classify(exc, stage, self.plan.rules),
                _error,
            )

        siblings = tuple(fold(s) for s in settings.sibling_settings())
        return replace(fold(settings), siblings=siblings)

    def _mutation_runner(self) -> Any:
        if self._mutation is None:
            from .mutation.run import MutationRunner

            self._mutation = MutationRunner(self)
        return self._mutation

    def _with_measurement(self, result: CaseResult, ctx: Context) -> CaseResult:
        """``result`` with the context's timing and evidence, each read as the contract
        says; a case that replaced them with something else broke its own report."""
        try:
            # In-process floats may be NaN or infinite: named as strict JSON names them.
            timing = None if ctx.timing is None else Timing.from_json(strict(ctx.timing), "timing")
        except ContractError as exc:
            return _bug(f"the case's timing cannot be reported ({str(exc)[:200]})")
        try:
            # Cut back here: a case may have replaced ctx.evidence with something that
            # would not even fit in one protocol message.
            cleaned = fallback.clean_evidence(ctx.evidence)
            evidence = None if cleaned is None else Evidence.from_json(strict(cleaned), "evidence")
        except Exception:  # planted objects whose str() raises, shapes that do not read
            evidence = None
        return result.measured(timing, evidence, result.started_at, result.duration_s)

    def run_census_case(self, ctx: Context, function: PlanFunction, case: PlanCase) -> CaseResult:
        """A census case: an entry of the framework's own database, not a case file."""
        from .census.case import run_census_case

        try:
            result = run_census_case(self.adapter, ctx, function, case, self.plan, _error)
        except Exception as exc:
            try:
                result = outcome_from_exception(
                    exc, ctx.stage, self.plan.framework, self.plan.rules
                )
            except Exception as inner:
                result = CaseResult(Outcome.ERROR, error=_error(inner))
        return self._with_measurement(result, ctx)

    def report(self, case_id: str, result: CaseResult) -> None:
        """Send a case's result; a result JSON cannot carry is the case's bug, sent as error."""
        try:
            data = encode(Result(case_id, result))
        except (TypeError, ValueError) as exc:
            bug = CaseBug(f"the case's result cannot be reported ({safe_str(exc)[:200]})")
            data = encode(Result(case_id, CaseResult(Outcome.ERROR, error=_error(bug))))
        while data:
            written = os.write(self.pipe_fd, data)
            data = data[written:]

    def mark_output(self) -> None:
        """Where this case's output begins, in the output stream itself (``case_mark``):
        what earlier cases left in Python's buffers goes out first."""
        if not self.output_mark:
            return
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # a case may have replaced or closed the stream
                pass
        try:
            os.write(1, self.output_mark)
        except OSError:
            pass  # no output pipe: nothing of this case's output is counted either

    def serve(self, commands: Iterable[bytes]) -> None:
        """Run each case the supervisor asks for, until ``stop`` or the end of stdin, or until
        a case left this worker in a state it cannot be put back from (then it retires, and
        the supervisor's next worker takes the next case)."""
        files = CaseFiles(self.plan.manifest_root, self.plan.framework)
        state = WorkerState()
        for raw in commands:
            try:
                command = decode(raw, COMMANDS)
            except ContractError:
                break  # only the supervisor writes our stdin: it is gone or confused
            if not isinstance(command, Run) or command.case not in self.plan:
                break
            case_id = command.case
            self._warm_cap_s = command.warm_cap_s
            self.mark_output()
            self.send(Start(case_id))
            started = time.time()

            def on_stage(stage: str, case_id: str = case_id) -> None:
                self.send(StageReached(case_id, Stage(stage)))

            function, case = self.plan.entry(case_id)
            result = self.run_case(function, case, files, on_stage)
            duration = time.time() - started
            self.report(case_id, result.measured(result.timing, result.evidence, started, duration))
            why = state.restore()
            if why is not None:
                # To the worker's log. No ``bye``: that answers ``stop`` only; the supervisor
                # sees this worker end between cases and starts another for the next one.
                print(f"portbench worker retires after {case_id}: {why}", file=sys.stderr)
                return
        self.send(Bye())


def run_worker(plan_path: str, pipe_fd: int, collect_env_flag: bool, parent: int) -> int:
    die_with_parent(parent)
    limit_file_size(CASE_FILE_BYTES)
    plan = load_plan(plan_path)
    worker = Worker(plan, pipe_fd)
    if not worker.start(collect_env_flag):
        return 3
    stdin: BinaryIO = sys.stdin.buffer
    worker.serve(stdin)
    return 0
