"""The torch case helpers behind issue #33's kinds of paths, with real torch: each check
passes on the right answer and fails on a wrong one (an error of another class, a subclass,
a message without the fragment, no error; a wrong second derivative; a random state that
does not restore)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from portbench_runner.adapters import make_adapter
from portbench_runner.context import Context
from portbench_runner.signals import CheckFailed, StageFailure

ROOT = Path(__file__).resolve().parents[2]
CPU = {"id": "cpu", "flavor": "cpu", "device_match": "", "generic": "cpu"}

pytestmark = pytest.mark.framework


def _torchhelp() -> ModuleType:
    """_torchhelp as the worker imports it: from the folder of the case files."""
    folder = str(ROOT / "manifests" / "torch" / "cases")
    if folder not in sys.path:
        sys.path.insert(0, folder)
    return importlib.import_module("_torchhelp")


def _context() -> Context:
    adapter = make_adapter("torch", "cpu", CPU)
    adapter.load()
    return Context(adapter, "torch.test::case", 7, "host", "cpu", {"warm_budget_s": 0.001})


def _raise(exc: BaseException) -> None:
    raise exc


def test_refusal_needs_the_exact_class_and_the_fragment() -> None:
    pytest.importorskip("torch")
    refusal = _torchhelp().refusal
    exc = refusal(
        _context(), lambda: _raise(IndexError("Dimension out of range")), IndexError, "out of range"
    )
    assert isinstance(exc, IndexError)
    wrong = [
        (lambda: None, "no error, where builtins.IndexError"),
        (lambda: _raise(RuntimeError("Dimension out of range")), "builtins.RuntimeError"),
        # A subclass of the documented class is another class.
        (lambda: _raise(type("Narrow", (IndexError,), {})("out of range")), "Narrow"),
        (lambda: _raise(IndexError("index 3 is past the end")), "without 'out of range'"),
    ]
    for call, message in wrong:
        with pytest.raises(CheckFailed, match=message) as info:
            refusal(_context(), call, IndexError, "out of range")
        assert info.value.category == "refusal"


def test_refusal_checks_what_the_measured_call_returned() -> None:
    """The class name the attempt returns is the checked output: a measured call that itself
    raises is a failure of the call, never a pass."""
    torch = pytest.importorskip("torch")
    adapter = make_adapter("torch", "cpu", CPU)
    adapter.load()
    # keep_output: the differential check's copy of the output, compared with the CPU twin's.
    ctx = Context(
        adapter, "torch.test::case", 7, "host", "cpu", {"warm_budget_s": 0.001}, keep_output=True
    )
    x = torch.zeros(3, 4)
    _torchhelp().refusal(ctx, lambda: torch.argsort(x, dim=2), IndexError, "out of range")
    assert [str(v) for v in ctx.output_leaves or []] == ["builtins.IndexError"]
    with pytest.raises(StageFailure):
        _context().measure(lambda: _raise(IndexError("out of range")))


def test_kernel_error_is_the_class_torch_raises_for_a_missing_dtype_kernel() -> None:
    torch = pytest.importorskip("torch")
    ctx = _context()
    try:
        torch.bitwise_not(torch.ones(2))
    except Exception as exc:  # the real refusal of this release
        assert type(exc) is _torchhelp().kernel_error(ctx)
    else:
        pytest.fail("bitwise_not accepted a float tensor")


class _WrongCube:
    """x^3 whose backward is right (3x^2) but whose double backward forgets a factor."""

    @staticmethod
    def apply(x: Any) -> Any:
        import torch

        class Cube(torch.autograd.Function):
            @staticmethod
            def forward(ctx: Any, t: Any) -> Any:
                ctx.save_for_backward(t)
                return t**3

            @staticmethod
            def backward(ctx: Any, g: Any) -> Any:
                (t,) = ctx.saved_tensors
                return g * 3 * t.detach() ** 2 * (1 + 0 * t)  # no path for t's own gradient

        return Cube.apply(x)


def test_gradgradcheck_fails_on_a_wrong_second_derivative() -> None:
    torch = pytest.importorskip("torch")
    helpers = _torchhelp()
    helpers.gradgradcheck(_context(), lambda t: t**3, np.linspace(-1, 1, 4))
    with pytest.raises((CheckFailed, StageFailure)):
        helpers.gradgradcheck(_context(), _WrongCube.apply, np.linspace(-1, 1, 4))
    assert torch.is_grad_enabled()


def test_rng_state_and_saved_restore_what_they_took() -> None:
    torch = pytest.importorskip("torch")
    helpers = _torchhelp()
    get_state, set_state = helpers.rng_state(_context())
    state = get_state()
    first = torch.rand(8)
    assert not torch.equal(first, torch.rand(8))
    set_state(state)
    assert torch.equal(first, torch.rand(8))
    layer = torch.nn.Linear(3, 2)
    loaded = helpers.saved(layer.state_dict())
    assert loaded is not layer.state_dict()
    assert all(torch.equal(loaded[k], v) for k, v in layer.state_dict().items())
