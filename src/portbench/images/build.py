"""Building a cell's image from its Dockerfile and lock, reused by what defines its content.

An image's identity travels between machines: its tag hashes the Dockerfile, the lock and
the base image's *name* (and, for a registry base, its digest), never the local base's id,
which differs per machine for a debootstrap base. The base id is recorded in a label
instead. Because two machines' bases can share a name, an image found by its tag is used
only after its labels (content key and lock hash) are checked; an image whose labels
disagree is refused, never silently used. Docker SDK errors are mapped to portbench errors
here and in the docker backend only.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import shutil
import subprocess
import tarfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from portbench_runner.contract import ImageRef

from ..errors import BackendUnavailable, EnvironmentBuildError
from ..paths import images_dir
from .install import install_parts, install_text
from .locks import Lock, load_lock, lock_id, lock_path
from .profiles import Profile, get_profile

__all__ = [
    "BuiltImage",
    "ImageSpec",
    "default_ca_bundle",
    "docker_client",
    "ensure_image",
    "image_spec",
]

LABEL = "org.portbench"
_NO_DIST = re.compile(r"No matching distribution found for ([A-Za-z0-9_.\-]+==[^\s;]+)")


@dataclass(frozen=True)
class ImageSpec:
    framework: str
    flavor: str
    profile: Profile
    lock: Lock
    dockerfile: Path
    base: str
    ca_bundle: Path | None
    find_links: Path | None
    base_named: bool = False
    """The user named the base (--base): it is used or refused, never replaced."""
    release_tag: str | None = None
    """``jax-0.6.2`` for a release's image (its lock is the release's); None for a profile's."""

    @property
    def repository(self) -> str:
        return f"portbench/{self.framework}-{self.flavor}"

    @property
    def environment(self) -> str:
        """What the image holds, in words: a profile's name or a release's pin."""
        return self.lock.release or self.profile.name


@dataclass(frozen=True)
class BuiltImage:
    id: str
    tag: str
    built: bool
    """False when an image with this content key already existed."""
    seconds: float
    size_bytes: int
    labels: dict[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, image: Any, tag: str, built: bool, started: float) -> BuiltImage:
        """A docker SDK image as found or built at ``tag``, ``started`` on the monotonic clock."""
        seconds = time.monotonic() - started
        return cls(
            str(image.id), tag, built, seconds, int(image.attrs.get("Size", 0)), image_labels(image)
        )

    def record(self, lock_verified: bool) -> ImageRef:
        """What a plan and env.json say of the image: enough to find and check it again."""
        return ImageRef(
            self.id,
            self.tag,
            lock_verified,
            self.labels.get(f"{LABEL}.lock-sha256"),
            self.labels.get(f"{LABEL}.content"),
            self.labels.get(f"{LABEL}.base"),
            self.labels.get(f"{LABEL}.base-id"),
        )


def docker_client() -> Any:
    """A docker SDK client that answers, or :class:`BackendUnavailable` in one sentence."""
    try:
        import docker
        from docker.errors import DockerException
    except ImportError:  # pragma: no cover - docker is a dependency
        raise BackendUnavailable(
            "the docker Python package is not installed; pip install docker"
        ) from None
    try:
        client = docker.from_env(timeout=600)
        client.ping()
    except DockerException as exc:
        raise BackendUnavailable(
            f"no Docker engine answers ({str(exc).splitlines()[0][:120]}); install and start one "
            "(README: 'Docker') or use --backend venv"
        ) from None
    return client


def default_ca_bundle() -> Path | None:
    """pip's configured ``cert`` (a TLS-intercepting proxy's bundle), if any."""
    value = os.environ.get("PIP_CERT")
    if not value:
        try:
            out = subprocess.run(
                ["python3", "-m", "pip", "config", "list"],
                capture_output=True,
                text=True,
                check=False,
            ).stdout
        except OSError:
            out = ""
        # Lines look like  global.cert='/etc/ssl/certs/ca-certificates.crt'
        found = re.search(r"^[\w:.]*\.cert='([^']+)'", out, re.MULTILINE)
        value = found.group(1) if found else ""
    path = Path(value) if value else None
    return path if path and path.is_file() else None


