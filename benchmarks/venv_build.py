"""Venv build time of one cell with uv and with pip, same lock, caches off.

    python benchmarks/venv_build.py [--framework jax] [--profile current]

Each installer builds the cell's venv from its lock into a fresh state folder with its
download cache disabled (PIP_NO_CACHE_DIR, UV_NO_CACHE), so both fetch every wheel. A local
wheelhouse (pip's configured find-links) is passed to both where the lock needs one.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from _common import Row

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))


def build_once(installer: str, framework: str, profile: str, find_links: Path | None) -> float:
    from portbench.backends.venv import VenvBackend, find_python
    from portbench.images.locks import load_lock, lock_path

    lock = load_lock(lock_path(profile, framework, "cpu"))
    python = find_python(lock.python)
    if python is None:
        raise SystemExit(f"no Python {lock.python} here for the {profile} lock")
    with tempfile.TemporaryDirectory(prefix=f"portbench-venv-{installer}-") as folder:
        backend = VenvBackend(find_links, installer=installer)
        started = time.perf_counter()
        backend.build(Path(folder) / "venv", python, lock, profile, installer)
        return time.perf_counter() - started


def run(framework: str = "jax", profile: str = "current") -> list[Row]:
    os.environ["PIP_NO_CACHE_DIR"] = "1"
    os.environ["UV_NO_CACHE"] = "1"
    wheels = Path("/opt/wheels") if Path("/opt/wheels").is_dir() else None
    rows = []
    seconds = {}
    for installer in ("pip", "uv"):
        if installer == "uv" and shutil.which("uv") is None:
            rows.append(Row("venv-build", "uv: not installed", float("nan"), "", note="skipped"))
            continue
        seconds[installer] = build_once(installer, framework, profile, wheels)
        rows.append(
            Row(
                "venv-build", f"{framework}/cpu/{profile} with {installer}", seconds[installer], "s"
            )
        )
    if len(seconds) == 2:
        rows.append(
            Row(
                "venv-build",
                "uv against pip",
                seconds["uv"],
                "s",
                reference=seconds["pip"],
                ratio=seconds["uv"] / seconds["pip"],
            )
        )
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--framework", default="jax")
    parser.add_argument("--profile", default="current")
    args = parser.parse_args()
    for row in run(args.framework, args.profile):
        print(
            f"{row.item}: {row.value:.1f} {row.unit}"
            + (f" (x{row.ratio:.2f})" if row.ratio else "")
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
