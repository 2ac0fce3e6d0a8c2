"""A Keras model here is a real PyTorch module (issue 29).

1. `model.train()` / `model.eval()` decide the training flag when no `training=` is given
   and no Keras front (fit/evaluate/predict, an outer call's `training=`, an Estimator
   model_fn) decides; Keras layers start in eval mode and the fronts leave the modes as found.
2. `copy.deepcopy`, pickle and `torch.save` give models that run and train on their own;
   `torch.optim.swa_utils.AveragedModel` works.
3. `tf.Variable` honours the keywords of the `Tensor` methods it overrides (onnx export).
4. `torch.export` with a dynamic batch takes the natural `dynamic_shapes=({0: Dim(...)},)`.
"""

import copy
import io
import pickle

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator._engine.object_scope import ObjectScope

layers = tf.keras.layers


def _x(rows=16, dim=8, seed=0):
    return torch.randn(rows, dim, generator=torch.Generator().manual_seed(seed)) + 3.0


def _bn_dropout_model():
    return tf.keras.Sequential([
        layers.Dense(8, input_shape=(8,)),
        layers.BatchNormalization(name="bn"),
        layers.Dropout(0.5, name="drop"),
        layers.Dense(2),
    ])


def _same(a, b):
    return torch.equal(a.detach(), b.detach())


# ---------------------------------------------------------------- 1. the training flag
def test_keras_layers_and_models_start_in_eval_mode():
    model = _bn_dropout_model()
    assert model.training is False
    assert all(not m.training for m in model.modules())
    x = _x()
    assert _same(model(x), model(x))  # TF: model(x) is inference


def test_train_mode_trains_dropout_and_batchnorm_eval_mode_does_not():
    model = _bn_dropout_model()
    bn, x = model.get_layer("bn"), _x()
    model.train()
    before = bn.moving_mean.detach().clone()
    assert not _same(model(x), model(x))  # dropout is on
    assert not torch.equal(bn.moving_mean.detach(), before)  # the moving statistics move
    model.eval()
    moved = bn.moving_mean.detach().clone()
    assert _same(model(x), model(x))
    assert torch.equal(bn.moving_mean.detach(), moved)


def test_explicit_training_wins_over_module_mode():
    model, x = _bn_dropout_model(), _x()
    model.train()
    assert _same(model(x, training=False), model(x, training=False))
    model.eval()
    assert not _same(model(x, training=True), model(x, training=True))


def test_each_layer_reads_its_own_mode():
    model, x = _bn_dropout_model(), _x()
    model.train()
    model.get_layer("drop").eval()
    bn = model.get_layer("bn")
    before = bn.moving_mean.detach().clone()
    assert _same(model(x), model(x))  # no dropout ...
    assert not torch.equal(bn.moving_mean.detach(), before)  # ... but batch norm trains


