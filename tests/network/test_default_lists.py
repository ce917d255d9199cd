"""The default sweep lists over PyPI's real listings: what the docs promise, whatever has been
released since."""

from __future__ import annotations

import pytest

from portbench.releases.defaults import default_releases

pytestmark = pytest.mark.network


def test_pypis_default_lists_follow_the_rules(pypi: None) -> None:
    jax = [r.version for r in default_releases("jax")]
    assert jax[:6] == ["0.4.13", "0.4.20", "0.4.25", "0.4.30", "0.4.35", "0.4.38"]
    assert "0.5.3" in jax and "0.10.2" in jax
    tensorflow = [r.version for r in default_releases("tensorflow")]
    assert tensorflow[:3] == ["2.11.1", "2.12.1", "2.13.1"] and "2.21.0" in tensorflow
    torch = [r.version for r in default_releases("torch")]
    assert torch[:3] == ["1.12.1", "1.13.1", "2.0.1"] and "2.15.0" in torch
    for versions in (jax, tensorflow, torch):  # one per minor after JAX's 0.4 extras
        minors = [tuple(v.split(".")[:2]) for v in versions if not v.startswith("0.4.")]
        assert len(minors) == len(set(minors))
