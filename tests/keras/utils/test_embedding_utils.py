"""`tf.keras.utils.warmstart_embedding_matrix` against TF 2.15
(tools/make_tf_datasets_fixtures.py -> fixtures/tf_utils_misc_2.15.json)."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
import torch

import torchestimator as tf

with open(os.path.join(os.path.dirname(__file__), "fixtures", "tf_utils_misc_2.15.json")) as _f:
    TF = json.load(_f)

BASE_VOCAB = ["a", "b", "c", "d"]
NEW_VOCAB = ["d", "x", "b", "a", "y"]


@pytest.mark.parametrize("case", TF["warmstart"], ids=lambda c: str(c["init"]))
def test_warmstart_matches_tf(case):
    base = np.arange(12, dtype=np.float32).reshape(4, 3)
    out = tf.keras.utils.warmstart_embedding_matrix(
        BASE_VOCAB, NEW_VOCAB, base, new_embeddings_initializer=tf.keras.initializers.get(case["init"]))
    assert isinstance(out, torch.Tensor) and out.dtype == torch.float32
    np.testing.assert_array_equal(out.numpy(), np.array(case["out"], dtype=np.float32))


def test_warmstart_vocab_kinds_and_default_initializer(tmp_path):
    base = torch.arange(8, dtype=torch.float64).reshape(4, 2)
    vocab_file = tmp_path / "vocab.txt"
    vocab_file.write_text("a\nb\nc\nd\n")
    tf.keras.utils.set_random_seed(0)
    out = tf.keras.utils.warmstart_embedding_matrix(
        str(vocab_file), np.array(["c", "new", "a"]), base)
    assert out.dtype == torch.float64 and out.shape == (3, 2)
    assert out[0].tolist() == [4.0, 5.0] and out[2].tolist() == [0.0, 1.0]
    assert torch.all(out[1].abs() <= 0.05)  # 'uniform': RandomUniform(-0.05, 0.05)


def test_warmstart_errors(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        tf.keras.utils.warmstart_embedding_matrix(str(tmp_path / "nope.txt"), ["a"], np.zeros((1, 2)))
    with pytest.raises(ValueError, match="at least one token"):
        tf.keras.utils.warmstart_embedding_matrix([], ["a"], np.zeros((0, 2)))
    with pytest.raises(ValueError, match="base_embeddings must have shape"):
        tf.keras.utils.warmstart_embedding_matrix(["a", "b"], ["a"], np.zeros((3, 2)))
