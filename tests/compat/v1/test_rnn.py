"""TF 1.x's RNN API: `tf.compat.v1.nn.rnn_cell` and `dynamic_rnn` & co.

The reference numbers are TF 2.15's, run in TF1 graph mode by tools/make_tf1_rnn_fixtures.py
(tests/compat/v1/fixtures/tf1_rnn.npz/.json): each case's variables (names, shapes, values),
outputs and final states. Here the same case is built with torchestimator; a custom getter gives
each variable TF's value by name, and the outputs, states and variable names must equal TF's.
"""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
import torch

import torchestimator as tf

v1 = tf.compat.v1
rc = v1.nn.rnn_cell
HERE = os.path.join(os.path.dirname(__file__), "fixtures")
FIX = dict(np.load(os.path.join(HERE, "tf1_rnn.npz")))
with open(os.path.join(HERE, "tf1_rnn.json"), encoding="utf-8") as _f:
    MANIFEST = json.load(_f)
U = 3
SEQ = torch.tensor([4, 1, 3])


@pytest.fixture(autouse=True)
def _fresh_graph():
    v1.reset_default_graph()
    yield
    v1.reset_default_graph()


def _flat(x):
    if isinstance(x, (tuple, list)):
        return [leaf for item in x for leaf in _flat(item)]
    return [x]


# The same cases as tools/make_tf1_rnn_fixtures.py, on torchestimator.
def c_basic_rnn(x):
    return v1.nn.dynamic_rnn(rc.BasicRNNCell(U), x, sequence_length=SEQ, dtype=tf.float32)


def c_basic_lstm(x):
    return v1.nn.dynamic_rnn(rc.BasicLSTMCell(U, forget_bias=0.5), x, sequence_length=SEQ, dtype=tf.float32)


def c_basic_lstm_concat(x):
    return v1.nn.dynamic_rnn(rc.BasicLSTMCell(U, state_is_tuple=False), x, dtype=tf.float32)


def c_lstm_full_time_major(x):
    cell = rc.LSTMCell(U, use_peepholes=True, cell_clip=0.3, num_proj=2, proj_clip=0.2)
    return v1.nn.dynamic_rnn(cell, x.transpose(0, 1), sequence_length=SEQ, dtype=tf.float32, time_major=True)


def c_lstm_relu_concat(x):
    cell = rc.LSTMCell(U, num_proj=2, state_is_tuple=False, activation=tf.nn.relu, forget_bias=0.0)
    return v1.nn.dynamic_rnn(cell, x, dtype=tf.float32)


def c_gru(x):
    return v1.nn.dynamic_rnn(rc.GRUCell(U), x, sequence_length=SEQ, dtype=tf.float32)


def c_gru_initial_state(x):
    init = torch.from_numpy(np.random.RandomState(7).uniform(-1, 1, (3, U)).astype(np.float32))
    return v1.nn.dynamic_rnn(rc.GRUCell(U), x, initial_state=init, scope="enc")


def c_multi(x):
    cell = rc.MultiRNNCell([rc.BasicLSTMCell(U), rc.ResidualWrapper(rc.GRUCell(U)),
                            rc.DropoutWrapper(rc.LSTMCell(U))])
    return v1.nn.dynamic_rnn(cell, x, sequence_length=SEQ, dtype=tf.float32)


def c_static(x):
    return v1.nn.static_rnn(rc.LSTMCell(U), list(x.unbind(1)), sequence_length=SEQ, dtype=tf.float32)


def c_static_plain(x):
    return v1.nn.static_rnn(rc.GRUCell(U), list(x.unbind(1)), dtype=tf.float32)


def c_bidirectional(x):
    return v1.nn.bidirectional_dynamic_rnn(rc.GRUCell(U), rc.BasicLSTMCell(2), x, sequence_length=SEQ,
                                           dtype=tf.float32)


def c_bidirectional_time_major(x):
    return v1.nn.bidirectional_dynamic_rnn(rc.BasicRNNCell(U), rc.BasicRNNCell(U), x.transpose(0, 1),
                                           dtype=tf.float32, time_major=True)


def c_static_bidirectional(x):
    return v1.nn.static_bidirectional_rnn(rc.LSTMCell(U), rc.GRUCell(U), list(x.unbind(1)),
                                          sequence_length=SEQ, dtype=tf.float32)


