"""`HashedCrossing`: crosses features with the hashing trick (`tf.keras.layers.HashedCrossing`).

Bit-identical to TF's `tf.sparse.cross_hashed` on dense inputs (which the Keras layer
calls): starting from the key 0xDECAFCAFFE, each input's value is folded in with
`FingerprintCat64` -- a string's FarmHash `Fingerprint64`, an integer as itself -- and
the result taken modulo `num_bins` (`_hashing.py`, shared with `crossed_column`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from torchestimator import _hashing
from torchestimator.keras.engine import shape_inference as _shape_inference
from torchestimator.keras.engine.base_layer import Layer
from torchestimator.keras.engine.keras_tensor import KerasTensor
from torchestimator.keras.layers.preprocessing import _encoding, _inputs

_MODES = (_encoding.INT, _encoding.ONE_HOT)


class HashedCrossing(Layer):
    """A preprocessing layer which crosses features using the "hashing trick".

    Args:
        num_bins: the number of hash bins.
        output_mode: 'int' (default: the bin index) or 'one_hot'.
        sparse: return a torch sparse COO tensor in 'one_hot' mode.

    Called on a list of at least two inputs of equal shape -- `()`, `(batch,)`
    or `(batch, 1)` -- of integers (tensors or arrays) or strings (numpy
    arrays of str). Returns int64 bins of that shape, or float32 one-hot vectors.
    """

    def __init__(self, num_bins: int, output_mode: str = "int", sparse: bool = False, **kwargs: Any):
        if kwargs.get("dtype") is None:
            kwargs["dtype"] = "int64" if output_mode == _encoding.INT else "float32"
        super().__init__(**kwargs)
        self._autocast = False
        if output_mode == _encoding.INT and (
            self._compute_dtype.is_floating_point or self._compute_dtype == torch.bool
        ):
            raise ValueError(
                "When `output_mode='int'`, `dtype` should be an integer type. Received: "
                f"dtype={kwargs['dtype']}"
            )
        if output_mode not in _MODES:
            raise ValueError(
                "Unknown value for `output_mode` argument of layer HashedCrossing. Allowed values "
                f"are: one of the following values: {_MODES}. Received: output_mode={output_mode!r}"
            )
        if not hasattr(num_bins, "__index__") or isinstance(num_bins, bool) or num_bins < 1:
            raise ValueError(
                f"`num_bins` for HashedCrossing must be a positive integer. Received: num_bins={num_bins!r}"
            )
        self.num_bins = int(num_bins)
        self.output_mode = output_mode
        self.sparse = bool(sparse)

    @staticmethod
    def _check_at_least_two_inputs(inputs: Any) -> None:
        if not isinstance(inputs, (list, tuple)):
            raise ValueError(
                f"`HashedCrossing` should be called on a list or tuple of inputs. Received: inputs={inputs}"
            )
        if len(inputs) < 2:
            raise ValueError(
                f"`HashedCrossing` should be called on at least two inputs. Received: inputs={inputs}"
            )

    @staticmethod
    def _check_shapes(shapes: list[tuple], inputs: Any) -> None:
        first = shapes[0]
        if len(first) > 2 or (len(first) == 2 and first[-1] != 1):
            raise ValueError(
                "All `HashedCrossing` inputs should have shape `[]`, `[batch_size]` or "
                f"`[batch_size, 1]`. Received: inputs={inputs}"
            )
        if any(s != first for s in shapes[1:]):
            raise ValueError(f"All `HashedCrossing` inputs should have equal shape. Received: inputs={inputs}")

    def _hashes(self, value: Any, inputs: Any) -> np.ndarray:
        array = _inputs.to_numpy(value, "HashedCrossing").reshape(-1)
        if array.dtype.kind in "iu":
            return array.astype(np.int64).view(np.uint64)
        if array.dtype.kind in "USO" and all(isinstance(v, (str, bytes, np.str_, np.bytes_)) for v in array.tolist()):
            return _hashing.fingerprint64(array)
        raise ValueError(
            f"All `HashedCrossing` inputs should have an integer or string dtype. Received: inputs={inputs}"
        )

    def call(self, inputs: Any) -> torch.Tensor:
        """Returns the hashed cross of the inputs: int64 bins or one-hot vectors."""
        self._check_at_least_two_inputs(inputs)
        shapes = [tuple(np.shape(x)) if not isinstance(x, torch.Tensor) else tuple(x.shape) for x in inputs]
        self._check_shapes(shapes, inputs)
        device = next((x.device for x in inputs if isinstance(x, torch.Tensor)), torch.device("cpu"))
        size = int(np.prod(shapes[0], dtype=np.int64))
        cur = np.full(size, np.uint64(_hashing.DEFAULT_CROSS_HASH_KEY), dtype=np.uint64)
        for value in inputs:
            cur = _hashing.fingerprint_cat64(cur, self._hashes(value, inputs))
        bins = (cur % np.uint64(self.num_bins)).astype(np.int64).reshape(shapes[0])
        ids = _inputs.host_ids_to(bins, device)
        if self.output_mode == _encoding.INT:
            return ids.to(self._compute_dtype)
        return _encoding.encode(ids, self.output_mode, self.num_bins, self._compute_dtype, self.sparse)

    def compute_output_signature(self, input_specs: Any) -> Any:
        """The `TensorSpec`(s) of the outputs for inputs of `input_specs` (TF's name), with the
        dtype the layer outputs."""
        return _shape_inference.output_signature(self, input_specs)

    def compute_output_shape(self, input_shapes: Any) -> tuple:
        """The inputs' shape ('int'), or with a last axis of `num_bins` ('one_hot')."""
        self._check_at_least_two_inputs(input_shapes)
        return _encoding.encoded_shape(tuple(input_shapes[0]), self.output_mode, self.num_bins)

    def compute_output_spec(self, inputs: Any) -> KerasTensor:
        """The symbolic output: int64 bins or float one-hot vectors."""
        self._check_at_least_two_inputs(inputs)
        return KerasTensor(self.compute_output_shape([x.shape for x in inputs]), self._compute_dtype)

    def get_config(self) -> dict:
        """Returns the constructor arguments (Keras 2.15 keys)."""
        config = super().get_config()
        config.update({"num_bins": self.num_bins, "output_mode": self.output_mode, "sparse": self.sparse})
        return config
