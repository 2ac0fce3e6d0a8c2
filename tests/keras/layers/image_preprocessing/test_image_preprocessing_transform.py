"""The projective transform kernel and the affine matrices against TensorFlow 2.15.

Expected values: fixtures/tf_image_preprocessing.npz, written by
`tools/make_tf_image_preprocessing_fixtures.py` (TF's `ImageProjectiveTransformV3` and Keras'
`get_rotation_matrix` / `get_translation_matrix` / `get_zoom_matrix`).
"""

import os

import numpy as np
import pytest
import torch

from torchestimator.keras.layers.image_preprocessing import _transform as T

FIXTURES = np.load(os.path.join(os.path.dirname(__file__), "fixtures", "tf_image_preprocessing.npz"))
NAMES = sorted(
    k.split("/")[1] for k in FIXTURES.files
    if k.startswith("transform/") and k.endswith("/matrix") and k.count("/") == 2
    and k.split("/")[1] != "batch"
)
CASES = [(n, f, i) for n in NAMES for f in T.FILL_MODES for i in T.INTERPOLATIONS]


def _run(image, matrix, fill_mode, interpolation, fill_value=0.5, output_shape=None):
    return T.projective_transform(
        torch.tensor(image), torch.tensor(matrix), fill_mode=fill_mode, fill_value=fill_value,
        interpolation=interpolation, output_shape=output_shape,
    ).numpy()


def test_the_fixtures_cover_every_transform():
    assert len(NAMES) == 11 and "projective" in NAMES and "singular" in NAMES


@pytest.mark.parametrize("name,fill_mode,interpolation", CASES)
def test_transform_matches_tensorflow(name, fill_mode, interpolation):
    matrix = FIXTURES[f"transform/{name}/matrix"]
    for prefix, image in (("", FIXTURES["transform/image"]), ("narrow/", FIXTURES["transform/narrow"])):
        expected = FIXTURES[f"transform/{prefix}{name}/{fill_mode}/{interpolation}"]
        got = _run(image, matrix, fill_mode, interpolation)
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-4,
                                   err_msg=f"{prefix}{name}/{fill_mode}/{interpolation}")


def test_per_image_transforms_and_output_shape_match_tensorflow():
    got = _run(FIXTURES["transform/image"], FIXTURES["transform/batch/matrix"], "reflect",
               "bilinear", fill_value=0.0, output_shape=(4, 9))
    assert got.shape == (2, 4, 9, 2)
    np.testing.assert_allclose(got, FIXTURES["transform/batch/reflect/bilinear"], atol=1e-4)


def test_constant_fill_uses_fill_value_and_identity_is_exact():
    image = FIXTURES["transform/image"]
    out = _run(image, FIXTURES["transform/far_shift/matrix"], "constant", "bilinear", fill_value=3.0)
    assert np.all(out == 3.0)
    same = _run(image, np.array([1, 0, 0, 0, 1, 0, 0, 0], np.float32), "reflect", "bilinear")
    np.testing.assert_array_equal(same, image)


def test_nearest_rounds_halves_away_from_zero():
    image = np.arange(5, dtype=np.float32).reshape(1, 1, 5, 1)
    shift = np.array([1, 0, 0.5, 0, 1, 0, 0, 0], np.float32)  # reads x + 0.5
    out = _run(image, shift, "constant", "nearest", fill_value=-1.0)
    np.testing.assert_array_equal(out.reshape(-1), [1, 2, 3, 4, -1])


def test_integer_images_keep_their_dtype_and_truncate():
    image = np.arange(12, dtype=np.int32).reshape(1, 3, 4, 1) * 3
    out = T.projective_transform(torch.tensor(image), torch.tensor(
        [1, 0, 0.5, 0, 1, 0, 0, 0], dtype=torch.float32), "nearest", 0.0, "bilinear")
    assert out.dtype == torch.int32
    expected = np.trunc((image[..., :-1, :] + image[..., 1:, :]) / 2)
    np.testing.assert_array_equal(out.numpy()[0, :, :3, 0], expected[0, :, :, 0])


def test_gradients_flow_to_the_image():
    image = torch.rand(2, 4, 5, 3, requires_grad=True)
    matrix = T.rotation_matrix(torch.tensor([0.3, -0.4]), 4.0, 5.0)
    T.projective_transform(image, matrix, "reflect", 0.0, "bilinear").sum().backward()
    assert image.grad is not None and image.grad.abs().sum() > 0


@pytest.mark.parametrize("kind", ["rotation", "translation", "zoom"])
def test_matrices_match_keras(kind):
    args = torch.tensor(FIXTURES[f"matrix/{kind}/args"])
    got = {
        "rotation": lambda: T.rotation_matrix(args, 6.0, 9.0),
        "translation": lambda: T.translation_matrix(args),
        "zoom": lambda: T.zoom_matrix(args, 6.0, 9.0),
    }[kind]()
    assert got.dtype == torch.float32
    np.testing.assert_allclose(got.numpy(), FIXTURES[f"matrix/{kind}"], rtol=1e-6, atol=1e-6)


def test_bad_arguments_raise_keras_errors():
    image = torch.zeros(1, 3, 3, 1)
    with pytest.raises(NotImplementedError, match="Unknown `fill_mode` mirror. Only `reflect`"):
        T.projective_transform(image, torch.zeros(8), fill_mode="mirror")
    with pytest.raises(NotImplementedError, match="Unknown `interpolation` bicubic. Only `nearest`"):
        T.projective_transform(image, torch.zeros(8), interpolation="bicubic")
    with pytest.raises(ValueError, match=r"`transforms` must be of shape \[8\], \[1, 8\] or \[batch=1, 8\]"):
        T.projective_transform(image, torch.zeros(2, 8))
    with pytest.raises(ValueError, match="`images` must be 4-D"):
        T.projective_transform(torch.zeros(3, 3, 1), torch.zeros(8))


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_transform_runs_on_the_inputs_device_and_matches_cpu():
    image = FIXTURES["transform/image"]
    for name in ("rotation", "projective", "far_shift"):
        matrix = FIXTURES[f"transform/{name}/matrix"]
        for fill_mode in T.FILL_MODES:
            out = T.projective_transform(torch.tensor(image, device="cuda"),
                                         torch.tensor(matrix, device="cuda"), fill_mode, 0.5)
            assert out.device.type == "cuda"
            np.testing.assert_allclose(out.cpu().numpy(),
                                       FIXTURES[f"transform/{name}/{fill_mode}/bilinear"], atol=1e-4)
