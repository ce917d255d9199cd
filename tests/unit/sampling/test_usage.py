"""Counting uses in one file: imports resolved, import lines, strings and comments ignored."""

from __future__ import annotations

import textwrap

import pytest

from portbench.sampling.usage import NameIndex, count_file

TORCH = NameIndex.build(
    "torch",
    [
        ("torch.nn.Linear", ["torch.nn.modules.linear.Linear"]),
        ("torch.cat", []),
        ("torch.nn.functional.relu", []),
        ("torch.Tensor", []),
        ("torch.Tensor.size", []),
    ],
)


def _count(source: str, index: NameIndex = TORCH) -> tuple[dict[str, int], dict[str, int], str]:
    usage = count_file(textwrap.dedent(source).encode(), index)
    assert usage is not None
    return dict(usage.uses), dict(usage.identifiers), usage.method


@pytest.mark.parametrize(
    "source",
    [
        "import torch\ntorch.nn.Linear(1, 2)\n",
        "import torch.nn\ntorch.nn.Linear(1, 2)\n",
        "import torch.nn as nn\nnn.Linear(1, 2)\n",
        "from torch import nn\nnn.Linear(1, 2)\n",
        "from torch.nn import Linear\nLinear(1, 2)\n",
        "from torch.nn import Linear as L\nL(1, 2)\n",
        "from torch.nn.modules.linear import Linear\nLinear(1, 2)\n",
        "from torch.nn import *\nLinear(1, 2)\n",
        "import torch\nclass M(torch.nn.Linear):\n    pass\n",
        "import torch.nn as nn\nnn.Linear.forward(m, x)\n",
    ],
)
def test_every_import_form_resolves_to_the_canonical_name(source: str) -> None:
    uses, _, method = _count(source)
    assert uses == {"torch.nn.Linear": 1}
    assert method == "ast"


def test_imports_strings_comments_and_annotations_are_not_uses() -> None:
    uses, identifiers, _ = _count(
        """
        import torch
        from torch import cat  # torch.cat
        s = "torch.cat(x)"
        def f(x: torch.Tensor) -> torch.Tensor:
            y: torch.Tensor = x
            return y
        """
    )
    assert uses == {}
    assert identifiers == {}


def test_identifiers_count_every_loaded_name_like_the_study() -> None:
    uses, identifiers, _ = _count(
        """
        import torch
        x = torch.zeros(3)
        n = x.size(0) + x.size(1)
        size = 3
        """
    )
    # x.size(...) cannot be resolved without types, but the study's identifier count sees it.
    assert uses == {}
    assert identifiers == {"size": 2}


def test_files_that_do_not_import_the_framework_are_skipped() -> None:
    assert count_file(b"import numpy as np\nnp.cat = 1\ncat(1)\n", TORCH) is None
    # The text matches the import filter, but only inside a string: no import, no count.
    assert count_file(b'doc = """\nimport torch\n"""\ntorch.cat(1)\n', TORCH) is None


def test_tokenize_fallback_counts_what_ast_would() -> None:
    body = """
        import torch
        import torch.nn as nn
        from torch.nn import functional as F
        # torch.cat(x) in a comment
        s = "torch.cat(x)"
        class M(nn.Module):
            def forward(self, x):
                return F.relu(torch.cat([x, x]).size())
        """
    parsed = _count(body)
    fallback = _count(body + "print 'python 2'\n")
    assert parsed[2] == "ast"
    assert fallback[2] == "tokenize"
    assert parsed[0] == fallback[0] == {"torch.nn.functional.relu": 1, "torch.cat": 1}
    assert parsed[1] == fallback[1]


def test_common_aliases_of_each_framework() -> None:
    tf = NameIndex.build(
        "tensorflow", [("tensorflow.reshape", []), ("tensorflow.compat.v1.placeholder", [])]
    )
    uses, _, _ = _count(
        "import tensorflow as tf\nimport tensorflow.compat.v1 as v1\ntf.reshape(x)\nv1.placeholder()\n",
        tf,
    )
    assert uses == {"tensorflow.reshape": 1, "tensorflow.compat.v1.placeholder": 1}
    jax = NameIndex.build("jax", [("jax.numpy.sum", []), ("jax.jit", [])])
    uses, _, _ = _count(
        "import jax\nimport jax.numpy as jnp\n@jax.jit\ndef f(x):\n    return jnp.sum(x)\n", jax
    )
    assert uses == {"jax.numpy.sum": 1, "jax.jit": 1}
