"""Elementwise update rules run once over a group of many small CPU parameters seen as one flat
vector (`keras/optimizers/_flat.py`). The flat update must give what the per-tensor update gives,
the slots must stay each variable's own (views that checkpoints, restores and partial updates
read and write), and groups that do not qualify keep the per-tensor path."""

import pytest
import torch

import torchestimator as tf
from torchestimator.keras.optimizers import _flat

SHAPES = [(6, 1), (5, 1), (50, 1), (200, 1), (3, 4), (1,)]


def _optimizers():
    return [
        lambda: tf.keras.optimizers.Ftrl(0.05),
        lambda: tf.keras.optimizers.Ftrl(0.05, l1_regularization_strength=0.01, l2_regularization_strength=0.02,
                                         l2_shrinkage_regularization_strength=0.01, beta=0.1),
        lambda: tf.keras.optimizers.Adam(0.01),
        lambda: tf.keras.optimizers.Adam(0.01, amsgrad=True),
        lambda: tf.keras.optimizers.Adamax(0.01),
        lambda: tf.keras.optimizers.RMSprop(0.01),
        lambda: tf.keras.optimizers.RMSprop(0.01, momentum=0.9, centered=True),
        lambda: tf.keras.optimizers.Adagrad(0.05),  # epsilon inside the square root
    ]


def _train(make, flat, steps=4, shapes=SHAPES, drop=None):
    """Params and slots after `steps` updates with fixed gradients (`drop`: a step whose first
    gradient is missing, a partial update)."""
    torch.manual_seed(0)
    params = [torch.nn.Parameter(torch.randn(s)) for s in shapes]
    optimizer = make()
    optimizer.build(params)
    kernel = optimizer._kernel
    kernel.elementwise = flat
    for step in range(steps):
        for p in params:
            p.grad = torch.randn(p.shape)
        if step == drop:
            params[0].grad = None
        optimizer.step()
    slots = {name: [t.clone() for t in tensors] for name, tensors in kernel.slots_for(
        kernel.param_groups[0], params).items()}
    return [p.detach().clone() for p in params], slots, optimizer


@pytest.mark.parametrize("make", _optimizers())
@pytest.mark.filterwarnings("ignore:Gradients do not exist")
@pytest.mark.parametrize("drop", [None, 2], ids=["full", "one-partial-step"])
def test_flat_update_equals_the_per_tensor_update(make, drop):
    want_params, want_slots, _ = _train(make, flat=False, drop=drop)
    got_params, got_slots, optimizer = _train(make, flat=True, drop=drop)
    assert optimizer._kernel._flat.get(0) is not None  # the flat path ran
    for got, want in zip(got_params, want_params):
        torch.testing.assert_close(got, want, rtol=1e-6, atol=1e-7)
    assert got_slots.keys() == want_slots.keys()
    for name in want_slots:
        for got, want in zip(got_slots[name], want_slots[name]):
            torch.testing.assert_close(got, want, rtol=1e-6, atol=1e-7)


