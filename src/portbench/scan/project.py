"""The project's own modules: which file a dotted module name is, and relative imports.

A file's module name comes from its packages: ``src/pkg/sub/mod.py`` is ``pkg.sub.mod``
when ``src/pkg/__init__.py`` and ``src/pkg/sub/__init__.py`` exist and ``src/__init__.py``
does not. Files outside any package (scripts, notebooks) are also found by their bare name
from the same folder, as ``python script.py`` finds its neighbours.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field

__all__ = ["ModuleIndex", "module_name"]


def module_name(rel: str, packages: set[str]) -> tuple[str | None, bool]:
    """(dotted name, is a package) of the Python file ``rel``; ``packages`` holds the
    folders (POSIX, relative) that have an ``__init__.py``. Notebooks have no name."""
    if not rel.endswith(".py"):
        return None, False
    parts = rel[:-3].split("/")
    is_package = parts[-1] == "__init__"
    if is_package:
        parts = parts[:-1]
        if not parts:
            return None, False
    folders = parts[:-1]
    start = len(folders)
    while start > 0 and "/".join(folders[:start]) in packages:
        start -= 1
    if is_package and "/".join(parts) not in packages:
        return None, False
    name_parts = parts[start:]
    if not all(p.isidentifier() for p in name_parts):
        return None, is_package
    return ".".join(name_parts), is_package


@dataclass
class ModuleIndex:
    """Module names of the project's files, both ways."""

    by_name: dict[str, int] = field(default_factory=dict)
    ambiguous: set[str] = field(default_factory=set)
    names: list[str | None] = field(default_factory=list)
    packages: list[bool] = field(default_factory=list)
    by_rel: dict[str, int] = field(default_factory=dict)

    @classmethod
    def build(cls, rels: list[str]) -> ModuleIndex:
        folders = {posixpath.dirname(r) for r in rels if posixpath.basename(r) == "__init__.py"}
        index = cls()
        for number, rel in enumerate(rels):
            name, is_package = module_name(rel, folders)
            index.names.append(name)
            index.packages.append(is_package)
            index.by_rel[rel] = number
            if name is None:
                continue
            if name in index.by_name and index.by_name[name] != number:
                index.ambiguous.add(name)
            else:
                index.by_name[name] = number
        return index

    def find(self, name: str, near: str | None = None) -> int | None:
        """The file of module ``name``: a neighbour of ``near`` first (a script's own folder),
        else the project's unique module of that name."""
        if near is not None:
            folder = posixpath.dirname(near)
            stem = name.replace(".", "/")
            for candidate in (f"{stem}.py", f"{stem}/__init__.py"):
                rel = posixpath.join(folder, candidate) if folder else candidate
                if rel in self.by_rel:
                    return self.by_rel[rel]
        if name in self.ambiguous:
            return None
        return self.by_name.get(name)

    def absolute(self, file: int, module: str, level: int) -> str | None:
        """The absolute name of ``from <level dots><module> import ...`` in ``file``."""
        if level == 0:
            return module
        own = self.names[file]
        if own is None:
            return None
        package = own if self.packages[file] else own.rpartition(".")[0]
        parts = package.split(".") if package else []
        if level - 1 > len(parts):
            return None
        base = parts[: len(parts) - (level - 1)]
        if module:
            base.append(module)
        return ".".join(base) if base else None