def c_two_rnns(x):
    with v1.variable_scope("encoder"):
        out1, _ = v1.nn.dynamic_rnn(rc.LSTMCell(U), x, dtype=tf.float32)
    with v1.variable_scope("decoder"):
        out2, st2 = v1.nn.dynamic_rnn(rc.LSTMCell(U, name="dec_cell"), out1, dtype=tf.float32)
    return out2, st2


CASES = {name[2:]: fn for name, fn in globals().items() if name.startswith("c_")}


def _run_case(case):
    values = {k[len(case) + 5:]: v for k, v in FIX.items() if k.startswith(f"{case}/var/")}
    created = []

    def getter(get, name, *args, **kwargs):
        kwargs["initializer"] = v1.constant_initializer(values[name])
        variable = get(name, *args, **kwargs)
        created.append([name, list(variable.shape)])
        return variable

    x = torch.from_numpy(FIX[f"{case}/inputs"])
    with v1.variable_scope(v1.get_variable_scope(), custom_getter=getter):
        result = CASES[case](x)
    out, state = (result[0], result[1:]) if len(result) == 3 else result
    return created, out, state


def test_cases_match_the_tool():
    assert sorted(CASES) == sorted(MANIFEST)


@pytest.mark.parametrize("case", sorted(MANIFEST))
def test_outputs_states_and_variable_names_equal_tf(case):
    created, out, state = _run_case(case)
    assert created == MANIFEST[case]
    got_out, got_state = _flat(out), _flat(state)
    n_out = len([k for k in FIX if k.startswith(f"{case}/out/")])
    n_state = len([k for k in FIX if k.startswith(f"{case}/state/")])
    assert (len(got_out), len(got_state)) == (n_out, n_state)
    for i, value in enumerate(got_out):
        np.testing.assert_allclose(value.detach().numpy(), FIX[f"{case}/out/{i}"], rtol=1e-5, atol=1e-6)
    for i, value in enumerate(got_state):
        np.testing.assert_allclose(value.detach().numpy(), FIX[f"{case}/state/{i}"], rtol=1e-5, atol=1e-6)


def test_global_variables_hold_tf_names():
    _run_case("multi")
    names = [v._keras_name for v in v1.global_variables()]
    assert names == [n for n, _ in MANIFEST["multi"]]
    assert all(v.requires_grad for v in v1.trainable_variables())


def test_sequence_length_zeroes_outputs_and_copies_state():
    x = torch.randn(2, 5, 3)
    out, state = v1.nn.dynamic_rnn(rc.GRUCell(4), x, sequence_length=[2, 5], dtype=tf.float32)
    assert out.shape == (2, 5, 4)
    assert torch.all(out[0, 2:] == 0) and torch.all(out[1] != 0)
    torch.testing.assert_close(state[0], out[0, 1])
    torch.testing.assert_close(state[1], out[1, 4])


def test_lstm_state_tuple_and_zero_state():
    cell = rc.LSTMCell(4, num_proj=2)
    assert cell.state_size == rc.LSTMStateTuple(4, 2) and cell.output_size == 2
    zero = cell.zero_state(3, tf.float32)
    assert isinstance(zero, rc.LSTMStateTuple) and zero.c.shape == (3, 4) and zero.h.shape == (3, 2)
    assert zero.dtype == torch.float32
    multi = rc.MultiRNNCell([rc.GRUCell(2), rc.BasicLSTMCell(3)])
    assert multi.state_size == (2, rc.LSTMStateTuple(3, 3))
    _, state = v1.nn.dynamic_rnn(multi, torch.randn(2, 3, 1), dtype=tf.float32)
    assert isinstance(state[1], rc.LSTMStateTuple)


def test_dropout_wrapper_always_drops_like_tf1():
    torch.manual_seed(0)
    x = torch.ones(64, 6, 8)
    cell = rc.DropoutWrapper(rc.BasicRNNCell(8), output_keep_prob=0.5, state_keep_prob=0.5)
    out, _ = v1.nn.dynamic_rnn(cell, x, dtype=tf.float32)
    zeros = (out == 0).float().mean().item()
    assert 0.35 < zeros < 0.65
    with pytest.raises(ValueError, match="Parameter input_keep_prob must be between 0 and 1. Received 1.5"):
        rc.DropoutWrapper(rc.GRUCell(2), input_keep_prob=1.5)


def test_dropout_wrapper_keeps_lstm_memory_state():
    torch.manual_seed(1)
    wrapped = rc.DropoutWrapper(rc.BasicLSTMCell(16), state_keep_prob=0.5)
    state = wrapped.zero_state(32, tf.float32)
    _, new = wrapped(torch.randn(32, 4), state)
    assert (new.h == 0).float().mean() > 0.3  # h is dropped
    assert (new.c == 0).float().mean() < 0.05  # c never


