"""`tf.compat.v1.train`'s learning-rate decays and checkpoint-state functions against TF 2.15
(fixtures/tf1_api.json, keys "decays" and "checkpoint_state", recorded by
tools/make_tf1_api_fixtures.py in a TF1 graph)."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator._engine.object_scope import ObjectScope

T = tf.compat.v1.train

with open(os.path.join(os.path.dirname(__file__), "fixtures", "tf1_api.json"), encoding="utf-8") as _f:
    _DATA = json.load(_f)
TF = _DATA["decays"]
TF_STATE = _DATA["checkpoint_state"]

CASES = {
    "exponential_decay": lambda s: T.exponential_decay(0.1, s, 10, 0.96),
    "exponential_decay_staircase": lambda s: T.exponential_decay(0.1, s, 10, 0.5, staircase=True),
    "piecewise_constant": lambda s: T.piecewise_constant(s, [5, 15], [1.0, 0.5, 0.1]),
    "polynomial_decay": lambda s: T.polynomial_decay(0.1, s, 50, 0.01, power=2.0),
    "polynomial_decay_cycle": lambda s: T.polynomial_decay(0.1, s, 30, 0.01, power=0.5, cycle=True),
    "natural_exp_decay": lambda s: T.natural_exp_decay(0.1, s, 10, 0.5),
    "natural_exp_decay_staircase": lambda s: T.natural_exp_decay(0.1, s, 10, 0.5, staircase=True),
    "inverse_time_decay": lambda s: T.inverse_time_decay(0.1, s, 10, 0.5),
    "inverse_time_decay_staircase": lambda s: T.inverse_time_decay(0.1, s, 10, 0.5, staircase=True),
    "cosine_decay": lambda s: T.cosine_decay(0.1, s, 50, alpha=0.1),
    "cosine_decay_restarts": lambda s: T.cosine_decay_restarts(0.1, s, 10, t_mul=2.0, m_mul=0.9, alpha=0.05),
    "cosine_decay_restarts_t1": lambda s: T.cosine_decay_restarts(0.1, s, 10, t_mul=1.0),
    "linear_cosine_decay": lambda s: T.linear_cosine_decay(
        0.1, s, 50, num_periods=2.0, alpha=0.1, beta=0.01),
}


def _in_model_fn(fn):
    scope = ObjectScope()
    scope.context.begin_call("train", 0)
    with scope:
        return fn()


@pytest.mark.parametrize("name", sorted(CASES))
def test_decay_matches_tf_in_a_model_fn(name):
    got = [_in_model_fn(lambda s=s: CASES[name](torch.tensor(s))) for s in TF["steps"]]
    assert all(isinstance(v, torch.Tensor) and v.dtype == torch.float32 and v.ndim == 0 for v in got)
    np.testing.assert_allclose([float(v) for v in got], TF[name], rtol=1e-5, atol=1e-8)


@pytest.mark.parametrize("name", sorted(CASES))
def test_decay_outside_a_model_fn_is_tfs_eager_callable(name):
    rate = CASES[name](37)
    assert callable(rate)
    assert float(rate()) == pytest.approx(TF[name][TF["steps"].index(37)], rel=1e-5)


def test_callable_reads_a_variable_step_when_called():
    step = tf.Variable(0, dtype=tf.int64)
    rate = T.exponential_decay(0.1, step, 10, 0.5, staircase=True)
    assert float(rate()) == pytest.approx(0.1)
    step.assign(20)
    assert float(rate()) == pytest.approx(0.025)


def test_piecewise_constant_decay_is_the_alias():
    assert T.piecewise_constant_decay is T.piecewise_constant


def test_noisy_linear_cosine_decay_is_noisy_around_linear_cosine():
    torch.manual_seed(0)
    values = [float(_in_model_fn(lambda: T.noisy_linear_cosine_decay(0.1, torch.tensor(10), 50)))
              for _ in range(20)]
    plain = float(_in_model_fn(lambda: T.linear_cosine_decay(0.1, torch.tensor(10), 50)))
    assert len(set(values)) > 1
    assert abs(np.mean(values) - plain) < 0.05


def test_decay_errors():
    with pytest.raises(ValueError, match="global_step is required for exponential_decay"):
        T.exponential_decay(0.1, None, 10, 0.96)
    with pytest.raises(ValueError, match="global_step is required for cosine_decay"):
        T.cosine_decay(0.1, None, 10)
    with pytest.raises(ValueError) as e:
        T.piecewise_constant(1, [5, 15], [1.0, 0.5])
    assert str(e.value) == TF["errors"]["piecewise_constant"][1]
    with pytest.raises(ValueError, match="decay_steps must be positive"):
        T.polynomial_decay(0.1, 1, 0)


@pytest.mark.parametrize("label,args", [
    ("relative", ("run/dir", "run/dir/model.ckpt-5", ["run/dir/model.ckpt-1"])),
    ("relative_outside", ("run/dir", "other/model.ckpt-5", None)),
    ("absolute", ("/abs/dir", "/abs/dir/model.ckpt-5", ["/abs/dir/model.ckpt-3", "/abs/dir/model.ckpt-5"])),
])
def test_generate_checkpoint_state_proto_as_tf(label, args):
    proto = T.generate_checkpoint_state_proto(*args)
    assert [proto.model_checkpoint_path, proto.all_model_checkpoint_paths] == TF_STATE[label]


def test_generate_checkpoint_state_proto_checks_timestamps():
    with pytest.raises(ValueError, match="timestamps, if provided, must match checkpoint paths"):
        T.generate_checkpoint_state_proto("/d", "/d/m-2", ["/d/m-1"], all_model_checkpoint_timestamps=[1.0])


def test_update_then_get_checkpoint_state(tmp_path):
    d = str(tmp_path)
    T.update_checkpoint_state(d, os.path.join(d, "model.ckpt-7"), [os.path.join(d, "model.ckpt-2")])
    state = T.get_checkpoint_state(d)
    got = [os.path.relpath(state.model_checkpoint_path, d),
           [os.path.relpath(p, d) for p in state.all_model_checkpoint_paths]]
    assert got == TF_STATE["roundtrip"][:2]
    assert T.get_checkpoint_state(os.path.join(d, "nothing")) is None
    assert not list(tmp_path.glob("*tmp*"))  # written atomically, no temporary left
    with pytest.raises(ValueError, match="latest_filename='other' is not supported"):
        T.update_checkpoint_state(d, "m-1", latest_filename="other")


def test_get_checkpoint_state_of_an_estimator_model_dir(tmp_path):
    def model_fn(features, labels, mode):
        w = tf.compat.v1.get_variable("w", [], initializer=tf.compat.v1.zeros_initializer())
        loss = (w - 1.0) ** 2 + 0 * tf.reduce_sum(features["x"])
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=T.GradientDescentOptimizer(0.1).minimize(
            loss, global_step=T.get_global_step()))

    est = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path))
    x = {"x": np.zeros((4, 1), np.float32)}
    est.train(tf.compat.v1.estimator.inputs.numpy_input_fn(x, batch_size=2, shuffle=False))
    state = T.get_checkpoint_state(str(tmp_path))
    assert state.model_checkpoint_path == T.latest_checkpoint(str(tmp_path))
    assert state.model_checkpoint_path.endswith("model.ckpt-2")
    assert state.all_model_checkpoint_paths[-1] == state.model_checkpoint_path
    assert T.checkpoint_exists(state.model_checkpoint_path)
