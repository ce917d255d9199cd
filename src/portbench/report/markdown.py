"""Markdown that says what its text says: a case's message never becomes markup.

Markdown passes raw HTML through, so a message such as ``<img src=x onerror=...>`` in a
table cell would be live HTML wherever the file is rendered (a forge, a docs site). Cell
text is written with ``<``, ``>`` and ``&`` as entities (they read as themselves), ``|``
escaped (it would end the cell), and line breaks as spaces (they would end the row).
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from tabulate import tabulate

__all__ = ["md_prose", "md_table", "md_text"]

_BREAKS = str.maketrans({"\r": " ", "\n": " ", "\x0b": " ", "\x0c": " ", "\x85": " "})


def md_text(value: Any) -> str:
    """``value`` as inert Markdown text, fit for one table cell or one line."""
    if value is None:
        return ""
    text = html.escape(str(value), quote=False).translate(_BREAKS)
    # Backslashes first, so an escape the text carries cannot undo the one added here.
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("`", "\\`")


def md_prose(value: Any) -> str:
    """A title or note (our own words, which may quote a name): no HTML, code spans kept."""
    return "" if value is None else html.escape(str(value), quote=False)


def md_table(rows: Sequence[Sequence[Any]], headers: Sequence[Any]) -> str:
    """A GitHub-flavoured Markdown table whose every cell went through :func:`md_text`."""
    return tabulate(
        [[md_text(v) for v in row] for row in rows],
        [md_text(h) for h in headers],
        tablefmt="github",
        disable_numparse=True,
    )
