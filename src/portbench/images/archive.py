"""A cell's image as one archive that travels: export, checked import, use by reference.

The archive is a plain tar of three members, in this order: ``export.json`` (what the
image is: tag, id, lock hash, content key, base), ``lock.txt`` and ``image.tar`` (what
``docker save`` wrote). Both directions stream: the image never sits in memory whole.
Before the engine sees a byte, an import checks lock.txt against ``lock_sha256``, the
image's hash, and every name the saved image lists (:mod:`.saved`): one image, under
export.json's tag and no other, or the archive is refused whole. It never moves a tag that
names another image, and checks the loaded image's id and labels against the archive's own
account of it; a mismatch, or a cut or damaged archive, is one sentence, and what it loaded
is taken back.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import tarfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from .. import __version__
from ..errors import EnvironmentBuildError, UsageError
from .build import LABEL, BuiltImage, ImageSpec, check_labels, image_labels
from .saved import SavedImage, SavedImageDamaged, read_saved_image

__all__ = ["ImportedImage", "export_image", "import_archive", "use_image"]

EXPORT_SCHEMA = 2
CHUNK = 1 << 20
#: export.json is a few hundred bytes; anything much larger is not ours.
MAX_MANIFEST_BYTES = 64 << 10
#: A full lock is tens of KB; a few MB is not a lock.
MAX_LOCK_BYTES = 4 << 20
_REQUIRED = ("tag", "id", "framework", "flavor", "profile", "lock_sha256", "image_sha256")


@dataclass(frozen=True)
class ImportedImage:
    tag: str
    id: str
    manifest: dict[str, Any]
    loaded: bool
    """False when the same image (same tag, same id) was here already."""


def _chunks(handle: IO[bytes], digest: Any = None) -> Iterator[bytes]:
    while chunk := handle.read(CHUNK):
        if digest is not None:
            digest.update(chunk)
        yield chunk


def export_image(client: Any, image: BuiltImage, spec: ImageSpec, out: Path) -> dict[str, Any]:
    """Write ``out``: the image with its lock and an account of both; returns that account."""
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(out.name + ".image.partial")
    digest = hashlib.sha256()
    size = 0
    try:
        with open(partial, "wb") as handle:
            for chunk in client.images.get(image.tag).save(named=True):
                digest.update(chunk)
                size += len(chunk)
                handle.write(chunk)
        labels = image.labels
        manifest = {
            "schema": EXPORT_SCHEMA,
            "kind": "image-export",
            "tag": image.tag,
            "id": image.id,
            "profile": spec.profile.name,
            "framework": spec.framework,
            "flavor": spec.flavor,
            "lock": spec.lock.path.name,
            "lock_sha256": spec.lock.sha256,
            "content": labels.get(f"{LABEL}.content"),
            "base": labels.get(f"{LABEL}.base"),
            "base_id": labels.get(f"{LABEL}.base-id"),
            "image_sha256": digest.hexdigest(),
            "image_bytes": size,
            "exported_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "portbench_version": __version__,
        }
        data = json.dumps(manifest, indent=2, sort_keys=True).encode()
        with tarfile.open(out, "w") as tar:
            info = tarfile.TarInfo("export.json")
            info.size = len(data)
            info.mtime = int(time.time())
            tar.addfile(info, io.BytesIO(data))
            tar.add(spec.lock.path, arcname="lock.txt")
            tar.add(partial, arcname="image.tar")  # streamed from disk by tarfile
    finally:
        partial.unlink(missing_ok=True)
    return manifest


def _read_manifest(tar: tarfile.TarFile, archive: Path) -> dict[str, Any]:
    not_ours = f"{archive} is not an archive made by `portbench images export`"
    try:
        member = tar.getmember("export.json")
    except KeyError:
        raise UsageError(f"{not_ours} (it holds no export.json)") from None
    if not member.isfile() or member.size > MAX_MANIFEST_BYTES:
        raise UsageError(f"{not_ours} (its export.json is not a small file)")
    handle = tar.extractfile(member)
    try:
        manifest = json.loads(handle.read() if handle else b"")
    except ValueError:
        raise UsageError(f"{not_ours} (its export.json is not JSON)") from None
    if not isinstance(manifest, dict) or manifest.get("kind") != "image-export":
        raise UsageError(f"{not_ours} (its export.json is not an image export)")
    missing = [key for key in _REQUIRED if not isinstance(manifest.get(key), str)]
    if missing:
        raise UsageError(f"{not_ours} (its export.json lacks {', '.join(missing)})")
    return manifest


def _image_member(tar: tarfile.TarFile, archive: Path) -> tarfile.TarInfo:
    try:
        member = tar.getmember("image.tar")
    except KeyError:
        raise UsageError(f"{archive} holds no image.tar; export the image again") from None
    if not member.isfile():
        raise UsageError(f"{archive}: its image.tar is not a plain file; export the image again")
    return member


def _open_member(tar: tarfile.TarFile, member: tarfile.TarInfo) -> IO[bytes]:
    handle = tar.extractfile(member)
    assert handle is not None  # a regular member always has a reader
    return handle


def _existing(client: Any, ref: str) -> Any:
    from docker.errors import ImageNotFound

    try:
        return client.images.get(ref)
    except ImageNotFound:
        return None


def _check_lock(tar: tarfile.TarFile, archive: Path, manifest: dict[str, Any]) -> None:
    """lock.txt is the lock the image was built from: its hash must be export.json's."""
    try:
        member = tar.getmember("lock.txt")
    except KeyError:
        raise UsageError(f"{archive} holds no lock.txt; export the image again") from None
    if not member.isfile() or member.size > MAX_LOCK_BYTES:
        raise UsageError(f"{archive}: its lock.txt is not a lock; export the image again")
    if hashlib.sha256(_open_member(tar, member).read()).hexdigest() != manifest["lock_sha256"]:
        raise UsageError(
            f"{archive}: its lock.txt does not hash to the lock_sha256 export.json names; the "
            "archive was changed or damaged: export the image again"
        )


