"""Every command pays for what the command line imports before it parses: the heavy
libraries (scipy's statistics, the frameworks, Ray) are imported by the commands that use
them, when they run, never by building the parser."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
HEAVY = ("scipy", "torch", "jax", "tensorflow", "ray", "pandas", "matplotlib")


def test_building_the_parser_imports_no_heavy_library() -> None:
    probe = (
        "import json, sys\n"
        "from portbench.cli import build_parser\n"
        "build_parser()\n"
        f"print(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r}))))\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "src"), str(ROOT / "runners")]))
    done = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True
    )
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []
