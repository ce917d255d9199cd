"""The default sweep lists, computed from an index's listing: the rules over synthetic
listings, every case the rules name (PyPI's real listings: tests/network/)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

import pytest

from portbench.errors import UsageError
from portbench.releases.defaults import default_releases, select_releases
from portbench.releases.index import Project, parse_listing
from portbench.releases.spec import Release

INDEX = "https://index.invalid/simple"


def _listing(name: str, files: list[tuple[str, str]]) -> Project:
    """A PEP 691 listing of ``files`` (filename, upload time)."""
    payload = {
        "meta": {"api-version": "1.1"},
        "name": name,
        "files": [
            {"filename": f, "url": f"https://files.invalid/{f}", "hashes": {}, "upload-time": t}
            for f, t in files
        ],
    }
    return parse_listing(name, INDEX, json.dumps(payload).encode())


def _jaxlib(version: str, tag: str = "cp311-cp311-manylinux2014_x86_64") -> tuple[str, str]:
    return (f"jaxlib-{version}-{tag}.whl", "2024-01-01T00:00:00Z")


def _jax(version: str) -> tuple[str, str]:
    return (f"jax-{version}-py3-none-any.whl", "2024-01-01T00:00:00Z")


def _fetch(listings: dict[str, Project]) -> Callable[[str, str], Project]:
    return lambda name, index: listings[name]


def test_jax_takes_the_newest_patch_per_minor_and_0_4s_every_fifth_from_the_first() -> None:
    jax_versions = ["0.3.25", "0.4.7", "0.4.13", "0.4.14", "0.4.20", "0.4.21", "0.4.25",
                    "0.4.37", "0.4.38", "0.5.1", "0.5.2", "0.6.0", "0.6.1rc1", "0.7.0"]  # fmt: skip
    # jaxlib: none for 0.4.7 (no longer served), 0.4.37 or 0.5.2 (jax-only releases);
    # 0.7.0's only wheel is for macOS; 0.4.25's file is yanked.
    jaxlib = [_jaxlib(v) for v in ["0.3.25", "0.4.13", "0.4.14", "0.4.20", "0.4.21",
                                   "0.4.38", "0.5.1", "0.6.0", "0.6.1rc1"]]  # fmt: skip
    jaxlib.append(_jaxlib("0.7.0", "cp313-cp313-macosx_11_0_arm64"))
    listings = {
        "jax": _listing("jax", [_jax(v) for v in jax_versions]),
        "jaxlib": _listing("jaxlib", jaxlib),
    }
    yanked = _listing("jaxlib", [_jaxlib("0.4.25")])
    listings["jaxlib"] = Project(
        "jaxlib",
        INDEX,
        listings["jaxlib"].files
        + tuple(type(f)(**{**f.__dict__, "yanked": True}) for f in yanked.files),
    )
    chosen = default_releases("jax", INDEX, "x86_64", _fetch(listings))
    assert [r.version for r in chosen] == ["0.4.13", "0.4.20", "0.4.38", "0.5.1", "0.6.0"]


def test_tensorflow_and_torch_take_the_newest_patch_per_minor_from_their_first() -> None:
    tag = "cp311-cp311-manylinux_2_17_x86_64"
    tf = [(f"tensorflow_cpu-{v}-{tag}.whl", "2024-01-01T00:00:00Z")
          for v in ["2.10.1", "2.11.0", "2.11.1", "2.15.0", "2.15.0.post1", "2.15.1", "2.16.0rc0"]]  # fmt: skip
    chosen = default_releases(
        "tensorflow", INDEX, "x86_64", _fetch({"tensorflow-cpu": _listing("tensorflow-cpu", tf)})
    )
    assert [r.version for r in chosen] == ["2.11.1", "2.15.1"]
    torch = [(f"torch-{v}-{tag}.whl", "2024-01-01T00:00:00Z")
             for v in ["1.11.0", "1.12.0", "1.12.1", "2.0.1", "2.5.0", "2.5.1"]]  # fmt: skip
    # 2.5.1's only wheel needs a glibc newer than any base's: this machine cannot install it.
    torch[-1] = ("torch-2.5.1-cp311-cp311-manylinux_2_45_x86_64.whl", "2024-01-01T00:00:00Z")
    chosen = default_releases("torch", INDEX, "x86_64", _fetch({"torch": _listing("torch", torch)}))
    assert [r.version for r in chosen] == ["1.12.1", "2.0.1", "2.5.0"]


def test_a_sweep_is_cut_to_its_range_or_takes_the_list_given() -> None:
    listed = [Release("jax", v) for v in ["0.6.2", "0.4.30", "0.5.3"]]
    assert [r.version for r in select_releases("jax", listed)] == ["0.4.30", "0.5.3", "0.6.2"]
    cut = select_releases("jax", listed, low=Release("jax", "0.5.0"), high=Release("jax", "0.6.2"))
    assert [r.version for r in cut] == ["0.5.3", "0.6.2"]
    with pytest.raises(UsageError, match="newer than --to"):
        select_releases("jax", listed, low=Release("jax", "0.6"), high=Release("jax", "0.5"))
    with pytest.raises(UsageError, match="no jax release of the sweep's list lies in"):
        select_releases("jax", listed, low=Release("jax", "0.7"))
    with pytest.raises(UsageError, match=re.escape("torch==2.4.1 is not a jax release")):
        select_releases("jax", listed, high=Release("torch", "2.4.1"))
