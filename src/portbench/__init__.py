"""portbench: how portable are ML frameworks across hardware, measured cell by cell."""

__all__ = ["__version__"]

__version__ = "0.1.0"
