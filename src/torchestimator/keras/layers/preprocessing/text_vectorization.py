"""`TextVectorization`: strings to token ids or token vectors (`tf.keras.layers.TextVectorization`).

As in Keras 2.15 the layer is built on a `StringLookup` (mask token '' at index 0,
'[UNK]' at 1 in 'int' mode): it standardizes each string, splits it into tokens,
optionally forms n-grams, and looks the tokens up. Strings are numpy arrays of `str`
(the project's string tensors); the output is an int64 tensor of ids, padded with 0 to
the longest sequence of the batch or to `output_sequence_length`, or a float vector per
string ('multi_hot', 'count', 'tf_idf'). With `ragged=True` ('int' mode, a `split`) the
ids come as a `tf.RaggedTensor`, one row per string (as TF; `output_sequence_length` then
does not apply).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from torchestimator import _dtypes
from torchestimator._ops import string_ops
from torchestimator._ragged_tensor import RaggedTensor
from torchestimator.errors import FailedPreconditionError
from torchestimator.keras._registry import deserialize_keras_object, serialize_keras_object
from torchestimator.keras.engine import shape_inference as _shape_inference
from torchestimator.keras.engine.base_layer import Layer
from torchestimator.keras.engine.keras_tensor import KerasTensor
from torchestimator.keras.layers.preprocessing import _encoding, _inputs, _text
from torchestimator.keras.layers.preprocessing._adapt import AdaptFunctionMixin
from torchestimator.keras.layers.preprocessing.string_lookup import StringLookup

_STANDARDIZE = (_text.LOWER_AND_STRIP_PUNCTUATION, _text.LOWER, _text.STRIP_PUNCTUATION)
_SPLIT = (_text.WHITESPACE, _text.CHARACTER)
_MODES = (_encoding.INT, _encoding.COUNT, _encoding.MULTI_HOT, _encoding.TF_IDF)
_ARRAY_BATCH = 32  # Keras' adapt() batch size for arrays


def _check_choice(value: Any, allowed: tuple, arg: str, callables: bool) -> None:
    if value is None or (callables and callable(value)) or (isinstance(value, str) and value in allowed):
        return
    extra = "`None`, a `Callable`, or" if callables else "`None`, or"
    raise ValueError(
        f"Unknown value for `{arg}` argument of layer TextVectorization. Allowed values are: "
        f"{extra} one of the following values: {allowed}. Received: {arg}={value!r}"
    )


class TextVectorization(AdaptFunctionMixin, Layer):
    """A preprocessing layer which maps text features to integer sequences.

    Args:
        max_tokens: the largest vocabulary size, including the padding token ''
            and the OOV token '[UNK]' (None: unlimited).
        standardize: 'lower_and_strip_punctuation' (default), 'lower',
            'strip_punctuation', None, or a callable taking and returning a
            string array.
        split: 'whitespace' (default), 'character', None, or a callable taking a
            1-D string array and returning one row of tokens per string.
        ngrams: None, an int n (all n-grams up to n) or a tuple of widths.
        output_mode: 'int' (default), 'multi_hot', 'count', 'tf_idf', or None
            (the tokens themselves).
        output_sequence_length: 'int' mode only: pad or truncate the ids to this
            length (else they are padded to the batch's longest sequence).
        pad_to_max_tokens: make vector outputs `max_tokens` wide.
        vocabulary: a list/array of strings or a text file path (one per line).
        idf_weights: 'tf_idf' weights, the same length as `vocabulary`.
        sparse: return torch sparse COO tensors in the vector modes.
        ragged: 'int' mode: return a `tf.RaggedTensor` of ids (one row per string).
        encoding: the text encoding of bytes inputs ('utf-8').

    Inputs are numpy arrays (or lists) of str of shape `(batch,)` or
    `(batch, 1)`, or a scalar string. Returns an int64 tensor `(batch,
    sequence length)` or a float tensor `(batch, vocabulary size)`. Methods:
    `adapt(data)`, `get_vocabulary()`, `set_vocabulary()`, `vocabulary_size()`.
    """

    def __init__(
        self,
        max_tokens: int | None = None,
        standardize: Any = _text.LOWER_AND_STRIP_PUNCTUATION,
        split: Any = _text.WHITESPACE,
        ngrams: int | tuple | None = None,
        output_mode: str | None = "int",
        output_sequence_length: int | None = None,
        pad_to_max_tokens: bool = False,
        vocabulary: Any = None,
        idf_weights: Any = None,
        sparse: bool = False,
        ragged: bool = False,
        encoding: str = "utf-8",
        **kwargs: Any,
    ):
        dtype = kwargs.get("dtype")
        if dtype is not None and getattr(dtype, "name", dtype) != "string":
            raise ValueError(
                f"`TextVectorization` may only have a dtype of string. Received dtype: {dtype}."
            )
        kwargs["dtype"] = "string"
        _check_choice(standardize, _STANDARDIZE, "standardize", True)
        _check_choice(split, _SPLIT, "split", True)
        if output_mode == "binary":
            output_mode = _encoding.MULTI_HOT
        if output_mode == "tf-idf":
            output_mode = _encoding.TF_IDF
        _check_choice(output_mode, _MODES, "output_mode", False)
        if not (
            ngrams is None
            or (isinstance(ngrams, int) and not isinstance(ngrams, bool))
            or (isinstance(ngrams, tuple) and all(isinstance(n, int) for n in ngrams))
        ):
            raise ValueError(
                f"`ngrams` must be None, an integer, or a tuple of integers. Received: ngrams={ngrams}"
            )
        if output_mode == _encoding.INT and not (
            output_sequence_length is None or isinstance(output_sequence_length, int)
        ):
            raise ValueError(
                "`output_sequence_length` must be either None or an integer when `output_mode` "
                f"is 'int'. Received: output_sequence_length={output_sequence_length}"
            )
        if output_mode != _encoding.INT and output_sequence_length is not None:
            raise ValueError(
                "`output_sequence_length` must not be set if `output_mode` is not 'int'. "
                f"Received output_sequence_length={output_sequence_length}."
            )
        if ragged and output_mode != _encoding.INT:
            raise ValueError(
                "`ragged` must not be true if `output_mode` is `'int'`. Received: "
                f"ragged={ragged} and output_mode={output_mode}"
            )
        self._has_input_vocabulary = kwargs.pop("has_input_vocabulary", vocabulary is not None)
        vocabulary_size = kwargs.pop("vocabulary_size", None)
        super().__init__(**kwargs)
        self._autocast = False
        self._standardize = standardize
        self._split = split
        self._ngrams_arg = ngrams
        self._ngrams = tuple(range(1, ngrams + 1)) if isinstance(ngrams, int) else ngrams
        self._ragged = bool(ragged)
        self._output_mode = output_mode
        self._output_sequence_length = output_sequence_length
        self._encoding = encoding
        self._lookup_layer = StringLookup(
            max_tokens=max_tokens, vocabulary=vocabulary, idf_weights=idf_weights,
            pad_to_max_tokens=pad_to_max_tokens, mask_token="",
            output_mode=output_mode if output_mode is not None else _encoding.INT,
            sparse=sparse, has_input_vocabulary=self._has_input_vocabulary, encoding=encoding,
            vocabulary_size=vocabulary_size,
        )
        self._has_vocabulary = vocabulary is not None
        # Strings carry no device: the ids go where the layer is (`model.to(device)` moves this).
        self.register_buffer("_device_anchor", torch.zeros(0, dtype=torch.int64), persistent=False)

    # ------------------------------------------------------------------ vocabulary
    def get_vocabulary(self, include_special_tokens: bool = True) -> list:
        """Returns the vocabulary as a list of str; with `include_special_tokens`, a term's
        position is its index ('' and '[UNK]' first in 'int' mode)."""
        return self._lookup_layer.get_vocabulary(include_special_tokens)

    def vocabulary_size(self) -> int:
        """The size of the vocabulary, including the padding and OOV indices."""
        return self._lookup_layer.vocabulary_size()

    def set_vocabulary(self, vocabulary: Any, idf_weights: Any = None) -> None:
        """Sets the vocabulary (a list/array of str or a text file path) and, for 'tf_idf', the
        IDF weights, replacing any vocabulary the layer had."""
        self._lookup_layer.set_vocabulary(vocabulary, idf_weights=idf_weights)
        self._has_vocabulary = True

    # ------------------------------------------------------------------ .keras hooks
    def save_own_variables(self, store: Any) -> None:
        """The lookup layer's `save_own_variables` (the IDF weights in 'tf_idf' mode)."""
        self._lookup_layer.save_own_variables(store)

    def load_own_variables(self, store: Any) -> None:
        """The lookup layer's `load_own_variables`."""
        self._lookup_layer.load_own_variables(store)

    def save_assets(self, dir_path: str) -> None:
        """Writes the vocabulary to `<dir_path>/vocabulary.txt` (the lookup layer's
        `save_assets`)."""
        self._lookup_layer.save_assets(dir_path)

    def load_assets(self, dir_path: str) -> None:
        """Sets the vocabulary from `<dir_path>/vocabulary.txt` (the lookup layer's
        `load_assets`)."""
        self._lookup_layer.load_assets(dir_path)
        self._has_vocabulary = True

    # ------------------------------------------------------------------ adapt
    def adapt(self, data: Any, batch_size: int | None = None, steps: int | None = None) -> None:
        """Computes the vocabulary from the tokens of `data`, most frequent first (ties by
        token, high to low), at most `max_tokens`; with 'tf_idf', also the IDF weights.

        `data` is a list, numpy array or tensor of strings (taken in batches of
        `batch_size`, 32 by default), or an iterable of string batches such as a
        `tf.data.Dataset` (at most `steps` of them). Raises ValueError when `data` is empty.
        """
        if isinstance(data, (list, tuple, np.ndarray)) or hasattr(data, "to_numpy"):
            data = _inputs.to_numpy(data, "TextVectorization")
            batch_size = batch_size or _ARRAY_BATCH
        self.reset_state()
        seen = 0
        for batch in _inputs.iter_batches(data, "TextVectorization", batch_size, steps):
            size = 1 if isinstance(batch, (str, bytes)) else int(np.size(batch))
            if size:
                seen += size
                self.update_state(batch)
        if not seen:
            raise ValueError("Expected input data to be non-empty.")
        self.finalize_state()
        self._has_vocabulary = True

    def update_state(self, data: Any) -> None:
        """Counts the tokens of one batch of strings."""
        self._lookup_layer.update_state(self._preprocess(self._strings(data)))

    def finalize_state(self) -> None:
        """Builds the vocabulary from the counted tokens."""
        self._lookup_layer.finalize_state()

    def reset_state(self) -> None:
        """Forgets the counted tokens."""
        self._lookup_layer.reset_state()

    # ------------------------------------------------------------------ call
    def _strings(self, inputs: Any) -> np.ndarray:
        if isinstance(inputs, torch.Tensor):
            raise TypeError(
                f'TextVectorization "{self.name}" takes strings (a numpy array or list of str); '
                f"received a {inputs.dtype} tensor."
            )
        array = inputs if isinstance(inputs, np.ndarray) else np.asarray(inputs, dtype=object)
        if array.dtype.kind == "S":
            array = np.char.decode(array, self._encoding).astype(object)
        elif (array.dtype.kind == "O" and array.size and self._encoding.lower().replace("-", "") != "utf8"
              and any(isinstance(v, bytes) for v in array.flat)):
            decode = np.frompyfunc(lambda v: v.decode(self._encoding) if isinstance(v, bytes) else v, 1, 1)
            array = decode(array).astype(object)
        return string_ops._strings(array, "TextVectorization")

    def _preprocess(self, values: np.ndarray) -> np.ndarray:
        """Standardized (split, n-grams) tokens: a '' padded array, one row per string."""
        values = np.asarray(_text.standardize(values, self._standardize), dtype=object)
        if self._split is not None:
            if values.ndim > 1:
                if values.shape[-1] != 1:
                    raise ValueError(
                        "When using `TextVectorization` to tokenize strings, the input rank must "
                        "be 1 or the last shape dimension must be 1. Received: "
                        f"inputs.shape={tuple(values.shape)} with rank={values.ndim}"
                    )
                values = values.reshape(values.shape[:-1])
            lead = values.shape
            rows = _text.split(values.reshape(-1), self._split)
        else:
            if self._ngrams is None:
                return values
            lead = values.shape[:-1]
            rows = [list(r) for r in values.reshape(-1, values.shape[-1] if values.ndim else 1).tolist()]
        if self._ngrams is not None:
            rows = _text.ngrams(rows, self._ngrams)
        if self._ragged:  # the token count of each row (_to_ragged)
            self._row_lengths = np.fromiter((len(r) for r in rows), dtype=np.int64,
                                            count=len(rows)).reshape(tuple(lead) or (1,))
        min_width = 1 if self._output_mode not in (_encoding.INT, None) else 0
        padded = _text.pad_rows(rows, min_width)
        return padded.reshape(tuple(lead) + (padded.shape[-1],))

    def call(self, inputs: Any) -> Any:
        """Turns strings into token ids (int64, padded with 0) or token vectors (float32)."""
        values = self._strings(inputs)
        scalar = values.ndim == 0
        if scalar and self._split is not None:
            values = values.reshape(1)
        tokens = self._preprocess(values)
        if self._output_mode is None:
            return tokens[0] if scalar and self._split is not None else tokens
        if self._output_mode == _encoding.INT and not self._has_vocabulary:
            raise FailedPreconditionError(
                None, None,
                f'TextVectorization layer "{self.name}" has no vocabulary (Table not '
                "initialized): call `adapt(data)`, `set_vocabulary(...)`, or pass `vocabulary=` "
                "before calling the layer.",
            )
        out = self._lookup_layer.call(tokens)
        if self._ragged and self._split is not None and not scalar:  # TF's ragged ids
            return self._to_ragged(out, tokens)
        if self._output_mode == _encoding.INT and out.dim() != tokens.ndim:
            out = out.reshape(tokens.shape)  # a scalar string stays a scalar id
        if self._output_mode == _encoding.INT and self._output_sequence_length is not None:
            length = int(self._output_sequence_length)
            out = out[..., :length]
            if out.shape[-1] < length:
                out = torch.nn.functional.pad(out, (0, length - out.shape[-1]))
        if scalar and self._split is not None:
            out = out[0]
        device = _inputs.nested_call_device() or self._device_anchor.device
        return _inputs.host_ids_to(out, device)

    def _to_ragged(self, ids: torch.Tensor, tokens: np.ndarray) -> Any:
        """The padded ids as a RaggedTensor: row lengths are the rows' token counts."""

        lengths = torch.from_numpy(self._row_lengths.reshape(-1))
        width = ids.shape[-1]
        present = torch.arange(width)[None, :] < lengths[:, None]
        flat = ids.reshape(-1, width).cpu()[present]
        out = RaggedTensor.from_row_lengths(flat, lengths, validate=False)
        for size in reversed(tokens.shape[1:-1]):
            out = RaggedTensor.from_uniform_row_length(out, size, validate=False)
        return out

    def compute_output_signature(self, input_spec: Any) -> Any:
        """The `TensorSpec`(s) of the outputs for inputs of `input_spec` (TF's name), with the
        dtype the layer outputs."""
        return _shape_inference.output_signature(self, input_spec)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        """`(batch, output_sequence_length)` in 'int' mode, `(batch, vocabulary size)` else."""
        shape = tuple(input_shape)
        if self._output_mode == _encoding.INT:
            if self._split is None:
                return shape if self._output_sequence_length is None else shape[:-1] + (
                    self._output_sequence_length,)
            return (shape[0] if shape else None, self._output_sequence_length)
        lookup = self._lookup_layer
        depth = lookup.max_tokens if lookup.pad_to_max_tokens else (
            lookup.vocabulary_size() if lookup.is_adapted else None)
        return (depth,) if not shape else (shape[0], depth)

    def compute_output_spec(self, inputs: Any) -> KerasTensor:
        """The symbolic output: int64 ids, float vectors, or (output_mode None) tokens."""
        if self._output_mode is None:
            return KerasTensor(tuple(inputs.shape) + (None,), _dtypes.string)
        dtype = torch.int64 if self._output_mode == _encoding.INT else self._lookup_layer._output_dtype
        if self._ragged and self._split is not None:  # a tf.RaggedTensor of ids
            spec = KerasTensor((inputs.shape[0] if inputs.shape else None, None), dtype)
            spec.ragged = True
            return spec
        return KerasTensor(self.compute_output_shape(inputs.shape), dtype)

    # ------------------------------------------------------------------ config
    def get_config(self) -> dict:
        """Returns the constructor arguments (Keras 2.15 keys).

        `vocabulary` (and `idf_weights`) hold the given vocabulary or the one learned by
        `adapt`, so a saved model (`model.save('m.keras')`) keeps it; a callable
        `standardize`/`split` must be registered (`register_keras_serializable`).
        """

        lookup = self._lookup_layer.get_config()
        config = super().get_config()
        config.update({
            "max_tokens": self._lookup_layer.max_tokens,
            "standardize": serialize_keras_object(self._standardize),
            "split": serialize_keras_object(self._split),
            "ngrams": list(self._ngrams_arg) if isinstance(self._ngrams_arg, tuple) else self._ngrams_arg,
            "output_mode": self._output_mode,
            "output_sequence_length": self._output_sequence_length,
            "pad_to_max_tokens": self._lookup_layer.pad_to_max_tokens,
            "sparse": self._lookup_layer.sparse,
            "ragged": self._ragged,
            "vocabulary": lookup["vocabulary"],
            "idf_weights": lookup["idf_weights"],
            "encoding": self._encoding,
            "vocabulary_size": self.vocabulary_size(),
        })
        if lookup["vocabulary"] is not None and not self._has_input_vocabulary:
            config["has_input_vocabulary"] = False  # learned by adapt: the layer may adapt again
        return config

    @classmethod
    def from_config(cls, config: dict) -> TextVectorization:
        """Creates the layer from `get_config()`; a callable `standardize`/`split` is looked up
        among the registered objects."""

        config = dict(config)
        for key, allowed in (("standardize", _STANDARDIZE), ("split", _SPLIT)):
            if config.get(key) is not None and config[key] not in allowed:
                config[key] = deserialize_keras_object(config[key])
        if isinstance(config.get("ngrams"), list):
            config["ngrams"] = tuple(config["ngrams"])
        return cls(**config)