def test_residual_and_device_wrappers():
    cell = rc.ResidualWrapper(rc.GRUCell(3))
    x = torch.randn(2, 3)  # a host tensor: on a GPU the cell runs there, as TF copies it
    out, new = cell(x, cell.zero_state(2, tf.float32))
    torch.testing.assert_close(out.cpu(), x + new.cpu())
    names = [v._keras_name for v in v1.global_variables()]
    assert names[0] == "gru_cell/gates/kernel"
    dev = rc.DeviceWrapper(rc.BasicRNNCell(2), "/cpu:0")
    out, _ = dev(tf.random.normal((2, 3)), dev.zero_state(2, tf.float32))
    assert out.device.type == "cpu" and dev.weights[0].device.type == "cpu"  # its weights there too


def test_two_rnns_in_one_scope_collide_like_tf1():
    x = torch.randn(2, 3, 2)
    v1.nn.dynamic_rnn(rc.LSTMCell(2), x, dtype=tf.float32)
    with pytest.raises(ValueError, match="Variable rnn/lstm_cell/kernel already exists, disallowed"):
        v1.nn.dynamic_rnn(rc.LSTMCell(2), x, dtype=tf.float32)


def test_cells_in_one_scope_get_unique_names():
    x = torch.randn(2, 3)
    with v1.variable_scope("block"):
        for _ in range(2):
            cell = rc.BasicLSTMCell(2)
            cell(x, cell.zero_state(2, tf.float32))
    names = [v._keras_name for v in v1.global_variables()]
    assert names == ["block/basic_lstm_cell/kernel", "block/basic_lstm_cell/bias",
                     "block/basic_lstm_cell_1/kernel", "block/basic_lstm_cell_1/bias"]


def test_cells_take_numpy_inputs_and_states():
    cell = rc.BasicLSTMCell(2)
    state = tuple(np.zeros((1, 2), np.float32) for _ in range(2))
    out, new = cell(np.ones((1, 3), np.float32), state)
    assert tuple(out.shape) == (1, 2) and isinstance(new, rc.LSTMStateTuple)
    out, _ = v1.nn.dynamic_rnn(rc.GRUCell(2), np.ones((1, 4, 3), np.float32), dtype=tf.float32, scope="g")
    assert tuple(out.shape) == (1, 4, 2)


def test_cell_called_with_scope_puts_weights_in_it():
    cell = rc.BasicRNNCell(2)
    cell(torch.randn(1, 3), torch.zeros(1, 2), scope="my_rnn")
    assert [v._keras_name for v in v1.global_variables()] == ["my_rnn/kernel", "my_rnn/bias"]


def test_errors_use_tf_messages():
    cell = rc.LSTMCell(2)
    with pytest.raises(ValueError, match="If no initial_state is provided, argument `dtype` must be specified"):
        v1.nn.dynamic_rnn(cell, torch.randn(2, 3, 1))
    with pytest.raises(ValueError, match="Input tensor should have rank >= 2"):
        v1.nn.dynamic_rnn(rc.LSTMCell(2), torch.randn(3), dtype=tf.float32)
    with pytest.raises(ValueError, match="expected ndim=2, found ndim=1"):
        v1.nn.dynamic_rnn(rc.GRUCell(2), torch.randn(3, 4), dtype=tf.float32, scope="r2")
    with pytest.raises(ValueError, match="RNN cell only supports floating point inputs, but received dtype: int64"):
        v1.nn.dynamic_rnn(rc.GRUCell(2), torch.ones(2, 4, 1, dtype=torch.int64), dtype=tf.float32, scope="r4")
    with pytest.raises(ValueError, match="sequence_length must be a vector"):
        v1.nn.dynamic_rnn(rc.GRUCell(2), torch.randn(2, 4, 1), sequence_length=[[1, 2]], dtype=tf.float32,
                          scope="r3")
    with pytest.raises(TypeError, match="Argument `inputs` must be a sequence"):
        v1.nn.static_rnn(rc.GRUCell(2), torch.randn(2, 4, 1), dtype=tf.float32)
    with pytest.raises(ValueError, match="Argument `inputs` must not be empty"):
        v1.nn.static_rnn(rc.GRUCell(2), [], dtype=tf.float32)
    with pytest.raises(ValueError, match="If no initial_state is provided"):
        v1.nn.static_rnn(rc.GRUCell(2), [torch.randn(2, 1)])
    with pytest.raises(ValueError, match="Must specify at least one cell for MultiRNNCell"):
        rc.MultiRNNCell([])
    with pytest.raises(TypeError, match="is not an RNNCell"):
        v1.nn.dynamic_rnn(object(), torch.randn(2, 3, 1), dtype=tf.float32)
    with pytest.raises(NotImplementedError, match="raw_rnn is not supported"):
        v1.nn.raw_rnn(rc.GRUCell(2), lambda *a: None)


