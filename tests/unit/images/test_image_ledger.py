"""The integration tests' image ledger removes only images the test session created."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from integration.image_ledger import ImageLedger, NotOurImage


class _Images:
    def __init__(self, ids: dict[str, str]) -> None:
        self.ids = ids
        self.removed: list[tuple[str, bool]] = []

    def get(self, ref: str) -> Any:
        tags = [name for name, image_id in self.ids.items() if image_id == self.ids[ref]]
        return SimpleNamespace(id=self.ids[ref], tags=[t for t in tags if t != self.ids[ref]])

    def remove(self, ref: str, force: bool = False) -> None:
        self.removed.append((ref, force))


def test_an_image_the_session_did_not_create_is_never_removed() -> None:
    images = _Images({"portbench/jax-cpu:current-abc": "sha256:" + "1" * 64})
    client = SimpleNamespace(images=images)
    ledger = ImageLedger()
    ledger.created("sha256:" + "2" * 64)  # another image of the session's
    assert not ledger.owns(client, "portbench/jax-cpu:current-abc")
    with pytest.raises(NotOurImage, match="did not create it"):
        ledger.remove(client, "portbench/jax-cpu:current-abc")
    assert images.removed == []


def test_an_image_the_session_created_is_removed() -> None:
    images = _Images({"portbench/jax-cpu:current-abc": "sha256:" + "1" * 64})
    client = SimpleNamespace(images=images)
    ledger = ImageLedger()
    ledger.created("sha256:" + "1" * 64)
    assert ledger.owns(client, "portbench/jax-cpu:current-abc")
    ledger.remove(client, "portbench/jax-cpu:current-abc")
    assert images.removed == [("portbench/jax-cpu:current-abc", True)]


def test_an_image_is_never_removed_by_id_even_the_sessions_own() -> None:
    image_id = "sha256:" + "1" * 64
    # The session's image, which a developer also tagged: a forced removal by id takes both.
    images = _Images({"portbench/jax-cpu:current-abc": image_id, "mine:v1": image_id})
    images.ids[image_id] = image_id  # an id resolves too, as it does in docker
    client = SimpleNamespace(images=images)
    ledger = ImageLedger()
    ledger.created(image_id)
    with pytest.raises(NotOurImage, match="never by id"):
        ledger.remove(client, image_id)
    assert images.removed == []
    ledger.remove(client, "portbench/jax-cpu:current-abc")  # by tag: "mine:v1" survives
    assert images.removed == [("portbench/jax-cpu:current-abc", True)]
