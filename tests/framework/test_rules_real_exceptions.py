"""Each framework's category rules against exceptions the real framework raises on the CPU."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from portbench.rules import load_rules
from portbench_runner.classify import classify


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
    ]


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
            "not_implemented",
            "tf.xla-unimplemented",
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
    ]


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
