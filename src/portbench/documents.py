"""portbench's own JSON documents (API maps, frequency files, census listings) name what they
are: a ``kind`` and a ``schema``. One check refuses a file of another kind, or of another
schema, in one sentence that names the file and says how to get a good one; the schema it
found is shown cut short, since the file may be anyone's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .errors import PortbenchError, UsageError

__all__ = ["check_document"]

#: At most this many characters of a foreign schema value are shown.
SHOWN_CHARS = 40


def check_document(
    doc: object,
    where: str | Path,
    kind: str,
    schema: int,
    what: str,
    *,
    hint: str,
    schema_hint: str | None = None,
    error: type[PortbenchError] = UsageError,
    schema_error: type[PortbenchError] | None = None,
) -> dict[str, Any]:
    """``doc`` when it is an object of ``kind`` at ``schema``; otherwise ``error`` (or, for a
    schema alone, ``schema_error``) saying "not a/an ``what``", with ``hint`` (or
    ``schema_hint``) for how to fix it."""
    if not isinstance(doc, dict) or doc.get("kind") != kind:
        article = "an" if what[:1] in "AEIOUaeiou" else "a"
        raise error(f"{where}: not {article} {what}; {hint}")
    if doc.get("schema") != schema:
        found = repr(doc.get("schema"))
        if len(found) > SHOWN_CHARS:
            found = found[:SHOWN_CHARS] + "…"
        raise (schema_error or error)(
            f"{where}: {what} schema {found} is not {schema}; {schema_hint or hint}"
        )
    return doc
