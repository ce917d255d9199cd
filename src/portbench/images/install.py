"""A lock split into install steps: packages of a framework's own index, then PyPI's.

A lock may name an index for some of its packages (``# index: torch URL``): PyTorch's CPU
build is served only by PyTorch's own wheel index. pip and uv take an index for a whole
command, so one step per index, each a requirements file naming only its own packages and
its index (``--index-url``); everything else comes from PyPI in the last step. An extra
index thus never shadows numpy and friends, and with ``--no-deps`` (every transitive
package is pinned) the order of the steps does not matter. A local wheelhouse
(``--find-links``) still applies to every step, as the fallback where no index answers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .locks import Lock

__all__ = ["InstallPart", "install_parts", "install_text"]

_PIN_START = re.compile(r"^(?P<name>[A-Za-z0-9_.\-]+)(\[[^\]]*\])?==")


@dataclass(frozen=True)
class InstallPart:
    """One install step: a requirements file's text and the index it names (None: PyPI)."""

    name: str
    requirements: str
    index_url: str | None


def _blocks(text: str) -> list[tuple[str, str]]:
    """(package, its lines) for each pin of a lock, hashes and comments included."""
    blocks: list[tuple[str, list[str]]] = []
    for line in text.splitlines():
        match = _PIN_START.match(line)
        if match:
            blocks.append((match.group("name").lower().replace("_", "-"), [line]))
        elif blocks and line[:1].isspace():
            blocks[-1][1].append(line)
    return [(name, "\n".join(lines) + "\n") for name, lines in blocks]


def _pylock_blocks(lock: Lock) -> list[tuple[str, str]]:
    """A pylock's packages as requirement lines: ``name==version`` with every file's hash
    (pip picks the wheel that fits; ``--require-hashes`` checks it)."""
    blocks = []
    for package in lock.packages:
        hashes = "".join(f" \\\n    --hash=sha256:{digest}" for digest in package.sha256)
        blocks.append((package.name, f"{package.name}=={package.version}{hashes}\n"))
    return blocks


def install_text(lock: Lock) -> str:
    """The whole lock as one pip requirements file (a profile's lock as it is)."""
    if lock.kind == "pylock":
        return "".join(block for _, block in _pylock_blocks(lock))
    return lock.path.read_text(encoding="utf-8")


def install_parts(lock: Lock) -> list[InstallPart]:
    """The lock's install steps: one per named index (in lock order), then PyPI's."""
    if lock.kind == "pylock":
        blocks = _pylock_blocks(lock)
    else:
        blocks = _blocks(lock.path.read_text(encoding="utf-8"))
    by_index: dict[str, list[str]] = {url: [] for url in dict.fromkeys(lock.indexes.values())}
    pypi: list[str] = []
    for name, block in blocks:
        url = lock.indexes.get(name)
        (by_index[url] if url else pypi).append(block)
    parts = [
        InstallPart(f"{number:02d}-index", f"--index-url {url}\n" + "".join(blocks), url)
        for number, (url, blocks) in enumerate(by_index.items())
        if blocks
    ]
    if pypi:
        parts.append(InstallPart(f"{len(parts):02d}-pypi", "".join(pypi), None))
    return parts
