"""`Hashing`: hashes strings or integers into a fixed number of bins (`tf.keras.layers.Hashing`).

Without a salt the hash is FarmHash Fingerprint64 (`tf.strings.to_hash_bucket_fast`,
the project's shared `torchestimator._hashing`); with a salt it is keyed SipHash-2-4
(`tf.strings.to_hash_bucket_strong`). Integers are hashed as their decimal text,
as TensorFlow does, so bins match TensorFlow's bit for bit.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from torchestimator import _dtypes, _hashing
from torchestimator.keras.engine import shape_inference as _shape_inference
from torchestimator.keras.engine.base_layer import Layer
from torchestimator.keras.engine.keras_tensor import KerasTensor
from torchestimator.keras.layers.preprocessing import _encoding, _inputs
from torchestimator.keras.layers.preprocessing._siphash import strong_hash_bucket

_MODES = (_encoding.INT, _encoding.ONE_HOT, _encoding.MULTI_HOT, _encoding.COUNT)


class Hashing(Layer):
    """A preprocessing layer which hashes and bins categorical features.

    Args:
        num_bins: number of hash bins. With `mask_value`, bin 0 is reserved for
            the mask value and the others hash into `[1, num_bins)`.
        mask_value: a value (str or int) that maps to bin 0.
        salt: None (FarmHash), an int, or a pair of ints: the key of a keyed
            SipHash (an int `s` means the key `(s, s)`).
        output_mode: 'int' (default: the bin ids, int64, input shape), or
            'one_hot', 'multi_hot', 'count' (vectors of size `num_bins`).
        sparse: return a torch sparse COO tensor (vector output modes).

    Inputs are numpy arrays (or lists) of str, or integer arrays/tensors.
    Returns an int64 tensor of bins, or float vectors in the other modes.
    """

    def __init__(
        self,
        num_bins: int,
        mask_value: Any = None,
        salt: Any = None,
        output_mode: str = "int",
        sparse: bool = False,
        **kwargs: Any,
    ):
        if num_bins is None or isinstance(num_bins, bool) or not hasattr(num_bins, "__index__") or num_bins <= 0:
            raise ValueError(
                f"The `num_bins` for `Hashing` cannot be `None` or non-positive values. Received: "
                f"num_bins={num_bins!r}."
            )
        if output_mode == "binary":
            output_mode = _encoding.MULTI_HOT
        if output_mode not in _MODES:
            raise ValueError(
                f"Unknown value for `output_mode`. Allowed values are {list(_MODES)}. Received: "
                f"output_mode={output_mode!r}"
            )
        if sparse and output_mode == _encoding.INT:
            raise ValueError(
                "`sparse` may only be true if `output_mode` is `'one_hot'`, `'multi_hot'`, or "
                f"`'count'`. Received: sparse={sparse} and output_mode={output_mode!r}"
            )
        super().__init__(**kwargs)
        self.num_bins = int(num_bins)
        self.mask_value = mask_value
        self.strong_hash = salt is not None
        self.output_mode = output_mode
        self.sparse = bool(sparse)
        self.salt = None
        if salt is not None:
            if isinstance(salt, (tuple, list)) and len(salt) == 2 and all(
                isinstance(s, (int, np.integer)) and not isinstance(s, bool) for s in salt
            ):
                self.salt = [int(s) for s in salt]
            elif isinstance(salt, (int, np.integer)) and not isinstance(salt, bool):
                self.salt = [int(salt), int(salt)]
            else:
                raise ValueError(
                    "The `salt` argument for `Hashing` can only be a tuple of size 2 integers, or "
                    f"a single integer. Received: salt={salt!r}."
                )

    def _hash(self, values: np.ndarray, bins: int) -> np.ndarray:
        try:
            if self.strong_hash:
                return strong_hash_bucket(values, bins, (self.salt[0], self.salt[1]))
            return _hashing.hash_bucket(values, bins)
        except TypeError as err:
            raise ValueError(
                f'Hashing "{self.name}" takes strings or integers; received values of dtype '
                f"{values.dtype}. {err}"
            ) from None

    def call(self, inputs: Any) -> torch.Tensor:
        """Returns the bin of every input value (or the encoded bins, see `output_mode`)."""
        device = _inputs.device_of(inputs)
        values = _inputs.to_numpy(inputs, "Hashing")
        shape = values.shape
        flat = values.reshape(-1)
        bins = self.num_bins
        mask = None
        if self.mask_value is not None and bins > 1:
            bins -= 1
            mask = np.asarray(flat == self.mask_value, dtype=bool).reshape(-1)
        if flat.size:
            ids = self._hash(flat, bins)
        else:
            ids = np.zeros(0, dtype=np.int64)
        if mask is not None:
            ids = np.where(mask, 0, ids + 1)
        out = _inputs.host_ids_to(ids.reshape(shape), device)
        if self.output_mode == _encoding.INT:
            return out
        return _encoding.encode(out, self.output_mode, self.num_bins, self._compute_dtype, self.sparse)

    def compute_output_signature(self, input_spec: Any) -> Any:
        """The `TensorSpec`(s) of the outputs for inputs of `input_spec` (TF's name), with the
        dtype the layer outputs."""
        return _shape_inference.output_signature(self, input_spec)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        """The input shape ('int'), or `(..., num_bins)` for vector outputs."""
        return _encoding.encoded_shape(input_shape, self.output_mode, self.num_bins)

    def compute_output_spec(self, inputs: Any) -> KerasTensor:
        """The symbolic output: int64 bins or float vectors."""
        dtype = _dtypes.int64 if self.output_mode == _encoding.INT else self._compute_dtype
        return KerasTensor(self.compute_output_shape(inputs.shape), dtype)

    def get_config(self) -> dict:
        """Returns `num_bins`, `salt`, `mask_value`, `output_mode` and `sparse`."""
        config = super().get_config()
        config.update({
            "num_bins": self.num_bins,
            "salt": self.salt,
            "mask_value": self.mask_value,
            "output_mode": self.output_mode,
            "sparse": self.sparse,
        })
        return config
