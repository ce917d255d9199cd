"""How wide the manifests are: cases per function, and the dtypes and modes their cases name.

``python -m portbench.coverage [--before MANIFESTS_DIR]`` prints the Markdown tables of
docs/case-coverage.md: per framework, functions, cases and cases per function (median /
minimum), and per function the dtypes and modes its case names carry, beside an older tree of
manifests (``git archive REV manifests | tar -x -C DIR``) when one is given.

Read from case names only (``float16-eager-sweep``): a case that uses float32 without saying
so is not counted, so the table shows what a reader of the ids can trust, never more.
"""

from __future__ import annotations

import argparse
import re
import statistics
from collections.abc import Iterable, Sequence
from pathlib import Path

from .manifest import FunctionEntry, load_manifest

__all__ = ["DTYPES", "MODES", "dtypes_named", "main", "modes_named", "summary_rows"]

FRAMEWORKS = ("torch", "tensorflow", "jax")
DTYPES = (
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "complex64",
    "complex128",
    "string",
)
#: Mode words as cases spell them: torch eager/compiled, jax jit, tf graph (tf.function) and
#: xla (jit_compile=True); grad marks a gradient case.
MODES = ("eager", "compiled", "jit", "graph", "xla", "grad")


def _tokens(names: Iterable[str]) -> set[str]:
    return {token for name in names for token in re.split(r"[-_.:]", name)}


def dtypes_named(case_names: Iterable[str]) -> list[str]:
    """The dtypes that appear as a word of some case name, in :data:`DTYPES` order."""
    found = _tokens(case_names)
    return [d for d in DTYPES if d in found]


def modes_named(case_names: Iterable[str]) -> list[str]:
    """The modes (and ``grad``) that appear as a word of some case name."""
    found = _tokens(case_names)
    return [m for m in MODES if m in found]


def _per_function(functions: Sequence[FunctionEntry]) -> list[int]:
    return [len(f.cases) for f in functions]


def summary_rows(
    after: dict[str, list[FunctionEntry]], before: dict[str, list[FunctionEntry]]
) -> list[str]:
    """One Markdown row per framework: functions, cases before/after, median / min per function."""
    rows = []
    for fw, functions in after.items():
        now = _per_function(functions)
        old = _per_function(before.get(fw, []))
        old_cells = (
            f"{sum(old)} | {sum(now)} | {statistics.median(old):g} / {min(old)} | "
            if old
            else f"- | {sum(now)} | - | "
        )
        rows.append(f"| {fw} | {len(now)} | {old_cells}{statistics.median(now):g} / {min(now)} |")
    return rows


def _words(values: Sequence[str]) -> str:
    return " ".join(values) or "-"


def function_rows(
    after: dict[str, list[FunctionEntry]], before: dict[str, list[FunctionEntry]]
) -> list[str]:
    rows = []
    for fw, functions in after.items():
        old = {(f.function, f.study_test_file): f for f in before.get(fw, [])}
        for f in functions:
            was = old.get((f.function, f.study_test_file))
            old_cases = list(was.cases) if was else []
            rows.append(
                f"| {fw} | `{f.function}` | {len(old_cases)} | {len(f.cases)} | "
                f"{_words(dtypes_named(old_cases))} | {_words(dtypes_named(f.cases))} | "
                f"{_words(modes_named(f.cases))} |"
            )
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m portbench.coverage", description=__doc__)
    parser.add_argument("--before", type=Path, help="an older manifests folder to set beside")
    args = parser.parse_args(argv)
    after = {fw: list(load_manifest(fw).functions) for fw in FRAMEWORKS}
    before = (
        {fw: list(load_manifest(fw, args.before).functions) for fw in FRAMEWORKS}
        if args.before
        else {}
    )
    print(
        "| framework | functions | cases before | cases after | per function before: median / min | after: median / min |"
    )
    print("| --- | ---: | ---: | ---: | --- | --- |")
    print("\n".join(summary_rows(after, before)))
    print()
    print(
        "| framework | function | cases before | after | dtypes named before | dtypes named after | modes named after |"
    )
    print("| --- | --- | ---: | ---: | --- | --- | --- |")
    print("\n".join(function_rows(after, before)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
