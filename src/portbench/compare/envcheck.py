"""A cell's env.json as compare reads it: usable, or one sentence saying why not.

A missing or damaged env.json must not read as an empty environment: compared with a good
one, every package would show as removed. So each way it can fail is named, and the
versions and packages of a cell whose env does not read are not compared at all. The bytes
go through the contract's bounded reader and its typed ``EnvDocument``; the facts compare
reads (packages, python, host, device, framework version) are checked for their shape
first, since the typed accessors read a damaged fact as empty.
"""

from __future__ import annotations

from pathlib import Path

from portbench_runner.contract import (
    DOCUMENT,
    ENV_SCHEMA,
    ContractError,
    EnvDocument,
    LineRefused,
    read_json,
)

from ..errors import ResultsError
from ..results.safeio import read_bounded

__all__ = ["ENV_SCHEMA", "MAX_ENV_BYTES", "read_env"]

#: A real env.json is tens of KB (pip list of a few hundred packages).
MAX_ENV_BYTES = DOCUMENT.max_bytes


def _shape_problem(env: dict[str, object]) -> str | None:
    packages = env.get("packages")
    if packages is not None and not (
        isinstance(packages, dict)
        and all(isinstance(k, str) and isinstance(v, str) for k, v in packages.items())
    ):
        return "its packages are not a table of names and versions"
    for key in ("python", "host", "device"):
        if env.get(key) is not None and not isinstance(env.get(key), dict):
            return f"its {key} is not an object"
    version = env.get("framework_version")
    if version is not None and not isinstance(version, str):
        return "its framework_version is not text"
    return None


def read_env(cell_dir: Path, cell: str) -> tuple[EnvDocument, str | None]:
    """(env, None) when ``cell_dir/env.json`` is usable, else (an empty env of ``cell``,
    why not)."""
    path = cell_dir / "env.json"
    empty = EnvDocument(cell)
    try:
        data = read_json(read_bounded(path, MAX_ENV_BYTES), DOCUMENT)
    except FileNotFoundError:
        return empty, "it is missing"
    except ResultsError:
        return empty, f"it is larger than {MAX_ENV_BYTES >> 20} MiB or not a plain file"
    except LineRefused as exc:
        return empty, f"it does not read ({str(exc)[:120]})"
    except OSError as exc:
        return empty, f"it cannot be read ({exc.strerror or exc})"
    if not isinstance(data, dict):
        return empty, f"it holds a JSON {type(data).__name__}, not an object"
    schema = data.get("schema", 1)
    if not isinstance(schema, int) or schema > ENV_SCHEMA:
        return empty, f"its schema {str(schema)[:12]} is not one this portbench reads"
    problem = _shape_problem(data)
    if problem:
        return empty, problem
    try:
        return EnvDocument.from_json(data, str(path)), None
    except ContractError as exc:
        return empty, f"it is not an env document ({str(exc)[:120]})"
