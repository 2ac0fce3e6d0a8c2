"""TrainOp: the deferred update `minimize()` returns inside a model_fn, and `group`."""

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator._engine.train_op import TrainOp, group, parameters_of
from torchestimator._ops.control_ops import NoOp


class RecordingSGD:
    """A minimal optimizer: build() registers variables, step() applies `p.grad` to them."""

    def __init__(self, lr=1.0):
        self.lr = lr
        self.vars = []
        self.builds = 0
        self.steps = 0
        self.grads_seen = []

    def build(self, var_list):
        self.builds += 1
        for v in var_list:
            if not any(v is seen for seen in self.vars):
                self.vars.append(v)

    def step(self):
        self.steps += 1
        self.grads_seen.append([None if p.grad is None else p.grad.clone() for p in self.vars])
        with torch.no_grad():
            for p in self.vars:
                if p.grad is not None:
                    p -= self.lr * p.grad


def _param(*values):
    return torch.nn.Parameter(torch.tensor(values, dtype=torch.float32))


# ------------------------------------------------------------------------------ parameters_of
def test_parameters_of_finds_the_leaves_in_discovery_order():
    a, b, c = _param(1.0), _param(2.0), _param(3.0)
    frozen = torch.tensor([4.0])
    loss = ((a * b).sum() + (a * c).sum() + frozen.sum())
    found = parameters_of(loss)
    assert [id(p) for p in found] == [id(a), id(b), id(c)]  # each once, frozen tensors excluded


def test_parameters_of_a_tensor_without_graph_is_empty():
    assert parameters_of(torch.tensor(1.0)) == []
    assert parameters_of(_param(1.0).detach().sum()) == []


def test_parameters_of_a_leaf_through_a_view():
    w = _param(1.0, 2.0)
    assert [id(p) for p in parameters_of(w[0] * 2)] == [id(w)]


# ----------------------------------------------------------------------------------- TrainOp
class _TransientNode:
    """An autograd node as torch 2.11 hands them out: each `next_functions` read makes new
    node objects, freed as soon as nothing holds them (so a later node's object may take a
    freed one's id)."""

    def __init__(self, depth, leaf):
        self._depth, self._leaf = depth, leaf
        self.variable = leaf if depth == 0 else None

    @property
    def next_functions(self):
        if self._depth == 0:
            return ()
        return ((_TransientNode(self._depth - 1, self._leaf), 0),)


def test_parameters_of_finds_a_leaf_behind_nodes_whose_objects_torch_frees():
    leaf = torch.zeros(2, requires_grad=True)
    loss = type("Loss", (), {"grad_fn": _TransientNode(6, leaf)})()
    assert parameters_of(loss) == [leaf]


def test_one_entry_without_var_list_updates_every_weight_the_loss_depends_on():
    a, b, unused = _param(1.0), _param(2.0), _param(5.0)
    opt = RecordingSGD(lr=0.5)
    cache = {}
    TrainOp([(opt, (a * b).sum(), None)]).run(cache)
    np.testing.assert_allclose(a.detach().numpy(), [0.0])  # 1 - 0.5 * 2
    np.testing.assert_allclose(b.detach().numpy(), [1.5])  # 2 - 0.5 * 1
    assert unused.item() == 5.0
    assert a.grad is None and b.grad is None  # gradients cleared after the step
    assert [id(p) for p in cache[0]] == [id(a), id(b)]  # the variables found are remembered
    # the next run reuses the cached variables and skips build() for the same list
    TrainOp([(opt, (a * b).sum(), None)]).run(cache)
    assert (opt.builds, opt.steps) == (1, 2)


def test_one_entry_with_var_list_updates_only_those_variables():
    a, b = _param(1.0), _param(2.0)
    opt = RecordingSGD()
    TrainOp([(opt, (a * b).sum(), [a])]).run()
    assert a.item() == pytest.approx(-1.0) and b.item() == 2.0
    assert b.grad is None or b.grad.item() == 1.0  # computed but not applied


def test_var_list_may_be_a_callable_or_a_tuple():
    a, b = _param(1.0), _param(2.0)
    opt = RecordingSGD()
    calls = []

    def var_list():
        calls.append(1)
        return [b]

    TrainOp([(opt, (a * b).sum(), var_list)]).run()
    assert calls == [1]
    assert a.item() == 1.0 and b.item() == pytest.approx(1.0)
    c, d = _param(1.0), _param(2.0)
    TrainOp([(RecordingSGD(), (c * d).sum(), (c,))]).run()
    assert c.item() == pytest.approx(-1.0) and d.item() == 2.0


def test_several_entries_run_one_backward_pass():
    a, b = _param(1.0), _param(2.0)
    loss = (a * b).sum()
    opt_a, opt_b = RecordingSGD(), RecordingSGD()
    # the same loss twice is back-propagated once: the gradients are not doubled
    TrainOp([(opt_a, loss, [a]), (opt_b, loss, [b])]).run()
    assert a.item() == pytest.approx(-1.0) and b.item() == pytest.approx(1.0)
    assert opt_a.steps == opt_b.steps == 1


