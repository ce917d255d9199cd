"""A verdict per API, target and release, from function-level evidence first, else operators.

Statuses, worst first:

- ``fails``: evidence shows the API failing on the target (some or all of its cases, or
  some operator x dtype pairs it reaches), with the failing cases and their messages;
- ``fallback``: it works, with part of the work run on the host;
- ``untested``: the API is known, and nothing says how it fares on this target and release;
- ``unknown``: the use did not resolve to an API of the release;
- ``works``: every piece of evidence passed.

Function-level evidence (cases of the function itself) decides when there is any for the
target and release; operator-level evidence (census cells, through the API map's
operators) decides otherwise. Each evidence kind gets its own verdict; the headline is the
observed one, else the predicted one, else the declared one, and always says its kind.
"""

from __future__ import annotations

import fnmatch
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from ..accelerators import load_accelerators
from ..errors import UsageError
from .apimap import ApiMap, release_key
from .evidence import CaseEvidence, EvidenceKind, EvidenceSource, OperatorEvidence
from .resolve import Use
from .sources import ManifestNames

__all__ = [
    "STATUSES",
    "Judge",
    "ReleaseChoice",
    "Verdict",
    "severity",
]

STATUSES = ("fails", "fallback", "untested", "unknown", "works")
_RANK = {status: rank for rank, status in enumerate(STATUSES)}
#: Failing cases (or operator x dtype pairs) a verdict lists.
ITEMS_KEPT = 5
KIND_ORDER = (EvidenceKind.OBSERVED, EvidenceKind.PREDICTED, EvidenceKind.DECLARED)


def severity(status: str) -> int:
    """0 for the worst status (fails), rising."""
    return _RANK[status]


@dataclass(frozen=True)
class Verdict:
    """How one API fares on one target and release."""

    status: str
    kind: EvidenceKind | None
    """The kind of evidence the headline came from; None for untested and unknown."""
    level: str | None
    """``function`` (its own cases) or ``operator`` (census, through the map)."""
    release: str | None
    detail: str
    items: tuple[tuple[str, str, str], ...] = ()
    """Failing (or fallback) evidence: (case or operator:dtype, category or support,
    message)."""
    sources: tuple[str, ...] = ()
    per_kind: tuple[tuple[str, str, str], ...] = ()
    """(kind, status, detail) for every kind with evidence, headline's included."""
    hint: str = ""


@dataclass(frozen=True)
class ReleaseChoice:
    """Which release a verdict is for: ``newest`` (the newest release the evidence holds
    for the framework: the default), ``per-target`` (the newest each target has evidence
    for), or a release per framework (``torch=2.13.0``)."""

    mode: str = "newest"
    pinned: tuple[tuple[str, str], ...] = ()

    @classmethod
    def parse(cls, values: list[str] | None) -> ReleaseChoice:
        mode, pinned = "newest", []
        for value in values or []:
            if value in ("newest", "per-target"):
                mode = value
            elif "=" in value:
                framework, _, release = value.partition("=")
                pinned.append((framework.strip(), release.strip()))
            else:
                raise UsageError(
                    f"--release {value}: give newest, per-target or FRAMEWORK=RELEASE "
                    "(e.g. torch=2.13.0)"
                )
        return cls(mode, tuple(pinned))


def _same_release(a: str, b: str) -> bool:
    return a == b or release_key(a) == release_key(b)


