"""Loading and validating a framework's manifest and reading its cases without importing them.

``manifests/<framework>/manifest.toml`` lists the sampled functions; each names a case file
under ``manifests/<framework>/``. Case names come from the files' ``@case("name", ...)``
decorators, read with ``ast`` so no framework is imported on the host.

Manifest schema history:
  1 - first version. (``@sweep`` declarations in case files need no schema change: they
      expand to plain case names.)
"""

from __future__ import annotations

import ast
import copy
import hashlib
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, TypedDict, cast

from .errors import ManifestError, UsageError
from .paths import manifests_dir

__all__ = [
    "FRAMEWORKS",
    "MANIFEST_SCHEMA",
    "STRATA",
    "FunctionEntry",
    "Manifest",
    "load_manifest",
    "read_case_names",
]

FRAMEWORKS = ("torch", "tensorflow", "jax")
MANIFEST_SCHEMA = 1
TOP_LEVEL = {"schema", "framework", "function", "provenance"}
STRATA = ("top20", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "1|2")
CASE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$")
_FIELDS: dict[str, type | tuple[type, ...]] = {
    "function": str,
    "study_test_file": str,
    "stratum": str,
    "frequency": int,
    "frequency_rank": int,
    "case_file": str,
    "paper_label": str,
    "notes": str,
    "replaced": bool,
    "untested": dict,
    "timeout_s": (int, float),
}


class _Entry(TypedDict, total=False):
    """A [[function]] table as ``_check_entry`` has checked it (keys and types: _FIELDS)."""

    function: str
    study_test_file: str
    stratum: str
    frequency: int
    frequency_rank: int
    case_file: str
    paper_label: str
    notes: str
    replaced: bool
    untested: dict[str, str]
    timeout_s: float


@dataclass(frozen=True)
class FunctionEntry:
    """One sampled function; (function, study_test_file) is its key."""

    function: str
    study_test_file: str
    stratum: str
    frequency: int | None
    frequency_rank: int | None
    case_file: str
    cases: tuple[str, ...]
    case_file_sha256: str
    paper_label: str = ""
    notes: str = ""
    replaced: bool = False
    """The study's notes say the paper replaced this function (it is kept, marked)."""
    untested: dict[str, str] = field(default_factory=dict)
    """profile -> why this function cannot be tested there (it counts as untested)."""
    timeout_s: float | None = None
    case_code_sha256: dict[str, str] = field(default_factory=dict)
    """case name -> hash of that case's own code (:func:`read_case_code`)."""

    @property
    def key(self) -> tuple[str, str]:
        return (self.function, self.study_test_file)

    def case_id(self, name: str) -> str:
        return f"{self.function}::{name}"


@dataclass(frozen=True)
class Manifest:
    framework: str
    root: Path
    functions: tuple[FunctionEntry, ...]
    provenance: dict[str, object] = field(default_factory=dict)
    """Where the sample came from (``portbench sample`` writes it: corpus, its hash, seed,
    enumeration file, replacements); kept as written."""

    def case_ids(self) -> list[str]:
        return [f.case_id(c) for f in self.functions for c in f.cases]


def _literal_str(node: ast.AST) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def _runner_api() -> ModuleType:
    # The runner's own expansion, so a sweep's names on the host are exactly those the
    # worker registers.
    from portbench_runner import api

    return api


def _module_constants(
    tree: ast.Module, folder: Path, seen: frozenset[str] = frozenset()
) -> dict[str, object]:
    """Top-level ``NAME = <literal>`` assignments, so sweeps can share a dtype list, and names
    imported with ``from _helper import NAME [as ALIAS]`` from a helper module beside the
    case file (read the same way, never run), so case files share one list across a folder."""
    constants: dict[str, object] = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            constants.update(_imported_constants(node, folder, seen))
        elif (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
        ):
            try:
                constants[node.targets[0].id] = _literal(node.value, constants)
            except (ValueError, TypeError):
                continue
    return constants


def _imported_constants(
    node: ast.ImportFrom, folder: Path, seen: frozenset[str]
) -> dict[str, object]:
    """The literal constants ``node`` imports from a helper module in ``folder`` (if any)."""
    module = node.module or ""
    helper = folder / f"{module}.py"
    # Only a plain module name that is a file of the manifest folder: the cell mounts that
    # folder, so the worker imports the very file read here. A cycle reads nothing twice.
    if "." in module or module in seen or not helper.is_file() or helper.is_symlink():
        return {}
    try:
        tree = ast.parse(helper.read_text(encoding="utf-8"), filename=str(helper))
    except (SyntaxError, UnicodeDecodeError):
        return {}  # the worker's import fails the cases; names fall back to literals
    found = _module_constants(tree, folder, seen | {module})
    return {
        alias.asname or alias.name: found[alias.name] for alias in node.names if alias.name in found
    }


