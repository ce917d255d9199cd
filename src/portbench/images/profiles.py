"""The profiles table (images/profiles.toml): Python version and base images per profile."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass

from ..errors import UsageError
from ..paths import images_dir

__all__ = ["Profile", "get_profile", "load_profiles"]


@dataclass(frozen=True)
class Profile:
    name: str
    python: str
    description: str
    base: dict[str, str]
    """flavor -> the public base image a user would pull."""
    local_base: str
    """The debootstrap-made base for machines without a registry."""
    suite: str


def load_profiles() -> dict[str, Profile]:
    path = images_dir() / "profiles.toml"
    try:
        table = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"{path}: cannot read the profiles table ({exc})") from None
    profiles = {}
    for name, row in table.items():
        try:
            profiles[name] = Profile(
                name=name,
                python=row["python"],
                description=row.get("description", ""),
                base=dict(row["base"]),
                local_base=row["local_base"],
                suite=row["suite"],
            )
        except KeyError as exc:
            raise UsageError(f"{path}: profile '{name}' lacks {exc}") from None
    return profiles


def get_profile(name: str) -> Profile:
    profiles = load_profiles()
    if name not in profiles:
        raise UsageError(f"profile '{name}' has no pinned images (pinned: {', '.join(profiles)})")
    return profiles[name]
