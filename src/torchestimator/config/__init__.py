"""`tf.config`: devices, threading, determinism and how `tf.function`s run, over torch.

Devices are what torch sees: the CPU and each CUDA GPU (`torch.cuda`; on a
Mac without CUDA, the MPS device counts as one GPU), named as TF names them
(`/physical_device:GPU:0`, `/device:GPU:0`).

- `set_visible_devices([], 'GPU')` hides the GPUs: training (`fit`,
  `Estimator.train`) and `tf.device('/GPU:0')` use the CPU; making a subset
  visible renumbers it as TF does (`/GPU:0` is the first visible GPU).
  It works through `$TORCHESTIMATOR_DEVICE`, which the training loop reads.
- `experimental.set_memory_growth` and logical device configurations are
  accepted and remembered (torch's caching allocator always grows on demand).
- `experimental.enable_op_determinism()` is
  `torch.use_deterministic_algorithms(True)` (and cuBLAS' workspace setting).
- `threading.set_intra_op_parallelism_threads(n)` is `torch.set_num_threads`
  (0 restores the default); `set_inter_op_parallelism_threads(n)` is
  `torch.set_num_interop_threads` while torch still allows it (before any
  parallel work), else only remembered.
- `run_functions_eagerly(True)` stops `tf.function(jit_compile=True)` from
  compiling; `optimizer.set_jit(True)` compiles every `tf.function` that does
  not say `jit_compile=False`.
"""

from __future__ import annotations

import logging
import os
import types
from typing import Any, NamedTuple

import torch

from torchestimator._ops.control_ops import DEVICE_SETTINGS, FUNCTION_SETTINGS

__all__ = [
    "LogicalDevice", "LogicalDeviceConfiguration", "PhysicalDevice", "experimental",
    "experimental_connect_to_cluster", "experimental_connect_to_host",
    "experimental_functions_run_eagerly", "experimental_run_functions_eagerly",
    "functions_run_eagerly", "get_logical_device_configuration", "get_soft_device_placement",
    "get_visible_devices", "list_logical_devices", "list_physical_devices", "optimizer",
    "run_functions_eagerly", "set_logical_device_configuration", "set_soft_device_placement",
    "set_visible_devices", "threading",
]

logger = logging.getLogger(__name__)


class PhysicalDevice(NamedTuple):
    """A device of this machine: `PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')`."""

    name: str
    device_type: str


class LogicalDevice(NamedTuple):
    """A device as ops address it: `LogicalDevice(name='/device:CPU:0', device_type='CPU')`."""

    name: str
    device_type: str


class LogicalDeviceConfiguration(NamedTuple):
    """A logical device to make of a physical one (accepted and remembered)."""

    memory_limit: Any = None
    experimental_priority: Any = None
    experimental_device_ordinal: Any = None


_STATE: dict[str, Any] = {
    "memory_growth": {},
    "logical_config": {},
    "intra_threads": 0,
    "inter_threads": 0,
    "default_threads": torch.get_num_threads(),
    "experimental_options": {},
    "device_policy": "silent",
    "synchronous": True,
    "env_set": None,  # the $TORCHESTIMATOR_DEVICE value set_visible_devices wrote
}


def _gpu_count() -> int:
    count = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if count:
        return count
    mps = getattr(torch.backends, "mps", None)
    return 1 if mps is not None and mps.is_available() else 0


def _physical() -> list[PhysicalDevice]:
    devices = [PhysicalDevice("/physical_device:CPU:0", "CPU")]
    devices += [PhysicalDevice(f"/physical_device:GPU:{i}", "GPU") for i in range(_gpu_count())]
    return devices


def _visible_gpu_indices() -> list[int]:
    visible = DEVICE_SETTINGS.visible_gpus
    return list(range(_gpu_count())) if visible is None else list(visible)


def list_physical_devices(device_type: str | None = None) -> list[PhysicalDevice]:
    """Returns the devices of this machine ('CPU', 'GPU'), optionally of one `device_type`."""
    return [d for d in _physical() if device_type is None or d.device_type == device_type]


def get_visible_devices(device_type: str | None = None) -> list[PhysicalDevice]:
    """Returns the physical devices the program may use (all of them unless
    `set_visible_devices` hid some)."""
    gpus = set(_visible_gpu_indices())
    return [d for d in list_physical_devices(device_type)
            if d.device_type != "GPU" or int(d.name.rsplit(":", 1)[1]) in gpus]


