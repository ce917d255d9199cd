"""Count a framework's names in one Python file: resolved uses and bare identifiers.

A *use* is a load of a dotted name that resolves, through the file's imports, to an
enumerated public path: ``import torch.nn as nn; nn.Linear(...)`` and ``from torch import
nn`` both count for ``torch.nn.Linear``. Import lines, strings, comments and type annotations never count.
An *identifier use* is what the study counted: every loaded identifier whose text equals the
last component of an enumerated name (``x.size()`` counts for ``size``), collisions included.

Files parse with :mod:`ast`; files that do not (Python 2, syntax errors) fall back to
:mod:`tokenize`, which sees the same tokens without the tree.

Which files count (``FILE_FILTERS``): ``imports`` keeps a file whose import lines name the
framework and whose imports really bind it; ``study`` keeps every file that the paper's
own regex matches (appendix 9: ``(from.*torch|import.*torch)`` on any line, so ``import
torchvision`` and a docstring's "from the torch" match too), as the study did.
"""

from __future__ import annotations

import ast
import io
import keyword
import re
import tokenize
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

__all__ = ["FILE_FILTERS", "FileUsage", "NameIndex", "count_file"]

FILE_FILTERS = ("imports", "study")


@dataclass(frozen=True)
class NameIndex:
    """What to look for: public paths (canonical and alias) mapped to canonical names."""

    framework: str
    paths: dict[str, str]
    identifiers: frozenset[str]
    import_pattern: re.Pattern[bytes] = field(repr=False)
    study_pattern: re.Pattern[bytes] = field(repr=False)
    """The paper's filter as printed: ``(from.*F|import.*F)``, unanchored."""

    @classmethod
    def build(cls, framework: str, names: Iterable[tuple[str, Iterable[str]]]) -> NameIndex:
        """Index ``(canonical, aliases)`` pairs of one framework."""
        paths: dict[str, str] = {}
        for canonical, aliases in names:
            paths[canonical] = canonical
            for alias in aliases:
                paths.setdefault(alias, canonical)
        root = re.escape(framework.split(".", maxsplit=1)[0]).encode()
        # The study's filter, anchored to import statements: (from.*F|import.*F).
        pattern = (
            rb"(?m)^[ \t]*(?:from[ \t]+" + root + rb"\b|import[ \t]+[^\n#]*\b" + root + rb"\b)"
        )
        return cls(
            framework=framework,
            paths=paths,
            identifiers=frozenset(p.rsplit(".", 1)[-1] for p in paths.values()),
            import_pattern=re.compile(pattern),
            study_pattern=re.compile(rb"(from.*" + root + rb"|import.*" + root + rb")"),
        )

    def pattern(self, file_filter: str) -> re.Pattern[bytes]:
        """The regex that picks candidate files for ``file_filter``."""
        return self.study_pattern if file_filter == "study" else self.import_pattern


@dataclass
class FileUsage:
    """Counts for one file; ``method`` is ``ast`` or ``tokenize``; ``imports`` says it imports F."""

    method: str
    imports: bool = False
    uses: Counter[str] = field(default_factory=Counter)
    identifiers: Counter[str] = field(default_factory=Counter)


def _bind_import(aliases: dict[str, str], module: str, asname: str | None) -> None:
    if asname:
        aliases[asname] = module
    else:
        head = module.split(".", 1)[0]
        aliases[head] = head


def _bind_from(
    aliases: dict[str, str], stars: list[str], module: str, name: str, asname: str | None
) -> None:
    if name == "*":
        stars.append(module)
    else:
        aliases[asname or name] = f"{module}.{name}"


class _Resolver:
    """Shared by both readers: turns a dotted chain into a canonical name, if any."""

    def __init__(self, index: NameIndex, usage: FileUsage, keep_all: bool = False) -> None:
        self.index = index
        self.usage = usage
        # The study filter counts a file it kept even when its imports bind nothing of F.
        self.keep_all = keep_all
        self.aliases: dict[str, str] = {}
        self.stars: list[str] = []

    def finish_imports(self) -> None:
        root = self.index.framework.split(".")[0]
        targets = list(self.aliases.values()) + self.stars
        self.usage.imports = any(t == root or t.startswith(root + ".") for t in targets)

    def chain(self, parts: list[str], resolvable: bool = True) -> None:
        for part in parts:
            if part in self.index.identifiers:
                self.usage.identifiers[part] += 1
        if not resolvable:
            return
        head = self.aliases.get(parts[0])
        if head is None:
            head = next(
                (f"{m}.{parts[0]}" for m in self.stars if f"{m}.{parts[0]}" in self.index.paths),
                None,
            )
            if head is None:
                return
        components = head.split(".") + parts[1:]
        # The longest enumerated prefix: nn.Linear.forward(...) is a use of torch.nn.Linear.
        for end in range(len(components), 0, -1):
            canonical = self.index.paths.get(".".join(components[:end]))
            if canonical is not None:
                self.usage.uses[canonical] += 1
                return


