"""The case API: how a case file registers cases, and what a case may use.

A case file is a Python module under ``manifests/<framework>/cases/``. It registers
cases with the :func:`case` decorator; each decorator adds one case whose name is
the decorator's first argument and whose keyword arguments are passed to the
function. Names and parameters must be literals: the host reads them with ``ast``
to list a cell's cases without importing any framework.

Each case receives a :class:`portbench_runner.context.Context` as ``ctx``.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Dict, List, Optional

__all__ = ["CASE_NAME_PATTERN", "CaseSpec", "case", "clear_registry", "registered_cases"]

#: Allowed characters in a case name; the case id is ``<function>::<name>``.
CASE_NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$")


class CaseSpec:
    """One registered case: a name, the function that runs it, its parameters."""

    __slots__ = ("func", "name", "params")

    def __init__(self, name: str, func: Callable[..., Any], params: Dict[str, Any]) -> None:
        if not CASE_NAME_PATTERN.match(name):
            raise ValueError(
                f"case name {name!r} must match {CASE_NAME_PATTERN.pattern} "
                "(letters, digits, '_', '.', '-')"
            )
        self.name = name
        self.func = func
        self.params = params


# The registry is filled while one case file is imported; the worker clears it
# before each import, so a name belongs to exactly one file.
_REGISTRY: List[CaseSpec] = []


def case(name: str, **params: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register ``func`` as the case ``name``, called as ``func(ctx, **params)``.

    Stack several decorators on one function to parametrize it::

        @case("float32-eager", dtype="float32")
        @case("float64-jit", dtype="float64", jit=True)
        def sqrt_cases(ctx, dtype, jit=False): ...
    """

    def register(func: Callable[..., Any]) -> Callable[..., Any]:
        _REGISTRY.append(CaseSpec(name, func, dict(params)))
        return func

    return register


def registered_cases() -> List[CaseSpec]:
    """The cases registered since the last :func:`clear_registry`, in file order."""
    # Decorators apply bottom-up; reverse each function's block so the listed order
    # is the order a reader sees in the file.
    ordered: List[CaseSpec] = []
    block: List[CaseSpec] = []
    current: Optional[Callable[..., Any]] = None
    for spec in _REGISTRY:
        if spec.func is not current and block:
            ordered.extend(reversed(block))
            block = []
        current = spec.func
        block.append(spec)
    ordered.extend(reversed(block))
    return ordered


def clear_registry() -> None:
    del _REGISTRY[:]
