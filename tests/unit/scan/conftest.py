"""A small project written by the tests: the shapes of code the scanner must resolve."""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import pytest

FILES = {
    "pkg/__init__.py": """
        from .ops import relu as my_relu
        from .layers import *
    """,
    "pkg/ops.py": """
        import torch.nn.functional as F
        from jax import numpy as jnp

        relu = F.relu


        def total(y):
            return jnp.sum(y)
    """,
    "pkg/layers.py": """
        from torch.nn import Linear, Conv2d

        __all__ = ["Linear"]
    """,
    "pkg/sub/__init__.py": "",
    "pkg/sub/model.py": """
        import torch
        from torch import nn

        from ..ops import relu
        from .. import my_relu, Linear
        from pkg import my_relu as again


        def run(f, y):
            x = torch.zeros(3)
            x.apply_(f)
            torch.Tensor.apply_(x, f)
            y.apply_(f)
            relu(x)
            my_relu(x)
            again(x)
            layer = Linear(2, 2)
            layer.to("cpu")
            z = torch.zeros(2)
            z = z + 1
            z.apply_(f)
            torch.not_a_function(x)


        class Model(nn.Module):
            def setup(self):
                self.register_buffer("b", torch.ones(1))
                self.act = nn.ReLU()
                self.act.extra_repr()
    """,
    "pkg/sub/quiet.py": """
        import torch


        def run(f):
            x = torch.ones(3)
            x.apply_(f)  # portbench: ignore[fails]
            torch.cat([x, x])  # portbench: ignore
    """,
    "broken.py": "def broken(:\n    pass\n",
}

NOTEBOOK = {
    "cells": [
        {"cell_type": "markdown", "metadata": {}, "source": ["# A notebook\n"]},
        {
            "cell_type": "code",
            "metadata": {},
            "execution_count": 1,
            "outputs": [],
            "source": ["%matplotlib inline\n", "!pip install torch\n", "import torch\n"],
        },
        {
            "cell_type": "code",
            "metadata": {},
            "execution_count": 2,
            "outputs": [],
            "source": ["%%bash\n", "echo torch.cat\n"],
        },
        {
            "cell_type": "code",
            "metadata": {},
            "execution_count": 3,
            "outputs": [],
            "source": [
                "%%time\n",
                "files = !ls\n",
                "x = torch.cat([torch.ones(2)])\n",
                "torch.cat?\n",
            ],
        },
    ],
    "metadata": {},
    "nbformat": 4,
    "nbformat_minor": 5,
}


def write_project(root: Path) -> Path:
    """The test project under ``root/project``, with a link out of the tree beside it."""
    project = root / "project"
    for rel, text in FILES.items():
        path = project / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    (project / "analysis.ipynb").write_text(json.dumps(NOTEBOOK, indent=1), encoding="utf-8")
    outside = root / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text("import torch\ntorch.cat([])\n", encoding="utf-8")
    os.symlink(outside, project / "elsewhere")
    os.symlink(outside / "secret.py", project / "linked.py")
    return project


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write_project(tmp_path)
