"""Each framework's category rules against exceptions the real framework raises on the CPU."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import pytest

from portbench.rules import load_rules
from portbench_runner.classify import classify, classify_names


def _raised(fn: Callable[[], Any]) -> BaseException:
    try:
        fn()
    except Exception as exc:
        return exc
    raise AssertionError("the framework raised nothing")


def _torch_cases() -> list[tuple[str, Callable[[], Any], str, str]]:
    torch = pytest.importorskip("torch")
    return [
        (
            "mm on bool",
            lambda: torch.mm(
                torch.ones(2, 2, dtype=torch.bool), torch.ones(2, 2, dtype=torch.bool)
            ),
            "type",
            "torch.dtype-not-implemented",
        ),
        (
            "inv in half",
            lambda: torch.linalg.inv(torch.ones(2, 2, dtype=torch.float16)),
            "type",
            "torch.unsupported-dtype",
        ),
        (
            "cholesky of int",
            lambda: torch.linalg.cholesky(torch.ones(2, 2, dtype=torch.int32)),
            "type",
            "torch.unsupported-dtype",
        ),
        (
            "view of a sparse tensor",
            lambda: torch.ones(2).to_sparse().view(1, 2),
            "not_implemented",
            "torch.no-kernel-for-backend",
        ),
        (
            "a CPU tensor added to a meta one",
            lambda: torch.ones(2) + torch.ones(2, device="meta"),
            "placement",
            "torch.mixed-devices",
        ),
        (
            "data_ptr of a sparse tensor",
            lambda: torch.ones(2).to_sparse().data_ptr(),
            "not_implemented",
            "torch.no-storage",
        ),
        (
            "sign of a complex tensor",
            lambda: torch.sign(torch.ones(2, dtype=torch.complex64)),
            "type",
            "torch.unsupported-dtype",
        ),
        (
            "vmap of LSTMCell",
            lambda: _vmap_lstm_cell(torch),
            "not_implemented",
            "torch.no-batching-rule",
        ),
        (
            "double backward through CPU attention",
            lambda: _double_backward_attention(torch),
            "not_implemented",
            "torch.no-derivative",
        ),
        (
            "gradcheck of a wrong backward",
            lambda: torch.autograd.gradcheck(
                _WrongSquare.apply, (torch.ones(3, dtype=torch.float64, requires_grad=True),)
            ),
            "precision",
            "torch.wrong-values",
        ),
    ]


def _vmap_lstm_cell(torch: Any) -> Any:
    func = pytest.importorskip("torch.func")
    cell = torch.nn.LSTMCell(3, 2)
    return func.vmap(cell)(torch.ones(4, 3))


def _double_backward_attention(torch: Any) -> Any:
    layer = torch.nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0).double()
    x = torch.ones(3, 2, 4, dtype=torch.float64, requires_grad=True)
    return torch.autograd.gradgradcheck(layer, (x,))


class _WrongSquare:
    """x^2 whose backward forgets the factor 2: gradcheck must refuse it."""

    @staticmethod
    def apply(x: Any) -> Any:
        import torch

        class Square(torch.autograd.Function):
            @staticmethod
            def forward(ctx: Any, t: Any) -> Any:
                ctx.save_for_backward(t)
                return t * t

            @staticmethod
            def backward(ctx: Any, g: Any) -> Any:
                (t,) = ctx.saved_tensors
                return g * t

        return Square.apply(x)


def _tensorflow_cases() -> list[tuple[str, Callable[[], Any], str, str]]:
    tf = pytest.importorskip("tensorflow")
    return [
        (
            "svd of int32",
            lambda: tf.linalg.svd(tf.constant([[1, 2], [3, 4]])),
            "type",
            "tf.no-kernel-for-dtype",
        ),
        (
            "numpy_function under XLA",
            lambda: tf.function(
                lambda x: tf.numpy_function(lambda a: a, [x], tf.float32), jit_compile=True
            )(tf.constant([1.0])),
            "lowering",
            "tf.xla-lowering",
        ),
        (
            "an op forced onto an absent GPU, soft placement off",
            lambda: _forced_onto_gpu(tf),
            "placement",
            "tf.forced-placement",
        ),
        ("a 4 TiB tensor", lambda: tf.zeros((2**40,), tf.float32), "memory", "tf.out-of-memory"),
        (
            "TF-NumPy rad2deg of int32",
            lambda: tf.experimental.numpy.rad2deg(tf.constant([1, 2], tf.int32)),
            "type",
            "tf.python-dtype-conversion",
        ),
        (
            "TF-NumPy cumprod of bool",
            lambda: tf.experimental.numpy.cumprod(tf.constant([True, False])),
            "type",
            "tf.no-kernel-for-dtype",
        ),
        (
            "TextLineReader.restore_state",
            lambda: _restore_text_reader(tf),
            "not_implemented",
            "tf.unimplemented-op",
        ),
        (
            "svd of float16 in a graph (kernels for other dtypes listed)",
            lambda: tf.function(tf.linalg.svd)(tf.ones((3, 2), tf.float16)),
            "type",
            "tf.no-kernel-for-dtype",
        ),
        (
            "range of float16 under XLA",
            lambda: tf.function(lambda n: tf.range(n, dtype=tf.float16), jit_compile=True)(
                tf.constant(3.0, tf.float16)
            ),
            "type",
            "tf.xla-dtype-refused",
        ),
        (
            "TF-NumPy rad2deg of int8 in a graph",
            lambda: tf.function(tf.experimental.numpy.rad2deg)(tf.constant([1, 2], tf.int8)),
            "type",
            "tf.python-dtype-conversion",
        ),
        (
            "get_global_step of a resource step found by name",
            lambda: _resource_global_step(tf),
            "type",
            "tf.resource-handle-dtype",
        ),
    ]


def _resource_global_step(tf: Any) -> Any:
    with tf.Graph().as_default():
        tf.compat.v1.get_variable(
            "global_step",
            shape=[],
            dtype=tf.int64,
            initializer=tf.compat.v1.zeros_initializer(),
            trainable=False,
            use_resource=True,
        )
        return tf.compat.v1.train.get_global_step()


def _forced_onto_gpu(tf: Any) -> Any:
    if tf.config.list_physical_devices("GPU"):
        pytest.skip("a GPU is here: nothing to refuse")
    soft = tf.config.get_soft_device_placement()
    tf.config.set_soft_device_placement(False)
    try:
        with tf.device("/device:GPU:0"):
            return tf.constant(1.0) + 1.0
    finally:
        tf.config.set_soft_device_placement(soft)


def _restore_text_reader(tf: Any) -> None:
    # A TF1 reader in a real graph and session: TextLineReader has no RestoreState kernel.
    with tf.Graph().as_default():
        reader = tf.compat.v1.TextLineReader()
        restore = reader.restore_state(tf.constant(b"state"))
        with tf.compat.v1.Session() as session:
            session.run(restore)


def _jax_cases() -> list[tuple[str, Callable[[], Any], str, str]]:
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    return [
        (
            "lax.add of mixed dtypes",
            lambda: jax.lax.add(jnp.int32(1), jnp.float32(1)),
            "type",
            "jax.unsupported-dtype",
        ),
        (
            "an 8 TiB array",
            lambda: jnp.zeros((2**41,), jnp.float32).block_until_ready(),
            "memory",
            "jax.out-of-memory",
        ),
        (
            "CPU-only eig lowered for a TPU",
            lambda: (
                jax.jit(jnp.linalg.eig).trace(jnp.ones((3, 3))).lower(lowering_platforms=("tpu",))
            ),
            "lowering",
            "jax.lowering",
        ),
        (
            "jnp.split at a negative boundary (NumPy takes it as a slice)",
            lambda: jnp.split(jnp.arange(8), [2, -3]),
            "not_implemented",
            "jax.split-boundaries",
        ),
    ]


@pytest.mark.parametrize("framework", ["torch", "tensorflow", "jax"])
def test_rules_classify_real_exceptions(framework: str) -> None:
    cases = {"torch": _torch_cases, "tensorflow": _tensorflow_cases, "jax": _jax_cases}[framework]()
    rules = load_rules(framework)
    for label, fn, category, rule_id in cases:
        exc = _raised(fn)
        assert classify(exc, "call", rules) == (category, rule_id), (
            f"{framework}: {label}: {type(exc).__name__}: {exc}"
        )


def test_jax_arrays_on_two_devices_are_a_placement_failure() -> None:
    # Two host devices need XLA_FLAGS before jax starts: a child process raises the real
    # exception and reports its classes and message.
    pytest.importorskip("jax")
    code = (
        "import json, jax, jax.numpy as jnp\n"
        "a, b = (jax.device_put(jnp.ones(2), d) for d in jax.devices()[:2])\n"
        "try:\n"
        "    jax.jit(lambda x, y: x + y)(a, b)\n"
        "except Exception as exc:\n"
        "    print(json.dumps([[k.__name__ for k in type(exc).__mro__], str(exc)]))\n"
    )
    env = {**os.environ, "XLA_FLAGS": "--xla_force_host_platform_device_count=2"}
    done = subprocess.run(
        [sys.executable, "-c", code],
        check=True,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    names, message = json.loads(done.stdout.strip().splitlines()[-1])
    assert classify_names(names, message, "call", load_rules("jax")) == (
        "placement",
        "jax.incompatible-devices",
    ), message


def test_a_distribution_refusing_its_own_sample_is_precision_at_check() -> None:
    torch = pytest.importorskip("torch")
    dist = torch.distributions.RelaxedOneHotCategorical(
        torch.tensor(0.5), probs=torch.ones(3) / 3, validate_args=True
    )
    exc = _raised(lambda: dist.log_prob(torch.tensor([0.5, 0.6, 0.1])))
    rules = load_rules("torch")
    assert classify(exc, "check", rules) == ("precision", "torch.support-check")
    # Inside the measured call the same refusal is the function's own: no rule claims it.
    assert classify(exc, "call", rules)[0] != "precision"
