"""Frequency-counting throughput (files/s, MB/s, one core) and peak memory at 1x and 10x.

    python benchmarks/sampling_throughput.py --corpus transformers-4.46.3-py3-none-any.whl \
        --enumeration tests/data/sampling/enumeration-paper-torch.json.gz

Each measurement runs in a fresh child process pinned to one CPU, so its peak resident set
(``ru_maxrss``) belongs to that run alone. The 10x corpus repeats every file ten times
(under distinct paths): if counting streams, its peak memory equals the 1x peak.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from rich.console import Console

from portbench.sampling.corpus import CorpusSource, SourceFile, open_corpus
from portbench.sampling.enumerate import load_enumeration
from portbench.sampling.frequency import count_corpus


class RepeatedCorpus(CorpusSource):
    """The same corpus ``times`` times over, each copy under its own path prefix."""

    times = 1

    def files(self) -> Iterator[SourceFile]:
        for copy in range(self.times):
            for source in super().files():
                yield SourceFile(f"copy{copy}/{source.path}", source.data)


def _child(corpus: str, enumeration: str, times: int) -> None:
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    base = open_corpus(corpus)
    repeated = RepeatedCorpus(base.source, base.kind)
    object.__setattr__(repeated, "times", times)
    quiet = Console(file=open(os.devnull, "w"))
    started = time.perf_counter()
    doc = count_corpus(repeated, load_enumeration(Path(enumeration)), quiet)
    elapsed = time.perf_counter() - started
    counts = doc["counts"]
    print(
        json.dumps(
            {
                "times": times,
                "files": counts["files_read"],
                "matched": counts.get("files_matched", 0),
                "mb": counts["bytes_read"] / 1e6,
                "elapsed_s": elapsed,
                "files_per_s": counts["files_read"] / elapsed,
                "mb_per_s": counts["bytes_read"] / 1e6 / elapsed,
                "matched_per_s": counts.get("files_matched", 0) / elapsed,
                "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            }
        )
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--enumeration", required=True)
    parser.add_argument("--times", type=int, nargs="+", default=[1, 10])
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    enumeration = args.enumeration
    if args.child:
        _child(args.corpus, enumeration, args.child)
        return 0
    with tempfile.TemporaryDirectory() as scratch:
        if enumeration.endswith(".gz"):
            plain = Path(scratch) / "enumeration.json"
            plain.write_bytes(gzip.decompress(Path(enumeration).read_bytes()))
            enumeration = str(plain)
        for times in args.times:
            command = [sys.executable, __file__, "--corpus", args.corpus]
            command += ["--enumeration", enumeration, "--child", str(times)]
            out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
            row = json.loads(out.strip().splitlines()[-1])
            print(
                f"{row['times']:>3}x: {row['files']} files ({row['matched']} import the framework), "
                f"{row['mb']:.1f} MB in {row['elapsed_s']:.1f} s: {row['files_per_s']:.0f} files/s, "
                f"{row['mb_per_s']:.1f} MB/s, {row['matched_per_s']:.0f} matched files/s; "
                f"peak RSS {row['peak_rss_mb']:.0f} MB"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
