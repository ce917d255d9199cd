"""Failure categories from rules (data compiled by the host into the plan)."""

from __future__ import annotations

import re
from typing import Any, Dict, List, Optional, Tuple

__all__ = ["CATEGORIES", "classify", "classify_names", "exception_type_names"]

CATEGORIES = (
    "type",
    "not_implemented",
    "precision",
    "memory",
    "timeout",
    "crash",
    "fallback",
    "other",
    # Issue 33 (the lead reconciles these with issue 26's contract module at merge): why a
    # failure happened where the older categories could not say.
    "placement",  # forced onto a device that has no kernel for the op (soft placement off)
    "lowering",  # a compiler (XLA, inductor, torch_xla) could not translate the op
    "refusal",  # a documented refusal of a bad argument did not come, or came as another class
)

# Applied after the framework's own rules: facts true of every framework.
BUILTIN_RULES: List[Dict[str, Any]] = [
    {"id": "builtin.memory", "category": "memory", "types": ["MemoryError"]},
    {
        "id": "builtin.not-implemented",
        "category": "not_implemented",
        "types": ["NotImplementedError"],
    },
]


def exception_type_names(exc: BaseException) -> List[str]:
    """Names of the exception's classes, most derived first, bare and module-qualified."""
    names = []
    for klass in type(exc).__mro__:
        if klass is object:
            continue
        names.append(klass.__name__)
        names.append(f"{klass.__module__}.{klass.__qualname__}")
    return names


def _matches(rule: Dict[str, Any], names: List[str], message: str, stage: str) -> bool:
    types = rule.get("types") or []
    if types and not any(t in names for t in types):
        return False
    stages = rule.get("stages") or []
    if stages and stage not in stages:
        return False
    pattern = rule.get("message")
    if pattern and not re.search(pattern, message, re.IGNORECASE | re.DOTALL):
        return False
    return bool(types or pattern)


def classify(
    exc: BaseException, stage: str, rules: List[Dict[str, Any]]
) -> Tuple[str, Optional[str]]:
    """(category, id of the rule that matched or None) for a failure at ``stage``.

    The first matching rule wins; rules are the framework's own, then the built-in ones.
    An unmatched failure is ``other``: the report lists those for curation.
    """
    return classify_names(exception_type_names(exc), str(exc), stage, rules)


def classify_names(
    names: List[str], message: str, stage: str, rules: List[Dict[str, Any]]
) -> Tuple[str, Optional[str]]:
    """``classify`` for a failure known only by its type names and message (an imported
    report, where no exception object exists)."""
    for rule in list(rules) + BUILTIN_RULES:
        if _matches(rule, names, message, stage):
            return rule["category"], rule.get("id")
    return "other", None
