"""LazyPredictions: a TRAIN/EVAL spec's predictions are computed on first read, once, and behave
as a dict; a hook can still fetch them by name."""

import copy
import logging
import pickle

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator.estimator._lazy_predictions import LazyPredictions
from torchestimator.estimator.head import BinaryClassHead, MultiHead, RegressionHead


def counting(values):
    calls = []

    def compute():
        calls.append(1)
        return dict(values)

    return LazyPredictions(compute), calls


def test_computed_once_on_first_read_and_not_before():
    lazy, calls = counting({"a": 1, "b": 2})
    assert calls == []
    assert lazy["a"] == 1 and calls == [1]
    assert sorted(lazy) == ["a", "b"] and len(lazy) == 2 and "b" in lazy and "c" not in lazy
    assert calls == [1]


@pytest.mark.parametrize("read", [
    lambda d: dict(d),
    lambda d: {**d},
    lambda d: list(d.items()),
    lambda d: list(d.values()),
    lambda d: d.get("a"),
    lambda d: d.copy(),
    lambda d: copy.deepcopy(d),
    lambda d: pickle.loads(pickle.dumps(d)),
    lambda d: d == {"a": 1},
    lambda d: repr(d),
])
def test_every_way_of_reading_fills_it(read):
    lazy, calls = counting({"a": 1})
    out = read(lazy)
    assert calls == [1]
    if isinstance(out, dict):
        assert out == {"a": 1} and type(out) is dict


def test_writes_apply_to_the_computed_predictions():
    lazy, _ = counting({"a": 1})
    lazy["b"] = 2
    lazy.update(c=3)
    del lazy["a"]
    assert dict(lazy) == {"b": 2, "c": 3}
    assert lazy.pop("b") == 2 and lazy.setdefault("d", 4) == 4


def test_head_train_spec_predictions_are_lazy_and_correct():
    head = BinaryClassHead()
    logits = torch.tensor([[-1.0], [2.0]], requires_grad=True)
    spec = head.create_estimator_spec({}, tf.estimator.ModeKeys.TRAIN, logits, np.array([[0], [1]]),
                                      train_op_fn=lambda loss: "op")
    assert isinstance(spec.predictions, LazyPredictions) and spec.predictions._compute is not None
    assert sorted(spec.predictions) == ["class_ids", "logistic", "logits", "probabilities"]
    np.testing.assert_allclose(spec.predictions["logistic"].detach().numpy(), 1 / (1 + np.exp([[1.0], [-2.0]])),
                               rtol=1e-6)
    np.testing.assert_array_equal(spec.predictions["class_ids"].numpy(), [[0], [1]])


def test_multi_head_eval_spec_predictions_are_lazy():
    head = MultiHead([RegressionHead(name="r"), BinaryClassHead(name="b")])
    logits = {"r": torch.tensor([[0.5]]), "b": torch.tensor([[1.0]])}
    spec = head.create_estimator_spec({}, tf.estimator.ModeKeys.EVAL, logits,
                                      {"r": np.array([[1.0]]), "b": np.array([[1]])})
    assert spec.predictions._compute is not None
    assert "r/predictions" in spec.predictions and "b/probabilities" in spec.predictions


def test_a_hook_fetches_a_train_prediction_by_name(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="torchestimator")
    x = np.linspace(-1, 1, 16, dtype=np.float32)[:, None]
    y = (x > 0).astype(np.int64)

    def input_fn():
        return tf.data.Dataset.from_tensor_slices(({"x": x}, y)).batch(8)

    est = tf.estimator.LinearClassifier([tf.feature_column.numeric_column("x")], model_dir=str(tmp_path))
    hook = tf.estimator.LoggingTensorHook(["logistic"], every_n_iter=1,
                                          formatter=lambda v: f"LOGISTIC {v['logistic'].shape}")
    est.train(input_fn, hooks=[hook])
    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("LOGISTIC")]
    assert lines == ["LOGISTIC (8, 1)", "LOGISTIC (8, 1)"]