def set_visible_devices(devices: Any, device_type: str | None = None) -> None:
    """Restricts the devices the program uses to `devices` (a PhysicalDevice or a list), for
    `device_type` or for every type; `set_visible_devices([], 'GPU')` means CPU only."""
    if isinstance(devices, PhysicalDevice):
        devices = [devices]
    devices = list(devices)
    physical = _physical()
    for d in devices:
        if d not in physical:
            raise ValueError(f"Unrecognized device: {d!r}")
    if device_type not in (None, "GPU") and device_type not in {d.device_type for d in physical}:
        raise ValueError(f"Unrecognized device type: {device_type!r}")
    if device_type in (None, "CPU") and not any(d.device_type == "CPU" for d in devices):
        raise ValueError("The CPU cannot be hidden: keep /physical_device:CPU:0 among the visible devices.")
    if device_type not in (None, "GPU"):
        return
    gpus = [int(d.name.rsplit(":", 1)[1]) for d in devices if d.device_type == "GPU"]
    DEVICE_SETTINGS.visible_gpus = None if gpus == list(range(_gpu_count())) else gpus
    _sync_training_device(gpus)


def _sync_training_device(gpus: list[int]) -> None:
    """Points the training loop's device ($TORCHESTIMATOR_DEVICE) at the first visible GPU, or at
    the CPU when none is visible; restores it when every GPU is visible again."""
    current = os.environ.get("TORCHESTIMATOR_DEVICE")
    if current is not None and current != _STATE["env_set"]:
        logger.warning("$TORCHESTIMATOR_DEVICE=%s is set; set_visible_devices leaves it alone.", current)
        return
    if DEVICE_SETTINGS.visible_gpus is None:
        if current is not None:
            del os.environ["TORCHESTIMATOR_DEVICE"]
        _STATE["env_set"] = None
        return
    value = "cpu" if not gpus else ("mps" if not torch.cuda.is_available() else f"cuda:{gpus[0]}")
    os.environ["TORCHESTIMATOR_DEVICE"] = value
    _STATE["env_set"] = value


def list_logical_devices(device_type: str | None = None) -> list[LogicalDevice]:
    """Returns the devices ops can be placed on: the CPU and the visible GPUs, numbered from 0."""
    devices = [LogicalDevice("/device:CPU:0", "CPU")]
    devices += [LogicalDevice(f"/device:GPU:{i}", "GPU") for i in range(len(_visible_gpu_indices()))]
    return [d for d in devices if device_type is None or d.device_type == device_type]


def set_logical_device_configuration(device: PhysicalDevice, logical_devices: Any) -> None:
    """Accepted and remembered (torch does not split a device into logical devices)."""
    _STATE["logical_config"][device] = None if logical_devices is None else list(logical_devices)


def get_logical_device_configuration(device: PhysicalDevice) -> list | None:
    """The configuration given to `set_logical_device_configuration` for `device`, or None."""
    return _STATE["logical_config"].get(device)


def get_soft_device_placement() -> bool:
    """Whether `tf.device` falls back to the CPU for a device that is not there (True)."""
    return DEVICE_SETTINGS.soft_placement


def set_soft_device_placement(enabled: bool) -> None:
    """With False, `tf.device('/GPU:0')` without that GPU raises instead of using the CPU."""
    DEVICE_SETTINGS.soft_placement = bool(enabled)


def run_functions_eagerly(run_eagerly: bool) -> None:
    """With True, no `tf.function` is compiled (`jit_compile=True` ones run as plain Python)."""
    FUNCTION_SETTINGS.run_eagerly = bool(run_eagerly)


def functions_run_eagerly() -> bool:
    """The value last given to `run_functions_eagerly` (False by default)."""
    return FUNCTION_SETTINGS.run_eagerly


experimental_run_functions_eagerly = run_functions_eagerly
experimental_functions_run_eagerly = functions_run_eagerly


# ------------------------------------------------------------------------ experimental
def _gpu_index(device: Any) -> int | None:
    """The physical GPU index of a PhysicalDevice or a 'GPU:0' / '/device:GPU:0' string (None for
    the CPU); ValueError when there is no such device."""
    name = device.name if isinstance(device, (PhysicalDevice, LogicalDevice)) else str(device)
    parts = name.strip("/").split(":")
    kind = parts[-2].upper() if len(parts) >= 2 else parts[0].upper()
    index = int(parts[-1]) if len(parts) >= 2 and parts[-1].isdigit() else 0
    if kind == "CPU" and index == 0:
        return None
    if kind == "GPU" and index < _gpu_count():
        return index
    raise ValueError(f"No matching devices found for '{name}'")


