"""What one file says, read from its syntax tree alone: scopes, bindings, classes, references.

This is the part of a scan that needs no other file, so it runs in worker processes; the
result is plain tuples that pickle cheaply. Nothing is resolved here: ``F.relu`` is kept
as the name ``F`` followed by the attribute ``relu``; which module ``F`` is, and whether
``relu`` is a framework function, is decided later, across the project
(:mod:`.resolve`).

An *expression* is a name followed by steps: ``torch.zeros(3).view(-1)`` is the name
``torch``, then ``.zeros``, a call, ``.view``, a call. Each attribute step keeps the
position of the attribute's own name (file line, 0-based character column, end line, end
column); the head keeps the name's position.

A *binding* is what a statement may put in a name, by kind:

- ``("import", module)``: ``import a.b`` binds ``a`` to ``a``; ``import a.b as x`` binds
  ``x`` to ``a.b``;
- ``("from", module, name, level)``: ``from .m import n`` (level 1);
- ``("value", expr)``: an assignment of an expression (``relu = F.relu``,
  ``x = torch.zeros(3)``);
- ``("annot", expr)``: a parameter or variable annotated with an expression
  (``x: torch.Tensor``);
- ``("self", class)`` / ``("cls", class)``: the first parameter of a method;
- ``("def",)``, ``("class", class)``: a function or class defined here;
- ``("other",)``: anything else (a loop variable, an unpacked tuple, a literal list).

Assignments of constants (``torch = None`` in an ``except ImportError``) bind nothing: the
name then holds no framework object to call.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "SUPPRESS_PATTERN",
    "Binding",
    "ClassFacts",
    "Expr",
    "FileFacts",
    "Position",
    "file_facts",
]

Position = tuple[int, int, int, int]
"""(line, column, end line, end column): lines from 1, columns from 0 in characters."""
# A head is ("n", name, position) or ("x",) for a base that is not a name (a subscript,
# a literal, a call of something that is not a chain).
Head = tuple[Any, ...]
# A step is ("a", name, position) or ("c",) for a call.
Step = tuple[Any, ...]
Expr = tuple[Head, tuple[Step, ...]]
Binding = tuple[Any, ...]

#: ``# portbench: ignore`` (every finding of the line) or ``# portbench: ignore[a, b]``
#: (verdicts, targets or API names); ``# portbench: ignore-file`` anywhere in the file.
SUPPRESS_PATTERN = re.compile(rb"#\s*portbench:\s*ignore(-file)?(?:\[([^\]\n]*)\])?")
_OTHER: Binding = ("other",)
#: Decorators after which a method's first parameter is not the instance.
_NOT_SELF = {"staticmethod", "classmethod"}
#: Expression nodes with a visitor of their own: they open a scope or bind a name.
_SCOPED = (ast.Lambda, ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp, ast.NamedExpr)


@dataclass
class ClassFacts:
    """A class defined in the file: its scope, name, bases and ``self.x = ...`` attributes."""

    scope: int
    name: str
    bases: tuple[Expr, ...]
    attributes: dict[str, list[tuple[int, Binding]]] = field(default_factory=dict)
    """``self.x = ...`` in a method: per attribute, (scope of the method, binding)."""
    methods: set[str] = field(default_factory=set)


@dataclass
class FileFacts:
    """Everything phase one learns from one file."""

    rel: str
    kind: str
    scopes: list[tuple[int, str]] = field(default_factory=list)
    """Per scope: (parent scope, kind: module, function, class); scope 0 is the module."""
    bindings: list[dict[str, list[Binding]]] = field(default_factory=list)
    classes: list[ClassFacts] = field(default_factory=list)
    stars: list[tuple[str, int]] = field(default_factory=list)
    all_names: tuple[str, ...] | None = None
    refs: list[tuple[int, Expr]] = field(default_factory=list)
    """(scope, expression) of every maximal chain worth resolving."""
    suppress: dict[int, frozenset[str] | None] = field(default_factory=dict)
    """Per line: the suppressed codes (None: all) of ``# portbench: ignore`` comments."""
    suppress_file: bool = False
    error: str | None = None
    """Why the file was not read (does not parse), in one phrase with its line."""
    lines: int = 0
    line_map: list[tuple[int, int]] | None = None
    """Notebooks: per module line, (cell, line in the cell)."""
    file_lines: list[int] | None = None
    """Notebooks: per module line, its line in the .ipynb file, where known."""
    skipped_cells: int = 0


