"""Table cells that wrap at sensible points, and column widths that keep words whole.

rich wraps a cell at spaces and folds a longer word anywhere; its width sharing shrinks the
widest columns first, below their longest word if need be. A name such as
``torch.nn.functional.scaled_dot_product_attention::basic`` then breaks mid-word and a
header such as ``functions`` reads ``functi`` / ``ons``. Here a cell breaks only after
``::``, ``.``, ``/``, ``_``, ``-``, ``,``, ``->`` or a space, and :func:`fit_widths` gives
every column at least its longest unbreakable piece whenever the terminal has room for that.
"""

from __future__ import annotations

import re

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.text import Text

__all__ = ["Breakable", "fit_widths", "pieces", "span", "wrap"]

#: A line may end after one of these (the separator stays on the line it ends).
_BREAK = re.compile(r"(?<=::)|(?<=->)|(?<=[./_,\s-])(?![:>])")
#: Numbers and percentages never break ("12.5", "42%").
_NUMBER = re.compile(r"[-+]?[\d.,]+%?")


def pieces(text: str) -> list[str]:
    """``text`` cut after every sensible break point; joined, the pieces are ``text``."""
    if _NUMBER.fullmatch(text):
        return [text]
    return [p for p in _BREAK.split(text) if p]


def wrap(text: str, width: int) -> list[str]:
    """Lines of at most ``width`` cells, broken only at break points; a piece longer than
    ``width`` stays whole on its own line (the caller folds it, or widens the column)."""
    lines: list[str] = []
    for paragraph in text.split("\n"):
        line = ""
        for piece in pieces(paragraph):
            if line and cell_len((line + piece).rstrip()) > width:
                lines.append(line.rstrip())
                line = piece.lstrip()
            else:
                line += piece
        lines.append(line.rstrip())
    return lines


def span(text: str) -> tuple[int, int]:
    """(longest unbreakable piece, longest line) of ``text``, in terminal cells."""
    lines = text.split("\n")
    piece = max((cell_len(p.rstrip()) for line in lines for p in pieces(line)), default=1)
    return max(1, piece), max(1, *(cell_len(line) for line in lines))


class Breakable:
    """A cell's text for rich, wrapped by :func:`wrap` to the width its column gets."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        low, high = span(self.text)
        return Measurement(low, high).with_maximum(options.max_width)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        # Fold is the last resort, for a piece wider than the whole column: nothing is cut.
        yield Text("\n".join(wrap(self.text, options.max_width)), overflow="fold")

    def __str__(self) -> str:
        return self.text


def _shares(spare: int, needs: list[int]) -> list[int]:
    """``spare`` cells shared max-min fairly: a column that needs little gets all it needs
    (a short column never wraps to save a cell), the long ones share what is left."""
    given = [0] * len(needs)
    order = sorted(range(len(needs)), key=lambda i: needs[i])
    for done, i in enumerate(order):
        given[i] = min(needs[i], spare // (len(order) - done))
        spare -= given[i]
    return given


def fit_widths(spans: list[tuple[int, int]], room: int) -> list[int] | None:
    """Content widths for columns of these (min, max) spans within ``room`` cells: each at
    least its min, the spare shared by :func:`_shares`; None when even the minimums do not
    fit (the caller prints the table otherwise)."""
    lows = [low for low, _ in spans]
    highs = [max(low, high) for low, high in spans]
    if sum(highs) <= room:
        return highs
    if sum(lows) > room:
        return None
    extra = _shares(room - sum(lows), [h - lo for lo, h in zip(lows, highs)])
    return [low + e for low, e in zip(lows, extra)]
