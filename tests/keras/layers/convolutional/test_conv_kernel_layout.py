"""The convolution layers keep TF's kernel shapes (kernel_size + (in, out)) but store the values
in the memory order torch's convolutions read (`base_conv.store_in_torch_order`): the kernel in
torch's layout is a view that is already dense as cuDNN and oneDNN want it, and its gradient
comes back in the kernel's own strides, so a step copies no kernel, before the convolution or
after it (autograd copies a gradient whose strides differ from its weight's before adding it:
`new_empty_strided` + `copy_`, a kernel launch each on a GPU)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import torchestimator as tf

L = tf.keras.layers

CASES = [
    ("Conv1D", lambda: L.Conv1D(4, 3), (8, 2)),
    ("Conv2D", lambda: L.Conv2D(4, 3), (8, 8, 3)),
    ("Conv2D channels_first", lambda: L.Conv2D(4, 3, data_format="channels_first"), (3, 8, 8)),
    ("Conv3D", lambda: L.Conv3D(4, 3), (5, 5, 5, 2)),
    ("Conv1DTranspose", lambda: L.Conv1DTranspose(4, 3), (8, 2)),
    ("Conv2DTranspose", lambda: L.Conv2DTranspose(4, 3, strides=2), (6, 6, 3)),
    ("DepthwiseConv2D", lambda: L.DepthwiseConv2D(3, depth_multiplier=2), (8, 8, 3)),
    ("SeparableConv2D", lambda: L.SeparableConv2D(4, 3, depth_multiplier=2), (8, 8, 3)),
]


def _dense_as_torch_reads(view: torch.Tensor, channels_last: bool) -> bool:
    """Whether torch's (out, in, *kernel_size) view is dense in the order its convolution reads
    it: (out, *kernel_size, in) for channels-last inputs, (out, in, *kernel_size) otherwise."""
    if not channels_last or view.shape[1] == 1:
        return view.is_contiguous()
    return view.permute(0, *range(2, view.dim()), 1).is_contiguous()


def _strides_of_sized_dims(t: torch.Tensor) -> tuple:
    return tuple(stride for size, stride in zip(t.shape, t.stride()) if size > 1)


@pytest.mark.parametrize("name,make,shape", CASES, ids=[c[0] for c in CASES])
def test_kernels_keep_tf_shapes_and_a_step_copies_none(name, make, shape):
    layer = make()
    layer.build((None,) + shape)
    weights = [np.random.default_rng(0).normal(size=tuple(w.shape)).astype("float32")
               for w in layer.weights]
    layer.set_weights(weights)
    for got, want in zip(layer.get_weights(), weights):
        np.testing.assert_array_equal(got, want)  # TF's shapes, the values as set
    if not hasattr(layer, "pointwise_kernel"):  # before the convolution: a view, already dense
        channels_last = getattr(layer, "data_format", "channels_last") == "channels_last"
        assert _dense_as_torch_reads(layer._torch_kernel(), channels_last), name
    # after it: each kernel's gradient arrives in the kernel's own strides (else autograd
    # copies it before accumulating: a kernel launch per weight per step on a GPU)
    arrived: dict[str, tuple] = {}
    def recorder(name: str):
        def record(grad: torch.Tensor) -> None:
            arrived[name] = _strides_of_sized_dims(grad)
        return record

    for weight in layer.trainable_weights:
        weight.register_hook(recorder(weight.name))
    x = tf.constant(np.random.default_rng(1).normal(size=(2,) + shape).astype("float32"))
    layer(x).square().sum().backward()
    for weight in layer.trainable_weights:
        assert arrived[weight.name] == _strides_of_sized_dims(weight), (
            f"{name}: the gradient of {weight.name} arrives in other strides than the weight's")


def test_values_train_and_restore_as_before(tmp_path):
    """A CNN's kernels in torch's order: training changes them, a checkpoint restores them
    exactly, and the restored kernels are still in torch's order."""
    tf.keras.utils.set_random_seed(0)
    model = tf.keras.Sequential([L.Conv2D(4, 3, activation="relu", input_shape=(8, 8, 1)),
                                 L.Flatten(), L.Dense(1)])
    model.compile("adam", "mse")
    x = np.random.default_rng(0).normal(size=(16, 8, 8, 1)).astype("float32")
    y = x.mean(axis=(1, 2, 3))[:, None]
    start = model.get_weights()
    model.fit(x, y, epochs=2, batch_size=8, verbose=0)
    trained = model.get_weights()
    assert not np.array_equal(start[0], trained[0])
    path = str(tmp_path / "w.weights.h5")
    model.save_weights(path)
    model.set_weights(start)
    model.load_weights(path)
    for got, want in zip(model.get_weights(), trained):
        np.testing.assert_array_equal(got, want)
    kernel = model.layers[0].kernel
    assert kernel.permute(3, 0, 1, 2).is_contiguous()  # (out, kh, kw, in) in memory
