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
        """Remove ``ref`` (its image included), or refuse if this session did not create it."""
        image_id = str(client.images.get(ref).id)
        if image_id not in self.ids:
            raise NotOurImage(
                f"refusing to remove {ref} ({image_id[:19]}): this test session did not create "
                "it; remove only images a test made"
            )
        # force: a stopped container of this session's may still name the image.
        client.images.remove(ref, force=True)
