"""Host twins: the host tensor that a small device tensor was copied from, kept with the copy.

The training loop copies each batch from the host to the device (`loop.to_device`). On an
accelerator a value check of the copy (a label's or an id's range, which the CPU reads back at
once) would cost kernels and a synchronization, so it is deferred and the values clamped
meanwhile (`loop.check_value_range`). When the values checked are still the very ones copied
from the host, the check reads the host tensor instead: no kernel on the device, no
synchronization, and a bad value raises in the step that has it, as on the CPU.

The twin is kept on the copy's storage (torch keeps one Python object per storage, with its
attributes, for as long as the storage lives), so every view of the copy finds it and it goes
with the copy. It answers only for a view that holds all of the copy's values, of its dtype,
unchanged since the copy (the tensor's in-place version counter, which views share).
"""

from __future__ import annotations

import numpy as np
import torch

from .. import _torch_private

# Tensors of more elements get no twin (labels and ids are small; a large host tensor would stay
# pinned as long as its copy).
TWIN_MAX_ELEMENTS = 1 << 16
_ATTRIBUTE = "_torchestimator_host_twin"
# The devices whose tensors own a storage that keeps the twin (`cpu`: the stand-in for tests).
_STORAGE_DEVICES = frozenset({"cpu", "cuda", "xpu", "mps", "meta"})
# The dtypes whose values numpy reads without a conversion.
_DTYPES = frozenset({torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
                     torch.float16, torch.float32, torch.float64})


def _storage_keeps_attributes() -> bool:
    """Whether an attribute set on a tensor's storage is there again the next time it is asked
    for (torch preserves the storage's Python object); without it twins are never found."""
    try:
        probe = torch.zeros(1)
        setattr(probe.untyped_storage(), _ATTRIBUTE, True)
        return getattr(probe.untyped_storage(), _ATTRIBUTE, False) is True
    except (AttributeError, RuntimeError, TypeError):  # pragma: no cover - depends on the torch release
        return False


ENABLED = _storage_keeps_attributes()


def _may_have_twin(host: torch.Tensor) -> bool:
    """Whether a copy of `host` keeps it as a twin: small, of a dtype numpy reads, no autograd."""
    return ENABLED and host.numel() <= TWIN_MAX_ELEMENTS and host.dtype in _DTYPES and not host.requires_grad


def _storage(tensor: torch.Tensor) -> torch.UntypedStorage | None:
    """`tensor.untyped_storage()` on the devices whose tensors own one; None elsewhere. Not on
    `lazy` tensors: torch 2.13 ends the process (a segmentation fault) asking the storage of one
    made under a Python dispatch mode, even after the mode has ended."""
    if tensor.device.type not in _STORAGE_DEVICES:
        return None
    return tensor.untyped_storage()


def remember(copy: torch.Tensor, host: torch.Tensor) -> None:
    """Keeps `host` (a host tensor) as the twin of `copy`, the device tensor just copied from it,
    when it is small and of a dtype numpy reads; otherwise does nothing."""
    if not _may_have_twin(host):
        return
    try:
        storage = _storage(copy)
        if storage is None or not copy.is_contiguous():  # a view of all of it: in another order
            return
        setattr(storage, _ATTRIBUTE, (host, _torch_private.version(copy), copy.numel()))
    except (AttributeError, RuntimeError, NotImplementedError):  # a tensor without a storage
        return


def host_values(values: torch.Tensor) -> np.ndarray | None:
    """The values of `values` read on the host: its host twin as a numpy array (the same elements
    in the same order, in the host tensor's shape), when `values` is all of a copy that
    `remember` kept and unchanged since; otherwise None (the caller reads the device)."""
    try:
        twin = getattr(_storage(values), _ATTRIBUTE, None)
    except (AttributeError, RuntimeError, NotImplementedError):  # sparse, fake or functional tensors
        return None
    if twin is None:
        return None
    host, seen, numel = twin
    if (values.dtype != host.dtype or values.numel() != numel or values.storage_offset() != 0
            or not values.is_contiguous() or _torch_private.version(values) != seen):
        return None
    return host.numpy()


def stand_in_copy(host: torch.Tensor) -> torch.Tensor:
    """What a copy of `host` to an accelerator is, on the CPU (benchmarks and tests: the
    `loop.TWIN_HOST_TENSORS_ON_CPU` switch): a new host tensor of the same values that keeps
    `host` as its twin, made with numpy (no torch op, which a kernel count would see). A tensor
    that would get no twin is returned as it is, and so is one that is not contiguous (the
    packed columns of a `tf.data` batch, which a copy to a device moves as one matrix)."""
    if not _may_have_twin(host) or host.device.type != "cpu" or not host.is_contiguous():
        return host
    copy = torch.from_numpy(host.numpy().copy())
    remember(copy, host)
    return copy
