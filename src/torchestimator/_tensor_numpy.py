"""TensorFlow's `.numpy()` on torch tensors: it always reads the value.

In TensorFlow nothing outside a `GradientTape` records gradients, so `.numpy()` (and
`np.asarray(t)`, which calls it) works on any tensor: the output of a `tf.Module` holding
`tf.Variable`s, `tf.reduce_mean(variable)`, a feature-column layer's output, a tensor on a GPU
(copied to the host). Here a tensor computed from variables records autograd — a plain
PyTorch loop's `loss.backward()` on a model of ours needs that — and torch's `numpy()` refuses
such a tensor, and a CUDA one.

Importing the package therefore makes `torch.Tensor.numpy` behave as `numpy(force=True)`
whenever torch would refuse: a tensor that requires grad is read detached (sharing memory, as
`t.detach().numpy()`), a tensor on another device is copied to the host. A tensor torch
accepts is handled by torch exactly as before, and autograd is untouched.

NumPy's functions read a tensor as TensorFlow's eager tensors do: `np.min(t)`, `np.mean(t)`,
`np.argmax(t, axis=1)`, `np.sum(t, axis=0)`, `np.round(t, 2)`, `np.size(t)` compute on the
tensor's value and return numpy (a NumPy scalar or ndarray), as `np.min(np.asarray(t))`. By
itself NumPy would call the tensor's own `t.min(axis=None, out=None)`, whose signature is
torch's (`dim=`), and fail or return a torch namedtuple. The package gives `torch.Tensor` the
`__array_function__` protocol (NEP 18, which torch does not implement): a NumPy function called
with tensors among its arguments reads them as arrays (as `np.asarray`, sharing memory with a
CPU tensor) and runs NumPy's own code. No torch method changes: `t.sum()`, `t.min(dim=1)` and
every torch function run torch's code, at torch's speed; NumPy's ufuncs (`np.exp(t)`) are
untouched as well (torch's `__array_wrap__` keeps giving tensors).

An arithmetic operator with a NumPy array on its left and a tensor on its right
(`x_train + noise_factor * tf.random.normal(shape=x_train.shape)`, TF's autoencoder tutorial)
gives a tensor, as TensorFlow's: NumPy defers to the tensor, whose reflected operator
(`__radd__`, `__rsub__`, `__rmul__`, `__rtruediv__`, `__rfloordiv__`, `__rmod__`, `__rpow__`,
`__rmatmul__`) reads the array as a tensor on the tensor's device; torch's own refuses it.

An eager TensorFlow tensor has `set_shape(shape)`, which checks that the tensor's shape is
compatible with `shape` (None matches any size) and raises ValueError otherwise (TF's
time-series tutorial calls `inputs.set_shape([None, self.input_width, None])` on both eager
tensors and inside `Dataset.map`), and `get_shape()`, the shape as a `tf.TensorShape`
(`x.get_shape().as_list()`, TF1 code's idiom; `.shape` stays torch's `torch.Size`). Torch
tensors get both, unless torch has its own.

TF 2 tensors are not hashable, so TF code keys dicts and sets by `t.ref()`: a `Reference`
hashed and compared by the tensor's identity, whose `deref()` gives the tensor back
(`experimental_ref()` is TF's deprecated name for it). Torch tensors get both, unless torch has
its own; a `tf.Variable`'s `ref()` gives the same kind of `Reference`.

These five are the only changes to torch's classes the package makes; set the environment
variable `TORCHESTIMATOR_TORCH_NUMPY=1` before importing it to keep torch's own behaviour.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import torch

from torchestimator._tensor_shape import TensorShape

_TORCH_NUMPY = torch.Tensor.numpy
_OPT_OUT = "TORCHESTIMATOR_TORCH_NUMPY"


def _ndarray(self: torch.Tensor, *, force: bool = False) -> np.ndarray:
    """The tensor as a NumPy ndarray: shares memory with a CPU tensor, detached from autograd
    when it records; a copy on the host for a tensor on another device."""
    if not force and (self.requires_grad or not self.is_cpu):
        force = True
    array = _TORCH_NUMPY(self, force=force)
    # Under a torch function mode (`with torch.device(...)`, a user's own) torch's `numpy`
    # hands the call to the mode as `Tensor.numpy`, which is `_numpy`: a 0-d tensor comes back
    # as a NumPy scalar
    return array if type(array) is np.ndarray else np.asarray(array)


def _numpy(self: torch.Tensor, *, force: bool = False) -> Any:
    """Returns the tensor's value as NumPy (TensorFlow's `Tensor.numpy()`): a NumPy scalar
    (`np.float32(3.0)`) for a 0-d tensor, else an ndarray that shares memory with a CPU tensor;
    a host copy for a tensor on another device. `force=True` is torch's keyword and does the
    same."""
    array = _ndarray(self, force=force)
    return array[()] if array.ndim == 0 else array


def _array(self: torch.Tensor, dtype: Any = None, copy: Any = None) -> np.ndarray:
    """`np.asarray(tensor)`: always an ndarray (0-d for a scalar), a host copy off the CPU."""
    array = _ndarray(self)
    return array if dtype is None else array.astype(dtype, copy=False)


def _set_shape(self: torch.Tensor, shape: Any) -> None:
    """TensorFlow's eager `Tensor.set_shape(shape)`: raises ValueError unless the tensor's shape
    is compatible with `shape` (a list/tuple/TensorShape whose None entries match any size, or
    None for an unknown rank); changes nothing."""
    if shape is None:
        return
    dims = getattr(shape, "as_list", None)
    wanted = dims() if callable(dims) else list(shape)
    if wanted is None:  # TensorShape(None): unknown rank
        return
    wanted = [None if getattr(d, "value", d) is None else int(getattr(d, "value", d))
              for d in wanted]  # a Dimension has `.value`
    actual = list(self.shape)
    if len(wanted) != len(actual) or any(w is not None and w != a for w, a in zip(wanted, actual)):
        raise ValueError(
            f"Tensor's shape {tuple(actual)} is not compatible with supplied shape "
            f"{wanted}."
        )


def _get_shape(self: torch.Tensor) -> TensorShape:
    """TensorFlow's `Tensor.get_shape()`: the tensor's shape as a `tf.TensorShape` (equal to
    `.shape`, with TF's `as_list()`, `rank`, `num_elements()`, ...)."""
    return TensorShape(self.shape)


class Reference:
    """A hashable reference to an object (TF's `object_identity.Reference`, what `Tensor.ref()`
    and `Variable.ref()` return): two references are equal when they wrap the same object, and
    hash by its `id`; `deref()` gives the object back. A reference is never equal to anything
    but a reference (TF's documented answer, False); `<` and `>` order references by `id` and
    raise TypeError for anything else, as TF's."""

    __slots__ = ("_wrapped", "__weakref__")

    def __init__(self, wrapped: Any) -> None:
        self._wrapped = wrapped

    def deref(self) -> Any:
        """The referenced object (`x.ref().deref() is x`)."""
        return self._wrapped

    def _other(self, other: Any) -> Reference:
        if not isinstance(other, Reference):
            raise TypeError("Cannot compare wrapped object with unwrapped object")
        return other

    def __lt__(self, other: Any) -> bool:
        return id(self._wrapped) < id(self._other(other)._wrapped)

    def __gt__(self, other: Any) -> bool:
        return id(self._wrapped) > id(self._other(other)._wrapped)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Reference) and other._wrapped is self._wrapped

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return id(self._wrapped)

    def __repr__(self) -> str:
        return f"<Reference wrapping {self._wrapped!r}>"


