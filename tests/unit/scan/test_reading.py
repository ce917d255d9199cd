"""Reading files fast without reading them differently: references kept, facts sent back by
worker processes, chunks, the cycle collector around a scan, and the cache of facts."""

from __future__ import annotations

import gc
import marshal
import multiprocessing
import os
import textwrap
from pathlib import Path

import pytest

from portbench.cli import main
from portbench.scan import engine
from portbench.scan.apimap import ApiMap, available_maps, load_map
from portbench.scan.engine import ScanOptions, paused_gc, read_one, scan_project
from portbench.scan.facts import FileFacts, file_facts, from_wire, to_wire
from portbench.scan.walk import ProjectFile, discover

MODEL = """
import torch
from torch import nn


class Net(nn.Module):
    def forward(self, x, items):
        h = torch.zeros(3)
        for item in items:
            item.not_a_method_anywhere()
            item.view(-1)
        print(self)
        self.register_buffer("b", h)
        return h
"""


@pytest.fixture(scope="module")
def maps() -> dict[str, ApiMap]:
    return {fw: load_map(rels[-1][1]) for fw, rels in available_maps().items()}


def _method_names(maps: dict[str, ApiMap]) -> frozenset[str]:
    names: set[str] = set()
    for api in maps.values():
        names |= api.method_names(api.receiver_classes())
    return frozenset(names)


def _heads(facts: FileFacts) -> list[tuple[int, str, tuple[str, ...]]]:
    """(line, head name, attributes) of every reference kept."""
    return [
        (head[2][0], head[1], tuple(step[1] for step in steps if step[0] == "a"))
        for _scope, (head, steps) in facts.refs
    ]


def test_references_that_can_be_no_use_are_dropped(tmp_path: Path, maps: dict[str, ApiMap]) -> None:
    source = textwrap.dedent(MODEL).lstrip().encode()
    facts = file_facts("model.py", "python", source, _method_names(maps))
    heads = _heads(facts)
    # item is a loop variable (no value): a call of a name no receiver class has is no
    # use and no unresolved call; view is a tensor method (counted as unresolved).
    assert (9, "item", ("not_a_method_anywhere",)) not in heads
    assert (10, "item", ("view",)) in heads
    # print is bound nowhere and `self` alone is the project's object: neither can be a
    # use. A chain on self, and the name h (bound by an assignment), are kept.
    assert not [h for h in heads if h[0] == 11]
    assert (12, "self", ("register_buffer",)) in heads
    assert (13, "h", ()) in heads
    # What is dropped changes nothing the scan finds.
    project = tmp_path / "proj"
    project.mkdir()
    (project / "model.py").write_bytes(source)
    result = scan_project(discover(project), maps, ScanOptions(jobs=1))
    found = sorted((u.line, u.api, u.route) for u in result.uses)
    assert (7, "torch.zeros", "import") in found
    assert (12, "torch.nn.Module.register_buffer", "subclass") in found
    assert result.unresolved_methods == {"view": 1}


def test_facts_survive_the_wire(project: Path, maps: dict[str, ApiMap]) -> None:
    """What a worker sends (marshal of plain tuples) reads back as the same facts:
    notebooks' line maps, suppressions, classes and their attributes included."""
    discovery = discover(project)
    names = _method_names(maps)
    read = [read_one(discovery.root, item, 1 << 20, names) for item in discovery.files]
    assert any(f.line_map for f in read) and any(f.suppress for f in read)
    assert any(c.attributes for f in read for c in f.classes)
    for facts in read:
        assert from_wire(marshal.loads(marshal.dumps(to_wire(facts)))) == facts


def test_worker_chunk_reads_what_this_process_reads(project: Path, maps: dict[str, ApiMap]) -> None:
    discovery = discover(project)
    names = _method_names(maps)
    claims = multiprocessing.get_context().Array("b", 2)
    engine._init_worker(str(discovery.root), 1 << 20, names, claims)
    try:
        sent = engine._read_chunk(0, discovery.files)
        assert engine._claim(claims, 1)  # this process took chunk 1: the worker leaves it
        assert engine._read_chunk(1, discovery.files) is None
    finally:
        gc.enable()  # _init_worker pauses it for the worker's life
        engine._WORKER.clear()
    assert sent is not None
    here = [read_one(discovery.root, item, 1 << 20, names) for item in discovery.files]
    assert [from_wire(w) for w in marshal.loads(sent)] == here


