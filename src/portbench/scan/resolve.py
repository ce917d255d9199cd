"""Phase two of a scan: every reference of every file, resolved across the project to an API.

A name's value comes from its bindings in the nearest scope that binds it (as Python looks
names up: class bodies are skipped from inside their methods); when a scope binds a name
more than one way and the ways disagree (``x = torch.zeros(3)`` then ``x = x + 1``), the
name is not resolved. Values are:

- ``("fw", path, route)``: a framework path (a module, a function, a class ...);
- ``("inst", class, route)``: an instance of a framework class, known because it was
  constructed (``nn.Linear(3, 3)``), returned by a call whose return the API map knows
  (``torch.zeros(3)``), or declared (``x: torch.Tensor``);
- ``("pmod", file)``, ``("pclass", file, class)``, ``("pinst", file, class)``: the
  project's own modules, classes and their instances (``self``), whose framework bases
  give inherited methods (``self.register_buffer`` in a ``torch.nn.Module``).

``route`` says how the framework object was reached, for the report: ``import``,
``re-export`` (through the project's own modules), ``star``, ``assignment``,
``constructor``, ``return``, ``annotation``, ``subclass`` or ``guess``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from .apimap import FRAMEWORK_ROOTS, ApiMap
from .facts import Binding, Expr, FileFacts
from .project import ModuleIndex

__all__ = ["Resolver", "Use"]

Value = tuple[Any, ...] | None
_BUSY = ("busy",)


@dataclass(frozen=True)
class Use:
    """One use of a framework API at one place of the project."""

    file: str
    line: int
    col: int
    end_line: int
    end_col: int
    framework: str
    api: str
    """The path as the code reaches it (``torch.nn.functional.relu``, ``torch.Tensor.view``)."""
    canonical: str | None
    """The API's canonical path in the map; None when the release has no such API."""
    kind: str
    """function, class, method; ``unknown`` when not resolved to an API."""
    route: str
    called: bool


def _framework(path: str) -> str | None:
    root = path.split(".", 1)[0]
    return root if root in FRAMEWORK_ROOTS else None


def _same(a: Value, b: Value) -> bool:
    """Two values agree when they name the same thing, however each was reached."""
    if a is None or b is None:
        return a is b
    return a[0] == b[0] and a[1:-1] == b[1:-1] if a[0] in ("fw", "inst") else a == b


