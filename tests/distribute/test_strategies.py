"""tf.distribute in one process: strategies, scope, InputContext, ReduceOp, datasets, cluster
resolution from torchrun's variables and TF_CONFIG, and their errors."""

from __future__ import annotations

import importlib
import json
import time
import warnings

import numpy as np
import pytest
import torch
from _distlib import free_port

import torchestimator as tf
from torchestimator.distribute._cluster import (
    RendezvousError,
    current_position,
    position_from_tf_config,
)
from torchestimator.distribute._distributed_dataset import replica_slice, split_batch

CLUSTER = {"chief": ["host0:2222"], "worker": ["host1:2222", "host2:2222"], "ps": ["host3:2222"]}


@pytest.fixture(autouse=True)
def _no_cluster_env(monkeypatch):
    for name in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT", "TF_CONFIG"):
        monkeypatch.delenv(name, raising=False)


def _tf_config(monkeypatch, task_type, index, cluster=CLUSTER):
    monkeypatch.setenv("TF_CONFIG", json.dumps({"cluster": cluster, "task": {"type": task_type, "index": index}}))


# -- strategies in one process -----------------------------------------------------------------


@pytest.mark.parametrize("make", [
    lambda: tf.distribute.MirroredStrategy(),
    lambda: tf.distribute.MultiWorkerMirroredStrategy(),
    lambda: tf.distribute.OneDeviceStrategy("/cpu:0"),
    lambda: tf.distribute.experimental.CentralStorageStrategy(),
])
def test_single_process_strategies_have_one_replica(make):
    strategy = make()
    assert strategy.num_replicas_in_sync == 1
    assert strategy.extended.should_checkpoint
    assert strategy.run(lambda a, b: a + b, args=(1,), kwargs={"b": 2}) == 3
    assert float(strategy.reduce(tf.distribute.ReduceOp.SUM, torch.tensor(2.0), axis=None)) == 2.0
    assert float(strategy.reduce("mean", torch.tensor([1.0, 3.0]), axis=0)) == 2.0
    assert strategy.experimental_local_results(5) == (5,)


def test_scope_get_strategy_has_strategy_and_replica_context():
    strategy = tf.distribute.MirroredStrategy()
    assert not tf.distribute.has_strategy()
    default = tf.distribute.get_strategy()
    assert default.num_replicas_in_sync == 1 and tf.distribute.get_replica_context() is not None
    with strategy.scope():
        assert tf.distribute.get_strategy() is strategy and tf.distribute.has_strategy()
        assert tf.distribute.in_cross_replica_context()
        assert tf.distribute.get_replica_context() is None

        def fn():
            context = tf.distribute.get_replica_context()
            return context.replica_id_in_sync_group, context.num_replicas_in_sync, \
                float(context.all_reduce("sum", 3.0))

        assert strategy.run(fn) == (0, 1, 3.0)
        with pytest.raises(ValueError, match="Mixing different tf.distribute.Strategy"):
            with tf.distribute.OneDeviceStrategy("/cpu:0").scope():
                pass
    assert not tf.distribute.has_strategy()


def test_reduce_mean_with_axis_and_errors():
    strategy = tf.distribute.MirroredStrategy()
    value = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_allclose(strategy.reduce(tf.distribute.ReduceOp.MEAN, value, axis=0).numpy(), [2.0, 3.0])
    np.testing.assert_allclose(strategy.reduce(tf.distribute.ReduceOp.SUM, value, axis=1).numpy(), [3.0, 7.0])
    with pytest.raises(ValueError, match="reduce_op must be"):
        strategy.reduce("max", value, axis=None)
    assert tf.distribute.ReduceOp.from_variable_aggregation("sum") is tf.distribute.ReduceOp.SUM


def test_one_device_strategy_device_names():
    assert str(tf.distribute.OneDeviceStrategy("/cpu:0").extended.worker_devices[0]) == "cpu"
    with pytest.raises(ValueError, match="Unknown device"):
        tf.distribute.OneDeviceStrategy("/tpu-ish:x:y")


def test_tpu_strategy_is_a_clear_error():
    with pytest.raises(NotImplementedError, match="TPUStrategy is not supported.*MirroredStrategy"):
        tf.distribute.TPUStrategy()


# -- InputContext and datasets -----------------------------------------------------------------


