"""Fallback probes with the real frameworks on this CPU machine: JAX lowered for CUDA
(eig's hybrid host kernel), TensorFlow under soft placement with an op pinned to a device
type this machine lacks, torch_xla's aten:: counters on its CPU device (only where
torch_xla is installed)."""

from __future__ import annotations

import os
from typing import Any

import pytest

from portbench_runner.adapters import make_adapter
from portbench_runner.context import Context
from portbench_runner.signals import FallbackDetected

CPU = {"id": "cpu", "flavor": "cpu", "device_match": "", "generic": "cpu"}


def _jax_context(mode: str, lower_for: str | None = "cuda") -> Context:
    adapter = make_adapter("jax", "cpu", CPU)
    adapter.load()
    adapter.fallback_settings = {"mode": mode, "soft_placement": False, "lower_for": lower_for}
    return Context(adapter, "jax.test::case", 7, "host", "cpu", {"warm_budget_s": 0.001})


def test_jax_eig_lowered_for_cuda_runs_on_the_host_and_passes_marked() -> None:
    jnp = pytest.importorskip("jax.numpy")
    ctx = _jax_context("mark")
    w, _ = ctx.measure(jnp.linalg.eig, ctx.put([[2.0, 1.0], [0.0, 3.0]]))
    assert sorted(ctx.to_numpy(w).real) == pytest.approx([2.0, 3.0])
    assert ctx.evidence is not None
    assert ctx.evidence["fallback"] is True
    assert ctx.evidence["platform"] == "cuda"
    assert {"kind": "hybrid_kernel", "what": "cuhybrid_eig_real"} in ctx.evidence["host_work"]


def test_jax_eig_fails_as_fallback_when_the_plan_says_so() -> None:
    jnp = pytest.importorskip("jax.numpy")
    ctx = _jax_context("fail")
    with pytest.raises(FallbackDetected, match="cuhybrid_eig_real"):
        ctx.measure(jnp.linalg.eig, ctx.put([[2.0, 1.0], [0.0, 3.0]]))
    assert ctx.evidence is not None and ctx.evidence["fallback"] is True


def test_jax_device_only_program_is_clean_and_static_arguments_stay_python() -> None:
    jnp = pytest.importorskip("jax.numpy")
    ctx = _jax_context("fail")
    # axis=0 is a Python int: lowered as a constant, not traced as an array.
    ctx.measure(jnp.sum, ctx.put([[1.0, 2.0], [3.0, 4.0]]), axis=0)
    assert ctx.evidence is not None
    assert ctx.evidence["seen"] is True and ctx.evidence["fallback"] is False


def test_jax_host_memory_placement_is_seen() -> None:
    jax = pytest.importorskip("jax")
    ctx = _jax_context("mark")

    def through_host(x: Any) -> Any:
        return jax.device_put(x * 2, jax.memory.Space.Host) + 1

    ctx.measure(jax.jit(through_host), ctx.put([1.0, 2.0]))
    assert ctx.evidence is not None
    kinds = {item["kind"] for item in ctx.evidence["host_work"]}
    assert "host_memory" in kinds and ctx.evidence["fallback"] is True


def test_jax_cpu_cell_without_lower_for_has_no_probe() -> None:
    jnp = pytest.importorskip("jax.numpy")
    ctx = _jax_context("fail", lower_for=None)
    ctx.measure(jnp.linalg.eig, ctx.put([[2.0, 1.0], [0.0, 3.0]]))
    assert ctx.evidence is None  # the host is the target: nothing can fall back


def test_jax_callback_for_another_platform_is_unseen_not_clean() -> None:
    jax = pytest.importorskip("jax")
    import numpy as np

    ctx = _jax_context("fail")

    def with_callback(x: Any) -> Any:
        return jax.pure_callback(np.sin, jax.ShapeDtypeStruct(x.shape, x.dtype), x)

    ctx.measure(with_callback, ctx.put([1.0, 2.0]))
    # jax refuses to lower a host callback for a platform it does not have: the probe
    # says it could not look, and the case is not failed for it.
    assert ctx.evidence is not None
    assert ctx.evidence["seen"] is False and ctx.evidence["fallback"] is None


def _tf_adapter_asking_for_gpu(soft: bool) -> Any:
    adapter = make_adapter("tensorflow", "cpu", CPU)
    adapter.load()
    # This machine has no GPU: asking for one is the case the study's soft-placement
    # experiment was about (an op with no kernel where it was asked to run).
    adapter.device = "/device:GPU:0"
    adapter.fallback_settings = {"mode": "mark", "soft_placement": soft, "lower_for": None}
    return adapter


