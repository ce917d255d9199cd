"""A release's lock, generated on demand with uv as a PEP 751 ``pylock.toml``.

For ``jax==0.6.2`` on the CPU: the index says which of the base images' Pythons (3.13,
3.11, 3.9) jaxlib 0.6.2 has wheels for; uv resolves ``jax==0.6.2 jaxlib==0.6.2`` for the
newest of them, wheels only, for that base's glibc and this machine's architecture, with
every other package as the index served it a day after the release came out (uv's
``--exclude-newer``; the pinned packages are exempt). So an old release gets the numpy of
its day, not today's (TensorFlow 2.11 with numpy 2 fails at import), and the lock made
again next year is the same lock. If that Python does not resolve, the next older one is
tried; each one passed over is recorded with why.

portbench's own facts (release, Python, base suite, build, date, how it was made) go in the
lock's ``[tool.portbench]`` table, which PEP 751 reserves for tools. A release no index
serves, or one that resolves for none of the Pythons, is one sentence
(:class:`ReleaseUnavailable`), never a substitute.

Locks live in three places, read in this order: committed under
``images/locks/releases/<framework>/<version>/pylock.<flavor>.toml`` (the releases whose
runs are in results/reference/), cached under portbench's state directory (``.portbench/``),
or generated now into that cache.
"""

from __future__ import annotations

import json
import re
import tempfile
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from ..errors import EnvironmentBuildError
from ..images.lockgen import PYTORCH_CPU_INDEX
from ..images.locks import Lock, load_lock
from ..images.uvtool import run_uv, uv_reason
from ..paths import images_dir, state_dir
from .index import PYPI_SIMPLE, Project, fetch_project
from .pythons import BASE_PYTHONS, BasePython, machine_arch, wheel_fits
from .recipes import Recipe, recipe
from .spec import Release

__all__ = [
    "AS_OF_MARGIN",
    "RECIPE_VERSION",
    "ReleaseUnavailable",
    "cached_lock_path",
    "committed_lock_path",
    "generate_release_lock",
    "release_lock",
]

#: Bumped when what a release's lock holds changes: cached locks of another recipe are made anew.
RECIPE_VERSION = 1
#: Dependencies as the index served them this long after the release's first upload: the
#: packages released with it on the same day are in, later ones are not.
AS_OF_MARGIN = timedelta(days=1)
#: How long the reachability check of PyTorch's CPU index may take.
PROBE_TIMEOUT_S = 10.0

Note = Callable[[str], None]


class ReleaseUnavailable(EnvironmentBuildError):
    """No index serves the release, or it resolves for none of the base images' Pythons:
    one sentence, and (in a sweep) a skipped cell."""


@dataclass(frozen=True)
class Resolution:
    base: BasePython
    text: str
    """uv's pylock.toml."""
    build: str
    """torch: ``cpu`` (PyTorch's CPU index) or ``pypi``; others: ``pypi``."""
    indexes: dict[str, str]
    sdists: tuple[str, ...] = ()
    """Packages taken from their sdists: they had no wheel on the release's day."""


def committed_lock_path(release: Release, flavor: str) -> Path:
    return (
        images_dir()
        / "locks"
        / "releases"
        / release.framework
        / release.version
        / f"pylock.{flavor}.toml"
    )


def cached_lock_path(release: Release, flavor: str) -> Path:
    return (
        state_dir()
        / "locks"
        / "releases"
        / release.framework
        / release.version
        / f"pylock.{flavor}.toml"
    )


def _served(rec: Recipe, index: str) -> tuple[Project, Project]:
    """The date and wheel packages' listings, or one sentence if the release is not there."""
    release = rec.release
    dated = fetch_project(rec.date_package, index)
    wheels = (
        dated if rec.wheel_package == rec.date_package else fetch_project(rec.wheel_package, index)
    )
    for project in (dated, wheels):
        if not project.files_of(release.version):
            served = project.releases()
            span = f"it serves {served[0]} to {served[-1]}" if served else "it serves none"
            what = (
                release.pin
                if project.name == release.framework
                else f"{project.name} {release.version}"
            )
            needs = "" if project.name == release.framework else f"{release.pin} needs "
            raise ReleaseUnavailable(
                f"{needs}{what}, which no index serves ({index}/{project.name}/: {span}); "
                "pick a release it serves"
            )
    return dated, wheels


def _candidates(rec: Recipe, wheels: Project, arch: str) -> list[BasePython]:
    files = [f for f in wheels.files_of(rec.release.version) if f.is_wheel]
    fits = [
        b
        for b in BASE_PYTHONS
        if any(wheel_fits(f.filename, f.requires_python, b, arch) for f in files)
    ]
    if not fits:
        pythons = ", ".join(b.python for b in BASE_PYTHONS)
        raise ReleaseUnavailable(
            f"{rec.release.pin}: {rec.wheel_package} {rec.release.version} has no wheel for "
            f"Python {pythons} on linux {arch} (the base images' Pythons), so no cell can install it"
        )
    return fits


