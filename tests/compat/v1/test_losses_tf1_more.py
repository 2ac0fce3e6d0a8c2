"""`tf.compat.v1.losses`: add_loss, cosine_distance, hinge_loss, huber_loss, log_loss and
mean_pairwise_squared_error against TF 2.15's graph values (fixtures/tf1_api.json, key
"losses", recorded by tools/make_tf1_api_fixtures.py)."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator._engine.object_scope import ObjectScope

L = tf.compat.v1.losses
R = L.Reduction

with open(os.path.join(os.path.dirname(__file__), "fixtures", "tf1_api.json"), encoding="utf-8") as _f:
    TF = json.load(_f)["losses"]

LAB = np.array([[0.0, 1.0], [1.0, 0.5], [0.2, 0.0], [1.0, 1.0]], np.float32)
PRED = torch.tensor([[0.1, 0.8], [0.7, 0.4], [0.9, 0.3], [0.6, 0.2]])
W_ROW = np.array([[1.0], [0.0], [2.0], [0.5]], np.float32)

CASES = {
    "cosine_distance": lambda w, r: L.cosine_distance(LAB, PRED, axis=1, weights=w, reduction=r),
    "hinge_loss": lambda w, r: L.hinge_loss(np.round(LAB), PRED * 2 - 1, weights=w, reduction=r),
    "huber_loss": lambda w, r: L.huber_loss(LAB * 3, PRED, weights=w, delta=0.5, reduction=r),
    "log_loss": lambda w, r: L.log_loss(np.round(LAB), PRED, weights=w, reduction=r),
}
REDUCTIONS = ("NONE", "SUM", "MEAN", "SUM_OVER_BATCH_SIZE", "SUM_BY_NONZERO_WEIGHTS")


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("weights", ["w1", "wrow"])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_loss_matches_tf(name, weights, reduction):
    w = 1.0 if weights == "w1" else W_ROW
    got = CASES[name](w, getattr(R, reduction)).numpy()
    np.testing.assert_allclose(got.reshape(-1), np.reshape(TF[f"{name}/{weights}/{reduction}"], -1),
                               rtol=1e-5, atol=1e-6)


def test_default_reduction_is_sum_by_nonzero_weights():
    assert float(L.huber_loss(LAB * 3, PRED, delta=0.5)) == pytest.approx(
        TF["huber_loss/w1/SUM_BY_NONZERO_WEIGHTS"], rel=1e-5)
    np.testing.assert_allclose(float(L.log_loss(np.round(LAB), PRED, weights=W_ROW)),
                               TF["log_loss/wrow/SUM_BY_NONZERO_WEIGHTS"], rtol=1e-5)


@pytest.mark.parametrize("weights", ["w1", "wrow", "w3"])
def test_mean_pairwise_squared_error_matches_tf(weights):
    w = {"w1": 1.0, "wrow": W_ROW, "w3": 3.0}[weights]
    got = float(L.mean_pairwise_squared_error(LAB, PRED, weights=w))
    assert got == pytest.approx(TF[f"mean_pairwise_squared_error/{weights}"], rel=1e-5)


def test_losses_join_the_collection_in_a_model_fn():
    scope = ObjectScope()
    scope.context.begin_call("train", 0)
    with scope:
        L.add_loss(torch.tensor(2.5))
        L.huber_loss(LAB, PRED)
        L.mean_pairwise_squared_error(LAB, PRED)
        L.log_loss(np.round(LAB), PRED, loss_collection=None)
        losses = L.get_losses()
        total = L.get_total_loss(add_regularization_losses=False)
    assert len(losses) == 3
    assert float(total) == pytest.approx(2.5 + float(L.huber_loss(LAB, PRED))
                                         + TF["mean_pairwise_squared_error/w1"], rel=1e-5)


def test_errors_name_the_arguments():
    with pytest.raises(ValueError, match="You must specify 'axis'"):
        L.cosine_distance(LAB, PRED)
    with pytest.raises(ValueError, match="Cannot specify both 'axis' and 'dim'"):
        L.cosine_distance(LAB, PRED, axis=1, dim=1)
    assert float(L.cosine_distance(LAB, PRED, dim=1)) == pytest.approx(
        TF["cosine_distance/w1/SUM_BY_NONZERO_WEIGHTS"], rel=1e-5)
    with pytest.raises(ValueError, match=r"log_loss: labels of shape \(4, 1\) is not compatible with predictions"):
        L.log_loss(LAB[:, :1], PRED)
    with pytest.raises(ValueError, match="hinge_loss: .* with logits"):
        L.hinge_loss(LAB[:2], PRED)
    with pytest.raises(ValueError, match="Invalid reduction"):
        L.huber_loss(LAB, PRED, reduction="bogus")
