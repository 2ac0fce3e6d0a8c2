"""Tests of the recurrent layers: SimpleRNN, LSTM, GRU, RNN and cells, Bidirectional,
TimeDistributed — shapes, Keras weight layout and initialization, fused vs step-loop
numerics, masking, states, dropout, configs and errors."""

import json
import warnings

import numpy as np
import pytest
import torch

import torchestimator as tf
import torchestimator.keras.layers as layers
from _harness.layers import on_default_device

RNNS = [layers.SimpleRNN, layers.LSTM, layers.GRU]


def _loop_twin(layer, **kwargs):
    """The same layer forced onto the step loop (a non-builtin activation), same weights."""
    cls = type(layer)
    config = layer.get_config()
    config.pop("name")
    config.update(kwargs)
    config["activation"] = lambda v: torch.tanh(v)
    twin = cls.from_config(config)
    return twin


def _copy_weights(src, dst, x):
    dst(x)
    dst.set_weights(src.get_weights())
    return dst


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)
    tf.keras.backend.clear_session()


# ---------------------------------------------------------------------------- shapes
@pytest.mark.parametrize("cls", RNNS)
@pytest.mark.parametrize("return_sequences", [False, True])
@pytest.mark.parametrize("return_state", [False, True])
def test_output_shapes_eager_and_symbolic(cls, return_sequences, return_state):
    layer = cls(3, return_sequences=return_sequences, return_state=return_state)
    out = layer(torch.randn(4, 7, 5))
    sym = cls(3, return_sequences=return_sequences, return_state=return_state)(
        tf.keras.Input((None, 5))
    )
    n_states = 2 if cls is layers.LSTM else 1
    want = (4, 7, 3) if return_sequences else (4, 3)
    want_sym = (None, None, 3) if return_sequences else (None, 3)
    if return_state:
        assert [tuple(o.shape) for o in out] == [want] + [(4, 3)] * n_states
        assert [s.shape for s in sym] == [want_sym] + [(None, 3)] * n_states
    else:
        assert tuple(out.shape) == want
        assert sym.shape == want_sym
    assert layer.compute_output_shape((None, 7, 5)) == (
        [(None, 7, 3) if return_sequences else (None, 3)] + [(None, 3)] * n_states
        if return_state else ((None, 7, 3) if return_sequences else (None, 3))
    )


def test_time_major():
    x = torch.randn(2, 6, 4)
    layer = layers.LSTM(3, return_sequences=True)
    y = layer(x)
    tm = layers.LSTM(3, return_sequences=True, time_major=True)
    _copy_weights(layer, tm, x.transpose(0, 1))
    torch.testing.assert_close(tm(x.transpose(0, 1)).transpose(0, 1), y)


# ---------------------------------------------------------------------------- weights
@pytest.mark.parametrize("units,features", [(3, 5), (8, 2)])
def test_parameter_counts_match_keras_formulas(units, features):
    x = torch.randn(2, 4, features)
    lstm, gru = layers.LSTM(units), layers.GRU(units)
    gru_v1, simple = layers.GRU(units, reset_after=False), layers.SimpleRNN(units)
    for layer in (lstm, gru, gru_v1, simple):
        layer(x)
    assert lstm.count_params() == 4 * (units * (features + units) + units)
    assert gru.count_params() == 3 * (units * (features + units) + 2 * units)
    assert gru_v1.count_params() == 3 * (units * (features + units) + units)
    assert simple.count_params() == units * (features + units) + units
    bi = layers.Bidirectional(layers.LSTM(units))
    bi(x)
    assert bi.count_params() == 2 * lstm.count_params()


def test_weight_shapes_keras_layout():
    x = torch.randn(2, 4, 5)
    lstm, gru, simple = layers.LSTM(3), layers.GRU(3), layers.SimpleRNN(3)
    for layer in (lstm, gru, simple):
        layer(x)
    assert [w.shape for w in lstm.get_weights()] == [(5, 12), (3, 12), (12,)]
    assert [w.shape for w in gru.get_weights()] == [(5, 9), (3, 9), (2, 9)]
    gru_v1 = layers.GRU(3, reset_after=False)
    gru_v1(x)
    assert [w.shape for w in gru_v1.get_weights()] == [(5, 9), (3, 9), (9,)]
    assert [w.shape for w in simple.get_weights()] == [(5, 3), (3, 3), (3,)]
    assert lstm.cell.kernel is lstm.weights[0]
    no_bias = layers.LSTM(3, use_bias=False)
    no_bias(x)
    assert [w.shape for w in no_bias.get_weights()] == [(5, 12), (3, 12)]
    assert [w._keras_name.split("/")[-1] for w in lstm.weights] == [
        "kernel", "recurrent_kernel", "bias"]