def test_slots_stay_each_variables_own_through_a_checkpoint_round_trip():
    make = _optimizers()[0]
    params, _, optimizer = _train(make, flat=True)
    state = optimizer.state_dict()
    slot = state["variables"]["3"]["accumulator"]
    assert slot.shape == SHAPES[3]  # a variable's own slot, shaped as the variable
    # a restore writes into the flat buffers through the views
    fresh_params = [torch.nn.Parameter(p.clone()) for p in params]
    other = make()
    other.build(fresh_params)
    other._kernel.elementwise = True
    for p in fresh_params:
        p.grad = torch.zeros(p.shape)
    other.step()  # makes the flat buffers (and moves the weights: they are restored below)
    other.load_state_dict(state)
    with torch.no_grad():
        for p, value in zip(fresh_params, params):
            p.copy_(value)
    got = other._kernel.state[fresh_params[3]]["accumulator"]
    torch.testing.assert_close(got, slot)
    flat = other._kernel._flat.get(0)
    if flat is not None:  # the views still feed the flat buffers (or the cache was rebuilt)
        assert got.untyped_storage().data_ptr() == flat.slots["accumulator"][0].untyped_storage().data_ptr()
    # the next updates agree with an optimizer restored without the flat path
    reference = make()
    reference_params = [torch.nn.Parameter(p.clone()) for p in params]
    reference.build(reference_params)
    reference._kernel.elementwise = False
    reference.load_state_dict(state)
    for _ in range(2):
        torch.manual_seed(1)
        for a, b in zip(fresh_params, reference_params):
            g = torch.randn(a.shape)
            a.grad, b.grad = g.clone(), g.clone()
        other.step()
        reference.step()
    for a, b in zip(fresh_params, reference_params):
        torch.testing.assert_close(a.detach(), b.detach(), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("params", [
    [torch.zeros(3, requires_grad=True) for _ in range(_flat.MIN_PARAMETERS - 1)],  # too few
    [torch.zeros(_flat.MAX_ELEMENTS, requires_grad=True)] + [torch.zeros(1, requires_grad=True)] * 4,  # too big
    [torch.zeros(_flat.MAX_ELEMENTS_PER_PARAMETER + 1, requires_grad=True) for _ in range(4)],  # large tensors
    [torch.zeros(3, requires_grad=True)] * 3 + [torch.zeros(3, dtype=torch.float64, requires_grad=True)],
], ids=["few", "large", "large-on-average", "mixed-dtype"])
def test_groups_that_do_not_qualify_keep_the_per_tensor_path(params):
    params = [p.detach().clone().requires_grad_() for p in params]
    optimizer = tf.keras.optimizers.Adam(0.01)
    optimizer.build(params)
    for p in params:
        p.grad = torch.ones(p.shape, dtype=p.dtype)
    optimizer.step()
    assert optimizer._kernel._flat.get(0) is None
    assert all(bool((p < 0).all()) for p in params)  # the update ran


def test_tensor_subclasses_with_their_own_dispatch_keep_the_per_tensor_path():
    class Wrapped(torch.Tensor):  # a subclass with its own dispatch, as FSDP's DTensor shards
        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            unwrap = lambda t: t.as_subclass(torch.Tensor) if isinstance(t, Wrapped) else t  # noqa: E731
            return func(*[unwrap(a) for a in args], **{k: unwrap(v) for k, v in (kwargs or {}).items()})

    params = [torch.zeros(3).as_subclass(Wrapped).requires_grad_() for _ in range(5)]
    assert _flat.FlatGroup.make(_FakeKernel(params), 0, params) is None


class _FakeKernel:
    def __init__(self, params):
        self.params = params

    def group_slots(self, index):
        return {}


def test_torch_step_of_a_kernel_uses_the_flat_path():
    from torchestimator.keras.optimizers.ftrl import FtrlKernel

    torch.manual_seed(0)
    params = [torch.nn.Parameter(torch.randn(s)) for s in SHAPES]
    twins = [torch.nn.Parameter(p.detach().clone()) for p in params]
    flat, loop = FtrlKernel(params, lr=0.1), FtrlKernel(twins, lr=0.1)
    loop.elementwise = False
    for _ in range(3):
        for a, b in zip(params, twins):
            g = torch.randn(a.shape)
            a.grad, b.grad = g.clone(), g.clone()
        flat.step()
        loop.step()
    assert flat._flat.get(0) is not None
    for a, b in zip(params, twins):
        torch.testing.assert_close(a.detach(), b.detach(), rtol=1e-6, atol=1e-7)


def test_a_list_of_variables_changed_in_place_gets_a_new_flat_view():
    from torchestimator.keras.optimizers.ftrl import FtrlKernel

    params = [torch.nn.Parameter(torch.zeros(2)) for _ in range(4)]
    kernel = FtrlKernel(params, lr=0.1)
    grads = [torch.ones(2) for _ in params]
    with torch.no_grad():
        kernel.update_group(0, params, grads, 0)
    first = kernel._flat[0]
    params.append(torch.nn.Parameter(torch.zeros(3)))  # the same list object, one more variable
    assert not first.serves(params)
    kernel._flat[0] = first  # as if nothing had told the kernel (no add_params, no invalidation)
    kernel.param_groups[0]["params"].append(params[-1])
    kernel.init_state(params[-1], kernel.param_groups[0])
    kernel._caches.clear()
    with torch.no_grad():
        kernel.update_group(0, params, grads + [torch.ones(3)], 1)
    assert kernel._flat[0] is not first and kernel._flat[0].weights.numel() == 11
    assert bool((params[-1] != 0).all())  # the new variable was updated
