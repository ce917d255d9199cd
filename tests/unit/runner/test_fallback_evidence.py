"""The framework-free half of fallback forensics: readers of lowered programs, placement
lists and counters, the evidence's bounds, and the plan's settings."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from portbench_runner import fallback

SCHEMAS = Path(__file__).resolve().parents[3] / "src" / "portbench" / "schemas"

# Trimmed from `jax.jit(jnp.linalg.eig).trace(x).lower(lowering_platforms=("cuda",))`
# with jax 0.10.2 on a machine without CUDA.
EIG_FOR_CUDA = """
module @jit_eig attributes {mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<4x4xf64>) -> (tensor<4xcomplex<f64>>) {
    %0:5 = stablehlo.custom_call @cuhybrid_eig_real(%arg0) {api_version = 4 : i32}
  }
}
"""
SQRT = "func.func public @main(%arg0: tensor<4xf32>) { %0 = stablehlo.sqrt %arg0 : tensor<4xf32> }"
HOST_MEMORY = (
    '-> (tensor<4xf32> {mhlo.memory_kind = "pinned_host"}) {\n'
    "%2 = stablehlo.custom_call @annotate_device_placement(%1) {has_side_effect = true}\n"
    '%3 = stablehlo.multiply %a, %b {mhlo.frontend_attributes = {_xla_compute_type = "host"}}'
)


def test_the_hybrid_eig_kernel_is_host_work() -> None:
    assert fallback.jax_host_work(EIG_FOR_CUDA) == [("hybrid_kernel", "cuhybrid_eig_real")]


def test_a_device_only_program_has_no_host_work() -> None:
    assert fallback.jax_host_work(SQRT) == []


def test_callbacks_lapack_and_host_memory_are_named() -> None:
    text = (
        "stablehlo.custom_call @xla_ffi_python_gpu_callback(%0)\n"
        "stablehlo.custom_call @lapack_dgeev_ffi(%0)\n" + HOST_MEMORY
    )
    kinds = [kind for kind, _ in fallback.jax_host_work(text)]
    assert kinds == ["host_callback", "host_library", "host_memory", "host_compute"]


def test_tensorflow_ops_off_the_target_device_are_host_work() -> None:
    executed = [
        ("MatMul", "/job:localhost/replica:0/task:0/device:GPU:0"),
        ("MatrixInverse", "/job:localhost/replica:0/task:0/device:CPU:0"),
        ("Identity", ""),
    ]
    assert fallback.tf_host_work(executed, "GPU") == [
        ("op_on_other_device", "MatrixInverse on /job:localhost/replica:0/task:0/device:CPU:0")
    ]
    assert fallback.tf_host_work(executed[:1], "GPU") == []


def test_only_aten_counters_that_rose_count() -> None:
    before = {"aten::nonzero": 2, "aten::poisson": 0}
    after = {"aten::nonzero": 2, "aten::poisson": 3, "aten::_local_scalar_dense": 1, "Other": 9}
    assert fallback.xla_counter_delta(before, after) == [
        ("aten_fallback", "aten::_local_scalar_dense +1"),
        ("aten_fallback", "aten::poisson +3"),
    ]


def test_evidence_is_bounded_and_deduplicated() -> None:
    work = [("hybrid_kernel", f"k{i}" * 500) for i in range(40)] + [("hybrid_kernel", "k0" * 500)]
    found = fallback.evidence("jax-lowering", "cuda", work)
    assert found["fallback"] is True
    assert len(found["host_work"]) == fallback.HOST_WORK_ITEMS
    assert found["host_work_dropped"] == 40 - fallback.HOST_WORK_ITEMS
    assert all(len(item["what"]) <= 240 for item in found["host_work"])
    assert len(json.dumps(found)) < 8 * 1024


def test_host_work_on_a_host_target_is_no_fallback() -> None:
    found = fallback.evidence("jax-lowering", "cpu", [("host_callback", "cb")], target_is_host=True)
    assert found["fallback"] is False and found["host_work"]


def test_unseen_is_unknown_not_clean() -> None:
    found = fallback.unseen("tf-placement", "GPU", "a call that changes state is not run again")
    assert found["seen"] is False and found["fallback"] is None


def test_plan_settings_default_to_mark_without_soft_placement() -> None:
    assert fallback.settings_from_plan({}) == {
        "mode": "mark",
        "soft_placement": False,
        "lower_for": None,
    }
    given = {"fallback": {"mode": "fail", "soft_placement": True, "lower_for": "cuda"}}
    assert fallback.settings_from_plan(given) == given["fallback"]


def test_what_a_case_could_plant_is_cut_back_to_the_schema() -> None:
    planted = {
        "probe": "jax-lowering",
        "platform": "cuda",
        "seen": True,
        "fallback": True,
        "host_work": [{"kind": "k" * 99, "what": "w" * 9999}, "not an item"],
        "host_work_dropped": -5,
        "nested": {"big": "x" * 100000},
        "ops_seen": 3,
    }
    cleaned = fallback.clean_evidence(planted)
    assert cleaned is not None
    assert cleaned["fallback"] is True and cleaned["ops_seen"] == 3
    assert "nested" not in cleaned and cleaned["host_work_dropped"] == 0
    item = cleaned["host_work"][0]
    assert len(item["kind"]) <= 70 and len(item["what"]) <= 240
    schema = json.loads((SCHEMAS / "record.schema.json").read_text())["properties"]["evidence"]
    jsonschema.validate(cleaned, schema, cls=jsonschema.Draft202012Validator)
    assert fallback.clean_evidence({"fallback": True}) is None
    unseen = fallback.clean_evidence({**planted, "seen": False})
    assert unseen is not None and unseen["fallback"] is None


def test_torch_cuda_round_trips_count_but_a_result_leaving_does_not() -> None:
    # Event names as the profiler (kineto) writes them, in time order.
    eig = [
        "aten::linalg_eig",
        "Memcpy DtoH (Device -> Pageable)",
        "aten::_linalg_eig",
        "Memcpy HtoD (Pageable -> Device)",
        "Memcpy HtoD (Pageable -> Device)",
    ]
    assert fallback.torch_cuda_host_work(eig) == [
        ("host_round_trip", "device-to-host then host-to-device copies x1")
    ]
    item = ["aten::sum", "void reduce_kernel<...>", "Memcpy DtoH (Device -> Pageable)"]
    assert fallback.torch_cuda_host_work(item) == []
    assert fallback.torch_cuda_host_work(["Memcpy HtoD (Pageable -> Device)"]) == []
