"""The jax ROCm image as this machine can build it: on the debootstrap base, without AMD's
ROCm user space. It must build, say what it lacks (the plugin's ROCm 7 libraries), refuse a
rocm cell in one sentence, and still lower programs for ROCm (what issue 30's predictions
use): everything here but running on an AMD GPU."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import RUNNERS

from integration.image_ledger import ImageLedger

pytestmark = pytest.mark.docker

LOAD = (
    "from portbench_runner.adapters import make_adapter\n"
    "a = make_adapter('jax', 'rocm', {'id': 'rocm', 'flavor': 'rocm', 'device_match': '', "
    "'generic': 'rocm'})\n"
    "try:\n    a.load()\nexcept Exception as e:\n    print(type(e).__name__, e)\n"
)
LOWER = (
    "import re, jax, jax.numpy as jnp\n"
    "x = jnp.ones((4, 4))\n"
    "text = jax.jit(jnp.linalg.eig).trace(x).lower(lowering_platforms=('rocm',)).as_text()\n"
    "print(sorted(set(re.findall(r'custom_call @([A-Za-z0-9_]+)', text))))\n"
)


@pytest.fixture(scope="module")
def jax_rocm_image(docker_client: Any, bookworm_base: str, image_ledger: ImageLedger) -> str:
    from portbench.images.build import ensure_image, image_spec

    spec = image_spec("jax", "rocm", "current", base="portbench/base:bookworm")
    image = ensure_image(spec, lambda line: None, client=docker_client)
    if image.built:
        image_ledger.created(image.id)
    return image.tag


def _run(client: Any, tag: str, *command: str) -> str:
    out = client.containers.run(
        tag,
        list(command),
        volumes={str(RUNNERS): {"bind": "/portbench/runners", "mode": "ro"}},
        environment={"PYTHONPATH": "/portbench/runners"},
        network_mode="none",
        remove=True,
        stderr=False,
    )
    return bytes(out).decode()


def test_the_image_says_it_lacks_rocms_user_space(docker_client: Any, jax_rocm_image: str) -> None:
    missing = _run(docker_client, jax_rocm_image, "cat", "/etc/portbench/rocm-runtime-missing")
    assert {"libamdhip64.so.7", "librocblas.so.5", "libMIOpen.so.1"} <= set(missing.split())


def test_a_rocm_cell_in_it_is_refused_in_one_sentence(
    docker_client: Any, jax_rocm_image: str
) -> None:
    said = _run(docker_client, jax_rocm_image, "python", "-c", LOAD).strip().splitlines()[-1]
    assert said.startswith("DeviceMissing jax 0.10.2 has no 'rocm' backend: ")


def test_it_lowers_for_rocm_without_the_gpu(docker_client: Any, jax_rocm_image: str) -> None:
    kernels = _run(docker_client, jax_rocm_image, "python", "-c", LOWER).strip().splitlines()[-1]
    assert kernels == "['hiphybrid_eig_real']"
