"""`tf.keras.utils.pad_sequences` (also `tf.keras.preprocessing.sequence.pad_sequences`), as
Keras 2.15's `keras/src/utils/data_utils.py`."""

from __future__ import annotations

from typing import Any

import numpy as np


def pad_sequences(
    sequences: Any,
    maxlen: int | None = None,
    dtype: Any = "int32",
    padding: str = "pre",
    truncating: str = "pre",
    value: Any = 0.0,
) -> np.ndarray:
    """Pads sequences to the same length.

    This function transforms a list (of length `num_samples`) of sequences (lists of integers)
    into a 2D Numpy array of shape `(num_samples, num_timesteps)`. `num_timesteps` is either
    the `maxlen` argument if provided, or the length of the longest sequence in the list.
    Sequences that are shorter than `num_timesteps` are padded with `value` until they are
    `num_timesteps` long. Sequences longer than `num_timesteps` are truncated so that they fit
    the desired length. The position where padding or truncation happens is determined by
    the arguments `padding` and `truncating`, respectively. Pre-padding or removing values
    from the beginning of the sequence is the default.

    >>> sequence = [[1], [2, 3], [4, 5, 6]]
    >>> pad_sequences(sequence).tolist()
    [[0, 0, 1], [0, 2, 3], [4, 5, 6]]

    Args:
        sequences: list of sequences (each sequence is a list of integers).
        maxlen: optional int, maximum length of all sequences. If not provided, sequences
            will be padded to the length of the longest individual sequence.
        dtype: type of the output sequences. To pad sequences with variable length strings,
            you can use `object`.
        padding: string, "pre" or "post": pad either before or after each sequence.
        truncating: string, "pre" or "post": remove values from sequences larger than
            `maxlen`, either at the beginning or at the end of the sequences.
        value: float or string, padding value.

    Returns:
        Numpy array with shape `(len(sequences), maxlen)`.

    Raises:
        ValueError: in case of invalid values for `truncating` or `padding`, or in case of
            invalid shape for a `sequences` entry.
    """
    if not hasattr(sequences, "__len__"):
        raise ValueError("`sequences` must be iterable.")
    num_samples = len(sequences)

    lengths = []
    sample_shape: tuple = ()
    flag = True
    # take the sample shape from the first non empty sequence, checking for consistency below
    for x in sequences:
        try:
            lengths.append(len(x))
            if flag and len(x):
                sample_shape = np.asarray(x).shape[1:]
                flag = False
        except TypeError as e:
            raise ValueError(
                f"`sequences` must be a list of iterables. Found non-iterable: {x!s}"
            ) from e

    if maxlen is None:
        maxlen = int(np.max(lengths))

    is_dtype_str = np.issubdtype(dtype, np.str_)
    if isinstance(value, str) and np.dtype(dtype).kind != "O" and not is_dtype_str:
        raise ValueError(
            f"`dtype` {dtype} is not compatible with `value`'s type: {type(value)}\n"
            "You should set `dtype=object` for variable length strings."
        )

    x = np.full((num_samples, maxlen) + sample_shape, value, dtype=dtype)
    for idx, s in enumerate(sequences):
        if not len(s):
            continue  # empty list/array was found
        if truncating == "pre":
            trunc = s[-maxlen:]
        elif truncating == "post":
            trunc = s[:maxlen]
        else:
            raise ValueError(f'Truncating type "{truncating}" not understood')

        # check `trunc` has expected shape
        trunc = np.asarray(trunc, dtype=dtype)
        if trunc.shape[1:] != sample_shape:
            raise ValueError(
                f"Shape of sample {trunc.shape[1:]} of sequence at position {idx} is different "
                f"from expected shape {sample_shape}"
            )

        if padding == "post":
            x[idx, : len(trunc)] = trunc
        elif padding == "pre":
            x[idx, -len(trunc):] = trunc
        else:
            raise ValueError(f'Padding type "{padding}" not understood')
    return x
