"""`images import` trusts nothing in an archive: every tag, the lock and the bytes are checked
before the engine loads anything, with real archives of small images on the real engine."""

from __future__ import annotations

import hashlib
import io
import json
import subprocess
import tarfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from integration.conftest import portbench

pytestmark = pytest.mark.docker

LOCK = "# a lock of the test's own\nnumpy==2.1.0\n"


def _build(client: Any, tag: str, text: str) -> Any:
    """A tiny image (one file on scratch) with the label an import checks."""
    sha = hashlib.sha256(LOCK.encode()).hexdigest()
    context = io.BytesIO()
    with tarfile.open(fileobj=context, mode="w") as tar:
        for name, body in (
            ("Dockerfile", f"FROM scratch\nCOPY f /f\nLABEL org.portbench.lock-sha256={sha}\n"),
            ("f", text),
        ):
            info = tarfile.TarInfo(name)
            info.size = len(body.encode())
            tar.addfile(info, io.BytesIO(body.encode()))
    context.seek(0)
    image, _ = client.images.build(fileobj=context, custom_context=True, tag=tag, rm=True)
    return image


def _archive(
    out: Path,
    tag: str,
    image_id: str,
    saved: bytes,
    lock: str = LOCK,
    cut: int = 0,
    recorded: bytes | None = None,
) -> Path:
    """An archive as `portbench images export` writes it, around ``saved`` (docker save)."""
    export = {
        "schema": 2,
        "kind": "image-export",
        "tag": tag,
        "id": image_id,
        "framework": "jax",
        "flavor": "cpu",
        "profile": "current",
        "lock": "jax-cpu.txt",
        "lock_sha256": hashlib.sha256(LOCK.encode()).hexdigest(),
        "image_sha256": hashlib.sha256(saved if recorded is None else recorded).hexdigest(),
    }
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for name, body in (
            ("export.json", json.dumps(export).encode()),
            ("lock.txt", lock.encode()),
            ("image.tar", saved),
        ):
            info = tarfile.TarInfo(name)
            info.size = len(body)
            tar.addfile(info, io.BytesIO(body))
    data = buffer.getvalue()
    out.write_bytes(data[: len(data) - cut] if cut else data)
    return out


def _save(client: Any, *tags: str) -> bytes:
    """``docker save TAG...``: one saved tar listing every tag given."""
    done = subprocess.run(["docker", "save", *tags], capture_output=True, check=True)
    return done.stdout


@pytest.fixture
def images(docker_client: Any) -> Iterator[dict[str, Any]]:
    """A cell-like image and a victim image, under tags of the test's own; removed after."""
    repo = f"portbench-scratch/wt27-{uuid.uuid4().hex[:10]}"
    tags = {"cell": f"{repo}:cell", "victim": f"{repo}:victim"}
    made = {
        "cell": _build(docker_client, tags["cell"], "cell"),
        "victim": _build(docker_client, tags["victim"], "victim"),
    }
    try:
        yield {"client": docker_client, "tags": tags, "ids": {k: i.id for k, i in made.items()}}
    finally:
        for tag in tags.values():
            try:
                docker_client.images.remove(tag, force=True)
            except Exception:
                pass
        for image_id in {i.id for i in made.values()}:
            try:
                docker_client.images.remove(image_id, force=True)
            except Exception:
                pass


def _tag_of(client: Any, tag: str) -> str | None:
    try:
        return str(client.images.get(tag).id)
    except Exception:
        return None


def test_an_archive_is_refused_whole_when_its_image_lists_another_tag(
    images: dict[str, Any], tmp_path: Path
) -> None:
    client, tags, ids = images["client"], images["tags"], images["ids"]
    # The saved image lists the victim's tag as well: loaded, that tag would move.
    client.images.get(tags["cell"]).tag(*tags["victim"].rsplit(":", 1), force=True)
    both = _save(client, tags["cell"], tags["victim"])
    assert b"victim" in both
    # Now back as before: the victim tag names the victim image, the cell's tag is gone.
    victim = _build(client, tags["victim"], "victim")
    assert victim.id == ids["victim"]
    client.images.remove(tags["cell"])
    archive = _archive(tmp_path / "two-tags.tar", tags["cell"], ids["cell"], both)
    refused = portbench("images", "import", str(archive))
    assert refused.returncode != 0
    assert "refused whole, nothing was loaded and no tag moved" in refused.stderr
    assert "Traceback" not in refused.stderr and len(refused.stderr.strip().splitlines()) == 1
    assert _tag_of(client, tags["victim"]) == ids["victim"]
    assert _tag_of(client, tags["cell"]) is None


def test_lock_damage_and_truncation_are_one_sentence_and_a_good_archive_loads(
    images: dict[str, Any], tmp_path: Path
) -> None:
    client, tags, ids = images["client"], images["tags"], images["ids"]
    saved = _save(client, tags["cell"])
    client.images.remove(tags["cell"])
    assert _tag_of(client, tags["cell"]) is None
    cases = {
        "lock": (
            _archive(tmp_path / "lock.tar", tags["cell"], ids["cell"], saved, lock="x==1\n"),
            "lock.txt does not hash to the lock_sha256",
        ),
        "cut": (
            _archive(tmp_path / "cut.tar", tags["cell"], ids["cell"], saved, cut=40_000),
            "is damaged or cut short",
        ),
        "flipped": (
            _archive(
                tmp_path / "flip.tar",
                tags["cell"],
                ids["cell"],
                saved[:-3000] + b"x" + saved[-2999:],
                recorded=saved,
            ),
            "does not match its recorded hash",
        ),
    }
    for name, (archive, words) in cases.items():
        refused = portbench("images", "import", str(archive))
        assert refused.returncode != 0, name
        assert words in refused.stderr, (name, refused.stderr)
        assert "Traceback" not in refused.stderr and len(refused.stderr.strip().splitlines()) == 1
        assert _tag_of(client, tags["cell"]) is None, name
    good = _archive(tmp_path / "good.tar", tags["cell"], ids["cell"], saved)
    loaded = portbench("images", "import", str(good))
    assert loaded.returncode == 0, loaded.stderr
    assert _tag_of(client, tags["cell"]) == ids["cell"]
    assert _tag_of(client, tags["victim"]) == ids["victim"]
