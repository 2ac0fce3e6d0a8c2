"""`IndexLookup`: the logic StringLookup and IntegerLookup share (Keras 2.15's `IndexLookup`).

Index layout: `[mask_token]` (only when set and `output_mode='int'`), then
`num_oov_indices` out-of-vocabulary slots, then the vocabulary. With more than
one OOV slot, an unknown string goes to `FarmHash64(value) % num_oov_indices`
(`tf.strings.to_hash_bucket_fast`), an unknown integer to `value % num_oov_indices`.
`adapt` orders the vocabulary by decreasing frequency, ties by decreasing token.

Lookups are vectorized: each batch's distinct values are found in the sorted
vocabulary by binary search (numpy), never one Python call per value.
"""

from __future__ import annotations

import logging
import os
from typing import Any

import numpy as np
import torch

from torchestimator import _dtypes, _hashing
from torchestimator._ragged_tensor import is_ragged
from torchestimator.data.string_tensor import for_user
from torchestimator.keras.engine import shape_inference as _shape_inference
from torchestimator.keras.engine.base_layer import Layer
from torchestimator.keras.engine.keras_tensor import KerasTensor
from torchestimator.keras.layers.preprocessing import _encoding, _inputs
from torchestimator.keras.layers.preprocessing._adapt import AdaptFunctionMixin
from torchestimator.keras.layers.preprocessing._vocab import (
    TokenCounter,
    VocabTable,
    strings_to_unique,
)

_MODES = (_encoding.INT, _encoding.ONE_HOT, _encoding.MULTI_HOT, _encoding.COUNT, _encoding.TF_IDF)
_INT64_MAX = np.iinfo(np.int64).max


_log = logging.getLogger("torchestimator")


