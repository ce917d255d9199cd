"""Timing fidelity on the CPU: portbench's warm median beside each framework's established
timer, measured in the same process on the same inputs, in alternating rounds.

References: torch.utils.benchmark.Timer.blocked_autorange (torch); timeit with
block_until_ready (JAX) and with .numpy() (TensorFlow). portbench synchronizes once per
block of calls, as blocked_autorange does; the JAX and TensorFlow references synchronize
after every call, so for microsecond ops with asynchronous dispatch they include a sync each.
"""

from __future__ import annotations

import importlib.util
import statistics
import timeit
from collections.abc import Callable
from typing import Any

from _common import Row, spread

from portbench_runner.adapters import make_adapter
from portbench_runner.timing import time_call

CPU = {"id": "cpu", "flavor": "cpu", "device_match": "", "generic": "cpu"}
#: Both warm-timing modes, measured in the same rounds (adaptive is portbench's default).
MODES = {"adaptive": {"mode": "adaptive"}, "fixed": {"mode": "fixed"}}
AGREE = 0.05


def _ops(framework: str, rng: Any) -> list[tuple[str, Callable[..., Any], tuple[Any, ...]]]:
    import numpy as np

    a4 = rng.standard_normal((4, 2049)).astype("float32")
    m256 = rng.standard_normal((256, 256)).astype("float32")
    m1024 = rng.standard_normal((1024, 1024)).astype("float32")
    s64 = rng.standard_normal((64, 64)).astype("float32")
    s512 = rng.standard_normal((512, 512)).astype("float32")
    if framework == "torch":
        import torch

        t = torch.from_numpy
        return [
            ("scalar add", torch.add, (torch.tensor(1.0), torch.tensor(2.0))),
            ("argsort 4x2049", torch.argsort, (t(a4),)),
            ("matmul 256^2", torch.matmul, (t(m256), t(m256))),
            ("matmul 1024^2", torch.matmul, (t(m1024), t(m1024))),
            ("svd 64^2", torch.linalg.svd, (t(s64),)),
            ("svd 512^2", torch.linalg.svd, (t(s512),)),
        ]
    if framework == "jax":
        import jax
        import jax.numpy as jnp

        d = jax.device_put
        return [
            ("scalar add", jnp.add, (d(np.float32(1)), d(np.float32(2)))),
            ("argsort 4x2049", jnp.argsort, (d(a4),)),
            ("matmul 256^2", jnp.matmul, (d(m256), d(m256))),
            ("matmul 1024^2", jnp.matmul, (d(m1024), d(m1024))),
            ("svd 64^2", jnp.linalg.svd, (d(s64),)),
            ("svd 512^2", jnp.linalg.svd, (d(s512),)),
            (
                "jit sqrt 1e6",
                jax.jit(jnp.sqrt),
                (d(rng.uniform(0, 1, 1_000_000).astype("float32")),),
            ),
        ]
    import tensorflow as tf

    c = tf.constant
    return [
        ("scalar add", tf.add, (c(1.0), c(2.0))),
        ("argsort 4x2049", tf.argsort, (c(a4),)),
        ("matmul 256^2", tf.matmul, (c(m256), c(m256))),
        ("matmul 1024^2", tf.matmul, (c(m1024), c(m1024))),
        ("svd 64^2", tf.linalg.svd, (c(s64),)),
        ("svd 512^2", tf.linalg.svd, (c(s512),)),
    ]


def _reference_ms(framework: str, fn: Callable[..., Any], args: tuple[Any, ...]) -> float:
    if framework == "torch":
        import torch
        from torch.utils.benchmark import Timer

        # Timer defaults to one thread; portbench runs with torch's own thread count.
        timer = Timer(
            "fn(*args)", globals={"fn": fn, "args": args}, num_threads=torch.get_num_threads()
        )
        return float(timer.blocked_autorange(min_run_time=0.2).median * 1e3)
    if framework == "jax":
        import jax

        def call() -> Any:
            return jax.block_until_ready(fn(*args))
    else:
        import tensorflow as tf

        def call() -> Any:
            return [leaf.numpy() for leaf in tf.nest.flatten(fn(*args))]

    timer = timeit.Timer(call)
    number, _ = timer.autorange()
    return statistics.median(timer.repeat(5, number)) / number * 1e3


def null_overhead_ns() -> float:
    """The timer's own cost: portbench's warm median of a call that does nothing."""
    _, timing = time_call(lambda: None, lambda _: None, MODES["fixed"])
    return float(timing["warm"]["median_ms"] * 1e6)


def run(rounds: int = 3) -> list[Row]:
    import numpy as np

    rows = [Row("fidelity-cpu", "null call (timer overhead)", null_overhead_ns(), "ns")]
    for framework in ("torch", "jax", "tensorflow"):
        if importlib.util.find_spec(framework) is None:
            rows.append(
                Row("fidelity-cpu", f"{framework}: not installed", float("nan"), "", note="skipped")
            )
            continue
        adapter = make_adapter(framework, "cpu", CPU)
        adapter.load()
        for name, fn, args in _ops(framework, np.random.default_rng(0)):
            ours: dict[str, list[float]] = {mode: [] for mode in MODES}
            theirs = []
            for _ in range(rounds):  # alternate, so drift on a shared machine hits all three
                for mode, settings in MODES.items():
                    _, timing = time_call(
                        lambda fn=fn, args=args: fn(*args), adapter.sync, settings
                    )
                    ours[mode].append(timing["warm"]["median_ms"])
                theirs.append(_reference_ms(framework, fn, args))
            t = statistics.median(theirs)
            for mode, values in ours.items():
                o = statistics.median(values)
                label = f"{framework}: {name}" + ("" if mode == "adaptive" else " (fixed)")
                rows.append(
                    Row(
                        "fidelity-cpu",
                        label,
                        o,
                        "ms",
                        reference=t,
                        ratio=o / t,
                        note=f"spread ours {spread(values):.0%}, reference {spread(theirs):.0%}",
                    )
                )
    for mode in MODES:
        timed = [
            r
            for r in rows
            if r.ratio is not None and r.item.endswith(" (fixed)") == (mode == "fixed")
        ]
        close = sum(1 for r in timed if abs(r.ratio - 1.0) <= AGREE)
        rows.append(
            Row(
                "fidelity-cpu",
                f"{mode}: rows within 5% of the reference",
                close,
                "rows",
                note=f"of {len(timed)}",
            )
        )
    return rows
