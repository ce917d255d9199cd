"""A notebook's code cells as one Python module, with IPython's own syntax taken out.

A notebook's cells share one namespace, so they are joined in order into one module (an
import in the first cell binds names used in the fifth). Lines that are IPython syntax,
not Python, become ``pass`` at the same indentation, so blocks stay valid and line numbers
stay put: line magics (``%time``, ``%matplotlib``), shell escapes (``!pip install``,
``files = !ls``), help (``torch.cat?``). A cell magic that runs Python (``%%time``,
``%%capture``) loses its first line; any other (``%%bash``, ``%%writefile``) is not Python
and its cell is left out. A cell that still does not parse is left out and counted.

Each line of the module maps back to (cell, line in the cell), and, for a notebook saved
in the usual layout (one source line per JSON line), to its line in the ``.ipynb`` file,
which is what code-scanning tools show.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field

__all__ = ["NotebookCode", "NotebookError", "notebook_code"]

#: Cell magics whose body is Python.
PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "python", "python3", "debug"})
_LINE_MAGIC = re.compile(r"^(\s*)(%|!|\?)")
_ASSIGNED_MAGIC = re.compile(r"^(\s*)[\w.\[\], ]+=\s*[%!]")
_HELP = re.compile(r"^(\s*)\S.*\?\??\s*$")


class NotebookError(ValueError):
    """The file is not a notebook this reader understands."""


@dataclass
class NotebookCode:
    """The joined module and where each of its lines came from."""

    source: str
    origin: list[tuple[int, int]] = field(default_factory=list)
    """Per module line (0-based index): (cell number from 1, line in the cell from 1)."""
    file_lines: list[int] | None = None
    """Per module line: the line of the ``.ipynb`` file holding it; None if not known."""
    cells: int = 0
    skipped_cells: int = 0
    """Code cells left out: not Python (``%%bash``) or not parsing."""


def _cells(document: object) -> list[tuple[str, list[str]]]:
    """(cell type, source lines) of every cell, nbformat 4 or 3."""
    if not isinstance(document, dict):
        raise NotebookError("not a JSON object")
    raw = document.get("cells")
    if raw is None:  # nbformat 3: worksheets of cells whose code is in "input"
        sheets = document.get("worksheets") or []
        raw = [c for s in sheets if isinstance(s, dict) for c in s.get("cells") or []]
    if not isinstance(raw, list):
        raise NotebookError("no list of cells")
    cells = []
    for cell in raw:
        if not isinstance(cell, dict):
            raise NotebookError("a cell is not an object")
        text = cell.get("source", cell.get("input", ""))
        if isinstance(text, list):
            text = "".join(str(t) for t in text)
        if not isinstance(text, str):
            raise NotebookError("a cell's source is not text")
        cells.append((str(cell.get("cell_type", "")), text.splitlines()))
    return cells


def _python_lines(lines: list[str]) -> list[str] | None:
    """The cell's lines with IPython syntax made ``pass``; None if the cell is not Python."""
    out = list(lines)
    first = next((i for i, line in enumerate(out) if line.strip()), None)
    if first is not None and out[first].lstrip().startswith("%%"):
        magic = out[first].strip()[2:].split()
        if not magic or magic[0] not in PYTHON_CELL_MAGICS:
            return None
        out[first] = ""
    for index, line in enumerate(out):
        match = _LINE_MAGIC.match(line) or _ASSIGNED_MAGIC.match(line)
        if match is None and _HELP.match(line) and not line.rstrip().endswith(("'", '"')):
            match = _HELP.match(line)
        if match is not None and not line.lstrip().startswith("#"):
            out[index] = f"{match.group(1)}pass"
    return out


def _file_lines(text: str, cells: list[tuple[str, list[str]]]) -> list[int] | None:
    """Line (from 1) of the first source line of each cell in the .ipynb text, when the file
    is laid out as notebook writers lay it out: one ``"source": [`` per cell, then one
    element per line. Checked; None when the layout is another."""
    lines = text.splitlines()
    starts = [i for i, line in enumerate(lines) if line.strip().startswith('"source": [')]
    if len(starts) != len(cells):
        return None
    for start, (_kind, source) in zip(starts, cells):
        if source:
            try:
                element = json.loads(lines[start + 1].strip().rstrip(","))
            except (IndexError, ValueError):
                return None
            if not isinstance(element, str) or element.rstrip("\n") != source[0]:
                return None
    return [start + 2 for start in starts]


def notebook_code(data: bytes) -> NotebookCode:
    """The notebook's code as one module. Raises NotebookError for a file that is not one."""
    try:
        text = data.decode("utf-8")
        document = json.loads(text)
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise NotebookError("not JSON") from None
    cells = _cells(document)
    firsts = _file_lines(text, cells)
    code = NotebookCode(source="")
    parts: list[str] = []
    for number, (kind, lines) in enumerate(cells, start=1):
        if kind != "code":
            continue
        code.cells += 1
        python = _python_lines(lines)
        if python is not None:
            try:
                ast.parse("\n".join(python))
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                python = None
        if python is None:
            code.skipped_cells += 1
            continue
        parts.extend(python)
        code.origin.extend((number, line) for line in range(1, len(python) + 1))
        if firsts is not None:
            if code.file_lines is None:
                code.file_lines = []
            code.file_lines.extend(firsts[number - 1] + i for i in range(len(python)))
    if firsts is None:
        code.file_lines = None
    code.source = "\n".join(parts) + ("\n" if parts else "")
    return code
