"""A failed image build carries the build log's last lines in its error (no engine needed)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from portbench.errors import EnvironmentBuildError
from portbench.images.build import BUILD_LOG_TAIL_LINES, ensure_image, image_spec

docker_errors = pytest.importorskip("docker.errors")


class _Images:
    """Just enough of docker's ImageCollection: the base is here, the image is not."""

    def __init__(self, build_log: list[Any]) -> None:
        self.build_log = build_log

    def get(self, name: str) -> Any:
        if name == "fake/base:1":
            return SimpleNamespace(id="sha256:" + "b" * 64, attrs={})
        raise docker_errors.ImageNotFound(name)

    def list(self, **kwargs: Any) -> list[Any]:
        return []

    def build(self, **kwargs: Any) -> Any:
        raise docker_errors.BuildError("The command returned a non-zero code: 1", self.build_log)


def _failed_build(tmp_path: Path, build_log: list[Any]) -> EnvironmentBuildError:
    bundle = tmp_path / "ca.crt"
    bundle.write_text("")
    spec = image_spec("jax", "cpu", "current", base="fake/base:1", ca_bundle=bundle)
    client = SimpleNamespace(images=_Images(build_log))
    with pytest.raises(EnvironmentBuildError) as info:
        ensure_image(spec, lambda line: None, client=client)
    return info.value


def test_a_failed_build_keeps_the_last_lines_of_its_log(tmp_path: Path) -> None:
    build_log: list[Any] = [{"stream": f"Step {n}/120 : RUN pip install\n"} for n in range(1, 121)]
    build_log += [
        {"aux": {"ID": "ignored"}},
        "not a dict",
        {"stream": "\n"},
        {"error": "ERROR: Could not install packages due to an OSError: disk full"},
    ]
    error = _failed_build(tmp_path, build_log)
    lines = error.log.splitlines()
    assert len(lines) == BUILD_LOG_TAIL_LINES
    assert lines[-1] == "ERROR: Could not install packages due to an OSError: disk full"
    assert lines[-2] == "Step 120/120 : RUN pip install"
    assert lines[0] == f"Step {120 - BUILD_LOG_TAIL_LINES + 2}/120 : RUN pip install"
    assert str(error).startswith("building portbench/jax-cpu (current) failed: ERROR: Could not")
    assert error.log_tail()[-1] == lines[-1]  # what the CLI prints after the sentence


def test_a_wheel_no_index_serves_is_its_sentence_alone(tmp_path: Path) -> None:
    build_log = [
        {"stream": "Collecting jax==9.9.9\n"},
        {"stream": "ERROR: No matching distribution found for jax==9.9.9\n"},
        {"error": "The command '/bin/sh -c pip install' returned a non-zero code: 1"},
    ]
    error = _failed_build(tmp_path, build_log)
    assert "jax==9.9.9 is served by no index" in str(error)
    # The sentence names the wheel and the fix: no build log follows it.
    assert error.log_tail() == []


def test_a_failed_build_removes_the_untagged_images_it_made_and_nothing_else(
    tmp_path: Path,
) -> None:
    """The engine keeps a failed build's intermediate layers as untagged images; those go,
    an untagged image that was there before and any tagged image stay."""

    def image(image_id: str, tags: list[str], created: str) -> Any:
        return SimpleNamespace(id=image_id, tags=tags, attrs={"Created": created})

    class Images(_Images):
        def __init__(self) -> None:
            super().__init__(["Step 1/2", {"error": "boom"}])
            self.present = [
                image("sha256:old", [], "2026-01-01"),
                image("sha256:user", ["u:1"], "2026-01-02"),
            ]
            self.removed: list[str] = []

        def list(self, **kwargs: Any) -> list[Any]:
            return list(self.present)

        def build(self, **kwargs: Any) -> Any:
            self.present += [
                image("sha256:layer1", [], "2026-02-01T00:00:01"),
                image("sha256:layer2", [], "2026-02-01T00:00:02"),
                image("sha256:other-build", ["other:1"], "2026-02-01T00:00:03"),
            ]
            return super().build(**kwargs)

        def remove(self, image_id: str, **kwargs: Any) -> None:
            self.removed.append(image_id)

    images = Images()
    bundle = tmp_path / "ca.crt"
    bundle.write_text("")
    spec = image_spec("jax", "cpu", "current", base="fake/base:1", ca_bundle=bundle)
    with pytest.raises(EnvironmentBuildError):
        ensure_image(spec, lambda line: None, client=SimpleNamespace(images=images))
    # Newest first: a child layer goes before its parent.
    assert images.removed == ["sha256:layer2", "sha256:layer1"]
