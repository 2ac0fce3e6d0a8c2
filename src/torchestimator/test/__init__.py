"""`tf.test`: `TestCase` (unittest's, with TF's `assertAllClose`, `assertAllEqual`,
`assertAllInRange`, `evaluate`, ...), `main`, `compute_gradient`, `Benchmark`, and the
device queries (`is_gpu_available`, `is_built_with_cuda`, `gpu_device_name`, ...) over torch.
TF's graph helpers (`assert_equal_graph_def`, `create_local_cluster`) are refused by name."""

from __future__ import annotations

from torchestimator.test._test import (
    Benchmark,
    TestCase,
    assert_equal_graph_def,
    benchmark_config,
    compute_gradient,
    create_local_cluster,
    disable_with_predicate,
    experimental,
    gpu_device_name,
    is_built_with_cuda,
    is_built_with_gpu_support,
    is_built_with_rocm,
    is_built_with_xla,
    is_gpu_available,
    main,
    with_eager_op_as_function,
)

__all__ = [
    "Benchmark", "TestCase", "assert_equal_graph_def", "benchmark_config", "compute_gradient",
    "create_local_cluster", "disable_with_predicate", "experimental", "gpu_device_name",
    "is_built_with_cuda", "is_built_with_gpu_support", "is_built_with_rocm", "is_built_with_xla",
    "is_gpu_available", "main", "with_eager_op_as_function",
]
