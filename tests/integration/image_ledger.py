"""The images a test session created: the only images a test may remove.

A developer's machine holds images the tests did not make (a cell image built by
``portbench images build`` has the same content tag as the one the tests need), so a test
that removes an image asks the ledger, which refuses anything this session did not create.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ImageLedger", "NotOurImage"]


class NotOurImage(RuntimeError):
    """A test tried to remove an image this test session did not create."""


class ImageLedger:
    def __init__(self) -> None:
        self.ids: set[str] = set()

    def created(self, image_id: str) -> None:
        """Record an image this session made (built, imported or tagged anew)."""
        self.ids.add(str(image_id))

    def owns(self, client: Any, ref: str) -> bool:
        return str(client.images.get(ref).id) in self.ids

    def remove(self, client: Any, ref: str) -> None:
        """Remove ``ref`` (its image included), or refuse if this session did not create it.

        ``ref`` must be a tag: by id, a forced removal would take every tag of the image,
        ones a developer gave it during the session included; by tag, other tags survive.
        """
        image = client.images.get(ref)
        image_id = str(image.id)
        if ref not in (image.tags or []):
            raise NotOurImage(
                f"refusing to remove {ref}: remove an image by the tag this session gave it, "
                "never by id (a forced removal by id takes every tag of the image)"
            )
        if image_id not in self.ids:
            raise NotOurImage(
                f"refusing to remove {ref} ({image_id[:19]}): this test session did not create "
                "it; remove only images a test made"
            )
        # force: a stopped container of this session's may still name the image.
        client.images.remove(ref, force=True)
