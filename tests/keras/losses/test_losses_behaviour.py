"""Loss behaviour beyond the docstring examples: clipping, logits, weights, shapes, errors, lookup."""

import math
import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import torchestimator.keras.losses as losses
from torchestimator.keras.saving import deserialize_keras_object, serialize_keras_object

torch.manual_seed(0)


def test_reduction_constants_and_validation():
    R = losses.Reduction
    assert (R.AUTO, R.NONE, R.SUM, R.SUM_OVER_BATCH_SIZE) == (
        "auto", "none", "sum", "sum_over_batch_size")
    assert set(R.all()) == {"auto", "none", "sum", "sum_over_batch_size"}
    with pytest.raises(ValueError, match="Invalid Reduction Key: 'mean'"):
        R.validate("mean")
    with pytest.raises(ValueError, match="Invalid Reduction Key"):
        losses.MeanSquaredError(reduction="mean")
    assert losses.MeanSquaredError(reduction=R.SUM).reduction == "sum"


def test_probabilities_are_clipped_with_epsilon():
    per_sample = losses.binary_crossentropy([[0.0], [1.0]], [[1.0], [0.0]])
    assert torch.isfinite(per_sample).all()
    np.testing.assert_allclose(per_sample.numpy(), [-math.log(2e-7)] * 2, rtol=1e-2)
    cce = losses.categorical_crossentropy([[1.0, 0.0]], [[0.0, 1.0]])
    np.testing.assert_allclose(cce.numpy(), [-math.log(1e-7)], rtol=1e-3)
    scce = losses.sparse_categorical_crossentropy([0], [[0.0, 1.0]])
    assert torch.isfinite(scce).all() and scce.item() > 15


def test_logits_and_probabilities_agree():
    logits = torch.randn(6, 4)
    y_bin = torch.randint(0, 2, (6, 4)).float()
    from_logits = losses.BinaryCrossentropy(from_logits=True)(y_bin, logits)
    from_probs = losses.BinaryCrossentropy()(y_bin, torch.sigmoid(logits))
    np.testing.assert_allclose(from_logits.item(), from_probs.item(), rtol=1e-4)
    y_cat = F.one_hot(torch.randint(0, 4, (6,)), 4).float()
    a = losses.CategoricalCrossentropy(from_logits=True)(y_cat, logits)
    b = losses.CategoricalCrossentropy()(y_cat, torch.softmax(logits, -1))
    c = losses.SparseCategoricalCrossentropy(from_logits=True)(y_cat.argmax(-1), logits)
    np.testing.assert_allclose([a.item(), c.item()], [b.item()] * 2, rtol=1e-4)
    np.testing.assert_allclose(a.item(), F.cross_entropy(logits, y_cat.argmax(-1)).item(),
                               rtol=1e-6)


def test_keras_logits_attribute_is_used_and_warns_with_from_logits():
    logits = torch.tensor([[8.0, -9.0, 0.5], [0.1, 0.2, 30.0]])
    probs = torch.softmax(logits, -1)
    probs._keras_logits = logits
    y = torch.tensor([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]])
    expected = F.cross_entropy(logits, y, reduction="none")
    np.testing.assert_allclose(losses.categorical_crossentropy(y, probs).numpy(),
                               expected.numpy(), rtol=1e-6)
    with pytest.warns(UserWarning, match="from_logits=True"):
        losses.categorical_crossentropy(y, probs, from_logits=True)
    sig = torch.sigmoid(logits)
    sig._keras_logits = logits
    np.testing.assert_allclose(
        losses.binary_crossentropy(y, sig).numpy(),
        F.binary_cross_entropy_with_logits(logits, y, reduction="none").mean(-1).numpy(), rtol=1e-6)