def _literal(node: ast.expr, constants: dict[str, object]) -> Any:
    """A literal, a top-level constant of the file, or ``a + b`` of those (list concatenation)."""
    if isinstance(node, ast.Name) and node.id in constants:
        return constants[node.id]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _literal(node.left, constants) + _literal(node.right, constants)
    return ast.literal_eval(node)


def _sweep_cases(
    path: Path, deco: ast.Call, constants: dict[str, object]
) -> list[tuple[str, dict[str, object]]]:
    """(name, parameters) of each case a ``@sweep("{a}-{b}", a=[...], b=[...],
    exclude=[...])`` declares."""
    where = f"{path}:{deco.lineno}"
    template = _literal_str(deco.args[0]) if len(deco.args) == 1 else None
    if template is None:
        raise ManifestError(f"{where}: @sweep needs one literal string name template")
    params: dict[str, object] = {}
    for keyword in deco.keywords:
        if keyword.arg is None:
            raise ManifestError(f"{where}: @sweep takes literal keywords, not **mappings")
        try:
            params[keyword.arg] = _literal(keyword.value, constants)
        except (ValueError, TypeError):
            if keyword.arg == "exclude" or f"{{{keyword.arg}}}" in template:
                raise ManifestError(
                    f"{where}: @sweep keyword {keyword.arg!r} must be a literal, a "
                    "top-level constant of the file assigned a literal, or one imported from "
                    "a helper module beside it"
                ) from None
            params[keyword.arg] = None  # a fixed, non-literal argument does not change names
    exclude = params.pop("exclude", ())
    try:
        expanded = _runner_api().expand_sweep(template, params, exclude)
    except (ValueError, TypeError, KeyError) as exc:
        raise ManifestError(f"{where}: {exc}") from None
    return [(name, params) for name, params in expanded]


def read_case_names(path: Path) -> list[str]:
    """Case names registered by ``@case("name", ...)`` and ``@sweep(...)`` decorators, in
    reading order."""
    return list(read_case_code(path))


def _code_hash(body: str, params: str) -> str:
    return hashlib.sha256(f"{body}\n{params}".encode()).hexdigest()


