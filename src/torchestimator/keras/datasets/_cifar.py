"""Reading one CIFAR python batch (a pickled dict) without running code from it."""

from __future__ import annotations

import numpy as np

from torchestimator.keras.datasets._safe_pickle import safe_pickle_load


def load_batch(fpath: str, label_key: str = "labels") -> tuple[np.ndarray, list]:
    """Parses a CIFAR batch file.

    Args:
        fpath: path of the batch file.
        label_key: the dict key of the labels ('labels', 'fine_labels' or 'coarse_labels').

    Returns:
        `(data, labels)`: data of shape `(N, 3, 32, 32)` and the labels as stored.
    """
    with open(fpath, "rb") as f:
        d = safe_pickle_load(f, fpath, encoding="bytes")
    if not isinstance(d, dict):
        raise ValueError(f"{fpath} is not a CIFAR batch: it holds a {type(d).__name__}, not a dict.")
    d = {k.decode("utf8") if isinstance(k, bytes) else k: v for k, v in d.items()}
    for key in ("data", label_key):
        if key not in d:
            raise ValueError(
                f"{fpath} is not a CIFAR batch: it has no {key!r} entry (it has {sorted(d)})."
            )
    data = np.asarray(d["data"])
    if data.ndim != 2 or data.shape[1] != 3 * 32 * 32:
        raise ValueError(
            f"{fpath}: expected 'data' of shape (N, 3072), found {data.shape}. Delete the "
            "extracted folder and download the dataset again."
        )
    return data.reshape(data.shape[0], 3, 32, 32), d[label_key]