class IndexLookup(AdaptFunctionMixin, Layer):
    """Maps values from a vocabulary to integer indices (base of StringLookup/IntegerLookup)."""

    _supports_ragged_inputs = True  # a RaggedTensor reaches `call` (keras/_ragged_inputs.py)

    def __init__(
        self,
        max_tokens: int | None,
        num_oov_indices: int,
        mask_token: Any,
        oov_token: Any,
        vocabulary_dtype: str,
        vocabulary: Any = None,
        idf_weights: Any = None,
        invert: bool = False,
        output_mode: str = "int",
        sparse: bool = False,
        pad_to_max_tokens: bool = False,
        **kwargs: Any,
    ):
        cls = type(self).__name__
        if max_tokens is not None and (not hasattr(max_tokens, "__index__") or max_tokens <= 1):
            raise ValueError(
                f"If set, `max_tokens` for `{cls}` must be greater than 1. Received: "
                f"max_tokens={max_tokens!r}"
            )
        if pad_to_max_tokens and max_tokens is None:
            raise ValueError(
                f"If pad_to_max_tokens is True, must set `max_tokens`. Received: max_tokens={max_tokens}"
            )
        if not hasattr(num_oov_indices, "__index__") or num_oov_indices < 0:
            raise ValueError(
                f"`num_oov_indices` for `{cls}` must be greater than or equal to 0. Received: "
                f"num_oov_indices={num_oov_indices!r}"
            )
        if output_mode == "binary":
            output_mode = _encoding.MULTI_HOT
        if output_mode == "tf-idf":
            output_mode = _encoding.TF_IDF
        if output_mode not in _MODES:
            raise ValueError(
                f"Unknown value for `output_mode` of `{cls}`. Allowed values are {list(_MODES)}. "
                f"Received: output_mode={output_mode!r}"
            )
        if invert and output_mode != _encoding.INT:
            raise ValueError(
                f"`output_mode` must be `'int'` when `invert` is true. Received: output_mode={output_mode!r}"
            )
        if sparse and output_mode == _encoding.INT:
            raise ValueError(
                "`sparse` may only be true if `output_mode` is `'one_hot'`, `'multi_hot'`, "
                f"`'count'` or `'tf_idf'`. Received: sparse={sparse} and output_mode={output_mode!r}"
            )
        if idf_weights is not None and output_mode != _encoding.TF_IDF:
            raise ValueError(
                "`idf_weights` should only be set if `output_mode` is `'tf_idf'`. Received: "
                f"idf_weights={idf_weights!r} and output_mode={output_mode!r}"
            )
        kwargs.pop("vocabulary_size", None)
        has_input_vocabulary = kwargs.pop("has_input_vocabulary", vocabulary is not None)
        if kwargs.get("dtype") is None:
            kwargs["dtype"] = "int64" if output_mode == _encoding.INT else "float32"
        super().__init__(**kwargs)
        self._autocast = False  # never cast float inputs to the int64 layer dtype
        self.invert = bool(invert)
        self.max_tokens = None if max_tokens is None else int(max_tokens)
        self.num_oov_indices = int(num_oov_indices)
        self.mask_token = mask_token
        self.oov_token = oov_token
        self.output_mode = output_mode
        self.sparse = bool(sparse)
        self.pad_to_max_tokens = bool(pad_to_max_tokens)
        self.vocabulary_dtype = vocabulary_dtype
        self._string = vocabulary_dtype == "string"
        self._output_dtype = torch.float32 if self._compute_dtype == torch.int64 else self._compute_dtype
        self.input_vocabulary = vocabulary
        self.input_idf_weights = idf_weights
        self._has_input_vocabulary = bool(has_input_vocabulary)
        self._table = VocabTable(self._empty_tokens())
        self._idf: torch.Tensor | None = None
        self._called_vocab_size: int | None = None
        self.reset_state()
        if output_mode == _encoding.TF_IDF and self._has_input_vocabulary and idf_weights is None:
            raise ValueError(
                "When specifying the `vocabulary` argument, in TF-IDF output mode, the "
                "`idf_weights` argument must also be provided."
            )
        if vocabulary is not None:
            self.set_vocabulary(vocabulary, idf_weights)

    # ------------------------------------------------------------------ tokens
    def _empty_tokens(self) -> np.ndarray:
        return np.zeros(0, dtype=str if self._string else np.int64)

    def _as_tokens(self, values: Any) -> np.ndarray:
        array = _inputs.to_numpy(values, type(self).__name__).reshape(-1)
        if self._string:
            uniq, inverse = strings_to_unique(array, getattr(self, "encoding", "utf-8"))
            return uniq[inverse]
        if array.dtype.kind not in "iub":
            raise ValueError(
                f'{type(self).__name__} "{self.name}" takes integer values; received an array of '
                f"dtype {array.dtype}."
            )
        return array.astype(np.int64)

    def _oov_start_index(self) -> int:
        return 1 if self.mask_token is not None and self.output_mode == _encoding.INT else 0

    def _token_start_index(self) -> int:
        return self._oov_start_index() + self.num_oov_indices

    # ------------------------------------------------------------------ vocabulary
    def vocabulary_size(self) -> int:
        """The size of the vocabulary, including the mask and OOV indices."""
        return len(self._table) + self._token_start_index()

    def vocab_size(self) -> int:
        """Deprecated alias of `vocabulary_size()` (it logs a warning, as TF's)."""
        _log.warning("vocab_size is deprecated, please use vocabulary_size.")
        return self.vocabulary_size()

    def get_vocabulary(self, include_special_tokens: bool = True) -> list:
        """Returns the vocabulary as a list (an index's token at that position).

        With `include_special_tokens`, the mask token (int mode) and the OOV
        tokens come first, so a term's position equals its index.
        """
        specials = [self.mask_token] * self._oov_start_index() + [self.oov_token] * self.num_oov_indices
        tokens = self._table.tokens.tolist()
        if not include_special_tokens:
            return tokens
        return [_plain(t) for t in specials] + tokens

    def set_vocabulary(self, vocabulary: Any, idf_weights: Any = None) -> None:
        """Sets the vocabulary (and, for 'tf_idf', the IDF weights) directly, replacing any.

        `vocabulary` is a list/array/tensor of terms or the path of a text file
        with one term per line. It may start with the special tokens in index
        order (mask, then OOV); otherwise they are added in front.
        """
        if self.output_mode == _encoding.TF_IDF:
            if idf_weights is None:
                raise ValueError("`idf_weights` must be set if output_mode is 'tf_idf'.")
        elif idf_weights is not None:
            raise ValueError(
                "`idf_weights` should only be set if output_mode is `'tf_idf'`. Received: "
                f"output_mode={self.output_mode} and idf_weights={idf_weights!r}"
            )
        if isinstance(vocabulary, (str, os.PathLike)):
            vocabulary = self._read_vocabulary_file(os.fspath(vocabulary))
        vocab = self._as_tokens(vocabulary)
        if vocab.size == 0:
            raise ValueError(f"Cannot set an empty vocabulary. Received: vocabulary={vocabulary!r}")
        token_start = self._token_start_index()
        specials = [self.mask_token] * self._oov_start_index() + [self.oov_token] * self.num_oov_indices
        found_specials = len(vocab) >= token_start and all(
            _plain(a) == _plain(b) for a, b in zip(vocab[:token_start].tolist(), specials)
        )
        tokens = vocab[token_start:] if found_specials else vocab
        uniq, counts = np.unique(tokens, return_counts=True)
        if (counts > 1).any():
            raise ValueError(
                "The passed vocabulary has at least one repeated term. Please uniquify your "
                f"dataset. The repeated terms are: {uniq[counts > 1].tolist()}"
            )
        where = "Note that passed `vocabulary` does not need to include the OOV and mask tokens. "
        if self.mask_token is not None and (tokens == self.mask_token).any():
            raise ValueError(
                f"Found reserved mask token at unexpected location in `vocabulary`. {where}Either "
                "remove all mask and OOV tokens, or include them only at the start of the "
                f"vocabulary in precisely this order: {specials}. Received: mask_token="
                f"{self.mask_token!r} at vocabulary index {np.nonzero(vocab == self.mask_token)[0].tolist()}"
            )
        if self.oov_token is not None and self.invert and (tokens == self.oov_token).any():
            raise ValueError(
                f"Found reserved OOV token at unexpected location in `vocabulary`. {where}Either "
                "remove all mask and OOV tokens, or include them only at the start of the "
                f"vocabulary in precisely this order: {specials}. Received: oov_token="
                f"{self.oov_token!r} at vocabulary index {np.nonzero(vocab == self.oov_token)[0].tolist()}"
            )
        new_size = token_start + len(tokens)
        if self.max_tokens is not None and new_size > self.max_tokens:
            raise ValueError(
                "Attempted to set a vocabulary larger than the maximum vocab size. Received "
                f"vocabulary size is {new_size}; `max_tokens` is {self.max_tokens}."
            )
        self._check_size_unchanged(new_size)
        self._table = VocabTable(tokens)
        if self.output_mode == _encoding.TF_IDF:
            weights = np.asarray(
                idf_weights.detach().cpu().numpy() if isinstance(idf_weights, torch.Tensor) else idf_weights,
                dtype=np.float64,
            )
            if weights.ndim != 1:
                raise ValueError(f"TF-IDF data must be a 1-index array. Received: shape {weights.shape}")
            if len(weights) != len(vocab):
                raise ValueError(
                    "`idf_weights` must be the same length as vocabulary. len(idf_weights) is "
                    f"{len(weights)}; len(vocabulary) is {len(vocab)}"
                )
            front = 0 if found_specials else token_start
            front_value = 0.0 if found_specials else float(np.average(weights))
            self._set_idf(weights, front, front_value)

    def _set_idf(self, weights: np.ndarray, front: int, front_value: float) -> None:
        back = 0
        if self.pad_to_max_tokens and self.max_tokens is not None:
            back = max(self.max_tokens - front - len(weights), 0)
        padded = np.pad(weights, (front, back), "constant", constant_values=(front_value, 0.0))
        self._idf = torch.as_tensor(padded, dtype=self._output_dtype)

    def _read_vocabulary_file(self, path: str) -> list:
        if not os.path.exists(path):
            raise ValueError(f"Vocabulary file {path} does not exist.")
        if self.output_mode == _encoding.TF_IDF:
            raise ValueError("output_mode `'tf_idf'` does not support loading a vocabulary from file.")
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
        if lines and lines[-1] == "":
            lines = lines[:-1]
        return lines if self._string else [int(v) for v in lines]

    # ------------------------------------------------------------------ .keras hooks
    def save_own_variables(self, store: Any) -> None:
        """Writes the layer's weights into `store` (Keras 2.15's weights-store hook): in
        'tf_idf' mode the IDF weights as `store["idf_weights"]`, else nothing (the vocabulary
        is an asset, `save_assets`)."""
        if self.output_mode == _encoding.TF_IDF and self._idf is not None:
            store["idf_weights"] = self._idf.detach().cpu().numpy()

    def load_own_variables(self, store: Any) -> None:
        """Restores what `save_own_variables` wrote (the IDF weights in 'tf_idf' mode)."""
        if self.output_mode == _encoding.TF_IDF:
            self._idf = torch.as_tensor(np.asarray(store["idf_weights"]), dtype=self._output_dtype)

    def save_assets(self, dir_path: str) -> None:
        """Writes the vocabulary, special tokens included, one per line, to
        `<dir_path>/vocabulary.txt` (Keras 2.15's assets hook of the `.keras` format); nothing
        for a layer given its `vocabulary` (its config holds it)."""
        if self._has_input_vocabulary:
            return
        vocabulary = self.get_vocabulary(include_special_tokens=True)
        with open(os.path.join(dir_path, "vocabulary.txt"), "w", encoding="utf-8") as f:
            f.write("\n".join(str(w) for w in vocabulary))

    def load_assets(self, dir_path: str) -> None:
        """Sets the vocabulary from `<dir_path>/vocabulary.txt` (what `save_assets` wrote);
        nothing for a layer given its `vocabulary`. In 'tf_idf' mode the IDF weights are left
        as they are (`load_own_variables` restores them; zeros on a fresh layer), as TF's."""
        if self._has_input_vocabulary:
            return
        with open(os.path.join(dir_path, "vocabulary.txt"), encoding="utf-8") as f:
            lines = f.read().split("\n")
        values = lines if self._string else [int(line) for line in lines]
        if self.output_mode == _encoding.TF_IDF:
            kept = self._idf
            self.set_vocabulary(values, idf_weights=np.zeros(len(values)))
            if kept is not None:
                self._idf = kept
        else:
            self.set_vocabulary(values)

    def _check_size_unchanged(self, new_size: int) -> None:
        if self.output_mode == _encoding.INT or self.pad_to_max_tokens:
            return
        if self._called_vocab_size is not None and new_size != self._called_vocab_size:
            raise RuntimeError(
                f"When using `output_mode={self.output_mode}` and `pad_to_max_tokens=False`, the "
                "vocabulary size cannot be changed after the layer is called. Old vocab size is "
                f"{self._called_vocab_size}, new vocab size is {new_size}"
            )

    # ------------------------------------------------------------------ adapt
    @property
    def is_adapted(self) -> bool:
        """Whether the layer has a vocabulary (given or learned)."""
        return len(self._table) > 0

    def adapt(self, data: Any, batch_size: int | None = None, steps: int | None = None) -> None:
        """Learns the vocabulary (ordered by frequency) from `data`.

        `data` is an array/tensor/list (a 1-D array is a list of documents of
        one token) or an iterable of batches (a 1-D batch is one document).
        """
        self.reset_state()
        if isinstance(data, (np.ndarray, torch.Tensor, list, tuple)) or hasattr(data, "to_numpy"):
            array = _inputs.to_numpy(data, type(self).__name__)
            if array.ndim == 1:
                array = array[:, None]
            batches = _inputs.iter_batches(array, type(self).__name__, batch_size, steps)
        else:
            batches = _inputs.iter_batches(data, type(self).__name__, batch_size, steps)
        for batch in batches:
            self.update_state(batch)
        self.finalize_state()

    def reset_state(self) -> None:
        """Forgets the token counts gathered by `update_state`."""
        self._token_counts = TokenCounter()
        self._doc_counts = TokenCounter()
        self._num_documents = 0

    def update_state(self, data: Any) -> None:
        """Counts the tokens of one batch (and, for 'tf_idf', the documents they occur in)."""
        if self._has_input_vocabulary:
            raise ValueError(
                f"Cannot adapt layer '{self.name}' after setting a static vocabulary via "
                "`vocabulary` argument or `set_vocabulary()` method."
            )
        array = _inputs.to_numpy(data, type(self).__name__)
        if array.ndim == 0:
            array = array.reshape(1)
        if array.ndim == 1:
            array = array[None, :]  # one document
        tokens = self._as_tokens(array)
        uniq, inverse, counts = np.unique(tokens, return_inverse=True, return_counts=True)
        self._token_counts.add(uniq, counts)
        if self.output_mode == _encoding.TF_IDF:
            rows = array.shape[0]
            row_of = np.repeat(np.arange(rows, dtype=np.int64), tokens.size // max(rows, 1))
            pairs = np.unique(row_of * len(uniq) + inverse.reshape(-1))
            self._doc_counts.add(uniq, np.bincount(pairs % len(uniq), minlength=len(uniq)))
            self._num_documents += rows

    def finalize_state(self) -> None:
        """Builds the vocabulary from the counts: most frequent first, at most `max_tokens`."""
        if self._has_input_vocabulary or len(self._token_counts) == 0:
            return
        tokens, counts = self._token_counts.result()
        drop = np.zeros(len(tokens), dtype=bool)
        for special in (self.mask_token, self.oov_token):
            if special is not None:
                drop |= tokens == special
        tokens, counts = tokens[~drop], counts[~drop]
        order = np.lexsort((tokens, counts))[::-1]
        token_start = self._token_start_index()
        if self.max_tokens:
            order = order[: self.max_tokens - token_start]
        tokens = tokens[order]
        self._check_size_unchanged(token_start + len(tokens))
        self._table = VocabTable(tokens)
        if self.output_mode == _encoding.TF_IDF:
            doc_tokens, doc_counts = self._doc_counts.result()
            per_token = doc_counts[VocabTable(doc_tokens).positions(tokens)] if len(tokens) else doc_counts[:0]
            idf = np.log(1.0 + self._num_documents / (1.0 + per_token.astype(np.float64)))
            idf = idf.astype(np.float32).astype(np.float64)
            self._set_idf(idf, token_start, float(idf.mean()) if len(idf) else 0.0)
        self.reset_state()

    # ------------------------------------------------------------------ call
    def _lookup(self, values: np.ndarray) -> np.ndarray:
        flat = values.reshape(-1)
        if self._string:
            if flat.dtype.kind not in "USO":
                raise ValueError(
                    f'{type(self).__name__} "{self.name}" takes string inputs; received an array '
                    f"of dtype {flat.dtype}. Use IntegerLookup for integers."
                )
            uniq, inverse = strings_to_unique(flat, getattr(self, "encoding", "utf-8"))
        else:
            if flat.dtype.kind not in "iub":
                raise ValueError(
                    f'{type(self).__name__} "{self.name}" takes integer inputs; received an array '
                    f"of dtype {flat.dtype}."
                )
            uniq, inverse = flat.astype(np.int64), None
        pos = self._table.positions(uniq)
        found = pos >= 0
        if self.num_oov_indices == 0:
            default: Any = -1
        elif self.num_oov_indices == 1:
            default = self._oov_start_index()
        elif self._string:
            default = _hashing.hash_bucket(uniq, self.num_oov_indices) + self._oov_start_index()
        else:
            default = np.mod(uniq, self.num_oov_indices) + self._oov_start_index()
        ids = np.where(found, pos + self._token_start_index(), default).astype(np.int64)
        if self.mask_token is not None:
            mask_value = 0 if self.output_mode == _encoding.INT else _INT64_MAX
            ids = np.where(uniq == self.mask_token, mask_value, ids)
        if self.num_oov_indices == 0 and (ids == -1).any():
            raise ValueError(
                "When `num_oov_indices=0` all inputs should be in vocabulary, found OOV values "
                f"{uniq[ids == -1][:20].tolist()}, consider setting `num_oov_indices=1`."
            )
        if inverse is not None:
            ids = ids[inverse]
        return ids.reshape(values.shape)

    def _invert(self, ids: np.ndarray) -> np.ndarray:
        vocab = np.asarray(self.get_vocabulary(), dtype=object if self._string else np.int64)
        size = len(vocab)
        token_start = self._token_start_index()
        valid = (ids >= token_start) & (ids < size)
        picked = vocab[np.clip(ids, 0, max(size - 1, 0))] if size else np.zeros(ids.shape, vocab.dtype)
        oov = self.oov_token if self.oov_token is not None else ("" if self._string else -1)
        out = np.where(valid, picked, oov)
        if self.mask_token is not None:
            out = np.where(ids == 0, self.mask_token, out)
        return out.astype(object) if self._string else out.astype(np.int64)

    def call(self, inputs: Any) -> Any:
        """Looks every value up; returns int64 indices, encoded vectors, or (invert) the terms.
        A `tf.RaggedTensor` input gives a RaggedTensor of the same row lengths (indices, or
        the terms with `invert=True`), as TF."""
        if is_ragged(inputs):  # encoded vectors come from the padded rows, as before
            if self.invert or self.output_mode == _encoding.INT:
                return inputs.with_flat_values(self.call(inputs.flat_values))
            return self.call(inputs.to_tensor())
        device = _inputs.device_of(inputs)
        values = _inputs.to_numpy(inputs, type(self).__name__)
        if self.invert:
            if values.dtype.kind not in "iub":
                raise ValueError(
                    f'{type(self).__name__} "{self.name}" with invert=True takes integer indices; '
                    f"received an array of dtype {values.dtype}."
                )
            out = self._invert(values.astype(np.int64))
            # strings as a dataset gives them: `.numpy()` reads TF's bytes
            return for_user(out) if self._string else _inputs.host_ids_to(out, device)
        ids = _inputs.host_ids_to(self._lookup(values), device)
        if self.output_mode == _encoding.INT:
            return ids
        depth = self._depth()
        if self._called_vocab_size is None and not self.pad_to_max_tokens:
            self._called_vocab_size = depth
        return _encoding.encode(ids, self.output_mode, depth, self._output_dtype, self.sparse,
                                idf_weights=self._idf)

    def _depth(self) -> int:
        if self.pad_to_max_tokens:
            return int(self.max_tokens)
        if not len(self._table):
            raise RuntimeError(
                f"When using `output_mode={self.output_mode}` and `pad_to_max_tokens=False`, you "
                "must set the layer's vocabulary before calling it. Either pass a `vocabulary` "
                "argument to the layer, or call `adapt` with some sample data."
            )
        return self.vocabulary_size()

    def compute_output_signature(self, input_spec: Any) -> Any:
        """The `TensorSpec`(s) of the outputs for inputs of `input_spec` (TF's name), with the
        dtype the layer outputs."""
        return _shape_inference.output_signature(self, input_spec)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        """The input shape ('int'), or `(..., vocabulary size)` for vector outputs."""
        if self.output_mode == _encoding.INT:
            return tuple(input_shape)
        depth = self.max_tokens if self.pad_to_max_tokens else (self.vocabulary_size() if len(self._table) else None)
        return _encoding.encoded_shape(input_shape, self.output_mode, depth)

    def compute_output_spec(self, inputs: Any) -> KerasTensor:
        """The symbolic output: int64 ids, float vectors, or (invert) terms."""
        if self.invert:
            dtype: Any = _dtypes.string if self._string else _dtypes.int64
        elif self.output_mode == _encoding.INT:
            dtype = _dtypes.int64
        else:
            dtype = self._output_dtype
        return KerasTensor(self.compute_output_shape(inputs.shape), dtype)

    # ------------------------------------------------------------------ config
    def get_config(self) -> dict:
        """Returns the constructor arguments (Keras 2.15 keys).

        `vocabulary` (and `idf_weights`) hold the given vocabulary, or the one
        learned by `adapt` (without special tokens), so the config alone
        rebuilds an equivalent layer.
        """
        config = super().get_config()
        vocabulary: Any = _listify(self.input_vocabulary)
        idf: Any = _listify(self.input_idf_weights)
        if vocabulary is None and len(self._table):
            vocabulary = [_plain(t) for t in self._table.tokens.tolist()]
            if self._idf is not None:
                idf = self._idf[self._token_start_index(): self.vocabulary_size()].tolist()
        config.update({
            "invert": self.invert,
            "max_tokens": self.max_tokens,
            "num_oov_indices": self.num_oov_indices,
            "oov_token": _plain(self.oov_token),
            "mask_token": _plain(self.mask_token),
            "output_mode": self.output_mode,
            "sparse": self.sparse,
            "pad_to_max_tokens": self.pad_to_max_tokens,
            "vocabulary": vocabulary,
            "idf_weights": idf,
            "vocabulary_size": self.vocabulary_size(),
        })
        return config


def _plain(value: Any) -> Any:
    """numpy scalars to Python values (for lists and JSON)."""
    return value.item() if isinstance(value, np.generic) else value


def _listify(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        value = value.detach().cpu().numpy()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, tuple):
        return list(value)
    return value

