"""The ``portbench`` command: argument parsing and the one place errors become exit codes.

Each command family lives in its own module exposing ``register(subparsers)``, which adds
its subcommands and sets ``func(args) -> int`` on each.
"""

from __future__ import annotations

import argparse
import importlib
import shlex
import sys
from collections.abc import Sequence

from rich.console import Console
from rich.markup import escape

from . import __version__, interrupts
from .errors import CellInterrupted, PortbenchError, ResultsError
from .writable import WRITE_ERRNOS

__all__ = ["build_parser", "main"]

#: Modules that contribute subcommands, in the order ``--help`` lists them.
COMMAND_MODULES = (
    "portbench.commands.bench",
    "portbench.commands.rerun",
    "portbench.commands.compare",
    "portbench.commands.inspect",
    "portbench.commands.matrix",
    "portbench.commands.node",
    "portbench.commands.cloud",
    "portbench.commands.validate",
    "portbench.mutation.commands",
    "portbench.census.commands",
    "portbench.images.commands",
    "portbench.report.commands",
    "portbench.sampling.commands",
    "portbench.store.commands",
    "portbench.scoreboard.commands",
    "portbench.scan.commands",
    "portbench.sweep.commands",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="portbench",
        description="Measure how portable ML frameworks are across hardware.",
    )
    parser.add_argument("--version", action="version", version=f"portbench {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            # A command family still being built must not break the others.
            if exc.name and (name == exc.name or name.startswith(exc.name + ".")):
                continue
            raise
        module.register(subparsers)
    return parser


def _interrupted(exc: CellInterrupted) -> str:
    """The sentence for a stopped cell: the signal that stopped it and the whole command
    that resumes its run directory."""
    message = str(exc).strip()
    how = f"stopped by {interrupts.describe()}"
    if message.startswith("interrupted"):
        message = f"{how}{message[len('interrupted') :]}"
    elif message:
        message = f"{how}: {message}"
    if exc.run_dir is None:
        return message or f"{how}: what was recorded is kept; rerun the command to go on"
    resume = f"portbench bench --resume {shlex.quote(str(exc.run_dir))}"
    if f"resume with --resume {exc.run_dir}" in message:
        return message.replace(f"resume with --resume {exc.run_dir}", f"resume with {resume}")
    if str(exc.run_dir) in message:
        return message
    head = message.rstrip(".") if message else f"{how}: what was recorded is kept"
    return f"{head}; resume with {resume}"


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; return its exit code (errors print one sentence, no traceback)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    interrupts.install()
    try:
        return int(args.func(args))
    except CellInterrupted as exc:
        err.print(f"[bold yellow]{escape(_interrupted(exc))}[/]")
        return exc.exit_code
    except PortbenchError as exc:
        err.print(f"[bold red]error:[/] {escape(str(exc))}")
        for line in exc.log_tail():
            err.print(line, style="dim", markup=False, emoji=False)
        return exc.exit_code
    except OSError as exc:
        # The net under the early checks: a file that cannot be written (permissions, a
        # read-only mount, a full disk) is one sentence; any other OSError is a bug of ours.
        if exc.errno not in WRITE_ERRNOS or exc.filename is None:
            raise
        err.print(
            f"[bold red]error:[/] {escape(str(exc.filename))}: {escape(exc.strerror or str(exc))}; "
            "fix its permissions or pick another directory"
        )
        return ResultsError.exit_code
    except KeyboardInterrupt:
        command = shlex.join(["portbench", *(sys.argv[1:] if argv is None else argv)])
        err.print(
            f"stopped by {interrupts.describe()}: what was written so far is kept; run "
            f"{escape(command)} again"
        )
        return 130


if __name__ == "__main__":
    sys.exit(main())