def test_input_context():
    context = tf.distribute.InputContext(num_input_pipelines=2, input_pipeline_id=1, num_replicas_in_sync=4)
    assert (context.num_input_pipelines, context.input_pipeline_id, context.num_replicas_in_sync) == (2, 1, 4)
    assert context.get_per_replica_batch_size(64) == 16
    with pytest.raises(ValueError, match="not divisible by `num_replicas_in_sync` 4"):
        context.get_per_replica_batch_size(10)
    with pytest.raises(ValueError, match="input_pipeline_id must be < num_input_pipelines"):
        tf.distribute.InputContext(2, 2, 2)
    with pytest.raises(ValueError, match="num_replicas_in_sync must be an integer >= 1"):
        tf.distribute.InputContext(1, 0, 0)


def test_replica_slices_cover_the_global_batch():
    for rows in (0, 1, 7, 8, 9):
        for world in (1, 2, 3):
            parts = [replica_slice(rows, r, world) for r in range(world)]
            assert [i for p in parts for i in range(rows)[p]] == list(range(rows))
    batch = ({"x": np.arange(10).reshape(5, 2)}, torch.arange(5), 3.0)
    features, labels, scalar = split_batch(batch, 1, 2)
    np.testing.assert_array_equal(features["x"], [[6, 7], [8, 9]])
    assert labels.tolist() == [3, 4] and scalar == 3.0


def test_experimental_distribute_dataset_and_from_function_single_replica():
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    dataset = tf.data.Dataset.from_tensor_slices(np.arange(10)).batch(4)
    distributed = strategy.experimental_distribute_dataset(dataset)
    assert [b.tolist() for b in distributed] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    seen = []

    def dataset_fn(context):
        seen.append(context)
        batch = context.get_per_replica_batch_size(4)
        return tf.data.Dataset.from_tensor_slices(np.arange(8)).shard(
            context.num_input_pipelines, context.input_pipeline_id).batch(batch)

    from_fn = strategy.distribute_datasets_from_function(dataset_fn)
    assert [b.tolist() for b in from_fn] == [[0, 1, 2, 3], [4, 5, 6, 7]]
    assert seen[0].num_replicas_in_sync == 1 and seen[0].input_pipeline_id == 0
    with pytest.raises(TypeError, match="expects a tf.data.Dataset"):
        strategy.experimental_distribute_dataset(None)


# -- communication options -------------------------------------------------------------------------


def test_communication_options():
    options = tf.distribute.experimental.CommunicationOptions(
        implementation=tf.distribute.experimental.CommunicationImplementation.RING, timeout_seconds=30)
    assert options.implementation.name == "RING" and options.timeout_seconds == 30
    assert tf.distribute.experimental.CommunicationOptions(implementation="nccl").implementation.name == "NCCL"
    with pytest.raises(ValueError, match="implementation must be"):
        tf.distribute.experimental.CommunicationOptions(implementation="carrier-pigeon")
    with pytest.raises(ValueError, match="timeout_seconds must be > 0"):
        tf.distribute.experimental.CommunicationOptions(timeout_seconds=0)
    with pytest.raises(TypeError, match="communication_options must be"):
        tf.distribute.MultiWorkerMirroredStrategy(communication_options="RING")


# -- cluster resolution ------------------------------------------------------------------------


def test_tf_config_cluster_resolver(monkeypatch):
    _tf_config(monkeypatch, "worker", 1)
    resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
    assert resolver.cluster_spec().as_dict() == CLUSTER
    assert (resolver.task_type, resolver.task_id) == ("worker", 1)
    assert resolver.master() == "host2:2222"
    assert resolver.master("chief", 0, rpc_layer="grpc") == "grpc://host0:2222"
    override = tf.distribute.cluster_resolver.TFConfigClusterResolver(task_type="chief", task_id=0)
    assert override.master() == "host0:2222"
    simple = tf.distribute.cluster_resolver.SimpleClusterResolver(
        tf.train.ClusterSpec({"worker": ["a:1", "b:2"]}), task_type="worker", task_id=1)
    assert simple.master() == "b:2" and simple._position().rank == 1


def test_ranks_from_tf_config(monkeypatch):
    _tf_config(monkeypatch, "chief", 0)
    chief = current_position()
    assert (chief.rank, chief.world_size, chief.address, chief.source) == (0, 3, "host0:2222", "TF_CONFIG")
    _tf_config(monkeypatch, "worker", 1)
    assert current_position().rank == 2  # chief 0, worker 0 -> 1, worker 1 -> 2
    no_chief = {"worker": ["w0:1", "w1:2"]}
    _tf_config(monkeypatch, "worker", 1, no_chief)
    position = current_position()
    assert (position.rank, position.address) == (1, "w0:1")  # worker 0 is the chief
    _tf_config(monkeypatch, "evaluator", 0)
    assert current_position().task_type == "evaluator"


