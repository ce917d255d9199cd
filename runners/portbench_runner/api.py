"""The case API: how a case file registers cases, and what a case may use.

A case file is a Python module under ``manifests/<framework>/cases/``. It registers
cases with the :func:`case` decorator; each decorator adds one case whose name is
the decorator's first argument and whose keyword arguments are passed to the
function. Names and parameters must be literals: the host reads them with ``ast``
to list a cell's cases without importing any framework.

A :func:`sweep` is one declaration that registers the Cartesian product of the values
named in its name template (``"{dtype}-{mode}"``), so a dtype or mode sweep is not N copied
decorators. The host expands it with :func:`expand_sweep`, the same function the worker
uses, so both sides agree on every name.

Each case receives a :class:`portbench_runner.context.Context` as ``ctx``.
"""

from __future__ import annotations

import itertools
import re
import string
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

__all__ = [
    "CASE_NAME_PATTERN",
    "CaseSpec",
    "case",
    "clear_registry",
    "expand_sweep",
    "registered_cases",
    "sweep",
]

#: Allowed characters in a case name; the case id is ``<function>::<name>``.
CASE_NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$")


class CaseSpec:
    """One registered case: a name, the function that runs it, its parameters."""

    __slots__ = ("func", "name", "params")

    def __init__(self, name: str, func: Callable[..., Any], params: Dict[str, object]) -> None:
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


def _axes(template: str) -> List[str]:
    """The names of the ``{field}`` placeholders in ``template``, in order, once each."""
    axes: List[str] = []
    for _, field, spec, conversion in string.Formatter().parse(template):
        if field is None:
            continue
        if not field.isidentifier() or spec or conversion:
            raise ValueError(
                f"sweep name {template!r}: placeholder {{{field}}} must be a bare keyword "
                "name (no format spec, index or conversion)"
            )
        if field not in axes:
            axes.append(field)
    return axes


def _axis(values: object) -> Sequence[object]:
    """A sweep axis's values (checked to be a non-empty list or tuple before)."""
    return values if isinstance(values, (list, tuple)) else ()


def expand_sweep(
    template: str,
    params: Dict[str, object],
    exclude: Sequence[Dict[str, object]] = (),
) -> List[Tuple[str, Dict[str, object]]]:
    """(name, parameters) of each case a sweep declares, in a fixed order.

    Every placeholder of ``template`` is an axis: its keyword must be a list or tuple of
    values, and the cases are their Cartesian product, the first axis varying slowest.
    Other keywords are passed unchanged to every case. A combination that matches every
    key of one ``exclude`` mapping is left out (for example a dtype that has no gradient).
    Plain data only, so the host reproduces the same names from the file's literals.
    """
    axes = _axes(template)
    if not axes:
        raise ValueError(f"sweep name {template!r} has no {{placeholder}}; use @case instead")
    for axis in axes:
        values = params.get(axis)
        if not isinstance(values, (list, tuple)) or not values:
            raise ValueError(
                f"sweep name {template!r}: keyword {axis!r} must be a non-empty list of values"
            )
    for rule in exclude:
        unknown = sorted(set(rule) - set(axes))
        if unknown:
            raise ValueError(f"sweep {template!r}: exclude names {unknown}, which are not axes")
    fixed = {key: value for key, value in params.items() if key not in axes}
    cases: List[Tuple[str, Dict[str, object]]] = []
    for combo in itertools.product(*(_axis(params[axis]) for axis in axes)):
        chosen = dict(zip(axes, combo))
        if any(all(chosen[k] == v for k, v in rule.items()) for rule in exclude):
            continue
        cases.append((template.format(**chosen), {**fixed, **chosen}))
    return cases


def sweep(
    template: str, exclude: Sequence[Dict[str, object]] = (), **params: Any
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register one case per combination of the axes named in ``template``.

    ::

        @sweep("{dtype}-{mode}", dtype=["float32", "bfloat16"], mode=["eager", "compiled"])
        def log1p_values(ctx, dtype, mode): ...

    registers ``float32-eager``, ``float32-compiled``, ``bfloat16-eager`` and
    ``bfloat16-compiled``. It stacks with :func:`case` and other sweeps; every name must
    still be unique in the file, so existing case ids never change when a sweep is added.
    """
    expanded = expand_sweep(template, params, exclude)

    def register(func: Callable[..., Any]) -> Callable[..., Any]:
        # Registered in reverse so that, after registered_cases() reverses each function's
        # block (decorators apply bottom-up), the sweep reads in its declared order.
        for name, case_params in reversed(expanded):
            _REGISTRY.append(CaseSpec(name, func, case_params))
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