@dataclass
class Judge:
    """Verdicts for the APIs a scan found, from one evidence source."""

    source: EvidenceSource
    maps: dict[str, ApiMap]
    manifests: ManifestNames
    releases: ReleaseChoice = field(default_factory=ReleaseChoice)
    dtypes: frozenset[str] | None = None
    _cases: dict[tuple[str, str], list[CaseEvidence]] = field(default_factory=dict)
    _ops: dict[tuple[str, str], list[OperatorEvidence]] = field(default_factory=dict)
    _releases: dict[str, set[tuple[str, str]]] = field(default_factory=dict)
    _generic: dict[str, str] = field(default_factory=dict)
    _memo: dict[tuple[str, str, str], Verdict] = field(default_factory=dict)

    def load(self, frameworks: Iterable[str], uses: Iterable[Use] | None = None) -> None:
        """Index the evidence of ``frameworks`` by canonical API and by operator; with
        ``uses``, the source is asked only for the functions those uses reach (a store
        answers with its index; every other verdict would be the same)."""
        self._generic = {ident: acc.generic for ident, acc in load_accelerators().items()}
        used: dict[str, set[str]] | None = None
        if uses is not None:
            used = defaultdict(set)
            for use in uses:
                if use.canonical is not None:
                    used[use.framework].add(use.canonical)
        for framework in frameworks:
            api = self.maps.get(framework)
            patterns: list[str] = []
            releases = self._releases.setdefault(framework, set())
            wanted = None if used is None else self._wanted(framework, used[framework])
            for case in self.source.cases(framework, wanted):
                if case.outcome not in ("pass", "fail"):
                    continue
                if self.dtypes is not None and case.dtype not in (None, *self.dtypes):
                    continue
                releases.add((case.accelerator, case.release))
                if "*" in case.function:
                    patterns.append(case.function)
                    self._cases.setdefault((framework, case.function), []).append(case)
                    continue
                found = api.lookup(case.function) if api else None
                key = found.canonical if found else case.function
                self._cases.setdefault((framework, key), []).append(case)
            if api is not None:
                # ``jax.scipy.stats.*.cdf``: the cases stand for every API the pattern names.
                for pattern in set(patterns):
                    for path, (kind, canonical) in api.names.items():
                        if (
                            kind != "module"
                            and path == canonical
                            and fnmatch.fnmatch(path, pattern)
                        ):
                            self._cases.setdefault((framework, canonical), []).extend(
                                self._cases[(framework, pattern)]
                            )
            for op in self.source.operators(framework):
                if self.dtypes is not None and op.dtype not in self.dtypes:
                    continue
                releases.add((op.accelerator, op.release))
                self._ops.setdefault((framework, op.operator), []).append(op)
            # Releases and targets are every cell's the source holds for the framework,
            # whatever the project reaches: the default release is the newest it holds.
            # Asked last: a store reads its cells on the first question, narrowed by it.
            releases.update(self.source.held(framework))

    def _wanted(self, framework: str, canonicals: set[str]) -> set[str]:
        """The functions the source holds evidence for that reach one of ``canonicals``,
        decided as :meth:`load` indexes them: through the map's lookup (aliases and
        inherited members included); a pattern (``jax.scipy.stats.*.cdf``) always."""
        api = self.maps.get(framework)
        wanted = set()
        for name in self.source.functions(framework):
            found = api.lookup(name) if api else None
            if "*" in name or (found.canonical if found else name) in canonicals:
                wanted.add(name)
        return wanted

    # -- targets and releases --------------------------------------------------------------

    def targets(self, frameworks: Iterable[str]) -> list[str]:
        """Every accelerator the evidence of ``frameworks`` names, the CPU first."""
        found = {acc for fw in frameworks for acc, _rel in self._releases.get(fw, ())}
        return sorted(found, key=lambda a: (a != "cpu", a))

    def matches(self, accelerator: str, target: str) -> bool:
        """Evidence of ``accelerator`` speaks for ``target`` (itself, or its generic id:
        a ``gpu-t4`` cell speaks for the target ``gpu``)."""
        return accelerator == target or self._generic.get(accelerator) == target

    def release_for(self, framework: str, target: str) -> str | None:
        for pinned_fw, release in self.releases.pinned:
            if pinned_fw == framework:
                return release
        held = self._releases.get(framework, set())
        if self.releases.mode == "per-target":
            held = {(a, r) for a, r in held if self.matches(a, target)}
        if not held:
            return None
        return max((r for _a, r in held), key=release_key)

    # -- verdicts --------------------------------------------------------------------------

    def verdict(self, use: Use, target: str) -> Verdict:
        key = (use.framework, use.canonical or f"?{use.api}", target)
        memo = self._memo.get(key)
        if memo is None:
            memo = self._memo[key] = self._decide(use, target)
        return memo

    def _decide(self, use: Use, target: str) -> Verdict:
        release = self.release_for(use.framework, target)
        if use.canonical is None:
            why = (
                f"{use.api} is not an API of {use.framework} {self._map_release(use.framework)}"
                if use.framework in self.maps
                else f"no API map of {use.framework}"
            )
            return Verdict("unknown", None, None, release, why)
        per_kind: list[Verdict] = []
        if release is not None:
            for kind in KIND_ORDER:
                found = self._from_cases(use, target, release, kind) or self._from_operators(
                    use, target, release, kind
                )
                if found is not None:
                    per_kind.append(found)
        if not per_kind:
            return Verdict(
                "untested",
                None,
                None,
                release,
                f"no evidence for {use.framework} {release or '(no release)'} on {target}",
                hint=self._hint(use, target, release),
            )
        head = per_kind[0]
        summary = tuple((v.kind.value if v.kind else "", v.status, v.detail) for v in per_kind)
        return Verdict(
            head.status,
            head.kind,
            head.level,
            head.release,
            head.detail,
            head.items,
            head.sources,
            summary,
        )

    def _map_release(self, framework: str) -> str:
        api = self.maps.get(framework)
        return api.release if api else "?"

    def _hint(self, use: Use, target: str, release: str | None) -> str:
        other = sorted(
            {
                case.release
                for case in self._cases.get((use.framework, use.canonical or ""), ())
                if self.matches(case.accelerator, target)
            },
            key=release_key,
        )
        if other:
            return f"evidence on {target} for release {', '.join(other)} (--release per-target)"
        manifest = self.manifests.functions.get(use.framework, {})
        name = manifest.get(use.canonical or "") or manifest.get(use.api)
        if name:
            return (
                f"portbench has cases: portbench bench --framework {use.framework} "
                f"--accelerator {target} --functions {name}"
            )
        return ""

    def _from_cases(
        self, use: Use, target: str, release: str, kind: EvidenceKind
    ) -> Verdict | None:
        cases = [
            c
            for c in self._cases.get((use.framework, use.canonical or ""), ())
            if c.kind is kind
            and self.matches(c.accelerator, target)
            and _same_release(c.release, release)
        ]
        if not cases:
            return None
        failed = [c for c in cases if c.outcome == "fail"]
        sources = tuple(sorted({c.source for c in cases}))
        # Counted by case, not by record: two cells of one release and target (Docker and
        # host, say) hold the same case twice, and it is still one case.
        total = len({c.case for c in cases})
        where = f" (in {len(sources)} cells)" if len(sources) > 1 else ""
        if failed:
            dtypes = sorted({c.dtype for c in failed if c.dtype})
            detail = f"{len({c.case for c in failed})} of {total} cases fail{where}" + (
                f" ({', '.join(dtypes)})" if dtypes else ""
            )
            items = tuple((c.case, c.category or "", c.message) for c in failed[:ITEMS_KEPT])
            return Verdict("fails", kind, "function", release, detail, items, sources)
        marked = [c for c in cases if c.fallback]
        if marked:
            items = tuple((c.case, "fallback", c.message) for c in marked[:ITEMS_KEPT])
            detail = (
                f"{total} cases pass{where}, {len({c.case for c in marked})} with work on the host"
            )
            return Verdict("fallback", kind, "function", release, detail, items, sources)
        return Verdict(
            "works", kind, "function", release, f"{total} cases pass{where}", (), sources
        )

    def _from_operators(
        self, use: Use, target: str, release: str, kind: EvidenceKind
    ) -> Verdict | None:
        api = self.maps.get(use.framework)
        if api is None or use.canonical is None:
            return None
        operators, via = api.operators(use.canonical)
        tested: dict[str, list[OperatorEvidence]] = defaultdict(list)
        for operator in operators:
            for op in self._ops.get((use.framework, operator), ()):
                if (
                    op.kind is kind
                    and op.support in ("yes", "partly", "no")
                    and self.matches(op.accelerator, target)
                    and _same_release(op.release, release)
                ):
                    tested[operator].append(op)
        if not tested:
            return None
        pairs = [op for ops in tested.values() for op in ops]
        bad = [op for op in pairs if op.support != "yes"]
        sources = tuple(sorted({op.source for op in pairs}))
        reach = f"via {len(tested)} of {len(operators)} operator(s) ({via})"
        if bad:
            names = sorted({f"{op.operator}:{op.dtype}" for op in bad})
            shown = ", ".join(names[:4]) + (", ..." if len(names) > 4 else "")
            detail = f"{len(bad)} of {len(pairs)} operator x dtype pairs fail ({shown}) {reach}"
            items = tuple(
                (f"{op.operator}:{op.dtype}", op.support, op.message) for op in bad[:ITEMS_KEPT]
            )
            return Verdict("fails", kind, "operator", release, detail, items, sources)
        return Verdict(
            "works",
            kind,
            "operator",
            release,
            f"{len(pairs)} operator x dtype pairs work {reach}",
            (),
            sources,
        )