def _check_saved(archive: Path, saved: SavedImage, manifest: dict[str, Any]) -> None:
    """The saved image must be export.json's one image under its one tag, unchanged."""
    tag, image_id = manifest["tag"], manifest["id"]
    if saved.sha256 != manifest["image_sha256"]:
        raise UsageError(
            f"{archive}: the image does not match its recorded hash; the archive is "
            "damaged: export it again"
        )
    if saved.problems:
        raise UsageError(f"{archive}: its image.tar is not one saved image ({saved.problems[0]})")
    others = sorted(saved.names - {tag})
    if others or tag not in saved.names:
        listed = ", ".join(others[:3]) + (" ..." if len(others) > 3 else "")
        raise UsageError(
            f"{archive}: its image.tar would tag {listed or 'nothing'} besides or instead of "
            f"{tag}, which export.json names; refused whole, nothing was loaded and no tag moved"
        )
    if saved.config_ids != [image_id]:
        raise UsageError(
            f"{archive}: its image.tar holds {len(saved.config_ids)} image(s), not the one "
            f"export.json names ({image_id[7:19]}); refused, nothing was loaded"
        )


def import_archive(
    client: Any, archive: Path, note: Callable[[str], None] = lambda line: None
) -> ImportedImage:
    """Load an archive made by :func:`export_image`, checked before and after the load.

    Everything is checked before the engine sees a byte: export.json, lock.txt against its
    hash, and the saved image (its hash, and that it lists export.json's tag and no other).
    A cut or damaged archive is one sentence.
    """
    try:
        return _import(client, archive, note)
    except (tarfile.TarError, EOFError, SavedImageDamaged) as exc:
        raise UsageError(
            f"{archive} is damaged or cut short ({str(exc)[:120] or type(exc).__name__}); "
            "copy it again or export the image again"
        ) from None
    except OSError as exc:
        raise UsageError(f"{archive} cannot be read ({exc.strerror or exc})") from None