def test_several_losses_each_reach_their_own_variables():
    a, b = _param(1.0), _param(2.0)
    opt_a, opt_b = RecordingSGD(), RecordingSGD()
    cache = {}
    TrainOp([(opt_a, (3 * a).sum(), None), (opt_b, (a * b).sum(), [b])]).run(cache)
    # as TF: a's gradient comes from its own loss only (3), b's from the second (a)
    assert opt_a.grads_seen[0][0].item() == pytest.approx(3.0)
    assert opt_b.grads_seen[0][0].item() == pytest.approx(1.0)
    assert [id(p) for p in cache[0]] == [id(a)]


def test_a_loss_without_gradient_is_an_error():
    opt = RecordingSGD()
    with pytest.raises(ValueError, match="does not depend on any trainable weight"):
        TrainOp([(opt, torch.tensor(1.0), None)]).run()
    a = _param(1.0)
    with pytest.raises(ValueError, match="does not depend on any trainable weight"):
        TrainOp([(opt, a.sum(), [a]), (RecordingSGD(), torch.tensor(2.0), None)]).run()
    assert opt.steps == 0


def test_with_a_keras_optimizer():
    w = tf.Variable([1.0, 2.0])
    opt = tf.keras.optimizers.SGD(learning_rate=0.1)
    TrainOp([(opt, tf.reduce_sum(w * w), None)]).run({})
    np.testing.assert_allclose(w.numpy(), [0.8, 1.6], rtol=1e-6)
    assert int(opt.iterations) == 1


# ------------------------------------------------------------------------------------- group
def test_group_of_train_ops_concatenates_their_entries():
    a, b = _param(1.0), _param(2.0)
    opt = RecordingSGD()
    first, second = TrainOp([(opt, a.sum(), [a])]), TrainOp([(opt, b.sum(), [b])])
    grouped = group(first, second)
    assert type(grouped) is TrainOp
    assert grouped.entries == first.entries + second.entries
    # nested containers are flattened
    assert group([first, (second,)], {"x": first}).entries == first.entries + second.entries + first.entries


def test_group_skips_noops_variables_tensors_and_none():
    a = _param(1.0)
    op = TrainOp([(RecordingSGD(), a.sum(), None)])
    var = tf.Variable(3.0)
    grouped = group(NoOp(), var.assign_add(1.0), torch.tensor(1.0), None, np.zeros(2), op)
    assert type(grouped) is TrainOp and grouped.entries == op.entries


def test_group_of_nothing_to_run_is_a_noop():
    var = tf.Variable(0.0)
    for ops in [(), (NoOp(),), (NoOp(), NoOp()), (var.assign(1.0), None), (var,)]:
        result = group(*ops)
        assert isinstance(result, NoOp) and result.entries == []


def test_group_rejects_other_objects():
    with pytest.raises(TypeError, match="tf.group"):
        group(object())
    with pytest.raises(TypeError, match="tf.group"):
        group("train")


def test_each_loss_reaches_only_its_own_variables_and_no_gradient_goes_stale():
    """A GAN-style pair of train ops: the generator loss also depends on the discriminator's
    weights, but as in TF only d(g_loss)/d(g) and d(d_loss)/d(d) are applied, and nothing is
    left accumulating in `.grad` of the other side's weights."""
    torch.manual_seed(0)
    g = torch.nn.Parameter(torch.tensor([1.0]))
    d = torch.nn.Parameter(torch.tensor([2.0]))
    opt_g = torch.optim.SGD([g], lr=0.1)
    opt_d = torch.optim.SGD([d], lr=0.1)

    class Step:
        def __init__(self, optimizer):
            self.optimizer = optimizer

        def build(self, var_list):
            pass

        def step(self):
            self.optimizer.step()

    for _ in range(3):
        g0, d0 = float(g), float(d)
        g_loss = (g * d) ** 2  # depends on both
        d_loss = (d - g) ** 2  # depends on both
        TrainOp([(Step(opt_g), g_loss, [g]), (Step(opt_d), d_loss, [d])]).run()
        # SGD steps with the gradient of each loss with respect to its own variable only
        assert float(g) == pytest.approx(g0 - 0.1 * 2 * g0 * d0 * d0)
        assert float(d) == pytest.approx(d0 - 0.1 * 2 * (d0 - g0))
        assert g.grad is None and d.grad is None


def test_a_var_list_leaves_other_leaves_without_gradients():
    a = torch.nn.Parameter(torch.tensor([1.0]))
    b = torch.nn.Parameter(torch.tensor([1.0]))

    class Step:
        def build(self, var_list):
            pass

        def step(self):
            pass

    for _ in range(2):
        TrainOp([(Step(), (a * b).sum(), [a])]).run()
        assert b.grad is None  # never accumulated, so it cannot go stale


