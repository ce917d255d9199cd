"""Refreshing current: what torch's CPU lock may move to, and current's inputs pin what its
locks pin (the dry run against PyPI is in tests/network/)."""

from __future__ import annotations

from portbench.images.lockgen import LOCK_INPUTS, PYTORCH_CPU_INDEX, current_version
from portbench.images.refresh import torch_cpu_choice


def test_torchs_cpu_lock_moves_as_far_as_pytorchs_index_or_the_wheelhouse_allows() -> None:
    newest = ["2.15.0", "2.14.1", "2.14.0", "2.13.0"]
    # The index answers (a user's machine): every newer release, from it.
    assert torch_cpu_choice(True, newest, [], None) == (newest, "cpu", "")
    # It does not (here, CI): the wheelhouse's +cpu wheels only, and the gap said.
    tried, backend, note = torch_cpu_choice(False, newest, ["2.13.0"], "/opt/wheels")
    assert (tried, backend) == (["2.13.0"], None)
    assert f"PyTorch's CPU index ({PYTORCH_CPU_INDEX}) does not answer from here" in note
    assert "newest +cpu wheel in /opt/wheels is 2.13.0" in note
    assert "torch 2.15.0 is reached as a release cell (--release torch==2.15.0" in note
    # No wheelhouse: nothing to move to; never PyPI's CUDA build in a CPU lock.
    assert torch_cpu_choice(False, newest, [], None)[0] == []


def test_currents_inputs_pin_what_its_locks_pin() -> None:
    # `images lock` re-resolves the versions the locks hold; only `images refresh` moves them.
    for (profile, framework, flavor), spec in LOCK_INPUTS.items():
        if profile == "current":
            assert any(current_version(framework, flavor) in r for r in spec.requirements)
