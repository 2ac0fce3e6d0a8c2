"""`Discretization`: buckets continuous values by boundaries (`tf.keras.layers.Discretization`).

A value `x` goes to bin `i` when `bin_boundaries[i-1] <= x < bin_boundaries[i]` (TF's
`Bucketize`: boundaries are float32). The boundaries are given, or learned by `adapt`
as Keras 2.15's approximate quantiles (`_quantiles.py`, equal to TF's on the same data).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from torchestimator import _dtypes
from torchestimator.keras.engine import shape_inference as _shape_inference
from torchestimator.keras.engine.base_layer import Layer
from torchestimator.keras.engine.keras_tensor import KerasTensor
from torchestimator.keras.layers.preprocessing import _encoding, _inputs, _quantiles
from torchestimator.keras.layers.preprocessing._adapt import AdaptFunctionMixin

_MODES = (_encoding.INT, _encoding.ONE_HOT, _encoding.MULTI_HOT, _encoding.COUNT)
_ARRAY_BATCH = 32  # Keras' adapt() batch size for arrays


def _is_integer_dtype(dtype: Any) -> bool:
    return isinstance(dtype, torch.dtype) and not dtype.is_floating_point and not dtype.is_complex \
        and dtype != torch.bool


class Discretization(AdaptFunctionMixin, Layer):
    """A preprocessing layer which buckets continuous features by ranges.

    Args:
        bin_boundaries: a sorted list of boundaries; bins are `(-inf, b0)`,
            `[b0, b1)`, ..., `[b_last, +inf)`.
        num_bins: the number of bins `adapt` computes (do not set both).
        epsilon: the error tolerance of the quantiles `adapt` computes (0.01).
        output_mode: 'int' (default: the bin index), 'one_hot', 'multi_hot' or 'count'.
        sparse: return torch sparse COO tensors in the vector modes.

    Inputs are float or integer tensors/arrays of any shape. Returns int64 bin
    indices of the input's shape, or float32 vectors `len(bin_boundaries) + 1` wide.
    """

    def __init__(
        self,
        bin_boundaries: Any = None,
        num_bins: int | None = None,
        epsilon: float = 0.01,
        output_mode: str = "int",
        sparse: bool = False,
        **kwargs: Any,
    ):
        if "bins" in kwargs:  # Keras' deprecated argument
            bins = kwargs.pop("bins")
            if isinstance(bins, int) and num_bins is None:
                num_bins = bins
            elif bin_boundaries is None:
                bin_boundaries = bins
        adapted = kwargs.pop("adapted_bin_boundaries", None)
        if kwargs.get("dtype") is None:
            kwargs["dtype"] = "int64" if output_mode == _encoding.INT else "float32"
        elif output_mode == _encoding.INT and not _is_integer_dtype(_dtypes.as_dtype(kwargs["dtype"])):
            kwargs["dtype"] = "int64"  # as Keras: 'int' mode outputs integers
        super().__init__(**kwargs)
        self._autocast = False
        if output_mode not in _MODES:
            raise ValueError(
                "Unknown value for `output_mode` argument of layer Discretization. Allowed values "
                f"are: one of the following values: {_MODES}. Received: output_mode={output_mode!r}"
            )
        if sparse and output_mode == _encoding.INT:
            raise ValueError(
                "`sparse` may only be true if `output_mode` is `'one_hot'`, `'multi_hot'`, or "
                f"`'count'`. Received: sparse={sparse} and output_mode={output_mode}"
            )
        if num_bins is not None and (not hasattr(num_bins, "__index__") or num_bins < 0):
            raise ValueError(
                f"`num_bins` must be greater than or equal to 0. You passed `num_bins={num_bins}`"
            )
        if num_bins is not None and bin_boundaries is not None:
            raise ValueError(
                "Both `num_bins` and `bin_boundaries` should not be set. You passed "
                f"`num_bins={num_bins}` and `bin_boundaries={bin_boundaries}`"
            )
        if isinstance(bin_boundaries, torch.Tensor):
            bin_boundaries = bin_boundaries.detach().cpu().numpy()
        if isinstance(bin_boundaries, np.ndarray):
            bin_boundaries = bin_boundaries.tolist()
        self.input_bin_boundaries = None if bin_boundaries is None else [float(b) for b in bin_boundaries]
        if self.input_bin_boundaries is not None and any(
            b > a for a, b in zip(self.input_bin_boundaries[1:], self.input_bin_boundaries)
        ):
            raise ValueError(
                "`bin_boundaries` must be sorted in increasing order. Received: "
                f"bin_boundaries={self.input_bin_boundaries}"
            )
        self.bin_boundaries: list[float] = list(self.input_bin_boundaries or adapted or [])
        self.num_bins = num_bins
        self.epsilon = float(epsilon)
        self.output_mode = output_mode
        self.sparse = bool(sparse)
        self._summary = _quantiles.empty_summary()

    # ------------------------------------------------------------------ adapt
    def adapt(self, data: Any, batch_size: int | None = None, steps: int | None = None) -> None:
        """Computes `num_bins` bin boundaries from the approximate quantiles of `data`.

        `data` is an array/tensor/list (taken in batches of `batch_size` rows, 32 by
        default, as Keras does) or an iterable of batches such as a `tf.data.Dataset`
        (at most `steps`). Raises ValueError when `data` is empty.
        """
        if isinstance(data, (list, tuple, np.ndarray, torch.Tensor)) or hasattr(data, "to_numpy"):
            data = _inputs.to_numpy(data, "Discretization")
            batch_size = batch_size or _ARRAY_BATCH
        self.reset_state()
        seen = 0
        for batch in _inputs.iter_batches(data, "Discretization", batch_size, steps):
            seen += int(np.size(_inputs.to_numpy(batch, "Discretization")))
            self.update_state(batch)
        if not seen:
            raise ValueError("Expected input data to be non-empty.")
        self.finalize_state()

    def update_state(self, data: Any) -> None:
        """Merges one batch of values into the running quantile summary."""
        if self.input_bin_boundaries is not None:
            raise ValueError(
                "Cannot adapt a Discretization layer that has been initialized with "
                "`bin_boundaries`, use `num_bins` instead. You passed "
                f"`bin_boundaries={self.input_bin_boundaries}`."
            )
        if self.num_bins is None:
            raise ValueError(
                f'Discretization layer "{self.name}" needs `num_bins` to adapt; pass num_bins=N '
                "(or give `bin_boundaries` and do not call adapt)."
            )
        values = _inputs.to_numpy(data, "Discretization")
        if values.dtype.kind not in "biuf":
            raise ValueError(
                f'Discretization layer "{self.name}" takes numbers; received an array of dtype '
                f"{values.dtype}."
            )
        self._summary = _quantiles.merge(self._summary, _quantiles.summarize(values, self.epsilon),
                                         self.epsilon)

    def finalize_state(self) -> None:
        """Sets `bin_boundaries` from the summary."""
        if self.input_bin_boundaries is not None or self._summary.shape[1] == 0:
            return
        self.bin_boundaries = _quantiles.bin_boundaries(self._summary, self.num_bins)

    def reset_state(self) -> None:
        """Forgets the running summary."""
        self._summary = _quantiles.empty_summary()

    # ------------------------------------------------------------------ call
    def _boundaries_on(self, device: torch.device) -> torch.Tensor:
        """`bin_boundaries` as a float32 tensor on `device`, made there once for the list they
        are (a copy to a GPU in every call would block the host); made again when `adapt` or a
        loaded config gives the layer another list."""
        cached = self.__dict__.setdefault("_boundaries_by_device", {}).get(device)
        if cached is None or cached[0] is not self.bin_boundaries:
            values = torch.tensor(np.asarray(self.bin_boundaries, dtype=np.float32)).to(device)
            cached = self._boundaries_by_device[device] = (self.bin_boundaries, values)
        return cached[1]

    def call(self, inputs: Any) -> torch.Tensor:
        """Returns each value's bin (int64) or the bins encoded as `output_mode` vectors."""
        device = _inputs.device_of(inputs)
        x = inputs if isinstance(inputs, torch.Tensor) else torch.as_tensor(
            _inputs.to_numpy(inputs, "Discretization"))
        if not (x.is_floating_point() or _is_integer_dtype(x.dtype)):
            raise ValueError(
                f'Discretization layer "{self.name}" takes float or integer inputs; received '
                f"dtype {x.dtype}."
            )
        compare = x.dtype if x.is_floating_point() else torch.float64
        boundaries = self._boundaries_on(x.device)
        ids = _inputs.host_ids_to(torch.bucketize(x.to(compare), boundaries.to(compare), right=True),
                                  device)
        if self.output_mode == _encoding.INT:
            return ids.to(self._compute_dtype)
        return _encoding.encode(ids, self.output_mode, len(self.bin_boundaries) + 1,
                                self._compute_dtype, self.sparse)

    def _depth(self) -> int | None:
        if self.bin_boundaries:
            return len(self.bin_boundaries) + 1
        return self.num_bins

    def compute_output_signature(self, input_spec: Any) -> Any:
        """The `TensorSpec`(s) of the outputs for inputs of `input_spec` (TF's name), with the
        dtype the layer outputs."""
        return _shape_inference.output_signature(self, input_spec)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        """The input shape ('int'), else with the last axis the number of bins."""
        return _encoding.encoded_shape(tuple(input_shape), self.output_mode, self._depth())

    def compute_output_spec(self, inputs: Any) -> KerasTensor:
        """The symbolic output: int64 bins or float vectors."""
        return KerasTensor(self.compute_output_shape(inputs.shape), self._compute_dtype)

    # ------------------------------------------------------------------ config
    def get_config(self) -> dict:
        """Returns the constructor arguments (Keras 2.15 keys); boundaries learned by `adapt`
        are kept under `adapted_bin_boundaries`, so a saved model keeps them."""
        config = super().get_config()
        config.update({
            "bin_boundaries": self.input_bin_boundaries,
            "num_bins": self.num_bins,
            "epsilon": self.epsilon,
            "output_mode": self.output_mode,
            "sparse": self.sparse,
        })
        if self.input_bin_boundaries is None and self.bin_boundaries:
            config["adapted_bin_boundaries"] = list(self.bin_boundaries)
        return config