def image_spec(
    framework: str,
    flavor: str,
    profile_name: str,
    base: str | None = None,
    ca_bundle: Path | None = None,
    find_links: Path | None = None,
    note: Callable[[str], None] = lambda _: None,
) -> ImageSpec:
    """What to build for a cell: its profile's lock on the profile's base, or, for a
    release's tag (``jax-0.6.2``), the release's lock on the base of its Python."""
    from ..releases.cells import release_of_profile

    release = release_of_profile(profile_name, framework)
    if release is not None:
        from ..releases.images import release_image_spec

        return release_image_spec(release, flavor, note, base, ca_bundle, find_links)
    profile = get_profile(profile_name)
    lock = load_lock(lock_path(profile_name, framework, flavor))
    dockerfile = images_dir() / "dockerfiles" / f"{framework}-{flavor}.Dockerfile"
    return ImageSpec(
        framework=framework,
        flavor=flavor,
        profile=profile,
        lock=lock,
        dockerfile=dockerfile,
        base=base or profile.base[flavor],
        ca_bundle=ca_bundle if ca_bundle is not None else default_ca_bundle(),
        find_links=find_links,
        base_named=base is not None,
    )


@dataclass(frozen=True)
class BaseImage:
    """The base an image is built on: its name, its local id, its registry digest if any."""

    name: str
    id: str
    digest: str | None
    """``name@sha256:...`` for a base pulled from a registry; None for a local debootstrap one."""


def _base(client: Any, name: str) -> BaseImage | None:
    from docker.errors import ImageNotFound

    try:
        image = client.images.get(name)
    except ImageNotFound:
        return None
    digests = image.attrs.get("RepoDigests") or []
    return BaseImage(name, str(image.id), str(digests[0]) if digests else None)


def resolve_base(client: Any, spec: ImageSpec, note: Callable[[str], None]) -> BaseImage:
    """The requested base, pulled if absent; the profile's default base falls back to the
    local debootstrap one, a base the user named (--base) is refused instead."""
    from docker.errors import APIError, ImageNotFound

    found = _base(client, spec.base)
    if found is not None:
        return found
    try:
        client.images.pull(spec.base)
    except (APIError, ImageNotFound):
        pass
    found = _base(client, spec.base)
    if found is not None:
        return found
    if spec.base_named:
        raise EnvironmentBuildError(
            f"--base {spec.base} is not here and cannot be pulled; name a base image this "
            f"engine has (`docker images`), or leave --base out for the profile's"
        )
    local = _base(client, spec.profile.local_base)
    if local is not None:
        note(
            f"base image {spec.base} is not here and no registry answers; using {spec.profile.local_base}"
        )
        return local
    raise EnvironmentBuildError(
        f"base image {spec.base} is not here and cannot be pulled; run `nox -s base_images` "
        f"(makes {spec.profile.local_base} with debootstrap) or pass --base IMAGE"
    )


def content_key(spec: ImageSpec, base: BaseImage) -> str:
    """What defines an image's content, on any machine: Dockerfile, lock, base name, digest.

    The local base id is left out on purpose: a debootstrap base gets a new id on every
    machine, and hashing it would make an exported image unusable anywhere else.
    """
    digest = hashlib.sha256()
    for part in (spec.dockerfile.read_bytes(), spec.lock.path.read_bytes()):
        digest.update(hashlib.sha256(part).digest())
    digest.update(f"{base.name}\n{base.digest or ''}".encode())
    return digest.hexdigest()


def content_tag(spec: ImageSpec, key: str) -> str:
    """``portbench/jax-cpu:current-<key>``, or for a release ``portbench/jax-cpu:jax-0.6.2-<key>``."""
    return f"{spec.repository}:{spec.release_tag or spec.profile.name}-{key[:12]}"


