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
    "from_wire",
    "to_wire",
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
_SCOPED = frozenset(
    {ast.Lambda, ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp, ast.NamedExpr}
)
_NAME, _ATTRIBUTE, _CALL, _CONSTANT, _LOAD = (
    ast.Name,
    ast.Attribute,
    ast.Call,
    ast.Constant,
    ast.Load,
)
_CALL_STEP: Step = ("c",)
_NOT_A_NAME: Head = ("x",)
#: Fields that never hold an expression (contexts, operators): not walked.
_NO_NAMES = frozenset({"ctx", "op", "ops"})
_FIELDS: dict[type, tuple[str, ...]] = {}


def _fields(kind: type) -> tuple[str, ...]:
    """The fields of a node type that may hold nodes, in the type's own order."""
    found = _FIELDS.get(kind)
    if found is None:
        found = _FIELDS[kind] = tuple(
            f
            for f in kind._fields  # type: ignore[attr-defined]
            if f not in _NO_NAMES
        )
    return found


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
    cached: bool = False
    """Read from the cache of an earlier scan (``--cache``), not from the file's tree."""


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
        text = self.lines[line - 1]
        if text.isascii():  # most lines of a file with some non-ASCII text
            return min(offset, len(text))
        return len(text[:offset].decode("utf-8", "replace"))