def pytorch_index_answers(url: str = PYTORCH_CPU_INDEX) -> bool:
    """Whether PyTorch's CPU index answers from here (it does not on the development machine)."""
    try:
        with urllib.request.urlopen(f"{url}/torch/", timeout=PROBE_TIMEOUT_S) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, OSError, ValueError):
        return False


#: uv's words for a package whose every candidate is an sdist: jax before 0.4.14 (which
#: TensorFlow 2.12 requires), wrapt 1.14 on Python 3.11 (TensorFlow 2.12 caps it; its C
#: extension is optional, so it installs without a compiler).
_NO_WHEELS = re.compile(r"([A-Za-z0-9][A-Za-z0-9_.\-]*?)(?:[<>=!~,]\S*)? has no usable wheels")
#: How many such packages one resolution may take from their sdists.
MAX_SDIST_PACKAGES = 3


def _uv_compile(
    rec: Recipe,
    base: BasePython,
    arch: str,
    as_of: datetime,
    index: str,
    torch_backend: bool,
    sdist_only: tuple[str, ...],
) -> tuple[str | None, str, tuple[str, ...]]:
    """(pylock text, "", packages built from sdists) or (None, why not, ())."""
    sdists = list(sdist_only)
    while True:
        with tempfile.TemporaryDirectory(prefix="portbench-lock-") as tmp:
            source = Path(tmp) / "requirements.in"
            source.write_text("\n".join(rec.requirements) + "\n")
            out = Path(tmp) / "pylock.toml"
            args = [
                "pip", "compile", str(source), "--quiet", "--no-header",
                "--format", "pylock.toml", "-o", str(out),
                "--python-version", base.python,
                "--python-platform", base.uv_platform(arch),
                # Wheels only: a lock that needs a compiler is no lock. The exceptions are
                # packages that had no wheel at all on the release's day (pure Python).
                "--only-binary", ":all:",
                "--exclude-newer", as_of.strftime("%Y-%m-%dT%H:%M:%SZ"),
            ]  # fmt: skip
            for name in sdists:
                args += ["--no-binary", name]
            for name in rec.pinned:
                args += ["--exclude-newer-package", f"{name}=false"]
            if index != PYPI_SIMPLE:
                args += ["--default-index", index]
            if torch_backend:
                args += ["--torch-backend", "cpu"]
            proc = run_uv(args)
            if proc.returncode == 0:
                return out.read_text(encoding="utf-8"), "", tuple(sdists)
        wheelless = _NO_WHEELS.search(proc.stderr)
        missing = wheelless.group(1).lower() if wheelless else None
        if missing is None or missing in sdists or len(sdists) >= MAX_SDIST_PACKAGES:
            return None, uv_reason(proc.stderr), ()
        sdists.append(missing)


def _toml(value: object) -> str:
    # JSON's string escapes are valid TOML basic-string escapes; lists and bools too.
    return json.dumps(value, ensure_ascii=False)


def _tool_table(
    rec: Recipe, res: Resolution, as_of: datetime, arch: str, passed_over: list[str], source: str
) -> str:
    lines = [
        "",
        "[tool.portbench]",
        f"release = {_toml(rec.release.pin)}",
        f"flavor = {_toml(rec.flavor)}",
        f"python = {_toml(res.base.python)}",
        f"suite = {_toml(res.base.suite)}",
        f"platform = {_toml(res.base.uv_platform(arch))}",
        "verified = true",
        f"build = {_toml(res.build)}",
        f"as-of = {_toml(as_of.strftime('%Y-%m-%dT%H:%M:%SZ'))}",
        f"requirements = {_toml(list(rec.requirements))}",
        f"passed-over = {_toml(passed_over)}",
        f"sdists = {_toml(list(res.sdists))}",
        f"source = {_toml(source)}",
        f"recipe = {RECIPE_VERSION}",
    ]
    if res.indexes:
        lines.append("")
        lines.append("[tool.portbench.indexes]")
        lines += [f"{_toml(name)} = {_toml(url)}" for name, url in sorted(res.indexes.items())]
    return "\n".join(lines) + "\n"


