"""One replica of tests/distribute/test_cross_device_ops.py: joins the gloo group through
MirroredStrategy(cross_device_ops=...), reduces, batch-reduces and broadcasts with every
CrossDeviceOps, and writes rank<N>.json."""

from __future__ import annotations

import json
import os
import sys

import torch

import torchestimator as tf


def main() -> None:
    out_dir = sys.argv[1]
    rank = int(os.environ["RANK"])
    strategy = tf.distribute.MirroredStrategy(cross_device_ops=tf.distribute.ReductionToOneDevice())
    result = {"replicas": strategy.num_replicas_in_sync}
    value = torch.tensor([1.0, 2.0]) * (rank + 1)  # rank 0: [1, 2]; rank 1: [2, 4]
    per_replica = tf.distribute.DistributedValues([value, value * 10])  # two local replicas each
    for name, ops in [("one_device", tf.distribute.ReductionToOneDevice()),
                      ("nccl", tf.distribute.NcclAllReduce()),
                      ("hierarchical", tf.distribute.HierarchicalCopyAllReduce(num_packs=2))]:
        result[f"{name}_sum"] = ops.reduce(tf.distribute.ReduceOp.SUM, value, destinations="/cpu:0").tolist()
        result[f"{name}_mean"] = ops.reduce("MEAN", value, destinations=None).tolist()
        result[f"{name}_local_sum"] = ops.reduce("SUM", per_replica, destinations=value).tolist()
        result[f"{name}_local_mean"] = ops.reduce("MEAN", per_replica, destinations=value).tolist()
        batch = ops.batch_reduce(tf.distribute.ReduceOp.SUM, [(value, "/cpu:0"), (torch.tensor(rank), None)])
        result[f"{name}_batch"] = [b.tolist() for b in batch]
        result[f"{name}_broadcast"] = ops.broadcast(value, "/cpu:0").values[0].tolist()
    accumulated = tf.distribute.ReductionToOneDevice(accumulation_fn=lambda vs: vs[0] * 0 + 100.0)
    result["accumulation_fn"] = accumulated.reduce("SUM", per_replica, None).tolist()
    with open(os.path.join(out_dir, f"rank{rank}.json"), "w") as f:
        json.dump(result, f)


if __name__ == "__main__":
    main()