def set_memory_growth(device: PhysicalDevice, enable: bool) -> None:
    """Accepted for GPUs and remembered (torch's allocator grows on demand); ValueError for
    other devices, as TF."""
    if getattr(device, "device_type", None) != "GPU":
        raise ValueError("Cannot set memory growth on non-GPU and non-Pluggable devices")
    _STATE["memory_growth"][device] = bool(enable)


def get_memory_growth(device: PhysicalDevice) -> bool:
    """The value given to `set_memory_growth` for a GPU (False by default)."""
    if getattr(device, "device_type", None) != "GPU":
        raise ValueError("Cannot get memory growth on non-GPU and non-Pluggable devices")
    return _STATE["memory_growth"].get(device, False)


def get_memory_info(device: str) -> dict[str, int]:
    """`{'current': bytes in use, 'peak': peak bytes}` of a device ('GPU:0'; the CPU reports 0)."""
    index = _gpu_index(device)
    if index is None or not torch.cuda.is_available():
        return {"current": 0, "peak": 0}
    return {"current": int(torch.cuda.memory_allocated(index)),
            "peak": int(torch.cuda.max_memory_allocated(index))}


def get_memory_usage(device: str) -> int:
    """The bytes in use on a device (deprecated in TF in favour of `get_memory_info`)."""
    return get_memory_info(device)["current"]


def reset_memory_stats(device: str) -> None:
    """Resets the peak memory statistic of a device."""
    index = _gpu_index(device)
    if index is not None and torch.cuda.is_available():
        torch.cuda.reset_peak_memory_stats(index)


def get_device_details(device: PhysicalDevice) -> dict[str, Any]:
    """`{'device_name', 'compute_capability'}` for a CUDA GPU; `{}` for other devices."""
    index = _gpu_index(device)
    if index is None or not torch.cuda.is_available():
        return {}
    return {"device_name": torch.cuda.get_device_name(index),
            "compute_capability": tuple(torch.cuda.get_device_capability(index))}


def enable_op_determinism() -> None:
    """Makes ops deterministic: `torch.use_deterministic_algorithms(True)` (ops without a
    deterministic implementation raise), cuDNN benchmarking off, cuBLAS' workspace setting."""
    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    torch.use_deterministic_algorithms(True)
    torch.backends.cudnn.benchmark = False


def enable_tensor_float_32_execution(enabled: bool) -> None:
    """Lets (or forbids) float32 matmuls and convolutions use TensorFloat-32 on GPUs that have it
    (torch's `backends.cuda.matmul.allow_tf32` and `backends.cudnn.allow_tf32`). PyTorch's
    defaults, which this project keeps, allow it for convolutions only; TensorFlow's, for both."""
    torch.backends.cuda.matmul.allow_tf32 = bool(enabled)
    torch.backends.cudnn.allow_tf32 = bool(enabled)


def tensor_float_32_execution_enabled() -> bool:
    """Whether float32 matmuls may use TensorFloat-32 (torch's setting: False unless
    `enable_tensor_float_32_execution(True)` or torch's own switch turned it on)."""
    return bool(torch.backends.cuda.matmul.allow_tf32)


def get_device_policy() -> str:
    """The device policy ('silent': tensors are copied where ops need them)."""
    return _STATE["device_policy"]


def set_device_policy(device_policy: str | None) -> None:
    """Accepted and remembered: one of 'silent', 'silent_for_int32', 'warn', 'explicit', or
    None (the default, 'silent'); any other value raises ValueError, as TF's."""
    if device_policy not in (None, "silent", "silent_for_int32", "warn", "explicit"):
        raise ValueError(
            "set_device_policy: `device_policy` must be one of None, 'silent', 'silent_for_int32', "
            f"'warn', 'explicit'; received {device_policy!r}.")
    _STATE["device_policy"] = device_policy or "silent"


def get_synchronous_execution() -> bool:
    """Whether ops run synchronously (remembered value; CUDA runs asynchronously regardless)."""
    return _STATE["synchronous"]