def test_lstm_initialization_orthogonal_and_forget_bias():
    layer = layers.LSTM(6)
    layer(torch.randn(2, 3, 4))
    kernel, recurrent, bias = layer.get_weights()
    # (units, 4*units): orthonormal rows.
    np.testing.assert_allclose(recurrent @ recurrent.T, np.eye(6), atol=1e-5)
    np.testing.assert_array_equal(bias[6:12], np.ones(6))
    np.testing.assert_array_equal(np.concatenate([bias[:6], bias[12:]]), np.zeros(18))
    limit = np.sqrt(6.0 / (4 + 24))  # glorot_uniform on (4, 24)
    assert np.abs(kernel).max() <= limit
    no_forget = layers.LSTM(6, unit_forget_bias=False)
    no_forget(torch.randn(2, 3, 4))
    np.testing.assert_array_equal(no_forget.get_weights()[2], np.zeros(24))
    gru = layers.GRU(5)
    gru(torch.randn(2, 3, 4))
    rec = gru.get_weights()[1]
    np.testing.assert_allclose(rec @ rec.T, np.eye(5), atol=1e-5)


# ---------------------------------------------------------------------------- numerics
def test_lstm_matches_hand_computation():
    layer = layers.LSTM(2, return_sequences=True)
    x = torch.randn(1, 3, 3)
    y = layer(x).detach().numpy()
    k, r, b = layer.get_weights()
    sig = lambda v: 1 / (1 + np.exp(-v))  # noqa: E731
    h = c = np.zeros((1, 2))
    for t in range(3):
        z = x[:, t].numpy() @ k + h @ r + b
        i, f, g, o = z[:, :2], z[:, 2:4], z[:, 4:6], z[:, 6:]
        c = sig(f) * c + sig(i) * np.tanh(g)
        h = sig(o) * np.tanh(c)
        np.testing.assert_allclose(y[:, t], h, atol=1e-6)


def test_gru_matches_torch_gru_with_reordered_weights():
    layer = layers.GRU(4, return_sequences=True)
    x = on_default_device(torch.randn(3, 5, 6))
    with torch.no_grad():
        y = layer(x)
        layer.cell.bias.normal_()
        y = layer(x)
    k, r, b = (torch.as_tensor(w, device=x.device) for w in layer.get_weights())
    ref = on_default_device(torch.nn.GRU(6, 4, batch_first=True))

    def rzn(w):
        z, rr, h = w.split(4, dim=-1)
        return torch.cat([rr, z, h], dim=-1)

    with torch.no_grad():
        ref.weight_ih_l0.copy_(rzn(k).T)
        ref.weight_hh_l0.copy_(rzn(r).T)
        ref.bias_ih_l0.copy_(rzn(b)[0])
        ref.bias_hh_l0.copy_(rzn(b)[1])
        torch.testing.assert_close(ref(x)[0], y, atol=1e-5, rtol=1e-5)


def test_gru_reset_before_matches_hand_computation():
    layer = layers.GRU(2, reset_after=False, bias_initializer="random_normal")
    x = torch.randn(1, 2, 3)
    y = layer(x).detach().numpy()
    k, r, b = layer.get_weights()
    assert b.shape == (6,)
    sig = lambda v: 1 / (1 + np.exp(-v))  # noqa: E731
    h = np.zeros((1, 2))
    for t in range(2):
        xz = x[:, t].numpy() @ k + b
        z = sig(xz[:, :2] + h @ r[:, :2])
        rr = sig(xz[:, 2:4] + h @ r[:, 2:4])
        hh = np.tanh(xz[:, 4:] + (rr * h) @ r[:, 4:])
        h = z * h + (1 - z) * hh
    np.testing.assert_allclose(y, h, atol=1e-6)


