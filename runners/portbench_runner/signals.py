"""Exceptions a case raises (through its context) to end with a known outcome."""

from __future__ import annotations

from typing import Optional

from .bounds import safe_str

__all__ = ["CaseBug", "CheckFailed", "FallbackDetected", "SkipCase", "StageFailure"]


class SkipCase(Exception):
    """The case does not apply to this profile or device; the message is the reason."""


class CheckFailed(AssertionError):
    """The function ran but its result is wrong; ``category`` is usually ``precision``."""

    def __init__(self, message: str, category: str = "precision") -> None:
        super().__init__(message)
        self.category = category


class FallbackDetected(Exception):
    """An output of the measured call does not live on the target device."""


class CaseBug(Exception):
    """The case used the context wrongly: a bug of ours, recorded as ``error``."""


class StageFailure(Exception):
    """A framework exception raised while the context placed inputs or called the function.

    The context wraps the original so the worker knows the stage for sure, instead of
    guessing it from the traceback.
    """

    def __init__(self, stage: str, original: BaseException, note: Optional[str] = None) -> None:
        super().__init__(safe_str(original))
        self.stage = stage
        self.original = original
        self.note = note