def test_pool_with_this_process_reading_gives_the_same_facts(
    tmp_path: Path, maps: dict[str, ApiMap]
) -> None:
    project = tmp_path / "many"
    for number in range(60):
        folder = project / f"pkg{number % 6}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"m{number}.py").write_text(
            textwrap.dedent(MODEL).lstrip() + f"\nVALUE = {number}\n", encoding="utf-8"
        )
    (project / "broken.py").write_text("def broken(:\n", encoding="utf-8")
    discovery = discover(project)
    names = _method_names(maps)
    # The evidence read meanwhile runs once, in this process, whatever the processes.
    meanwhile: list[int] = []

    def note() -> None:
        meanwhile.append(os.getpid())

    alone = engine.read_all(discovery, ScanOptions(jobs=1), names, meanwhile=note)
    pooled = engine.read_all(discovery, ScanOptions(jobs=3), names, meanwhile=note)
    assert [f.rel for f in pooled] == [f.rel for f in discovery.files]
    assert pooled == alone
    assert [f.rel for f in pooled if f.error] == ["broken.py"]
    assert meanwhile == [os.getpid(), os.getpid()]


def test_chunks_keep_every_file_in_order() -> None:
    items = [ProjectFile(f"f{i:03}.py", "python", size) for i, size in enumerate([5, 900, 1] * 40)]
    chunks = engine._chunks(items, 2)
    assert [item for chunk in chunks for item in chunk] == items
    assert all(chunks)
    assert 12 <= len(chunks) <= 2 * engine.CHUNKS_PER_JOB + 1


def test_cycle_collector_paused_and_restored() -> None:
    assert gc.isenabled()
    with paused_gc():
        assert not gc.isenabled()
        with paused_gc():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the outer pause still holds
    assert gc.isenabled()


def test_cache_reads_changed_files_only_and_finds_the_same(
    project: Path, tmp_path: Path, maps: dict[str, ApiMap]
) -> None:
    cache = tmp_path / "cache"
    plain = scan_project(discover(project), maps, ScanOptions(jobs=1))
    first = scan_project(discover(project), maps, ScanOptions(jobs=1, cache=cache))
    again = scan_project(discover(project), maps, ScanOptions(jobs=2, cache=cache))
    readable = len(first.files) + len(first.unparsed)
    assert first.cached == 0
    assert again.cached == readable  # every file, the one that does not parse included
    assert again.uses == first.uses == plain.uses
    assert again.unparsed == plain.unparsed
    assert again.by_rel["analysis.ipynb"].line_map == plain.by_rel["analysis.ipynb"].line_map
    # One file changed: read again, and what it now says is found.
    ops = project / "pkg" / "ops.py"
    ops.write_text(ops.read_text(encoding="utf-8") + "\nx = F.gelu\n", encoding="utf-8")
    changed = scan_project(discover(project), maps, ScanOptions(jobs=1, cache=cache))
    assert changed.cached == readable - 1
    assert ("pkg/ops.py", "torch.nn.functional.gelu") in {(u.file, u.api) for u in changed.uses}


def test_cache_entry_damaged_is_read_again(
    project: Path, tmp_path: Path, maps: dict[str, ApiMap]
) -> None:
    cache = tmp_path / "cache"
    first = scan_project(discover(project), maps, ScanOptions(jobs=1, cache=cache))
    entries = sorted(p for p in cache.rglob("*") if p.is_file())
    assert entries
    for entry in entries[:2]:
        data = bytearray(entry.read_bytes())
        data[-1] ^= 0xFF
        entry.write_bytes(bytes(data))
    entries[2].write_bytes(b"not an entry")
    again = scan_project(discover(project), maps, ScanOptions(jobs=1, cache=cache))
    assert again.cached == len(first.files) + len(first.unparsed) - 3
    assert again.uses == first.uses


def test_cache_folder_that_cannot_be_made_is_one_sentence(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("", encoding="utf-8")
    code = main(["scan", str(project), "--cache", str(blocker / "cache"), "--jobs", "1"])
    assert code == 2
    err = capsys.readouterr().err
    assert "--cache" in err and "Traceback" not in err
