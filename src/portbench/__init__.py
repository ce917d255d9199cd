"""portbench: how portable are ML frameworks across hardware, measured cell by cell."""

import os
import sys

__all__ = ["__version__"]

__version__ = "0.1.0"


def _runner_of_this_checkout() -> None:
    """In a source checkout, the host imports the runner beside it (``runners/``): the one
    it mounts into cells, so host and cell share one contract, whatever other copy an
    environment has installed. An installed distribution carries its own, beside it."""
    here = os.path.dirname(os.path.abspath(__file__))
    runners = os.path.join(os.path.dirname(os.path.dirname(here)), "runners")
    if os.path.isdir(os.path.join(runners, "portbench_runner")) and runners not in sys.path:
        sys.path.insert(0, runners)


_runner_of_this_checkout()
