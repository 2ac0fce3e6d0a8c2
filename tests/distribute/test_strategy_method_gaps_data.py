"""The TF 2.15 methods `tf.distribute`'s classes lacked (tests/test_class_methods_parity.py):
`StrategyExtended.reduce_to`, `batch_reduce_to`, `update`, `value_container`,
`variable_created_in_scope`; `DistributedDataset.reduce`; and TF's experimental
`MultiWorkerMirroredStrategy(communication, cluster_resolver)`. One process is one replica here,
as TF's strategies on one device: expected values are TF 2.15.1's with
`MirroredStrategy(['/cpu:0'])`, `OneDeviceStrategy('/cpu:0')` and the default strategy."""

from __future__ import annotations

import logging
import threading

import pytest
import torch

import torchestimator as tf
from torchestimator.distribute import _strategies_experimental
from torchestimator.distribute._distributed_values import Mirrored


@pytest.fixture(autouse=True)
def _no_cluster_env(monkeypatch):
    for name in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT", "TF_CONFIG"):
        monkeypatch.delenv(name, raising=False)


def _strategies():
    return [tf.distribute.get_strategy(), tf.distribute.OneDeviceStrategy("/cpu:0"),
            tf.distribute.MirroredStrategy(["/cpu:0"])]


# ------------------------------------------------------------------ StrategyExtended
@pytest.mark.parametrize("index", range(3))
def test_reduce_to_and_batch_reduce_to_as_tf(index) -> None:
    extended = _strategies()[index].extended
    v = tf.Variable(2.0)
    for op in (tf.distribute.ReduceOp.SUM, "mean", "MEAN"):  # one replica: the value unchanged
        assert extended.reduce_to(op, tf.constant([1.0, 2.0]), "/cpu:0").tolist() == [1.0, 2.0]
    ints = extended.reduce_to("MEAN", tf.constant([1, 2]), v)
    assert ints.dtype == torch.int32 and ints.tolist() == [1, 2]  # TF: stays int32
    assert extended.reduce_to("SUM", Mirrored(tf.constant(3.0)), v).item() == 3.0
    with pytest.raises(AssertionError):  # TF: one destination, not a list
        extended.reduce_to("SUM", tf.constant([1, 2]), ["/cpu:0"])
    with pytest.raises(ValueError, match="'MAX' is not a valid ReduceOp"):
        extended.reduce_to("MAX", tf.constant([1, 2]), "/cpu:0")
    one, two = extended.batch_reduce_to("SUM", [(tf.constant(1.0), v), (tf.constant([3, 4]), "/cpu:0")])
    assert one.item() == 1.0 and two.tolist() == [3, 4] and two.dtype == torch.int32


@pytest.mark.parametrize("index", range(3))
def test_update_as_tf(index) -> None:
    strategy = _strategies()[index]
    extended = strategy.extended
    with strategy.scope():
        v = tf.Variable(2.0)
    extended.update(v, lambda var, x: var.assign_add(x), args=(3.0,))
    assert float(v) == 5.0
    extended.update(v, lambda var, x: var.assign_add(x), kwargs={"x": 1.0})
    assert float(v) == 6.0
    extended.update(v, lambda var, x: var.assign_add(x), args=(Mirrored(tf.constant(1.0)),))
    assert float(v) == 7.0  # a mirrored argument gives this replica's value
    ungrouped = extended.update(v, lambda var: (var.assign_add(1.0), 7), group=False)
    assert len(ungrouped) == 2 and ungrouped[0][0] is v and ungrouped[1] == (7,)  # TF: ((v,), (7,))
    grouped = extended.update(v, lambda var: (var.read_value(), 7))
    assert float(grouped[0].detach()) == 8.0 and grouped[1] == 7  # TF: (8.0, 7)


@pytest.mark.parametrize("index", range(3))
def test_cross_replica_methods_in_run_as_tf(index) -> None:
    strategy = _strategies()[index]
    extended = strategy.extended
    with strategy.scope():
        v = tf.Variable(7.0)
    results = {}

    def step():
        with pytest.raises(RuntimeError, match="Method requires being in cross-replica context, use "
                                               r"get_replica_context\(\).merge_call\(\)"):
            extended.reduce_to("SUM", tf.constant(1.0), "/cpu:0")
        extended.update(v, lambda var: var.assign_add(10.0))  # TF: allowed, through merge_call

        def merge_fn(s, value):
            results["cross"] = tf.distribute.in_cross_replica_context()
            return s.extended.reduce_to("SUM", value, v)

        return tf.distribute.get_replica_context().merge_call(merge_fn, args=(tf.constant(2.0),))

    assert strategy.run(step).item() == 2.0
    assert float(v) == 17.0
    assert results["cross"] is True  # merge_fn runs in the cross-replica context


