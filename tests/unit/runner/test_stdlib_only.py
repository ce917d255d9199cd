"""runners/ imports only the standard library (frameworks and NumPy inside adapters and cases)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

from conftest import RUNNERS

# Imported lazily by adapters, checks and context, never by the engine at import time.
LAZY_ALLOWED = {"torch", "torch_xla", "tensorflow", "jax", "jaxlib", "numpy"}


def _imports(path: Path) -> list[tuple[int, str, bool]]:
    """(line, top-level module, at module level?) for each absolute import."""
    tree = ast.parse(path.read_text())
    top_level = {id(node) for node in tree.body}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        for name in names:
            found.append((node.lineno, name.split(".")[0], id(node) in top_level))
    return found


def test_runner_engine_imports_only_the_standard_library() -> None:
    offenders = []
    for path in sorted((RUNNERS / "portbench_runner").rglob("*.py")):
        for line, module, module_level in _imports(path):
            if module in sys.stdlib_module_names or module in ("portbench_runner", "__future__"):
                continue
            if module in LAZY_ALLOWED and not module_level:
                continue
            offenders.append(f"{path.relative_to(RUNNERS)}:{line}: {module}")
    assert offenders == []


def test_the_host_package_is_never_imported_in_a_cell() -> None:
    for path in (RUNNERS / "portbench_runner").rglob("*.py"):
        assert all(module != "portbench" for _, module, _ in _imports(path)), path
