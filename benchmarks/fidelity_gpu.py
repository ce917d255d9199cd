"""Timing fidelity on a GPU: portbench's warm median beside CUDA events and
triton.testing.do_bench (torch) and a block_until_ready loop (JAX). Standalone: needs only
torch and/or JAX and the runner (PYTHONPATH=runners). Writes JSON to $OUT if set."""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "runners"))

from portbench_runner.adapters import make_adapter
from portbench_runner.timing import time_call

GPU = {"id": "gpu", "flavor": "cuda", "device_match": "", "generic": "gpu"}
SETTINGS = {"warm_budget_s": 0.3, "max_warm_s": 3.0}


def cuda_events_ms(fn, reps=200):
    import torch

    for _ in range(10):
        fn()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(reps):
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def torch_rows(rounds):
    import torch

    adapter = make_adapter("torch", "cuda", GPU)
    adapter.load()
    dev = adapter.device
    ops = {
        "scalar add": (torch.add, (torch.tensor(1.0, device=dev), torch.tensor(2.0, device=dev))),
        "argsort 4x2049": (torch.argsort, (torch.randn(4, 2049, device=dev),)),
        "matmul 1024^2": (torch.matmul, (torch.randn(1024, 1024, device=dev),) * 2),
        "matmul 8192^2 bf16": (
            torch.matmul,
            (torch.randn(8192, 8192, device=dev, dtype=torch.bfloat16),) * 2,
        ),
        "svd 512^2": (torch.linalg.svd, (torch.randn(512, 512, device=dev),)),
    }
    try:
        from triton.testing import do_bench
    except ImportError:
        do_bench = None
    rows = []
    for name, (fn, args) in ops.items():
        ours, events, triton = [], [], []
        for _ in range(rounds):
            _, timing = time_call(lambda fn=fn, args=args: fn(*args), adapter.sync, SETTINGS)
            ours.append(timing["warm"]["median_ms"])
            events.append(cuda_events_ms(lambda fn=fn, args=args: fn(*args)))
            if do_bench is not None:
                triton.append(do_bench(lambda fn=fn, args=args: fn(*args), return_mode="median"))
        row = {
            "framework": "torch",
            "op": name,
            "portbench_ms": statistics.median(ours),
            "cuda_events_ms": statistics.median(events),
        }
        if triton:
            row["triton_do_bench_ms"] = statistics.median(triton)
        rows.append(row)
    return rows


def jax_rows(rounds):
    import jax
    import jax.numpy as jnp

    adapter = make_adapter("jax", "cuda", GPU)
    adapter.load()
    dev = adapter.device
    put = lambda x: jax.device_put(x, dev)  # noqa: E731
    ops = {
        "scalar add": (jnp.add, (put(jnp.float32(1)), put(jnp.float32(2)))),
        "argsort 4x2049": (jnp.argsort, (put(jnp.ones((4, 2049))),)),
        "matmul 1024^2": (jnp.matmul, (put(jnp.ones((1024, 1024), jnp.float32)),) * 2),
        "jit sqrt 1e6": (jax.jit(jnp.sqrt), (put(jnp.ones(1_000_000, jnp.float32)),)),
    }
    rows = []
    for name, (fn, args) in ops.items():
        ours, loop = [], []
        for _ in range(rounds):
            _, timing = time_call(lambda fn=fn, args=args: fn(*args), adapter.sync, SETTINGS)
            ours.append(timing["warm"]["median_ms"])
            for _ in range(10):
                jax.block_until_ready(fn(*args))
            samples = []
            for _ in range(200):
                start = time.perf_counter()
                jax.block_until_ready(fn(*args))
                samples.append((time.perf_counter() - start) * 1e3)
            loop.append(statistics.median(samples))
        rows.append(
            {
                "framework": "jax",
                "op": name,
                "portbench_ms": statistics.median(ours),
                "block_until_ready_loop_ms": statistics.median(loop),
            }
        )
    return rows


def main():
    rounds = 3
    rows = []
    for make in (torch_rows, jax_rows):
        try:
            rows += make(rounds)
        except Exception as exc:  # one framework missing must not lose the other's figures
            rows.append({"error": f"{make.__name__}: {type(exc).__name__}: {exc}"})
    for row in rows:
        print(json.dumps(row))
    out = os.environ.get("OUT")
    if out:
        Path(out, "fidelity_gpu.json").write_text(
            json.dumps({"schema": 1, "kind": "fidelity-gpu", "rows": rows}, indent=2)
        )


if __name__ == "__main__":
    main()