def test_namespace():
    assert not hasattr(tf.compat.v1, "rnn_cell")  # TF has only tf.compat.v1.nn.rnn_cell
    for name in ("RNNCell", "BasicRNNCell", "BasicLSTMCell", "LSTMCell", "GRUCell", "LSTMStateTuple",
                 "MultiRNNCell", "DropoutWrapper", "ResidualWrapper", "DeviceWrapper"):
        assert hasattr(rc, name)
    assert v1.nn.relu is tf.nn.relu  # the fallback still works


def _model_fn(features, labels, mode):
    cell = rc.LSTMCell(8)
    outputs, state = v1.nn.dynamic_rnn(cell, features["x"], sequence_length=features["len"], dtype=tf.float32)
    pred = v1.layers.dense(state.h, 1)[:, 0]
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"y": pred})
    loss = v1.losses.mean_squared_error(labels, pred)
    train_op = v1.train.AdamOptimizer(0.05).minimize(loss, global_step=v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def test_estimator_trains_lstm_and_checkpoints_tf_names(tmp_path):
    rng = np.random.RandomState(0)
    x = rng.uniform(-1, 1, (64, 5, 2)).astype(np.float32)
    lengths = rng.randint(1, 6, 64).astype(np.int32)
    mask = (np.arange(5)[None, :] < lengths[:, None]).astype(np.float32)
    y = (x[:, :, 0] * mask).sum(1).astype(np.float32)

    def input_fn():
        return tf.data.Dataset.from_tensor_slices(({"x": x, "len": lengths}, y)).repeat().batch(16)

    est = tf.estimator.Estimator(_model_fn, model_dir=str(tmp_path))
    before = est.evaluate(input_fn, steps=4)["loss"]
    est.train(input_fn, steps=80)
    after = est.evaluate(input_fn, steps=4)["loss"]
    assert after < 0.5 * before
    names = dict(tf.train.list_variables(str(tmp_path)))
    assert names["rnn/lstm_cell/kernel"] == [10, 32]
    assert names["rnn/lstm_cell/bias"] == [32]
    assert names["dense/kernel"] == [8, 1]
    preds = list(est.predict(lambda: tf.data.Dataset.from_tensor_slices({"x": x[:4], "len": lengths[:4]}).batch(4)))
    assert len(preds) == 4


def test_multi_rnn_cell_concatenated_state_equals_tuple_state():
    x = torch.randn(2, 4, 3)
    with v1.variable_scope("m"):
        out_t, state_t = v1.nn.dynamic_rnn(rc.MultiRNNCell([rc.GRUCell(3), rc.GRUCell(2)]), x,
                                           dtype=tf.float32)
    with v1.variable_scope("m", reuse=True):
        cell = rc.MultiRNNCell([rc.GRUCell(3), rc.GRUCell(2)], state_is_tuple=False)
        assert cell.state_size == 5
        out_c, state_c = v1.nn.dynamic_rnn(cell, x, dtype=tf.float32)
    torch.testing.assert_close(out_c, out_t)
    torch.testing.assert_close(state_c, torch.cat(state_t, 1))
    assert len(v1.global_variables()) == 8
    with pytest.raises(ValueError, match="Some cells return tuples of states"):
        rc.MultiRNNCell([rc.BasicLSTMCell(2)], state_is_tuple=False)


def test_dropout_wrapper_variational_uses_one_mask_for_all_steps():
    torch.manual_seed(2)
    cell = rc.DropoutWrapper(rc.BasicRNNCell(16), output_keep_prob=0.5, variational_recurrent=True,
                             dtype=tf.float32)
    out, _ = v1.nn.dynamic_rnn(cell, torch.randn(4, 5, 3), dtype=tf.float32)
    dropped = out == 0
    assert dropped.float().mean() > 0.3
    assert torch.equal(dropped[:, 0], dropped[:, 3])  # the same units dropped at every step
