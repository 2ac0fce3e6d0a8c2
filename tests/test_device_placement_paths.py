"""Paths a run of the suite on a second device (`TORCHESTIMATOR_DEVICE=lazy:0`,
tests/_harness/lazy_suite.py) found leaving tensors on the CPU, as a GPU run would: a subclassed
model built from a shape, a custom training loop over a `tf.data.Dataset`, `fit` on tensors
already on the device, one-hot labels' class ids, a feature-column layer over host features, the
weights of a model being exported moved to the host and back. Each runs on `lazy:0` here (a real
second device: mixing its tensors with CPU ones raises, as CUDA's do). An export of a model on
the device cannot be run whole on `lazy:0`: torch.export keeps weak references to the weights,
and the lazy backend can move them back in place only by swapping tensors, which those refuse
(CUDA moves them with `set_data`); the GPU check runs it."""

from __future__ import annotations

import contextlib

import numpy as np
import pytest
import torch

import torchestimator as tf
from _harness.device_leaks import assert_on_device, available, on_leak_device
from torchestimator._engine import device_moves, loop
from torchestimator.keras.engine import one_hot_labels

pytestmark = pytest.mark.skipif(not available(), reason="this torch build has no lazy backend")

_RNG = np.random.default_rng(0)
_X = _RNG.normal(size=(32, 3)).astype(np.float32)
_Y = (_X[:, :1] > 0).astype(np.float32)


class _Net(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.hidden = tf.keras.layers.Dense(4, activation="relu")
        self.out = tf.keras.layers.Dense(1)

    def call(self, x):
        return self.out(self.hidden(x))


def test_a_subclassed_model_built_from_a_shape_is_traced_where_its_weights_are_made():
    with on_leak_device() as device:
        net = _Net()
        net.build((None, 3))  # traced on zeros: on the device its sublayers create weights on
        assert_on_device(net, device, "net")
        assert net(_X).device.type == device.type


def test_iterating_a_dataset_leaves_tensors_the_pipeline_put_on_a_device_where_they_are(monkeypatch):
    """`iter(dataset)` copies host tensors to the default device; an element that
    `prefetch_to_device` put on another device (a second GPU; here the meta device) stays there,
    as TF's, instead of being copied again (from meta: not at all)."""
    from torchestimator._ops.control_ops import _context

    with on_leak_device() as device:
        monkeypatch.setattr(_context, "_resolve_device", lambda name: torch.device("meta"))
        ds = tf.data.Dataset.from_tensor_slices((_X, _Y)).batch(8)
        elements = list(ds.apply(tf.data.experimental.prefetch_to_device("/gpu:1")))
        assert len(elements) == 4 and {t.device.type for e in elements for t in e} == {"meta"}
        host = next(iter(ds))
        assert host[0].device.type == host[1].device.type == device.type


def test_the_loss_trackers_epoch_value_reads_state_set_from_outside_as_on_the_host():
    """fit's loss tracker keeps its count on the host between reads; on a device its epoch value
    adds it without flushing it into the state, as on the host, so a state set from outside
    (`assign`, `set_weights`) reads the same on every device."""
    from torchestimator.keras.engine.compile_utils import LossTracker

    with on_leak_device() as device:
        tracker = LossTracker("loss")
        assert tracker.total.device.type == device.type
        tracker.add_batch_loss(torch.tensor(2.0, device=tracker.total.device), 10)
        assert tracker.python_result() == 2.0
        tracker.count.assign(40.0)  # the host count (10) is still to be added: 20 / 50
        assert tracker.python_result() == pytest.approx(0.4)
        tracker.set_weights([np.float32(6.0), np.float32(3.0)])
        assert tracker.python_result() == pytest.approx(6.0 / 13.0)


def test_a_custom_training_loop_over_a_dataset_runs_on_the_default_device():
    """TF's 'training loop from scratch': batches from `iter(dataset)` meet the model's weights."""
    with on_leak_device() as device:
        tf.keras.utils.set_random_seed(0)
        model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
        loss_fn = tf.keras.losses.BinaryCrossentropy(from_logits=True)
        optimizer = tf.keras.optimizers.SGD(0.1)
        dataset = tf.data.Dataset.from_tensor_slices((_X, _Y)).batch(8)
        for x, y in dataset:
            assert x.device.type == y.device.type == device.type
            with tf.GradientTape() as tape:
                loss = loss_fn(y, model(x, training=True))
            grads = tape.gradient(loss, model.trainable_weights)
            optimizer.apply_gradients(zip(grads, model.trainable_weights))
        assert_on_device(model, device, "model")
        assert np.isfinite(float(loss))
        # the library's own pipelines read the dataset on the host and move each batch once
        x, _ = next(loop.iter_on_host(dataset))
        assert x.device.type == "cpu"
        strings = tf.data.Dataset.from_tensor_slices(np.array(["a", "b"]))
        assert [s.numpy() for s in strings] == [b"a", b"b"]  # strings stay host values
    x, _ = next(iter(dataset))  # outside the block: on the default device (on a CPU machine nothing moves)
    assert x.device.type == loop.default_device().type


def test_fit_on_tensors_already_on_the_device_shuffles_there():
    with on_leak_device() as device:
        x, y = torch.from_numpy(_X).to(device), torch.from_numpy(_Y).to(device)
        model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
        model.compile("sgd", "mse")
        history = model.fit(x, y, batch_size=8, epochs=2, shuffle=True, verbose=0).history
        assert len(history["loss"]) == 2 and np.isfinite(history["loss"]).all()


def test_one_hot_labels_keep_their_class_ids_on_the_device(monkeypatch):
    seen = []
    real = one_hot_labels.class_ids

    def spy(labels):
        ids = real(labels)
        seen.append(None if ids is None else (labels.device.type, ids.device.type))
        return ids

    monkeypatch.setattr(one_hot_labels, "class_ids", spy)
    y = tf.keras.utils.to_categorical((_X[:, 0] > 0).astype(int), 2)
    with on_leak_device() as device:
        model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2, activation="softmax")])
        model.compile("sgd", "categorical_crossentropy", metrics=["accuracy"])
        model.fit(_X, y, batch_size=8, epochs=1, verbose=0, validation_split=0.25)
        model.evaluate(_X, y, batch_size=8, verbose=0)
    used = [s for s in seen if s is not None]
    assert used and all(s == (device.type, device.type) for s in used)