def _ref(self: torch.Tensor) -> Reference:
    """TensorFlow's `Tensor.ref()`: a hashable reference to this tensor, to key dicts and sets
    by tensor (`{t.ref(): ...}`); `.deref()` gives the tensor back."""
    return Reference(self)


def _experimental_ref(self: torch.Tensor) -> Reference:
    """TensorFlow's `Tensor.experimental_ref()`, the deprecated name of `ref()`."""
    return Reference(self)


def _as_array(value: Any) -> Any:
    """`value` with its tensors (also inside lists and tuples, as `np.concatenate([a, b])` and
    `np.stack` take them) read as NumPy arrays."""
    if isinstance(value, torch.Tensor):
        return _ndarray(value)
    if type(value) in (list, tuple) and any(isinstance(v, (torch.Tensor, list, tuple)) for v in value):
        return type(value)(_as_array(v) for v in value)
    return value


def _size(t: torch.Tensor, axis: int | None = None) -> int:
    return t.numel() if axis is None else int(t.shape[axis])


# NumPy functions of a tensor's metadata: answered without reading the value (which, for a
# tensor on a GPU, would copy it to the host).
_METADATA = {
    np.shape: lambda t: tuple(t.shape),
    np.ndim: lambda t: t.dim(),
    np.size: _size,
}


