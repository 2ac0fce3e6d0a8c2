"""`Normalization`: shifts and scales inputs to mean 0 and variance 1 per feature
(`tf.keras.layers.Normalization`), with statistics given or learned by `adapt`.

`adapt` streams over batches and merges each batch's mean and variance into the
running ones (the lack-of-fit sum of squares formula Keras uses), so data larger
than memory can be adapted from an iterable of batches.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from torchestimator.keras.backend import epsilon
from torchestimator.keras.engine import shape_inference as _shape_inference
from torchestimator.keras.engine.base_layer import Layer
from torchestimator.keras.engine.input_spec import InputSpec
from torchestimator.keras.engine.layer_utils import _check_object_array
from torchestimator.keras.layers.preprocessing import _inputs
from torchestimator.keras.layers.preprocessing._adapt import AdaptFunctionMixin


def _listify(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        value = value.detach().cpu().numpy()
    if isinstance(value, np.ndarray):
        return value.tolist()
    return value


class Normalization(AdaptFunctionMixin, Layer):
    """A preprocessing layer which normalizes continuous features: `(x - mean) / sqrt(var)`.

    Args:
        axis: the axis (or axes) that keep separate statistics; -1 (default)
            means one mean and variance per feature of the last axis. None
            means one mean and variance for everything.
        mean: the mean to use; if given, `variance` must be given too and no
            `adapt` is needed. Broadcast to the kept axes' shape.
        variance: the variance to use.
        invert: apply the inverse transformation `mean + x * sqrt(var)`.

    When `mean`/`variance` are not given, the layer has three non-trainable
    weights, `mean`, `variance` (the kept axes' shape) and `count` (int64),
    learned by `adapt(data, batch_size=None, steps=None)`. The denominator is
    `max(sqrt(variance), epsilon)`. Output shape = input shape.
    """

    _follows_input_device = True  # it runs in host tf.data maps and in models on the GPU

    def __init__(
        self, axis: Any = -1, mean: Any = None, variance: Any = None, invert: bool = False, **kwargs: Any
    ):
        super().__init__(**kwargs)
        if axis is None:
            axis = ()
        elif isinstance(axis, (int, np.integer)):
            axis = (int(axis),)
        else:
            try:
                axis = tuple(int(a) for a in axis)
            except (TypeError, ValueError):
                raise ValueError(
                    f"Normalization: `axis` must be an int, a tuple of ints or None, got {axis!r}."
                ) from None
        self.axis = axis
        if (mean is not None) != (variance is not None):
            raise ValueError(
                "When setting values directly, both `mean` and `variance` must be set. "
                f"Got mean: {mean!r} and variance: {variance!r}"
            )
        self.input_mean = mean
        self.input_variance = variance
        self.invert = bool(invert)

    # ------------------------------------------------------------------ build
    def build(self, input_shape: Any) -> None:
        """Works out the kept axes and creates the statistics for `input_shape`."""
        if isinstance(input_shape, list) and input_shape and isinstance(input_shape[0], (tuple, list)):
            raise ValueError(
                "Normalization only accepts a single input. If you are passing a python list or "
                "tuple as a single input, please convert to a numpy array or a tensor."
            )
        shape = tuple(input_shape)
        ndim = len(shape)
        if any(a < -ndim or a >= ndim for a in self.axis):
            raise ValueError(
                f"All `axis` values must be in the range [-ndim, ndim). Found ndim: `{ndim}`, "
                f"axis: {self.axis}"
            )
        keep = sorted(a % ndim for a in self.axis)
        for d in keep:
            if shape[d] is None:
                raise ValueError(
                    "All `axis` values to be kept must have known shape. Got axis: "
                    f"{self.axis}, input shape: {shape}, with unknown axis at index: {d}"
                )
        self._keep_axis = keep
        self._reduce_axis = [d for d in range(ndim) if d not in keep]
        self._broadcast_shape = tuple(shape[d] if d in keep else 1 for d in range(ndim))
        stats_shape = tuple(shape[d] for d in keep)
        # No `ndim` (Keras 2.15 sets no input_spec): the statistics broadcast against any input
        # of a compatible shape, e.g. a layer adapted on a column `(n,)` with axis=None applied to
        # the `Input(shape=(1,))` that feeds it (TF's structured-data tutorial). Only the kept
        # axes' sizes are checked, for a clearer error than a failed broadcast.
        self.input_spec = InputSpec(axes={d: shape[d] for d in keep}) if keep else None
        dtype = self._compute_dtype
        if self.input_mean is None:
            self.add_weight("mean", shape=stats_shape, initializer="zeros", trainable=False)
            self.add_weight("variance", shape=stats_shape, initializer="ones", trainable=False)
            self.add_weight("count", shape=(), dtype="int64", initializer="zeros", trainable=False)
        else:
            try:
                mean = np.asarray(self.input_mean, dtype=np.float64) * np.ones(stats_shape)
                variance = np.asarray(self.input_variance, dtype=np.float64) * np.ones(stats_shape)
            except ValueError:
                raise ValueError(
                    f'Normalization "{self.name}": `mean` and `variance` must broadcast to the '
                    f"shape of the kept axes {stats_shape} (axis={self.axis}, input shape "
                    f"{shape}); got mean of shape {np.shape(self.input_mean)} and variance of "
                    f"shape {np.shape(self.input_variance)}."
                ) from None
            device = self._build_device
            self.register_buffer("mean", torch.as_tensor(mean, dtype=dtype, device=device), persistent=False)
            self.register_buffer(
                "variance", torch.as_tensor(variance, dtype=dtype, device=device), persistent=False
            )
        self.built = True

    # ------------------------------------------------------------------ adapt
    @property
    def is_adapted(self) -> bool:
        """Whether the statistics were learned by `adapt` (or given)."""
        if self.input_mean is not None:
            return True
        return self.built and int(self.count) > 0

    def adapt(self, data: Any, batch_size: int | None = None, steps: int | None = None) -> None:
        """Computes the mean and variance of `data` (array, tensor or iterable of batches).

        Replaces any statistics learned before. Raises ValueError if the layer
        was given `mean` and `variance`.
        """
        if self.input_mean is not None:
            raise ValueError(
                "Cannot `adapt` a Normalization layer that is initialized with static `mean` and "
                f"`variance`, you passed mean {self.input_mean} and variance {self.input_variance}."
            )
        self.reset_state()
        for batch in _inputs.iter_batches(data, "Normalization", batch_size, steps):
            self.update_state(batch)
        self.finalize_state()

    def reset_state(self) -> None:
        """Forgets the learned statistics (mean 0, variance 1, count 0)."""
        if self.input_mean is not None or not self.built:
            return
        with torch.no_grad():
            self.mean.zero_()
            self.variance.fill_(1.0)
            self.count.zero_()

    def update_state(self, data: Any) -> None:
        """Merges one batch's mean and variance into the running statistics."""
        if isinstance(data, torch.Tensor):
            x = data
        else:
            array = _inputs.to_numpy(data, "Normalization")
            if array.dtype.kind == "O":
                _check_object_array(array)
            x = torch.as_tensor(array.astype(np.float64, copy=False))
        x = x.detach().to(torch.float64)
        if not self.built:
            self._build_device = None
            self._build_shapes = tuple(x.shape)
            self.build(tuple(x.shape))
            if getattr(self, "_batch_input_shape", None) is None:
                # Keras' `_adapt_maybe_build`: the adapted rank becomes the layer's input shape,
                # so a Sequential started with an adapted layer builds at once (summary,
                # weights). Keras gives all axes None, which its own load_model then cannot
                # build from; the kept axes keep their sizes here so a saved model reloads.
                self._batch_input_shape = tuple(
                    x.shape[d] if d in self._keep_axis else None for d in range(x.ndim)
                )
        if x.ndim != len(self._broadcast_shape):
            raise ValueError(
                f'Normalization "{self.name}" was built for inputs of rank '
                f"{len(self._broadcast_shape)}, but adapt() received a batch of shape "
                f"{tuple(x.shape)}."
            )
        for d in self._keep_axis:
            if x.shape[d] != self._broadcast_shape[d]:
                raise ValueError(
                    f'Normalization "{self.name}" keeps axis {d} of size {self._broadcast_shape[d]}, '
                    f"but adapt() received a batch of shape {tuple(x.shape)}."
                )
        x = x.to(self.mean.device)
        if self._reduce_axis:
            batch_count = int(np.prod([x.shape[d] for d in self._reduce_axis]))
            batch_mean = x.mean(dim=self._reduce_axis)
            batch_var = x.var(dim=self._reduce_axis, unbiased=False)
        else:
            batch_count, batch_mean, batch_var = 1, x, torch.zeros_like(x)
        if batch_count == 0:
            return
        old_count = int(self.count)
        total = old_count + batch_count
        w = batch_count / total
        old_mean = self.mean.detach().to(torch.float64)
        old_var = self.variance.detach().to(torch.float64)
        new_mean = old_mean * (1 - w) + batch_mean * w
        new_var = (old_var + (old_mean - new_mean) ** 2) * (1 - w) + (
            batch_var + (batch_mean - new_mean) ** 2
        ) * w
        with torch.no_grad():
            self.mean.copy_(new_mean.to(self.mean.dtype))
            self.variance.copy_(new_var.to(self.variance.dtype))
            self.count.fill_(total)

    def finalize_state(self) -> None:
        """Nothing to do: `call` reads the `mean` and `variance` weights directly."""
        return None

    def load_own_variables(self, store: Any) -> None:
        """Assigns the weights (mean, variance, count) from `store`, then `finalize_state()`."""
        super().load_own_variables(store)
        self.finalize_state()

    # ------------------------------------------------------------------ call
    def call(self, inputs: torch.Tensor) -> torch.Tensor:
        """Returns `(inputs - mean) / max(sqrt(variance), epsilon)` (or the inverse), on the
        inputs' device (the statistics are copied there: a host `tf.data` map of a layer whose
        weights are on the GPU runs on the host)."""
        x = inputs.to(self._compute_dtype)
        mean = self.mean.to(x.device, x.dtype).reshape(self._broadcast_shape)
        # reshaped before the clamp: a 0-dim clamp (axis=None) would meet epsilon as a 0-dim
        # double in a traced backend (torch's lazy TorchScript one) and give double statistics
        std = torch.sqrt(self.variance.to(x.device, x.dtype)).reshape(self._broadcast_shape).clamp(
            min=epsilon())
        try:  # numpy-style broadcasting of the statistics against the input, as TF's
            if self.invert:
                return mean + x * std
            return (x - mean) / std
        except RuntimeError:
            raise ValueError(
                f'Normalization "{self.name}" keeps statistics of shape {tuple(self._broadcast_shape)}, '
                f"which do not broadcast against an input of shape {tuple(x.shape)}."
            ) from None

    def compute_output_signature(self, input_spec: Any) -> Any:
        """The `TensorSpec`(s) of the outputs for inputs of `input_spec` (TF's name), with the
        dtype the layer outputs."""
        return _shape_inference.output_signature(self, input_spec)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        """The input shape, with unknown kept axes taking the statistics' sizes (TF's output
        is `(inputs - mean) / std`, whose static shape broadcasts against the mean's)."""
        shape = tuple(input_shape)
        broadcast = getattr(self, "_broadcast_shape", None)
        if not self.built or broadcast is None or len(broadcast) != len(shape):
            return shape
        return tuple(b if d is None and b != 1 else d for d, b in zip(shape, broadcast))

    def get_config(self) -> dict:
        """Returns `axis`, `invert`, `mean` and `variance` (the given ones, as lists)."""
        config = super().get_config()
        config.update({
            "axis": self.axis,
            "invert": self.invert,
            "mean": _listify(self.input_mean),
            "variance": _listify(self.input_variance),
        })
        return config

    @classmethod
    def from_config(cls, config: dict) -> Normalization:
        """Creates the layer from `get_config()`'s output."""
        config = dict(config)
        if isinstance(config.get("axis"), list):
            config["axis"] = tuple(config["axis"])
        return cls(**config)