def test_dense_features_over_host_features_outputs_where_the_next_layer_is():
    fc = tf.feature_column
    columns = [fc.numeric_column("x"),
               fc.indicator_column(fc.categorical_column_with_vocabulary_list("kind", ["a", "b"]))]
    features = {"x": np.linspace(-1, 1, 8).astype("float32"), "kind": np.array(["a", "b"] * 4, dtype=object)}
    with on_leak_device() as device:
        model = tf.keras.Sequential([tf.keras.layers.DenseFeatures(columns), tf.keras.layers.Dense(1)])
        out = model(features)  # numpy and strings only: DenseFeatures has no weights to follow
        assert out.device.type == device.type
        assert_on_device(model, device, "model")


def test_weights_on_host_moves_them_for_the_block_and_back_in_place():
    with on_leak_device() as device:
        model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2),
                                     tf.keras.layers.BatchNormalization()])
        kernel = model.layers[0].kernel
        with device_moves.weights_on_host([model]):
            assert model.layers[0].kernel is kernel and kernel.device.type == "cpu"
            assert all(b.device.type == "cpu" for b in model.buffers())
            assert all(w.device.type == "cpu" for w in model.weights)
        assert model.layers[0].kernel is kernel
        assert_on_device(model, device, "model")


class _Offset(tf.keras.layers.Layer):
    """A layer holding a tensor made with TF's ops in `__init__` (as the Transformer tutorial's
    positional encoding): on the GPU when there is one."""

    def __init__(self):
        super().__init__()
        self.offset = tf.cast(np.arange(3), tf.float32)

    def call(self, x):
        return x + self.offset


def test_a_layers_tensor_attribute_is_on_the_device_and_on_the_host_for_an_export():
    with on_leak_device() as device:
        model = tf.keras.Sequential([tf.keras.Input((3,)), _Offset(), tf.keras.layers.Dense(1)])
        offset = model.layers[0].offset
        assert offset.device.type == device.type
        assert model(_X).device.type == device.type
        with device_moves.weights_on_host([model]):
            assert model.layers[0].offset.device.type == "cpu"
            assert model(torch.from_numpy(_X)).device.type == "cpu"  # traced on the host
        assert model.layers[0].offset is offset
        model.compile("sgd", "mse")
        with tf.device("/CPU:0"):  # a fit elsewhere moves the weights and the attribute there
            model.fit(_X, _Y, batch_size=8, verbose=0)
        assert model.layers[0].offset.device.type == "cpu"



