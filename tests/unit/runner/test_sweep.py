"""Sweeps: one declaration, N cases with stable names, the same on the host and in the worker."""

from __future__ import annotations

from pathlib import Path

import pytest

from portbench.errors import ManifestError
from portbench.manifest import read_case_names
from portbench_runner.api import case, clear_registry, expand_sweep, registered_cases, sweep
from portbench_runner.checks import tolerance_for

SOURCE = """
from portbench_runner.api import case, sweep

FLOATS = ["float32", "bfloat16"]

@case("old-name", dtype="float32")
@sweep("{dtype}-{mode}", dtype=FLOATS + ["int32"], mode=["eager", "compiled"], n=4,
       exclude=[{"dtype": "int32", "mode": "compiled"}])
def values(ctx, dtype, mode="eager", n=1):
    pass

@sweep("grad-{dtype}", dtype=["float64"])
def grad(ctx, dtype):
    pass
"""


def test_sweep_expands_in_declared_order_with_fixed_parameters() -> None:
    cases = expand_sweep("{dtype}-{mode}", {"dtype": ["a", "b"], "mode": ["x", "y"], "n": 3})
    assert [name for name, _ in cases] == ["a-x", "a-y", "b-x", "b-y"]
    assert cases[1][1] == {"dtype": "a", "mode": "y", "n": 3}


def test_exclude_drops_matching_combinations_only() -> None:
    cases = expand_sweep(
        "{d}-{m}", {"d": ["i", "f"], "m": ["e", "c"]}, exclude=[{"d": "i", "m": "c"}]
    )
    assert [name for name, _ in cases] == ["i-e", "f-e", "f-c"]


@pytest.mark.parametrize(
    ("template", "params", "message"),
    [
        ("plain", {}, "no {placeholder}"),
        ("{dtype}", {"dtype": "float32"}, "must be a non-empty list"),
        ("{dtype:>3}", {"dtype": ["a"]}, "bare keyword"),
    ],
)
def test_malformed_sweeps_are_refused(template: str, params: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        expand_sweep(template, params)


def test_worker_registry_and_host_reading_agree(tmp_path: Path) -> None:
    path = tmp_path / "cases.py"
    path.write_text(SOURCE)
    host = read_case_names(path)
    clear_registry()
    namespace: dict = {}
    exec(compile(SOURCE, str(path), "exec"), namespace)
    worker = [spec.name for spec in registered_cases()]
    clear_registry()
    assert host == worker
    assert worker == [
        "old-name",
        "float32-eager",
        "float32-compiled",
        "bfloat16-eager",
        "bfloat16-compiled",
        "int32-eager",
        "grad-float64",
    ]


def test_sweeps_share_lists_from_a_helper_module_beside_the_case_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The helper builds its lists from another helper's, and the case file renames one:
    # the host reads all of it without running anything and agrees with the worker's import.
    (tmp_path / "_base.py").write_text('INTS = ["int8", "uint8"]\n')
    (tmp_path / "_help.py").write_text(
        'from _base import INTS\nFLOATS = ["float16", "float32"]\nALL = FLOATS + INTS\n'
        "def draw(ctx):\n    return None\n"
    )
    source = (
        "from portbench_runner.api import sweep\n"
        "from _help import ALL as EVERY, FLOATS, draw\n"
        '@sweep("{dtype}-{mode}", dtype=EVERY, mode=["eager"])\n'
        "def f(ctx, dtype, mode):\n    pass\n"
        '@sweep("grad-{dtype}", dtype=FLOATS + ["float64"])\n'
        "def g(ctx, dtype):\n    pass\n"
    )
    path = tmp_path / "cases.py"
    path.write_text(source)
    host = read_case_names(path)
    monkeypatch.syspath_prepend(str(tmp_path))
    clear_registry()
    exec(compile(source, str(path), "exec"), {})
    worker = [spec.name for spec in registered_cases()]
    clear_registry()
    assert host == worker
    assert host[:4] == ["float16-eager", "float32-eager", "int8-eager", "uint8-eager"]
    assert host[4:] == ["grad-float16", "grad-float32", "grad-float64"]


def test_a_name_no_helper_defines_is_refused(tmp_path: Path) -> None:
    (tmp_path / "_help.py").write_text("def FLOATS():\n    return []\n")
    path = tmp_path / "cases.py"
    path.write_text(
        "from portbench_runner.api import sweep\n"
        "from _help import FLOATS\n"
        '@sweep("{dtype}", dtype=FLOATS)\n'
        "def f(ctx, dtype):\n    pass\n"
    )
    with pytest.raises(ManifestError, match="must be a literal"):
        read_case_names(path)


def test_sweep_params_reach_the_case() -> None:
    clear_registry()

    @case("single", dtype="float64")
    @sweep("{dtype}", dtype=["float16", "int8"], n=2)
    def body(ctx: object, dtype: str, n: int = 0) -> None:
        pass

    specs = {spec.name: spec.params for spec in registered_cases()}
    clear_registry()
    assert specs == {
        "single": {"dtype": "float64"},
        "float16": {"dtype": "float16", "n": 2},
        "int8": {"dtype": "int8", "n": 2},
    }


def test_host_refuses_a_non_literal_axis(tmp_path: Path) -> None:
    path = tmp_path / "cases.py"
    path.write_text(
        "from portbench_runner.api import sweep\n"
        "import helpers\n"
        '@sweep("{dtype}", dtype=helpers.FLOATS)\n'
        "def f(ctx, dtype):\n    pass\n"
    )
    with pytest.raises(ManifestError, match="must be a literal"):
        read_case_names(path)


def test_a_sweep_that_repeats_an_existing_name_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "cases.py"
    path.write_text(
        "from portbench_runner.api import case, sweep\n"
        '@case("float32")\n'
        '@sweep("{dtype}", dtype=["float32", "float64"])\n'
        "def f(ctx, dtype='float32'):\n    pass\n"
    )
    with pytest.raises(ManifestError, match="registered twice: float32"):
        read_case_names(path)


def test_tolerances_grow_with_the_kind_of_computation_and_integers_are_exact() -> None:
    elementwise = tolerance_for("float16")
    assert tolerance_for("float16", "reduction") == (elementwise[0] * 10, elementwise[1] * 10)
    assert tolerance_for("bfloat16")[0] > tolerance_for("float16")[0] > tolerance_for("float32")[0]
    assert tolerance_for("int32", "linalg") == (0.0, 0.0)
    with pytest.raises(ValueError, match="unknown kind"):
        tolerance_for("float32", "fuzzy")
