"""Which files of a project are scanned: Python files and notebooks, found without following links.

The walk never follows a link: a link whose target lies outside the scanned folder is
counted as such (it could lead anywhere: the home folder, the whole disk), and one whose
target is inside is counted too, its target being scanned where it lives. Folders that
hold no project code (version control, caches, virtual environments, build output) are
left out as linters leave them out; files over a size bound are counted, not read.
"""

from __future__ import annotations

import fnmatch
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import UsageError

__all__ = [
    "DEFAULT_EXCLUDES",
    "MAX_FILE_BYTES",
    "Discovery",
    "ProjectFile",
    "discover",
    "read_file",
]

#: Folder names never entered (as ruff and flake8 leave them out by default).
DEFAULT_EXCLUDES = frozenset(
    {
        ".bzr",
        ".direnv",
        ".eggs",
        ".git",
        ".hg",
        ".ipynb_checkpoints",
        ".mypy_cache",
        ".nox",
        ".pytest_cache",
        ".ruff_cache",
        ".svn",
        ".tox",
        ".venv",
        "__pycache__",
        "__pypackages__",
        "_build",
        "build",
        "dist",
        "node_modules",
        "site-packages",
        "venv",
    }
)
#: Files larger than this are counted and not read (generated code, embedded data).
MAX_FILE_BYTES = 5_000_000
SUFFIXES = {".py": "python", ".ipynb": "notebook"}
#: Examples kept per skip reason, for the summary.
EXAMPLES_KEPT = 3


@dataclass(frozen=True)
class ProjectFile:
    """One file to scan: its path under the root (POSIX), its kind and size."""

    rel: str
    kind: str
    size: int


@dataclass
class Discovery:
    """What the walk found: the files to scan and what it left alone, and why."""

    root: Path
    files: list[ProjectFile] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)
    examples: dict[str, list[str]] = field(default_factory=dict)

    def skip(self, reason: str, rel: str) -> None:
        self.skipped[reason] += 1
        kept = self.examples.setdefault(reason, [])
        if len(kept) < EXAMPLES_KEPT:
            kept.append(rel)

    @property
    def bytes(self) -> int:
        return sum(f.size for f in self.files)


def _inside(target: str, root: str) -> bool:
    return target == root or target.startswith(root.rstrip(os.sep) + os.sep)


def discover(
    root: Path,
    excludes: frozenset[str] = DEFAULT_EXCLUDES,
    patterns: tuple[str, ...] = (),
    max_file_bytes: int = MAX_FILE_BYTES,
) -> Discovery:
    """Every Python file and notebook under ``root``, in a stable order.

    ``patterns`` are extra glob patterns (``--exclude``) matched against each path under the
    root and against each name. Raises UsageError when ``root`` is not a folder or holds no
    file to scan.
    """
    if not root.exists():
        raise UsageError(f"{root} does not exist; pass the folder of the project to scan")
    if not root.is_dir():
        raise UsageError(f"{root} is not a folder; pass the folder of the project to scan")
    real_root = os.path.realpath(root)
    found = Discovery(root=root)
    stack = [(str(root), "")]
    while stack:
        folder, rel_folder = stack.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            found.skip("unreadable folder", rel_folder or ".")
            continue
        for entry in entries:
            rel = f"{rel_folder}/{entry.name}" if rel_folder else entry.name
            if patterns and any(
                fnmatch.fnmatch(rel, p) or fnmatch.fnmatch(entry.name, p) for p in patterns
            ):
                found.skip("excluded by --exclude", rel)
                continue
            if entry.is_symlink():
                target = os.path.realpath(entry.path)
                reason = (
                    "link in the tree" if _inside(target, real_root) else "link out of the tree"
                )
                if entry.name.endswith(tuple(SUFFIXES)) or os.path.isdir(target):
                    found.skip(reason, rel)
                continue
            if entry.is_dir(follow_symlinks=False):
                if entry.name in excludes:
                    found.skip("excluded folder", rel)
                else:
                    stack.append((entry.path, rel))
                continue
            kind = SUFFIXES.get(os.path.splitext(entry.name)[1])
            if kind is None or not entry.is_file(follow_symlinks=False):
                continue
            size = entry.stat(follow_symlinks=False).st_size
            if size > max_file_bytes:
                found.skip("too large", rel)
                continue
            found.files.append(ProjectFile(rel, kind, size))
    found.files.sort(key=lambda f: f.rel)
    if not found.files:
        raise UsageError(
            f"{root} holds no Python file or notebook to scan"
            + (
                f" ({sum(found.skipped.values())} left out: links, excluded or too large)"
                if found.skipped
                else ""
            )
            + "; pass the folder of the project's sources"
        )
    return found


def read_file(root: Path, rel: str, max_file_bytes: int) -> bytes:
    """The bytes of one discovered file, opened without following a link and read within
    the bound (a file that grew or became a link since the walk raises OSError)."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(root / rel, flags)
    with os.fdopen(fd, "rb") as handle:
        data = handle.read(max_file_bytes + 1)
    if len(data) > max_file_bytes:
        raise OSError(f"{rel} grew past {max_file_bytes} bytes while being scanned")
    return data
