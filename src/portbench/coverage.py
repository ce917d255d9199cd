"""How wide the manifests are: cases per function, and the dtypes, modes and kinds of paths
their cases name.

``python -m portbench.coverage [--before MANIFESTS_DIR]`` prints the Markdown tables of
docs/case-coverage.md: per framework, functions, cases and cases per function (median /
minimum), and per function the dtypes, modes and kinds of paths its case names carry, beside an
older tree of manifests (``git archive REV manifests | tar -x -C DIR``) when one is given.

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

__all__ = [
    "DTYPES",
    "MODES",
    "PATH_KINDS",
    "dtypes_named",
    "main",
    "modes_named",
    "path_rows",
    "paths_named",
    "summary_rows",
]

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


#: The study's kinds of paths (issue #33), by the first word of a case's name: an error path
#: (the documented exception), golden values, indexing and slicing forms, a transform (jax.vmap,
#: tf.vectorized_map, second derivatives), a full grid of flags, duplicate indices, checkpoint
#: and restore. ``index-`` followed by an integer dtype names an index dtype
#: (tf.nn.space_to_batch's block shape), not an indexing form.
PATH_KINDS = {
    "error": "error",
    "golden": "golden",
    "index": "index",
    "vmap": "transform",
    "vectorized": "transform",
    "grad2": "transform",
    "flags": "flags",
    "duplicate": "duplicates",
    "checkpoint": "checkpoint",
}
_PATH_ORDER = ("error", "golden", "index", "transform", "flags", "duplicates", "checkpoint")
#: Words with which cases written before issue #33 name an error path ("...-raises",
#: "...-refused"): counted as error paths, whatever their first word.
_REFUSAL_WORDS = frozenset({"raises", "raise", "refused"})
_INT_DTYPES = frozenset(d for d in DTYPES if d.startswith(("int", "uint")))


def paths_named(case_names: Iterable[str]) -> list[str]:
    """The kinds of paths (:data:`PATH_KINDS`) whose word starts some case name, in order."""
    found = set()
    for name in case_names:
        words = re.split(r"[-_.:]", name)
        if _REFUSAL_WORDS & set(words):  # older error cases say so at the end of the name
            found.add("error")
            continue
        kind = PATH_KINDS.get(words[0])
        if kind == "index" and len(words) > 1 and words[1] in _INT_DTYPES:
            continue
        if kind:
            found.add(kind)
    return [k for k in _PATH_ORDER if k in found]


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
                f"{_words(modes_named(f.cases))} | {_words(paths_named(old_cases))} | "
                f"{_words(paths_named(f.cases))} |"
            )
    return rows


def path_rows(
    after: dict[str, list[FunctionEntry]], before: dict[str, list[FunctionEntry]]
) -> list[str]:
    """One Markdown row per framework: per kind of path, the functions whose cases name it and
    the cases that do (before -> after)."""
    rows = []
    for fw, functions in after.items():
        cells = []
        for kind in _PATH_ORDER:
            counts = []
            for entries in (before.get(fw, []), functions):
                fns = sum(1 for f in entries if kind in paths_named(f.cases))
                cases = sum(1 for f in entries for c in f.cases if paths_named([c]) == [kind])
                counts.append(f"{fns} / {cases}")
            cells.append(f"{counts[0]} -> {counts[1]}" if fw in before else counts[1])
        rows.append(f"| {fw} | " + " | ".join(cells) + " |")
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
    print("| framework | " + " | ".join(_PATH_ORDER) + " |")
    print("| --- |" + " ---: |" * len(_PATH_ORDER))
    print("\n".join(path_rows(after, before)))
    print()
    print(
        "| framework | function | cases before | after | dtypes named before | dtypes named after "
        "| modes named after | paths named before | paths named after |"
    )
    print("| --- | --- | ---: | ---: | --- | --- | --- | --- | --- |")
    print("\n".join(function_rows(after, before)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
