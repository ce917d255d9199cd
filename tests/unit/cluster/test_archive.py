"""A cell archive from a node: what packs, and every way a hostile archive is refused."""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
from pathlib import Path

import pytest

from portbench.cluster.archive import CONTENTS, ArchiveRefused, pack_cell, unpack_checked

from .cells import make_plan, node_cell


def _tar(members: list[tuple[tarfile.TarInfo, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for info, data in members:
            tar.addfile(info, io.BytesIO(data) if info.isfile() else None)
    return buffer.getvalue()


def _file(name: str, data: bytes) -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    return info, data


def _listing(files: dict[str, bytes]) -> tuple[tarfile.TarInfo, bytes]:
    entries = {
        n: {"size": len(d), "sha256": hashlib.sha256(d).hexdigest()} for n, d in files.items()
    }
    return _file(CONTENTS, json.dumps({"schema": 1, "files": entries}).encode())


def test_a_packed_cell_unpacks_byte_for_byte(tmp_path: Path) -> None:
    cell = node_cell(tmp_path, make_plan(tmp_path))
    (cell / "logs" / "link").symlink_to("/etc/passwd")
    checked = unpack_checked(pack_cell(cell), tmp_path / "out")
    assert set(checked.files) == {
        "plan.json",
        "env.json",
        "results.jsonl",
        "sessions.jsonl",
        "logs/supervisor.log",
    }
    for name in checked.files:
        assert (tmp_path / "out" / name).read_bytes() == (cell / name).read_bytes()
    assert not (tmp_path / "out" / "logs" / "link").exists()  # links never travel


def _refused(data: bytes, tmp_path: Path, words: str) -> None:
    tmp_path.mkdir(parents=True, exist_ok=True)
    with pytest.raises(ArchiveRefused, match=words):
        unpack_checked(data, tmp_path / "out")


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("../escape", "never writes"),
        ("/etc/cron.d/x", "never writes"),
        ("logs/../../x", "never writes"),
        ("secrets.txt", "not a file of a cell"),
        ("other/x.log", "outside the cell's logs"),
    ],
)
def test_paths_outside_the_cell_are_refused(tmp_path: Path, name: str, words: str) -> None:
    body = b"x"
    data = _tar([_listing({name: body}), _file(name, body)])
    _refused(data, tmp_path, words)
    assert not (tmp_path / "escape").exists()


def test_links_and_devices_are_refused(tmp_path: Path) -> None:
    link = tarfile.TarInfo("results.jsonl")
    link.type = tarfile.SYMTYPE
    link.linkname = "/etc/passwd"
    _refused(_tar([_listing({}), (link, b"")]), tmp_path / "a", "not a regular file")
    device = tarfile.TarInfo("env.json")
    device.type = tarfile.CHRTYPE
    _refused(_tar([_listing({}), (device, b"")]), tmp_path / "b", "not a regular file")


def test_a_byte_changed_after_listing_is_refused(tmp_path: Path) -> None:
    listing = _listing({"results.jsonl": b"{}\n"})
    _refused(_tar([listing, _file("results.jsonl", b"[]\n")]), tmp_path, "does not hash")


def test_sizes_unlisted_missing_and_twice_are_refused(tmp_path: Path) -> None:
    listed = _listing({"env.json": b"{}"})
    _refused(_tar([listed, _file("env.json", b"{} ")]), tmp_path / "a", "not the size")
    _refused(_tar([_listing({}), _file("env.json", b"{}")]), tmp_path / "b", "not in CONTENTS")
    _refused(_tar([listed]), tmp_path / "c", "which the archive lacks")
    twice = [listed, _file("env.json", b"{}"), _file("env.json", b"{}")]
    _refused(_tar(twice), tmp_path / "d", "twice")


def test_what_is_not_an_archive_is_refused(tmp_path: Path) -> None:
    _refused(b"not a tar at all" * 100, tmp_path / "a", "cannot be read|empty")
    _refused("a string", tmp_path / "b", "no archive")  # type: ignore[arg-type]
    _refused(_tar([_file("env.json", b"{}")]), tmp_path / "c", "does not start with")


def test_what_a_node_says_it_left_out_is_kept_as_checked_text(tmp_path: Path) -> None:
    from portbench.cluster.archive import LEFT_OUT, MAX_LEFT_OUT_LISTED

    files = {"plan.json": b"{}"}
    listing = json.loads(_listing(files)[1])
    listing["left_out"] = [{"path": "../../x" * 100, "size": True, "why": 7}] * 1500
    listing["left_out_count"] = 10**30
    contents = _file(CONTENTS, json.dumps(listing).encode())
    checked = unpack_checked(_tar([contents, _file("plan.json", b"{}")]), tmp_path / "out")
    assert len(checked.left_out) == MAX_LEFT_OUT_LISTED
    assert checked.left_out[0] == {"path": ("../../x" * 100)[:255], "size": None, "why": "7"}
    account = json.loads((tmp_path / "out" / LEFT_OUT).read_text())
    assert account["more"] == (1 << 40) - MAX_LEFT_OUT_LISTED
    assert not (tmp_path / "x").exists()


def test_a_node_cannot_send_the_heads_left_out_list(tmp_path: Path) -> None:
    from portbench.cluster.archive import LEFT_OUT

    files = {LEFT_OUT: b"{}"}
    with pytest.raises(ArchiveRefused, match="only the head writes"):
        unpack_checked(_tar([_listing(files), _file(LEFT_OUT, b"{}")]), tmp_path / "out")


def test_an_own_file_past_its_bound_is_cut_at_a_whole_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from portbench.cluster import archive

    cell = node_cell(tmp_path, make_plan(tmp_path))
    lines = (cell / "results.jsonl").read_bytes().splitlines(keepends=True)
    monkeypatch.setitem(archive.OWN_FILE_BYTES, "results.jsonl", len(lines[0]) + 10)
    checked = unpack_checked(pack_cell(cell), tmp_path / "out")
    assert (tmp_path / "out" / "results.jsonl").read_bytes() == lines[0]
    assert checked.left_out[0]["path"] == "results.jsonl"
    assert checked.left_out[0]["why"].startswith("cut after")
