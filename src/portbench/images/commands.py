"""``portbench images build|base|export|import|prune``."""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path
from typing import Any

from rich.console import Console

from ..accelerators import get_accelerator
from ..census.environment import LABEL as CENSUS_LABEL
from ..errors import UsageError
from ..manifest import FRAMEWORKS
from ..profiles import DEFAULT_PROFILE, PINNED_PROFILES
from .archive import export_image, import_archive
from .base import SUITES, make_base_image
from .build import LABEL, docker_client, ensure_image, image_spec

__all__ = ["register"]


def register(subparsers: Any) -> None:
    images = subparsers.add_parser(
        "images", help="pinned cell images: build, base, export, import, prune"
    )
    sub = images.add_subparsers(dest="images_command", metavar="ACTION", required=True)
    build = sub.add_parser("build", help="build (or reuse) the image of a cell")
    build.add_argument("--framework", choices=FRAMEWORKS, help="(implied by --release)")
    build.add_argument("--accelerator", required=True)
    build.add_argument("--profile", default=DEFAULT_PROFILE, choices=PINNED_PROFILES)
    build.add_argument(
        "--release",
        metavar="FRAMEWORK==VERSION",
        help="a framework release instead of a profile (e.g. jax==0.6.2): its lock is made with uv",
    )
    _build_options(build)
    build.set_defaults(func=_build)
    base = sub.add_parser("base", help="make local base images with debootstrap (no registry)")
    base.add_argument("--suite", nargs="+", default=list(SUITES), choices=list(SUITES))
    base.add_argument("--rebuild", action="store_true")
    base.set_defaults(func=_base)
    export = sub.add_parser("export", help="save a cell's image with its lock as one archive")
    export.add_argument("--framework", required=True, choices=FRAMEWORKS)
    export.add_argument("--accelerator", required=True)
    export.add_argument("--profile", default=DEFAULT_PROFILE, choices=PINNED_PROFILES)
    export.add_argument("--out", type=Path, required=True)
    _build_options(export)
    export.set_defaults(func=_export)
    load = sub.add_parser("import", help="load an archive made by `images export`")
    load.add_argument("archive", type=Path)
    load.set_defaults(func=_import)
    lock = sub.add_parser("lock", help="(re)write the profiles' locks, or make a release's")
    lock.add_argument(
        "--only",
        nargs="+",
        default=[],
        metavar="PROFILE/FRAMEWORK-FLAVOR",
        help="e.g. current/jax-cpu",
    )
    lock.add_argument(
        "--release",
        nargs="+",
        default=[],
        metavar="FRAMEWORK==VERSION",
        help="make these releases' locks (cached under .portbench/, or committed with --commit)",
    )
    lock.add_argument("--flavor", default="cpu", help="the release locks' flavor (default cpu)")
    lock.add_argument(
        "--commit",
        action="store_true",
        help="write the release locks under images/locks/releases/ (for reference runs)",
    )
    lock.set_defaults(func=_lock)
    refresh = sub.add_parser(
        "refresh", help="move current's locks to the newest releases that install on Python 3.11"
    )
    refresh.add_argument("--only", nargs="+", default=[], metavar="FRAMEWORK-FLAVOR")
    refresh.add_argument(
        "--dry-run", action="store_true", help="say what would move; write nothing"
    )
    refresh.set_defaults(func=_refresh)
    prune = sub.add_parser(
        "prune", help="remove portbench images and venvs that no lock uses any more"
    )
    prune.add_argument("--dry-run", action="store_true")
    prune.set_defaults(func=_prune)


def _build_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--base",
        help="base image (default: the profile's public one, else the local debootstrap one)",
    )
    parser.add_argument(
        "--ca-bundle", type=Path, help="CA bundle for pip behind a TLS proxy (default: pip's cert)"
    )
    parser.add_argument(
        "--find-links", type=Path, help="a local wheelhouse for wheels no index serves"
    )


def _spec(args: argparse.Namespace) -> Any:
    flavor = get_accelerator(args.accelerator).flavor
    if args.find_links is not None and not args.find_links.is_dir():
        raise UsageError(f"--find-links {args.find_links} is not a directory of wheels")
    release_text = getattr(args, "release", None)
    if release_text:
        from ..releases.images import release_image_spec
        from ..releases.spec import parse_release

        release = parse_release(release_text, args.framework)
        return release_image_spec(
            release, flavor, _dim_note(), args.base, args.ca_bundle, args.find_links
        )
    if args.framework is None:
        raise UsageError("name the image's --framework (or a --release such as jax==0.6.2)")
    return image_spec(
        args.framework, flavor, args.profile, args.base, args.ca_bundle, args.find_links
    )


def _dim_note() -> Any:
    console = Console()
    return lambda line: console.print(line, style="dim", markup=False)


def _build(args: argparse.Namespace) -> int:
    console = Console()
    image = ensure_image(_spec(args), lambda line: console.print(line, style="dim", markup=False))
    verb = "built" if image.built else "unchanged, reused"
    console.print(
        f"{image.tag}: {verb} in {image.seconds:.2f} s, {image.size_bytes / 1e6:.0f} MB ({image.id[:19]})"
    )
    return 0


def _base(args: argparse.Namespace) -> int:
    console = Console()
    client = docker_client()
    for suite in args.suite:
        image_id, seconds = make_base_image(suite, client, console.print, rebuild=args.rebuild)
        console.print(
            f"portbench/base:{suite}: {image_id[:19]} ({'made in %.0f s' % seconds if seconds else 'present'})"
        )
    return 0


