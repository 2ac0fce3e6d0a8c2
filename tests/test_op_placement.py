"""Issue 28: TF's tensor-making ops place what they make as TF places ops -- on the GPU when
there is one -- so that a program's `tf.constant`, `tf.zeros` or `tf.random.normal` meets its
model's weights and batches there; `tf.data` functions, dataset sources and an Estimator's
`input_fn` stay on the host, as TF runs them on the CPU. Scalars stay on the host (torch lets a
0-dim host tensor meet any device, at no copy per call). On a CPU-only machine nothing moves.

The accelerator here is the lazy backend (`_harness/device_leaks.py`): its tensors refuse to
mix with CPU ones, as CUDA's do."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import torchestimator as tf
from _harness.device_leaks import available, on_leak_device
from _harness.guide_models import GuideLinear
from torchestimator._engine import loop
from torchestimator.estimator import _inputs

pytestmark = pytest.mark.skipif(not available(), reason="this torch build has no lazy backend")

MAKERS = {
    "constant": lambda: tf.constant([1.0, 2.0]),
    "constant_shape": lambda: tf.constant(0.5, shape=(2, 2)),
    "convert_to_tensor": lambda: tf.convert_to_tensor(np.ones(3, np.float32)),
    "zeros": lambda: tf.zeros((2, 3)),
    "ones": lambda: tf.ones([4]),
    "fill": lambda: tf.fill([2], 7.0),
    "eye": lambda: tf.eye(3),
    "range": lambda: tf.range(5),
    "range_float": lambda: tf.range(0.0, 1.0, 0.25),
    "linspace": lambda: tf.linspace(0.0, 1.0, 4),
    "cast": lambda: tf.cast(np.arange(3), tf.float32),
    "zeros_like_numpy": lambda: tf.zeros_like(np.ones((2, 2))),
    "random_normal": lambda: tf.random.normal((2, 3)),
    "random_uniform": lambda: tf.random.uniform((3,)),
    "keras_backend_constant": lambda: tf.keras.backend.constant([[1.0]]),
}


@pytest.mark.parametrize("name", list(MAKERS))
def test_made_tensors_go_to_the_default_accelerator(name):
    with on_leak_device() as device:
        assert MAKERS[name]().device.type == device.type
    ambient = loop.op_device()  # None where the default device is the CPU (CUDA on a GPU run)
    assert MAKERS[name]().device.type == ("cpu" if ambient is None else ambient.type)


def test_scalars_strings_and_tensor_inputs_stay_where_they_are():
    with on_leak_device() as device:
        assert tf.constant(3.0).device.type == "cpu"  # a 0-dim host tensor meets any device
        assert isinstance(tf.constant(["a", "b"]), np.ndarray)
        host = torch.ones(2)
        assert tf.constant(host).device.type == "cpu" and tf.zeros_like(host).device.type == "cpu"
        with tf.device("/CPU:0"):
            assert tf.zeros((2,)).device.type == "cpu" and tf.constant([1.0]).device.type == "cpu"
        assert (tf.constant([1.0, 2.0]) * tf.Variable(2.0)).device.type == device.type


def test_the_basic_training_loops_guide_runs_on_the_device():
    """TF's guide: a tf.Module of scalar tf.Variables fitted to `tf.random.normal` data made at
    the program's top level -- on a GPU the variables and the data meet there."""
    with on_leak_device() as device:
        x = tf.random.normal(shape=[64])
        y = x * 3.0 + 2.0 + tf.random.normal(shape=[64]) * 0.01
        model = GuideLinear()
        for _ in range(40):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(y - model(x)))
            dw, db = tape.gradient(loss, [model.w, model.b])
            model.w.assign_sub(0.1 * dw)
            model.b.assign_sub(0.1 * db)
        assert model.w.device.type == device.type and loss.device.type == device.type
        assert abs(float(model.w) - 3.0) < 0.2 and abs(float(model.b) - 2.0) < 0.2


class Sampling(tf.keras.layers.Layer):
    """The Keras VAE example's layer: `tf.random.normal` of the batch's shape in `call`."""

    def call(self, inputs):
        z_mean, z_log_var = inputs
        epsilon = tf.random.normal(shape=(tf.shape(z_mean)[0], tf.shape(z_mean)[1]))
        return z_mean + tf.exp(0.5 * z_log_var) * epsilon