def read_case_code(path: Path) -> dict[str, str]:
    """Each case name (in reading order) with a hash of its own code: the body of the
    function it calls (read as a syntax tree, so layout and comments do not count) and its
    parameters. Adding a case, or editing another case's function, leaves the hash of every
    other case as it was, so runs pair case by case across such edits (``compare``); what
    the body imports from helper modules is not in it (nor in the case file's hash)."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except SyntaxError as exc:
        raise ManifestError(f"{path}:{exc.lineno}: case file does not parse ({exc.msg})") from None
    names: list[str] = []
    hashes: list[str] = []
    constants = _module_constants(tree, path.parent)
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        bare = copy.copy(node)
        bare.decorator_list = []
        body = ast.unparse(bare)
        for deco in node.decorator_list:
            if not isinstance(deco, ast.Call):
                continue
            func = deco.func
            called = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
            if called == "sweep":
                for swept, params in _sweep_cases(path, deco, constants):
                    names.append(swept)
                    hashes.append(_code_hash(body, repr(sorted(params.items()))))
                continue
            if called != "case":
                continue
            name = _literal_str(deco.args[0]) if deco.args else None
            if name is None:
                raise ManifestError(
                    f"{path}:{deco.lineno}: @case needs a literal string name as first argument"
                )
            names.append(name)
            hashes.append(_code_hash(body, ast.unparse(deco)))
    for name in names:
        if not CASE_NAME.match(name):
            raise ManifestError(f"{path}: case name {name!r} must match {CASE_NAME.pattern}")
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise ManifestError(f"{path}: case names registered twice: {', '.join(dupes)}")
    return dict(zip(names, hashes))


def _check_entry(raw: object, where: str) -> _Entry:
    if not isinstance(raw, dict):
        raise ManifestError(f"{where}: each [[function]] must be a table")
    for key in ("function", "study_test_file", "stratum", "case_file"):
        if key not in raw:
            raise ManifestError(f"{where}: missing '{key}'")
    for key, value in raw.items():
        if key not in _FIELDS:
            raise ManifestError(f"{where}: unknown key '{key}' (allowed: {', '.join(_FIELDS)})")
        if not isinstance(value, _FIELDS[key]):
            raise ManifestError(f"{where}: '{key}' has the wrong type ({type(value).__name__})")
    # `portbench sample --top K` writes "top<K>"; the study's sample is top20.
    if raw["stratum"] not in STRATA and not re.fullmatch(r"top[1-9][0-9]*", raw["stratum"]):
        raise ManifestError(
            f"{where}: unknown stratum {raw['stratum']!r} (allowed: top<K>, {', '.join(STRATA[1:])})"
        )
    untested = raw.get("untested", {})
    if not all(isinstance(v, str) for v in untested.values()):
        raise ManifestError(f"{where}: 'untested' maps profiles to reasons (strings)")
    return cast(_Entry, raw)


def _case_path(folder: Path, case_file: str, where: str) -> Path:
    """``folder / case_file``, refused unless it names a file inside ``folder``.

    Only what lies in the manifest folder is hashed into the plan and mounted into a cell, so
    a case file must not be absolute, climb out with ``..``, or be a link that leads out.
    """
    if Path(case_file).is_absolute():
        raise ManifestError(
            f"{where}: case_file {case_file!r} is an absolute path; move the file into "
            f"{folder} and name it relative to that folder"
        )
    if os.path.normpath(case_file).split(os.sep)[0] == os.pardir:
        raise ManifestError(
            f"{where}: case_file {case_file!r} climbs out of the manifest folder {folder} with "
            f"'..'; move the file into that folder and name it relative to it"
        )
    case_path = folder / case_file
    resolved = case_path.resolve()
    if not resolved.is_relative_to(folder.resolve()):
        raise ManifestError(
            f"{where}: case_file {case_file!r} goes through a symbolic link that leads out of "
            f"the manifest folder {folder} (to {resolved}); replace the link with a copy of the file"
        )
    return case_path


def load_manifest(framework: str, root: Path | None = None) -> Manifest:
    """Read and validate ``manifests/<framework>/manifest.toml``; errors name file and entry."""
    if framework not in FRAMEWORKS and root is None:
        raise UsageError(f"unknown framework '{framework}' (known: {', '.join(FRAMEWORKS)})")
    folder = (root or manifests_dir()) / framework
    path = folder / "manifest.toml"
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ManifestError(
            f"{path}: no manifest for {framework}; create one (see manifests/README.md)"
        ) from None
    except tomllib.TOMLDecodeError as exc:
        raise ManifestError(f"{path}: not valid TOML ({exc})") from None
    if data.get("schema") != MANIFEST_SCHEMA:
        raise ManifestError(
            f"{path}: 'schema' must be {MANIFEST_SCHEMA}, found {data.get('schema')!r}"
        )
    unknown = sorted(set(data) - TOP_LEVEL)
    if unknown:
        raise ManifestError(
            f"{path}: unknown top-level key(s) {', '.join(unknown)} "
            f"(allowed: {', '.join(sorted(TOP_LEVEL))})"
        )
    provenance = data.get("provenance", {})
    if not isinstance(provenance, dict):
        raise ManifestError(f"{path}: 'provenance' must be a table ([provenance])")
    if data.get("framework") != framework:
        raise ManifestError(
            f"{path}: 'framework' must be {framework!r}, found {data.get('framework')!r}"
        )
    entries: list[FunctionEntry] = []
    keys: set[tuple[str, str]] = set()
    ids: set[str] = set()
    for index, raw in enumerate(data.get("function", [])):
        name = raw.get("function", f"#{index + 1}") if isinstance(raw, dict) else f"#{index + 1}"
        where = f"{path}: function '{name}'"
        checked = _check_entry(raw, where)
        case_path = _case_path(folder, checked["case_file"], where)
        if not case_path.is_file():
            raise ManifestError(f"{where}: case file {checked['case_file']} does not exist")
        code = read_case_code(case_path)
        cases = list(code)
        entry = FunctionEntry(
            function=checked["function"],
            study_test_file=checked["study_test_file"],
            stratum=checked["stratum"],
            frequency=checked.get("frequency"),
            frequency_rank=checked.get("frequency_rank"),
            case_file=checked["case_file"],
            cases=tuple(cases),
            case_file_sha256=hashlib.sha256(case_path.read_bytes()).hexdigest(),
            paper_label=checked.get("paper_label", ""),
            notes=checked.get("notes", ""),
            replaced=checked.get("replaced", False),
            untested=dict(checked.get("untested", {})),
            timeout_s=checked.get("timeout_s"),
            case_code_sha256=code,
        )
        if entry.key in keys:
            raise ManifestError(
                f"{where}: listed twice with study_test_file {entry.study_test_file!r}"
            )
        keys.add(entry.key)
        for case_name in cases:
            case_id = entry.case_id(case_name)
            if case_id in ids:
                raise ManifestError(f"{where}: case id {case_id!r} is not unique in the manifest")
            ids.add(case_id)
        entries.append(entry)
    if not entries:
        raise ManifestError(f"{path}: lists no [[function]]")
    return Manifest(
        framework=framework, root=folder, functions=tuple(entries), provenance=provenance
    )