def _export(args: argparse.Namespace) -> int:
    console = Console()
    spec = _spec(args)
    client = docker_client()
    image = ensure_image(spec, console.print, client)
    manifest = export_image(client, image, spec, args.out)
    console.print(
        f"{args.out}: {image.tag} ({image.id[:19]}) with its lock, "
        f"{args.out.stat().st_size / 1e6:.0f} MB; image sha256 {manifest['image_sha256'][:12]}"
    )
    return 0


def _import(args: argparse.Namespace) -> int:
    console = Console()
    imported = import_archive(
        docker_client(), args.archive, lambda line: console.print(line, style="dim", markup=False)
    )
    manifest = imported.manifest
    verb = "loaded" if imported.loaded else "already here:"
    console.print(
        f"{verb} {imported.tag} ({imported.id[:19]}; profile {manifest['profile']}, lock "
        f"{manifest['lock_sha256'][:12]}, built on {manifest.get('base') or 'unknown base'})"
    )
    return 0


def _lock(args: argparse.Namespace) -> int:
    from .lockgen import LOCK_INPUTS, write_lock

    console = Console()
    if args.release:
        return _release_locks(args, console)
    keys = sorted(LOCK_INPUTS)
    if args.only:
        keys = [k for k in keys if f"{k[0]}/{k[1]}-{k[2]}" in args.only]
        if not keys:
            raise UsageError(f"no lock named {', '.join(args.only)} (form: current/jax-cpu)")
    for profile, framework, flavor in keys:
        path = write_lock(profile, framework, flavor)
        state = (
            "resolved"
            if LOCK_INPUTS[(profile, framework, flavor)].verified
            else "written unverified"
        )
        console.print(f"{path.relative_to(path.parents[2])}: {state}")
    return 0


def _release_locks(args: argparse.Namespace, console: Console) -> int:
    from ..releases.images import disk_estimate
    from ..releases.locking import committed_lock_path, generate_release_lock, release_lock
    from ..releases.spec import parse_release
    from .locks import load_lock

    releases = [parse_release(text) for text in args.release]
    note = _dim_note()
    for release in releases:
        if args.commit:
            path = generate_release_lock(
                release, args.flavor, committed_lock_path(release, args.flavor), note
            )
            lock = load_lock(path)
        else:
            lock = release_lock(release, args.flavor, note, refresh=True)
        where = _shown(lock.path)
        console.print(
            f"{release.pin}: {where} (Python {lock.python} on {lock.suite}, numpy "
            f"{lock.numpy or 'none'}, dependencies as of {lock.as_of}, build {lock.build}; "
            f"{disk_estimate(lock)})"
        )
    return 0


def _shown(path: Path) -> str:
    from ..paths import project_root

    try:
        return str(path.relative_to(project_root()))
    except ValueError:
        return str(path)


def _refresh(args: argparse.Namespace) -> int:
    from .refresh import refresh_current

    console = Console()
    results = refresh_current(args.only, args.dry_run)
    for result in results:
        console.print(result.line(), markup=False)
    moved = sum(1 for r in results if r.written)
    verb = "would move" if args.dry_run else "moved"
    if args.dry_run:
        moved = sum(1 for r in results if r.changes)
    console.print(f"{moved} lock(s) of current {verb}; review the diff like any code change")
    return 0


def is_stale(labels: dict[str, str], live_locks: set[str], live_census: set[str]) -> bool:
    """Whether `images prune` removes an image with these labels: a cell image whose profile
    lock is gone, or a census image (derived FROM a cell image, whose lock label it inherits)
    whose cell lock or census lock is gone (an unlabelled census image predates the label)."""
    if labels.get(f"{LABEL}.lock-sha256") not in live_locks:
        return True
    if f"{CENSUS_LABEL}.cell-image" in labels:
        return labels.get(f"{CENSUS_LABEL}.lock-sha256") not in live_census
    return False


def _prune(args: argparse.Namespace) -> int:
    import shutil

    from ..images.locks import load_lock
    from ..paths import images_dir, state_dir

    console = Console()
    live_locks = {
        load_lock(p).sha256
        for profile in PINNED_PROFILES
        for p in (images_dir() / "locks" / profile).glob("*.txt")
    }
    # Release locks, committed and cached: their images stay until a sweep prunes them.
    for root in (images_dir() / "locks" / "releases", state_dir() / "locks" / "releases"):
        live_locks |= {
            hashlib.sha256(p.read_bytes()).hexdigest() for p in root.rglob("pylock.*.toml")
        }
    live_census = {
        hashlib.sha256(p.read_bytes()).hexdigest()
        for p in (images_dir() / "locks" / "census").rglob("*.txt")
    }
    client = docker_client()
    removed = 0
    for image in client.images.list(filters={"label": f"{LABEL}.lock-sha256"}):
        if is_stale(image.labels, live_locks, live_census):
            console.print(
                f"{'would remove' if args.dry_run else 'removing'} image {image.tags or image.id}"
            )
            if not args.dry_run:
                client.images.remove(image.id, force=True)
            removed += 1
    for venv in sorted((state_dir() / "venvs").glob("*")):
        info = venv / "portbench-env.json"
        sha = json.loads(info.read_text()).get("lock_sha256") if info.exists() else None
        if sha not in live_locks:
            console.print(f"{'would remove' if args.dry_run else 'removing'} venv {venv.name}")
            if not args.dry_run:
                shutil.rmtree(venv)
            removed += 1
    console.print(f"{removed} unused environment(s) {'found' if args.dry_run else 'removed'}")
    return 0
