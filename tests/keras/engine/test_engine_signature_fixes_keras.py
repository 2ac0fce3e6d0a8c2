"""TF 2.15's signatures in the Keras engine: `Layer.add_loss(losses, **kwargs)`, `Input` /
`InputLayer(type_spec=...)`, `Model.compile` None defaults, `Model.load_weights(filepath,
skip_mismatch, by_name, options)`, and the random augmentation layers' `training=True`."""

import inspect

import numpy as np
import pytest

import torchestimator as tf


# ---------------------------------------------------------------- add_loss
def test_add_loss_takes_tf_keyword_lists_callables_and_inputs():
    layer = tf.keras.layers.Dense(2)
    layer.add_loss(losses=[1.0, None, lambda: tf.constant(2.0)], inputs=None)
    values = [float(v) for v in layer.losses]
    assert values == [1.0, 2.0]
    with pytest.raises(TypeError, match="Unknown keyword arguments"):
        layer.add_loss(1.0, foo=1)


def test_add_loss_in_call_feeds_the_training_loss():
    class Penalized(tf.keras.layers.Layer):
        def call(self, inputs):
            self.add_loss(losses=tf.reduce_sum(inputs) * 0.0 + 3.0)
            return inputs

    model = tf.keras.Sequential([tf.keras.Input((2,)), Penalized(), tf.keras.layers.Dense(1)])
    model.compile(loss="mse")
    x, y = np.zeros((4, 2), "float32"), np.zeros((4, 1), "float32")
    # the Dense kernel starts anywhere, but x is zero and the bias zero: the loss is the 3.0 added
    assert model.evaluate(x, y, verbose=0) == pytest.approx(3.0)


# ---------------------------------------------------------------- Input / InputLayer
def test_input_type_spec_is_tf_position_7_and_gives_shape_dtype_and_name():
    assert list(inspect.signature(tf.keras.Input).parameters)[7] == "type_spec"
    x = tf.keras.Input(None, None, None, None, None, None, None,
                       tf.TensorSpec((None, 3), tf.int32, name="feat"))
    assert tuple(x.shape) == (None, 3) and x.dtype == tf.int32 and x.name == "feat"
    ragged = tf.keras.Input(type_spec=tf.RaggedTensorSpec((None, None), tf.float32))
    assert ragged.ragged
    sparse = tf.keras.layers.InputLayer(type_spec=tf.SparseTensorSpec((None, 5), tf.float32))
    assert sparse.get_config()["sparse"] is True
    with pytest.raises(ValueError, match="all other args except `name` must be None"):
        tf.keras.layers.InputLayer(input_shape=(3,), type_spec=tf.TensorSpec((None, 3)))


def test_input_batch_shape_stays_a_keyword_and_conflicts_with_shape():
    assert tuple(tf.keras.Input(batch_shape=(2, 3)).shape) == (2, 3)
    assert tuple(tf.keras.layers.InputLayer(batch_input_shape=(None, 4))._batch_input_shape) == (None, 4)
    with pytest.raises(ValueError, match="Only provide the `shape` OR `batch_input_shape`"):
        tf.keras.Input(shape=(3,), batch_shape=(None, 3))


# ---------------------------------------------------------------- compile / load_weights
def test_compile_none_defaults_mean_tfs():
    model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
    model.compile(loss="mse", run_eagerly=None, steps_per_execution=None, jit_compile=None)
    assert model.run_eagerly is False
    assert model._steps_per_execution == 1 and model._jit_compile is False
    tf.config.run_functions_eagerly(True)
    try:
        assert model.run_eagerly is True  # None follows tf.config.functions_run_eagerly(), as TF
    finally:
        tf.config.run_functions_eagerly(False)
    model.compile(loss="mse", run_eagerly=True)
    assert model.run_eagerly is True


def test_load_weights_binds_positionally_as_tf(tmp_path):
    def make(units):
        return tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(units, name="d"),
                                    tf.keras.layers.Dense(1, name="out")])

    path = str(tmp_path / "w.weights.h5")
    make(3).save_weights(path)
    with pytest.raises(ValueError):
        make(4).load_weights(path)
    make(4).load_weights(path, True)  # TF's position 1 is skip_mismatch


# ---------------------------------------------------------------- random layers' training=True
def test_random_layers_default_training_true_and_eval_mode_stops_them():
    images = tf.reshape(tf.range(16 * 8.0), (16, 2, 4, 1))  # 16 images: some flip
    for cls in (tf.keras.layers.RandomFlip, tf.keras.layers.RandomRotation):
        assert inspect.signature(cls.call).parameters["training"].default is True
    flip = tf.keras.layers.RandomFlip("vertical", seed=1)
    assert not np.array_equal(flip(images).numpy(), images.numpy())  # a new layer augments
    flip.eval()
    assert np.array_equal(flip(images).numpy(), images.numpy())  # eval() stops it
    assert not np.array_equal(flip.call(images).numpy(), images.numpy())  # call()'s default
    model = tf.keras.Sequential([tf.keras.layers.RandomFlip("vertical", seed=1)])
    assert np.array_equal(model.predict(images, verbose=0), images.numpy())  # predict: False
