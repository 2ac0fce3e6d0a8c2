"""`trainable_variables`: one list of a canned model's trainable weights, kept across steps."""

import numpy as np
import torch

import torchestimator as tf
from torchestimator._engine.object_scope import ObjectScope
from torchestimator.estimator.canned._trainable import trainable_variables
from torchestimator.estimator.canned.linear import linear_logits


def test_trainable_weights_are_kept_until_a_layer_is_frozen():
    first, second = tf.keras.layers.Dense(2), tf.keras.layers.Dense(1)
    first.build((None, 3))
    second.build((None, 2))
    weights = trainable_variables([first, second])
    assert [w.shape for w in weights] == [(3, 2), (2,), (2, 1), (1,)]
    assert trainable_variables([first, second]) is weights  # the same list while nothing changed
    second.trainable = False
    assert [w.shape for w in trainable_variables([first, second])] == [(3, 2), (2,)]


def test_linear_logits_hand_back_one_variable_list_across_calls():
    columns = (tf.feature_column.numeric_column("x"),
               tf.feature_column.categorical_column_with_identity("k", 4))
    features = {"x": torch.tensor([[1.0], [2.0]]), "k": torch.tensor([[1], [3]])}
    scope = ObjectScope()
    with scope:
        logits, first = linear_logits(features, 1, columns)
    with scope:
        _, second = linear_logits(features, 1, columns)
    assert second is first  # the train op then skips rebuilding the optimizer
    model = next(iter(scope.objects.values()))
    assert [id(v) for v in first] == [id(p) for p in model.parameters() if p.requires_grad]
    assert logits.shape == (2, 1) and np.allclose(logits.detach().numpy(), 0.0)