class _Reader:
    """One walk over a module's tree, filling a FileFacts.

    The walk is written for speed (a large project has millions of nodes): statements are
    dispatched through a table by node type, expressions are walked with a stack (see
    :meth:`expression`), and whether a reference is worth keeping is decided at the end,
    from what the walk noted when it passed the reference's nodes."""

    def __init__(self, facts: FileFacts, columns: _Columns, interesting: frozenset[str] | None):
        self.facts = facts
        self.columns = columns
        self.ascii = columns.lines is None
        self.interesting = interesting
        self.scope = 0
        self.class_of_scope: dict[int, int] = {}
        self.self_names: dict[int, tuple[str, int]] = {}
        facts.scopes.append((-1, "module"))
        facts.bindings.append({})
        self.pending: list[tuple[int, ast.expr, str | None, bool]] = []
        """Every reference in the order the walk met it: (scope, node, the name it starts
        from or None, whether one of its attributes is an interesting name)."""

    def visit(self, node: ast.AST) -> None:
        handler = _HANDLERS.get(type(node))
        if handler is not None:
            handler(self, node)
        elif isinstance(node, ast.expr):
            self.expression(node)
        else:
            self.generic_visit(node)

    def generic_visit(self, node: ast.AST) -> None:
        """Every child, in field order (as ``ast.NodeVisitor`` visits them)."""
        for name in node._fields:
            value = getattr(node, name, None)
            if type(value) is list:
                for item in value:
                    if isinstance(item, ast.AST):
                        self.visit(item)
            elif isinstance(value, ast.AST):
                self.visit(value)

    # -- scopes and bindings -------------------------------------------------------------

    def _new_scope(self, kind: str) -> int:
        self.facts.scopes.append((self.scope, kind))
        self.facts.bindings.append({})
        return len(self.facts.scopes) - 1

    def bind(self, name: str, binding: Binding, scope: int | None = None) -> None:
        self.facts.bindings[self.scope if scope is None else scope].setdefault(name, []).append(
            binding
        )

    def _pos(self, node: ast.expr) -> tuple[int, int, int, int]:
        line = node.lineno
        end = node.end_lineno or line
        col = node.col_offset
        end_col = node.end_col_offset or 0
        if self.ascii:
            return (line, col, end, end_col)
        return (line, self.columns.col(line, col), end, self.columns.col(end, end_col))

    def chain(self, node: ast.AST) -> Expr | None:
        """The expression a Name/Attribute/Call node is, or None for anything else."""
        steps: list[Step] = []
        current: Any = node  # the node types are told apart by ``type`` (fast), not by mypy
        ascii_only = self.ascii
        while True:
            kind = type(current)
            if kind is _ATTRIBUTE:
                attr = current.attr
                end = current.end_lineno or current.lineno
                end_col = current.end_col_offset or 0
                if not ascii_only:
                    end_col = self.columns.col(end, end_col)
                steps.append(("a", attr, (end, end_col - len(attr), end, end_col)))
                current = current.value
            elif kind is _CALL:
                steps.append(_CALL_STEP)
                current = current.func
            elif kind is _NAME:
                steps.reverse()
                return (("n", current.id, self._pos(current)), tuple(steps))
            else:
                if not steps:
                    return None
                steps.reverse()
                return (_NOT_A_NAME, tuple(steps))

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
        self.expression(node.value)
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
            self.expression(node.value)
            binding = self._value_binding(node.value)
        else:
            binding = self._annotation(node.annotation)
            if binding == _OTHER:
                binding = None  # a bare declaration binds nothing that could be called
        self._bind_target(node.target, binding)
        self._visit_target(node.target)

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        self.expression(node.value)
        self.bind(node.target.id, self._value_binding(node.value) or _OTHER)

    def _visit_target(self, target: ast.expr) -> None:
        # Subscripts and attributes on the left still read names: x[torch.arange(3)] = 1.
        if isinstance(target, ast.Subscript):
            self.expression(target.value)
            self.expression(target.slice)
        elif isinstance(target, ast.Attribute):
            self.expression(target.value)

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
        self.expression(node.iter)
        for stmt in [*node.body, *node.orelse]:
            self.visit(stmt)

    def visit_With(self, node: ast.With | ast.AsyncWith) -> None:
        for item in node.items:
            self.expression(item.context_expr)
            if item.optional_vars is not None:
                self._bind_loop_targets(item.optional_vars)
        for stmt in node.body:
            self.visit(stmt)

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
            self.expression(decorator)
        for default in [*node.args.defaults, *(d for d in node.args.kw_defaults if d)]:
            self.expression(default)
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

    def visit_Lambda(self, node: ast.Lambda) -> None:
        for default in [*node.args.defaults, *(d for d in node.args.kw_defaults if d)]:
            self.expression(default)
        outer = self.scope
        self.scope = self._new_scope("function")
        for arg in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]:
            self.bind(arg.arg, _OTHER)
        for extra in (node.args.vararg, node.args.kwarg):
            if extra is not None:
                self.bind(extra.arg, _OTHER)
        self.expression(node.body)
        self.scope = outer

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for decorator in node.decorator_list:
            self.expression(decorator)
        bases = []
        for base in node.bases:
            self.expression(base)
            expr = self.chain(base)
            if expr is not None:
                bases.append(expr)
        for keyword in node.keywords:
            self.expression(keyword.value)
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
        self.expression(generators[0].iter)
        outer = self.scope
        self.scope = self._new_scope("function")
        for index, generator in enumerate(generators):
            self._bind_loop_targets(generator.target)
            if index:
                self.expression(generator.iter)
            for condition in generator.ifs:
                self.expression(condition)
        if isinstance(node, ast.DictComp):
            self.expression(node.key)
            self.expression(node.value)
        else:
            self.expression(node.elt)
        self.scope = outer

    # -- references ----------------------------------------------------------------------

    def expression(self, root: ast.AST) -> None:
        """Every reference in an expression. Most of a file's nodes are in expressions, so
        they are walked here with a stack instead of one method call per node; the few
        nodes that open a scope (lambda, comprehension) or bind (``:=``) go to their
        visitor. A reference (a name, or a chain of attributes and calls) is noted with
        the name it starts from and whether one of its attributes is a name worth keeping
        on any receiver, so :func:`file_facts` can keep or drop it without walking it
        again; its call arguments, and a base that is not a name, are walked on."""
        stack: list[Any] = [root]  # node types told apart by ``type`` (fast), not by mypy
        pop, push, extend = stack.pop, stack.append, stack.extend
        note = self.pending.append
        scope = self.scope
        interesting = self.interesting
        while stack:
            node = pop()
            kind = type(node)
            if kind is _NAME:
                if type(node.ctx) is _LOAD:
                    note((scope, node, node.id, False))
            elif kind is _ATTRIBUTE or kind is _CALL:
                if kind is _ATTRIBUTE and type(node.ctx) is not _LOAD:
                    push(node.value)
                    continue
                attrs = False
                current: Any = node
                while True:
                    if kind is _CALL:
                        extend(current.args)
                        for keyword in current.keywords:
                            push(keyword.value)
                        current = current.func
                    elif kind is _ATTRIBUTE:
                        if not attrs and (interesting is None or current.attr in interesting):
                            attrs = True
                        current = current.value
                    else:
                        break
                    kind = type(current)
                if kind is _NAME:
                    note((scope, node, current.id, attrs))
                else:
                    note((scope, node, None, attrs))
                    push(current)
            elif kind is _CONSTANT:
                continue
            elif kind in _SCOPED:
                self.visit(node)
            else:
                fields = _FIELDS.get(kind)
                if fields is None:
                    fields = _fields(kind)
                for name in fields:
                    value = getattr(node, name, None)
                    if type(value) is list:
                        extend(v for v in value if isinstance(v, ast.AST))
                    elif isinstance(value, ast.AST):
                        push(value)

    # Statements without bindings of their own, the common ones spelled out (the order of
    # their children is the order of their fields, as ``generic_visit`` takes them).

    def _value(self, node: ast.Expr | ast.Return) -> None:
        if node.value is not None:
            self.expression(node.value)

    def _test(self, node: ast.If | ast.While) -> None:
        self.expression(node.test)
        for stmt in node.body:
            self.visit(stmt)
        for stmt in node.orelse:
            self.visit(stmt)

    def _try(self, node: ast.Try) -> None:
        for stmts in (node.body, node.handlers, node.orelse, node.finalbody):
            for stmt in stmts:
                self.visit(stmt)

    def _nothing(self, node: ast.AST) -> None:
        # Annotations are declarations, not uses: their names are not references.
        return


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
    # A reference can reach a framework when its head is a name the file binds by an
    # import, an assignment or a declaration (or a star import may bind it), or when one
    # of its attributes is a framework method name (kept for the count of unresolved calls).
    stars = bool(facts.stars)
    refs = facts.refs
    chain = reader.chain
    plain = reader.ascii
    for scope, node, head, attrs in reader.pending:
        if attrs or (head is not None and (stars or head in bound)):
            bare = type(node) is _NAME
            if not attrs and head is not None and _inert(facts, scope, head, stars, bare):
                continue
            if bare and plain:  # a third of the references: chain() inlined
                line = node.lineno
                position = (
                    line,
                    node.col_offset,
                    node.end_lineno or line,
                    node.end_col_offset or 0,
                )
                refs.append((scope, (("n", head, position), ())))
                continue
            expr = chain(node)
            if expr is not None:
                refs.append((scope, expr))
    return facts


