"""Write a drawn sample as a manifest skeleton (TOML) ready for curation.

The skeleton has the manifest's own keys (``function``, ``stratum``, ``frequency``,
``frequency_rank``, ``notes``) plus a ``[provenance]`` table; a curator adds each entry's
``study_test_file`` and ``case_file``. TOML is written here (the subset needed: strings,
integers, lists of integers, tables, arrays of tables) and read back with ``tomllib`` in
the tests.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from ..errors import UsageError
from .sampler import Sample

__all__ = ["Value", "render_skeleton", "write_skeleton"]

Value = str | int | bool | list[int]


def _value(value: Value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, list):
        return "[" + ", ".join(str(v) for v in value) + "]"
    # JSON's escapes (\" \\ \n \uXXXX) are valid in TOML basic strings.
    return json.dumps(value, ensure_ascii=False)


def _table(rows: Mapping[str, Value | None]) -> list[str]:
    return [f"{key} = {_value(value)}" for key, value in rows.items() if value is not None]


def render_skeleton(framework: str, sample: Sample, provenance: Mapping[str, Value | None]) -> str:
    """The skeleton's text: header, ``[provenance]``, replacements, then ``[[function]]``s."""
    lines = [
        "# Manifest skeleton written by `portbench sample`: curate it before use.",
        "# Each [[function]] still needs study_test_file and case_file (manifests/README.md).",
        "schema = 1",
        f"framework = {_value(framework)}",
        "",
        "[provenance]",
        *_table(provenance),
    ]
    for stratum in sample.strata:
        lines += ["", "[[provenance.strata]]"]
        lines += _table(
            {
                "stratum": stratum.stratum,
                "asked": stratum.asked,
                "pool": stratum.pool,
                "got": stratum.got,
            }
        )
    for gone in sample.replaced:
        lines += ["", "[[provenance.replaced]]"]
        lines += _table(
            {
                "function": gone.name,
                "stratum": gone.stratum,
                "reason": gone.reason,
                "replaced_by": gone.replaced_by,
            }
        )
    for pick in sample.picks:
        notes = []
        if pick.replaces:
            notes.append(f"replaces {pick.replaces}: {pick.reason}")
        if len(pick.tie_deciles) > 1:
            spans = ", ".join(str(d) for d in pick.tie_deciles)
            notes.append(f"its frequency is tied across deciles {spans}")
        lines += ["", "[[function]]"]
        lines += _table(
            {
                "function": pick.name,
                "stratum": pick.stratum,
                "frequency": pick.frequency,
                "frequency_rank": pick.rank,
                "notes": "; ".join(notes) or None,
            }
        )
    return "\n".join(lines) + "\n"


def write_skeleton(path: Path, text: str) -> None:
    """Create ``path`` (never overwrite)."""
    try:
        with open(path, "x", encoding="utf-8") as handle:
            handle.write(text)
    except FileExistsError:
        raise UsageError(
            f"{path} exists; choose a new --out file (nothing is overwritten)"
        ) from None
    except OSError as exc:
        raise UsageError(f"cannot write {path} ({exc.strerror}); check the folder") from None
