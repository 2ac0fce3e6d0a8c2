"""Keras paths no other test runs: the base `Layer` (identity) and `Layer.compute_output_signature`,
`InputSpec` config round trip, `Functional.input` / `output`, `Model.get_config`,
`Trainer.run_eagerly`, `LossScaleOptimizer.compute_gradients` / `minimize`, the optimizer's
`learning_rate` / `iterations` dtypes, Nadam's kernel `load_state_dict`, `from_torch` losses,
`MeanTensor` state, `Progbar.add` and `backend.set_epsilon`."""

from __future__ import annotations

import copy

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator.keras.optimizers.nadam import NadamKernel

keras = tf.keras


def test_base_layer_is_the_identity():
    x = np.arange(6.0, dtype="float32").reshape(2, 3)
    layer = keras.layers.Layer()
    np.testing.assert_array_equal(layer(x).numpy(), x)
    assert layer.built
    inputs = keras.Input((3,))
    model = keras.Model(inputs, keras.layers.Layer()(inputs))
    np.testing.assert_array_equal(model(x).numpy(), x)
    assert keras.layers.Layer().compute_output_shape((None, 3)) == (None, 3)


def test_compute_output_signature():
    spec = keras.layers.Dense(3).compute_output_signature(tf.TensorSpec((None, 5), tf.float32))
    assert isinstance(spec, tf.TensorSpec)
    assert tuple(spec.shape) == (None, 3) and spec.dtype == tf.float32
    lstm = keras.layers.LSTM(4, return_state=True)
    specs = lstm.compute_output_signature(tf.TensorSpec((2, 5, 3), tf.float32))
    assert [tuple(s.shape) for s in specs] == [(2, 4)] * 3
    spec = keras.layers.Dense(2, dtype="float64").compute_output_signature(
        tf.TensorSpec((None, 5), tf.float64))
    assert spec.dtype == tf.float64


def test_input_spec_config_round_trip():
    spec = keras.layers.InputSpec(dtype="float32", shape=(None, 3), axes={-1: 3})
    config = spec.get_config()
    assert config == {"dtype": "float32", "shape": (None, 3), "ndim": 2, "max_ndim": None,
                      "min_ndim": None, "axes": {-1: 3}}
    again = keras.layers.InputSpec.from_config(config)
    assert again.get_config() == config


def test_functional_input_output_and_config_round_trip():
    inputs = keras.Input((3,))
    outputs = keras.layers.Dense(2)(inputs)
    model = keras.Model(inputs, outputs)
    assert model.input is inputs and model.output is outputs and model.outputs == [outputs]
    assert model.layers[1].input is inputs
    clone = keras.Model.from_config(model.get_config())
    clone.set_weights(model.get_weights())
    x = np.random.RandomState(0).randn(4, 3).astype("float32")
    np.testing.assert_allclose(clone(x).numpy(), model(x).numpy(), atol=1e-6)