#: Bindings that give a name no value (``_merge`` in :mod:`.resolve` stops at the first)
#: and bindings whose value is the project's own object, found without looking anywhere.
_NO_VALUE = frozenset({"def", "other"})
_OWN_OBJECT = frozenset({"self", "cls", "class"})


def _inert(facts: FileFacts, scope: int, name: str, stars: bool, bare: bool) -> bool:
    """Whether a reference that starts from ``name`` and has no interesting attribute is
    certain to be no use, and resolving it would look at nothing else. The name is
    resolved as :meth:`.resolve.Resolver.lookup_name` resolves it (the nearest scope
    binding it, class bodies skipped from inside): its bindings give no value (a project
    object may come before: ``_merge`` stops at the first binding with none), or no
    scope binds it and no star import could; or, for a ``bare`` name, they give project
    objects only (``self``: no framework object, and nothing looked up). A chain on a
    name without value has none either, and its attributes, none a framework method's
    name, are not counted as unresolved calls.
    Such a reference is dropped here: resolving it could emit nothing, count nothing,
    and remember nothing that a later lookup would see differently (it was about a fifth
    of a large project's references)."""
    current = scope
    scopes, bindings = facts.scopes, facts.bindings
    while current >= 0:
        parent, kind = scopes[current]
        if (current == scope or kind != "class") and name in bindings[current]:
            for binding in bindings[current][name]:
                if binding[0] in _NO_VALUE:
                    return True
                if binding[0] not in _OWN_OBJECT:
                    return False
            return bare
        current = parent
    return not stars