def _suppressions(data: bytes, facts: FileFacts) -> None:
    if b"portbench:" not in data:
        return
    for number, line in enumerate(data.splitlines(), start=1):
        match = SUPPRESS_PATTERN.search(line)
        if match is None:
            continue
        if match.group(1):
            facts.suppress_file = True
            continue
        codes = match.group(2)
        facts.suppress[number] = (
            None
            if codes is None
            else frozenset(
                c.strip().decode("utf-8", "replace") for c in codes.split(b",") if c.strip()
            )
        )


class _Columns:
    """UTF-8 byte offsets (what ``ast`` gives) as character columns, for lines that need it."""

    def __init__(self, source: bytes) -> None:
        self.lines = None if source.isascii() else source.splitlines()

    def col(self, line: int, offset: int) -> int:
        if self.lines is None or not 0 < line <= len(self.lines):
            return offset
        return len(self.lines[line - 1][:offset].decode("utf-8", "replace"))


class _Reader(ast.NodeVisitor):
    """One walk over a module's tree, filling a FileFacts."""

    def __init__(self, facts: FileFacts, columns: _Columns, interesting: frozenset[str] | None):
        self.facts = facts
        self.columns = columns
        self.interesting = interesting
        self.scope = 0
        self.class_of_scope: dict[int, int] = {}
        self.self_names: dict[int, tuple[str, int]] = {}
        facts.scopes.append((-1, "module"))
        facts.bindings.append({})
        self.pending: list[tuple[int, ast.AST]] = []

    # -- scopes and bindings -------------------------------------------------------------

    def _new_scope(self, kind: str) -> int:
        self.facts.scopes.append((self.scope, kind))
        self.facts.bindings.append({})
        return len(self.facts.scopes) - 1

    def bind(self, name: str, binding: Binding, scope: int | None = None) -> None:
        self.facts.bindings[self.scope if scope is None else scope].setdefault(name, []).append(
            binding
        )

    def _pos(self, node: ast.AST) -> tuple[int, int, int, int]:
        line = getattr(node, "lineno", 0)
        end = getattr(node, "end_lineno", None) or line
        col = getattr(node, "col_offset", 0)
        end_col = getattr(node, "end_col_offset", None) or 0
        if self.columns.lines is None:
            return (line, col, end, end_col)
        return (line, self.columns.col(line, col), end, self.columns.col(end, end_col))

    def chain(self, node: ast.AST) -> Expr | None:
        """The expression a Name/Attribute/Call node is, or None for anything else."""
        steps: list[Step] = []
        current = node
        ascii_only = self.columns.lines is None
        while True:
            if isinstance(current, ast.Attribute):
                end = current.end_lineno or current.lineno
                end_col = current.end_col_offset or 0
                if ascii_only is False:
                    end_col = self.columns.col(end, end_col)
                steps.append(("a", current.attr, (end, end_col - len(current.attr), end, end_col)))
                current = current.value
            elif isinstance(current, ast.Call):
                steps.append(("c",))
                current = current.func
            elif isinstance(current, ast.Name):
                steps.reverse()
                return (("n", current.id, self._pos(current)), tuple(steps))
            else:
                if not steps:
                    return None
                steps.reverse()
                return (("x",), tuple(steps))

    def _value_binding(self, value: ast.expr | None) -> Binding | None:
        """What an assignment of ``value`` binds; None for a constant (binds nothing)."""
        if value is None:
            return _OTHER
        if isinstance(value, ast.Constant):
            return None
        expr = self.chain(value)
        if expr is not None and expr[0][0] == "n":
            return ("value", expr)
        return _OTHER

    def _bind_target(self, target: ast.expr, binding: Binding | None) -> None:
        if isinstance(target, ast.Name):
            if binding is not None:
                self.bind(target.id, binding)
        elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
            owner = self.self_names.get(self.scope)
            if owner is not None and target.value.id == owner[0] and binding is not None:
                cls = self.facts.classes[owner[1]]
                cls.attributes.setdefault(target.attr, []).append((self.scope, binding))
        elif isinstance(target, ast.Tuple | ast.List | ast.Starred):
            for element in ast.walk(target):
                if isinstance(element, ast.Name):
                    self.bind(element.id, _OTHER)

    # -- statements ----------------------------------------------------------------------

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.asname:
                self.bind(alias.asname, ("import", alias.name))
            else:
                head = alias.name.split(".", 1)[0]
                self.bind(head, ("import", head))

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        for alias in node.names:
            if alias.name == "*":
                if self.scope == 0:
                    self.facts.stars.append((module, node.level))
                continue
            self.bind(alias.asname or alias.name, ("from", module, alias.name, node.level))

    def visit_Assign(self, node: ast.Assign) -> None:
        self.visit(node.value)
        binding = self._value_binding(node.value)
        for target in node.targets:
            if isinstance(target, ast.Name) and target.id == "__all__" and self.scope == 0:
                self._all(node.value, extend=False)
            self._bind_target(target, binding)
            self._visit_target(target)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        if isinstance(node.target, ast.Name) and node.target.id == "__all__" and self.scope == 0:
            self._all(node.value, extend=True)
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.visit(node.value)
            binding = self._value_binding(node.value)
        else:
            binding = self._annotation(node.annotation)
            if binding == _OTHER:
                binding = None  # a bare declaration binds nothing that could be called
        self._bind_target(node.target, binding)
        self._visit_target(node.target)

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        self.visit(node.value)
        self.bind(node.target.id, self._value_binding(node.value) or _OTHER)

    def _visit_target(self, target: ast.expr) -> None:
        # Subscripts and attributes on the left still read names: x[torch.arange(3)] = 1.
        if isinstance(target, ast.Subscript):
            self.visit(target.value)
            self.visit(target.slice)
        elif isinstance(target, ast.Attribute):
            self.visit(target.value)

    def _all(self, value: ast.expr, extend: bool) -> None:
        if not isinstance(value, ast.List | ast.Tuple):
            return
        names = tuple(
            e.value for e in value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)
        )
        current = self.facts.all_names or ()
        self.facts.all_names = current + names if extend else names

    def _bind_loop_targets(self, target: ast.expr) -> None:
        for element in ast.walk(target):
            if isinstance(element, ast.Name):
                self.bind(element.id, _OTHER)

    def visit_For(self, node: ast.For | ast.AsyncFor) -> None:
        self._bind_loop_targets(node.target)
        self._visit_target(node.target)
        self.visit(node.iter)
        for stmt in [*node.body, *node.orelse]:
            self.visit(stmt)

    visit_AsyncFor = visit_For

    def visit_With(self, node: ast.With | ast.AsyncWith) -> None:
        for item in node.items:
            self.visit(item.context_expr)
            if item.optional_vars is not None:
                self._bind_loop_targets(item.optional_vars)
        for stmt in node.body:
            self.visit(stmt)

    visit_AsyncWith = visit_With

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.name:
            self.bind(node.name, _OTHER)
        self.generic_visit(node)

    def visit_Global(self, node: ast.Global) -> None:
        for name in node.names:
            self.bind(name, _OTHER)

    def visit_Nonlocal(self, node: ast.Nonlocal) -> None:
        for name in node.names:
            self.bind(name, _OTHER)

    def _annotation(self, node: ast.expr | None) -> Binding:
        # Optional[X], X | None and "X" in quotes declare X too.
        if isinstance(node, ast.Subscript):
            outer = node.value
            name = outer.id if isinstance(outer, ast.Name) else getattr(outer, "attr", "")
            if name == "Optional":
                node = node.slice
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            if isinstance(node.right, ast.Constant) and node.right.value is None:
                node = node.left
            elif isinstance(node.left, ast.Constant) and node.left.value is None:
                node = node.right
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:
                node = ast.parse(node.value, mode="eval").body
            except SyntaxError:
                return _OTHER
        expr = self.chain(node) if node is not None else None
        return ("annot", expr) if expr is not None and expr[0][0] == "n" else _OTHER

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for decorator in node.decorator_list:
            self.visit(decorator)
        for default in [*node.args.defaults, *(d for d in node.args.kw_defaults if d)]:
            self.visit(default)
        self.bind(node.name, ("def",))
        owner = self.class_of_scope.get(self.scope)
        if owner is not None:
            self.facts.classes[owner].methods.add(node.name)
        outer = self.scope
        self.scope = self._new_scope("function")
        args = [*node.args.posonlyargs, *node.args.args]
        decorators = {d.id for d in node.decorator_list if isinstance(d, ast.Name)}
        first = args[0].arg if args else None
        for index, arg in enumerate([*args, *node.args.kwonlyargs]):
            if index == 0 and owner is not None and "staticmethod" not in decorators:
                kind = "cls" if "classmethod" in decorators else "self"
                self.bind(arg.arg, (kind, owner))
            else:
                self.bind(arg.arg, self._annotation(arg.annotation))
        for extra in (node.args.vararg, node.args.kwarg):
            if extra is not None:
                self.bind(extra.arg, _OTHER)
        if owner is not None and first is not None and not decorators & _NOT_SELF:
            self.self_names[self.scope] = (first, owner)
        for stmt in node.body:
            self.visit(stmt)
        self.scope = outer

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node: ast.Lambda) -> None:
        for default in [*node.args.defaults, *(d for d in node.args.kw_defaults if d)]:
            self.visit(default)
        outer = self.scope
        self.scope = self._new_scope("function")
        for arg in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]:
            self.bind(arg.arg, _OTHER)
        for extra in (node.args.vararg, node.args.kwarg):
            if extra is not None:
                self.bind(extra.arg, _OTHER)
        self.visit(node.body)
        self.scope = outer

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for decorator in node.decorator_list:
            self.visit(decorator)
        bases = []
        for base in node.bases:
            self.visit(base)
            expr = self.chain(base)
            if expr is not None:
                bases.append(expr)
        for keyword in node.keywords:
            self.visit(keyword.value)
        index = len(self.facts.classes)
        outer = self.scope
        scope = self._new_scope("class")
        self.facts.classes.append(ClassFacts(scope, node.name, tuple(bases)))
        self.bind(node.name, ("class", index), scope=outer)
        self.class_of_scope[scope] = index
        self.scope = scope
        for stmt in node.body:
            self.visit(stmt)
        self.scope = outer

    def _comprehension(
        self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp
    ) -> None:
        # The first iterable is evaluated in the enclosing scope; the rest in the new one.
        generators = node.generators
        self.visit(generators[0].iter)
        outer = self.scope
        self.scope = self._new_scope("function")
        for index, generator in enumerate(generators):
            self._bind_loop_targets(generator.target)
            if index:
                self.visit(generator.iter)
            for condition in generator.ifs:
                self.visit(condition)
        if isinstance(node, ast.DictComp):
            self.visit(node.key)
            self.visit(node.value)
        else:
            self.visit(node.elt)
        self.scope = outer

    visit_ListComp = _comprehension
    visit_SetComp = _comprehension
    visit_GeneratorExp = _comprehension
    visit_DictComp = _comprehension

    # -- references ----------------------------------------------------------------------

    def expression(self, root: ast.AST) -> None:
        """Every reference in an expression. Most of a file's nodes are in expressions, so
        they are walked here with a stack instead of one method call per node; the few
        nodes that open a scope (lambda, comprehension) or bind (``:=``) go to their
        visitor."""
        stack = [root]
        pending = self.pending
        scope = self.scope
        while stack:
            node = stack.pop()
            kind = type(node)
            if kind is ast.Name:
                if type(node.ctx) is ast.Load:  # type: ignore[attr-defined]
                    pending.append((scope, node))
            elif kind is ast.Attribute or kind is ast.Call:
                if kind is ast.Attribute and type(node.ctx) is not ast.Load:  # type: ignore[attr-defined]
                    stack.append(node.value)  # type: ignore[attr-defined]
                    continue
                pending.append((scope, node))
                # Arguments of every call in the chain, and a base that is not a name.
                current = node
                while True:
                    current_kind = type(current)
                    if current_kind is ast.Call:
                        stack.extend(current.args)  # type: ignore[attr-defined]
                        stack.extend(k.value for k in current.keywords)  # type: ignore[attr-defined]
                        current = current.func  # type: ignore[attr-defined]
                    elif current_kind is ast.Attribute:
                        current = current.value  # type: ignore[attr-defined]
                    else:
                        break
                if type(current) is not ast.Name:
                    stack.append(current)
            elif kind in _SCOPED:
                self.visit(node)
            else:
                for name in node._fields:
                    value = getattr(node, name, None)
                    if type(value) is list:
                        stack.extend(v for v in value if isinstance(v, ast.AST))
                    elif isinstance(value, ast.AST):
                        stack.append(value)

    def generic_visit(self, node: ast.AST) -> None:
        if isinstance(node, ast.expr):
            self.expression(node)
        else:
            super().generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        self.expression(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        self.expression(node)

    def visit_Call(self, node: ast.Call) -> None:
        self.expression(node)

    # Annotations are declarations, not uses: their names are not references.
    def visit_arg(self, node: ast.arg) -> None:
        return


def _worth(node: ast.AST, interesting: frozenset[str] | None, bound: set[str], stars: bool) -> bool:
    """Whether a reference can reach a framework: its head is a name the file binds by an
    import, an assignment or a declaration (or a star import may), or one of its
    attributes is a framework method name (kept for the count of unresolved calls)."""
    attrs = False
    current = node
    while True:
        kind = type(current)
        if kind is ast.Attribute:
            if interesting is None or current.attr in interesting:  # type: ignore[attr-defined]
                attrs = True
            current = current.value  # type: ignore[attr-defined]
        elif kind is ast.Call:
            current = current.func  # type: ignore[attr-defined]
        else:
            break
    if type(current) is ast.Name and (current.id in bound or stars):
        return True
    return attrs


_INTERESTING = frozenset({"import", "from", "value", "annot", "self", "cls", "class"})


def file_facts(
    rel: str,
    kind: str,
    source: bytes,
    interesting: frozenset[str] | None = None,
    line_map: list[tuple[int, int]] | None = None,
) -> FileFacts:
    """Read one module's source. A file that does not parse gets ``error`` and no facts.

    ``interesting`` is the set of attribute names worth keeping on a receiver no import
    explains (framework method names): other chains on unknown receivers are dropped here,
    so the rest of the scan does not carry them.
    """
    facts = FileFacts(rel=rel, kind=kind, line_map=line_map)
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        facts.error = f"line {exc.lineno}: {exc.msg}" if exc.lineno else str(exc.msg)
        return facts
    except (ValueError, RecursionError, MemoryError) as exc:
        facts.error = type(exc).__name__ + (f": {exc}" if isinstance(exc, ValueError) else "")
        return facts
    facts.lines = source.count(b"\n") + 1
    _suppressions(source, facts)
    reader = _Reader(facts, _Columns(source), interesting)
    try:
        for stmt in tree.body:
            reader.visit(stmt)
    except RecursionError:
        facts.error = "nested too deeply to read"
        facts.refs.clear()
        return facts
    bound = {
        name
        for scope in facts.bindings
        for name, bindings in scope.items()
        if any(b[0] in _INTERESTING for b in bindings)
    }
    stars = bool(facts.stars)
    for scope, node in reader.pending:
        if _worth(node, interesting, bound, stars):
            expr = reader.chain(node)
            if expr is not None:
                facts.refs.append((scope, expr))
    return facts


def names_bound(facts: FileFacts) -> Iterable[str]:
    """Module-level names of a file (what ``from module import *`` could bring)."""
    return facts.bindings[0].keys() if facts.bindings else ()
