"""Failure-category rules per framework (``manifests/<framework>/rules.toml``), checked at load.

Each rule maps an exception type (any class in its MRO, bare or module-qualified name)
and/or a message regex to a category. The first match wins; unmatched failures are
``other``. Rules travel in the plan; the runner applies them.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from portbench_runner.contract import CATEGORIES, STAGES, Rule, Stage

from .errors import ManifestError
from .paths import manifests_dir

__all__ = ["CATEGORIES", "STAGES", "load_rules"]

_KEYS = {"id", "category", "types", "message", "stages", "why"}


def load_rules(framework: str, root: Path | None = None) -> list[Rule]:
    """The framework's rules, as the plan carries them; a missing file means no rules."""
    path = (root or manifests_dir()) / framework / "rules.toml"
    if not path.exists():
        return []
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ManifestError(f"{path}: not valid TOML ({exc})") from None
    rules: list[Rule] = []
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
        rules.append(
            Rule(
                str(rule["id"]),
                str(rule["category"]),
                tuple(str(t) for t in rule.get("types", [])),
                rule.get("message"),
                tuple(Stage(s) for s in rule.get("stages", [])),
            )
        )
    return rules
