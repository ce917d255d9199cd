"""A cell's env.json as compare reads it: usable, or one sentence saying why not.

A missing or damaged env.json must not read as an empty environment: compared with a good
one, every package would show as removed. So each way it can fail is named, and the
versions and packages of a cell whose env does not read are not compared at all.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import ResultsError
from ..results.safeio import loads_strict, read_bounded

__all__ = ["ENV_SCHEMA", "MAX_ENV_BYTES", "read_env"]

#: env.json's schema this reader knows.
ENV_SCHEMA = 1
#: A real env.json is tens of KB (pip list of a few hundred packages).
MAX_ENV_BYTES = 8 << 20


def _shape_problem(env: dict[str, Any]) -> str | None:
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


def read_env(cell_dir: Path) -> tuple[dict[str, Any], str | None]:
    """(env, None) when ``cell_dir/env.json`` is usable, else ({}, why not)."""
    path = cell_dir / "env.json"
    try:
        data = loads_strict(read_bounded(path, MAX_ENV_BYTES))
    except FileNotFoundError:
        return {}, "it is missing"
    except ResultsError:
        return {}, f"it is larger than {MAX_ENV_BYTES >> 20} MiB or not a plain file"
    except UnicodeDecodeError:
        return {}, "it is not UTF-8 text"
    except (ValueError, RecursionError):
        return {}, "it is not JSON"
    except OSError as exc:
        return {}, f"it cannot be read ({exc.strerror or exc})"
    if not isinstance(data, dict):
        return {}, f"it holds a JSON {type(data).__name__}, not an object"
    schema = data.get("schema", 1)
    if not isinstance(schema, int) or schema > ENV_SCHEMA:
        return {}, f"its schema {str(schema)[:12]} is not one this portbench reads"
    problem = _shape_problem(data)
    return ({}, problem) if problem else (data, None)
