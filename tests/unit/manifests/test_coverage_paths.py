"""The coverage table's kinds of paths, read from case names (issue #33)."""

from __future__ import annotations

from portbench.coverage import paths_named


def test_each_kind_is_named_by_the_first_word() -> None:
    names = [
        "error-list-input",
        "golden-bits-jit-sweep",
        "index-bool-mask-eager-sweep",
        "vmap-axis0-jit-sweep",
        "vectorized-map-graph-sweep",
        "grad2-float64-xla-sweep",
        "flags-axis-0-keep-where-mask-sweep",
        "duplicate-add-eager-sweep",
        "checkpoint-iterator",
    ]
    assert paths_named(names) == [
        "error",
        "golden",
        "index",
        "transform",
        "flags",
        "duplicates",
        "checkpoint",
    ]


def test_older_names_count_as_what_they_are() -> None:
    # An index dtype is not an indexing form; older error cases end in "raises"/"refused",
    # whatever their first word; a kind's word later in a name does not count.
    assert paths_named(["index-int32-eager-sweep", "float32-eager"]) == []
    assert paths_named(["duplicate-without-reuse-raises"]) == ["error"]
    assert paths_named(["float-seed-refused-jit-sweep"]) == ["error"]
    assert paths_named(["typed-key-round-trip-jit-sweep", "same-stream-int8-eager-sweep"]) == []
