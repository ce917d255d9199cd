"""Host side of ``portbench scan-map``: run the mapper in an interpreter that has the framework.

The mapper (``mapper.py``) imports the framework and calls its functions with guessed
arguments, so it runs in its own process, in a temporary working folder (nothing it might
write lands in the project), under a wall-clock limit; its output is checked before it is
kept, gzipped, as ``<framework>-<release>.json.gz``.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import subprocess
import tempfile
from importlib import resources
from pathlib import Path
from typing import TypedDict

from rich.console import Console

from ..errors import UsageError
from ..paths import runners_dir
from ..results.safeio import read_bounded
from .apimap import MAP_SCHEMA

__all__ = ["MAP_TIMEOUT_S", "MapHead", "build_map_file"]

#: The slowest map here (JAX's, tracing every function) takes about 4 minutes.
MAP_TIMEOUT_S = 3600
MAX_OUTPUT_BYTES = 256 << 20
_RELEASE = re.compile(r"^[A-Za-z0-9.+_-]{1,64}$")


class MapHead(TypedDict):
    """What the command line reports of a built map: its release and its counts."""

    release: str
    counts: dict[str, int]


def _default_folder() -> Path:
    return Path(str(resources.files("portbench.scan") / "data"))


def build_map_file(
    framework: str, python: str, out: Path | None, force: bool, console: Console
) -> tuple[Path, MapHead]:
    """Run the mapper with ``python``; returns the map's path and its document."""
    folder = out or _default_folder()
    script = Path(__file__).with_name("mapper.py")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(runners_dir()), env.get("PYTHONPATH")) if p)
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    with tempfile.TemporaryDirectory(prefix="portbench-scan-map-") as work:
        target = Path(work) / "map.json"
        console.print(f"building the {framework} map with {python} (a few minutes) ...")
        try:
            done = subprocess.run(
                [python, str(script), "--framework", framework, "--out", str(target)],
                cwd=work,
                env=env,
                capture_output=True,
                text=True,
                timeout=MAP_TIMEOUT_S,
                check=False,
            )
        except FileNotFoundError:
            raise UsageError(f"{python}: no such interpreter; pass --python PATH") from None
        except subprocess.TimeoutExpired:
            raise UsageError(
                f"the {framework} map took more than {MAP_TIMEOUT_S} s and was stopped"
            ) from None
        if done.returncode != 0 or not target.exists():
            last = (done.stderr.strip().splitlines() or ["no output"])[-1]
            raise UsageError(f"the {framework} map could not be built with {python}: {last[:300]}")
        document: object = json.loads(read_bounded(target, MAX_OUTPUT_BYTES))
    if not isinstance(document, dict):
        raise UsageError(f"the mapper's output for {framework} is not a map this portbench reads")
    release = str(document.get("release", ""))
    if (
        document.get("kind") != "scan-map"
        or document.get("schema") != MAP_SCHEMA
        or document.get("framework") != framework
        or not _RELEASE.match(release)
    ):
        raise UsageError(f"the mapper's output for {framework} is not a map this portbench reads")
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{framework}-{release}.json.gz"
    if path.exists() and not force:
        raise UsageError(f"{path} exists; pass --force to replace it")
    data = json.dumps(document, separators=(",", ":"), sort_keys=True).encode()
    # mtime 0: the same map gives the same bytes, so a rebuilt map only shows in git when
    # its content changed.
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as handle:
        handle.write(data)
    counts = document.get("counts")
    return path, {
        "release": release,
        "counts": {
            str(k): v
            for k, v in (counts.items() if isinstance(counts, dict) else ())
            if isinstance(v, int)
        },
    }
