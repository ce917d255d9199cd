"""The framework adapters with the real frameworks: placement, sync, restore, fallback audit."""

from __future__ import annotations

import pytest

from portbench_runner.adapters import make_adapter
from portbench_runner.context import Context
from portbench_runner.signals import FallbackDetected, StageFailure

CPU = {"id": "cpu", "flavor": "cpu", "device_match": "", "generic": "cpu"}


def _context(framework: str) -> Context:
    adapter = make_adapter(framework, "cpu", CPU)
    adapter.load()
    return Context(adapter, f"{framework}.test::case", 7, "host", "cpu", {"warm_budget_s": 0.001})


def test_torch_output_off_the_target_device_is_a_fallback() -> None:
    torch = pytest.importorskip("torch")
    ctx = _context("torch")
    # The meta device stands in for "not where the cell said": nothing is computed there.
    with pytest.raises(FallbackDetected, match="meta"):
        ctx.measure(lambda: torch.zeros(3, device="meta"))


def test_torch_put_places_and_converts_dtypes() -> None:
    pytest.importorskip("torch")
    ctx = _context("torch")
    tensor = ctx.put([1.0, 2.0], dtype="bfloat16", requires_grad=True)
    assert str(tensor.dtype) == "torch.bfloat16"
    assert tensor.requires_grad
    assert ctx.to_numpy(tensor).dtype.name == "float32"
    with pytest.raises(StageFailure) as info:
        ctx.put([1.0], dtype="float128")
    assert info.value.stage == "setup"


def test_torch_switches_a_case_flips_do_not_reach_the_next_case() -> None:
    torch = pytest.importorskip("torch")
    adapter = make_adapter("torch", "cpu", CPU)
    adapter.load()
    dist = torch.distributions
    before = dist.Distribution._validate_args
    with pytest.raises(RuntimeError, match="boom"), adapter.case_scope():
        # What the first torch.compile of a worker does, and what a careless case does.
        dist.Distribution.set_default_validate_args(not before)
        torch.set_default_dtype(torch.float64)
        torch.set_grad_enabled(False)
        raise RuntimeError("boom")
    assert dist.Distribution._validate_args is before
    assert torch.get_default_dtype() == torch.float32
    assert torch.is_grad_enabled()
    with pytest.raises(ValueError):
        # Validation is back: a probability outside [0, 1] is refused at construction.
        dist.Bernoulli(probs=torch.tensor([1.5]), validate_args=None)


def test_tensorflow_soft_placement_is_restored_after_a_failing_case() -> None:
    tf = pytest.importorskip("tensorflow")
    adapter = make_adapter("tensorflow", "cpu", CPU)
    adapter.load()
    tf.config.set_soft_device_placement(True)
    with pytest.raises(RuntimeError, match="boom"), adapter.case_scope():
        assert tf.config.get_soft_device_placement() is False
        raise RuntimeError("boom")
    assert tf.config.get_soft_device_placement() is True


def test_tensorflow_sync_reaches_nested_outputs() -> None:
    tf = pytest.importorskip("tensorflow")
    ctx = _context("tensorflow")
    out = ctx.measure(
        lambda x: {"a": [tf.square(x)], "b": (x + 1, tf.ragged.constant([[1], [2, 3]]))},
        ctx.put([2.0]),
    )
    ctx.check_close(out["a"][0], [4.0])
    assert ctx.timing is not None and ctx.timing["warm"] is not None


def test_jax_put_commits_to_the_target_and_sync_waits_on_every_leaf() -> None:
    jax = pytest.importorskip("jax")
    ctx = _context("jax")
    x = ctx.put([[3.0, 1.0], [1.0, 3.0]], dtype="float64")
    assert x.dtype.name == "float64"
    assert {d.platform for d in x.devices()} == {"cpu"}
    _u, s, _vh = ctx.measure(jax.numpy.linalg.svd, x)
    ctx.check_close(s, [4.0, 2.0], dtype="float64")
    assert ctx.timing is not None and ctx.timing["cold_ms"] > 0


def test_a_second_measure_is_a_case_bug() -> None:
    pytest.importorskip("jax")
    from portbench_runner.signals import CaseBug

    ctx = _context("jax")
    ctx.measure(lambda: 1)
    with pytest.raises(CaseBug, match="called twice"):
        ctx.measure(lambda: 2)
