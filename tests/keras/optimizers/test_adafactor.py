"""`tf.keras.optimizers.Adafactor`: Keras 2.15's arguments, defaults, config, factored slots and
update rule, against TF 2.15's variables along 10 steps of the parity problem
(fixtures/optimizers_31.npz, made by tools/make_tf_layer_fixtures_31.py), with sparse and dense
gradients, clip_threshold, beta_2_decay and weight decay."""

import os
import sys

import numpy as np
import pytest
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "parity"))
from _tf_parity import TOLERANCE, load, run_optimizer, scaled_error  # noqa: E402

import torchestimator as tf  # noqa: E402

MANIFEST, ARRAYS = load("optimizers_31")
CASES = [e for e in MANIFEST if e["class"] == "Adafactor"]


@pytest.mark.parametrize("mode", ["sparse", "dense"])
@pytest.mark.parametrize("entry", CASES, ids=[e["id"] for e in CASES])
def test_adafactor_matches_tf(entry, mode):
    for name, ours, theirs in run_optimizer(entry, ARRAYS, mode=mode):
        err = scaled_error(ours, theirs)
        assert err <= TOLERANCE, f"{entry['id']}: {name} differs from TF by {err:.3g}"


@pytest.mark.parametrize("entry", CASES, ids=[e["id"] for e in CASES])
def test_adafactor_from_tf_config_matches_tf(entry):
    for name, ours, theirs in run_optimizer(entry, ARRAYS, mode="dense", from_tf_config=True):
        assert scaled_error(ours, theirs) <= TOLERANCE, name


def test_adafactor_defaults_and_config_keys_match_tf():
    config = tf.keras.optimizers.Adafactor().get_config()
    assert config["name"] == "Adafactor"
    assert config["learning_rate"] == pytest.approx(0.001)
    assert (config["beta_2_decay"], config["epsilon_1"], config["epsilon_2"]) == (-0.8, 1e-30, 1e-3)
    assert (config["clip_threshold"], config["relative_step"]) == (1.0, True)
    assert set(config) == set(CASES[0]["tf_config"])
    again = tf.keras.optimizers.Adafactor.from_config({**config, "clip_threshold": 0.5})
    assert again.clip_threshold == 0.5
    assert tf.keras.optimizers.experimental.Adafactor is tf.keras.optimizers.Adafactor


def test_adafactor_slots_are_factored_like_keras():
    """Rank >= 2: r (shape[:-1]), c (shape[:-2] + shape[-1:]) and v; rank 1: only v
    (Keras' placeholders for r and c are not optimizer variables)."""
    kernel = torch.nn.Parameter(torch.ones(2, 3, 4))
    bias = torch.nn.Parameter(torch.ones(4))
    opt = tf.keras.optimizers.Adafactor()
    opt.build([kernel, bias])
    shapes = [tuple(v.shape) for v in opt.variables[1:]]
    assert shapes == [(2, 3), (2, 4), (2, 3, 4), (4,)]


def test_adafactor_first_step_by_hand():
    """t = 1: beta_2_t = 0, so v = g^2 + eps_1 (rank 1); u = sign(g); rms(u) = 1."""
    w = torch.nn.Parameter(torch.tensor([3.0, -4.0]))
    opt = tf.keras.optimizers.Adafactor(learning_rate=0.5)
    opt.apply_gradients([(torch.tensor([0.2, -0.1]), w)])
    rms_w = np.sqrt((9 + 16) / 2)
    np.testing.assert_allclose(w.detach().numpy(), [3.0 - rms_w * 0.5, -4.0 + rms_w * 0.5], rtol=1e-6)


def test_adafactor_checkpoint_round_trip():
    kernel = torch.nn.Parameter(torch.randn(3, 2, generator=torch.Generator().manual_seed(0)))
    opt = tf.keras.optimizers.Adafactor(learning_rate=0.1)
    opt.apply_gradients([(torch.full((3, 2), 0.1), kernel)])
    fresh = tf.keras.optimizers.Adafactor(learning_rate=0.1)
    k2 = torch.nn.Parameter(kernel.detach().clone())
    fresh.build([k2])
    fresh.load_state_dict(opt.state_dict())
    for a, b in zip(opt.variables, fresh.variables):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    g = torch.full((3, 2), -0.2)
    opt.apply_gradients([(g, kernel)])
    fresh.apply_gradients([(g.clone(), k2)])
    np.testing.assert_array_equal(kernel.detach().numpy(), k2.detach().numpy())