_HANDLERS: dict[type, Any] = {
    ast.Import: _Reader.visit_Import,
    ast.ImportFrom: _Reader.visit_ImportFrom,
    ast.Assign: _Reader.visit_Assign,
    ast.AugAssign: _Reader.visit_AugAssign,
    ast.AnnAssign: _Reader.visit_AnnAssign,
    ast.For: _Reader.visit_For,
    ast.AsyncFor: _Reader.visit_For,
    ast.With: _Reader.visit_With,
    ast.AsyncWith: _Reader.visit_With,
    ast.ExceptHandler: _Reader.visit_ExceptHandler,
    ast.Global: _Reader.visit_Global,
    ast.Nonlocal: _Reader.visit_Nonlocal,
    ast.FunctionDef: _Reader.visit_FunctionDef,
    ast.AsyncFunctionDef: _Reader.visit_FunctionDef,
    ast.ClassDef: _Reader.visit_ClassDef,
    ast.Lambda: _Reader.visit_Lambda,
    ast.ListComp: _Reader._comprehension,
    ast.SetComp: _Reader._comprehension,
    ast.GeneratorExp: _Reader._comprehension,
    ast.DictComp: _Reader._comprehension,
    ast.NamedExpr: _Reader.visit_NamedExpr,
    ast.Expr: _Reader._value,
    ast.Return: _Reader._value,
    ast.If: _Reader._test,
    ast.While: _Reader._test,
    ast.Try: _Reader._try,
    ast.Pass: _Reader._nothing,
    ast.Break: _Reader._nothing,
    ast.Continue: _Reader._nothing,
    ast.arg: _Reader._nothing,
}
"""The visitor of each node type that has one; others: expressions are walked by
``expression``, anything else child by child."""


def to_wire(facts: FileFacts) -> tuple[Any, ...]:
    """A file's facts as plain tuples, lists, dicts and strings: what ``marshal`` writes
    (several times faster than pickling the dataclasses, both ways), for the facts a worker
    process sends back."""
    return (
        facts.rel,
        facts.kind,
        facts.scopes,
        facts.bindings,
        [(c.scope, c.name, c.bases, c.attributes, c.methods) for c in facts.classes],
        facts.stars,
        facts.all_names,
        facts.refs,
        facts.suppress,
        facts.suppress_file,
        facts.error,
        facts.lines,
        facts.line_map,
        facts.file_lines,
        facts.skipped_cells,
        facts.cached,
    )


def from_wire(wire: tuple[Any, ...]) -> FileFacts:
    """The facts ``to_wire`` wrote."""
    (
        rel,
        kind,
        scopes,
        bindings,
        classes,
        stars,
        all_names,
        refs,
        suppress,
        suppress_file,
        error,
        lines,
        line_map,
        file_lines,
        skipped_cells,
        cached,
    ) = wire
    return FileFacts(
        rel=rel,
        kind=kind,
        scopes=scopes,
        bindings=bindings,
        classes=[ClassFacts(*c) for c in classes],
        stars=stars,
        all_names=all_names,
        refs=refs,
        suppress=suppress,
        suppress_file=suppress_file,
        error=error,
        lines=lines,
        line_map=line_map,
        file_lines=file_lines,
        skipped_cells=skipped_cells,
        cached=cached,
    )


def names_bound(facts: FileFacts) -> Iterable[str]:
    """Module-level names of a file (what ``from module import *`` could bring)."""
    return facts.bindings[0].keys() if facts.bindings else ()