def test_ranks_from_torchrun_variables_take_precedence(monkeypatch):
    _tf_config(monkeypatch, "worker", 1)
    monkeypatch.setenv("RANK", "1")
    monkeypatch.setenv("WORLD_SIZE", "4")
    monkeypatch.setenv("LOCAL_RANK", "1")
    monkeypatch.setenv("MASTER_ADDR", "10.0.0.1")
    monkeypatch.setenv("MASTER_PORT", "29500")
    position = current_position()
    assert (position.rank, position.world_size, position.local_rank, position.address, position.source) == (
        1, 4, 1, "10.0.0.1:29500", "torchrun")


@pytest.mark.parametrize("raw, match", [
    ("{not json", "TF_CONFIG environment variable is not valid JSON"),
    ("[1, 2]", "must hold a JSON object"),
    (json.dumps({"cluster": CLUSTER, "task": {"type": "trainer", "index": 0}}),
     r'TF_CONFIG\["task"\]\["type"\] is \'trainer\', which is not a job'),
    (json.dumps({"cluster": CLUSTER, "task": {"type": "worker", "index": 5}}),
     r'TF_CONFIG\["task"\]\["index"\] is 5, out of range for job \'worker\', which has 2'),
    (json.dumps({"cluster": CLUSTER, "task": {"type": "worker", "index": "one"}}),
     r'TF_CONFIG\["task"\]\["index"\] must be an integer'),
    (json.dumps({"cluster": CLUSTER}), 'no "task"'),
    (json.dumps({"cluster": {"chief": ["nohostport"]}, "task": {"type": "chief", "index": 0}}),
     r'TF_CONFIG\["cluster"\]\["chief"\]\[0\] must be a "host:port"'),
    (json.dumps({"cluster": {"chief": ["a:1", "b:2"]}, "task": {"type": "chief", "index": 0}}),
     "at most one chief"),
])
def test_bad_tf_config_errors_name_the_field(monkeypatch, raw, match):
    monkeypatch.setenv("TF_CONFIG", raw)
    with pytest.raises(ValueError, match=match):
        tf.distribute.MultiWorkerMirroredStrategy()


def test_bad_torchrun_variables(monkeypatch):
    monkeypatch.setenv("RANK", "2")
    monkeypatch.setenv("WORLD_SIZE", "2")
    with pytest.raises(ValueError, match="RANK must be in"):
        current_position()
    monkeypatch.setenv("RANK", "1")
    with pytest.raises(ValueError, match="MASTER_ADDR and MASTER_PORT are not"):
        current_position()


def test_ps_task_exits_with_status_0(monkeypatch, caplog):
    _tf_config(monkeypatch, "ps", 0)
    with pytest.raises(SystemExit) as exit_info:
        tf.distribute.MultiWorkerMirroredStrategy()
    assert exit_info.value.code == 0
    assert "not needed" in caplog.text
    with pytest.raises(SystemExit):
        tf.distribute.experimental.ParameterServerStrategy(
            tf.distribute.cluster_resolver.TFConfigClusterResolver())


def test_parameter_server_strategy_warns_and_is_synchronous(monkeypatch):
    with pytest.warns(UserWarning, match="synchronous data parallelism"):
        strategy = tf.distribute.experimental.ParameterServerStrategy()
    assert isinstance(strategy, tf.distribute.MultiWorkerMirroredStrategy)
    assert strategy.num_replicas_in_sync == 1


def test_unreachable_rendezvous_fails_naming_the_address(monkeypatch):
    port = free_port()  # nobody listens there
    _tf_config(monkeypatch, "worker", 0, {"chief": [f"127.0.0.1:{port}"], "worker": ["127.0.0.1:1"]})
    monkeypatch.setenv("TORCHESTIMATOR_RENDEZVOUS_TIMEOUT_SECS", "1")
    start = time.monotonic()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RendezvousError, match=f"Rank 1 of 2 could not reach the rendezvous at 127.0.0.1:{port}"
                                                  r" \(from the chief address in TF_CONFIG\) within 1 s"):
            tf.distribute.MultiWorkerMirroredStrategy()
    assert time.monotonic() - start < 30
    assert not torch.distributed.is_initialized()


def test_rendezvous_timeout_variable_is_validated(monkeypatch):
    _tf_config(monkeypatch, "worker", 0, {"chief": ["127.0.0.1:1"], "worker": ["127.0.0.1:2"]})
    monkeypatch.setenv("TORCHESTIMATOR_RENDEZVOUS_TIMEOUT_SECS", "soon")
    with pytest.raises(ValueError, match="TORCHESTIMATOR_RENDEZVOUS_TIMEOUT_SECS must be a number"):
        tf.distribute.MultiWorkerMirroredStrategy()


