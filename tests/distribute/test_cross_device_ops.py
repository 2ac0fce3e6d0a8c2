"""tf.distribute.CrossDeviceOps (ReductionToOneDevice, NcclAllReduce, HierarchicalCopyAllReduce)
on 2 real processes (gloo on loopback), DistributedValues / RunOptions / DistributedIterator,
experimental_set_strategy, and the refused Server / coordinator / remote-eager names."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from _distlib import check_ok, free_port, launch, torchrun_envs

import torchestimator as tf
from torchestimator.compat.v1._refusals import GraphMachineryError

WORKER = Path(__file__).parent / "_cross_device_worker.py"


def test_reduce_batch_reduce_and_broadcast_over_two_processes(tmp_path):
    import json

    check_ok(launch([str(tmp_path)], torchrun_envs(2, free_port()), script=WORKER))
    r0, r1 = (json.loads((tmp_path / f"rank{r}.json").read_text()) for r in (0, 1))
    assert r0["replicas"] == 2
    for name in ("one_device", "nccl", "hierarchical"):
        for r in (r0, r1):
            assert r[f"{name}_sum"] == [3.0, 6.0]  # [1, 2] + [2, 4]
            assert r[f"{name}_mean"] == [1.5, 3.0]
            assert r[f"{name}_local_sum"] == [33.0, 66.0]  # (v + 10 v) summed over both processes
            assert r[f"{name}_local_mean"] == [8.25, 16.5]  # over the 4 replicas
            assert r[f"{name}_batch"] == [[3.0, 6.0], 1]
            assert r[f"{name}_broadcast"] == [1.0, 2.0]  # the chief's value everywhere
    assert r0["accumulation_fn"] == r1["accumulation_fn"] == [200.0, 200.0]


def test_single_process_reduce_and_validation():
    ops = tf.distribute.NcclAllReduce()
    assert ops.reduce("SUM", tf.constant([1.0, 2.0]), "/cpu:0").tolist() == [1.0, 2.0]
    values = tf.distribute.DistributedValues([tf.constant(1.0), tf.constant(3.0)])
    assert ops.reduce("MEAN", values, None).item() == 2.0
    assert isinstance(tf.distribute.CrossDeviceOps(), tf.distribute.CrossDeviceOps)
    with pytest.raises(ValueError, match="num_packs >= 0"):
        tf.distribute.HierarchicalCopyAllReduce(num_packs=-1)
    with pytest.raises(ValueError, match="reduce_op"):
        ops.reduce("MAX", values, None)
    strategy = tf.distribute.MirroredStrategy(cross_device_ops=tf.distribute.HierarchicalCopyAllReduce())
    assert strategy.num_replicas_in_sync == 1


def test_values_options_and_iterator():
    values = tf.distribute.DistributedValues([tf.constant(1), tf.constant(2)])
    assert [v.item() for v in values.values] == [1, 2]
    options = tf.distribute.RunOptions()
    assert options.experimental_enable_dynamic_batch_size and not options.experimental_bucketizing_dynamic_shape
    assert tf.distribute.RunOptions(experimental_xla_options="x").experimental_xla_options == "x"
    dataset = tf.distribute.OneDeviceStrategy("/cpu:0").experimental_distribute_dataset(
        tf.data.Dataset.range(3).batch(2))
    iterator = tf.distribute.DistributedIterator(dataset)
    assert iterator.get_next().tolist() == [0, 1]
    assert bool(iterator.get_next_as_optional().has_value())
    assert not bool(iterator.get_next_as_optional().has_value())
    with pytest.raises(tf.errors.OutOfRangeError):
        iterator.get_next()


def test_experimental_set_strategy():
    strategy = tf.distribute.OneDeviceStrategy("/cpu:0")
    tf.distribute.experimental_set_strategy(strategy)
    try:
        assert tf.distribute.get_strategy() is strategy and tf.distribute.has_strategy()
        tf.distribute.experimental_set_strategy(strategy)  # setting again is allowed
        with pytest.raises(RuntimeError, match="Must not be called inside a `tf.distribute.Strategy` scope"):
            with strategy.scope():
                tf.distribute.experimental_set_strategy(None)
    finally:
        tf.distribute.experimental_set_strategy(None)
    assert not tf.distribute.has_strategy()


def test_parameter_server_strategy_is_tf2s_and_the_rest_is_refused():
    assert tf.distribute.ParameterServerStrategy is tf.distribute.experimental.ParameterServerStrategy
    with pytest.raises(GraphMachineryError, match="torchestimator launch"):
        tf.distribute.Server({"worker": ["localhost:2222"]}, job_name="worker", task_index=0)
    with pytest.raises(GraphMachineryError, match="MultiWorkerMirroredStrategy"):
        tf.distribute.coordinator.ClusterCoordinator(strategy=None)
    with pytest.raises(GraphMachineryError, match="remote eager"):
        tf.config.experimental_connect_to_cluster(None)
    assert torch is not None
