"""Images: the time to decide that an unchanged image needs no rebuild (target < 2 s)."""

from __future__ import annotations

import statistics
import time

from _common import ROOT, Row


def run() -> list[Row]:
    import os
    import sys

    sys.path.insert(0, str(ROOT / "src"))
    os.environ.setdefault("PORTBENCH_HOME", str(ROOT))
    from portbench.errors import PortbenchError
    from portbench.images.build import docker_client, ensure_image, image_spec

    try:
        client = docker_client()
        spec = image_spec("jax", "cpu", "current")
        ensure_image(spec, lambda line: None, client=client)  # build once if missing (not timed)
    except PortbenchError as exc:
        return [Row("images", "no-rebuild decision", float("nan"), "s", note=f"unavailable: {exc}")]
    times = []
    for _ in range(5):
        start = time.perf_counter()
        built = ensure_image(spec, lambda line: None, client=client)
        times.append(time.perf_counter() - start)
        assert not built.built
    return [
        Row(
            "images",
            "no-rebuild decision (jax cpu current)",
            statistics.median(times),
            "s",
            note=f"target < 2 s; max {max(times):.3f} s",
        )
    ]
