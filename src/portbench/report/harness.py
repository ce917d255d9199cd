"""Telling the study's harness errors from the framework's failures, by rule
(``paper/harness.toml``).

The study counted every failed sub-test against the framework, including ones its own
harness caused: a timing helper called with the wrong arguments (JAX's ``ones``, ``zeros``,
``vjp``), a test whose parametrization its reduced copy broke, a test that names something it
never imports. It also counted sub-tests that test nothing (``test_session``, a helper of
``tf.test.TestCase`` that pytest collects by its name) and a file that is not in its
repository at all. The report keeps these records, marks them ``harness`` and shows the study
counted with and without them.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from ..errors import ResultsError
from ..paths import project_root

__all__ = ["HarnessRule", "harness_rule_for", "load_harness_rules"]

_ON = ("message", "subtest", "note")


@dataclass(frozen=True)
class HarnessRule:
    id: str
    on: str
    """What the rule reads: the failure's ``message``, the ``subtest`` name, the function's
    ``note`` in functions.csv."""
    pattern: re.Pattern[str]
    why: str


def load_harness_rules(path: Path | None = None) -> tuple[HarnessRule, ...]:
    """The rules, checked: unknown keys, a missing field or a bad regex is one sentence."""
    path = path or project_root() / "paper" / "harness.toml"
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ResultsError(
            f"{path} is missing: the report needs the study's harness rules; run it from a "
            "portbench checkout (or set PORTBENCH_HOME to one)"
        ) from None
    except tomllib.TOMLDecodeError as exc:
        raise ResultsError(f"{path}: not valid TOML ({exc})") from None
    rules: list[HarnessRule] = []
    for index, raw in enumerate(data.get("rule", [])):
        where = f"{path}: rule #{index + 1} ({raw.get('id', 'no id')})"
        unknown = set(raw) - {"id", "on", "pattern", "why"}
        if unknown:
            raise ResultsError(
                f"{where}: unknown keys {sorted(unknown)} (allowed: id, on, pattern, why)"
            )
        if not all(isinstance(raw.get(k), str) and raw[k] for k in ("id", "pattern", "why")):
            raise ResultsError(f"{where}: 'id', 'pattern' and 'why' must be non-empty strings")
        if raw.get("on") not in _ON:
            raise ResultsError(f"{where}: 'on' must be one of {', '.join(_ON)}")
        try:
            pattern = re.compile(raw["pattern"])
        except re.error as exc:
            raise ResultsError(f"{where}: 'pattern' is not a valid regex ({exc})") from None
        rules.append(HarnessRule(raw["id"], raw["on"], pattern, raw["why"]))
    if len({r.id for r in rules}) != len(rules):
        raise ResultsError(f"{path}: rule ids must be unique")
    return tuple(rules)


def harness_rule_for(
    rules: tuple[HarnessRule, ...], subtest: str, message: str | None, note: str
) -> HarnessRule | None:
    """The first rule that matches: ``message`` is the failure's (None if it did not fail),
    ``subtest`` the name without its device suffix, ``note`` the function's note."""
    for rule in rules:
        if rule.on == "message" and message is not None and rule.pattern.search(message):
            return rule
        if rule.on == "subtest" and rule.pattern.fullmatch(subtest):
            return rule
        if rule.on == "note" and rule.pattern.search(note):
            return rule
    return None
