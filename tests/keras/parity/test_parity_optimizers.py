"""Every optimizer (new and legacy, with momentum, nesterov, amsgrad, centered, clipnorm,
clipvalue, global_clipnorm, weight decay, EMA, a schedule, legacy decay) against tf.keras
2.15's variables along 10 steps of a fixed loss (fixtures/optimizers.npz): an Embedding
lookup whose gradient is sparse (TF's IndexedSlices; here torch's sparse gradient of
`embedding(sparse=True)`), then a dense layer; and the same with dense gradients."""

import pytest
import torch
from _tf_parity import TOLERANCE, load, make_optimizer, run_optimizer, scaled_error

import torchestimator as tf

MANIFEST, ARRAYS = load("optimizers")
IDS = [e["id"] for e in MANIFEST]


def _check(entry, mode):
    for name, ours, theirs in run_optimizer(entry, ARRAYS, mode=mode):
        err = scaled_error(ours, theirs)
        assert err <= TOLERANCE, f"{entry['id']} ({entry['kind']} {entry['class']} {entry['kwargs']}): {name} differs from TF by {err:.3g}"


@pytest.mark.parametrize("entry", MANIFEST, ids=IDS)
def test_optimizer_matches_tf_with_sparse_gradients(entry):
    _check(entry, "sparse")


@pytest.mark.parametrize("entry", MANIFEST, ids=IDS)
def test_optimizer_matches_tf_with_dense_gradients(entry):
    _check(entry, "dense")


@pytest.mark.parametrize("entry", MANIFEST, ids=IDS)
def test_optimizer_from_tf_config_matches_tf(entry):
    """`from_config` of TF's `get_config()` (what a migrated model's optimizer config holds)."""
    for name, ours, theirs in run_optimizer(entry, ARRAYS, mode="dense", from_tf_config=True):
        err = scaled_error(ours, theirs)
        assert err <= TOLERANCE, f"{entry['id']} from TF's config {entry['tf_config']}: {name} differs by {err:.3g}"


def test_every_optimizer_class_is_covered():
    new = {e["class"] for e in MANIFEST if e["kind"] == "new"}
    new |= {e["class"] for e in load("optimizers_31")[0]}  # Adafactor, Lion (tests/keras/optimizers)
    legacy = {e["class"] for e in MANIFEST if e["kind"] == "legacy"}
    exported = {n for n in dir(tf.keras.optimizers) if n[0].isupper() and n != "Optimizer"}
    assert exported <= new
    assert {n for n in dir(tf.keras.optimizers.legacy) if n[0].isupper() and n != "Optimizer"} <= legacy


def test_legacy_rmsprop_epsilon_placement():
    """Without momentum legacy RMSprop divides by sqrt(ms) + eps; with momentum TF's kernel
    divides by sqrt(ms + eps); the new RMSprop always by sqrt(ms + eps)."""
    g = torch.tensor([1e-3])
    for opt, want in [
        (tf.keras.optimizers.legacy.RMSprop(0.1, epsilon=1e-3), 0.1 * 1e-3 / ((0.1 * 1e-6) ** 0.5 + 1e-3)),
        (tf.keras.optimizers.legacy.RMSprop(0.1, epsilon=1e-3, momentum=0.5), 0.1 * 1e-3 / (0.1 * 1e-6 + 1e-3) ** 0.5),
        (tf.keras.optimizers.RMSprop(0.1, epsilon=1e-3), 0.1 * 1e-3 / (0.1 * 1e-6 + 1e-3) ** 0.5),
    ]:
        w = torch.nn.Parameter(torch.zeros(1))
        opt.apply_gradients([(g, w)])
        assert w.item() == pytest.approx(-want, rel=1e-5)


def test_sparse_gradient_through_step_and_nn_embedding():
    """`optimizer.step()` reads a sparse `p.grad` (torch.nn.Embedding(sparse=True)): the legacy
    SGD with momentum leaves the rows the batch did not look up untouched, as TF's sparse kernel."""
    emb = torch.nn.Embedding(5, 2, sparse=True)
    before = emb.weight.detach().clone()
    opt = tf.keras.optimizers.legacy.SGD(0.1, momentum=0.9)
    opt.build([emb.weight])
    for ids in ([0, 1, 1], [1]):
        emb(torch.tensor(ids)).sum().backward()
        assert emb.weight.grad.is_sparse
        opt.step()
        opt.zero_grad()
    after = emb.weight.detach()
    assert torch.equal(after[2:], before[2:])
    # row 0 was looked up only at step 0: lazy momentum does not move it at step 1
    assert after[0].tolist() == pytest.approx((before[0] - 0.1).tolist())
    assert after[1].tolist() == pytest.approx((before[1] - 0.2 - (0.9 * 0.2 + 0.1)).tolist())


def test_new_optimizer_with_sparse_gradient_equals_dense():
    """The new optimizers apply a sparse gradient as its (summed) dense value, as Keras 2.15."""
    entry = next(e for e in MANIFEST if e["id"] == "adam")
    sparse = [p[1] for p in run_optimizer(entry, ARRAYS, mode="sparse")]
    dense = [p[1] for p in run_optimizer(entry, ARRAYS, mode="dense")]
    for a, b in zip(sparse, dense):
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-6)


def test_make_optimizer_deserializes_schedules():
    entry = next(e for e in MANIFEST if e["id"] == "sgd_schedule")
    opt = make_optimizer(entry)
    assert isinstance(opt._learning_rate, tf.keras.optimizers.schedules.ExponentialDecay)


def test_sparse_helpers_fall_back_and_reject_unknown_rules():
    from torchestimator.keras.optimizers import _sparse
    from torchestimator.keras.optimizers.sgd import SGDKernel

    p = torch.zeros(3, 2)
    kernel = SGDKernel([p], lr=0.1, momentum=0.9)
    full = torch.sparse_coo_tensor([[0, 2], [1, 0]], [1.0, 2.0], (3, 2), check_invariants=True)  # sparse in both dims: as dense
    slots = kernel.slots_for(kernel.param_groups[0], [p])
    _sparse.apply(kernel, kernel.param_groups[0], [p], [full], slots, 0, "lazy")
    torch.testing.assert_close(p, -0.1 * full.to_dense())
    rows = torch.sparse_coo_tensor([[1]], [[1.0, 1.0]], (3, 2), check_invariants=True)
    with pytest.raises(ValueError, match="Unknown sparse update rule 'eager'"):
        _sparse.apply(kernel, kernel.param_groups[0], [p], [rows], slots, 1, "eager")


def test_sparse_clipping_works_on_the_values_of_each_lookup():
    """TF clips an IndexedSlices by its values (one row per lookup, duplicates unsummed)."""
    from torchestimator.keras.optimizers import _sparse

    g = torch.sparse_coo_tensor([[1, 1]], [[3.0, 0.0], [0.0, 4.0]], (3, 2), check_invariants=True)  # row 1 looked up twice
    (clipped,) = _sparse.clip_gradients([g], clipnorm=1.0, global_clipnorm=None, clipvalue=None)
    torch.testing.assert_close(clipped.to_dense()[1], torch.tensor([0.6, 0.8]))  # norm of values is 5
    (clipped,) = _sparse.clip_gradients([g], clipnorm=None, global_clipnorm=None, clipvalue=2.0)
    torch.testing.assert_close(clipped.to_dense()[1], torch.tensor([2.0, 2.0]))  # clamp, then sum