def test_label_smoothing():
    y, p = torch.tensor([[0.0, 1.0]]), torch.tensor([[0.3, 0.6]])
    smoothed = y * 0.8 + 0.1
    manual = -(smoothed * torch.log(p + 1e-7) + (1 - smoothed) * torch.log(1 - p + 1e-7)).mean()
    np.testing.assert_allclose(losses.binary_crossentropy(y, p, label_smoothing=0.2).item(),
                               manual.item(), rtol=1e-6)
    y3, logits = torch.tensor([[0.0, 1.0, 0.0]]), torch.tensor([[1.0, 2.0, 0.5]])
    got = losses.categorical_crossentropy(y3, logits, from_logits=True, label_smoothing=0.3)
    want = F.cross_entropy(logits, torch.tensor([1]), label_smoothing=0.3)
    np.testing.assert_allclose(got.item(), want.item(), rtol=1e-6)


def test_categorical_axis_and_single_class_warning():
    logits = torch.randn(2, 3, 5)
    labels = F.one_hot(torch.randint(0, 3, (2, 5)), 3).permute(0, 2, 1).float()
    got = losses.categorical_crossentropy(labels, logits, from_logits=True, axis=1)
    want = F.cross_entropy(logits, labels.argmax(1), reduction="none")
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5)
    with pytest.raises(ValueError, match="axis"):
        losses.categorical_crossentropy(labels, logits, axis=True)
    with pytest.warns(SyntaxWarning, match="binary_crossentropy"):
        losses.categorical_crossentropy([[1.0]], [[0.7]])


def test_sample_weight_broadcasting():
    y_true = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    y_pred = torch.zeros(3, 2)
    mse = losses.MeanSquaredError()
    per_sample = losses.mean_squared_error(y_true, y_pred)
    w = torch.tensor([1.0, 0.0, 2.0])
    expected = (per_sample * w).sum() / 3
    np.testing.assert_allclose(mse(y_true, y_pred, sample_weight=w).item(), expected.item())
    np.testing.assert_allclose(mse(y_true, y_pred, sample_weight=w[:, None]).item(),
                               expected.item())
    np.testing.assert_allclose(mse(y_true, y_pred, sample_weight=2.0).item(),
                               2 * per_sample.mean().item(), rtol=1e-6)
    seq_true, seq_pred = torch.rand(2, 4, 3), torch.rand(2, 4, 3)
    per_step = losses.mean_squared_error(seq_true, seq_pred)
    np.testing.assert_allclose(
        mse(seq_true, seq_pred, sample_weight=[1.0, 0.0]).item(),
        (per_step[0].sum() / 8).item(), rtol=1e-6)
    step_w = torch.tensor([[1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]])
    none = losses.MeanSquaredError(reduction="none")(seq_true, seq_pred, sample_weight=step_w)
    np.testing.assert_allclose(none.numpy(), (per_step * step_w).numpy(), rtol=1e-6)
    with pytest.raises(ValueError, match=r"sample_weight of shape \(5,\)"):
        mse(y_true, y_pred, sample_weight=torch.ones(5))


def test_labels_squeezed_like_keras():
    y_true = torch.tensor([1.0, 0.0, 1.0])
    y_pred = torch.tensor([[0.9], [0.2], [0.4]])
    none = losses.BinaryCrossentropy(reduction="none")
    per_sample = none(y_true[:, None], y_pred)
    assert per_sample.shape == (3,)
    np.testing.assert_allclose(per_sample.numpy(), -np.log([0.9, 0.8, 0.4]), rtol=1e-5)
    # As in Keras 2.15: (3,) labels squeeze (3, 1) predictions, and the last axis is averaged.
    batch_mean = none(y_true, y_pred)
    assert batch_mean.shape == ()
    np.testing.assert_allclose(batch_mean.item(), per_sample.mean().item(), rtol=1e-6)
    sparse = losses.SparseCategoricalCrossentropy(reduction="none")(
        torch.tensor([[1], [0]]), torch.tensor([[0.2, 0.8], [0.6, 0.4]]))
    np.testing.assert_allclose(sparse.numpy(), -np.log([0.8, 0.6]), rtol=1e-5)