def test_tensorflow_soft_placement_moves_ops_and_the_probe_sees_where() -> None:
    tf = pytest.importorskip("tensorflow")
    adapter = _tf_adapter_asking_for_gpu(soft=True)
    with adapter.case_scope():
        x = tf.constant([[2.0, 0.0], [0.0, 4.0]])
        graph = tf.function(lambda v: tf.linalg.inv(v) + 1)
        eager = adapter.evidence(lambda v: tf.linalg.inv(v) * 2, (x,), {}, None, True)
        traced = adapter.evidence(graph, (x,), {}, None, True)
    for found in (eager, traced):
        assert found["fallback"] is True and found["platform"] == "GPU"
        assert any(
            "MatrixInverse on" in i["what"] and "CPU:0" in i["what"] for i in found["host_work"]
        )
    assert eager["soft_placement"] is True


def test_tensorflow_a_warm_functions_placement_is_unseen_never_clean() -> None:
    # TensorFlow exports a function's placed graph only when it instantiates it: a call of
    # a function that already ran (the measured call came first) shows no inner op.
    tf = pytest.importorskip("tensorflow")
    adapter = _tf_adapter_asking_for_gpu(soft=True)
    with adapter.case_scope():
        x = tf.constant([[2.0, 0.0], [0.0, 4.0]])
        graph = tf.function(lambda v: tf.linalg.inv(v) - 1)
        graph(x)
        again = [adapter.evidence(graph, (x,), {}, None, True) for _ in range(2)]
    for found in again:
        if found["seen"]:  # the graph came back: its inverse is seen on the host
            assert any("MatrixInverse on" in i["what"] for i in found["host_work"])
        else:
            assert found["fallback"] is None and "instantiates" in found["note"]
    assert again[1]["seen"] is False  # a second look at one function never gets the graph


def test_tensorflow_a_warm_functions_ops_come_from_its_library() -> None:
    tf = pytest.importorskip("tensorflow")
    adapter = make_adapter("tensorflow", "cpu", CPU)
    adapter.load()
    x = tf.constant([1.0, 2.0], dtype=tf.float64)
    graph = adapter.graph(lambda v: tf.math.log1p(v) * 2.0)
    graph(x)
    for _ in range(2):  # the second look at a warm function exports no partition graph
        ops = dict(adapter.executed_op_types(graph, (x,), {}))
        assert ops["Log1p"] == {"T": [tf.float64.as_datatype_enum]} and "Mul" in ops
    # Calls of a function inside a function are followed; XLA's own ops are left out.
    outer = adapter.graph(lambda v: graph(v) + tf.math.expm1(v))
    outer(x)
    nested = [op for op, _ in adapter.executed_op_types(outer, (x,), {})]
    assert {"Log1p", "Mul", "Expm1", "AddV2"} <= set(nested)
    compiled = adapter.compiled(lambda v: tf.math.log1p(v) + 1.0)
    compiled(x)
    assert "Log1p" not in [op for op, _ in adapter.executed_op_types(compiled, (x,), {})]


def test_tensorflow_without_soft_placement_refuses_instead() -> None:
    tf = pytest.importorskip("tensorflow")
    adapter = _tf_adapter_asking_for_gpu(soft=False)
    refused = pytest.raises(tf.errors.InvalidArgumentError, match="enable_soft_placement=0")
    with refused, adapter.case_scope():
        tf.linalg.inv(tf.constant([[2.0, 0.0], [0.0, 4.0]]))


def test_tensorflow_stateful_call_is_not_run_again() -> None:
    pytest.importorskip("tensorflow")
    adapter = _tf_adapter_asking_for_gpu(soft=True)
    found = adapter.evidence(abs, (-1,), {}, None, False)
    assert found["seen"] is False and found["fallback"] is None


@pytest.mark.skipif(
    os.environ.get("PJRT_DEVICE") != "CPU", reason="torch_xla runs here with PJRT_DEVICE=CPU only"
)
def test_torch_xla_unlowered_op_counts_as_fallback() -> None:
    torch = pytest.importorskip("torch")
    pytest.importorskip("torch_xla")
    adapter = make_adapter("torch", "tpu", {"id": "tpu", "flavor": "tpu", "device_match": ""})
    adapter.load()
    adapter.fallback_settings = {"mode": "mark", "soft_placement": False, "lower_for": None}
    ctx = Context(adapter, "torch.test::case", 7, "host", "tpu", {"warm_budget_s": 0.001})
    rates = ctx.put([1.0, 2.0, 3.0])
    out = ctx.measure(torch.poisson, rates, warm=False)
    assert out.device.type == "xla"
    assert ctx.evidence is not None and ctx.evidence["fallback"] is True
    assert any(i["what"].startswith("aten::poisson") for i in ctx.evidence["host_work"])
    clean = Context(adapter, "torch.test::clean", 7, "host", "tpu", {"warm_budget_s": 0.001})
    clean.measure(torch.add, rates, rates, warm=False)
    assert clean.evidence is not None and clean.evidence["fallback"] is False