def test_outer_training_argument_reaches_nested_layers_in_train_mode():
    class Block(layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.drop = layers.Dropout(0.5)

        def call(self, x):  # no `training` parameter: the call context carries it
            return self.drop(x)

    block, x = Block(), _x()
    block.train()
    assert not _same(block(x), block(x))
    outer = tf.keras.Sequential([tf.keras.Input((8,)), block])
    outer.eval()
    block.train()
    assert _same(outer(x, training=False), outer(x, training=False))


def test_subclassed_model_follows_train_and_eval():
    class Net(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = layers.Dense(8)
            self.drop = layers.Dropout(0.5)

        def call(self, x, training=None):
            return self.drop(self.dense(x), training=training)

    net, x = Net(), _x()
    assert net.training is False and _same(net(x), net(x))
    net.train()
    assert not _same(net(x), net(x))
    net.eval()
    assert _same(net(x), net(x))


@pytest.mark.parametrize("rnn", [layers.SimpleRNN, layers.GRU, layers.LSTM])
@pytest.mark.parametrize("which", ["dropout", "recurrent_dropout"])
def test_rnn_dropouts_follow_module_mode(rnn, which):
    layer = rnn(6, **{which: 0.5})
    x = torch.randn(4, 5, 3, generator=torch.Generator().manual_seed(1))
    layer(x)
    assert _same(layer(x), layer(x))  # eval mode at construction
    layer.train()
    assert not _same(layer(x), layer(x))
    layer.eval()
    assert _same(layer(x), layer(x))


@pytest.mark.parametrize("make", [
    lambda: layers.GaussianNoise(1.0),
    lambda: layers.GaussianDropout(0.5),
    lambda: layers.SpatialDropout1D(0.5),
])
def test_noise_layers_follow_module_mode(make):
    layer, x = make(), torch.randn(4, 5, 6) + 3.0
    assert _same(layer(x), layer(x))
    layer.train()
    assert not _same(layer(x), layer(x))


def test_plain_torch_loop_trains_batchnorm_statistics():
    model = _bn_dropout_model()
    bn = model.get_layer("bn")
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    x, y = _x(), torch.randn(16, 2)
    model.train()
    for _ in range(3):
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
    assert bn.moving_mean.abs().sum() > 0
    model.eval()
    assert _same(model(x), model(x))


def test_symbolic_call_of_a_layer_in_train_mode_does_not_train_it():
    bn = layers.BatchNormalization()
    bn(_x())
    bn.train()
    before = bn.moving_mean.detach().clone()
    out = bn(tf.keras.Input((8,)))  # shape inference runs the layer: inference only
    assert out.shape == (None, 8)
    assert torch.equal(bn.moving_mean.detach(), before)


def test_model_fn_scope_follows_tf_rule_not_module_mode():
    drop, x = layers.Dropout(0.5), _x()
    drop.train()
    with ObjectScope():
        assert _same(drop(x), drop(x))  # TF: no training= in a model_fn is inference
        assert not _same(drop(x, training=True), drop(x, training=True))


def _compiled(model):
    model.compile(optimizer="sgd", loss="mse")
    return model


def _modes(model):
    return [m.training for m in model.modules()]


@pytest.mark.parametrize("start", [False, True])
def test_keras_fronts_leave_modes_as_found(start):
    model = _compiled(_bn_dropout_model())
    model.train(start)
    x, y = _x(), np.zeros((16, 2), "float32")
    found = _modes(model)
    model.fit(x, y, epochs=1, batch_size=8, verbose=0)
    assert _modes(model) == found
    model.evaluate(x, y, verbose=0)
    assert _modes(model) == found
    model.predict(x, verbose=0)
    assert _modes(model) == found
    model.train_on_batch(x, y)
    assert _modes(model) == found
    model.test_on_batch(x, y)
    model.predict_on_batch(x)
    assert _modes(model) == found


def test_mixed_modes_are_restored_per_module():
    model = _compiled(_bn_dropout_model())
    model.train()
    model.get_layer("drop").eval()
    found = _modes(model)
    model.fit(_x(), np.zeros((16, 2), "float32"), epochs=1, batch_size=8, verbose=0)
    assert _modes(model) == found


def test_fronts_decide_over_module_mode():
    model = _compiled(_bn_dropout_model())
    bn, x = model.get_layer("bn"), _x()
    model.eval()  # fit trains anyway
    before = bn.moving_mean.detach().clone()
    model.fit(x, np.zeros((16, 2), "float32"), epochs=1, batch_size=16, verbose=0)
    assert not torch.equal(bn.moving_mean.detach(), before)
    model.train()  # predict is inference anyway
    moved = bn.moving_mean.detach().clone()
    np.testing.assert_array_equal(model.predict(x, verbose=0), model.predict(x, verbose=0))
    assert torch.equal(bn.moving_mean.detach(), moved)


# ---------------------------------------------------------------- 2. copies
def _functional_shared():
    a, b = tf.keras.Input((4,), name="a"), tf.keras.Input((4,), name="b")
    shared = layers.Dense(3, name="shared")
    x = layers.Concatenate()([shared(a), shared(b)])
    x = layers.BatchNormalization()(x)
    return tf.keras.Model([a, b], layers.Dense(2)(x) * 2.0 + 1.0)


class Subclassed(tf.keras.Model):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.hidden = layers.Dense(5, activation="relu")
        self.out = layers.Dense(2)

    def call(self, x, training=None):
        return self.out(self.hidden(x))


class CustomStep(tf.keras.Model):
    """Only overrides `train_step`: built functionally, it is a run-time hybrid class."""

    def train_step(self, data):
        return super().train_step(data)


def _custom_step():
    inputs = tf.keras.Input((4,))
    return CustomStep(inputs, layers.Dense(2)(inputs))


def _sequential():
    return tf.keras.Sequential([layers.Dense(5, input_shape=(4,)), layers.Dense(2)])


def _lazy_sequential():
    model = tf.keras.Sequential([layers.Dense(5), layers.Dense(2)])
    model(torch.zeros(1, 4))
    return model


def _torch_save(model):
    buffer = io.BytesIO()
    torch.save(model, buffer)
    buffer.seek(0)
    return torch.load(buffer, weights_only=False)


COPIES = {
    "deepcopy": copy.deepcopy,
    "pickle": lambda m: pickle.loads(pickle.dumps(m)),
    "torch.save": _torch_save,
}
MODELS = {
    "sequential": (_sequential, lambda: torch.randn(6, 4)),
    "lazy_sequential": (_lazy_sequential, lambda: torch.randn(6, 4)),
    "functional_shared": (_functional_shared, lambda: [torch.randn(6, 4), torch.randn(6, 4)]),
    "subclassed": (Subclassed, lambda: torch.randn(6, 4)),
    "custom_train_step": (_custom_step, lambda: torch.randn(6, 4)),
}


@pytest.mark.parametrize("how", sorted(COPIES))
@pytest.mark.parametrize("kind", sorted(MODELS))
def test_copies_run_and_are_independent(how, kind):
    make, inputs = MODELS[kind]
    model, x = make(), inputs()
    expected = model(x)
    clone = COPIES[how](model)
    assert type(clone).__name__ == type(model).__name__
    assert torch.allclose(clone(x), expected)
    with torch.no_grad():
        for p in clone.parameters():
            p.add_(1.0)
    assert torch.allclose(model(x), expected)  # the original did not change
    assert not torch.allclose(clone(x), expected)
    originals = {id(p) for p in model.parameters()}
    assert not any(id(p) in originals for p in clone.parameters())
    assert [w.name for w in clone.weights] == [w.name for w in model.weights]


@pytest.mark.parametrize("how", sorted(COPIES))
def test_copy_trains_with_fit_without_touching_the_original(how):
    model = _compiled(_functional_shared())
    x = [torch.randn(16, 4), torch.randn(16, 4)]
    y = np.ones((16, 2), "float32")
    model.fit(x, y, epochs=1, verbose=0)
    weights = model.get_weights()
    clone = COPIES[how](model)
    clone.fit(x, y, epochs=2, verbose=0)
    for before, now in zip(weights, model.get_weights()):
        np.testing.assert_array_equal(before, now)
    assert any(not np.array_equal(a, b) for a, b in zip(weights, clone.get_weights()))
    model.fit(x, y, epochs=1, verbose=0)  # the original still trains


def test_copy_keeps_training_mode():
    model = _bn_dropout_model()
    model.train()
    assert copy.deepcopy(model).training is True
    assert pickle.loads(pickle.dumps(model.eval())).training is False


def test_averaged_model():
    from torch.optim.swa_utils import AveragedModel

    model, x = _functional_shared(), [torch.randn(6, 4), torch.randn(6, 4)]
    averaged = AveragedModel(model)
    with torch.no_grad():
        for p in model.parameters():
            p.add_(2.0)
    averaged.update_parameters(model)
    out = averaged(x)
    assert out.shape == (6, 2)
    ema = AveragedModel(model, multi_avg_fn=torch.optim.swa_utils.get_ema_multi_avg_fn(0.9))
    ema.update_parameters(model)
    assert ema(x).shape == (6, 2)


# ---------------------------------------------------------------- 3. Variable and torch
def test_variable_numpy_takes_torchs_force_keyword():
    v = tf.Variable([1.0, 2.0])
    np.testing.assert_array_equal(v.numpy(force=True), [1.0, 2.0])
    np.testing.assert_array_equal(v.numpy(force=False), [1.0, 2.0])
    assert "tf.Variable" in v.__repr__(tensor_contents=None)


def test_onnx_export_dynamo():
    pytest.importorskip("onnx")
    pytest.importorskip("onnxscript")
    from onnx.reference import ReferenceEvaluator

    model = _bn_dropout_model()
    x = _x(5)
    program = torch.onnx.export(model, (x,), dynamo=True, verbose=False)
    proto = program.model_proto
    got = ReferenceEvaluator(proto).run(None, {proto.graph.input[0].name: x.numpy()})[0]
    np.testing.assert_allclose(got, model(x).detach().numpy(), rtol=1e-5, atol=1e-5)


def test_onnx_export_with_a_dynamic_batch_runs_in_onnxruntime(tmp_path):
    ort = pytest.importorskip("onnxruntime")
    pytest.importorskip("onnxscript")
    from torch.export import Dim

    model = _bn_dropout_model()
    path = tmp_path / "model.onnx"
    torch.onnx.export(model, (_x(5),), str(path), dynamo=True, verbose=False,
                      dynamic_shapes=({0: Dim("batch")},))
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    name = session.get_inputs()[0].name
    for batch in (1, 7):  # not the batch it was exported with
        x = _x(batch)
        got = session.run(None, {name: x.numpy()})[0]
        np.testing.assert_allclose(got, model(x).detach().numpy(), rtol=1e-5, atol=1e-5)


# ---------------------------------------------------------------- 4. torch.export
@pytest.mark.parametrize("kind", ["sequential", "functional", "subclassed"])
def test_torch_export_dynamic_batch_with_positional_spec(kind):
    from torch.export import Dim

    model = {"sequential": _sequential, "subclassed": Subclassed,
             "functional": lambda: tf.keras.Model(*_one_input())}[kind]()
    model(torch.randn(3, 4))
    program = torch.export.export(model, (torch.randn(3, 4),),
                                  dynamic_shapes=({0: Dim("batch")},))
    x = torch.randn(7, 4)
    assert torch.allclose(program.module()(x), model(x))


def _one_input():
    inputs = tf.keras.Input((4,))
    return inputs, layers.Dense(2)(layers.Dense(3)(inputs))


def test_forward_keeps_its_callers():
    model, x = _sequential(), torch.randn(2, 4)
    assert torch.allclose(model.forward(x), model(x))
    assert torch.allclose(model.forward(inputs=x), model(x))
    drop = layers.Dropout(0.5)
    assert _same(drop.forward(x, training=False), x)
