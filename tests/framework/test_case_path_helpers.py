"""The case helpers behind issue #33's kinds of paths, with the real frameworks: each check
passes on the right answer and fails on a wrong one (an error of another type or message, a
golden value off by one, an output of another dtype, an iterator restored wrongly)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from portbench_runner.adapters import make_adapter
from portbench_runner.checks import assert_close
from portbench_runner.context import Context
from portbench_runner.signals import CheckFailed, SkipCase

ROOT = Path(__file__).resolve().parents[2]
CPU = {"id": "cpu", "flavor": "cpu", "device_match": "", "generic": "cpu"}


def _helper(framework: str, name: str) -> ModuleType:
    """A helper module beside the framework's case files, imported as the worker does."""
    folder = str(ROOT / "manifests" / framework / "cases")
    if folder not in sys.path:
        sys.path.insert(0, folder)
    return importlib.import_module(name)


def _context(framework: str) -> Context:
    adapter = make_adapter(framework, "cpu", CPU)
    adapter.load()
    return Context(adapter, f"{framework}.test::case", 7, "host", "cpu", {"warm_budget_s": 0.001})


def _raise(exc: BaseException) -> None:
    raise exc


@pytest.mark.framework
@pytest.mark.parametrize(("framework", "helper"), [("jax", "_jaxhelp"), ("tensorflow", "tfhelp")])
def test_check_raises_needs_the_exact_type_and_the_message(framework: str, helper: str) -> None:
    pytest.importorskip(framework)
    check_raises = _helper(framework, helper).check_raises
    # The documented error: exactly ValueError, with the fragment.
    check_raises(
        _context(framework),
        lambda: _raise(ValueError("axis 2 is out of bounds")),
        ValueError,
        r"axis 2",
    )
    # Nothing raised, a subclass of the documented type, another message: each fails.
    wrong = [
        (lambda: None, "returned normally"),
        (lambda: _raise(UnicodeError("axis 2")), "UnicodeError"),
        (lambda: _raise(ValueError("axis 3")), "does not match"),
    ]
    for call, message in wrong:
        with pytest.raises(CheckFailed, match=message):
            check_raises(_context(framework), call, ValueError, r"axis 2")


@pytest.mark.framework
@pytest.mark.parametrize(("framework", "helper"), [("jax", "_jaxhelp"), ("tensorflow", "tfhelp")])
def test_golden_values_are_chosen_by_release_and_compared_exactly(
    framework: str, helper: str
) -> None:
    pytest.importorskip(framework)
    module = _helper(framework, helper)
    ctx = _context(framework)
    rows = (("0.0.1", [1, 2, 3]), ("1000.0", None))
    module.check_golden(ctx, np.array([1, 2, 3]), rows)
    with pytest.raises(CheckFailed):
        module.check_golden(_context(framework), np.array([1, 2, 4]), rows)
    with pytest.raises(SkipCase, match="no golden values recorded"):
        module.check_golden(_context(framework), np.array([1, 2, 3]), (("1000.0", [1, 2, 3]),))
    assert module.for_release(ctx, (("0.0.1", "old"), ("0.0.2", "new"))) == "new"


@pytest.mark.framework
def test_swept_unary_refuses_an_output_of_another_dtype() -> None:
    pytest.importorskip("jax")
    import jax.numpy as jnp

    helper = _helper("jax", "_jaxhelp")
    helper.swept_unary(_context("jax"), jnp.exp, np.exp, "float64", "eager")
    with pytest.raises(CheckFailed, match="float64 input gave a float32 output"):
        helper.swept_unary(
            _context("jax"), lambda v: jnp.exp(v).astype("float32"), np.exp, "float64", "eager"
        )


@pytest.mark.framework
def test_iterator_checkpoint_resumes_where_it_was_saved() -> None:
    tf = pytest.importorskip("tensorflow")
    helper = _helper("tensorflow", "tfhelp")
    before, uninterrupted, restored = helper.iterator_checkpoint(
        _context("tensorflow"), tf.data.Dataset.range(10), consumed=4
    )
    assert [int(v) for v in before] == [0, 1, 2, 3]
    assert [int(v) for v in uninterrupted] == [4, 5, 6, 7, 8, 9]
    assert [int(v) for v in restored] == [4, 5, 6, 7, 8, 9]
    ctx = _context("tensorflow")
    with pytest.raises(CheckFailed, match="element 0"):
        helper.check_elements(ctx, restored, uninterrupted[1:] + uninterrupted[:1])


def test_adjust_brightness_bfloat16_tolerance_admits_rounding_and_no_wrong_delta() -> None:
    """The bfloat16 sweep's bound: the output's rounding to 8 significant bits passes, a delta
    off by 0.05 (what 0.04 + 0.04|y| let through) or by 0.005 does not."""
    pytest.importorskip("tensorflow")
    import tensorflow as tf

    _helper("tensorflow", "tfhelp")
    cases = importlib.import_module("adjust_brightness")
    rtol = cases.BF16_ROUNDING
    delta = 0.2
    x = tf.cast(tf.constant(np.linspace(0.0, 1.0, 257), tf.float32), tf.bfloat16)
    exact = tf.cast(x, tf.float64).numpy() + np.float32(delta)
    rounded = tf.cast(tf.cast(exact, tf.bfloat16), tf.float64).numpy()
    assert_close(rounded, exact, rtol, rtol * delta)
    for wrong_by in (0.05, 0.005):
        with pytest.raises(CheckFailed):
            assert_close(rounded + wrong_by, exact, rtol, rtol * delta)
