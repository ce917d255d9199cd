"""A release's image, for real: the trixie base and its Python 3.13, a release's lock (made
with uv) installed on it, its tag and labels, its reuse, and its removal after the cell."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from integration.conftest import _unavailable
from integration.image_ledger import ImageLedger

pytestmark = [pytest.mark.docker, pytest.mark.slow, pytest.mark.network]

ROOT = Path(__file__).resolve().parents[2]
DOCKER_TAG = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$")


@pytest.fixture(scope="session")
def trixie_base(docker_client: Any, image_ledger: ImageLedger) -> str:
    """The local debootstrap base with Python 3.13 (made once; minutes on a fresh machine)."""
    from portbench.images.base import make_base_image

    try:
        image_id, seconds = make_base_image("trixie", docker_client, lambda line: None)
    except Exception as exc:  # debootstrap missing or no Debian mirror: say so
        _unavailable(f"cannot make the trixie base image: {exc}")
    if seconds > 0:
        image_ledger.created(image_id)
    return image_id


def _run(client: Any, image: str, code: str) -> str:
    out = client.containers.run(
        image, ["python3", "-c", code], remove=True, network_disabled=True, user="10001"
    )
    return bytes(out).decode().strip().splitlines()[-1]


def test_the_trixie_base_offers_python_3_13_on_the_glibc_the_table_says(
    docker_client: Any, trixie_base: str
) -> None:
    from portbench.images.base import GLIBC, SUITES

    found = _run(
        docker_client,
        "portbench/base:trixie",
        "import platform, sys; print('%d.%d' % sys.version_info[:2], platform.libc_ver()[1])",
    )
    assert found == f"{SUITES['trixie']} {'.'.join(map(str, GLIBC['trixie']))}"


def test_a_release_image_names_its_release_is_reused_and_is_removed_after_its_cell(
    docker_client: Any,
    trixie_base: str,
    image_ledger: ImageLedger,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from portbench.errors import UsageError
    from portbench.images.build import LABEL, ensure_image
    from portbench.releases.images import disk_estimate, release_image_spec, remove_release_image
    from portbench.releases.spec import parse_release

    home = tmp_path / "home"  # the release's lock is cached here, not in the checkout
    (home / "images").mkdir(parents=True)
    for name in ("dockerfiles", "profiles.toml", "accelerators.toml"):
        (home / "images" / name).symlink_to(ROOT / "images" / name)
    monkeypatch.setenv("PORTBENCH_HOME", str(home))

    # jaxlib 0.4.35 has CPython 3.13 wheels: the newest base, trixie.
    spec = release_image_spec(parse_release("jax==0.4.35"), "cpu", base="portbench/base:trixie")
    assert spec.lock.python == "3.13" and spec.profile.local_base == "portbench/base:trixie"
    image = ensure_image(spec, lambda line: None, client=docker_client)
    if image.built:
        image_ledger.created(image.id)
    repository, tag = image.tag.split(":")
    assert repository == "portbench/jax-cpu" and tag.startswith("jax-0.4.35-")
    assert DOCKER_TAG.match(tag)
    labels = docker_client.images.get(image.tag).labels
    assert labels[f"{LABEL}.release"] == "jax==0.4.35"
    assert labels[f"{LABEL}.python"] == "3.13"
    assert labels[f"{LABEL}.lock-id"] == "releases/jax/0.4.35/pylock.cpu.toml"
    assert labels[f"{LABEL}.lock-sha256"] == spec.lock.sha256
    assert labels[f"{LABEL}.build"] == "pypi"

    # The release runs there, sealed as a cell runs: no network, the cell's user.
    found = _run(
        docker_client,
        image.tag,
        "import sys, jax, numpy; print(jax.__version__, numpy.__version__, '%d.%d' % sys.version_info[:2])",
    )
    assert found == f"0.4.35 {spec.lock.pins['numpy']} 3.13"
    assert ensure_image(spec, lambda line: None, client=docker_client).built is False

    # The estimate a sweep plans disk by is within a factor of two of the image's size.
    estimate = disk_estimate(spec.lock).image_bytes
    assert image.size_bytes / 2 <= estimate <= image.size_bytes * 2

    with pytest.raises(UsageError, match="not a release's image"):
        remove_release_image(docker_client, "portbench/base:trixie")
    if image_ledger.owns(docker_client, image.tag):
        assert remove_release_image(docker_client, image.tag) == image.size_bytes
        assert not docker_client.images.list(
            filters={"label": f"{LABEL}.lock-sha256={spec.lock.sha256}"}
        )
        assert remove_release_image(docker_client, image.tag) == 0  # gone already
    else:
        # Not this session's image (a developer built it): another tag of it only loses
        # that tag, and the image stays.
        alias = "portbench-scratch/tests:release-alias"
        docker_client.images.get(image.tag).tag(alias)
        assert remove_release_image(docker_client, alias) == 0
        assert docker_client.images.get(image.tag)