def test_host_tensors_given_to_a_model_go_to_its_weights_device():
    """TF copies an op's host input to the op's device: `model(tf.constant(x))` on a GPU."""
    a, b = tf.keras.Input((3,)), tf.keras.Input((2,))
    with on_leak_device() as device:
        built = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
        functional = tf.keras.Model([a, b], tf.keras.layers.Dense(1)(tf.keras.layers.Concatenate()([a, b])))
        outputs = {
            "built": built(tf.constant(_X[:2])),
            "ones": built(tf.ones((2, 3))),
            "unbuilt": tf.keras.Sequential([tf.keras.layers.Dense(2)])(tf.constant(_X[:2])),
            "layer": tf.keras.layers.Dense(2)(torch.ones(2, 3)),
            "list": functional([tf.ones((2, 3)), torch.ones(2, 2)]),
        }
        assert {k: v.device.type for k, v in outputs.items()} == dict.fromkeys(outputs, device.type)
        masked = torch.ones(2, 3)
        masked._keras_mask = torch.tensor([True, False])
        out = built(masked)  # the mask moves with its tensor and still propagates
        assert out._keras_mask.device.type == device.type
        assert out._keras_mask.cpu().tolist() == [True, False]
    with tf.device("/CPU:0"):  # weights on the host: a CPU input stays put
        layer = tf.keras.layers.Dense(2)
        assert layer(torch.ones(2, 3)).device.type == "cpu"


