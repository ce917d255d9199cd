"""Evidence of where a measured call's work ran, and the rule that turns it into a mark.

An output can come back on the accelerator while the work ran on the host (JAX's hybrid
eig kernel, torch_xla's ``aten::`` fallbacks, TensorFlow under soft placement). Each
adapter looks in its own way; this module holds what they share, framework-free:
the bounded evidence object, the readers of the texts and counters the frameworks
give, and the plan's setting (``fallback``: mark or fail).

Evidence (the record's ``evidence`` field, schema 2)::

    {"probe": "jax-lowering", "platform": "cuda", "seen": true, "fallback": true,
     "host_work": [{"kind": "hybrid_kernel", "what": "cuhybrid_eig_real"}],
     "host_work_dropped": 0, "note": "..."}

``seen`` false means the probe could not look (``note`` says why); ``fallback`` is then
null, never false, so "not seen" is not read as "on the device".
"""

from __future__ import annotations

import re
from typing import Dict, Iterable, List, Mapping, Optional, Tuple

from .bounds import clip
from .contract.fields import JSONObject

__all__ = [
    "FALLBACK_MODES",
    "HOST_WORK_ITEMS",
    "clean_evidence",
    "evidence",
    "jax_host_work",
    "settings_from_plan",
    "tf_executed_devices",
    "tf_host_work",
    "torch_cuda_host_work",
    "unseen",
    "xla_counter_delta",
]

FALLBACK_MODES = ("mark", "fail")
#: Host-work items kept per case; the rest are counted in ``host_work_dropped``.
HOST_WORK_ITEMS = 16
WHAT_CHARS = 200
NOTE_CHARS = 500


def settings_from_plan(plan: Mapping[str, object]) -> JSONObject:
    """The plan's fallback settings with their defaults (an older plan has none)."""
    raw = plan.get("fallback")
    given: Mapping[str, object] = raw if isinstance(raw, dict) else {}
    mode = given.get("mode", "mark")
    lower_for = given.get("lower_for")
    return {
        "mode": mode if mode in FALLBACK_MODES else "mark",
        "soft_placement": bool(given.get("soft_placement", False)),
        "lower_for": lower_for if isinstance(lower_for, str) else None,
    }


def evidence(
    probe: str,
    platform: str,
    host_work: Iterable[Tuple[str, str]],
    target_is_host: bool = False,
    note: str = "",
    extra: Optional[Mapping[str, object]] = None,
    dropped_before: int = 0,
) -> JSONObject:
    """Bounded evidence from a probe that looked; a fallback when host work was found
    and the target is not the host itself (a CPU cell cannot fall back to the CPU).
    ``dropped_before`` counts items a probe had already left out."""
    items: List[Dict[str, str]] = []
    dropped = dropped_before
    seen_items = set()
    for kind, what in host_work:
        key = (kind, what)
        if key in seen_items:
            continue
        seen_items.add(key)
        if len(items) < HOST_WORK_ITEMS:
            items.append({"kind": kind, "what": clip(what, WHAT_CHARS)})
        else:
            dropped += 1
    found: JSONObject = {
        "probe": probe,
        "platform": platform,
        "seen": True,
        "fallback": bool(items) and not target_is_host,
        "host_work": items,
        "host_work_dropped": dropped,
    }
    if note:
        found["note"] = clip(note, NOTE_CHARS)
    if extra:
        found.update(extra)
    return found


def unseen(probe: str, platform: str, why: str) -> JSONObject:
    """Evidence of a probe that could not look: ``fallback`` is unknown, not false."""
    return {
        "probe": probe,
        "platform": platform,
        "seen": False,
        "fallback": None,
        "host_work": [],
        "host_work_dropped": 0,
        "note": clip(why, NOTE_CHARS),
    }


_EXTRA_KINDS = (bool, int, float, str, type(None))


def clean_evidence(value: object) -> Optional[JSONObject]:
    """``value`` cut back to the evidence shape the host's schema accepts, or None.

    The supervisor calls this on what the worker reports: the case's own code could have
    replaced ``ctx.evidence``, and a record the host refuses would lose the case."""
    if not isinstance(value, dict):
        return None
    probe, note = value.get("probe"), value.get("note")
    if not isinstance(probe, str):
        return None
    work = value.get("host_work")
    pairs = [
        (clip(str(item.get("kind", "")), 40), str(item.get("what", "")))
        for item in (work if isinstance(work, list) else [])
        if isinstance(item, dict)
    ]
    seen = value.get("seen") is True
    dropped = value.get("host_work_dropped")
    planted = dropped if isinstance(dropped, int) and not isinstance(dropped, bool) else 0
    platform = clip(str(value.get("platform", "")), 40)
    cleaned = evidence(clip(probe, 100), platform, pairs, dropped_before=max(planted, 0))
    cleaned["seen"] = seen
    fell_back = value.get("fallback")
    cleaned["fallback"] = fell_back if seen and isinstance(fell_back, bool) else None
    if isinstance(note, str):
        cleaned["note"] = clip(note, NOTE_CHARS)
    # Small scalar facts a probe adds (ops_seen, soft_placement), a few at most.
    extras = [k for k in value if k not in cleaned and isinstance(value[k], _EXTRA_KINDS)]
    for key in extras[:16]:
        item = value[key]
        cleaned[clip(str(key), 40)] = clip(item, 200) if isinstance(item, str) else item
    return cleaned