def test_run_eagerly_setter():
    model = keras.Sequential([keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    assert model.run_eagerly is False
    model.run_eagerly = True
    assert model.run_eagerly is True


def test_loss_scale_optimizer_compute_gradients_and_minimize():
    opt = keras.mixed_precision.LossScaleOptimizer(keras.optimizers.SGD(0.1))
    v = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(v * v)
    ((grad, var),) = opt.compute_gradients(loss, [v], tape)
    assert var is v
    np.testing.assert_allclose(grad.numpy(), [2.0, 4.0])  # unscaled
    opt.minimize(lambda: tf.reduce_sum(v * v), [v])
    np.testing.assert_allclose(v.numpy(), [0.8, 1.6], rtol=1e-6)
    scale = float(opt.loss_scale)
    opt.minimize(lambda: tf.reduce_sum(v * v) * float("inf"), [v])  # skipped, scale halved
    np.testing.assert_allclose(v.numpy(), [0.8, 1.6], rtol=1e-6)
    assert float(opt.loss_scale) == scale / 2 and int(opt.iterations) == 1


def test_optimizer_value_dtypes_are_dtypes():
    opt = keras.optimizers.Adam(0.01)
    assert opt.learning_rate.dtype == tf.float32
    assert opt.iterations.dtype == tf.int64
    assert tf.cast(opt.iterations, opt.learning_rate.dtype).dtype == tf.float32


def test_nadam_kernel_load_state_dict_continues_the_run():
    gen = torch.Generator().manual_seed(0)
    grads = [torch.randn(3, generator=gen) for _ in range(6)]
    p1 = torch.nn.Parameter(torch.randn(3, generator=gen))
    k1 = NadamKernel([p1], lr=0.1)
    for g in grads[:3]:
        p1.grad = g.clone()
        k1.step()
    p2 = torch.nn.Parameter(p1.detach().clone())
    k2 = NadamKernel([p2], lr=0.1)
    state = copy.deepcopy(k1.state_dict())
    state["state"][0]["step"] = state["state"][0]["step"].double()  # counters come back as floats
    k2.load_state_dict(state)
    assert k2.iterations == 3 and k2.state[p2]["step"].dtype == torch.get_default_dtype()
    for g in grads[3:]:
        p1.grad, p2.grad = g.clone(), g.clone()
        k1.step()
        k2.step()
    torch.testing.assert_close(p2.detach(), p1.detach())


def test_from_torch_loss_call_and_config():
    loss = keras.losses.from_torch(lambda input, target: (input - target).abs().sum(-1), name="l1")
    # Keras order (y_true, y_pred); the function gets torch's (input, target)
    assert loss.call(torch.tensor([[0.0, 0.0]]), torch.tensor([[1.0, -2.0]])).tolist() == [3.0]
    assert loss.get_config() == {"name": "l1"}
    with pytest.raises(ValueError, match="l1"):
        type(loss).from_config(loss.get_config())


def test_mean_tensor_total_count_and_reset_state():
    metric = keras.metrics.MeanTensor()
    metric.update_state([1.0, 2.0])
    metric.update_state([3.0, 4.0])
    np.testing.assert_array_equal(metric.total.numpy(), [4.0, 6.0])
    np.testing.assert_array_equal(metric.count.numpy(), [2.0, 2.0])
    np.testing.assert_array_equal(metric.result().numpy(), [2.0, 3.0])
    metric.reset_state()
    np.testing.assert_array_equal(metric.total.numpy(), [0.0, 0.0])
    metric.update_state([5.0, 6.0])
    np.testing.assert_array_equal(metric.result().numpy(), [5.0, 6.0])


def test_progbar_add_accumulates_weighted_values():
    bar = keras.utils.Progbar(10, verbose=0)
    bar.add(3, values=[("loss", 1.0)])
    bar.add(2, values=[("loss", 3.0)])
    assert bar._seen_so_far == 5
    assert bar._values["loss"] == [9.0, 5]  # a running mean weighted by steps: 9 / 5


def test_set_epsilon():
    old = keras.backend.epsilon()
    try:
        keras.backend.set_epsilon(1e-5)
        assert keras.backend.epsilon() == 1e-5
    finally:
        keras.backend.set_epsilon(old)
    assert keras.backend.epsilon() == old


def test_image_iterators_labels_and_iter(tmp_path):
    from PIL import Image

    names = []
    for cls in ("a", "b"):
        (tmp_path / cls).mkdir()
        for i in range(2):
            Image.fromarray(np.full((4, 4, 3), 60 * i, np.uint8)).save(tmp_path / cls / f"{i}.png")
            names.append(f"{cls}/{i}.png")
    gen = keras.preprocessing.image.ImageDataGenerator()
    it = gen.flow_from_directory(str(tmp_path), target_size=(4, 4), batch_size=2, shuffle=False)
    assert it.labels.tolist() == [0, 0, 1, 1]
    assert iter(it) is it
    x, y = next(iter(it))
    assert x.shape == (2, 4, 4, 3) and y.tolist() == [[1.0, 0.0], [1.0, 0.0]]
    import pandas as pd

    frame = pd.DataFrame({"filename": names, "class": ["x", "x", "y", "y"], "v": [1.0, 2.0, 3.0, 4.0]})
    common = dict(directory=str(tmp_path), x_col="filename", target_size=(4, 4), shuffle=False)
    assert list(gen.flow_from_dataframe(frame, y_col="class", **common).labels) == [0, 0, 1, 1]
    raw = gen.flow_from_dataframe(frame, y_col="v", class_mode="raw", **common)
    assert raw.labels.tolist() == [1.0, 2.0, 3.0, 4.0]
    multi = gen.flow_from_dataframe(frame, y_col=["v", "v"], class_mode="multi_output", **common)
    assert [list(v) for v in multi.labels] == [[1.0, 2.0, 3.0, 4.0]] * 2


def test_ordered_enqueuer_get_yields_the_sequence_in_order():
    class Seq(keras.utils.Sequence):
        def __len__(self):
            return 3

        def __getitem__(self, i):
            return np.full((2, 1), i, "float32"), np.full((2, 1), i, "float32")

    with pytest.raises(NotImplementedError):
        keras.utils.Sequence.__getitem__(Seq(), 0)
    enqueuer = keras.utils.OrderedEnqueuer(Seq(), use_multiprocessing=False)
    enqueuer.start(workers=1, max_queue_size=2)
    try:
        batches = [batch for _, batch in zip(range(4), enqueuer.get())]
    finally:
        enqueuer.stop()
    assert [int(x[0, 0]) for x, _ in batches] == [0, 1, 2, 0]  # epochs repeat in order


def test_enable_unsafe_deserialization_lets_lambda_source_load():
    from torchestimator.keras import _registry
    from torchestimator.keras.layers import core

    config = keras.layers.Lambda(lambda x: x * 3).get_config()
    with pytest.raises(ValueError, match="lambda"):
        keras.layers.Lambda.from_config(config)  # safe mode by default
    previous = _registry._UNSAFE_GLOBALLY
    try:
        core.enable_unsafe_deserialization()
        assert not _registry.in_safe_mode()
        layer = keras.layers.Lambda.from_config(config)
        np.testing.assert_array_equal(layer(np.ones((1, 2), "float32")).numpy(), [[3.0, 3.0]])
    finally:
        _registry._UNSAFE_GLOBALLY = previous
    assert _registry.in_safe_mode()


def test_predict_proba_warns_and_predicts():
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    x = np.random.RandomState(0).randn(3, 2).astype("float32")
    with pytest.warns(UserWarning, match="predict_proba"):
        got = model.predict_proba(x)
    np.testing.assert_allclose(got, model.predict(x, verbose=0), rtol=1e-6)


def test_keras_tensor_len():
    assert len(keras.Input((3,), batch_size=2)) == 2
    with pytest.raises(TypeError, match="unknown first dimension"):
        len(keras.Input((3,)))