@pytest.mark.parametrize("cls", RNNS)
@pytest.mark.parametrize("go_backwards", [False, True])
@pytest.mark.parametrize("zero_output", [False, True])
def test_fused_equals_step_loop(cls, go_backwards, zero_output):
    x = on_default_device(torch.randn(4, 6, 5))
    lengths = torch.tensor([6, 3, 1, 0])
    mask = on_default_device(torch.arange(6)[None] < lengths[:, None])
    kwargs = {"return_sequences": True, "return_state": True, "go_backwards": go_backwards,
              "zero_output_for_mask": zero_output}
    fused = cls(3, bias_initializer="random_normal", **kwargs)
    fused(x)
    loop = _copy_weights(fused, _loop_twin(fused), x)
    for m in (None, mask):
        a, b = fused(x, mask=m), loop(x, mask=m)
        for p, q in zip(a, b):
            torch.testing.assert_close(p, q, atol=1e-5, rtol=1e-5)
    # Gradients agree too.
    fused(x, mask=mask)[0].sum().backward()
    loop(x, mask=mask)[0].sum().backward()
    for p, q in zip(fused.weights, loop.weights):
        torch.testing.assert_close(p.grad, q.grad, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize(
    "make,activation",
    [
        (lambda: layers.LSTM(3, use_bias=False, return_sequences=True), torch.tanh),
        (lambda: layers.GRU(3, use_bias=False, return_sequences=True), torch.tanh),
        (lambda: layers.SimpleRNN(3, activation="relu", return_sequences=True), torch.relu),
        (lambda: layers.LSTM(3, implementation=1, return_sequences=True), torch.tanh),
    ],
)
def test_fused_equals_step_loop_other_configs(make, activation):
    x = on_default_device(torch.randn(3, 5, 4))
    mask = on_default_device(torch.tensor([[True] * 5, [True] * 2 + [False] * 3, [True] * 4 + [False]]))
    fused = make()
    fused(x)
    twin = _loop_twin(fused)
    twin.cell.activation = lambda v: activation(v)
    _copy_weights(fused, twin, x)
    torch.testing.assert_close(fused(x, mask=mask), twin(x, mask=mask), atol=1e-5, rtol=1e-5)


def test_fused_path_is_used_when_allowed(monkeypatch):
    from torchestimator.keras.layers.rnn import _fused

    calls = []
    real = _fused.run
    monkeypatch.setattr(_fused, "run", lambda *a, **k: calls.append(a[0]) or real(*a, **k))
    x = on_default_device(torch.randn(2, 4, 3))
    right = on_default_device(torch.tensor([[1, 1, 0, 0], [1, 1, 1, 1]], dtype=torch.bool))
    layers.LSTM(2)(x, mask=right)
    layers.GRU(2)(x)
    layers.SimpleRNN(2, activation="relu")(x)
    layers.RNN(layers.GRUCell(2))(x)
    assert calls == ["lstm", "gru", "rnn_relu", "gru"]
    layers.LSTM(2)(x, mask=~right)  # left padding: step loop
    layers.GRU(2, reset_after=False)(x)
    layers.LSTM(2, recurrent_dropout=0.5)(x, training=True)
    layers.RNN([layers.LSTMCell(2)])(x)  # stacked cells: step loop
    assert calls == ["lstm", "gru", "rnn_relu", "gru"]


# ---------------------------------------------------------------------------- masking
@pytest.mark.parametrize("cls", RNNS)
def test_masking_through_embedding_equals_unpadded(cls):
    embedding = layers.Embedding(20, 4, mask_zero=True)
    rnn = cls(3, return_sequences=True)
    last = cls(3)
    ids = np.array([[5, 3, 8, 2, 0, 0], [7, 1, 0, 0, 0, 0], [4, 4, 4, 4, 4, 9]])
    seq = rnn(embedding(ids))
    assert seq._keras_mask is not None
    final = last(seq)
    for i, n in enumerate([4, 2, 6]):
        alone = rnn(embedding(ids[i:i + 1, :n]))
        torch.testing.assert_close(seq[i:i + 1, :n], alone, atol=1e-6, rtol=1e-5)
        # Masked steps repeat the last valid output (Keras' carry-over).
        for t in range(n, 6):
            torch.testing.assert_close(seq[i, t], seq[i, n - 1])
        torch.testing.assert_close(final[i:i + 1], last(rnn(embedding(ids[i:i + 1, :n]))),
                                   atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize("cls", RNNS)
def test_masking_in_functional_and_sequential_models(cls):
    inp = tf.keras.Input((None,), dtype="int64")
    x = layers.Embedding(20, 4, mask_zero=True)(inp)
    x = cls(3, return_sequences=True)(x)
    assert x._keras_mask is not None
    out = cls(2)(x)
    model = tf.keras.Model(inp, out)
    ids = np.array([[5, 3, 8, 0, 0], [7, 1, 0, 0, 0]])
    torch.testing.assert_close(model(ids), model(ids[:, :3]), atol=1e-6, rtol=1e-5)
    seq = tf.keras.Sequential([layers.Embedding(20, 4, mask_zero=True), cls(3)])
    torch.testing.assert_close(seq(ids), seq(ids[:, :3]), atol=1e-6, rtol=1e-5)


def test_mask_in_the_middle_skips_steps():
    """A mask from Masking with a hole: the hole's step is skipped (step-loop path)."""
    x = torch.randn(2, 5, 3)
    x[0, 2] = 0.0
    masked = layers.Masking(0.0)(x)
    layer = layers.LSTM(4)
    out = layer(masked)
    kept = torch.cat([x[:1, :2], x[:1, 3:]], dim=1)
    torch.testing.assert_close(out[:1], layer(kept), atol=1e-6, rtol=1e-5)
    torch.testing.assert_close(out[1:], layer(x[1:]), atol=1e-6, rtol=1e-5)


def test_go_backwards_reverses():
    x = torch.randn(2, 5, 3)
    fwd = layers.GRU(4, return_sequences=True)
    fwd(x)
    bwd = _copy_weights(fwd, layers.GRU(4, return_sequences=True, go_backwards=True), x)
    torch.testing.assert_close(bwd(x), fwd(x.flip(1)))


# ---------------------------------------------------------------------------- states
def test_return_state_and_initial_state():
    x = torch.randn(2, 5, 3)
    layer = layers.LSTM(4, return_state=True)
    out, h, c = layer(x)
    torch.testing.assert_close(out, h)
    h0, c0 = torch.randn(2, 4), torch.randn(2, 4)
    with_state = layer(x, initial_state=[h0, c0])
    as_list = layer([x, h0, c0])
    torch.testing.assert_close(with_state[0], as_list[0])
    assert not torch.allclose(with_state[0], out)
    # Continuing from the returned state equals one long run.
    full = layer(torch.cat([x, x], dim=1))
    torch.testing.assert_close(layer(x, initial_state=[h, c])[0], full[0], atol=1e-6, rtol=1e-5)
    with pytest.raises(ValueError, match="initial state 0 should have shape"):
        layer(x, initial_state=[torch.zeros(2, 5), c0])
    with pytest.raises(ValueError, match="not compatible with `cell.state_size`"):
        layer(x, initial_state=[h0])


def test_stateful_carries_states_between_batches():
    x = torch.randn(3, 8, 2)
    plain = layers.GRU(4)
    full = plain(x)
    stateful = _copy_weights(plain, layers.GRU(4, stateful=True), x[:, :4])
    stateful.reset_states()
    stateful(x[:, :4])
    torch.testing.assert_close(stateful(x[:, 4:]), full, atol=1e-6, rtol=1e-5)
    stateful.reset_states()
    torch.testing.assert_close(stateful(x[:, :4]), plain(x[:, :4]))
    with pytest.raises(ValueError, match="holds states for a batch of 3"):
        stateful(x[:2, :4])
    stateful.reset_states([np.zeros((2, 4))])
    assert stateful(x[:2, :4]).shape == (2, 4)
    with pytest.raises(AttributeError, match="must be stateful"):
        plain.reset_states()
    with pytest.raises(ValueError, match=r"should have shape \(batch_size, 4\)"):
        stateful.reset_states([np.zeros((2, 5))])


# ---------------------------------------------------------------------------- dropout
@pytest.mark.parametrize("cls", RNNS)
def test_dropout_only_in_training(cls):
    x = torch.randn(8, 6, 5)
    layer = cls(4, dropout=0.5, recurrent_dropout=0.3)
    infer = layer(x)
    plain = _copy_weights(layer, cls(4), x)
    torch.testing.assert_close(infer, plain(x), atol=1e-6, rtol=1e-5)
    torch.testing.assert_close(layer(x, training=False), infer)
    trained = layer(x, training=True)
    assert not torch.allclose(trained, infer)
    only_input = _copy_weights(layer, cls(4, dropout=0.5), x)
    assert not torch.allclose(only_input(x, training=True), infer)


def test_lstm_trains_in_a_torch_loop():
    model = tf.keras.Sequential([layers.LSTM(8), layers.Dense(1)])
    x = torch.randn(16, 5, 3)
    y = x.sum(dim=(1, 2)).unsqueeze(-1)
    model(x)
    opt = torch.optim.Adam(model.parameters(), lr=0.05)
    first = None
    for _ in range(8):
        loss = torch.nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        first = first if first is not None else float(loss.detach())
    assert float(loss.detach()) < first


# ---------------------------------------------------------------------------- config
@pytest.mark.parametrize(
    "make",
    [
        lambda: layers.LSTM(3, dropout=0.1, return_sequences=True, unit_forget_bias=False),
        lambda: layers.GRU(3, reset_after=False, go_backwards=True),
        lambda: layers.GRU(3, kernel_regularizer="l2", recurrent_constraint="non_neg"),
        lambda: layers.SimpleRNN(3, activation="relu", return_state=True),
        lambda: layers.RNN([layers.LSTMCell(3), layers.GRUCell(2)], return_state=True),
        lambda: layers.RNN(layers.SimpleRNNCell(3), return_sequences=True),
        lambda: layers.Bidirectional(layers.LSTM(4, return_sequences=True), merge_mode="sum"),
        lambda: layers.Bidirectional(layers.GRU(2), backward_layer=layers.GRU(2, go_backwards=True)),
    ],
)
def test_get_config_round_trip(make):
    layer = make()
    x = torch.randn(2, 5, 4)
    y = layer(x)
    config = layer.get_config()
    assert json.loads(json.dumps(config)) is not None
    clone = type(layer).from_config(config)
    clone(x)
    clone.set_weights(layer.get_weights())
    again = clone.get_config()
    assert {k: v for k, v in again.items() if k != "name"} == {
        k: v for k, v in config.items() if k != "name"
    }
    ys, zs = (y if isinstance(y, list) else [y]), clone(x)
    zs = zs if isinstance(zs, list) else [zs]
    for a, b in zip(ys, zs):
        torch.testing.assert_close(a, b)


def test_lstm_config_keys_are_keras_keys():
    config = layers.LSTM(3).get_config()
    for key in ("units", "activation", "recurrent_activation", "use_bias", "kernel_initializer",
                "recurrent_initializer", "bias_initializer", "unit_forget_bias", "dropout",
                "recurrent_dropout", "return_sequences", "return_state", "go_backwards",
                "stateful", "time_major", "unroll", "implementation", "activity_regularizer"):
        assert key in config
    assert config["recurrent_initializer"]["class_name"] == "Orthogonal"
    assert layers.GRU(2).get_config()["reset_after"] is True


# ---------------------------------------------------------------------------- wrappers
@pytest.mark.parametrize("merge_mode", ["concat", "sum", "ave", "mul", None])
def test_bidirectional_merge_modes(merge_mode):
    x = torch.randn(2, 5, 3)
    bi = layers.Bidirectional(layers.LSTM(4, return_sequences=True), merge_mode=merge_mode)
    out = bi(x)
    f = bi.forward_layer(x)
    b = bi.backward_layer(x).flip(1)
    want = {"concat": torch.cat([f, b], -1), "sum": f + b, "ave": (f + b) / 2, "mul": f * b,
            None: [f, b]}[merge_mode]
    if merge_mode is None:
        for o, w in zip(out, want):
            torch.testing.assert_close(o, w)
    else:
        torch.testing.assert_close(out, want)
    sym = layers.Bidirectional(layers.LSTM(4, return_sequences=True), merge_mode=merge_mode)(
        tf.keras.Input((None, 3))
    )
    if merge_mode is None:
        assert [s.shape for s in sym] == [(None, None, 4)] * 2
    else:
        assert sym.shape == (None, None, 8 if merge_mode == "concat" else 4)
    assert bi.forward_layer.name.startswith("forward_") and bi.backward_layer.name.startswith("backward_")


def test_bidirectional_states_and_masking():
    x = on_default_device(torch.randn(2, 6, 3))
    bi = layers.Bidirectional(layers.LSTM(4, return_state=True))
    out, fh, fc, bh, bc = bi(x)
    assert out.shape == (2, 8) and fh.shape == bh.shape == (2, 4)
    torch.testing.assert_close(out, torch.cat([fh, bh], -1))
    seq = layers.Bidirectional(layers.GRU(3))
    mask = on_default_device(torch.tensor([[True] * 4 + [False] * 2, [True] * 6]))
    padded = seq(x, mask=mask)
    torch.testing.assert_close(padded[:1], seq(x[:1, :4]), atol=1e-6, rtol=1e-5)
    seq_out = layers.Bidirectional(layers.GRU(3, return_sequences=True))
    ys = seq_out(x, mask=mask)
    assert torch.all(ys[0, 4:] == 0)  # Bidirectional forces zero outputs at masked steps
    assert ys._keras_mask is mask


def test_bidirectional_errors():
    with pytest.raises(ValueError, match="Invalid merge mode"):
        layers.Bidirectional(layers.LSTM(2), merge_mode="max")
    with pytest.raises(ValueError, match="`go_backwards`"):
        layers.Bidirectional(layers.LSTM(2), backward_layer=layers.LSTM(2))
    with pytest.raises(ValueError, match="return_sequences"):
        layers.Bidirectional(layers.LSTM(2), backward_layer=layers.LSTM(2, go_backwards=True,
                                                                         return_sequences=True))
    with pytest.raises(ValueError, match="Layer` instance"):
        layers.Bidirectional(torch.nn.LSTM(2, 2))


def test_time_distributed():
    x = torch.randn(2, 4, 3)
    td = layers.TimeDistributed(layers.Dense(5))
    y = td(x)
    assert y.shape == (2, 4, 5) and td.count_params() == 20
    for t in range(4):
        torch.testing.assert_close(y[:, t], td.layer(x[:, t]))
    assert td(tf.keras.Input((None, 3))).shape == (None, None, 5)
    assert td.compute_output_shape((None, 7, 3)) == (None, 7, 5)
    images = layers.TimeDistributed(layers.Dense(2))(tf.keras.Input((6, 4, 3)))
    assert images.shape == (None, 6, 4, 2)
    mask = on_default_device(torch.tensor([[True, True, False, False], [True] * 4]))
    assert td(x, mask=mask)._keras_mask is mask
    clone = layers.TimeDistributed.from_config(json.loads(json.dumps(td.get_config())))
    clone(x)
    clone.set_weights(td.get_weights())
    torch.testing.assert_close(clone(x), y)
    with pytest.raises(ValueError, match="at least 3 dimensions"):
        layers.TimeDistributed(layers.Dense(2))(torch.randn(2, 3))
    with pytest.raises(ValueError, match="Layer` instance"):
        layers.TimeDistributed(torch.nn.Linear(2, 2))


def test_time_distributed_over_lstm_in_a_model():
    inp = tf.keras.Input((3, 5, 4))
    out = layers.TimeDistributed(layers.LSTM(6))(inp)
    model = tf.keras.Model(inp, out)
    assert out.shape == (None, 3, 6)
    assert model(torch.randn(2, 3, 5, 4)).shape == (2, 3, 6)


# ---------------------------------------------------------------------------- generic RNN
class MinimalRNNCell(layers.Layer):
    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.state_size = units

    def build(self, input_shape):
        self.kernel = self.add_weight("kernel", shape=(input_shape[-1], self.units))
        self.recurrent_kernel = self.add_weight("recurrent_kernel", shape=(self.units, self.units))

    def call(self, inputs, states):
        output = inputs @ self.kernel + states[0] @ self.recurrent_kernel
        return output, [output]

    def get_config(self):
        return {**super().get_config(), "units": self.units}


def test_rnn_with_custom_and_stacked_cells():
    x = torch.randn(2, 5, 3)
    layer = layers.RNN(MinimalRNNCell(4), return_sequences=True)
    y = layer(x)
    k, r = layer.get_weights()
    h = np.zeros((2, 4), dtype=np.float32)
    for t in range(5):
        h = x[:, t].numpy() @ k + h @ r
    np.testing.assert_allclose(y[:, -1].detach().numpy(), h, atol=1e-5)
    stacked = layers.RNN([layers.LSTMCell(4), layers.GRUCell(3)], return_state=True)
    out, h1, c1, h2 = stacked(x)
    assert out.shape == (2, 3) and h1.shape == c1.shape == (2, 4) and h2.shape == (2, 3)
    torch.testing.assert_close(out, h2)
    assert stacked.count_params() == 4 * (4 * 7 + 4) + 3 * (3 * 7 + 6)
    with pytest.raises(ValueError, match="state_size"):
        layers.RNN(layers.Dense(3))


def test_cells_step_by_step():
    cell = layers.LSTMCell(3)
    h, (h2, c) = cell(*on_default_device([torch.randn(2, 4), [torch.zeros(2, 3), torch.zeros(2, 3)]]))
    assert h.shape == c.shape == (2, 3)
    torch.testing.assert_close(h, h2)
    assert cell.state_size == [3, 3] and layers.GRUCell(2).state_size == 2
    zeros = layers.GRUCell(2).get_initial_state(batch_size=5, dtype=torch.float32)
    assert zeros[0].shape == (5, 2)


# ---------------------------------------------------------------------------- errors
def test_argument_and_input_errors():
    with pytest.raises(ValueError, match="`units`.*got 0"):
        layers.LSTM(0)
    with pytest.raises(ValueError, match="`units`"):
        layers.GRU(2.5)
    with pytest.raises(ValueError, match="`dropout` must be a float in \\[0, 1\\)"):
        layers.SimpleRNN(3, dropout=1.5)
    with pytest.raises(ValueError, match="recurrent_dropout"):
        layers.LSTMCell(3, recurrent_dropout=-0.1)
    with pytest.raises(ValueError, match="expected ndim=3, found ndim=2"):
        layers.LSTM(3)(torch.randn(2, 5))
    layer = layers.GRU(3)
    layer(torch.randn(2, 5, 4))
    with pytest.raises(ValueError, match="expected shape=.*found shape=\\(2, 5, 6\\)"):
        layer(torch.randn(2, 5, 6))
    with pytest.raises(ValueError, match="0 time steps"):
        layers.GRU(3, reset_after=False)(torch.randn(2, 0, 4))


def test_fused_kernels_get_their_weights_in_one_buffer():
    """On a GPU the fused kernels get the converted weights as consecutive views of one buffer
    from its start (cuDNN's flat layout, as `nn.LSTM.flatten_parameters` makes it); the kernel's
    result and the gradients reaching the layer's own weights are those of the separate tensors."""
    from torchestimator.keras.layers.rnn import _fused

    torch.manual_seed(0)
    units, features = 3, 2
    kernel = torch.randn(features, 4 * units, requires_grad=True)
    recurrent = torch.randn(units, 4 * units, requires_grad=True)
    bias = torch.randn(4 * units, requires_grad=True)
    x = torch.randn(5, 4, features)  # time-major
    hx = (torch.zeros(1, 4, units), torch.zeros(1, 4, units))
    results = []
    for flat in (False, True):
        params = [kernel.t(), recurrent.t(), bias, torch.zeros(4 * units)]
        if flat:
            params = _fused.one_buffer(params)
            base = params[0].untyped_storage().data_ptr()
            assert params[0].data_ptr() == base and all(p.is_contiguous() for p in params)
            for before, after in zip(params, params[1:]):
                assert after.data_ptr() == before.data_ptr() + before.numel() * before.element_size()
            assert [p.shape for p in params] == [(4 * units, features), (4 * units, units), (4 * units,), (4 * units,)]
        out = torch._VF.lstm(x, hx, params, True, 1, 0.0, True, False, False)[0]
        grads = torch.autograd.grad(out.square().sum(), (kernel, recurrent, bias))
        results.append((out.detach(), grads))
    torch.testing.assert_close(results[0][0], results[1][0])
    for a, b in zip(results[0][1], results[1][1]):
        torch.testing.assert_close(a, b)


def test_a_right_padded_mask_is_read_back_once_with_its_lengths():
    """Whether the mask is right-padded and its lengths (for packing) come from one read-back;
    a mask with every step present runs unmasked, any other mask takes the step loop."""
    from torchestimator.keras.layers.rnn import _fused

    right = torch.tensor([[1, 1, 0, 0], [1, 1, 1, 1], [0, 0, 0, 0]], dtype=torch.bool).t()  # (T, B)
    lengths = _fused.right_padded_lengths(right)
    assert lengths.host.device.type == "cpu" and lengths.host.tolist() == [2, 4, 0]
    assert lengths.device.tolist() == [2, 4, 0]
    left = torch.tensor([[0, 1, 1, 1], [1, 1, 1, 1]], dtype=torch.bool).t()
    assert _fused.right_padded_lengths(left) is None

    calls = []
    real = _fused.run
    try:
        _fused.run = lambda *a, **k: calls.append(a[5]) or real(*a, **k)
        x = on_default_device(torch.randn(2, 4, 3))
        layers.LSTM(2)(x, mask=on_default_device(torch.ones(2, 4, dtype=torch.bool)))
        layers.LSTM(2)(x, mask=on_default_device(left.t()))
    finally:
        _fused.run = real
    assert calls == [None]  # all present: unmasked; left-padded: the step loop


def test_layers_given_the_same_mask_read_it_back_once():
    """A Bidirectional layer's two directions and a stacked layer get the same mask object:
    it is read back once; a new mask, or the same one changed in place, is read again."""
    from torchestimator.keras.layers.rnn import _fused

    reads = []
    real = _fused._right_padded_lengths
    x = on_default_device(torch.randn(3, 5, 4))
    mask = on_default_device(torch.tensor([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1], [1, 0, 0, 0, 0]], dtype=torch.bool))
    model = layers.Bidirectional(layers.LSTM(2, return_sequences=True))
    stacked = layers.LSTM(2)
    try:
        _fused._right_padded_lengths = lambda m: reads.append(m.shape) or real(m)
        stacked(model(x, mask=mask), mask=mask)
        assert len(reads) == 1
        stacked(x, mask=mask.clone())
        assert len(reads) == 2
        same = mask.clone()
        stacked(x, mask=same)
        same[0, 4] = True  # changed in place: no longer right-padded the same way
        expected = _loop_twin(stacked)
        _copy_weights(stacked, expected, x)
        torch.testing.assert_close(stacked(x, mask=same), expected(x, mask=same), atol=1e-5, rtol=1e-5)
        assert len(reads) == 4
        with torch.inference_mode():  # inference tensors have no version counter: read each time
            frozen = mask.clone()
            stacked(x, mask=frozen)
            stacked(x, mask=frozen)
        assert len(reads) == 6
    finally:
        _fused._right_padded_lengths = real


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_a_masked_lstm_on_cuda_synchronizes_once_a_call():
    """The mask's check and lengths are one read-back (they were four: the mask's `all`, its
    right-padded test, the lengths for packing, and the empty rows)."""
    x = torch.randn(8, 10, 4, device="cuda")
    mask = torch.arange(10, device="cuda")[None] < torch.randint(1, 11, (8, 1), device="cuda")
    layer = layers.LSTM(5, return_sequences=True)
    layer(x, mask=mask)
    torch.cuda.synchronize()
    torch.cuda.set_sync_debug_mode("warn")
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            layer(x, mask=mask).sum().backward()
    finally:
        torch.cuda.set_sync_debug_mode(0)
    # ours: the one read-back of the mask's shape and lengths (torch's packing of the sequence
    # copies its sort order to the GPU on its own)
    ours = [w for w in caught if "synchronizing" in str(w.message) and "torchestimator" in w.filename]
    assert len(ours) == 1 and ours[0].filename.endswith("_fused.py"), [(w.filename, w.lineno) for w in ours]
