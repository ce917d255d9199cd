"""``portbench enumerate``, ``portbench frequency`` and ``portbench sample``."""

from __future__ import annotations

import argparse
import datetime
from pathlib import Path
from typing import Any

from rich.console import Console

from ..cellrun import BuildOptions
from ..errors import UsageError
from ..manifest import FRAMEWORKS
from ..profiles import DEFAULT_PROFILE, check_profile
from .corpus import STUDY_DATASET, open_corpus
from .enumerate import load_enumeration, run_enumeration
from .frequency import count_corpus, load_frequency, write_frequency
from .provenance import portbench_identity
from .sampler import Sample, draw_sample, rank_names
from .skeleton import Value, render_skeleton, write_skeleton
from .usage import FILE_FILTERS

__all__ = ["register"]

COUNTS = ("uses", "identifier_uses")


def register(subparsers: Any) -> None:
    """Add the three sampling subcommands."""
    enum = subparsers.add_parser("enumerate", help="list a framework's public API, in its cell")
    enum.add_argument("--framework", required=True)
    enum.add_argument("--profile", default=DEFAULT_PROFILE)
    enum.add_argument("--python", help="run the walker with this interpreter instead of the cell's")
    enum.add_argument(
        "--backend",
        default="auto",
        help="auto or one of docker, venv, host (the cell of --profile, as `bench` runs it)",
    )
    enum.add_argument("--base", help="docker: base image (as for `bench`)")
    enum.add_argument("--ca-bundle", type=Path, help="CA bundle for pip (as for `bench`)")
    enum.add_argument("--find-links", type=Path, help="a local wheelhouse (as for `bench`)")
    enum.add_argument("--members", action="store_true", help="also list public methods")
    enum.add_argument(
        "--import-submodules",
        action="store_true",
        help="import every public submodule first (default: what `import F` loads)",
    )
    enum.add_argument(
        "--import-timeout",
        type=float,
        metavar="S",
        help="--import-submodules: seconds one import may take (default 60; 0: no limit)",
    )
    enum.add_argument("--out", required=True, type=Path)
    enum.set_defaults(func=_enumerate)

    freq = subparsers.add_parser("frequency", help="count each enumerated name in a corpus")
    freq.add_argument(
        "--corpus",
        required=True,
        help=f"the study's {STUDY_DATASET} (streamed), another owner/dataset, local row files "
        "(.jsonl[.gz], .json.gz, .parquet), a folder, or .zip/.whl/.tar.gz",
    )
    freq.add_argument("--enumeration", required=True, type=Path)
    freq.add_argument("--out", required=True, type=Path)
    freq.add_argument("--limit", type=int, help="stop after this many files are kept (a slice)")
    freq.add_argument(
        "--filter",
        choices=FILE_FILTERS,
        default="imports",
        dest="file_filter",
        help="files counted: imports (they really import F) or study (the paper's regex)",
    )
    freq.add_argument("--split", default="train", help="dataset split (datasets only)")
    freq.add_argument("--text-field", default="content", help="dataset text column")
    freq.add_argument("--revision", help="hub datasets: the dataset's commit, to pin the corpus")
    freq.set_defaults(func=_frequency)

    samp = subparsers.add_parser("sample", help="draw the stratified sample: a manifest skeleton")
    samp.add_argument("--framework", required=True)
    samp.add_argument("--frequency", required=True, type=Path)
    samp.add_argument("--seed", required=True, type=int)
    samp.add_argument("--top", type=int, default=20)
    samp.add_argument("--per-decile", type=int, default=5)
    samp.add_argument("--count", choices=COUNTS, default="uses", help="which count ranks names")
    samp.add_argument("--include-unused", action="store_true", help="rank names never used too")
    samp.add_argument("--replace", action="append", default=[], metavar="NAME")
    samp.add_argument("--reason", action="append", default=[], metavar="TEXT")
    samp.add_argument(
        "--allow-short",
        action="store_true",
        help="write the sample even when a stratum got fewer names than asked (with a warning)",
    )
    samp.add_argument("--out", required=True, type=Path)
    samp.set_defaults(func=_sample)