def _chain_of(node: ast.Attribute) -> tuple[list[str], ast.expr]:
    """``a.b.c`` -> (["b", "c"], Name a); the base is whatever the attributes hang on."""
    parts: list[str] = []
    current: ast.expr = node
    while isinstance(current, ast.Attribute):
        parts.append(current.attr)
        current = current.value
    parts.reverse()
    return parts, current


def _read_ast(tree: ast.Module, resolver: _Resolver) -> None:
    # One walk collects everything: imports, annotations, and candidate names. A Name or
    # Attribute that is the ``value`` of an Attribute is part of a longer chain, read there.
    candidates: list[ast.Name | ast.Attribute] = []
    inner: set[int] = set()
    annotations: list[ast.expr] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            candidates.append(node)
            inner.add(id(node.value))
        elif isinstance(node, ast.Name):
            candidates.append(node)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                _bind_import(resolver.aliases, alias.name, alias.asname)
        elif isinstance(node, ast.ImportFrom):
            if node.module and not node.level:  # relative imports are the file's own package
                for alias in node.names:
                    _bind_from(
                        resolver.aliases, resolver.stars, node.module, alias.name, alias.asname
                    )
        elif isinstance(node, ast.arg | ast.AnnAssign) and node.annotation is not None:
            annotations.append(node.annotation)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.returns:
            annotations.append(node.returns)
    resolver.finish_imports()
    if not (resolver.usage.imports or resolver.keep_all):
        return
    # Type annotations name classes without running them: they are not uses.
    skipped = inner | {id(n) for a in annotations for n in ast.walk(a)}
    for node in candidates:
        if id(node) in skipped or not isinstance(node.ctx, ast.Load):
            continue
        if isinstance(node, ast.Name):
            resolver.chain([node.id])
            continue
        parts, base = _chain_of(node)
        if isinstance(base, ast.Name):
            resolver.chain([base.id, *parts])
        else:
            resolver.chain(parts, resolvable=False)


_SILENT = (tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING)


def _logical_lines(data: bytes) -> list[list[str]]:
    """NAME tokens and the punctuation that joins chains; anything else is a break (" ")."""
    lines: list[list[str]] = []
    current: list[str] = []
    try:
        for token in tokenize.tokenize(io.BytesIO(data).readline):
            if token.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
                lines.append(current)
                current = []
            elif token.type == tokenize.NAME or (
                token.type == tokenize.OP and token.string in {".", ",", "(", ")", "*"}
            ):
                current.append(token.string)
            elif token.type not in _SILENT:
                current.append(" ")
    except (tokenize.TokenError, SyntaxError):
        pass  # keep the lines read before the error
    lines.append(current)
    return lines


def _token_imports(line: list[str], resolver: _Resolver) -> None:
    words = [w for w in line if w not in {"(", ")"}]
    if words[0] == "import":
        for piece in " ".join(words[1:]).split(","):
            tokens = piece.split()
            name = (
                "".join(t for t in tokens[: tokens.index("as")] if t)
                if "as" in tokens
                else "".join(tokens)
            )
            asname = (
                tokens[tokens.index("as") + 1] if "as" in tokens and tokens[-1] != "as" else None
            )
            if name:
                _bind_import(resolver.aliases, name, asname)
    elif "import" in words and words[1:2] != ["."]:
        at = words.index("import")
        module = "".join(words[1:at])
        for piece in " ".join(words[at + 1 :]).split(","):
            tokens = piece.split()
            if tokens:
                asname = tokens[2] if len(tokens) > 2 and tokens[1] == "as" else None
                _bind_from(resolver.aliases, resolver.stars, module, tokens[0], asname)


def _read_tokens(data: bytes, resolver: _Resolver) -> None:
    lines = [line for line in _logical_lines(data) if line]
    code = []
    for line in lines:
        if line[0] in {"import", "from"}:
            _token_imports(line, resolver)
        else:
            code.append(line)
    resolver.finish_imports()
    if not (resolver.usage.imports or resolver.keep_all):
        return
    for line in code:
        index = 0
        while index < len(line):
            word = line[index]
            if not word.isidentifier() or keyword.iskeyword(word):
                index += 1
                continue
            after_dot = index > 0 and line[index - 1] == "."
            after_def = index > 0 and line[index - 1] in {"def", "class"}
            parts = [word]
            while (
                index + 2 < len(line) and line[index + 1] == "." and line[index + 2].isidentifier()
            ):
                parts.append(line[index + 2])
                index += 2
            if not after_def:
                resolver.chain(parts, resolvable=not after_dot)
            index += 1


def count_file(data: bytes, index: NameIndex, file_filter: str = "imports") -> FileUsage | None:
    """Count uses in one file, or ``None`` when ``file_filter`` does not keep it."""
    if not index.pattern(file_filter).search(data):
        return None
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        tree = None
    keep_all = file_filter == "study"
    resolver = _Resolver(index, FileUsage("ast" if tree is not None else "tokenize"), keep_all)
    if tree is not None:
        _read_ast(tree, resolver)
    else:
        _read_tokens(data, resolver)
    return resolver.usage if resolver.usage.imports or keep_all else None
