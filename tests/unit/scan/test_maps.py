"""The API maps committed with portbench: one per framework, read back, with what scans rely on."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from portbench.errors import UsageError
from portbench.scan.apimap import ApiMap, available_maps, load_map


@pytest.fixture(scope="module")
def maps() -> dict[str, ApiMap]:
    found = available_maps()
    assert sorted(found) == ["jax", "tensorflow", "torch"]
    return {fw: load_map(rels[-1][1]) for fw, rels in found.items()}


@pytest.mark.parametrize(
    ("framework", "path", "kind", "canonical", "operators", "via"),
    [
        (
            "torch",
            "torch.nn.functional.relu",
            "function",
            "torch.nn.functional.relu",
            ("nn.functional.relu",),
            "opinfo",
        ),
        ("torch", "torch.Tensor.add", "method", "torch.Tensor.add", ("add",), "opinfo"),
        (
            "torch",
            "torch.nn.Linear",
            "class",
            "torch.nn.Linear",
            ("nn.functional.linear",),
            "traced",
        ),
        ("torch", "torch.nn.Linear.to", "method", "torch.nn.Module.to", (), None),
        ("jax", "jax.numpy.linalg.eig", "function", "jax.numpy.linalg.eig", ("eig",), "traced"),
        ("jax", "jax.numpy.dot", "function", "jax.numpy.dot", ("dot_general",), "traced"),
        ("tensorflow", "tensorflow.math.add", "function", "tensorflow.add", ("AddV2",), "traced"),
        ("tensorflow", "tensorflow.nn.relu", "function", "tensorflow.nn.relu", ("Relu",), "traced"),
    ],
)
def test_known_apis_and_their_operators(
    maps: dict[str, ApiMap],
    framework: str,
    path: str,
    kind: str,
    canonical: str,
    operators: tuple[str, ...],
    via: str | None,
) -> None:
    found = maps[framework].lookup(path)
    assert found is not None
    assert (found.kind, found.canonical) == (kind, canonical)
    assert maps[framework].operators(found.canonical) == (operators, via)


def test_returns_make_receivers_known(maps: dict[str, ApiMap]) -> None:
    assert maps["torch"].returns["torch.zeros"] == "torch.Tensor"
    assert maps["jax"].returns["jax.numpy.zeros"] == "jax.Array"
    assert maps["tensorflow"].returns["tensorflow.add"] == "tensorflow.Tensor"
    assert "view" in maps["torch"].method_names({"torch.Tensor"})


def test_modules_and_data_are_not_unknown(maps: dict[str, ApiMap]) -> None:
    torch = maps["torch"]
    assert torch.lookup("torch.nn").kind == "module"  # type: ignore[union-attr]
    assert torch.lookup("torch.float32").kind == "attribute"  # type: ignore[union-attr]
    assert torch.lookup("torch.not_a_function") is None


def test_a_damaged_map_is_one_sentence(tmp_path: Path) -> None:
    bad = tmp_path / "torch-9.9.json.gz"
    bad.write_bytes(gzip.compress(b'{"kind": "something else"}'))
    with pytest.raises(UsageError, match="not an API map"):
        load_map(bad)
    bad.write_bytes(b"not gzip")
    with pytest.raises(UsageError, match="not a readable API map"):
        load_map(bad)
    # Another schema is named, cut short (the file may be anyone's), with how to fix it.
    bad.write_bytes(gzip.compress(b'{"kind": "scan-map", "schema": "' + b"9" * 5000 + b'"}'))
    with pytest.raises(UsageError, match=r"API map schema '9+… is not") as caught:
        load_map(bad)
    assert len(str(caught.value)) < 300 and "portbench scan-map" in str(caught.value)
