"""Small models end to end against tf.keras 2.15 (fixtures/models.npz; the models are built by
the same code in both frameworks, _parity_models.py): compile with losses, metrics, weighted
metrics, loss weights and regularizers; evaluate with sample weights and a sequence mask;
predict; fit (shuffle off) with BatchNormalization, Adam, legacy RMSprop with clipnorm and
Nesterov SGD; the fit history by metric name and the weights after fit."""

import pytest
from _tf_parity import TOLERANCE, load, run_model, scaled_error

MANIFEST, ARRAYS = load("models")


@pytest.mark.parametrize("entry", MANIFEST, ids=[e["id"] for e in MANIFEST])
def test_model_matches_tf(entry):
    for name, ours, theirs in run_model(entry, ARRAYS):
        err = scaled_error(ours, theirs)
        assert err <= TOLERANCE, f"{entry['id']}: {name} differs from TF by {err:.3g}"


def test_metric_names_follow_keras():
    """'weighted_' only where a weighted metric's name repeats an unweighted one's; the output
    name first in multi-output models (cls_weighted_binary_accuracy)."""
    names = {e["id"]: e["evaluate"] for e in MANIFEST}
    assert "wxent" in names["masked_lstm"] and "weighted_sparse_categorical_accuracy" in names["masked_lstm"]
    assert "cls_weighted_binary_accuracy" in names["two_heads"] and "reg_mae" in names["two_heads"]


def test_nested_model_weight_order_and_h5_weights():
    """A model holding a model with BatchNormalization between Dense layers: `get_weights()` is
    TF's list (layer by layer, moving statistics next to gamma and beta), and TF's h5 weights
    file (trainable first within the nested model) loads into it."""
    import os

    import numpy as np
    from _parity_models import nested_batchnorm
    from _tf_parity import FIXTURES

    import torchestimator as tf

    count = sum(1 for k in ARRAYS if k.startswith("nested_batchnorm/w"))
    weights = [ARRAYS[f"nested_batchnorm/w{i}"] for i in range(count)]
    x = ARRAYS["nested_batchnorm/x"]
    model = nested_batchnorm(tf)
    assert [w.shape for w in model.get_weights()] == [w.shape for w in weights]
    model.set_weights(weights)
    for ours, theirs in zip(model.get_weights(), weights):
        np.testing.assert_array_equal(ours, theirs)
    assert scaled_error(model.predict(x, verbose=0), ARRAYS["nested_batchnorm/pred"]) <= TOLERANCE
    fresh = nested_batchnorm(tf)
    fresh.load_weights(os.path.join(FIXTURES, "nested_batchnorm.weights.h5"))
    assert scaled_error(fresh.predict(x, verbose=0), ARRAYS["nested_batchnorm/pred"]) <= TOLERANCE
