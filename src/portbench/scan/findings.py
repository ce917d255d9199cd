"""From uses and verdicts to findings: one per use and target, with suppressions and a baseline.

As linters do, a finding can be silenced where it is (``# portbench: ignore``, or
``# portbench: ignore[fails, tpu-v3, torch.Tensor.apply_]`` naming statuses, targets or
APIs; ``# portbench: ignore-file`` for the whole file) or accepted once for all in a
baseline file (``--write-baseline``), after which only new findings count. A baseline
entry is a fingerprint of the file, the API, the target, the status and which use of that
API in that file it is (the first, the second ...), so lines may move without the
findings coming back.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from ..errors import UsageError
from ..results.safeio import loads_strict, read_bounded
from .facts import FileFacts
from .resolve import Use
from .verdict import Judge, Verdict

__all__ = [
    "BASELINE_SCHEMA",
    "Finding",
    "Location",
    "build_findings",
    "read_baseline",
    "write_baseline",
]

BASELINE_SCHEMA = 1
MAX_BASELINE_BYTES = 64 << 20


@dataclass(frozen=True)
class Location:
    """Where a use is, as people and code-scanning tools read it."""

    file: str
    line: int
    col: int
    end_line: int
    end_col: int
    cell: int | None = None
    """Notebooks: the cell (from 1); ``line`` is then the line in the cell."""
    file_line: int | None = None
    """Notebooks: the line of the .ipynb file, where the layout tells it."""

    def text(self) -> str:
        where = f"{self.file}:cell {self.cell}:" if self.cell is not None else f"{self.file}:"
        return f"{where}{self.line}:{self.col + 1}"


@dataclass(frozen=True)
class Finding:
    """One use on one target, with its verdict."""

    use: Use
    location: Location
    target: str
    verdict: Verdict
    occurrence: int
    """Which use of its API in its file it is (1: the first), for the fingerprint."""
    suppressed: bool = False
    baselined: bool = False

    @property
    def fingerprint(self) -> str:
        """The baseline's key of the finding (made when asked: a large project has tens of
        thousands of findings, and only a baseline and SARIF read the key)."""
        return _fingerprint(self.use, self.target, self.verdict.status, self.occurrence)

    @property
    def counts(self) -> bool:
        """Whether it counts for ``--fail-on`` (not silenced, not in the baseline)."""
        return not (self.suppressed or self.baselined)


def _location(use: Use, facts: FileFacts | None) -> Location:
    if facts is None or facts.line_map is None:
        return Location(use.file, use.line, use.col, use.end_line, use.end_col)
    line_map = facts.line_map
    if not 0 < use.line <= len(line_map):
        return Location(use.file, use.line, use.col, use.end_line, use.end_col)
    cell, line = line_map[use.line - 1]
    end_cell, end_line = line_map[min(use.end_line, len(line_map)) - 1]
    file_line = facts.file_lines[use.line - 1] if facts.file_lines else None
    return Location(
        use.file,
        line,
        use.col,
        end_line if end_cell == cell else line,
        use.end_col,
        cell,
        file_line,
    )


def _suppressed(use: Use, target: str, status: str, facts: FileFacts | None) -> bool:
    if facts is None:
        return False
    if facts.suppress_file:
        return True
    if use.line not in facts.suppress:
        return False
    codes = facts.suppress[use.line]
    return codes is None or bool(codes & {status, target, use.api, use.canonical or ""})


def _fingerprint(use: Use, target: str, status: str, occurrence: int) -> str:
    text = "\0".join((use.file, use.api, target, status, str(occurrence)))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def build_findings(
    uses: list[Use],
    files: dict[str, FileFacts],
    judge: Judge,
    targets: list[str],
    baseline: frozenset[str] = frozenset(),
) -> list[Finding]:
    """Every use x target the use's framework has a target for, worst first."""
    findings: list[Finding] = []
    occurrences: Counter[tuple[str, str]] = Counter()
    for use in sorted(uses, key=lambda u: (u.file, u.line, u.col)):
        occurrences[(use.file, use.api)] += 1
        occurrence = occurrences[(use.file, use.api)]
        facts = files.get(use.file)
        location = _location(use, facts)
        for target in targets:
            verdict = judge.verdict(use, target)
            findings.append(
                Finding(
                    use=use,
                    location=location,
                    target=target,
                    verdict=verdict,
                    occurrence=occurrence,
                    suppressed=_suppressed(use, target, verdict.status, facts),
                    baselined=bool(baseline)
                    and _fingerprint(use, target, verdict.status, occurrence) in baseline,
                )
            )
    return findings


def read_baseline(path: Path) -> frozenset[str]:
    """The fingerprints of a baseline file; a missing or foreign file is one sentence."""
    try:
        doc = loads_strict(read_bounded(path, MAX_BASELINE_BYTES))
    except FileNotFoundError:
        raise UsageError(
            f"{path} does not exist; write one with portbench scan PATH --write-baseline {path}"
        ) from None
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: not a readable baseline ({exc})") from None
    if not isinstance(doc, dict) or doc.get("kind") != "scan-baseline":
        raise UsageError(f"{path}: not a portbench scan baseline (kind 'scan-baseline')")
    if doc.get("schema") != BASELINE_SCHEMA:
        raise UsageError(
            f"{path}: baseline schema {doc.get('schema')!r} is not {BASELINE_SCHEMA}; write it again"
        )
    entries = doc.get("findings")
    if not isinstance(entries, list) or not all(
        isinstance(e, dict) and isinstance(e.get("fingerprint"), str) for e in entries
    ):
        raise UsageError(f"{path}: 'findings' must be a list of objects with a fingerprint")
    return frozenset(str(e["fingerprint"]) for e in entries)


def write_baseline(path: Path, findings: list[Finding], statuses: set[str]) -> int:
    """Write every finding whose status is in ``statuses`` (not suppressed); returns how
    many. Entries keep the file, API, target and status beside the fingerprint, so a
    reviewer can read what was accepted."""
    entries: list[dict[str, str]] = [
        {
            "fingerprint": f.fingerprint,
            "file": f.use.file,
            "api": f.use.api,
            "target": f.target,
            "status": f.verdict.status,
        }
        for f in findings
        if f.verdict.status in statuses and not f.suppressed
    ]
    entries.sort(key=lambda e: (e["file"], e["api"], e["target"], e["fingerprint"]))
    document = {"schema": BASELINE_SCHEMA, "kind": "scan-baseline", "findings": entries}
    path.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    return len(entries)
