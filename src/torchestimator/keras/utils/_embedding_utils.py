"""`warmstart_embedding_matrix`: carry learned embedding rows over to a new vocabulary."""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import torch

from torchestimator.keras import initializers


def _vocab_to_list(vocab: Any, argument: str) -> list:
    """A vocabulary (list, tuple, numpy array, 1-D tensor or text file path) as a list."""
    if isinstance(vocab, torch.Tensor):
        vocab_list = vocab.detach().cpu().tolist()
    elif isinstance(vocab, np.ndarray):
        vocab_list = vocab.tolist()
    elif isinstance(vocab, (tuple, list)):
        vocab_list = list(vocab)
    elif isinstance(vocab, (str, os.PathLike)):
        if not os.path.exists(vocab):
            raise ValueError(f"Vocabulary file {os.fspath(vocab)} does not exist ({argument}).")
        with open(vocab, encoding="utf-8") as vocabulary_file:
            vocab_list = vocabulary_file.read().splitlines()
    else:
        raise ValueError(
            f"{argument}: Vocabulary is expected to be either a NumPy array, list, 1D tensor "
            f"or a vocabulary text file. Instead type {type(vocab)} was received."
        )
    if len(vocab_list) == 0:
        raise ValueError(
            f"{argument}: Vocabulary is expected to be either a NumPy array, list, 1D tensor or "
            "a vocabulary text file with at least one token. Received 0 instead."
        )
    return [v.decode("utf-8") if isinstance(v, bytes) else v for v in vocab_list]


def warmstart_embedding_matrix(
    base_vocabulary: Any,
    new_vocabulary: Any,
    base_embeddings: Any,
    new_embeddings_initializer: Any = "uniform",
) -> torch.Tensor:
    """Warm start embedding matrix with changing vocab.

    This util can be used to warmstart the embedding layer matrix when vocabulary changes
    between previously saved checkpoint and model. Each row of the result whose token is in
    `base_vocabulary` is copied from `base_embeddings`; the others come from
    `new_embeddings_initializer`.

    Args:
        base_vocabulary: the list of vocabulary terms that the preexisting embedding matrix
            `base_embeddings` represents (list, numpy array, 1-D tensor or a text file with
            one token per line).
        new_vocabulary: the list of vocabulary terms for the new embedding matrix (same kinds).
        base_embeddings: NumPy array or tensor of shape `(len(base_vocabulary), dim)`.
        new_embeddings_initializer: initializer for embedding vectors for previously unseen
            terms to be added to the new embedding matrix (see `tf.keras.initializers`).
            Defaults to "uniform".

    Returns:
        A `torch.Tensor` of shape `(len(new_vocabulary), dim)` with `base_embeddings`' dtype:
        the warm-started embedding matrix.
    """
    base_vocabulary = _vocab_to_list(base_vocabulary, "base_vocabulary")
    new_vocabulary = _vocab_to_list(new_vocabulary, "new_vocabulary")
    base = torch.as_tensor(np.asarray(base_embeddings) if not isinstance(base_embeddings, torch.Tensor)
                           else base_embeddings)
    if base.ndim != 2 or base.shape[0] != len(base_vocabulary):
        raise ValueError(
            "base_embeddings must have shape (len(base_vocabulary), embedding_dim) = "
            f"({len(base_vocabulary)}, dim); received shape {tuple(base.shape)}."
        )
    initializer = initializers.get(new_embeddings_initializer)
    new_embedding = torch.as_tensor(
        initializer(shape=(len(new_vocabulary), base.shape[1]), dtype=base.dtype)
    ).to(device=base.device, dtype=base.dtype)

    base_index = dict(zip(base_vocabulary, range(len(base_vocabulary))))
    indices_base, indices_new = [], []
    for index, key in enumerate(new_vocabulary):
        if key in base_index:
            indices_base.append(base_index[key])
            indices_new.append(index)
    if indices_base:
        new_embedding = new_embedding.clone()
        new_embedding[torch.tensor(indices_new, device=base.device)] = base[
            torch.tensor(indices_base, device=base.device)
        ].detach()
    return new_embedding
