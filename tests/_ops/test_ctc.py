"""tf.nn's CTC ops and TF 1's compat.v1.nn variants: values TF 2.15 gives for the same logits
(recorded by running it)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import torchestimator as tf

LOGITS = torch.from_numpy(np.random.default_rng(3).normal(size=(6, 2, 4)).astype(np.float32))  # [time, batch, classes]
LABELS = torch.tensor([[1, 2, 0], [3, 3, 1]], dtype=torch.int32)
LABEL_LENGTH, LOGIT_LENGTH = torch.tensor([2, 3]), torch.tensor([6, 5])


def _close(values, expected):
    np.testing.assert_allclose(np.asarray(values, dtype=np.float64), expected, rtol=2e-6)


def test_ctc_loss_as_tf():
    _close(tf.nn.ctc_loss(LABELS, LOGITS, LABEL_LENGTH, LOGIT_LENGTH), [2.52073335647583, 4.508001327514648])
    # a blank other than 0: TF moves it to 0 and shifts the labels below it (label 3 == blank included)
    _close(tf.nn.ctc_loss(LABELS, LOGITS, LABEL_LENGTH, LOGIT_LENGTH, blank_index=-1),
           [6.240942478179932, 5.833343029022217])
    _close(tf.nn.ctc_loss(LABELS, LOGITS.transpose(0, 1), LABEL_LENGTH, LOGIT_LENGTH, logits_time_major=False),
           [2.52073335647583, 4.508001327514648])
    sparse = tf.sparse.from_dense(torch.tensor([[1, 2, 0], [3, 3, 1]]))
    _close(tf.nn.ctc_loss(sparse, LOGITS, None, LOGIT_LENGTH), [2.520733594894409, 4.508001327514648])
    with pytest.raises(ValueError, match="label_length is required"):
        tf.nn.ctc_loss(LABELS, LOGITS, None, LOGIT_LENGTH)


def test_ctc_loss_has_gradients():
    logits = LOGITS.clone().requires_grad_(True)
    tf.nn.ctc_loss(LABELS, logits, LABEL_LENGTH, LOGIT_LENGTH).sum().backward()
    assert logits.grad is not None and torch.isfinite(logits.grad).all()


def test_decoders_as_tf():
    decoded, neg_sum = tf.nn.ctc_greedy_decoder(LOGITS, LOGIT_LENGTH)
    assert decoded[0].indices.tolist() == [[0, 0], [0, 1], [0, 2], [0, 3], [0, 4], [1, 0], [1, 1], [1, 2]]
    assert decoded[0].values.tolist() == [0, 1, 2, 0, 1, 1, 0, 1] and decoded[0].dense_shape.tolist() == [2, 5]
    _close(neg_sum.reshape(-1), [-9.839849472045898, -3.072556972503662])
    decoded, _ = tf.nn.ctc_greedy_decoder(LOGITS, LOGIT_LENGTH, merge_repeated=False, blank_index=0)
    assert decoded[0].values.tolist() == [1, 2, 2, 1, 1, 1, 1, 1] and decoded[0].dense_shape.tolist() == [2, 4]
    paths, log_probs = tf.nn.ctc_beam_search_decoder(LOGITS, LOGIT_LENGTH, beam_width=5, top_paths=2)
    assert [p.values.tolist() for p in paths] == [[0, 1, 2, 1, 0, 1], [0, 1, 2, 0, 1]]
    assert [p.dense_shape.tolist() for p in paths] == [[2, 4], [2, 4]]
    _close(log_probs, [[-2.026954174041748, -2.3446204662323], [-2.1746304035186768, -2.5835952758789062]])


def test_label_helpers_as_tf():
    unique, index = tf.nn.ctc_unique_labels(tf.constant([[3, 4, 4, 3], [1, 1, 1, 0]]))
    assert unique.tolist() == [[3, 4, 0, 0], [1, 0, 0, 0]] and index.tolist() == [[0, 1, 1, 0], [0, 0, 0, 1]]
    collapsed, lengths = tf.nn.collapse_repeated(tf.constant([[1, 1, 2, 2, 2, 3], [4, 4, 4, 5, 5, 0]]), tf.constant([6, 4]))
    assert collapsed.tolist() == [[1, 2, 3], [4, 5, 0]] and lengths.tolist() == [3, 2]


def test_tf1_ctc_loss_and_decoder_as_tf():
    sparse = tf.SparseTensor([[0, 0], [0, 1], [1, 0], [1, 1], [1, 2]], torch.tensor([1, 0, 2, 2, 1], dtype=torch.int32),
                             [2, 3])
    _close(tf.compat.v1.nn.ctc_loss(sparse, LOGITS, [6, 5]), [6.806302547454834, 5.833342552185059])
    _close(tf.compat.v1.nn.ctc_loss(sparse, LOGITS, [6, 5], preprocess_collapse_repeated=True),
           [6.806302547454834, 2.9015495777130127])
    paths, _ = tf.compat.v1.nn.ctc_beam_search_decoder(LOGITS, [6, 5], beam_width=5, top_paths=2)
    assert [p.values.tolist() for p in paths] == [[0, 1, 2, 1, 0, 1], [0, 1, 2, 0, 1]]
    with pytest.raises(TypeError, match="SparseTensor"):
        tf.compat.v1.nn.ctc_loss(LABELS, LOGITS, [6, 5])