def test_a_subclassed_model_given_a_dict_of_host_arrays_runs_on_the_weights_device():
    """A top-level call leaves a feature dict on the host (feature-column layers do their host
    work); a layer inside `call` given one of its tensors copies it to its weights, as TF does."""

    class _DictNet(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.a, self.b = tf.keras.layers.Dense(2), tf.keras.layers.Dense(2)

        def call(self, features):
            return self.a(features["a"]) + self.b(features["b"])

    features = {"a": _X[:4], "b": _X[:4, :2]}
    expected_model = _DictNet()
    expected = expected_model(features).detach().numpy()
    with on_leak_device() as device:
        model = _DictNet()
        model(features)  # builds on the device
        model.set_weights(expected_model.get_weights())
        out = model(features)
        assert out.device.type == device.type
        np.testing.assert_allclose(out.detach().cpu().numpy(), expected, rtol=1e-5, atol=1e-6)


def test_string_layers_nested_in_a_model_put_their_ids_on_the_models_device():
    """TF's text-classification export model: TextVectorization (ids made on the host from
    strings) feeding an Embedding on the device, called, fitted and traced in a Functional model
    next to a Normalization branch; at top level (a `tf.data` map) the ids stay on the host."""
    texts = np.array(["a b c", "b c d", "c d e", "d e a"] * 4)
    labels = np.array([[1.0], [0.0], [1.0], [0.0]] * 4, np.float32)
    with on_leak_device() as device:
        vectorize = tf.keras.layers.TextVectorization(max_tokens=10, output_sequence_length=3)
        vectorize.adapt(texts)
        lookup = tf.keras.layers.StringLookup(vocabulary=["a", "b", "c"])
        assert vectorize(texts).device.type == lookup(np.array([["a"]])).device.type == "cpu"
        text = tf.keras.Input(shape=(1,), dtype="string")
        words = tf.keras.layers.GlobalAveragePooling1D()(
            tf.keras.layers.Embedding(10, 2)(vectorize(tf.keras.layers.Reshape(())(text))))
        first = tf.keras.layers.Embedding(5, 2)(lookup(text))
        merged = tf.keras.layers.Concatenate()([words, tf.keras.layers.Flatten()(first)])
        model = tf.keras.Model(text, tf.keras.layers.Dense(1)(merged))
        model.compile("sgd", "mse")
        model.fit(texts[:, None], labels, batch_size=8, verbose=0)
        assert_on_device(model, device, "model")
        out = model(texts[:4, None])
        assert out.device.type == device.type and tuple(out.shape) == (4, 1)


def test_an_adapted_normalization_follows_its_inputs_device():
    """Its statistics are weights, on the device; a host `tf.data` map runs it on the host."""
    with on_leak_device() as device:
        norm = tf.keras.layers.Normalization()
        norm.adapt(_X)
        assert norm.mean.device.type == device.type
        host = norm(torch.from_numpy(_X))
        assert host.device.type == "cpu"
        np.testing.assert_allclose(host.numpy().mean(0), np.zeros(3), atol=1e-5)
        assert norm(torch.from_numpy(_X).to(device)).device.type == device.type


def test_an_embedding_given_an_out_of_range_id_on_the_device_raises_index_error():
    with on_leak_device():
        layer = tf.keras.layers.Embedding(5, 2, name="tokens")
        with pytest.raises(IndexError, match='"tokens".*index 6'):
            layer(torch.tensor([[1, 6]]))


def test_host_tensors_in_other_arguments_of_a_top_level_call_go_to_the_weights_device(monkeypatch):
    """TF copies every input of an op to its device: an RNN's `initial_state`, an attention
    layer's `value` (its weights made in its first call), a mask given by keyword."""
    from torchestimator.keras.layers.rnn import simple_rnn

    # the step loop: torch's fused RNN kernel has no lazy lowering (CUDA runs cuDNN's)
    monkeypatch.setattr(simple_rnn.SimpleRNNCell, "_fused_mode", lambda self, training: None)
    with on_leak_device() as device:
        rnn = tf.keras.layers.SimpleRNN(3, return_state=True)
        rnn.build((None, 4, 2))
        out, state = rnn(torch.ones(2, 4, 2), initial_state=[torch.zeros(2, 3)])
        assert out.device.type == state.device.type == device.type
        attention = tf.keras.layers.MultiHeadAttention(num_heads=2, key_dim=3)
        query, value = torch.ones(2, 4, 5), torch.ones(2, 6, 5)
        assert attention(query, value).device.type == device.type  # builds in its first call
        assert attention(query, value, attention_mask=torch.ones(2, 4, 6, dtype=torch.bool)
                         ).device.type == device.type


def test_a_ragged_input_reaches_a_models_layers_on_the_device():
    with on_leak_device() as device:
        x = tf.keras.Input(shape=(None,), ragged=True)
        dense = tf.keras.layers.Lambda(lambda t: t.to_tensor(shape=[None, 3]))(x)
        model = tf.keras.Model(x, tf.keras.layers.Dense(2, kernel_initializer="ones")(dense))
        out = model(tf.ragged.constant([[1.0, 2.0], [3.0]]))
        assert out.device.type == device.type and out.tolist() == [[3.0, 3.0], [3.0, 3.0]]


def test_numpy_given_to_a_layer_built_inside_another_layers_call_meets_its_weights():
    inner = tf.keras.layers.Dense(2)

    class Outer(tf.keras.layers.Layer):
        def call(self, x):
            return inner(np.ones((1, 3), "float32")) + x.sum()  # built here, on the device

    with on_leak_device() as device:
        assert Outer()(torch.ones(1, 1)).device.type == device.type


@pytest.mark.parametrize("on_device", ["x", "y"])
def test_fit_on_arrays_some_on_the_device_and_some_on_the_host(on_device):
    """TF's denoising-autoencoder tutorial: `x` made with `tf.random.normal` (on the device), `y`
    the numpy array; or one-hot labels made with `tf.one_hot` next to numpy features. The
    arrays go to one place (the host, as TF's input pipeline copies them) before a shuffle
    indexes them."""
    with on_leak_device() as device:
        tf.keras.utils.set_random_seed(0)
        x = tf.constant(_X) if on_device == "x" else _X
        y = tf.constant(_Y) if on_device == "y" else _Y
        assert (x if on_device == "x" else y).device.type == device.type
        model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(3,))])
        model.compile("adam", "mse")
        history = model.fit(x, y, batch_size=8, epochs=2, shuffle=True, verbose=0, validation_data=(x, y))
        assert np.isfinite(history.history["val_loss"]).all()


@pytest.mark.parametrize("op", ["scatter_add", "scatter_sub", "scatter_mul", "scatter_div", "scatter_min",
                                "scatter_max", "scatter_update", "scatter_nd_add", "scatter_nd_update",
                                "batch_scatter_update"])
