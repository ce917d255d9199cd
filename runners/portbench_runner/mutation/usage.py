"""Whether a case uses what its measured call returns, read from the case's source.

A case whose ``ctx.measure(...)`` is a statement of its own (or is assigned to a name that
is never read) checks state or arguments instead of the output: output mutants say nothing
about it, so it is counted apart. Read once per call site, from the frame that called
``ctx.measure`` (a helper shared by many cases is read once)."""

from __future__ import annotations

import ast
import inspect
import textwrap
from typing import Any, Dict, Optional, Tuple

__all__ = ["result_unused"]

_CACHE: Dict[Tuple[int, int], Optional[str]] = {}


def _parents(tree: ast.AST) -> Dict[ast.AST, ast.AST]:
    parents = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[child] = node
    return parents


def _is_measure(node: ast.AST) -> bool:
    return bool(
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "measure"
    )


def _names_read(tree: ast.AST) -> set:  # type: ignore[type-arg]
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _verdict(call: ast.AST, parents: Dict[ast.AST, ast.AST], tree: ast.AST) -> Optional[str]:
    parent = parents.get(call)
    if isinstance(parent, ast.Expr):
        return "the measured call's result is not used (a statement of its own)"
    if isinstance(parent, ast.Assign) and parent.value is call:
        names = [t.id for t in parent.targets if isinstance(t, ast.Name)]
        if len(names) == len(parent.targets) and not set(names) & _names_read(tree):
            return f"the measured call's result is assigned to {names[0]!r} and never read"
    return None


def result_unused(code: Any, line: int) -> Optional[str]:
    """Why the ``ctx.measure`` call at ``line`` of ``code`` (a code object) has its result
    unused, or None when it is used or the source cannot be read."""
    key = (id(code), line)
    if key in _CACHE:
        return _CACHE[key]
    verdict = None
    try:
        lines, first = inspect.getsourcelines(code)
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except (OSError, TypeError, SyntaxError, IndentationError):
        tree = None
    if tree is not None:
        calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and _is_measure(n)]
        here = [
            c
            for c in calls
            if c.lineno + first - 1
            <= line
            <= (getattr(c, "end_lineno", None) or c.lineno) + first - 1
        ]
        chosen = here or (calls if len(calls) == 1 else [])
        if chosen:
            verdict = _verdict(chosen[0], _parents(tree), tree)
    _CACHE[key] = verdict
    return verdict
