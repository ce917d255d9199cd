"""Naming a release: one framework pinned with ``==``, its Docker-valid tag, and one sentence
for anything else."""

from __future__ import annotations

import re

import pytest

from portbench.errors import UsageError
from portbench.releases.spec import Release, parse_release, release_from_tag

# Docker's tag grammar: [\w][\w.-]{0,127}.
DOCKER_TAG = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("jax==0.6.2", Release("jax", "0.6.2")),
        ("tensorflow==2.18.1", Release("tensorflow", "2.18.1")),
        ("torch==2.4.1", Release("torch", "2.4.1")),
        ("  jax == 0.6.2 ", Release("jax", "0.6.2")),
        ("jax==0.12.0.1", Release("jax", "0.12.0.1")),
        ("tensorflow==2.15.0.post1", Release("tensorflow", "2.15.0.post1")),
        ("jax==0.6.02", Release("jax", "0.6.2")),  # normalized as packaging does
        ("Torch==2.4.1", Release("torch", "2.4.1")),
        ("jax-0.6.2", Release("jax", "0.6.2")),  # the tag form reads back
    ],
)
def test_a_release_is_parsed_and_normalized(text: str, expected: Release) -> None:
    assert parse_release(text) == expected


def test_a_bare_version_needs_the_framework() -> None:
    assert parse_release("2.4.1", "torch") == Release("torch", "2.4.1")
    with pytest.raises(UsageError, match="names no framework"):
        parse_release("2.4.1")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("jax>=0.6", "must pin exactly one version with '=='"),
        ("jax==0.6.*", "must pin exactly one version"),
        ("jax==0.6.2,==0.6.3", "must pin exactly one version"),
        ("jax[cuda12]==0.6.2", "without extras, markers or a URL"),
        ("jax==0.6.2; python_version>'3'", "without extras, markers or a URL"),
        ("torch==2.4.1+cpu", "name the release without a build ('2.4.1'"),
        ("numpy==2.0", "'numpy' is not a framework"),
        ("jax==abc", "'abc' is not a version"),
        ("jax==1!0.6.2", "version epoch"),
        ("jax@0.6.2", "without extras, markers or a URL (e.g. jax==0.6.2)"),
        ("jax 0.6.2", "not of the form FRAMEWORK==VERSION"),
    ],
)
def test_anything_else_is_one_sentence(text: str, message: str) -> None:
    with pytest.raises(UsageError, match=re.escape(message)):
        parse_release(text)


def test_a_release_of_another_framework_is_refused_where_one_is_named() -> None:
    with pytest.raises(UsageError, match="names jax, but this command is for torch"):
        parse_release("jax==0.6.2", "torch")


@pytest.mark.parametrize(
    "text", ["jax==0.6.2", "tensorflow==2.15.0.post1", "jax==0.12.0.1", "torch==2.6.0rc1"]
)
def test_the_tag_is_one_docker_accepts_and_reads_back(text: str) -> None:
    release = parse_release(text)
    assert DOCKER_TAG.match(release.tag)
    assert "=" not in release.tag and "@" not in release.tag
    assert release_from_tag(release.tag) == release
    assert release.pin == text


def test_a_tag_that_is_not_normalized_is_refused() -> None:
    with pytest.raises(UsageError, match=re.escape("did you mean jax-0.6.2")):
        release_from_tag("jax-0.6.02")
    with pytest.raises(UsageError, match="not a release tag"):
        release_from_tag("numpy-2.0")


def test_releases_sort_by_version_not_text() -> None:
    names = ["0.10.2", "0.9.2", "0.4.38", "0.12.0.1", "0.12.0"]
    ordered = sorted((Release("jax", v) for v in names), key=lambda r: r.parsed)
    assert [r.version for r in ordered] == ["0.4.38", "0.9.2", "0.10.2", "0.12.0", "0.12.0.1"]
