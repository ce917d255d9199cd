"""Failure-category rules per framework (``manifests/<framework>/rules.toml``), checked at load.

Each rule maps an exception type (any class in its MRO, bare or module-qualified name)
and/or a message regex to a category. The first match wins; unmatched failures are
``other``. Rules travel in the plan; the runner applies them.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

from .errors import ManifestError
from .paths import manifests_dir

__all__ = ["CATEGORIES", "STAGES", "load_rules"]

CATEGORIES = (
    "type",
    "not_implemented",
    "precision",
    "memory",
    "timeout",
    "crash",
    "fallback",
    "other",
    # Issue 33 (reconciled with issue 26's contract module at merge); the runner's list
    # (runners/portbench_runner/classify.py) is the same, in the same order.
    "placement",
    "lowering",
    "refusal",
)
STAGES = ("setup", "call", "check")
_KEYS = {"id", "category", "types", "message", "stages", "why"}


def load_rules(framework: str, root: Path | None = None) -> list[dict[str, Any]]:
    """The framework's rules as plain dicts for the plan; a missing file means no rules."""
    path = (root or manifests_dir()) / framework / "rules.toml"
    if not path.exists():
        return []
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ManifestError(f"{path}: not valid TOML ({exc})") from None
    rules: list[dict[str, Any]] = []
    seen: set[str] = set()
    for index, rule in enumerate(data.get("rule", [])):
        where = f"{path}: rule #{index + 1} ({rule.get('id', 'no id')})"
        unknown = set(rule) - _KEYS
        if unknown:
            raise ManifestError(
                f"{where}: unknown keys {sorted(unknown)} (allowed: {sorted(_KEYS)})"
            )
        if not rule.get("id") or rule["id"] in seen:
            raise ManifestError(f"{where}: every rule needs a unique 'id'")
        seen.add(rule["id"])
        if rule.get("category") not in CATEGORIES:
            raise ManifestError(
                f"{where}: category {rule.get('category')!r} is not one of {', '.join(CATEGORIES)}"
            )
        if not rule.get("types") and not rule.get("message"):
            raise ManifestError(f"{where}: give 'types', 'message' or both")
        if "message" in rule:
            try:
                re.compile(rule["message"])
            except re.error as exc:
                raise ManifestError(f"{where}: 'message' is not a valid regex ({exc})") from None
        for stage in rule.get("stages", []):
            if stage not in STAGES:
                raise ManifestError(f"{where}: stage {stage!r} is not one of {', '.join(STAGES)}")
        rules.append({k: v for k, v in rule.items() if k != "why"})
    return rules
