"""Which base image's Python a wheel installs on: interpreter, ABI, glibc, architecture and
Requires-Python, as pip decides it."""

from __future__ import annotations

import pytest

from portbench.images.base import GLIBC, SUITES
from portbench.releases.pythons import BASE_PYTHONS, wheel_fits

BY_PYTHON = {base.python: base for base in BASE_PYTHONS}


def test_the_bases_are_tried_newest_first_and_match_the_suites() -> None:
    assert [b.python for b in BASE_PYTHONS] == ["3.13", "3.11", "3.9"]
    for base in BASE_PYTHONS:
        assert SUITES[base.suite] == base.python and GLIBC[base.suite] == base.glibc
    assert BY_PYTHON["3.13"].public_base == "python:3.13-slim-trixie"
    assert BY_PYTHON["3.13"].local_base == "portbench/base:trixie"
    # uv knows manylinux tags up to 2_40: trixie's glibc 2.41 resolves as 2_40.
    assert BY_PYTHON["3.13"].uv_platform("x86_64") == "x86_64-manylinux_2_40"
    assert BY_PYTHON["3.9"].uv_platform("aarch64") == "aarch64-manylinux_2_31"


@pytest.mark.parametrize(
    ("filename", "requires", "fits"),
    [
        # jaxlib 0.4.13: CPython 3.9-3.11 wheels on manylinux2014 (glibc 2.17).
        ("jaxlib-0.4.13-cp311-cp311-manylinux2014_x86_64.whl", None, {"3.11"}),
        ("jaxlib-0.4.13-cp39-cp39-manylinux2014_x86_64.whl", None, {"3.9"}),
        # A wheel for glibc 2.34 does not load on bullseye's 2.31.
        ("numpy-2.0.0-cp39-cp39-manylinux_2_34_x86_64.whl", None, set()),
        ("numpy-2.0.0-cp311-cp311-manylinux_2_34_x86_64.whl", None, {"3.11"}),
        # The stable ABI: one wheel for every Python from 3.9 on.
        ("cryptography-43.0.0-cp39-abi3-manylinux_2_28_x86_64.whl", None, {"3.9", "3.11", "3.13"}),
        # Pure Python, limited by Requires-Python.
        ("jax-0.6.2-py3-none-any.whl", ">=3.10", {"3.11", "3.13"}),
        ("jax-0.4.13-py3-none-any.whl", None, {"3.9", "3.11", "3.13"}),
        # Another architecture, another platform, a PyPy wheel: never.
        ("jaxlib-0.6.2-cp313-cp313-manylinux2014_aarch64.whl", None, set()),
        ("jaxlib-0.6.2-cp313-cp313-macosx_11_0_arm64.whl", None, set()),
        ("numpy-2.0.0-pp39-pypy39_pp73-manylinux_2_17_x86_64.whl", None, set()),
        ("not-a-wheel.tar.gz", None, set()),
    ],
)
def test_a_wheel_fits_the_bases_pip_would_install_it_on(
    filename: str, requires: str | None, fits: set[str]
) -> None:
    found = {b.python for b in BASE_PYTHONS if wheel_fits(filename, requires, b, "x86_64")}
    assert found == fits


def test_the_architecture_is_this_machines_unless_named() -> None:
    wheel = "jaxlib-0.6.2-cp313-cp313-manylinux2014_aarch64.whl"
    assert wheel_fits(wheel, None, BY_PYTHON["3.13"], "aarch64")
    assert not wheel_fits(wheel, None, BY_PYTHON["3.13"], "x86_64")
