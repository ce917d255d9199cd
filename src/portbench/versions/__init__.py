"""The version report: how one framework's portability moves from release to release."""
