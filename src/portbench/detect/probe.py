"""The two ways the host looks at hardware: small files (sysfs, device nodes) and vendor tools.

Both are bounded: a file is read up to a size, a tool runs under a timeout and only the head
of its output is kept. Everything here says "absent" (None, empty) rather than raising: a
machine without a vendor's tool or driver is the common case, not an error.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

__all__ = ["TOOL_OUTPUT_BYTES", "TOOL_TIMEOUT_S", "read_small", "run_tool"]

#: Larger than any sysfs attribute or KFD ``properties`` file (the kernel caps those at a page).
SMALL_FILE_BYTES = 64 << 10
#: A vendor tool that does not answer in this long is treated as absent.
TOOL_TIMEOUT_S = 30.0
#: The head of a tool's output that is parsed; the listings asked for are a few KB.
TOOL_OUTPUT_BYTES = 1 << 20


def read_small(path: Path, limit: int = SMALL_FILE_BYTES) -> str | None:
    """The text of a small file (sysfs attribute, properties list), or None if unreadable.

    sysfs is the host kernel's own view, so its links (``/sys/class/drm/renderD128/device``)
    are followed; the read is bounded all the same."""
    try:
        with path.open("rb") as handle:
            return handle.read(limit).decode("utf-8", "replace")
    except OSError:
        return None


def run_tool(name: str, args: list[str], path: str | None) -> str | None:
    """Stdout of the vendor tool ``name`` found on ``path`` (PATH when None), or None when it
    is not installed, fails, or does not answer within :data:`TOOL_TIMEOUT_S`."""
    executable = shutil.which(name, path=path)
    if executable is None:
        return None
    try:
        proc = subprocess.run(
            [executable, *args],
            capture_output=True,
            timeout=TOOL_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if proc.returncode != 0:
        return None
    return proc.stdout[:TOOL_OUTPUT_BYTES].decode("utf-8", "replace")