def check_labels(
    labels: dict[str, str], ref: str, *, lock_sha256: str, content: str | None = None
) -> None:
    """Refuse an image whose labels do not say it holds this lock (and this content key)."""
    have_lock = labels.get(f"{LABEL}.lock-sha256")
    if have_lock != lock_sha256:
        raise EnvironmentBuildError(
            f"image {ref} was not built from this cell's lock (its label says lock "
            f"{(have_lock or 'none')[:12]}, the lock is {lock_sha256[:12]}); pass the image of "
            "this profile's lock, or remove that image (docker rmi) and let portbench build it"
        )
    if content is not None and labels.get(f"{LABEL}.content") != content:
        raise EnvironmentBuildError(
            f"image {ref} carries this cell's tag but another content key "
            f"({(labels.get(f'{LABEL}.content') or 'none')[:12]}, expected {content[:12]}); it "
            "was retagged or built from another Dockerfile or base: remove it (docker rmi) and run again"
        )


def image_labels(image: Any) -> dict[str, str]:
    config = image.attrs.get("Config") or {}
    return {str(k): str(v) for k, v in (config.get("Labels") or {}).items()}


def build_context(spec: ImageSpec, base: str) -> bytes:
    """A tar build context: the Dockerfile, the lock, the CA bundle, the wheelhouse."""
    pip_args = ["--require-hashes"] if spec.lock.fully_hashed else []
    dockerfile = spec.dockerfile.read_bytes()
    if spec.lock.indexes and b"/etc/portbench/requirements/" not in dockerfile:
        # A Dockerfile that installs lock.txt in one step would fetch these from PyPI.
        raise EnvironmentBuildError(
            f"{spec.lock.path.name} names an index for {', '.join(sorted(spec.lock.indexes))}, "
            f"but {spec.dockerfile.name} does not install /etc/portbench/requirements/ step by "
            "step; install those files as torch-cpu.Dockerfile does"
        )
    files: dict[str, bytes] = {
        "Dockerfile": dockerfile,
        # The lock as pip reads it (a release's pylock.toml rendered with its hashes).
        "context/lock.txt": install_text(spec.lock).encode(),
        "context/ca-bundle.crt": spec.ca_bundle.read_bytes() if spec.ca_bundle else b"",
    }
    # The lock as install steps: each index's packages from that index only, then PyPI.
    for part in install_parts(spec.lock):
        files[f"context/requirements/{part.name}.txt"] = part.requirements.encode()
    if spec.find_links is not None:
        for wheel in sorted(spec.find_links.glob("*")):
            if wheel.is_file():
                files[f"context/wheels/{wheel.name}"] = wheel.read_bytes()
        pip_args += ["--find-links", "/etc/portbench/wheels"]
    files["context/pip-args"] = " ".join(pip_args).encode()
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mtime = 0  # a stable context: same inputs, same bytes
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


#: The build log's last lines kept in an :class:`EnvironmentBuildError` (the CLI shows them).
BUILD_LOG_TAIL_LINES = 40


def _log_lines(stream: Any) -> list[str]:
    """The non-blank lines of a build's JSON stream (its ``stream`` and ``error`` texts)."""
    lines: list[str] = []
    for item in stream:
        if not isinstance(item, dict):
            continue
        text = item.get("stream") or item.get("error") or ""
        lines.extend(line.rstrip() for line in str(text).splitlines() if line.strip())
    return lines


def _build_failure(spec: ImageSpec, log_lines: list[str]) -> EnvironmentBuildError:
    log = "\n".join(log_lines)
    tail_log = "\n".join(log_lines[-BUILD_LOG_TAIL_LINES:])
    if "CERTIFICATE_VERIFY_FAILED" in log:
        return EnvironmentBuildError(
            "pip inside the build could not verify the index's TLS certificate; pass the proxy's "
            "CA bundle with --ca-bundle FILE (default: pip's configured cert)",
            log=tail_log,
        )
    match = _NO_DIST.search(log)
    if match:
        nearest = (
            " or use --profile paper-nearest, which replaces unserved wheels"
            if spec.profile.name == "paper"
            else ""
        )
        return EnvironmentBuildError(
            f"{match.group(1)} is served by no index this build can reach; put the wheel in a "
            f"wheelhouse and pass --find-links DIR (or the framework's release index){nearest}"
        )  # the sentence names the wheel and the fix: the build log would only repeat it
    last = log_lines[-1] if log_lines else "no output"
    return EnvironmentBuildError(
        f"building {spec.repository} ({spec.environment}) failed: {last[:200]}; the last lines "
        "of the build's output follow",
        log=tail_log,
    )