def test_value_container_and_variable_created_in_scope_as_tf() -> None:
    default, one_device, mirrored = _strategies()
    outside = tf.Variable(1.0)
    with one_device.scope():
        inside = tf.Variable(2.0)
    for strategy in (default, one_device, mirrored):
        assert strategy.extended.value_container(inside) is inside
        value = tf.constant(1.0)
        assert strategy.extended.value_container(value) is value
    # TF: the default strategy owns the variables made outside every scope
    assert default.extended.variable_created_in_scope(outside)
    assert one_device.extended.variable_created_in_scope(inside)
    assert not one_device.extended.variable_created_in_scope(outside)
    assert not mirrored.extended.variable_created_in_scope(inside)
    assert not default.extended.variable_created_in_scope(inside)


def test_variable_creator_scopes_inside_a_strategy_scope_still_run() -> None:
    strategy = tf.distribute.MirroredStrategy(["/cpu:0"])
    seen = []

    def creator(next_creator, **kwargs):
        seen.append(kwargs["name"])
        return next_creator(**kwargs)

    with strategy.scope(), tf.variable_creator_scope(creator):
        v = tf.Variable(1.0, name="mine")
    assert seen == ["mine"] and strategy.extended.variable_created_in_scope(v)


def test_variables_made_in_another_thread_are_not_in_this_scope() -> None:
    strategy = tf.distribute.MirroredStrategy(["/cpu:0"])
    made = []
    with strategy.scope():
        thread = threading.Thread(target=lambda: made.append(tf.Variable(1.0)))
        thread.start()
        thread.join()
    assert not strategy.extended.variable_created_in_scope(made[0])


# ------------------------------------------------------------------ DistributedDataset.reduce
def test_distributed_dataset_reduce_as_tf() -> None:
    strategy = tf.distribute.MirroredStrategy(["/cpu:0"])
    dist = strategy.experimental_distribute_dataset(tf.data.Dataset.range(10).batch(4))
    assert dist.reduce(tf.constant(0, tf.int64), lambda s, x: s + tf.reduce_sum(x)).item() == 45
    total, count = dist.reduce((tf.constant(0, tf.int64), tf.constant(0)),
                               lambda s, x: (s[0] + tf.reduce_sum(x), s[1] + 1))
    assert (total.item(), count.item()) == (45, 3)
    counted = dist.reduce(0, lambda s, x: s + 1)  # TF: the Python 0 becomes an int32 tensor
    assert isinstance(counted, torch.Tensor) and counted.dtype == torch.int32 and counted.item() == 3
    from_fn = strategy.distribute_datasets_from_function(lambda ctx: tf.data.Dataset.range(6).batch(2))
    assert from_fn.reduce(tf.constant(0, tf.int64), lambda s, x: s + tf.reduce_sum(x)).item() == 15
    empty = strategy.experimental_distribute_dataset(tf.data.Dataset.range(0).batch(2))
    assert empty.reduce(tf.constant(5, tf.int64), lambda s, x: s + 1).item() == 5
    with pytest.raises(TypeError, match="structure and dtypes of initial_state"):
        dist.reduce(tf.constant(0, tf.int64), lambda s, x: s + 0.5)  # TF: the loop's dtype changes


# ------------------------------------------------------------------ experimental MWMS
def test_experimental_multi_worker_mirrored_strategy_takes_tfs_arguments(monkeypatch, caplog) -> None:
    monkeypatch.setattr(_strategies_experimental, "_warned", threading.Event())
    experimental = tf.distribute.experimental.MultiWorkerMirroredStrategy
    assert experimental is not tf.distribute.MultiWorkerMirroredStrategy
    with caplog.at_level(logging.WARNING, logger="torchestimator"):
        strategy = experimental()
        experimental()
    notices = [r for r in caplog.records if "is deprecated" in r.getMessage()]
    assert len(notices) == 1  # TF's deprecation notice, once
    assert "use distribute.MultiWorkerMirroredStrategy instead" in notices[0].getMessage()
    assert isinstance(strategy, tf.distribute.MultiWorkerMirroredStrategy)
    assert strategy._communication_options.implementation is \
        tf.distribute.experimental.CommunicationImplementation.AUTO
    ring = experimental(tf.distribute.experimental.CommunicationImplementation.RING)  # positional: communication
    assert ring._communication_options.implementation.name == "RING"
    resolver = tf.distribute.cluster_resolver.SimpleClusterResolver(
        tf.train.ClusterSpec({"worker": ["localhost:2222"]}), task_type="worker", task_id=0)
    both = experimental("NCCL", resolver)
    assert both.cluster_resolver is resolver and both._communication_options.implementation.name == "NCCL"
    assert experimental(cluster_resolver=resolver, communication="RING").cluster_resolver is resolver
    with pytest.raises(ValueError, match="implementation must be"):
        experimental(communication="BAD")
    # TF: the stable strategy is an instance of the experimental class too
    assert isinstance(tf.distribute.MultiWorkerMirroredStrategy(), experimental)
    assert not isinstance(tf.distribute.OneDeviceStrategy("/cpu:0"), experimental)
