"""Set a ranking's strata beside the study's: ``python -m portbench.sampling.compare``.

For each function the study sampled (``functions.csv``), the stratum that a frequency
file's ranking assigns it, under both counts, so a reader sees how corpus and counting
method move the strata. Above the table: which corpus the ranking came from, both top 20s
side by side, and how many of the study's top 20 are in this ranking's top 20 (the study
published only the top-20 names it tested: 13 torch, 15 TensorFlow, 17 JAX).
"""

from __future__ import annotations

import argparse
import csv
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import UsageError
from .enumerate import load_enumeration
from .frequency import Frequency, load_frequency
from .sampler import rank_names

__all__ = ["StratumRow", "compare_strata", "render_markdown", "render_summary", "top_overlap"]

#: The prefixes the study's names use for a framework's root module.
SHORT_ROOTS = {"tf.": "tensorflow."}


@dataclass(frozen=True)
class StratumRow:
    """One study function: its stratum there and here (``None``: not listed here)."""

    function: str
    study_stratum: str
    study_rank: str
    uses_stratum: str | None
    uses: int | None
    identifier_stratum: str | None
    identifier_uses: int | None


def _strata(frequency: Frequency, count: str, top: int) -> dict[str, str]:
    ranked = rank_names([(n.name, getattr(n, count)) for n in frequency.names])
    return {r.name: f"top{top}" if r.rank <= top else str(r.decile) for r in ranked}


def compare_strata(
    frequency: Frequency,
    aliases: dict[str, str],
    study_rows: Sequence[dict[str, str]],
    top: int = 20,
) -> list[StratumRow]:
    """Rows for the study's functions of ``frequency.framework``; ``aliases`` maps to canonical."""
    by_name = {n.name: n for n in frequency.names}
    uses_strata = _strata(frequency, "uses", top)
    identifier_strata = _strata(frequency, "identifier_uses", top)
    rows = []
    for study in study_rows:
        if study["framework"] != frequency.framework:
            continue
        name = study["function"]
        for short, full in SHORT_ROOTS.items():
            if name.startswith(short):
                name = full + name[len(short) :]
        canonical = aliases.get(name)
        entry = by_name.get(canonical) if canonical else None
        rows.append(
            StratumRow(
                function=study["function"],
                study_stratum=study["stratum"],
                study_rank=study["frequency_rank"],
                uses_stratum=None if entry is None else uses_strata.get(entry.name, "unused"),
                uses=None if entry is None else entry.uses,
                identifier_stratum=None
                if entry is None
                else identifier_strata.get(entry.name, "unused"),
                identifier_uses=None if entry is None else entry.identifier_uses,
            )
        )
    return rows


def render_markdown(rows: Sequence[StratumRow]) -> str:
    """A Markdown table; ``not listed`` where the enumeration has no such name."""
    lines = [
        "| function | study stratum | study rank | stratum (uses) | uses | stratum (identifiers) | identifier uses |",
        "| --- | --- | ---: | --- | ---: | --- | ---: |",
    ]
    for r in rows:
        here = (
            [r.uses_stratum, str(r.uses), r.identifier_stratum, str(r.identifier_uses)]
            if r.uses_stratum is not None
            else ["not listed", "", "not listed", ""]
        )
        lines.append(
            "| "
            + " | ".join([f"`{r.function}`", r.study_stratum, r.study_rank, *map(str, here)])
            + " |"
        )
    return "\n".join(lines) + "\n"


def top_overlap(rows: Sequence[StratumRow], count: str, top: int = 20) -> tuple[int, int]:
    """(how many of the study's top-``top`` names are in this ranking's top ``top`` by
    ``count``, how many top names the study lists); each function counted once."""
    study_top = {r.function: r for r in rows if r.study_stratum == f"top{top}"}
    attribute = "uses_stratum" if count == "uses" else "identifier_stratum"
    found = sum(1 for r in study_top.values() if getattr(r, attribute) == f"top{top}")
    return found, len(study_top)


def _ours(frequency: Frequency, count: str, top: int) -> list[str]:
    ranked = rank_names([(n.name, getattr(n, count)) for n in frequency.names])
    return [f"{r.name} ({r.frequency})" for r in ranked[:top]]


def render_summary(
    frequency: Frequency, rows: Sequence[StratumRow], study_rows: Sequence[dict[str, str]]
) -> str:
    """Which corpus, the two top 20s side by side, and their overlap, as Markdown."""
    counts = frequency.counts
    corpus = frequency.corpus.get("description") or frequency.corpus.get("source", "?")
    lines = [
        f"corpus: {corpus}; {counts.get('files_matched', 0)} of {counts.get('files_read', 0)} "
        f"files counted (filter {frequency.file_filter or 'imports'}, "
        f"limit {frequency.limit if frequency.limit is not None else 'none'})",
        "",
    ]
    for count in ("uses", "identifier_uses"):
        found, listed = top_overlap(rows, count)
        lines.append(
            f"- study's top 20 in this ranking's top 20 by {count}: {found} of the {listed} "
            "the study lists"
        )
    by_rank = {
        int(r["frequency_rank"]): r["function"]
        for r in study_rows
        if r["framework"] == frequency.framework and r["stratum"] == "top20"
    }
    uses, identifiers = _ours(frequency, "uses", 20), _ours(frequency, "identifier_uses", 20)
    lines += [
        "",
        "| rank | here, by uses | here, by identifier uses | study (not listed: excluded) |",
        "| ---: | --- | --- | --- |",
    ]
    for rank in range(1, 21):
        cells = [
            uses[rank - 1] if rank <= len(uses) else "",
            identifiers[rank - 1] if rank <= len(identifiers) else "",
            by_rank.get(rank, ""),
        ]
        lines.append(f"| {rank} | " + " | ".join(f"`{c}`" if c else "" for c in cells) + " |")
    return "\n".join(lines) + "\n\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Print the comparison table for one frequency file."""
    parser = argparse.ArgumentParser(prog="python -m portbench.sampling.compare")
    parser.add_argument("--frequency", required=True, type=Path)
    parser.add_argument("--study", required=True, type=Path, help="the study's functions.csv")
    parser.add_argument("--enumeration", type=Path, help="default: the one the frequency names")
    args = parser.parse_args(argv)
    frequency = load_frequency(args.frequency)
    enumeration = load_enumeration(args.enumeration or Path(str(frequency.enumeration["path"])))
    aliases = {a: n.name for n in enumeration.names for a in (n.name, *n.aliases)}
    try:
        with open(args.study, newline="", encoding="utf-8") as handle:
            study_rows = list(csv.DictReader(handle))
    except OSError:
        raise UsageError(f"{args.study}: cannot read the study's functions.csv") from None
    rows = compare_strata(frequency, aliases, study_rows)
    sys.stdout.write(render_summary(frequency, rows, study_rows) + render_markdown(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