def test_shape_mismatch_names_both_shapes_and_the_loss():
    with pytest.raises(ValueError, match=r"mean_squared_error.*\(4, 3\).*\(4, 2\)"):
        losses.MeanSquaredError()(torch.zeros(4, 3), torch.zeros(4, 2))
    with pytest.raises(ValueError, match=r"categorical_crossentropy.*\(4,\).*\(4, 3\).*sparse"):
        losses.CategoricalCrossentropy()(torch.tensor([0, 1, 2, 1]), torch.rand(4, 3))
    with pytest.raises(ValueError, match=r"sparse_categorical_crossentropy.*\(4, 3\)"):
        losses.SparseCategoricalCrossentropy()(torch.eye(4)[:, :3], torch.rand(4, 3))
    with pytest.raises(ValueError, match=r"label value of 3.*\[0, 3\)"):
        losses.sparse_categorical_crossentropy([0, 3], torch.rand(2, 3))
    with pytest.raises(ValueError, match=r"binary_crossentropy.*\(2, 3\).*\(2, 4\)"):
        losses.binary_crossentropy(torch.zeros(2, 3), torch.rand(2, 4))


def test_gradients_flow_and_match_torch():
    logits = torch.randn(5, 3, requires_grad=True)
    labels = torch.randint(0, 3, (5,))
    losses.SparseCategoricalCrossentropy(from_logits=True)(labels, logits).backward()
    reference = torch.randn(5, 3).copy_(logits.detach()).requires_grad_()
    F.cross_entropy(reference, labels).backward()
    np.testing.assert_allclose(logits.grad.numpy(), reference.grad.numpy(), rtol=1e-5, atol=1e-7)


def test_masks_and_ignore_class_average_over_valid_entries():
    y_pred = torch.tensor([[0.2, 0.4, 0.9]])
    y_pred._keras_mask = torch.tensor([[True, True, False]])
    got = losses.MeanAbsoluteError()(torch.zeros(1, 3, 1), y_pred[..., None])
    assert got.shape == ()
    y_true = torch.tensor([0, 1, -1, 2])
    probs = torch.softmax(torch.randn(4, 3), -1)
    loss = losses.SparseCategoricalCrossentropy(ignore_class=-1)(y_true, probs)
    per = losses.sparse_categorical_crossentropy(y_true[[0, 1, 3]], probs[[0, 1, 3]])
    np.testing.assert_allclose(loss.item(), per.mean().item(), rtol=1e-6)


def test_dtypes():
    out = losses.mean_squared_error(np.zeros((2, 2)), np.ones((2, 2)))
    assert out.dtype == torch.float64
    assert losses.MeanSquaredError()([[1, 2]], [[1, 1]]).dtype == torch.float32
    signs = losses.hinge([[-1.0, 1.0]], [[0.5, 0.5]])
    np.testing.assert_allclose(signs.numpy(), [1.0])


def test_custom_loss_subclass_and_abstract_base():
    class Scaled(losses.Loss):
        def call(self, y_true, y_pred):
            return torch.mean(torch.abs(y_pred - y_true), dim=-1) * 2

    assert Scaled(name="scaled")([[0.0, 1.0]], [[1.0, 1.0]]).item() == pytest.approx(1.0)
    assert Scaled().get_config() == {"reduction": "auto", "name": None}
    with pytest.raises(TypeError):
        losses.Loss()


def test_get_by_name_config_and_object():
    assert losses.get("mse") is losses.mean_squared_error
    assert losses.get("MSE") is losses.mean_squared_error
    assert losses.get("categorical_crossentropy") is losses.categorical_crossentropy
    assert losses.get("huber_loss") is losses.huber
    assert losses.get("kullback_leibler_divergence") is losses.kl_divergence
    obj = losses.get("CategoricalCrossentropy")
    assert isinstance(obj, losses.CategoricalCrossentropy)
    cfg = losses.get({"class_name": "CategoricalCrossentropy", "config": {"from_logits": True}})
    assert cfg.get_config()["from_logits"] is True
    instance = losses.Huber(delta=2.0)
    assert losses.get(instance) is instance
    assert losses.get(None) is None
    with pytest.raises(ValueError, match="Unknown loss function: 'msee'.*mean_squared_error"):
        losses.get("msee")
    with pytest.raises(ValueError, match="Could not interpret loss function identifier"):
        losses.get(42)