def _enumerate(args: argparse.Namespace) -> int:
    check_profile(args.profile, args.framework, "cpu")
    # A pinned profile has locks for the known frameworks only; the host profile and
    # --python walk whatever the interpreter can import (a fake package in the tests).
    # (--backend host with a pinned profile is refused later, with its own sentence.)
    pinned = args.profile != "host" and args.backend != "host" and args.python is None
    if pinned and args.framework not in FRAMEWORKS:
        raise UsageError(
            f"unknown framework '{args.framework}' (known: {', '.join(FRAMEWORKS)}; "
            "another package only with --profile host or --python)"
        )
    out = run_enumeration(
        args.framework,
        args.profile,
        args.out,
        args.python,
        members=args.members,
        import_submodules=args.import_submodules,
        backend=args.backend,
        import_timeout_s=args.import_timeout,
        build=BuildOptions(args.base, args.ca_bundle, args.find_links),
    )
    enumeration = load_enumeration(out)
    kinds: dict[str, int] = {}
    for name in enumeration.names:
        kinds[name.kind] = kinds.get(name.kind, 0) + 1
    detail = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items()))
    Console().print(
        f"{enumeration.framework} {enumeration.version}: {len(enumeration.names)} names ({detail}) -> {out}"
    )
    return 0


def _frequency(args: argparse.Namespace) -> int:
    if args.out.exists():
        raise UsageError(f"{args.out} exists; choose a new --out file (nothing is overwritten)")
    if args.limit is not None and args.limit < 1:
        raise UsageError("--limit must be 1 or more")
    enumeration = load_enumeration(args.enumeration)
    corpus = open_corpus(args.corpus, args.split, args.text_field, args.revision)
    document = count_corpus(
        corpus, enumeration, Console(stderr=True), limit=args.limit, file_filter=args.file_filter
    )
    write_frequency(args.out, document)
    counts = document["counts"]
    used = sum(1 for row in document["names"] if row["uses"])
    kept = "import" if args.file_filter == "imports" else "match the study's regex for"
    console = Console(highlight=False, soft_wrap=True)
    console.print(f"corpus: {document['corpus']['description']}")
    console.print(
        f"{counts.get('files_matched', 0)} of {counts['files_read']} files {kept} "
        f"{enumeration.framework} ({counts.get('files_tokenize', 0)} read with tokenize); "
        f"{used} of {len(document['names'])} names used -> {args.out}"
    )
    return 0