@dataclass
class Resolver:
    """Resolves references of a set of files against the API maps."""

    files: list[FileFacts]
    index: ModuleIndex
    maps: dict[str, ApiMap]
    guess: bool = False
    receivers: dict[str, set[str]] = field(default_factory=dict)
    """Per framework, the classes a method guessed by name could belong to."""
    stats: Counter[str] = field(default_factory=Counter)
    unresolved_methods: Counter[str] = field(default_factory=Counter)
    _scope_memo: dict[tuple[int, int, str], Value] = field(default_factory=dict)
    _star_memo: dict[tuple[int, str], Value] = field(default_factory=dict)
    _class_memo: dict[tuple[int, int, str], Value] = field(default_factory=dict)
    _imports: dict[int, frozenset[str]] = field(default_factory=dict)
    _guesses: dict[tuple[frozenset[str], str], list[tuple[str, str]]] = field(default_factory=dict)

    # -- names -----------------------------------------------------------------------------

    def lookup_name(self, file: int, scope: int, name: str) -> Value:
        facts = self.files[file]
        scopes, bindings = facts.scopes, facts.bindings
        current = scope
        while current >= 0:
            parent, kind = scopes[current]
            if (current == scope or kind != "class") and name in bindings[current]:
                known = self._scope_memo.get((file, current, name), _BUSY)
                if known is not _BUSY:  # scope_value's memo, read here: most lookups
                    return known
                return self.scope_value(file, current, name)
            current = parent
        return self.star_value(file, name)

    def scope_value(self, file: int, scope: int, name: str) -> Value:
        key = (file, scope, name)
        memo = self._scope_memo.get(key, _BUSY)
        if memo is not _BUSY:
            return memo
        self._scope_memo[key] = None  # a cycle (a = b; b = a) resolves to nothing
        value = self._merge(file, scope, self.files[file].bindings[scope][name])
        self._scope_memo[key] = value
        return value

    def _merge(self, file: int, scope: int, bindings: list[Binding]) -> Value:
        first: Value = None
        for number, binding in enumerate(bindings):
            value = self.binding_value(file, scope, binding)
            if value is None:
                return None
            if number == 0:
                first = value
            elif not _same(first, value):
                return None
        return first

    def binding_value(self, file: int, scope: int, binding: Binding) -> Value:
        kind = binding[0]
        if kind == "import":
            module = binding[1]
            if _framework(module):
                return ("fw", module, "import")
            number = self.index.find(module, near=self.files[file].rel)
            return ("pmod", number) if number is not None else None
        if kind == "from":
            return self._from(file, binding[1], binding[2], binding[3])
        if kind == "value":
            value = self.evaluate(file, scope, binding[1])
            if value is not None and value[0] == "fw":
                return ("fw", value[1], "assignment")
            return value
        if kind == "annot":
            value = self.evaluate(file, scope, binding[1])
            if value is None:
                return None
            if value[0] == "fw":
                framework = _framework(value[1])
                api = self.maps.get(framework or "")
                found = api.lookup(value[1]) if api else None
                if found is not None and found.kind == "class":
                    return ("inst", found.canonical, "annotation")
                return None
            if value[0] == "pclass":
                return ("pinst", value[1], value[2])
            return None
        if kind == "self":
            return ("pinst", file, binding[1])
        if kind in ("cls", "class"):
            return ("pclass", file, binding[1])
        return None

    def _from(self, file: int, module: str, name: str, level: int) -> Value:
        absolute = self.index.absolute(file, module, level)
        if absolute is None:
            return None
        if level == 0 and _framework(absolute):
            return ("fw", f"{absolute}.{name}", "import")
        near = self.files[file].rel if level == 0 else None
        target = self.index.find(absolute, near=near)
        if target is not None:
            value = self.module_attr(target, name)
            if value is not None:
                return ("fw", value[1], "re-export") if value[0] == "fw" else value
        sub = self.index.find(f"{absolute}.{name}", near=near)
        return ("pmod", sub) if sub is not None else None

    def module_attr(self, file: int, name: str) -> Value:
        """``name`` of the project module ``file``: its own binding, a star import, or a
        submodule."""
        facts = self.files[file]
        if facts.bindings and name in facts.bindings[0]:
            return self.scope_value(file, 0, name)
        value = self.star_value(file, name)
        if value is not None:
            return value
        own = self.index.names[file]
        if own is not None:
            sub = self.index.find(f"{own}.{name}")
            if sub is not None:
                return ("pmod", sub)
        return None

    def star_value(self, file: int, name: str) -> Value:
        facts = self.files[file]
        if not facts.stars:
            return None
        key = (file, name)
        memo = self._star_memo.get(key, _BUSY)
        if memo is not _BUSY:
            return memo
        self._star_memo[key] = None
        found: Value = None
        for module, level in facts.stars:
            absolute = self.index.absolute(file, module, level)
            if absolute is None:
                continue
            framework = _framework(absolute) if level == 0 else None
            if framework:
                api = self.maps.get(framework)
                if api is not None and api.lookup(f"{absolute}.{name}") is not None:
                    found = ("fw", f"{absolute}.{name}", "star")
                    break
                continue
            target = self.index.find(absolute, near=facts.rel if level == 0 else None)
            if target is None:
                continue
            exported = self.files[target].all_names
            if exported is not None and name not in exported:
                continue
            if exported is None and name.startswith("_"):
                continue
            value = self.module_attr(target, name)
            if value is not None:
                found = ("fw", value[1], "re-export") if value[0] == "fw" else value
                break
        self._star_memo[key] = found
        return found

    # -- classes of the project ------------------------------------------------------------

    def class_attr(self, file: int, cls: int, name: str) -> Value:
        key = (file, cls, name)
        memo = self._class_memo.get(key, _BUSY)
        if memo is not _BUSY:
            return memo
        self._class_memo[key] = None
        facts = self.files[file]
        info = facts.classes[cls]
        value: Value = None
        if name in info.methods:
            value = None  # the project's own method
        elif name in info.attributes:
            values = [self.binding_value(file, scope, b) for scope, b in info.attributes[name]]
            value = values[0] if all(_same(values[0], v) for v in values) else None
        elif name in facts.bindings[info.scope]:
            value = self.scope_value(file, info.scope, name)
        else:
            parent = facts.scopes[info.scope][0]
            for base in info.bases:
                base_value = self.evaluate(file, parent, base)
                if base_value is None:
                    continue
                if base_value[0] == "pclass":
                    value = self.class_attr(base_value[1], base_value[2], name)
                elif base_value[0] == "fw":
                    value = self._inherited(base_value[1], name)
                if value is not None:
                    break
        self._class_memo[key] = value
        return value

    def _inherited(self, base: str, name: str) -> Value:
        api = self.maps.get(_framework(base) or "")
        found = api.lookup(base) if api else None
        if api is None or found is None or found.kind != "class":
            return None
        member = api.member(found.canonical, name)
        if member is None or member.kind == "attribute":
            return None
        return ("fw", member.canonical, "subclass")

    # -- expressions -----------------------------------------------------------------------

    def evaluate(self, file: int, scope: int, expr: Expr, uses: list[Use] | None = None) -> Value:
        """The value of ``expr`` in ``scope``; with ``uses``, every framework API the
        expression reaches is appended to it."""
        head, steps = expr
        if not steps:  # a bare name (a third of the references): the loop below, skipped
            value = self.lookup_name(file, scope, head[1])
            if value is not None and value[0] == "fw" and uses is not None:
                self._emit(uses, file, value, head[2], head[2], called=False)
            return value
        value = self.lookup_name(file, scope, head[1]) if head[0] == "n" else None
        start = head[2] if head[0] == "n" else None
        emitted = False
        end = start
        index = 0
        while index < len(steps):
            step = steps[index]
            index += 1
            if step[0] == "c":
                if value is not None and value[0] == "fw":
                    if not emitted and uses is not None and start is not None and end is not None:
                        self._emit(uses, file, value, start, end, called=True)
                    value = self._call(value)
                    emitted = True
                elif value is not None and value[0] == "pclass":
                    value = ("pinst", value[1], value[2])
                else:
                    value = None
                continue
            attr, position = step[1], step[2]
            kind = value[0] if value is not None else None
            if kind == "fw" and value is not None:
                api = self.maps.get(_framework(value[1]) or "")
                path = f"{value[1]}.{attr}"
                if api is not None and api.lookup(path) is None:
                    base = api.lookup(value[1])
                    if base is None or base.kind == "module":
                        # Past a known module, an unknown name: not an API of this release.
                        while index < len(steps) and steps[index][0] == "a":
                            path += "." + steps[index][1]
                            position = steps[index][2]
                            index += 1
                        if uses is not None and start is not None:
                            self._unknown(uses, file, path, start, position, index, steps)
                        value, emitted = None, True
                        continue
                    if not emitted and uses is not None and start is not None and end is not None:
                        self._emit(uses, file, value, start, end, called=False)
                    self.stats["attributes of an API not in the map"] += 1
                    value, emitted = None, True
                    continue
                value = ("fw", path, value[2])
                end = position
                emitted = False
            elif kind == "inst" and value is not None:
                value, emitted = self._member(value, attr, position, file, uses)
                start = end = position
            elif kind in ("pinst", "pclass") and value is not None:
                value = self.class_attr(value[1], value[2], attr)
                start = end = position
                emitted = False
                if value is not None and value[0] == "fw" and value[2] == "subclass":
                    if uses is not None:
                        self._emit(uses, file, value, position, position, called=False)
                    emitted = True
            elif kind == "pmod" and value is not None:
                value = self.module_attr(value[1], attr)
                if value is not None and value[0] == "fw":
                    value = ("fw", value[1], "re-export")
                end = position
                emitted = False
            else:
                value, emitted = self._unresolved(file, attr, position, uses)
                start = end = position
        if (
            value is not None
            and value[0] == "fw"
            and not emitted
            and uses is not None
            and start is not None
            and end is not None
        ):
            self._emit(uses, file, value, start, end, called=False)
        return value

    def _call(self, value: tuple[Any, ...]) -> Value:
        api = self.maps.get(_framework(value[1]) or "")
        found = api.lookup(value[1]) if api else None
        if api is None or found is None:
            return None
        if found.kind == "class":
            return ("inst", found.canonical, "constructor")
        returned = api.returns.get(found.canonical)
        return ("inst", returned, "return") if returned else None

    def _member(
        self,
        value: tuple[Any, ...],
        attr: str,
        position: tuple[int, int, int, int],
        file: int,
        uses: list[Use] | None,
    ) -> tuple[Value, bool]:
        cls, route = value[1], value[2]
        api = self.maps.get(_framework(cls) or "")
        member = api.member(cls, attr) if api else None
        if member is None or member.kind == "attribute":
            self.stats["attributes of a known receiver"] += 1
            return None, True
        result = ("fw", member.canonical, route)
        if uses is not None:
            self._emit(uses, file, result, position, position, called=False, api=f"{cls}.{attr}")
        return result, True

    def _unresolved(
        self, file: int, attr: str, position: tuple[int, int, int, int], uses: list[Use] | None
    ) -> tuple[Value, bool]:
        if uses is None:
            return None, True
        candidates = self._candidates(self.file_frameworks(file), attr)
        if not candidates:
            return None, True
        if not self.guess:
            self.unresolved_methods[attr] += 1
            return None, True
        if len({canonical for _cls, canonical in candidates}) != 1:
            self.stats["method names on several receivers (not guessed)"] += 1
            self.unresolved_methods[attr] += 1
            return None, True
        cls, canonical = candidates[0]
        result = ("fw", canonical, "guess")
        self._emit(uses, file, result, position, position, called=False, api=f"{cls}.{attr}")
        return result, True

    def _candidates(self, frameworks: frozenset[str], attr: str) -> list[tuple[str, str]]:
        """(receiver class, canonical method) of every receiver class of ``frameworks``
        that has a method ``attr``."""
        key = (frameworks, attr)
        known = self._guesses.get(key)
        if known is None:
            known = []
            for framework in sorted(frameworks):
                api = self.maps.get(framework)
                for cls in sorted(self.receivers.get(framework, ())):
                    member = api.member(cls, attr) if api else None
                    if member is not None and member.kind == "method":
                        known.append((cls, member.canonical))
            self._guesses[key] = known
        return known

    def file_frameworks(self, file: int) -> frozenset[str]:
        """The frameworks a file imports (any scope), for the guesses and their counts."""
        known = self._imports.get(file)
        if known is None:
            found = set()
            for scope in self.files[file].bindings:
                for bindings in scope.values():
                    for binding in bindings:
                        if binding[0] in ("import", "from") and (
                            framework := _framework(binding[1])
                        ):
                            found.add(framework)
            known = self._imports[file] = frozenset(found)
        return known

    def _emit(
        self,
        uses: list[Use],
        file: int,
        value: tuple[Any, ...],
        start: tuple[int, int, int, int],
        end: tuple[int, int, int, int],
        called: bool,
        api: str | None = None,
    ) -> None:
        path = value[1]
        framework = _framework(path)
        if framework is None:
            return
        table = self.maps.get(framework)
        found = table.lookup(path) if table else None
        if found is not None and found.kind in ("module", "attribute"):
            self.stats[f"{found.kind} references"] += 1
            return
        uses.append(
            Use(
                file=self.files[file].rel,
                line=start[0],
                col=start[1],
                end_line=end[2],
                end_col=end[3],
                framework=framework,
                api=api or path,
                canonical=found.canonical if found else None,
                kind=found.kind if found else "unknown",
                route=str(value[2]),
                called=called,
            )
        )

    def _unknown(
        self,
        uses: list[Use],
        file: int,
        path: str,
        start: tuple[int, int, int, int],
        end: tuple[int, int, int, int],
        index: int,
        steps: tuple[Any, ...],
    ) -> None:
        framework = _framework(path)
        if framework is None:
            return
        called = index < len(steps) and steps[index][0] == "c"
        uses.append(
            Use(
                self.files[file].rel,
                start[0],
                start[1],
                end[2],
                end[3],
                framework,
                path,
                None,
                "unknown",
                "import",
                called,
            )
        )

    def uses(self) -> list[Use]:
        """Every use in every file, in file order."""
        found: list[Use] = []
        for number, facts in enumerate(self.files):
            for scope, expr in facts.refs:
                self.evaluate(number, scope, expr, found)
        return found