@pytest.mark.parametrize("name", ["MeanSquaredError", "BinaryCrossentropy",
                                  "BinaryFocalCrossentropy", "CategoricalCrossentropy",
                                  "CategoricalFocalCrossentropy", "SparseCategoricalCrossentropy",
                                  "CosineSimilarity", "Huber", "KLDivergence", "LogCosh",
                                  "Poisson", "Hinge", "SquaredHinge", "CategoricalHinge",
                                  "MeanAbsoluteError", "MeanAbsolutePercentageError",
                                  "MeanSquaredLogarithmicError"])
def test_config_round_trip(name):
    cls = getattr(losses, name)
    loss = cls(reduction="sum", name="custom_name")
    config = loss.get_config()
    assert config["reduction"] == "sum" and config["name"] == "custom_name"
    clone = cls.from_config(config)
    assert clone.get_config() == config
    restored = deserialize_keras_object(serialize_keras_object(loss))
    assert type(restored) is cls and restored.get_config() == config
    assert type(losses.deserialize(losses.serialize(loss))) is cls


def test_binary_crossentropy_config_matches_keras():
    assert losses.BinaryCrossentropy().get_config() == {
        "reduction": "auto", "name": "binary_crossentropy", "from_logits": False,
        "label_smoothing": 0.0, "axis": -1}
    assert losses.SparseCategoricalCrossentropy().get_config() == {
        "reduction": "auto", "name": "sparse_categorical_crossentropy", "from_logits": False,
        "ignore_class": None}


def test_loss_function_wrapper_serializes_its_function():
    wrapper = losses.LossFunctionWrapper(losses.mean_absolute_error, name="mae_loss", )
    config = wrapper.get_config()
    assert config["fn"] == "mean_absolute_error"
    clone = losses.LossFunctionWrapper.from_config(config)
    assert clone.fn is losses.mean_absolute_error
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert clone([[1.0]], [[3.0]]).item() == pytest.approx(2.0)


@pytest.mark.parametrize("cls,fn", [(losses.MeanSquaredError, losses.mean_squared_error),
                                    (losses.MeanAbsoluteError, losses.mean_absolute_error)])
def test_fused_mean_error_equals_the_per_sample_path(cls, fn):
    # An unweighted batch mean of MSE/MAE over same-shaped tensors is one fused kernel; its value
    # and gradient equal the mean of the per-sample losses; weights, masks, other reductions and
    # mismatched shapes take the per-sample path.
    y_true = torch.randn(6, 3)
    y_pred = torch.randn(6, 3, requires_grad=True)
    fused = cls()(y_true, y_pred)
    expected = fn(y_true, y_pred).mean()
    torch.testing.assert_close(fused, expected)
    (grad_fused,) = torch.autograd.grad(fused, y_pred)
    (grad_expected,) = torch.autograd.grad(expected, y_pred)
    torch.testing.assert_close(grad_fused, grad_expected)
    weights = torch.tensor([1.0, 0.0, 2.0, 1.0, 1.0, 0.5])
    torch.testing.assert_close(cls()(y_true, y_pred, sample_weight=weights),
                               (fn(y_true, y_pred) * weights).sum() / 6)
    torch.testing.assert_close(cls(reduction="sum")(y_true, y_pred), fn(y_true, y_pred).sum())
    masked = y_pred.detach().clone()
    masked._keras_mask = torch.tensor([True, True, False, True, False, True])
    torch.testing.assert_close(cls()(y_true, masked), fn(y_true, masked)[masked._keras_mask].mean())
    torch.testing.assert_close(cls()(y_true[:, :1], y_pred[:, 0]), fn(y_true[:, 0], y_pred[:, 0]).mean())
    torch.testing.assert_close(cls()(y_true.double(), y_pred), expected)
