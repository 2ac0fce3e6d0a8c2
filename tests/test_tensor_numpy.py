"""TF's `.numpy()` on torch tensors: it reads tensors that record autograd (and, on a GPU
machine, CUDA tensors); autograd and torch's own results are unchanged; the opt-out restores
torch's method."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
import torch

import torchestimator as tf
from _harness.guide_models import GuideLinear as _Linear


def test_the_guides_module_output_and_a_reduction_of_a_variable_read_as_numpy():
    model = _Linear()
    out = model(3.0)
    assert out.requires_grad  # it records: a plain PyTorch loop can call backward on it
    assert out.numpy() == 15.0
    assert tf.reduce_mean(tf.Variable([1.0, 2.0])).numpy() == 1.5
    np.testing.assert_array_equal(np.asarray(model(tf.constant([1.0, 2.0]))), [5.0, 10.0])


def test_reading_shares_memory_and_leaves_autograd_alone():
    w = torch.ones(3, requires_grad=True)
    y = w * 2
    array = y.numpy()
    np.testing.assert_array_equal(array, [2.0, 2.0, 2.0])
    with torch.no_grad():
        y.add_(1)
    assert array[0] == 3.0  # a view of the tensor's memory, as t.detach().numpy()
    (w * w).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [2.0, 2.0, 2.0])


def test_a_scalar_reads_as_a_numpy_scalar_and_asarray_stays_an_array():
    # TF 2.15: tf.constant(3.0).numpy() is np.float32(3.0), not a 0-d ndarray;
    # np.asarray(t) is a 0-d ndarray
    value = tf.constant(3.0).numpy()
    assert type(value) is np.float32 and value == 3.0
    assert type(tf.reduce_sum(tf.ones((2, 2), dtype=tf.int32)).numpy()) is np.int32
    assert type(tf.Variable(2.0).numpy()) is np.float32
    array = np.asarray(tf.constant(3.0))
    assert isinstance(array, np.ndarray) and array.shape == ()
    assert np.asarray(tf.constant(3.0), dtype=np.float64).dtype == np.float64
    assert type(tf.constant([1.0]).numpy()) is np.ndarray
    assert np.mean(tf.constant([1.0, 3.0])) == 2.0


def test_a_tensor_torch_accepts_is_torchs_answer():
    t = torch.arange(4)
    array = t.numpy()
    t[0] = 7
    assert array[0] == 7 and array.dtype == np.int64
    assert t.numpy(force=True).tolist() == [7, 1, 2, 3]


def test_the_opt_out_keeps_torchs_method():
    program = ("import torch, torchestimator\n"
               "try:\n    torch.ones(1, requires_grad=True).numpy()\n"
               "except RuntimeError as e:\n    print('refused', 'requires grad' in str(e))\n")
    env = {**os.environ, "TORCHESTIMATOR_TORCH_NUMPY": "1"}
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                            env=env, timeout=120)
    assert result.stdout.strip() == "refused True", result.stderr[-2000:]


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_a_cuda_tensor_is_copied_to_the_host():
    t = torch.arange(3.0, device="cuda", requires_grad=True) * 2
    np.testing.assert_array_equal(t.numpy(), [0.0, 2.0, 4.0])
    np.testing.assert_array_equal(np.asarray(t), [0.0, 2.0, 4.0])


# --- NumPy's functions on tensors (`__array_function__`) ---------------------------------------

def test_numpys_reductions_read_a_tensor_as_tensorflows_eager_tensor():
    t = torch.tensor([[0.0, 3.0, 1.0], [2.0, 5.0, 4.0]])
    assert np.min(t) == 0.0 and np.max(t) == 5.0 and np.amax(t) == 5.0
    assert isinstance(np.min(t), np.float32) and np.mean(t) == 2.5
    assert np.argmax(t, axis=1).tolist() == [1, 1] and np.argmin(t) == 0
    np.testing.assert_array_equal(np.sum(t, axis=0), [2.0, 8.0, 5.0])
    np.testing.assert_array_equal(np.sum(t, axis=1, keepdims=True), [[4.0], [11.0]])
    assert np.prod(t + 1) == 720.0 and np.any(t) and not np.all(t)
    np.testing.assert_allclose(np.std(t), np.std(t.numpy())), np.testing.assert_allclose(np.var(t), np.var(t.numpy()))
    np.testing.assert_array_equal(np.round(t / 3, 2), np.round(t.numpy() / 3, 2))
    np.testing.assert_array_equal(np.clip(t, 1, 2), [[1, 2, 1], [2, 2, 2]])
    np.testing.assert_array_equal(np.cumsum(t), np.cumsum(t.numpy()))
    for result in (np.argmax(t, axis=1), np.sum(t, axis=0), np.round(t, 2), np.transpose(t)):
        assert type(result) is np.ndarray  # numpy's answer, not a tensor or a torch namedtuple
    assert np.shape(t) == (2, 3) and np.ndim(t) == 2 and np.size(t) == 6 and np.size(t, 1) == 3
    np.testing.assert_array_equal(np.concatenate([t, np.ones((1, 3))]), np.concatenate([t.numpy(), np.ones((1, 3))]))
    assert np.stack([t, t]).shape == (2, 2, 3)


def test_numpys_functions_read_variables_and_tensors_that_record():
    model = _Linear()
    out = model(tf.constant([1.0, 2.0]))
    assert out.requires_grad
    assert np.max(out) == 10.0 and np.mean(out) == 7.5
    assert np.sum(tf.Variable([1.0, 2.0])) == 3.0
    assert np.argmax(tf.keras.layers.Softmax()(tf.constant([[1.0, 3.0, 2.0]])), axis=1).tolist() == [1]


def test_a_write_through_out_reaches_the_tensor():
    t = torch.zeros(3)
    np.sum(np.ones((2, 3)), axis=0, out=t)
    assert t.tolist() == [2.0, 2.0, 2.0]


def test_torchs_own_methods_and_ufuncs_are_untouched():
    t = torch.tensor([[0.0, 3.0], [2.0, 1.0]])
    values, indices = t.min(dim=1)
    assert values.tolist() == [0.0, 1.0] and indices.tolist() == [0, 1]
    assert torch.Tensor.sum is torch._C.TensorBase.sum and torch.Tensor.min is torch._C.TensorBase.min
    assert t.sum(0).tolist() == [2.0, 4.0] and isinstance(t.max(), torch.Tensor)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # torch's __array_wrap__ on NumPy 2
        assert isinstance(t[0] * np.ones(2), torch.Tensor)  # a binary op with an array: torch's
        assert isinstance(np.exp(t), torch.Tensor)  # a ufunc: torch's __array_wrap__, as before


def test_the_opt_out_keeps_numpys_calls_of_torchs_methods():
    program = ("import numpy as np, torch, torchestimator\n"
               "try:\n    np.min(torch.ones(2))\n"
               "except TypeError as e:\n    print('refused', 'dim' in str(e))\n")
    env = {**os.environ, "TORCHESTIMATOR_TORCH_NUMPY": "1"}
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                            env=env, timeout=120)
    assert result.stdout.strip() == "refused True", result.stderr[-2000:]


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_numpy_functions_on_a_cuda_tensor():
    t = torch.arange(6.0, device="cuda").reshape(2, 3)
    assert np.shape(t) == (2, 3) and np.size(t) == 6  # metadata: no copy to the host
    assert np.max(t) == 5.0 and np.argmax(t, axis=1).tolist() == [2, 2]


def test_the_image_tutorials_numpy_calls_on_a_batch(tmp_path):
    from PIL import Image

    for name, colour in (("dark", (10, 20, 30)), ("light", (200, 220, 250))):
        (tmp_path / name).mkdir()
        for i in range(2):
            Image.new("RGB", (8, 6), colour).save(tmp_path / name / f"{i}.png")
    ds = tf.keras.utils.image_dataset_from_directory(str(tmp_path), image_size=(6, 8), batch_size=4,
                                                     shuffle=False)
    images, labels = next(iter(ds))
    assert np.min(images) == 10.0 and np.max(images) == 250.0
    normalization_layer = tf.keras.layers.Rescaling(1. / 255)
    normalized_ds = ds.map(lambda x, y: (normalization_layer(x), y))
    image_batch, labels_batch = next(iter(normalized_ds))
    first_image = image_batch[0]
    assert isinstance(np.min(first_image), np.float32)
    np.testing.assert_allclose([np.min(first_image), np.max(first_image)], [10 / 255, 30 / 255], rtol=1e-6)
    model = tf.keras.Sequential([tf.keras.layers.Flatten(), tf.keras.layers.Dense(2)])
    predictions = model.predict(images, verbose=0)
    assert type(predictions) is np.ndarray
    assert np.argmax(predictions, axis=1).tolist() == predictions.argmax(axis=1).tolist()
    score = tf.nn.softmax(predictions[0])
    assert np.argmax(score) in (0, 1) and 0.5 <= np.max(score) <= 1.0
    assert np.mean(labels) == 0.5 and np.round(np.mean(images) / 255, 2) == np.round(images.numpy().mean() / 255, 2)


def test_a_numpy_array_on_the_left_of_a_tensor_gives_a_tensor():
    """TF's autoencoder tutorial: `x_train + noise_factor * tf.random.normal(shape=x_train.shape)`
    (torch alone refuses an ndarray on the left)."""
    x = np.full((2, 3), 0.5, dtype=np.float32)
    noisy = x + 0.2 * tf.random.normal(shape=x.shape)
    assert isinstance(noisy, torch.Tensor) and noisy.shape == (2, 3) and noisy.dtype == torch.float32
    t = torch.full((2, 3), 2.0)
    for got, want in ((x - t, -1.5), (x * t, 1.0), (x / t, 0.25), (x ** t, 0.25), (x // t, 0.0),
                      (x % t, 0.5)):
        assert isinstance(got, torch.Tensor)
        np.testing.assert_allclose(got.numpy(), np.full((2, 3), want))
    assert (np.ones((3, 2), dtype=np.float32) @ t).shape == (3, 3)
    readonly = np.ones(3, dtype=np.float32)
    readonly.flags.writeable = False
    assert (readonly + torch.ones(3)).tolist() == [2.0, 2.0, 2.0]


def test_reading_values_works_under_a_torch_function_mode():
    """`with torch.device(...)` is a torch function mode, as are a user's own: torch hands
    `numpy` to the mode as the `Tensor.numpy` this library installs, whose 0-d result is a NumPy
    scalar; `np.asarray` of a scalar tensor must still give a 0-d array (NumPy raises 'object
    __array__ method not producing an array' otherwise)."""
    with torch.device("cpu"):
        scalar = tf.constant(3.0)
        assert type(np.asarray(scalar)) is np.ndarray and np.asarray(scalar).shape == ()
        assert scalar.numpy() == np.float32(3.0) and type(scalar.numpy()) is np.float32
        assert np.asarray(tf.Variable(2.0)).shape == ()
        np.testing.assert_array_equal(np.array([scalar, scalar]), [3.0, 3.0])
        assert float(scalar) == 3.0 and int(scalar) == 3