def _array_function(self: torch.Tensor, func: Any, types: Any, args: tuple, kwargs: dict) -> Any:
    """NEP 18's `__array_function__`: runs the NumPy function `func` on the arrays the tensors
    read as; the result is NumPy's, as for TensorFlow's eager tensors. Any other
    array-function type among the arguments still gets its own turn (NumPy dispatches again)."""
    metadata = _METADATA.get(func)
    if metadata is not None and args and isinstance(args[0], torch.Tensor):
        return metadata(*args, **kwargs)
    args = tuple(_as_array(a) for a in args)
    kwargs = {k: _as_array(v) for k, v in kwargs.items()}
    return func(*args, **kwargs)


_REFLECTED = ("__radd__", "__rsub__", "__rmul__", "__rtruediv__", "__rfloordiv__", "__rmod__",
              "__rpow__", "__rmatmul__")


def _reflected(original: Any) -> Any:
    """torch's reflected operator `original`, taking a NumPy array on the left as a tensor."""

    def op(self: torch.Tensor, other: Any) -> Any:
        if isinstance(other, np.ndarray) and other.dtype.kind in "biufc":
            other = torch.as_tensor(other if other.flags.writeable else other.copy(),
                                    device=self.device)
        return original(self, other)

    op.__name__ = getattr(original, "__name__", "op")
    op.__doc__ = getattr(original, "__doc__", None)
    op._torch_original = original  # type: ignore[attr-defined]
    return op


def install() -> None:
    """Replaces `torch.Tensor.numpy` with TensorFlow's reading, gives tensors NumPy's
    `__array_function__`, lets their reflected operators take a NumPy array on the left and
    gives them `set_shape`/`get_shape` and `ref`/`experimental_ref` (see the module docstring),
    unless `TORCHESTIMATOR_TORCH_NUMPY=1`; installing twice is harmless."""
    if os.environ.get(_OPT_OUT, "").strip().lower() in ("1", "true", "yes"):
        return
    torch.Tensor.numpy = _numpy  # type: ignore[method-assign]
    torch.Tensor.__array__ = _array  # type: ignore[method-assign]
    torch.Tensor.__array_function__ = _array_function  # type: ignore[attr-defined]
    for name, method in (("set_shape", _set_shape), ("get_shape", _get_shape), ("ref", _ref),
                         ("experimental_ref", _experimental_ref)):
        if getattr(torch.Tensor, name, method) is method:  # torch's own would win
            setattr(torch.Tensor, name, method)
    for name in _REFLECTED:
        current = getattr(torch.Tensor, name, None)
        if current is not None and not hasattr(current, "_torch_original"):
            setattr(torch.Tensor, name, _reflected(current))
