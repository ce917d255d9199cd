"""Latency comparisons: accelerator pairs (the study's Tables 2, 5-7, Figure 3), hardware
generations (Table 3's latency half, Figure 7) and versions (``paper`` against ``current``).

A function's latency on a device is the geometric mean of its cases' latencies over the
cases usable on *both* sides, so the ratio of two function latencies equals the geometric
mean of the per-case ratios; its 95% interval is a bootstrap over those cases (a fixed seed,
so a report is reproducible), or, for a single case, the interval between its quartiles.

Which latency a case has:
- portbench cells: the warm median of a passed case (its cold first call kept beside it);
- study cells: the mean of the study's timed calls (compilation included, one call each), for
  the sub-tests its own Tables 5-7 use (:func:`.study_timing.usable_timing`). The two kinds are never
  compared with each other: pairs are formed within one profile.
"""

from __future__ import annotations

import math
import statistics
import zlib
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass

from ..accelerators import load_accelerators
from ..results import AnyRecord, Outcome, StudyRecord
from .load import Cell
from .study_sources import is_study_profile
from .study_timing import usable_timing
from .tables import Table

__all__ = [
    "CaseLatency",
    "FunctionRatio",
    "case_latencies",
    "compare",
    "generation_pairs",
    "geomean",
    "latency_tables",
    "latest_cells",
    "version_tables",
]

BOOTSTRAP = 2000
PROFILE_ORDER = ("paper", "paper-nearest", "current", "host", "study", "study-soft")


@dataclass(frozen=True)
class CaseLatency:
    ms: float
    cold_ms: float | None
    q1_ms: float | None
    q3_ms: float | None
    noisy: bool


@dataclass(frozen=True)
class FunctionRatio:
    function: str
    study_test_file: str | None
    cases: int
    a_ms: float
    b_ms: float
    ratio: float
    low: float | None
    high: float | None
    a_cold_ms: float | None
    b_cold_ms: float | None
    noisy_cases: int


def case_latency(record: AnyRecord) -> CaseLatency | None:
    if isinstance(record, StudyRecord):
        mean = usable_timing(record)
        if record.timing is None or mean is None:
            return None
        return CaseLatency(mean, None, record.timing.q1_ms, record.timing.q3_ms, False)
    timing = record.timing
    warm = timing.warm if timing is not None else None
    if record.outcome is Outcome.PASS and timing is not None and warm and warm.median_ms:
        return CaseLatency(warm.median_ms, timing.cold_ms, warm.q1_ms, warm.q3_ms, warm.noisy)
    return None


def case_latencies(cell: Cell) -> dict[tuple[str, str | None], dict[str, CaseLatency]]:
    """Usable case latencies per (function, study test file)."""
    grouped: dict[tuple[str, str | None], dict[str, CaseLatency]] = defaultdict(dict)
    for record in cell.records:
        latency = case_latency(record)
        if latency is not None:
            grouped[(record.function, record.study_test_file)][record.case] = latency
    return grouped


def geomean(values: list[float]) -> float:
    return math.exp(statistics.fmean(math.log(v) for v in values))


def _interval(
    function: str, a: list[CaseLatency], b: list[CaseLatency]
) -> tuple[float | None, float | None]:
    if len(a) == 1:
        x, y = a[0], b[0]
        if None in (x.q1_ms, x.q3_ms, y.q1_ms, y.q3_ms) or not x.q1_ms or not x.q3_ms:
            return None, None
        return float(y.q1_ms or 0) / x.q3_ms, float(y.q3_ms or 0) / x.q1_ms
    import numpy as np

    logs = np.log([y.ms / x.ms for x, y in zip(a, b)])
    # Seeded by the function's name: the same runs always give the same interval.
    rng = np.random.default_rng(zlib.crc32(function.encode()))
    means = logs[rng.integers(0, len(logs), (BOOTSTRAP, len(logs)))].mean(axis=1)
    low, high = np.quantile(means, [0.025, 0.975])
    return float(np.exp(low)), float(np.exp(high))


def compare(a: Cell, b: Cell) -> list[FunctionRatio]:
    """Per function, latency on ``a`` and ``b`` over the cases usable on both; sorted by
    ratio b/a, largest first."""
    la, lb = case_latencies(a), case_latencies(b)
    out = []
    for key in sorted(set(la) & set(lb), key=lambda k: (k[0], k[1] or "")):
        shared = sorted(set(la[key]) & set(lb[key]))
        if not shared:
            continue
        xs = [la[key][c] for c in shared]
        ys = [lb[key][c] for c in shared]
        a_ms, b_ms = geomean([x.ms for x in xs]), geomean([y.ms for y in ys])
        low, high = _interval(key[0], xs, ys)
        cold_a = [x.cold_ms for x in xs if x.cold_ms]
        cold_b = [y.cold_ms for y in ys if y.cold_ms]
        out.append(
            FunctionRatio(
                key[0],
                key[1],
                len(shared),
                a_ms,
                b_ms,
                b_ms / a_ms,
                low,
                high,
                geomean(cold_a) if len(cold_a) == len(xs) else None,
                geomean(cold_b) if len(cold_b) == len(ys) else None,
                sum(1 for x in xs if x.noisy) + sum(1 for y in ys if y.noisy),
            )
        )
    out.sort(key=lambda r: -r.ratio)
    return out