def _sample(args: argparse.Namespace) -> int:
    if len(args.replace) != len(args.reason):
        raise UsageError("give one --reason for each --replace, in the same order")
    if args.out.exists():
        raise UsageError(f"{args.out} exists; choose a new --out file (nothing is overwritten)")
    frequency = load_frequency(args.frequency)
    if frequency.framework != args.framework:
        raise UsageError(
            f"{args.frequency} counts {frequency.framework!r}, not {args.framework!r}; "
            "pass the frequency file of this framework"
        )
    pairs = [(n.name, getattr(n, args.count)) for n in frequency.names]
    ranked = rank_names(pairs, include_unused=args.include_unused)
    if not ranked:
        raise UsageError(f"{args.frequency}: no name is used in the corpus; use a larger corpus")
    sample = draw_sample(
        ranked,
        args.seed,
        args.top,
        args.per_decile,
        list(zip(args.replace, args.reason, strict=True)),
    )
    identity = portbench_identity()
    provenance: dict[str, Value | None] = {
        "created": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "seed": args.seed,
        "top": args.top,
        "per_decile": args.per_decile,
        "count": args.count,
        "include_unused": args.include_unused,
        "ranked_names": len(ranked),
        "corpus": _value(frequency.corpus.get("source")),
        "corpus_kind": _value(frequency.corpus.get("kind")),
        "corpus_description": _value(frequency.corpus.get("description")),
        "study_corpus": _value(frequency.corpus.get("study_corpus")),
        "corpus_revision": _value(frequency.corpus.get("revision")),
        "file_filter": frequency.file_filter,
        "files_counted": frequency.counts.get("files_matched"),
        "limit": frequency.limit,
        "corpus_sha256": _value(frequency.corpus.get("sha256")),
        "corpus_archive_sha256": _value(frequency.corpus.get("archive_sha256")),
        "frequency_file": str(args.frequency),
        "frequency_sha256": frequency.sha256,
        "enumeration_file": _value(frequency.enumeration.get("path")),
        "enumeration_sha256": _value(frequency.enumeration.get("sha256")),
        "framework_version": _value(frequency.enumeration.get("version")),
        **_cell_provenance(frequency.enumeration.get("cell")),
        "portbench_version": identity["version"],
        "portbench_commit": identity["commit"],
        "portbench_dirty": identity["dirty"],
    }
    console = Console(highlight=False, soft_wrap=True)
    console.print(f"strata (got of asked): {strata_line(sample)}")
    short = _short_sentence(sample)
    if short and not args.allow_short:
        raise UsageError(
            f"{short}; count a larger corpus (a higher --limit), ask for less "
            "(--top, --per-decile), or pass --allow-short to write it anyway"
        )
    provenance["sampled"] = len(sample.picks)
    provenance["asked"] = sample.asked
    provenance["short"] = bool(short)
    write_skeleton(args.out, render_skeleton(args.framework, sample, provenance))
    if short:
        Console(stderr=True, highlight=False, soft_wrap=True).print(
            f"[bold yellow]warning:[/] {short} (--allow-short)"
        )
    console.print(
        f"{len(sample.picks)} of {sample.asked} functions asked ({len(sample.replaced)} "
        f"replaced) from {len(ranked)} ranked names -> {args.out}"
    )
    return 0


def _value(value: object) -> Value | None:
    """A value read from a frequency or enumeration file, as the skeleton's [provenance]
    table holds it: text, a whole number, a flag; anything else is left out (None)."""
    if isinstance(value, (str, int, bool)):
        return value
    if isinstance(value, list) and all(isinstance(v, int) for v in value):
        return [int(v) for v in value]
    return None


def _cell_provenance(cell: object) -> dict[str, Value | None]:
    """The enumeration's cell, flattened for the skeleton's [provenance] table."""
    if not isinstance(cell, dict):
        return {}
    raw_image = cell.get("image")
    image: dict[str, object] = raw_image if isinstance(raw_image, dict) else {}
    return {
        "enumeration_profile": _value(cell.get("profile")),
        "enumeration_backend": _value(cell.get("backend")),
        "enumeration_image": _value(image.get("tag")),
        "enumeration_image_id": _value(image.get("id")),
        "enumeration_lock": _value(cell.get("lock")),
        "enumeration_lock_sha256": _value(cell.get("lock_sha256")),
    }


def strata_line(sample: Sample) -> str:
    """``top20 20/20, 10 5/5, ..., 1 2/5``: what each stratum got of what it asked."""
    return ", ".join(f"{s.stratum} {s.got}/{s.asked}" for s in sample.strata)


def _short_sentence(sample: Sample) -> str:
    """One clause naming the short strata, or "" when every stratum got what it asked."""
    short = sample.short_strata
    if not short:
        return ""
    names = ", ".join(f"{s.stratum} got {s.got} of {s.asked}" for s in short)
    return (
        f"the sample holds {len(sample.picks)} of the {sample.asked} names asked ({names}; "
        f"{sample.ranked} ranked in all, and a decile draws only from its names outside "
        f"the top {sample.top})"
    )