def test_a_layer_drawing_random_tensors_in_call_trains_on_the_device():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(32, 4)).astype(np.float32)
    with on_leak_device() as device:
        inputs = tf.keras.Input((4,))
        z = Sampling()([tf.keras.layers.Dense(2)(inputs), tf.keras.layers.Dense(2)(inputs)])
        model = tf.keras.Model(inputs, tf.keras.layers.Dense(4)(z))
        model.compile("adam", "mse")
        history = model.fit(x, x, batch_size=8, epochs=1, verbose=0)
        assert np.isfinite(history.history["loss"][0])
        assert model(x).device.type == device.type


def test_dataset_functions_sources_and_input_fns_stay_on_the_host():
    seen = []

    def add_constant(x):
        offset = tf.constant([1.0, 2.0])  # a map function's op: on the host, as TF's
        seen.append((x.device.type, offset.device.type))
        return x + offset

    def generate():
        for _ in range(2):
            yield tf.ones([2])  # a generator's op: on the host

    with on_leak_device() as device:
        source = tf.constant([[0.0, 0.0], [1.0, 1.0]])
        assert source.device.type == device.type
        dataset = tf.data.Dataset.from_tensor_slices(source).map(add_constant)
        host = list(loop.iter_on_host(dataset))
        assert [e.device.type for e in host] == ["cpu", "cpu"] and set(seen) == {("cpu", "cpu")}
        assert all(e.device.type == device.type for e in dataset)  # iter(): on the device
        reduced = dataset.reduce(tf.zeros([2]), lambda state, x: state + x)
        assert reduced.device.type == "cpu"
        generated = tf.data.Dataset.from_generator(
            generate, output_signature=tf.TensorSpec((2,), tf.float32))
        assert [e.device.type for e in loop.iter_on_host(generated)] == ["cpu", "cpu"]

        def input_fn():
            return {"x": tf.constant([[1.0], [2.0]])}, tf.constant([[0.0], [1.0]])

        (features, labels), = _inputs.call_input_fn(input_fn, "eval", {}, None)
        assert features["x"].device.type == labels.device.type == "cpu"


def test_one_hot_of_python_ids_and_to_dense_of_device_values():
    with on_leak_device() as device:
        assert tf.one_hot([0, 2], 3).device.type == device.type
        values = tf.constant([1.0, 2.0])  # on the device
        dense = tf.sparse.to_dense(tf.SparseTensor([[0, 0], [1, 1]], values, [2, 2]))
        assert dense.device.type == device.type and dense.tolist() == [[1.0, 0.0], [0.0, 2.0]]
        # the text-generation tutorial's mask: a SparseTensor of Python lists, made dense
        mask = tf.sparse.to_dense(tf.SparseTensor([[1]], [-float("inf")], [3]))
        assert mask.device.type == device.type
        assert (tf.zeros([3]) + mask).tolist() == [0.0, -float("inf"), 0.0]
        mapped = tf.data.Dataset.range(2).map(
            lambda i: tf.sparse.to_dense(tf.SparseTensor([[0]], [1.0], [2])))
        assert all(e.device.type == "cpu" for e in loop.iter_on_host(mapped))


def _host(values, dtype=None):
    """A tensor on the host, as a TF op on numpy inputs gives one here (`tf.argmax(np_array)`)."""
    return torch.as_tensor(np.asarray(values, dtype=dtype))


MIXED = {  # TF copies an op's inputs to its device: a host tensor next to a device one goes there
    "add": lambda d: tf.add(_host([1.0, 2.0]), d([3.0, 4.0])),
    "clip_by_value": lambda d: tf.clip_by_value(d([1.0, 5.0]), _host([2.0, 2.0]), _host([4.0, 4.0])),
    "matmul": lambda d: tf.matmul(_host(np.eye(2, dtype=np.float32)), d(np.ones((2, 3), np.float32))),
    "matvec": lambda d: tf.linalg.matvec(d(np.eye(2, dtype=np.float32)), _host([1.0, 2.0], np.float32)),
    "sigmoid_cross_entropy": lambda d: tf.nn.sigmoid_cross_entropy_with_logits(_host([1.0, 0.0]), d([0.5, -0.5])),
    "confusion_matrix": lambda d: tf.math.confusion_matrix(d([0, 2, 1]), _host([0, 1, 1]), num_classes=3),
    "confusion_matrix_numpy": lambda d: tf.math.confusion_matrix(np.array([0, 2, 1]), d([0, 1, 1])),
    "in_top_k": lambda d: tf.math.in_top_k(np.array([0, 1]), d(np.eye(2, 3, dtype=np.float32)), 1),
    "segment_mean": lambda d: tf.math.segment_mean(_host([1.0, 2.0, 3.0]), d([0, 0, 1])),
    "unsorted_segment_sum": lambda d: tf.math.unsorted_segment_sum(d([1.0, 2.0, 3.0]), _host([0, 0, 1]), 2),
}