def _resolve(
    rec: Recipe,
    base: BasePython,
    arch: str,
    as_of: datetime,
    index: str,
    torch_index: bool,
    sdist_only: tuple[str, ...],
    note: Note,
) -> tuple[Resolution | None, str]:
    if rec.torch_cpu and torch_index:
        text, why, sdists = _uv_compile(rec, base, arch, as_of, index, True, sdist_only)
        if text is not None:
            return Resolution(base, text, "cpu", {"torch": PYTORCH_CPU_INDEX}, sdists), ""
        note(
            f"{rec.release.pin}: no +cpu build for Python {base.python} on PyTorch's index ({why}); trying PyPI's build"
        )
    text, why, sdists = _uv_compile(rec, base, arch, as_of, index, False, sdist_only)
    if text is None:
        return None, why
    return Resolution(base, text, "pypi", {}, sdists), ""


def generate_release_lock(
    release: Release,
    flavor: str,
    dest: Path,
    note: Note = lambda _: None,
    index: str = PYPI_SIMPLE,
    arch: str | None = None,
) -> Path:
    """Resolve ``release``'s lock for ``flavor`` and write it to ``dest`` (a pylock.*.toml)."""
    rec = recipe(release, flavor)
    arch = arch or machine_arch()
    dated, wheels = _served(rec, index)
    first = dated.first_upload(release.version)
    if first is None:
        raise ReleaseUnavailable(
            f"{release.pin}: {index} gives no upload time for {rec.date_package} "
            f"{release.version}, so its dependencies cannot be dated; use an index that gives "
            "PEP 700 upload times (PyPI does)"
        )
    as_of = (first + AS_OF_MARGIN).astimezone(UTC)
    torch_index = rec.torch_cpu and pytorch_index_answers()
    if rec.torch_cpu and not torch_index:
        note(
            f"{release.pin}: PyTorch's CPU index ({PYTORCH_CPU_INDEX}) does not answer from here; "
            "the lock takes PyPI's build (a CUDA build on Linux, several GB)"
        )
    fits = _candidates(rec, wheels, arch)
    sdist_only = tuple(
        name
        for name in rec.pinned
        if not any(f.is_wheel for f in fetch_project(name, index).files_of(release.version))
    )
    passed_over: list[str] = []
    for base in BASE_PYTHONS:
        if base not in fits:
            passed_over.append(
                f"{base.python}: no {rec.wheel_package} {release.version} wheel for it"
            )
            continue
        res, why = _resolve(rec, base, arch, as_of, index, torch_index, sdist_only, note)
        if res is None:
            passed_over.append(f"{base.python}: {why}")
            continue
        source = _source(rec, res, as_of, index, torch_index)
        dest.parent.mkdir(parents=True, exist_ok=True)
        partial = dest.with_name(dest.name + ".partial")
        partial.write_text(
            res.text.rstrip("\n") + "\n" + _tool_table(rec, res, as_of, arch, passed_over, source),
            encoding="utf-8",
        )
        partial.replace(dest)
        return dest
    raise ReleaseUnavailable(
        f"{release.pin} resolves for none of the base images' Pythons ({'; '.join(passed_over)})"
    )


def _source(rec: Recipe, res: Resolution, as_of: datetime, index: str, torch_index: bool) -> str:
    where = "PyPI" if index == PYPI_SIMPLE else index
    text = (
        f"uv pip compile against {where}, wheels only, for Python {res.base.python} "
        f"({res.base.suite}); other packages as served on {as_of:%Y-%m-%d}"
    )
    if res.sdists:
        text += f"; built from sdists (no wheel for it that day): {', '.join(res.sdists)}"
    if rec.torch_cpu and res.build == "cpu":
        text += f"; torch's +cpu build from {PYTORCH_CPU_INDEX}"
    elif rec.torch_cpu:
        why = "had no +cpu build for it" if torch_index else "did not answer"
        text += f"; torch is PyPI's build (a CUDA build on Linux): PyTorch's CPU index {why}"
    return text


def _usable_cache(lock: Lock, rec: Recipe, arch: str) -> bool:
    """A cached lock is used only if made by this recipe for this architecture."""
    return (
        lock.recipe == RECIPE_VERSION
        and lock.requirements == rec.requirements
        and (lock.platform or "").startswith(arch + "-")
    )


def release_lock(
    release: Release, flavor: str, note: Note = lambda _: None, refresh: bool = False
) -> Lock:
    """The lock of ``release`` for ``flavor``: committed, else cached, else generated now."""
    rec = recipe(release, flavor)  # an unsupported flavor is one sentence before anything
    committed = committed_lock_path(release, flavor)
    if committed.exists() and not refresh:
        return load_lock(committed)
    cached = cached_lock_path(release, flavor)
    arch = machine_arch()
    if cached.exists() and not refresh:
        lock = load_lock(cached)
        if _usable_cache(lock, rec, arch):
            return lock
    note(f"resolving the lock of {release.pin} ({flavor}) with uv")
    return load_lock(generate_release_lock(release, flavor, cached, note, arch=arch))
