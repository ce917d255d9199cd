"""Profile names and their check; the pins themselves live in images/ (locks are the truth)."""

from __future__ import annotations

from .errors import UsageError

__all__ = ["DEFAULT_PROFILE", "PINNED_PROFILES", "PROFILES", "check_profile"]

PINNED_PROFILES = ("paper", "paper-nearest", "current")
PROFILES = (*PINNED_PROFILES, "host")
DEFAULT_PROFILE = "current"


def check_profile(profile: str, framework: str, flavor: str) -> None:
    """Raise :class:`UsageError` for an unknown profile name."""
    if profile not in PROFILES:
        raise UsageError(f"unknown profile '{profile}' (known: {', '.join(PROFILES)})")
