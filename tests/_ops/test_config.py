"""tf.config: devices, threading, determinism, how tf.functions run."""

import os

import pytest
import torch

import torchestimator as tf
from torchestimator._engine import loop


def gpu_count():
    return torch.cuda.device_count() if torch.cuda.is_available() else 0


def test_physical_and_logical_devices():
    devices = tf.config.list_physical_devices()
    assert devices[0] == tf.config.PhysicalDevice(name="/physical_device:CPU:0", device_type="CPU")
    assert devices[0].name == "/physical_device:CPU:0" and devices[0].device_type == "CPU"
    assert tf.config.list_physical_devices("CPU") == devices[:1]
    assert tf.config.list_physical_devices("cpu") == []  # TF's device types are case-sensitive
    gpus = tf.config.list_physical_devices("GPU")
    assert [g.name for g in gpus][:gpu_count()] == [f"/physical_device:GPU:{i}" for i in range(gpu_count())]
    logical = tf.config.list_logical_devices()
    assert logical[0] == tf.config.LogicalDevice("/device:CPU:0", "CPU")
    assert tf.config.get_visible_devices() == devices
    assert tf.config.experimental.list_physical_devices is tf.config.list_physical_devices


def test_hiding_gpus_sends_training_to_the_cpu(monkeypatch):
    monkeypatch.delenv("TORCHESTIMATOR_DEVICE", raising=False)
    try:
        tf.config.set_visible_devices([], "GPU")
        assert tf.config.get_visible_devices("GPU") == []
        assert tf.config.list_logical_devices("GPU") == []
        assert loop.default_device() == torch.device("cpu")
        with tf.device("/GPU:0"):
            assert torch.zeros(1).device.type == "cpu"
    finally:
        tf.config.set_visible_devices(tf.config.list_physical_devices())
    assert "TORCHESTIMATOR_DEVICE" not in os.environ
    assert tf.config.get_visible_devices() == tf.config.list_physical_devices()


def test_visible_devices_errors(monkeypatch):
    monkeypatch.delenv("TORCHESTIMATOR_DEVICE", raising=False)
    with pytest.raises(ValueError, match="CPU cannot be hidden"):
        tf.config.set_visible_devices([], "CPU")
    with pytest.raises(ValueError, match="Unrecognized device"):
        tf.config.set_visible_devices([tf.config.PhysicalDevice("/physical_device:GPU:99", "GPU")])


def test_memory_growth_and_device_details():
    cpu = tf.config.list_physical_devices("CPU")[0]
    with pytest.raises(ValueError, match="non-GPU"):
        tf.config.experimental.set_memory_growth(cpu, True)
    assert tf.config.experimental.get_memory_info("CPU:0") == {"current": 0, "peak": 0}
    assert tf.config.experimental.get_device_details(cpu) == {}
    if gpu_count() == 0:
        with pytest.raises(ValueError, match="No matching devices found for 'GPU:0'"):
            tf.config.experimental.get_memory_info("GPU:0")
    for gpu in tf.config.list_physical_devices("GPU"):
        tf.config.experimental.set_memory_growth(gpu, True)
        assert tf.config.experimental.get_memory_growth(gpu) is True


def test_logical_device_configuration_is_remembered():
    cpu = tf.config.list_physical_devices("CPU")[0]
    assert tf.config.get_logical_device_configuration(cpu) is None
    config = tf.config.LogicalDeviceConfiguration(memory_limit=10)
    assert config.memory_limit == 10 and config.experimental_priority is None
    tf.config.set_logical_device_configuration(cpu, [config])
    try:
        assert tf.config.get_logical_device_configuration(cpu) == [config]
    finally:
        tf.config.set_logical_device_configuration(cpu, None)


def test_threading():
    before = torch.get_num_threads()
    assert tf.config.threading.get_intra_op_parallelism_threads() == 0
    try:
        tf.config.threading.set_intra_op_parallelism_threads(1)
        assert torch.get_num_threads() == 1
        assert tf.config.threading.get_intra_op_parallelism_threads() == 1
    finally:
        tf.config.threading.set_intra_op_parallelism_threads(0)
    assert torch.get_num_threads() == before
    tf.config.threading.set_inter_op_parallelism_threads(2)  # applied if torch still allows it
    assert tf.config.threading.get_inter_op_parallelism_threads() == 2
    tf.config.threading.set_inter_op_parallelism_threads(0)
    with pytest.raises(ValueError, match="num_threads"):
        tf.config.threading.set_intra_op_parallelism_threads(-1)


def test_op_determinism(monkeypatch):
    monkeypatch.delenv("CUBLAS_WORKSPACE_CONFIG", raising=False)
    before = (torch.are_deterministic_algorithms_enabled(),
              torch.is_deterministic_algorithms_warn_only_enabled(), torch.backends.cudnn.benchmark)
    try:
        tf.config.experimental.enable_op_determinism()
        assert torch.are_deterministic_algorithms_enabled()
        assert not torch.is_deterministic_algorithms_warn_only_enabled()
        assert torch.backends.cudnn.benchmark is False
        assert os.environ["CUBLAS_WORKSPACE_CONFIG"] == ":4096:8"
    finally:  # as it was: a run that turned determinism on keeps it for the tests after this one
        torch.use_deterministic_algorithms(before[0], warn_only=before[1])
        torch.backends.cudnn.benchmark = before[2]


def test_tensor_float_32_switch():
    before = torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32
    try:
        tf.config.experimental.enable_tensor_float_32_execution(True)
        assert tf.config.experimental.tensor_float_32_execution_enabled() is True
        assert torch.backends.cudnn.allow_tf32 is True
        tf.config.experimental.enable_tensor_float_32_execution(False)
        assert tf.config.experimental.tensor_float_32_execution_enabled() is False
        assert torch.backends.cudnn.allow_tf32 is False
    finally:  # both, or the rest of the run's convolutions would change precision on a GPU
        torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = before


def test_run_functions_eagerly_and_jit_switches():
    assert tf.config.functions_run_eagerly() is False
    tf.config.run_functions_eagerly(True)
    assert tf.config.functions_run_eagerly() is True
    tf.config.experimental_run_functions_eagerly(False)
    assert tf.config.experimental_functions_run_eagerly() is False
    assert tf.config.optimizer.get_jit() == ""
    tf.config.optimizer.set_jit(True)
    try:
        assert tf.config.optimizer.get_jit() == "autoclustering"
    finally:
        tf.config.optimizer.set_jit(False)
    tf.config.optimizer.set_experimental_options({"layout_optimizer": False})
    assert tf.config.optimizer.get_experimental_options()["layout_optimizer"] is False
