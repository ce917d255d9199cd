"""Failure categories from rules (data compiled by the host into the plan).

The categories themselves are the contract's (``contract.CATEGORIES``)."""

from __future__ import annotations

import re
from typing import Iterable, List, Optional, Tuple

from .contract import Rule

__all__ = ["BUILTIN_RULES", "classify", "classify_names", "exception_type_names"]

# Applied after the framework's own rules: facts true of every framework.
BUILTIN_RULES = (
    Rule("builtin.memory", "memory", ("MemoryError",)),
    Rule("builtin.not-implemented", "not_implemented", ("NotImplementedError",)),
)


def exception_type_names(exc: BaseException) -> List[str]:
    """Names of the exception's classes, most derived first, bare and module-qualified."""
    names = []
    for klass in type(exc).__mro__:
        if klass is object:
            continue
        names.append(klass.__name__)
        names.append(f"{klass.__module__}.{klass.__qualname__}")
    return names


def _matches(rule: Rule, names: List[str], message: str, stage: str) -> bool:
    if rule.types and not any(t in names for t in rule.types):
        return False
    if rule.stages and stage not in rule.stages:
        return False
    pattern = rule.message
    if pattern and not re.search(pattern, message, re.IGNORECASE | re.DOTALL):
        return False
    return bool(rule.types or pattern)


def classify(exc: BaseException, stage: str, rules: Iterable[Rule]) -> Tuple[str, Optional[str]]:
    """(category, id of the rule that matched or None) for a failure at ``stage``.

    The first matching rule wins; rules are the framework's own, then the built-in ones.
    An unmatched failure is ``other``: the report lists those for curation.
    """
    return classify_names(exception_type_names(exc), str(exc), stage, rules)


def classify_names(
    names: List[str], message: str, stage: str, rules: Iterable[Rule]
) -> Tuple[str, Optional[str]]:
    """``classify`` for a failure known only by its type names and message (an imported
    report, where no exception object exists)."""
    for rule in (*rules, *BUILTIN_RULES):
        if _matches(rule, names, message, stage):
            return rule.category, rule.id
    return "other", None