@pytest.mark.parametrize("name", list(MIXED))
def test_an_op_given_host_and_device_tensors_runs_on_the_device(name):
    with on_leak_device() as device:
        result = MIXED[name](lambda values: torch.as_tensor(np.asarray(values)).to(device))
        assert result.device.type == device.type
        expected = MIXED[name](lambda values: torch.as_tensor(np.asarray(values)))  # all on the host
    assert torch.equal(result.cpu(), expected)


def test_a_host_scalar_next_to_a_device_tensor_stays_on_the_host():
    with on_leak_device() as device:
        scalar = torch.tensor(2.0)
        values = torch.ones(3).to(device)
        x, y = tf.math.multiply(values, scalar), tf.math.maximum(scalar, values)
        assert x.device.type == y.device.type == device.type
        assert scalar.device.type == "cpu"


STATELESS = {
    "normal": lambda: tf.random.stateless_normal([4, 3], seed=[1, 2]),
    "uniform": lambda: tf.random.stateless_uniform([5], seed=[3, 4], minval=-1.0, maxval=2.0),
    "uniform_int": lambda: tf.random.stateless_uniform([5], seed=[3, 4], minval=0, maxval=9,
                                                       dtype=tf.int32),
    "truncated_normal": lambda: tf.random.stateless_truncated_normal([6], seed=[5, 6]),
    "categorical": lambda: tf.random.stateless_categorical([[0.0, 1.0, 2.0]], 6, seed=[7, 8]),
    "gamma": lambda: tf.random.stateless_gamma([3, 2], seed=[1, 1], alpha=[1.0, 2.0]),
    "poisson": lambda: tf.random.stateless_poisson([3, 2], seed=[2, 2], lam=[1.0, 4.0]),
}


@pytest.mark.parametrize("name", sorted(STATELESS))
def test_stateless_random_ops_give_the_cpus_values_on_the_device(name):
    """TF: a stateless op's output is "consistent ... between CPU and GPU". They draw on the
    host (a CUDA generator's stream differs from the CPU's) and put the values where TF's ops
    put tensors."""
    on_host = STATELESS[name]()
    with on_leak_device() as device:
        placed = STATELESS[name]()
    assert placed.device.type == device.type
    np.testing.assert_array_equal(placed.cpu().numpy(), on_host.numpy())


def test_stateless_image_ops_give_the_cpus_results_for_images_on_the_device():
    images = np.random.default_rng(0).uniform(size=(4, 3, 5, 3)).astype(np.float32)
    ops = {
        "flip": lambda x: tf.image.stateless_random_flip_left_right(x, seed=[1, 2]),
        "flip_up_down": lambda x: tf.image.stateless_random_flip_up_down(x, seed=[3, 1]),
        "brightness": lambda x: tf.image.stateless_random_brightness(x, 0.3, seed=[2, 2]),
        "contrast": lambda x: tf.image.stateless_random_contrast(x, 0.2, 1.8, seed=[4, 4]),
        "one_image_flip": lambda x: tf.image.stateless_random_flip_left_right(x[0], seed=[9, 9]),
    }
    on_host = {name: op(tf.constant(images)).numpy() for name, op in ops.items()}
    with on_leak_device() as device:
        on_device = torch.from_numpy(images).to(device)
        for name, op in ops.items():
            out = op(on_device)
            assert out.device.type == device.type, name
            np.testing.assert_allclose(out.cpu().numpy(), on_host[name], rtol=1e-6, err_msg=name)
