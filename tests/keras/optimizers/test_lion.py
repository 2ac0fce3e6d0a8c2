"""`tf.keras.optimizers.Lion`: Keras 2.15's arguments, defaults, config and update rule, against
TF 2.15's variables along 10 steps of the parity problem (fixtures/optimizers_31.npz, made by
tools/make_tf_layer_fixtures_31.py), with sparse and dense gradients, weight decay and EMA."""

import os
import sys

import numpy as np
import pytest
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "parity"))
from _tf_parity import TOLERANCE, load, run_optimizer, scaled_error  # noqa: E402

import torchestimator as tf  # noqa: E402

MANIFEST, ARRAYS = load("optimizers_31")
CASES = [e for e in MANIFEST if e["class"] == "Lion"]


@pytest.mark.parametrize("mode", ["sparse", "dense"])
@pytest.mark.parametrize("entry", CASES, ids=[e["id"] for e in CASES])
def test_lion_matches_tf(entry, mode):
    for name, ours, theirs in run_optimizer(entry, ARRAYS, mode=mode):
        err = scaled_error(ours, theirs)
        assert err <= TOLERANCE, f"{entry['id']}: {name} differs from TF by {err:.3g}"


@pytest.mark.parametrize("entry", CASES, ids=[e["id"] for e in CASES])
def test_lion_from_tf_config_matches_tf(entry):
    for name, ours, theirs in run_optimizer(entry, ARRAYS, mode="dense", from_tf_config=True):
        assert scaled_error(ours, theirs) <= TOLERANCE, name


def test_lion_defaults_and_config():
    opt = tf.keras.optimizers.Lion()
    config = opt.get_config()
    assert config["name"] == "Lion"
    assert config["learning_rate"] == pytest.approx(1e-4)
    assert (config["beta_1"], config["beta_2"]) == (0.9, 0.99)
    tf_config = next(e["tf_config"] for e in CASES if e["id"] == "lion_betas")
    assert set(tf_config) == set(tf.keras.optimizers.Lion(**CASES[1]["kwargs"]).get_config())
    again = tf.keras.optimizers.Lion.from_config(tf.keras.optimizers.Lion(beta_1=0.5).get_config())
    assert again.beta_1 == 0.5


def test_lion_rule_by_hand():
    w = torch.nn.Parameter(torch.tensor([1.0, -2.0, 0.5]))
    opt = tf.keras.optimizers.Lion(learning_rate=0.1, beta_1=0.5, beta_2=0.9)
    g = torch.tensor([0.3, -0.2, 0.0])
    opt.apply_gradients([(g, w)])
    np.testing.assert_allclose(w.detach().numpy(), [0.9, -1.9, 0.5], rtol=1e-6)
    m = opt.variables[1]
    np.testing.assert_allclose(m.numpy(), 0.1 * g.numpy(), rtol=1e-6)


@pytest.mark.parametrize("beta_1", [0.0, -0.1, 1.5])
def test_lion_rejects_beta_1_outside_0_1(beta_1):
    with pytest.raises(ValueError, match="beta_1"):
        tf.keras.optimizers.Lion(beta_1=beta_1)


def test_lion_slots_in_state_dict_round_trip():
    w = torch.nn.Parameter(torch.ones(2, 3))
    opt = tf.keras.optimizers.Lion(learning_rate=0.01)
    opt.apply_gradients([(torch.full((2, 3), 0.5), w)])
    state = opt.state_dict()
    fresh = tf.keras.optimizers.Lion(learning_rate=0.01)
    w2 = torch.nn.Parameter(w.detach().clone())
    fresh.build([w2])
    fresh.load_state_dict(state)
    assert fresh.iterations == 1
    for a, b in zip(opt.variables, fresh.variables):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