def set_synchronous_execution(enable: bool) -> None:
    """Accepted and remembered."""
    _STATE["synchronous"] = bool(enable)


def _noop() -> None:
    """Accepted: there is no MLIR bridge here."""


experimental = types.SimpleNamespace(
    VirtualDeviceConfiguration=LogicalDeviceConfiguration,
    disable_mlir_bridge=_noop,
    enable_mlir_bridge=_noop,
    enable_op_determinism=enable_op_determinism,
    enable_tensor_float_32_execution=enable_tensor_float_32_execution,
    get_device_details=get_device_details,
    get_device_policy=get_device_policy,
    get_memory_growth=get_memory_growth,
    get_memory_info=get_memory_info,
    get_memory_usage=get_memory_usage,
    get_synchronous_execution=get_synchronous_execution,
    get_virtual_device_configuration=get_logical_device_configuration,
    get_visible_devices=get_visible_devices,
    list_logical_devices=list_logical_devices,
    list_physical_devices=list_physical_devices,
    reset_memory_stats=reset_memory_stats,
    set_device_policy=set_device_policy,
    set_memory_growth=set_memory_growth,
    set_synchronous_execution=set_synchronous_execution,
    set_virtual_device_configuration=set_logical_device_configuration,
    set_visible_devices=set_visible_devices,
    tensor_float_32_execution_enabled=tensor_float_32_execution_enabled,
)


# ------------------------------------------------------------------------ threading
def set_intra_op_parallelism_threads(num_threads: int) -> None:
    """Sets the threads one op may use (`torch.set_num_threads`); 0 restores the default."""
    num_threads = int(num_threads)
    if num_threads < 0:
        raise ValueError(f"num_threads must be >= 0; received {num_threads}")
    torch.set_num_threads(num_threads or _STATE["default_threads"])
    _STATE["intra_threads"] = num_threads


def get_intra_op_parallelism_threads() -> int:
    """The value given to `set_intra_op_parallelism_threads` (0: the system's choice)."""
    return _STATE["intra_threads"]


def set_inter_op_parallelism_threads(num_threads: int) -> None:
    """Sets the threads independent ops may run on (`torch.set_num_interop_threads`, which torch
    allows only before its first parallel work; after that the value is only remembered)."""
    num_threads = int(num_threads)
    if num_threads < 0:
        raise ValueError(f"num_threads must be >= 0; received {num_threads}")
    if num_threads:
        try:
            torch.set_num_interop_threads(num_threads)
        except RuntimeError as error:
            logger.info("set_inter_op_parallelism_threads(%d) not applied: %s", num_threads, error)
    _STATE["inter_threads"] = num_threads


def get_inter_op_parallelism_threads() -> int:
    """The value given to `set_inter_op_parallelism_threads` (0: the system's choice)."""
    return _STATE["inter_threads"]


threading = types.SimpleNamespace(
    get_inter_op_parallelism_threads=get_inter_op_parallelism_threads,
    get_intra_op_parallelism_threads=get_intra_op_parallelism_threads,
    set_inter_op_parallelism_threads=set_inter_op_parallelism_threads,
    set_intra_op_parallelism_threads=set_intra_op_parallelism_threads,
)


# ------------------------------------------------------------------------ optimizer
def set_jit(enabled: bool | str) -> None:
    """With True (or 'autoclustering'), every `tf.function` that does not say
    `jit_compile=False` is compiled with `torch.compile`."""
    FUNCTION_SETTINGS.jit = bool(enabled)


def get_jit() -> str:
    """'autoclustering' after `set_jit(True)`, else ''."""
    return "autoclustering" if FUNCTION_SETTINGS.jit else ""


def set_experimental_options(options: dict) -> None:
    """Accepted and remembered (grappler's graph optimizations do not apply to eager torch)."""
    _STATE["experimental_options"].update(dict(options))


def get_experimental_options() -> dict:
    """The options given to `set_experimental_options`."""
    return dict(_STATE["experimental_options"])


optimizer = types.SimpleNamespace(
    get_experimental_options=get_experimental_options,
    get_jit=get_jit,
    set_experimental_options=set_experimental_options,
    set_jit=set_jit,
)

# TF's remote eager (TPU hosts, remote workers) is refused by name (docs/refusals.md).
from torchestimator.config._remote import (  # noqa: E402
    experimental_connect_to_cluster,
    experimental_connect_to_host,
)
