"""The mutation hook with real frameworks: each mutant kind changes what it should, on
torch tensors, JAX arrays and TensorFlow tensors, and leaves the rest alone."""

from __future__ import annotations

import collections
from typing import Any

import numpy as np
import pytest

from portbench_runner.checks import TOLERANCES
from portbench_runner.mutation.apply import MutantRaised, Mutator, framework_ops

FRAMEWORKS = ["torch", "jax", "tensorflow"]
Pair = collections.namedtuple("Pair", "values counts")


def _make(framework: str, array: np.ndarray) -> Any:
    if framework == "torch":
        import torch

        return torch.from_numpy(array.copy())
    if framework == "jax":
        import jax.numpy as jnp

        return jnp.asarray(array)
    import tensorflow as tf

    return tf.constant(array)


def _ops(framework: str) -> Any:
    pytest.importorskip(framework)
    if framework == "jax":
        import jax

        jax.config.update("jax_enable_x64", True)  # as the JAX adapter runs cases
    return framework_ops(framework)


def _np(ops: Any, value: Any) -> np.ndarray:
    return np.asarray(ops.to_numpy(value))


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_float_moves_beyond_the_tolerance_and_keeps_the_dtype(framework: str) -> None:
    ops = _ops(framework)
    x = _make(framework, np.array([0.0, -1.5, 2.0, 1e3], dtype="float32"))
    mutator = Mutator("float", ops, scale=20.0)
    out = mutator.output(x)
    rtol, atol = TOLERANCES["float32"]
    before, after = _np(ops, x), _np(ops, out)
    assert ops.dtype_name(out) == "float32" and after.shape == before.shape
    # Every element is off by more than the reduction tolerance (10x elementwise) allows.
    assert np.all(np.abs(after - before) > 10 * (rtol * np.abs(before) + atol))
    assert mutator.changed == 1


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_integers_go_off_by_one_and_one_boolean_flips(framework: str) -> None:
    ops = _ops(framework)
    ints = _make(framework, np.array([[1, 2], [3, 4]], dtype="int32"))
    bools = _make(framework, np.array([True, True, False, False]))
    floats = _make(framework, np.array([1.0], dtype="float32"))
    mutator = Mutator("off_by_one", ops)
    out = mutator.output((ints, bools, floats))
    assert isinstance(out, tuple) and len(out) == 3
    np.testing.assert_array_equal(_np(ops, out[0]), [[2, 3], [4, 5]])
    assert ops.dtype_name(out[0]) == "int32"
    np.testing.assert_array_equal(_np(ops, out[1]), [True, True, True, False])
    assert out[2] is floats  # floats are not this mutant's
    assert mutator.changed == 2


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_dtype_shape_and_nan(framework: str) -> None:
    ops = _ops(framework)
    x = _make(framework, np.array([1.0, 2.0, 3.0], dtype="float32"))
    cast = Mutator("dtype", ops).output(x)
    assert ops.dtype_name(cast) == "float64"
    np.testing.assert_array_equal(_np(ops, cast), [1.0, 2.0, 3.0])
    shaped = Mutator("shape", ops).output(x)
    assert _np(ops, shaped).shape == (3, 1)
    nan = Mutator("nan", ops).output(x)
    np.testing.assert_array_equal(np.isnan(_np(ops, nan)), [False, True, False])
    assert ops.dtype_name(nan) == "float32"


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_structures_are_rebuilt_and_non_arrays_left_alone(framework: str) -> None:
    ops = _ops(framework)
    x = _make(framework, np.array([1.0, 2.0], dtype="float32"))
    out = Mutator("shape", ops).output({"pair": Pair(x, [x, "label"]), "n": None})
    assert isinstance(out["pair"], Pair) and out["n"] is None
    assert _np(ops, out["pair"].values).shape == (2, 1)
    assert out["pair"].counts[1] == "label"


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_a_mutant_that_changes_nothing_says_so(framework: str) -> None:
    ops = _ops(framework)
    infinite = _make(framework, np.array([np.inf, -np.inf], dtype="float32"))
    mutator = Mutator("float", ops)
    assert mutator.output(infinite) is infinite
    assert mutator.changed == 0 and mutator.seen == 1
    empty = _make(framework, np.zeros((0,), dtype="float32"))
    nan = Mutator("nan", ops)
    nan.output(empty)
    assert nan.changed == 0 and "no element" in nan.why_not


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_raise_makes_the_call_raise(framework: str) -> None:
    ops = _ops(framework)
    mutator = Mutator("raise", ops)
    call = mutator.call(lambda a: a + 1, (1,), {})
    with pytest.raises(MutantRaised):
        call()
    assert mutator.changed == 1


def test_torch_output_keeps_its_autograd_graph() -> None:
    ops = _ops("torch")
    import torch

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    out = Mutator("float", ops).output(x * 3)
    out.sum().backward()
    assert x.grad is not None and x.grad.tolist() == [3.0, 3.0]


@pytest.mark.parametrize("framework", ["torch", "tensorflow"])
def test_state_mutant_moves_what_a_stateful_call_touched(framework: str) -> None:
    ops = _ops(framework)
    if framework == "torch":
        import torch

        target = torch.zeros(3)
        fn, args = target.add_, (torch.ones(3),)
    else:
        import tensorflow as tf

        target = tf.Variable(np.zeros(3, dtype="float32"))
        fn, args = target.assign_add, (tf.ones(3),)
    mutator = Mutator("state", ops)
    mutator.call(fn, args, {})()
    after = _np(ops, target)
    assert mutator.changed >= 1
    assert np.all(after > 1.0)  # 1 from the call, then moved up by the mutant
