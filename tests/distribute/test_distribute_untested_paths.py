"""`tf.distribute` paths no default-run test reached in this process (the multi-process ones run
in workers): the replica and cross-replica contexts, `strategy.extended`, `Strategy.gather`,
`experimental_distribute_values_from_function`, the distributed datasets' `cardinality` /
`element_spec`, `InputOptions`, `CrossDeviceOps.batch_reduce` / `broadcast` with one replica,
and the cluster resolvers' properties, each as TF 2.15 documents them."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator.distribute._distributed_values import DistributedIterator, PerReplica


@pytest.fixture(autouse=True)
def _no_cluster_env(monkeypatch):
    for name in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT", "TF_CONFIG"):
        monkeypatch.delenv(name, raising=False)


def test_replica_context_strategy_all_gather_and_merge_call() -> None:
    strategy = tf.distribute.MirroredStrategy()
    seen = {}

    def step(x):
        ctx = tf.distribute.get_replica_context()
        seen["strategy"] = ctx.strategy
        seen["cross"] = tf.distribute.get_cross_replica_context()
        gathered = ctx.all_gather(x, axis=0)
        merged = ctx.merge_call(lambda s, a, b=0: (s, a + b), args=(2,), kwargs={"b": 3})
        return gathered, merged

    with strategy.scope():
        gathered, (merge_strategy, total) = strategy.run(step, args=(tf.constant([[1.0, 2.0]]),))
    assert seen["strategy"] is strategy and merge_strategy is strategy and total == 5
    assert seen["cross"] is None  # inside `run`: a replica context, no cross-replica one
    np.testing.assert_array_equal(np.asarray(gathered), [[1.0, 2.0]])


def test_get_cross_replica_context() -> None:
    strategy = tf.distribute.MirroredStrategy()
    with strategy.scope():
        assert tf.distribute.get_cross_replica_context() is strategy
    # Outside every scope: the default strategy (TF's), which is what get_strategy gives.
    outside = tf.distribute.get_cross_replica_context()
    assert outside is tf.distribute.get_strategy() and outside is not strategy


def test_extended_parameter_devices_and_should_save_summary() -> None:
    strategy = tf.distribute.MirroredStrategy()
    extended = strategy.extended
    assert extended.parameter_devices == extended.worker_devices
    assert len(extended.parameter_devices) == 1
    assert extended.should_save_summary is True and extended.should_checkpoint is True


def test_gather_and_values_from_function_single_replica() -> None:
    strategy = tf.distribute.MirroredStrategy()
    value = tf.constant([[1, 2], [3, 4]])
    np.testing.assert_array_equal(np.asarray(strategy.gather(value, axis=0)), [[1, 2], [3, 4]])
    np.testing.assert_array_equal(np.asarray(strategy.gather(value, axis=1)), [[1, 2], [3, 4]])
    got = strategy.experimental_distribute_values_from_function(
        lambda ctx: (ctx.replica_id_in_sync_group, ctx.num_replicas_in_sync))
    assert got == (0, 1)


def test_distributed_values_len_and_iter() -> None:
    values = PerReplica([tf.constant(1), tf.constant(2)])
    assert len(values) == 2
    assert [int(v) for v in values] == [1, 2]


def test_distributed_datasets_cardinality_element_spec_and_iterator() -> None:
    strategy = tf.distribute.MirroredStrategy()
    dataset = tf.data.Dataset.from_tensor_slices(np.arange(10, dtype=np.int64)).batch(4)
    distributed = strategy.experimental_distribute_dataset(dataset)
    assert int(distributed.cardinality()) == 3

    def dataset_fn(context):
        return tf.data.Dataset.from_tensor_slices(np.arange(6, dtype=np.float32)).batch(
            context.get_per_replica_batch_size(2))

    from_fn = strategy.distribute_datasets_from_function(dataset_fn)
    assert int(from_fn.cardinality()) == 3
    spec = from_fn.element_spec
    assert spec.dtype == tf.float32 and list(spec.shape) == [None]
    it = DistributedIterator(distributed)
    assert iter(it) is it
    assert [b.tolist() for b in it] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]


def test_input_options_keeps_tf_defaults_and_values() -> None:
    options = tf.distribute.InputOptions()
    assert options.experimental_fetch_to_device is None
    assert options.experimental_replication_mode == tf.distribute.InputReplicationMode.PER_WORKER
    assert options.experimental_place_dataset_on_device is False
    assert options.experimental_per_replica_buffer_size == 1
    options = tf.distribute.InputOptions(experimental_fetch_to_device=False,
                                         experimental_per_replica_buffer_size=3)
    assert options.experimental_fetch_to_device is False
    assert options.experimental_per_replica_buffer_size == 3
    strategy = tf.distribute.MirroredStrategy()
    dataset = tf.data.Dataset.from_tensor_slices(np.arange(4)).batch(2)
    assert [b.tolist() for b in strategy.experimental_distribute_dataset(dataset, options)] == [
        [0, 1], [2, 3]]


@pytest.mark.parametrize("make", [tf.distribute.ReductionToOneDevice,
                                  lambda: tf.distribute.ReductionToOneDevice(reduce_to_device="/cpu:0"),
                                  tf.distribute.HierarchicalCopyAllReduce])
def test_cross_device_ops_batch_reduce_and_broadcast_single_replica(make) -> None:
    ops = make()
    a, b = tf.constant([1.0, 2.0]), tf.constant([[3, 4]])
    summed = ops.batch_reduce(tf.distribute.ReduceOp.SUM, [(a, "/cpu:0"), (b, "/cpu:0")])
    assert [t.tolist() for t in summed] == [[1.0, 2.0], [[3, 4]]]
    mean = ops.batch_reduce("MEAN", [(a, "/cpu:0")])
    assert mean[0].tolist() == [1.0, 2.0]
    with pytest.raises(ValueError, match="value_destination_pairs must be a list of"):
        ops.batch_reduce("SUM", [a])
    mirrored = ops.broadcast(tf.constant([5.0, 6.0]), "/cpu:0")
    assert len(mirrored.values) == 1 and mirrored.values[0].tolist() == [5.0, 6.0]


def test_reduction_to_one_device_keeps_its_arguments_and_accumulation_fn() -> None:
    calls = []

    def add_n(values):
        calls.append(len(values))
        return torch.stack(list(values)).sum(0)

    ops = tf.distribute.ReductionToOneDevice(reduce_to_device="/cpu:0", accumulation_fn=add_n)
    assert ops.reduce_to_device == "/cpu:0" and ops.accumulation_fn is add_n
    out = ops.batch_reduce("SUM", [(PerReplica([tf.constant(1.0), tf.constant(2.0)]), "/cpu:0")])
    assert calls == [2] and float(out[0]) == 3.0


def test_cluster_resolver_base_and_tf_config_properties(monkeypatch) -> None:
    monkeypatch.setenv("TF_CONFIG", json.dumps({
        "cluster": {"worker": ["h0:1", "h1:1"]}, "task": {"type": "worker", "index": 1},
        "rpc_layer": "grpc", "environment": "cloud"}))
    resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
    assert resolver.task_type == "worker" and resolver.task_id == 1
    assert resolver.rpc_layer == "grpc"
    assert resolver.environment is None  # TF's: the constructor's argument only
    assert resolver.cluster_spec().as_dict() == {"worker": ["h0:1", "h1:1"]}
    assert resolver.num_accelerators() == ({"GPU": torch.cuda.device_count()}
                                           if torch.cuda.is_available() else {})
    given = tf.distribute.cluster_resolver.TFConfigClusterResolver(
        task_type="chief", task_id=0, rpc_layer="grpc+x", environment="google")
    assert (given.task_type, given.task_id, given.rpc_layer, given.environment) == (
        "chief", 0, "grpc+x", "google")
    given.task_type, given.task_id, given.rpc_layer = "worker", 0, None
    assert (given.task_type, given.task_id, given.rpc_layer) == ("worker", 0, "grpc")
    monkeypatch.setenv("TF_CONFIG", json.dumps({"task": {"type": "worker", "index": "x"}}))
    with pytest.raises(ValueError, match=r'TF_CONFIG\["task"\]\["index"\] must be an integer'):
        _ = tf.distribute.cluster_resolver.TFConfigClusterResolver().task_id


def test_cluster_resolver_base_class_cluster_spec_is_abstract() -> None:
    with pytest.raises(NotImplementedError):
        tf.distribute.cluster_resolver.ClusterResolver().cluster_spec()


def test_simple_cluster_resolver_num_accelerators() -> None:
    spec = tf.train.ClusterSpec({"worker": ["h0:1"]})
    resolver = tf.distribute.cluster_resolver.SimpleClusterResolver(
        spec, num_accelerators={"GPU": 4})
    assert resolver.num_accelerators() == {"GPU": 4}
    # TF's: {} when none were given, whatever the machine has.
    assert tf.distribute.cluster_resolver.SimpleClusterResolver(spec).num_accelerators() == {}
