"""portbench's in-cell runner: standard library only, Python 3.8+, run by path in any cell."""

__all__ = ["__version__"]

__version__ = "0.1.0"
