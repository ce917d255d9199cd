"""A cell's keys as the store indexes them: release, device, driver, runtime, image,
Python and NumPy, machine, when, what kind of evidence; each read from the typed plan, env
and records, the first that says it winning, unknown (None) where none does.

Releases are compared with ``packaging``'s version order; a version string that is not a
release (``unknown``) has none and sorts before every release.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime

from packaging.version import InvalidVersion, Version

from portbench_runner.contract import EnvDocument, EvidenceKind, Plan, Provenance, StudyPlan

__all__ = [
    "CellFacts",
    "cell_facts",
    "parse_time",
    "release_key",
    "release_of",
]

_RELEASE = re.compile(r"^\s*(?:[A-Za-z0-9_.\-]+\s*==\s*)?v?(\d+(?:\.\d+)*(?:(?:a|b|rc)\d+)?"
                      r"(?:\.post\d+)?(?:\.dev\d+)?)")  # fmt: skip
#: Device facts that name the runtime under the framework, by adapter.
_RUNTIME_KEYS = ("cuda_runtime", "rocm_version", "platform_version", "runtime")
SUITE_CASES = "cases"
SUITE_CENSUS = "census"
SUITE_STUDY = "study"


def release_of(text: str | None) -> str | None:
    """The public release a version string names: ``2.13.0+cpu`` -> ``2.13.0``,
    ``jax==0.6.2`` -> ``0.6.2``, ``0.4.8 (jaxlib 0.4.7)`` -> ``0.4.8``; None if none."""
    if not text:
        return None
    match = _RELEASE.match(text)
    return match.group(1) if match else None


def release_key(release: str | None) -> tuple[int, Version]:
    """A sort key for releases: unknown first, then by version."""
    if release:
        try:
            return (1, Version(release))
        except InvalidVersion:
            pass
    return (0, Version("0"))


def parse_time(text: str | None) -> datetime | None:
    """An ISO time as naive UTC (what the store's TIMESTAMP columns hold), or None."""
    if not text:
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC).replace(tzinfo=None)
    return moment


def _text(value: object) -> str | None:
    if isinstance(value, str) and value:
        return value[:200]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return None


@dataclass(frozen=True)
class CellFacts:
    suite: str
    release: str | None
    framework_version: str | None
    device_model: str | None
    driver: str | None
    runtime: str | None
    image_digest: str | None
    python: str | None
    numpy: str | None
    evidence_kind: EvidenceKind
    prediction_method: str | None
    prediction_target: str | None
    backend: str | None
    machine: str | None
    started_at: datetime | None
    label: str | None


def _provenance(plan: Plan | StudyPlan, env: EnvDocument | None) -> Provenance:
    ours = plan.provenance if isinstance(plan, Plan) else None
    theirs = env.provenance if env is not None else None
    if ours and theirs:
        return ours.merged(theirs)
    return ours or theirs or Provenance()


def cell_facts(plan: Plan | StudyPlan, env: EnvDocument | None) -> CellFacts:
    """The store's keys of a cell, from its plan and env."""
    provenance = _provenance(plan, env)
    device = env.section("device") if env is not None else {}
    version = (env.framework_version if env is not None else "") or _text(
        device.get("framework_version")
    )
    image = (env.image if env is not None else None) or (
        plan.image if isinstance(plan, Plan) else None
    )
    prediction = plan.prediction if isinstance(plan, Plan) else None
    if isinstance(plan, StudyPlan):
        suite = SUITE_STUDY
    else:
        suite = SUITE_CENSUS if plan.is_census else SUITE_CASES
    return CellFacts(
        suite=suite,
        release=release_of(provenance.release) or release_of(version),
        framework_version=_text(version),
        device_model=_text(env.device_name) if env is not None else None,
        driver=_text(device.get("driver_version")),
        runtime=next((t for k in _RUNTIME_KEYS if (t := _text(device.get(k)))), None),
        image_digest=image.id if image is not None else None,
        python=provenance.python or (_text(env.python_version) if env is not None else None),
        numpy=provenance.numpy or (env.packages.get("numpy") if env is not None else None),
        evidence_kind=plan.evidence_kind if isinstance(plan, Plan) else EvidenceKind.OBSERVED,
        prediction_method=prediction.method.value if prediction is not None else None,
        prediction_target=prediction.target if prediction is not None else None,
        backend=(env.backend if env is not None and env.backend else None) or plan.backend,
        machine=_text(env.hostname) if env is not None else None,
        started_at=parse_time(env.started_at) if env is not None else None,
        label=plan.label,
    )