def _import(client: Any, archive: Path, note: Callable[[str], None]) -> ImportedImage:
    try:
        tar = tarfile.open(archive, "r:")
    except (OSError, tarfile.TarError) as exc:
        raise UsageError(
            f"{archive} is not an archive made by `portbench images export` ({exc})"
        ) from None
    with tar:
        manifest = _read_manifest(tar, archive)
        tag, image_id = manifest["tag"], manifest["id"]
        _check_lock(tar, archive, manifest)
        member = _image_member(tar, archive)
        # First pass: hash and names, before the engine sees a byte of it.
        _check_saved(archive, read_saved_image(_open_member(tar, member)), manifest)
        here = _existing(client, tag)
        if here is not None:
            if str(here.id) == image_id:
                note(f"{tag} is here already with the same id; nothing loaded")
                return ImportedImage(tag, image_id, manifest, loaded=False)
            raise UsageError(
                f"{tag} already names another image here ({str(here.id)[7:19]}, the archive's "
                f"is {image_id[7:19]}); an import never moves a tag: remove it (docker rmi "
                f"{tag}) or export that one first"
            )
        # Second pass: streamed into the engine as a chunked request body.
        stream = client.api.load_image(_chunks(_open_member(tar, member)))
        for item in stream or ():
            if isinstance(item, dict) and item.get("error"):
                raise EnvironmentBuildError(
                    f"the Docker engine refused {archive}: {str(item['error'])[:200]}"
                )
    loaded = _existing(client, tag)
    problem = None
    if loaded is None:
        problem = f"the archive did not hold an image tagged {tag}"
    elif str(loaded.id) != image_id:
        problem = (
            f"the loaded image's id is {str(loaded.id)[7:19]}, the archive says {image_id[7:19]}"
        )
    elif image_labels(loaded).get(f"{LABEL}.lock-sha256") != manifest["lock_sha256"]:
        problem = "the loaded image's lock label disagrees with the archive's lock"
    if problem:
        if loaded is not None:
            client.images.remove(tag)  # ours: the tag did not exist before this load
        raise UsageError(f"{archive}: {problem}; nothing was kept, export the image again")
    return ImportedImage(tag, image_id, manifest, loaded=True)


def use_image(
    client: Any, ref: str, spec: ImageSpec, note: Callable[[str], None]
) -> tuple[BuiltImage, str]:
    """The image ``ref`` names (a tag, an id, or an export archive, imported first), checked
    to hold this cell's framework, flavor, profile and lock; (image, how it was found)."""
    started = time.monotonic()
    how = "named"
    if os.path.isfile(ref):
        imported = import_archive(client, Path(ref), note)
        ref, how = imported.tag, ("imported" if imported.loaded else "named")
    image = _existing(client, ref)
    if image is None:
        raise UsageError(
            f"--image {ref}: no image of that name or id here and no such archive file; "
            "`docker images portbench/*` lists the images, `portbench images export` makes archives"
        )
    labels = image_labels(image)
    wanted = {"framework": spec.framework, "flavor": spec.flavor, "profile": spec.profile.name}
    for key, value in wanted.items():
        have = labels.get(f"{LABEL}.{key}")
        if have != value:
            raise UsageError(
                f"--image {ref} is a {have or 'non-portbench'} {key} image, and this cell needs "
                f"{value}; pass the image of this cell (framework, flavor, profile)"
            )
    check_labels(labels, ref, lock_sha256=spec.lock.sha256)
    tags = [str(t) for t in image.tags]
    tag = ref if ref in tags else (tags[0] if tags else str(image.id))
    return BuiltImage.of(image, tag, False, started), how