def test_tf1_scatters_into_a_variable_on_the_device_take_numpy_indices_and_updates(op):
    v1 = tf.compat.v1
    expected = {}
    for where in ("host", "device"):
        with on_leak_device() if where == "device" else contextlib.nullcontext() as device:
            var = tf.Variable(np.arange(1.0, 7.0, dtype=np.float32).reshape(3, 2))
            if where == "device":
                assert var.device.type == device.type
            if op.startswith("scatter_nd"):
                getattr(v1, op)(var, np.array([[0], [2]]), np.ones((2, 2), np.float32))
            elif op == "batch_scatter_update":
                v1.batch_scatter_update(var, np.array([[1], [0], [1]]), np.full((3, 1), 9.0, np.float32))
            else:
                getattr(v1, op)(var, np.array([0, 2]), np.full((2, 2), 2.0, np.float32))
            expected[where] = var.numpy()
    np.testing.assert_allclose(expected["device"], expected["host"])


def test_safe_embedding_lookup_sparse_on_the_device_zeroes_empty_rows():
    """The empty rows' mask is made on the host with the ids; the lookup's result is on the
    device (a mix CUDA refuses, and lazy read as garbage)."""
    table = np.arange(15, dtype=np.float32).reshape(5, 3)
    ids = tf.SparseTensor([[0, 0], [0, 1], [1, 0], [3, 0]], torch.tensor([1, 4, -1, 2]), (4, 2))
    want = tf.nn.safe_embedding_lookup_sparse(tf.Variable(table), ids).numpy()
    with on_leak_device() as device:
        out = tf.nn.safe_embedding_lookup_sparse(tf.Variable(table), ids)
        assert out.device.type == device.type
        np.testing.assert_allclose(out.cpu().numpy(), want)
    np.testing.assert_allclose(want, [(table[1] + table[4]) / 2, [0, 0, 0], [0, 0, 0], table[2]])


def test_an_export_loads_and_runs_on_the_default_device(tmp_path, monkeypatch):
    """TF's `load` places the variables on the default device: the program's weights and the
    preprocessing layers' go there, and host features are copied to them (the feature
    columns' layer used to make its weights there while the program's stayed on the host). An
    export loaded on the host copies features on the device to it, blocking: a copy from a GPU
    without blocking may not have ended when the host ops read it."""
    from torchestimator.serving import _fast_call

    x = np.linspace(-1, 1, 32).astype("float32")
    est = tf.estimator.DNNRegressor([4], [tf.feature_column.numeric_column("x")],
                                    model_dir=str(tmp_path / "m"))
    est.train(lambda: tf.data.Dataset.from_tensor_slices(({"x": x}, x)).batch(8), steps=2)
    receiver = tf.estimator.export.build_raw_serving_input_receiver_fn({"x": tf.TensorSpec([None])})
    path = est.export_saved_model(str(tmp_path / "e"), receiver)
    on_host = tf.saved_model.load(path).signatures["predict"](x=x[:3])["predictions"]
    with on_leak_device() as device:
        loaded = tf.saved_model.load(path)
        out = loaded.signatures["predict"](x=x[:3])["predictions"]
        assert out.device.type == device.type
        assert {v.device.type for v in loaded._runtime.program.state_dict.values()} == {device.type}
        assert _fast_call._runtime_run(loaded._runtime) is not None  # the server's path agrees
        with tf.device("/CPU:0"):  # loaded on the host, it runs there wherever it is called
            kept = tf.saved_model.load(path)
        assert kept.signatures["predict"](x=x[:3])["predictions"].device.type == "cpu"
        assert _fast_call._runtime_run(kept._runtime) is not None
        copies, real_to = [], torch.Tensor.to

        def spied_to(self, *args, **kwargs):
            copies.append((self.device.type, bool(kwargs.get("non_blocking"))))
            return real_to(self, *args, **kwargs)

        features = loop.to_device(torch.from_numpy(x[:3]), device)
        monkeypatch.setattr(torch.Tensor, "to", spied_to)
        from_device = kept.signatures["predict"](x=features)["predictions"]
        monkeypatch.undo()
        assert (device.type, False) in copies and (device.type, True) not in copies, copies
        np.testing.assert_allclose(from_device.numpy(), on_host.numpy(), rtol=1e-6)
    np.testing.assert_allclose(out.cpu().numpy(), on_host.numpy(), rtol=1e-6)
