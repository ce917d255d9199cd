"""An image saved with its lock can be loaded back after it is gone; prune spares live images."""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
import uuid
from pathlib import Path
from typing import Any

import pytest

from integration.conftest import portbench
from integration.image_ledger import ImageLedger

pytestmark = pytest.mark.docker


def test_export_then_import_restores_the_image(
    jax_image: str, docker_client: Any, image_ledger: ImageLedger, tmp_path: Path
) -> None:
    archive = tmp_path / "jax-current.tar"
    args = (
        "--framework",
        "jax",
        "--accelerator",
        "cpu",
        "--profile",
        "current",
        "--base",
        "portbench/base:bookworm",
    )
    exported = portbench("images", "export", *args, "--out", str(archive))
    assert exported.returncode == 0, exported.stderr
    image = docker_client.images.get(jax_image)
    image_id = image.id
    if image_ledger.owns(docker_client, jax_image):
        # This session built it: remove it for real, then load it back.
        image_ledger.remove(docker_client, jax_image)
        keep = None
    else:
        # It was here before the tests (the same content tag): never delete it. A tag of
        # the test's own keeps the image while its tag is removed and loaded back.
        keep = f"portbench-test/keep:{uuid.uuid4().hex[:12]}"
        image.tag(*keep.rsplit(":", 1))
        # Untag only once the test's own tag is on the image: removing the last tag of an
        # image deletes it, and this image is not the test's.
        tags = docker_client.images.get(image_id).tags
        assert keep in tags and jax_image in tags, tags
        docker_client.images.remove(jax_image)  # one of two tags: only untags
    try:
        imported = portbench("images", "import", str(archive))
        assert imported.returncode == 0, imported.stderr
        assert docker_client.images.get(jax_image).id == image_id
    finally:
        if keep is not None:
            if jax_image not in docker_client.images.get(keep).tags:
                docker_client.images.get(keep).tag(*jax_image.rsplit(":", 1))
            # The test's own tag goes only while the image keeps its own (then it untags).
            if jax_image in docker_client.images.get(keep).tags:
                docker_client.images.remove(keep)
    _an_import_never_moves_a_tag(archive, docker_client, tmp_path)
    damaged = tmp_path / "damaged.tar"
    damaged.write_bytes(b"not a tar")
    refused = portbench("images", "import", str(damaged))
    assert refused.returncode != 0
    assert "is not an archive made by `portbench images export`" in refused.stderr
    assert "Traceback" not in refused.stderr


def test_prune_keeps_images_whose_lock_is_live(jax_image: str) -> None:
    proc = portbench("images", "prune", "--dry-run")
    assert proc.returncode == 0, proc.stderr
    assert jax_image not in proc.stdout


def _renamed_image_tar(source: Any, old: str, new: str, out: Path) -> str:
    """``source`` (a docker save tar) written to ``out`` with every name ``old`` it lists
    made ``new`` (manifest.json, repositories); returns the new file's sha256."""
    old_repo, old_tag = old.rsplit(":", 1)
    new_repo, new_tag = new.rsplit(":", 1)
    with tarfile.open(fileobj=source, mode="r|") as saved, tarfile.open(out, "w") as tar:
        for member in saved:
            body = saved.extractfile(member) if member.isfile() else None
            if member.name in ("manifest.json", "repositories") and body is not None:
                document = json.loads(body.read())
                if member.name == "manifest.json":
                    for entry in document:
                        entry["RepoTags"] = [new if t == old else t for t in entry["RepoTags"]]
                else:
                    tags = document.pop(old_repo)
                    document[new_repo] = {new_tag: tags[old_tag]}
                data = json.dumps(document).encode()
                member.size = len(data)
                tar.addfile(member, io.BytesIO(data))
            else:
                tar.addfile(member, body)
    digest = hashlib.sha256()
    with open(out, "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def _an_import_never_moves_a_tag(archive: Path, docker_client: Any, tmp_path: Path) -> None:
    """An archive whose tag names another image here is refused before anything is loaded."""
    other = f"portbench-test/other:{uuid.uuid4().hex[:12]}"
    base = docker_client.images.get("portbench/base:bookworm")
    base.tag(*other.rsplit(":", 1))  # a second tag of the test's own: removing it only untags
    try:
        retagged = tmp_path / "retagged.tar"
        renamed = tmp_path / "renamed-image.tar"
        with tarfile.open(archive) as source, tarfile.open(retagged, "w") as out:
            manifest = json.load(source.extractfile("export.json"))  # type: ignore[arg-type]
            # The whole archive says `other`: export.json and the saved image agree.
            sha = _renamed_image_tar(
                source.extractfile("image.tar"), manifest["tag"], other, renamed
            )
            data = json.dumps({**manifest, "tag": other, "image_sha256": sha}).encode()
            info = tarfile.TarInfo("export.json")
            info.size = len(data)
            out.addfile(info, io.BytesIO(data))
            member = source.getmember("lock.txt")
            out.addfile(member, source.extractfile(member))
            out.add(renamed, arcname="image.tar")
        refused = portbench("images", "import", str(retagged))
        assert refused.returncode != 0
        assert "already names another image here" in refused.stderr
        assert "Traceback" not in refused.stderr
        assert docker_client.images.get(other).id == base.id
    finally:
        docker_client.images.remove(other)


def test_bench_image_refuses_an_image_of_another_cell(jax_image: str) -> None:
    """--image is checked against the cell before anything runs: a wrong one is one sentence."""
    wrong_framework = portbench(
        "bench",
        "--framework",
        "torch",
        "--accelerator",
        "cpu",
        "--backend",
        "docker",
        "--image",
        jax_image,
        "--functions",
        "torch.cat",
    )
    assert wrong_framework.returncode != 0
    assert "is a jax framework image" in wrong_framework.stderr
    not_ours = portbench(
        "bench",
        "--framework",
        "jax",
        "--accelerator",
        "cpu",
        "--backend",
        "docker",
        "--image",
        "portbench/base:bookworm",
        "--functions",
        "jax.numpy.add",
    )
    assert not_ours.returncode != 0
    assert "non-portbench" in not_ours.stderr and "Traceback" not in not_ours.stderr