def ensure_image(spec: ImageSpec, note: Callable[[str], None], client: Any = None) -> BuiltImage:
    """Reuse the image with this content key (its labels checked), or build it.

    Notes (a fallback base, an unverified lock, an image made on another machine's base) go
    to ``note``; a failed build removes the untagged images it made and raises
    :class:`EnvironmentBuildError` holding the build log's last lines, which the CLI shows.
    """
    from docker.errors import APIError, BuildError, ImageNotFound

    client = client or docker_client()
    started = time.monotonic()
    base = resolve_base(client, spec, note)
    key = content_key(spec, base)
    tag = content_tag(spec, key)
    try:
        image = client.images.get(tag)
    except ImageNotFound:
        image = None
    if image is not None:
        labels = image_labels(image)
        check_labels(labels, tag, lock_sha256=spec.lock.sha256, content=key)
        if labels.get(f"{LABEL}.base-id") not in (None, base.id):
            # Expected after `images import`: the same content, built on another machine's
            # base of the same name. Recorded, not rebuilt (that is what export is for).
            note(
                f"{tag} was built on another {base.name} (id {labels[f'{LABEL}.base-id'][7:19]}, "
                f"here {base.id[7:19]}); reused as imported"
            )
        return BuiltImage.of(image, tag, False, started)
    if not spec.lock.verified:
        note(
            f"{spec.lock.path.name} ({spec.environment}) is unverified: written from documented versions, not resolved here"
        )
    labels = {
        f"{LABEL}.profile": spec.profile.name,
        f"{LABEL}.framework": spec.framework,
        f"{LABEL}.flavor": spec.flavor,
        f"{LABEL}.lock-sha256": spec.lock.sha256,
        f"{LABEL}.lock-verified": str(spec.lock.verified).lower(),
        f"{LABEL}.content": key,
        f"{LABEL}.base": base.name,
        f"{LABEL}.base-id": base.id,
        f"{LABEL}.base-digest": base.digest or "",
        f"{LABEL}.python": spec.lock.python,
        f"{LABEL}.lock-id": lock_id(spec.lock),
    }
    if spec.lock.release is not None:
        # What a sweep prunes by, and what `images prune` keeps while the lock is live.
        labels[f"{LABEL}.release"] = spec.lock.release
        labels[f"{LABEL}.build"] = spec.lock.build or ""
    before = _image_ids(client)
    try:
        # The SDK reads the whole build before it returns or raises; on failure its log is
        # the exception's build_log, whose last lines go into the error the user sees.
        image, _ = client.images.build(
            fileobj=io.BytesIO(build_context(spec, base.name)),
            custom_context=True,
            tag=tag,
            buildargs={"BASE": base.name},
            labels=labels,
            network_mode="host",
            rm=True,
            forcerm=True,
        )
    except BuildError as exc:
        _remove_new_untagged(client, before)
        raise _build_failure(spec, _log_lines(exc.build_log)) from None
    except APIError as exc:
        _remove_new_untagged(client, before)
        raise EnvironmentBuildError(
            f"the Docker engine refused the build of {tag}: {exc.explanation}"
        ) from None
    return BuiltImage.of(image, tag, True, started)


def _image_ids(client: Any) -> set[str]:
    return {str(image.id) for image in client.images.list(all=True)}


def _remove_new_untagged(client: Any, before: set[str]) -> int:
    """Remove the untagged images (a failed build's intermediate layers) made since ``before``.

    Only images that did not exist before this build and carry no tag: another build's or
    the user's images are never touched. Children go before their parents.
    """
    from docker.errors import APIError, ImageNotFound

    created = [
        image
        for image in client.images.list(all=True)
        if str(image.id) not in before and not image.tags
    ]
    created.sort(key=lambda image: str(image.attrs.get("Created", "")), reverse=True)
    removed = 0
    for image in created:
        try:
            client.images.remove(str(image.id), noprune=False)
            removed += 1
        except (APIError, ImageNotFound):
            continue  # in use by a container the engine still holds, or gone already
    return removed


def have_debootstrap() -> bool:
    return shutil.which("debootstrap") is not None
