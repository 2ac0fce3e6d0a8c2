"""tf.distribute signatures as TF 2.15's: `MultiWorkerMirroredStrategy(cluster_resolver=None,
communication_options=None)` binds positionally as TF's, `StrategyExtended(container_strategy)`."""

from __future__ import annotations

import pytest

import torchestimator as tf


@pytest.fixture(autouse=True)
def _no_cluster_env(monkeypatch):
    for name in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT", "TF_CONFIG"):
        monkeypatch.delenv(name, raising=False)


def _resolver():
    return tf.distribute.cluster_resolver.SimpleClusterResolver(
        tf.train.ClusterSpec({"worker": ["localhost:2222"]}), task_type="worker", task_id=0)


def test_multi_worker_mirrored_strategy_takes_the_resolver_first():
    resolver = _resolver()
    strategy = tf.distribute.MultiWorkerMirroredStrategy(resolver)
    assert strategy.cluster_resolver is resolver
    assert strategy.num_replicas_in_sync == 1
    options = tf.distribute.experimental.CommunicationOptions(timeout_seconds=30)
    both = tf.distribute.MultiWorkerMirroredStrategy(resolver, options)
    assert both.cluster_resolver is resolver
    keywords = tf.distribute.MultiWorkerMirroredStrategy(cluster_resolver=resolver, communication_options=options)
    assert keywords.cluster_resolver is resolver
    with pytest.raises(TypeError, match="communication_options must be"):
        tf.distribute.MultiWorkerMirroredStrategy(resolver, "RING")


def test_strategy_extended_takes_container_strategy():
    strategy = tf.distribute.MirroredStrategy()
    extended = tf.distribute.StrategyExtended(container_strategy=strategy)
    assert extended.worker_devices == strategy.extended.worker_devices
    assert extended.should_checkpoint
