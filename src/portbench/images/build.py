"""Building a cell's image from its Dockerfile and lock, reused by content hash.

The tag is a hash of the Dockerfile, the lock and the base image's id, so an unchanged
image is found with one lookup and never rebuilt. Docker SDK errors are mapped to
portbench errors here and in the docker backend only.
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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import BackendUnavailable, EnvironmentBuildError
from ..paths import images_dir
from .locks import Lock, load_lock, lock_path
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

    @property
    def repository(self) -> str:
        return f"portbench/{self.framework}-{self.flavor}"


@dataclass(frozen=True)
class BuiltImage:
    id: str
    tag: str
    built: bool
    """False when an image with this content hash already existed."""
    seconds: float
    size_bytes: int


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
) -> ImageSpec:
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
    )


def _base_id(client: Any, base: str) -> str | None:
    from docker.errors import ImageNotFound

    try:
        return str(client.images.get(base).id)
    except ImageNotFound:
        return None


def resolve_base(client: Any, spec: ImageSpec, note: Callable[[str], None]) -> tuple[str, str]:
    """(base name, base id): the requested base, pulled if absent, else the local debootstrap one."""
    from docker.errors import APIError, ImageNotFound

    base_id = _base_id(client, spec.base)
    if base_id is not None:
        return spec.base, base_id
    try:
        client.images.pull(spec.base)
        return spec.base, str(client.images.get(spec.base).id)
    except (APIError, ImageNotFound):
        pass
    local_id = _base_id(client, spec.profile.local_base)
    if local_id is not None:
        note(
            f"base image {spec.base} is not here and no registry answers; using {spec.profile.local_base}"
        )
        return spec.profile.local_base, local_id
    raise EnvironmentBuildError(
        f"base image {spec.base} is not here and cannot be pulled; run `nox -s base_images` "
        f"(makes {spec.profile.local_base} with debootstrap) or pass --base IMAGE"
    )


def content_tag(spec: ImageSpec, base_id: str) -> str:
    digest = hashlib.sha256()
    digest.update(spec.dockerfile.read_bytes())
    digest.update(spec.lock.path.read_bytes())
    digest.update(base_id.encode())
    return f"{spec.repository}:{spec.profile.name}-{digest.hexdigest()[:12]}"


def _context(spec: ImageSpec, base: str) -> bytes:
    """A tar build context: the Dockerfile, the lock, the CA bundle, the wheelhouse."""
    pip_args = ["--require-hashes"] if spec.lock.fully_hashed else []
    files: dict[str, bytes] = {
        "Dockerfile": spec.dockerfile.read_bytes(),
        "context/lock.txt": spec.lock.path.read_bytes(),
        "context/ca-bundle.crt": spec.ca_bundle.read_bytes() if spec.ca_bundle else b"",
    }
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
            f"wheelhouse and pass --find-links DIR (or the framework's release index){nearest}",
            log=tail_log,
        )
    last = log_lines[-1] if log_lines else "no output"
    return EnvironmentBuildError(
        f"building {spec.repository} ({spec.profile.name}) failed: {last[:200]}; the last lines "
        "of the build's output follow",
        log=tail_log,
    )


def ensure_image(spec: ImageSpec, note: Callable[[str], None], client: Any = None) -> BuiltImage:
    """Reuse the image with this content hash, or build it.

    Notes (a fallback base, an unverified lock) go to ``note``; a failed build raises
    :class:`EnvironmentBuildError` holding the build log's last lines, which the CLI shows.
    """
    from docker.errors import APIError, BuildError, ImageNotFound

    client = client or docker_client()
    started = time.monotonic()
    base, base_id = resolve_base(client, spec, note)
    tag = content_tag(spec, base_id)
    try:
        image = client.images.get(tag)
        return BuiltImage(
            str(image.id), tag, False, time.monotonic() - started, int(image.attrs.get("Size", 0))
        )
    except ImageNotFound:
        pass
    if not spec.lock.verified:
        note(
            f"{spec.lock.path.name} ({spec.profile.name}) is unverified: written from documented versions, not resolved here"
        )
    labels = {
        f"{LABEL}.profile": spec.profile.name,
        f"{LABEL}.framework": spec.framework,
        f"{LABEL}.flavor": spec.flavor,
        f"{LABEL}.lock-sha256": spec.lock.sha256,
        f"{LABEL}.lock-verified": str(spec.lock.verified).lower(),
        f"{LABEL}.base": base,
    }
    try:
        # The SDK reads the whole build before it returns or raises; on failure its log is
        # the exception's build_log, whose last lines go into the error the user sees.
        image, _ = client.images.build(
            fileobj=io.BytesIO(_context(spec, base)),
            custom_context=True,
            tag=tag,
            buildargs={"BASE": base},
            labels=labels,
            network_mode="host",
            rm=True,
            forcerm=True,
        )
    except BuildError as exc:
        raise _build_failure(spec, _log_lines(exc.build_log)) from None
    except APIError as exc:
        raise EnvironmentBuildError(
            f"the Docker engine refused the build of {tag}: {exc.explanation}"
        ) from None
    return BuiltImage(
        str(image.id), tag, True, time.monotonic() - started, int(image.attrs.get("Size", 0))
    )


def have_debootstrap() -> bool:
    return shutil.which("debootstrap") is not None