# ------------------------------------------------------------------------------ plain backward
def test_a_var_list_holding_every_leaf_takes_a_plain_backward_with_the_same_result():
    a, b = _param(1.0), _param(2.0)
    cache: dict = {}
    opt = RecordingSGD()
    variables = [a, b]
    for _ in range(2):
        TrainOp([(opt, (a * b).sum(), variables)]).run(cache)
    assert cache["every_leaf"][1] is True
    # step 1: a=1-2=-1, b=2-1=1; step 2: a=-1-1=-2, b=1-(-1)=2
    assert (a.item(), b.item()) == (-2.0, 2.0)
    assert a.grad is None and b.grad is None  # cleared after each step


def test_a_partial_var_list_keeps_backward_to_its_variables_only():
    a, b = _param(1.0), _param(2.0)
    cache: dict = {}
    for _ in range(3):
        TrainOp([(RecordingSGD(), (a * b).sum(), [a])]).run(cache)
    assert cache["every_leaf"][1] is False
    assert b.grad is None  # never accumulated: no gradient goes stale on b
    assert b.item() == 2.0


def test_the_every_leaf_verdict_follows_the_variables_not_the_list_object():
    a, b = _param(1.0), _param(2.0)
    cache: dict = {}
    TrainOp([(RecordingSGD(), (a * b).sum(), [a, b])]).run(cache)
    assert cache["every_leaf"][1] is True
    TrainOp([(RecordingSGD(), (a * b).sum(), [a, b])]).run(cache)  # a new, equal list: remembered
    assert cache["every_leaf"][1] is True
    TrainOp([(RecordingSGD(), (a * b).sum(), [a])]).run(cache)  # other variables: walked again
    assert cache["every_leaf"][1] is False and b.grad is None


# --- the run's GradientSync, passed explicitly ---------------------------------------------------

def test_run_passes_its_sync_to_a_keras_optimizer_update():
    from torchestimator._engine.gradient_sync import GradientSync

    w = _param(1.0, 2.0)
    opt = tf.keras.optimizers.SGD(learning_rate=1.0)
    seen = []

    def reduce(grads, variables):
        seen.append(variables)
        return [g / 2 for g in grads]

    TrainOp([(opt, (w * w).sum(), [w])]).run({}, GradientSync(reduce=reduce))
    np.testing.assert_allclose(w.detach().numpy(), [0.0, 0.0])  # w - (2w / 2)
    assert len(seen) == 1 and seen[0][0] is w
    assert w.grad is None


def test_an_explicit_sync_wins_over_the_current_one():
    from torchestimator._engine import gradient_sync
    from torchestimator._engine.gradient_sync import NONE, GradientSync

    doubling = GradientSync(reduce=lambda grads, variables: [g * 2 for g in grads])
    w = _param(1.0)
    opt = tf.keras.optimizers.SGD(learning_rate=1.0)
    with gradient_sync.using(doubling):
        TrainOp([(opt, w.sum(), [w])]).run({}, NONE)  # explicit: no reduction
        np.testing.assert_allclose(w.detach().numpy(), [0.0])
        TrainOp([(opt, w.sum(), [w])]).run({})  # None: the current one
        np.testing.assert_allclose(w.detach().numpy(), [-2.0])


def test_run_passes_its_sync_to_an_optimizer_without_synced_step_through_the_context():
    from torchestimator._engine import gradient_sync
    from torchestimator._engine.gradient_sync import GradientSync

    sync = GradientSync(reduce=lambda grads, variables: grads)
    currents = []

    class Recording(RecordingSGD):
        def step(self):
            currents.append(gradient_sync.current())
            super().step()

    opt = Recording()
    w = _param(1.0)
    TrainOp([(opt, w.sum(), [w])]).run({}, sync)
    assert currents == [sync]
    assert gradient_sync.current() is gradient_sync.NONE


def test_a_keras_optimizer_subclass_with_its_own_step_still_runs_it():
    from torchestimator._engine import gradient_sync
    from torchestimator._engine.gradient_sync import GradientSync

    class Counting(tf.keras.optimizers.SGD):
        steps = 0

        def step(self):
            Counting.steps += 1
            super().step()

    sync = GradientSync(reduce=lambda grads, variables: [g * 3 for g in grads])
    w = _param(1.0)
    opt = Counting(learning_rate=1.0)
    TrainOp([(opt, w.sum(), [w])]).run({}, sync)
    assert Counting.steps == 1
    np.testing.assert_allclose(w.detach().numpy(), [-2.0])  # reduced through the context
    assert gradient_sync.current() is gradient_sync.NONE


def test_shards_of_stand_for_the_variables_and_backward_reaches_every_leaf():
    from torchestimator._engine.gradient_sync import GradientSync

    full, shard = _param(1.0), _param(5.0)
    opt = RecordingSGD()
    sync = GradientSync(shards_of=lambda variables: [shard if v is full else v for v in variables])
    TrainOp([(opt, (full * shard).sum(), [full])]).run({}, sync)
    assert opt.vars == [shard]  # the optimizer updates the shard
    np.testing.assert_allclose(shard.detach().numpy(), [4.0])  # 5 - d(full*shard)/d(shard) = 5 - 1
    assert shard.grad is None
    np.testing.assert_allclose(full.grad.numpy(), [5.0])  # a plain backward: every leaf