# -- JAX: the program lowered for the target platform ---------------------------------

_CUSTOM_CALL = re.compile(r"custom_call\s*@([A-Za-z0-9_.$-]+)")
# Custom calls that run on the host while the program targets a device: Python callbacks
# (pure_callback, io_callback, debug.print), the hybrid kernels that call LAPACK on the
# host (eig on CUDA/ROCm without a device geev), and LAPACK itself on a non-CPU platform.
_HOST_CALLS = (
    (re.compile(r"callback", re.IGNORECASE), "host_callback"),
    (re.compile(r"hybrid", re.IGNORECASE), "hybrid_kernel"),
    (re.compile(r"^lapack_", re.IGNORECASE), "host_library"),
)
# Data or compute placed in host memory inside the program: jax.device_put to
# Space.Host, compute_on("device_host"), host send/recv.
_HOST_MARKS = (
    (re.compile(r'memory_kind\s*=\s*"(pinned_host|unpinned_host)"'), "host_memory"),
    (re.compile(r'_xla_compute_type\s*=\s*"host"'), "host_compute"),
    (re.compile(r"is_host_transfer\s*=\s*true"), "host_transfer"),
)


def jax_host_work(module_text: str) -> List[Tuple[str, str]]:
    """(kind, what) for each sign of host work in a lowered JAX program's text."""
    found: List[Tuple[str, str]] = []
    for name in _CUSTOM_CALL.findall(module_text):
        for pattern, kind in _HOST_CALLS:
            if pattern.search(name):
                found.append((kind, name))
                break
    for pattern, kind in _HOST_MARKS:
        count = len(pattern.findall(module_text))
        if count:
            found.append((kind, f"{pattern.pattern.split('=')[0].strip()} x{count}"))
    return found


# -- TensorFlow: the device each executed op ran on ------------------------------------

# TF's placement log: "Executing op MatMul in device /job:localhost/replica:0/task:0/device:CPU:0"
_TF_EXECUTED = re.compile(r"Executing op (\S+) in device (\S+)")
_TF_KIND = re.compile(r"device:([A-Za-z_]+):\d+", re.IGNORECASE)


def tf_executed_devices(log_text: str) -> List[Tuple[str, str]]:
    """(op, device) per op TensorFlow's placement log says it executed."""
    return [(op, device) for op, device in _TF_EXECUTED.findall(log_text)]


def tf_host_work(executed: Iterable[Tuple[str, str]], target_kind: str) -> List[Tuple[str, str]]:
    """Executed ops whose device kind is not the target's (``GPU``, ``TPU``, ``CPU``)."""
    found = []
    for op, device in executed:
        match = _TF_KIND.search(device)
        if match is not None and match.group(1).upper() != target_kind.upper():
            found.append(("op_on_other_device", f"{op} on {device}"))
    return found


# -- torch_xla: the aten:: fallback counters -------------------------------------------


def xla_counter_delta(before: Mapping[str, int], after: Mapping[str, int]) -> List[Tuple[str, str]]:
    """(kind, "aten::op +n") for each ``aten::`` counter that rose across the call."""
    found = []
    for name in sorted(after):
        if not name.startswith("aten::"):
            continue
        rise = int(after[name]) - int(before.get(name, 0))
        if rise > 0:
            found.append(("aten_fallback", f"{name} +{rise}"))
    return found


# -- torch on CUDA: the profiler's copies ------------------------------------------------

_DTOH = re.compile(r"memcpy\s*dtoh", re.IGNORECASE)
_HTOD = re.compile(r"memcpy\s*htod", re.IGNORECASE)


def torch_cuda_host_work(events: Iterable[str]) -> List[Tuple[str, str]]:
    """Host round trips in the profiler's event names, in time order: a device-to-host copy
    followed by a host-to-device one means data went to the host inside the call and came
    back (linalg.eig copies its input to the CPU for MAGMA's geev). A lone device-to-host
    copy (``.item()``, a Python scalar result) is not counted: it is the result's way out."""
    trips = 0
    pending = False
    for name in events:
        if _DTOH.search(name):
            pending = True
        elif pending and _HTOD.search(name):
            trips += 1
            pending = False
    return (
        [("host_round_trip", f"device-to-host then host-to-device copies x{trips}")]
        if trips
        else []
    )
