"""Profile names and their check; the pins themselves live in images/ (locks are the truth)."""

from __future__ import annotations

from .errors import UsageError

__all__ = ["DEFAULT_PROFILE", "PINNED_PROFILES", "PROFILES", "check_profile"]

PINNED_PROFILES = ("paper", "paper-nearest", "current")
PROFILES = (*PINNED_PROFILES, "host")
DEFAULT_PROFILE = "current"


def check_profile(profile: str, framework: str, flavor: str) -> None:
    """Raise :class:`UsageError` for an unknown profile name. A release's tag of the cell's
    framework (``jax-0.6.2``) is a profile too: the cell ``--release jax==0.6.2`` runs."""
    if profile in PROFILES:
        return
    from .releases.cells import release_of_profile

    if release_of_profile(profile, framework) is not None:
        return
    hint = f", or a {framework} release's tag such as {framework}-1.0.0" if framework else ""
    raise UsageError(f"unknown profile '{profile}' (known: {', '.join(PROFILES)}{hint})")
