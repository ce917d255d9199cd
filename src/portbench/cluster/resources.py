"""Ray custom resources: what a node advertises, and what a cell asks for.

A node advertises one unit of each of its facts: ``accel:<id>`` for every accelerator id
its hardware satisfies (``accel:gpu-t4`` and ``accel:gpu`` on a T4 machine),
``engine:<backend>`` for each backend that can run there, ``profile:<name>`` for each
profile it can run, and ``portbench:slot``. Every cell takes the slot, so a node runs one
cell at a time: two cells sharing a device would time each other. Ray's own ``CPU``
resource is not used by cells (``num_cpus=0``), so the node's CPU count changes nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..accelerators import Accelerator, is_present
from ..errors import UsageError
from ..profiles import PINNED_PROFILES

__all__ = [
    "ENGINES",
    "SLOT",
    "NodeCapabilities",
    "advertised_accelerators",
    "advertised_name",
    "cell_resources",
    "check_node_name",
    "detect_capabilities",
    "is_node_name",
    "node_name_resource",
    "serves",
]

SLOT = "portbench:slot"
ENGINES = ("docker", "venv", "host")
#: Node names become resource names and docker labels: keep them plain.
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$")


@dataclass(frozen=True)
class NodeCapabilities:
    """What one node can serve."""

    name: str
    accelerators: tuple[str, ...]
    engines: tuple[str, ...]
    profiles: tuple[str, ...]

    def resources(self) -> dict[str, float]:
        """The custom resources ``ray start --resources`` advertises (a node with no engine,
        such as a head that only schedules, advertises its name alone)."""
        if not self.engines:
            return {node_name_resource(self.name): 1.0}
        names = [SLOT, node_name_resource(self.name)]
        names += [f"accel:{a}" for a in self.accelerators]
        names += [f"engine:{e}" for e in self.engines]
        names += [f"profile:{p}" for p in self.profiles]
        return dict.fromkeys(names, 1.0)


def check_node_name(name: str) -> str:
    if not _NAME.match(name):
        raise UsageError(
            f"node name {name[:80]!r} is not usable: letters, digits, '.', '_' and '-', at most "
            "63 characters, starting with a letter or digit"
        )
    return name


def is_node_name(name: object) -> bool:
    """Whether ``name`` is a node name ``portbench node start`` would accept."""
    return isinstance(name, str) and _NAME.match(name) is not None


def node_name_resource(name: str) -> str:
    return f"portbench-node:{name}"


def advertised_name(resources: Iterable[str]) -> str | None:
    """The node name a node advertises among its Ray resources, or None where it advertises
    none that ``portbench node start`` would accept.

    Anyone who can join the cluster can start Ray by hand and advertise any resource name
    (Ray accepts ``portbench-node:a/../../x``), so the name is checked here, where the head
    reads it, and a bad one counts as no name at all.
    """
    prefix = node_name_resource("")
    for key in resources:
        if isinstance(key, str) and key.startswith(prefix) and is_node_name(key[len(prefix) :]):
            return key[len(prefix) :]
    return None


def _engine_ok(engine: str) -> bool:
    from ..backends import make_backend

    try:
        ok, _why = make_backend(engine).available()
    except (ImportError, UsageError):
        return False
    return ok


def _profiles_for(engines: Sequence[str]) -> list[str]:
    """Pinned profiles need docker, or venv with the profile's Python here; host needs host."""
    found: list[str] = []
    if "docker" in engines:
        found += PINNED_PROFILES
    elif "venv" in engines:
        from ..backends.venv import find_python
        from ..images.profiles import load_profiles

        found += [p.name for p in load_profiles().values() if find_python(p.python)]
    if "host" in engines:
        found.append("host")
    return found


def detect_capabilities(
    name: str,
    table: Mapping[str, Accelerator],
    engines: Sequence[str] | None = None,
    profiles: Sequence[str] | None = None,
) -> NodeCapabilities:
    """What this machine can serve: the accelerators ``doctor`` finds, the engines that
    answer (or ``engines``), and the profiles those engines can run (or ``profiles``)."""
    check_node_name(name)
    accelerators = tuple(acc.id for acc in table.values() if is_present(acc)[0])
    for engine in engines or ():
        if engine not in ENGINES:
            raise UsageError(f"unknown engine '{engine}' (known: {', '.join(ENGINES)})")
    chosen = tuple(engines) if engines else tuple(e for e in ENGINES if _engine_ok(e))
    servable = _profiles_for(chosen)
    if profiles:
        unknown = [p for p in profiles if p not in servable]
        if unknown:
            raise UsageError(
                f"this node cannot run profile {', '.join(unknown)} with engine "
                f"{', '.join(chosen) or 'none'} (it can run: {', '.join(servable) or 'none'}); "
                "drop --profiles or add the engine"
            )
        servable = list(profiles)
    return NodeCapabilities(name, accelerators, chosen, tuple(dict.fromkeys(servable)))


def cell_resources(accelerator: str, profile: str, backend: str) -> dict[str, float]:
    """What a cell's Ray task needs: a node's slot, its accelerator and profile (and the
    backend, when one is named rather than ``auto``)."""
    needed = {SLOT: 1.0, f"accel:{accelerator}": 1.0, f"profile:{profile}": 1.0}
    if backend != "auto":
        needed[f"engine:{backend}"] = 1.0
    return needed


def serves(totals: Mapping[str, float], needed: Mapping[str, float]) -> bool:
    """Whether a node with resource ``totals`` could ever run a task needing ``needed``."""
    return all(totals.get(name, 0.0) >= amount for name, amount in needed.items())


def advertised_accelerators(
    nodes: Iterable[Mapping[str, float]], table: Mapping[str, Accelerator]
) -> list[str]:
    """Per node, the most specific accelerator of each flavor it advertises (gpu-t4 rather
    than gpu); the union, in the table's order: the cells a matrix runs by default."""
    chosen: set[str] = set()
    for totals in nodes:
        best: dict[str, Accelerator] = {}
        for acc in table.values():
            if totals.get(f"accel:{acc.id}", 0.0) < 1.0:
                continue
            current = best.get(acc.flavor)
            if current is None or (acc.device_match and not current.device_match):
                best[acc.flavor] = acc
        chosen.update(acc.id for acc in best.values())
    return [ident for ident in table if ident in chosen]
