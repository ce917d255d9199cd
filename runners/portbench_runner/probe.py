"""What an interpreter offers a cell: Python version and installed framework versions.

Reads package metadata only; no framework is imported (that can take seconds or fail).
"""

from __future__ import annotations

import platform
import sys
from typing import Dict, List

__all__ = ["probe"]

DISTRIBUTIONS = {
    "torch": ["torch", "torch-xla"],
    "tensorflow": ["tensorflow", "tensorflow-cpu", "tf-nightly"],
    "jax": ["jax", "jaxlib"],
}


def probe(frameworks: List[str]) -> Dict[str, object]:
    from importlib import metadata

    found: Dict[str, object] = {}
    for framework in frameworks:
        versions = {}
        for dist in DISTRIBUTIONS.get(framework, [framework]):
            try:
                versions[dist] = metadata.version(dist)
            except metadata.PackageNotFoundError:
                continue
        found[framework] = versions or None
    return {
        "python": platform.python_version(),
        "executable": sys.executable,
        "frameworks": found,
    }
