"""``portbench publish``: the same report gives the same archive, byte for byte, and the
archive carries no path of the machine that made it."""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import tarfile
from pathlib import Path

import pytest
from conftest import ROOT
from rich.console import Console

from portbench.cli import main
from portbench.report.commands import build_report
from portbench.report.publish import publish

REFERENCE_CELL = ROOT / "results" / "reference" / "20261122-h100-host" / "jax-gpu-h100-host"


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A report over one real cell that lies outside the project (as a user's run may)."""
    base = tmp_path_factory.mktemp("publish")
    run = base / "run-1"
    shutil.copytree(REFERENCE_CELL, run / REFERENCE_CELL.name)
    out = base / "report"
    build_report([run], out, Console(file=io.StringIO()), with_study=False)
    return out


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_publishing_twice_gives_the_same_bytes(report: Path, tmp_path: Path) -> None:
    first, second = tmp_path / "a.tar.gz", tmp_path / "other-name.tar.gz"
    assert main(["publish", "--report", str(report), "--out", str(first)]) == 0
    # Another time and other mtimes on disk: neither may reach the archive.
    os.utime(report / "index.html", (1e9, 1e9))
    assert main(["publish", "--report", str(report), "--out", str(second)]) == 0
    assert _sha256(first) == _sha256(second)
    header = first.read_bytes()[:10]
    assert header[3] & 0x08 == 0  # FLG.FNAME: no file name in the gzip header
    assert header[4:8] == b"\0\0\0\0"  # MTIME


def test_the_archive_holds_no_absolute_or_machine_path(report: Path, tmp_path: Path) -> None:
    archive = tmp_path / "report.tar.gz"
    assert main(["publish", "--report", str(report), "--out", str(archive)]) == 0
    machine = (str(tmp_path.parent.parent), str(ROOT), str(Path.home()))
    with tarfile.open(archive) as tar:
        members = tar.getmembers()
        names = [m.name for m in members]
        files = [m.name for m in members if m.isfile()][:-1]
        assert names[0] == "report" and names[-1] == "report/CONTENTS.json"
        assert files == sorted(files)
        for member in members:
            assert not member.name.startswith("/") and ".." not in member.name.split("/")
            assert member.name == "report" or member.name.startswith("report/")
            assert (member.uid, member.gid, member.uname, member.gname) == (0, 0, "", "")
            assert member.mtime == 0 and member.mode in (0o644, 0o755)
            assert member.isdir() or member.isfile()
            if member.isfile():
                text = tar.extractfile(member).read().decode("utf-8", "replace")  # type: ignore[union-attr]
                for path in machine:
                    assert path not in text, (member.name, path)
        contents = json.loads(tar.extractfile("report/CONTENTS.json").read())  # type: ignore[union-attr]
    assert contents["files"], "CONTENTS.json lists the files"
    for name, digest in contents["files"].items():
        assert not name.startswith("/") and f"report/{name}" in names
        assert digest == hashlib.sha256((report / name).read_bytes()).hexdigest()
    assert not (report / "CONTENTS.json").exists()  # the report folder is left as it was


def test_links_are_left_out_and_said(report: Path, tmp_path: Path) -> None:
    folder = tmp_path / "report"
    shutil.copytree(report, folder)
    (folder / "escape").symlink_to("/etc/passwd")
    archive = tmp_path / "r.tar.gz"
    result = publish(folder, archive)
    assert result.links_left_out == ["escape"]
    with tarfile.open(archive) as tar:
        assert "report/escape" not in tar.getnames()


def test_a_destination_that_cannot_be_written_is_one_sentence(
    report: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    code = main(["publish", "--report", str(report), "--out", str(blocker / "r.tar.gz")])
    err = capsys.readouterr().err
    assert code != 0
    assert "Traceback" not in err
    assert "pass --out with a path in a directory you can write" in err