def test_position_from_an_empty_tf_config_is_local():
    assert position_from_tf_config({}).world_size == 1


def _importable(module: str) -> bool:
    try:
        importlib.import_module(module)
    except ImportError:
        return False
    return True


def test_estimator_model_dir_urls(tmp_path):
    def model_fn(features, labels, mode):
        raise AssertionError("not called")

    est = tf.estimator.Estimator(model_fn, model_dir="file://" + str(tmp_path / "m"))
    assert est.model_dir == str(tmp_path / "m") and (tmp_path / "m").is_dir()
    # A store's URL is kept as given (tests/estimator/test_model_dir_urls.py trains there), where
    # its filesystem is installed (the `s3` extra); a scheme with no filesystem is refused naming it.
    if _importable("s3fs"):
        assert tf.estimator.Estimator(model_fn, model_dir="s3://bucket/run").model_dir == "s3://bucket/run"
    else:
        with pytest.raises(tf.errors.UnimplementedError, match="Install s3fs"):
            tf.estimator.Estimator(model_fn, model_dir="s3://bucket/run")
    with pytest.raises(tf.errors.UnimplementedError, match="nosuchscheme://"):
        tf.estimator.Estimator(model_fn, model_dir="nosuchscheme://bucket/run")


def test_multi_worker_strategy_has_a_tf_config_resolver_as_tfs(monkeypatch):
    """TF's MultiWorkerMirroredStrategy always has a TFConfigClusterResolver (the multi-worker
    tutorial reads `strategy.cluster_resolver.task_type` / `task_id` to find the chief):
    alone both are None, as TF 2.15 prints; under torchrun they name this process's role."""
    for name in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT", "TF_CONFIG"):
        monkeypatch.delenv(name, raising=False)
    resolver = tf.distribute.MultiWorkerMirroredStrategy().cluster_resolver
    assert isinstance(resolver, tf.distribute.cluster_resolver.TFConfigClusterResolver)
    assert (resolver.task_type, resolver.task_id) == (None, None)
    assert tf.distribute.MirroredStrategy().cluster_resolver is None
    monkeypatch.setenv("RANK", "0")
    monkeypatch.setenv("WORLD_SIZE", "1")
    monkeypatch.setenv("MASTER_PORT", str(free_port()))
    resolver = tf.distribute.MultiWorkerMirroredStrategy().cluster_resolver
    assert (resolver.task_type, resolver.task_id) == ("chief", 0)


# -- NCCL groups (issue 28) ---------------------------------------------------------------------


def test_an_nccl_group_also_gets_gloo_for_host_tensors():
    """The run reduces host tensors too (the end-of-data vote, summed counts, gathered sizes),
    which NCCL alone refuses ('No backend type associated with device type cpu')."""
    from torchestimator.distribute._cluster import group_backend  # noqa: PLC0415 - lazy: one test's helper

    assert group_backend("nccl") == "cpu:gloo,cuda:nccl"
    assert group_backend("gloo") == "gloo"


@pytest.mark.skipif(not (torch.cuda.is_available() and torch.distributed.is_nccl_available()),
                    reason="needs CUDA and NCCL")
def test_an_nccl_group_reduces_host_and_device_tensors(tmp_path):
    import torch.distributed as dist  # noqa: PLC0415 - lazy: CUDA-only test

    from torchestimator.distribute._cluster import group_backend  # noqa: PLC0415 - lazy: as above

    dist.init_process_group(group_backend("nccl"), init_method=f"file://{tmp_path / 'store'}",
                            rank=0, world_size=1)
    try:
        host, device = torch.ones(2), torch.ones(2, device="cuda")
        dist.all_reduce(host)
        dist.all_reduce(device)
        assert host.tolist() == device.tolist() == [1.0, 1.0]
    finally:
        dist.destroy_process_group()


def test_processes_sharing_a_gpu_are_noticed(monkeypatch):
    """NCCL takes one GPU a process: more local processes than GPUs reduce over gloo instead."""
    from torchestimator.distribute._cluster import shares_a_gpu  # noqa: PLC0415 - lazy: one test's helper

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    monkeypatch.setenv("LOCAL_WORLD_SIZE", "2")
    assert shares_a_gpu()
    monkeypatch.setenv("LOCAL_WORLD_SIZE", "1")
    assert not shares_a_gpu()
    monkeypatch.delenv("LOCAL_WORLD_SIZE")
    assert not shares_a_gpu()