def _started(cell: Cell) -> str:
    return (cell.env.started_at if cell.env is not None else None) or ""


def latest_cells(cells: list[Cell]) -> list[Cell]:
    """The most recent complete cell per framework x accelerator x profile (a results folder
    often holds several runs of one cell; comparisons use the newest)."""
    best: dict[str, Cell] = {}
    for cell in cells:
        if cell.status != "complete":
            continue
        held = best.get(cell.cell_id)
        if held is None or _started(cell) > _started(held):
            best[cell.cell_id] = cell
    return [best[k] for k in sorted(best)]


def _accelerator_rank() -> dict[str, int]:
    # The accelerator table lists each flavor's generations oldest first.
    return {name: i for i, name in enumerate(load_accelerators())}


def _floor(cell: Cell) -> str:
    floor = cell.env.section("dispatch_floor").get("op") if cell.env is not None else None
    warm = floor.get("warm") if isinstance(floor, dict) else None
    median = warm.get("median_ms") if isinstance(warm, dict) else None
    return f"{median:.4g}" if isinstance(median, (int, float)) and median else ""


def _version(cell: Cell) -> str:
    return (cell.env.framework_version if cell.env is not None else "") or "?"


def _kind(cell: Cell) -> str:
    return "study mean" if is_study_profile(cell.profile) else "warm median"


def _fmt(value: float | None, digits: int = 4) -> str:
    return "" if value is None else f"{value:.{digits}g}"


def _pair_table(a: Cell, b: Cell, rows: list[FunctionRatio], name: str, title: str) -> Table:
    kind = _kind(a)
    headers = [
        "function",
        "cases",
        f"{a.accelerator} ms ({kind})",
        f"{b.accelerator} ms ({kind})",
        f"{b.accelerator}/{a.accelerator}",
        "95% interval",
        f"{a.accelerator} cold ms",
        f"{b.accelerator} cold ms",
        "noisy cases",
    ]
    body = []
    for r in rows:
        body.append(
            [
                r.function,
                r.cases,
                round(r.a_ms, 4),
                round(r.b_ms, 4),
                round(r.ratio, 3),
                f"{_fmt(r.low, 3)}-{_fmt(r.high, 3)}" if r.low is not None else "",
                _fmt(r.a_cold_ms),
                _fmt(r.b_cold_ms),
                r.noisy_cases or "",
            ]
        )
    floors = f"dispatch floor (one tiny op, warm): {a.accelerator} {_floor(a) or 'n/a'} ms, {b.accelerator} {_floor(b) or 'n/a'} ms"
    return Table(name, title, headers, body, f"{_shares(rows, b.accelerator)}; {floors}")


def _share(rows: list[FunctionRatio], test: Callable[[float], bool]) -> str:
    """The share of functions whose ratio passes ``test``, as a percentage."""
    return f"{sum(1 for r in rows if test(r.ratio)) / len(rows):.1%}"


def _shares(rows: list[FunctionRatio], b: str) -> str:
    if not rows:
        return "no function has a case usable on both sides"
    return (
        f"{len(rows)} functions: {b} slower on {_share(rows, lambda x: x > 1)}, "
        f"faster on {_share(rows, lambda x: x <= 1)}; "
        f"more than 10x slower on {_share(rows, lambda x: x > 10)}; "
        f"geometric mean ratio {geomean([r.ratio for r in rows]):.3g}"
    )


def _pairs(cells: list[Cell]) -> list[tuple[Cell, Cell]]:
    rank = _accelerator_rank()
    groups: dict[tuple[str, str], list[Cell]] = defaultdict(list)
    for cell in latest_cells(cells):
        groups[(cell.framework, cell.profile)].append(cell)
    pairs = []
    for (_, _), group in sorted(groups.items()):
        group.sort(
            key=lambda c: (c.accelerator.split("-")[0] != "cpu", rank.get(c.accelerator, 99))
        )
        for i, a in enumerate(group):
            for b in group[i + 1 :]:
                pairs.append((a, b))
    return pairs


def latency_tables(cells: list[Cell]) -> tuple[list[Table], Table]:
    """One table per accelerator pair (framework x profile) and the summary over pairs
    (Figure 3: shares faster and slower, more than 10x slower)."""
    tables = []
    summary = Table(
        "latency-summary",
        "Latency across accelerators: per pair, share of functions faster and slower",
        [
            "framework",
            "profile",
            "a",
            "b",
            "functions",
            "b slower",
            "b faster",
            "b >10x slower",
            "b >=1.5x faster",
            "geomean b/a",
            "latency",
        ],
    )
    for a, b in _pairs(cells):
        rows = compare(a, b)
        name = f"latency-{a.framework}-{a.profile}-{a.accelerator}-vs-{b.accelerator}"
        title = f"Latency, {a.framework} ({a.profile}): {a.accelerator} vs {b.accelerator}"
        tables.append(_pair_table(a, b, rows, name, title))
        if rows:
            n = len(rows)
            summary.rows.append(
                [
                    a.framework,
                    a.profile,
                    a.accelerator,
                    b.accelerator,
                    n,
                    _share(rows, lambda x: x > 1),
                    _share(rows, lambda x: x < 1),
                    _share(rows, lambda x: x > 10),
                    _share(rows, lambda x: x <= 1 / 1.5),
                    f"{geomean([r.ratio for r in rows]):.3g}",
                    _kind(a),
                ]
            )
    return tables, summary


def generation_pairs(cells: list[Cell]) -> Table:
    """Hardware generations of one flavor (gpu-t4 -> gpu-a100, tpu-v2 -> tpu-v3): share of
    functions at least 1.5x faster on the newer (the study's Figure 7), and the portability of
    each side (Table 3)."""
    rank = _accelerator_rank()
    table = Table(
        "generations",
        "Hardware generations: older against newer of one flavor",
        [
            "framework",
            "profile",
            "older",
            "newer",
            "functions timed on both",
            "newer >=1.5x faster",
            "newer slower",
            "older pass/partial/complete/untested/cpu_too",
            "newer pass/partial/complete/untested/cpu_too",
        ],
    )
    for a, b in _pairs(cells):
        flavor_a, flavor_b = a.accelerator.split("-")[0], b.accelerator.split("-")[0]
        if flavor_a != flavor_b or flavor_a == "cpu" or "-" not in a.accelerator:
            continue
        if "-" not in b.accelerator or rank.get(a.accelerator, 0) >= rank.get(b.accelerator, 0):
            continue
        rows = compare(a, b)
        n = len(rows)

        def counts(cell: Cell) -> str:
            values = list(cell.function_outcomes().values())
            return "/".join(
                str(values.count(k)) for k in ("pass", "partial", "complete", "untested", "cpu_too")
            )

        table.rows.append(
            [
                a.framework,
                a.profile,
                a.accelerator,
                b.accelerator,
                n,
                _share(rows, lambda x: x <= 1 / 1.5) if n else "-",
                _share(rows, lambda x: x > 1) if n else "-",
                counts(a),
                counts(b),
            ]
        )
    return table


def version_tables(cells: list[Cell]) -> list[Table]:
    """Versions of one cell (``paper`` -> ``current``, ...): what became portable, what broke,
    what got faster."""
    latest = [c for c in latest_cells(cells) if c.profile in PROFILE_ORDER[:3]]
    by_cell: dict[tuple[str, str], dict[str, Cell]] = defaultdict(dict)
    for cell in latest:
        by_cell[(cell.framework, cell.accelerator)][cell.profile] = cell
    tables = []
    for (framework, accelerator), profiles in sorted(by_cell.items()):
        order = [p for p in PROFILE_ORDER if p in profiles]
        for i, old_name in enumerate(order):
            for new_name in order[i + 1 :]:
                old, new = profiles[old_name], profiles[new_name]
                before = old.function_outcomes()
                after = new.function_outcomes()
                speed = {(r.function, r.study_test_file): r for r in compare(old, new)}
                table = Table(
                    f"versions-{framework}-{accelerator}-{old_name}-vs-{new_name}",
                    f"Versions, {framework} on {accelerator}: {old_name} "
                    f"({_version(old)}) -> {new_name} ({_version(new)})",
                    ["function", old_name, new_name, "change", f"{new_name}/{old_name} latency"],
                )
                changes = {"became portable": 0, "broke": 0, "faster": 0, "slower": 0}
                for key in sorted(set(before) | set(after), key=lambda k: (k[0], k[1] or "")):
                    was, now = before.get(key, "absent"), after.get(key, "absent")
                    change = ""
                    if was != "pass" and now == "pass":
                        change = "became portable"
                    elif was == "pass" and now in ("partial", "complete"):
                        change = "broke"
                    elif now == "untested" and was != "untested":
                        change = "no longer testable"
                    elif was != now:
                        change = "changed"
                    ratio = speed.get(key)
                    if change in changes:
                        changes[change] += 1
                    if ratio and ratio.low is not None and ratio.high is not None:
                        # Faster or slower only where the whole interval says so.
                        if ratio.high < 1:
                            changes["faster"] += 1
                        elif ratio.low > 1:
                            changes["slower"] += 1
                    if change or ratio:
                        table.rows.append(
                            [key[0], was, now, change, round(ratio.ratio, 3) if ratio else ""]
                        )
                table.rows.sort(key=lambda r: (r[3] == "", r[0]))
                tables.append(
                    Table(
                        table.name,
                        table.title,
                        table.headers,
                        table.rows,
                        ", ".join(f"{k}: {v}" for k, v in changes.items())
                        + " (faster/slower: the 95% interval of the ratio excludes 1)",
                    )
                )
    return tables
