"""strategy.reduce / gather / run, distributed datasets and a custom training loop on 2 real
processes (gloo on loopback). About 4 s: the one multi-process test of the default run."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from _distlib import check_ok, free_port, launch, load, torchrun_envs


def test_cross_replica_operations_and_custom_loop(tmp_path):
    check_ok(launch(["custom_loop", str(tmp_path / "unused"), str(tmp_path)], torchrun_envs(2, free_port())))
    _check_custom_loop_results(tmp_path)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_two_processes_sharing_one_gpu_reduce_over_gloo(tmp_path):
    """Issue 28: torchrun's two processes on a machine with fewer GPUs than that: NCCL takes one
    GPU a process, so the strategy reduces their CUDA tensors over gloo."""
    envs = [{**env, "TORCHESTIMATOR_DEVICE": "cuda", "LOCAL_WORLD_SIZE": "2", "CUDA_VISIBLE_DEVICES": "0"}
            for env in torchrun_envs(2, free_port())]
    check_ok(launch(["custom_loop", str(tmp_path / "unused"), str(tmp_path)], envs))
    _check_custom_loop_results(tmp_path)


@pytest.mark.skipif(not (torch.cuda.is_available() and torch.distributed.is_nccl_available()),
                    reason="needs CUDA and NCCL")
def test_a_world_of_one_on_nccl_trains_keras_and_an_estimator_on_the_gpu(tmp_path):
    """Issue 28: one process per GPU through torchrun's variables reduces over NCCL; what one GPU
    allows is a world of 1: `fit` under MultiWorkerMirroredStrategy and a custom-model_fn
    Estimator under train_distribute, with the weights on the GPU. Not marked slow: it runs only
    on a GPU machine, whose default run (`tools/gpu_check.sh`) should include it."""
    env = {**torchrun_envs(1, free_port())[0], "TORCHESTIMATOR_DEVICE": "cuda"}
    for scenario in ("keras", "custom"):
        out, model_dir = tmp_path / scenario, tmp_path / f"{scenario}_model"
        out.mkdir()
        model_dir.mkdir()
        check_ok(launch([scenario, str(model_dir), str(out)], [env]))
        result, weights = load(out, 0)
        assert result["backend"] in ("nccl", "cpu:gloo,cuda:nccl"), result
        assert weights
        if scenario == "keras":
            assert result["weights_device"].startswith("cuda"), result
            losses = result["history"]["loss"]
            assert losses[-1] < losses[0], losses
        else:
            assert result["global_step"] > 0 and np.isfinite(result["eval"]["loss"]), result


def _check_custom_loop_results(tmp_path):
    (r0, w0), (r1, w1) = load(tmp_path, 0), load(tmp_path, 1)
    for r in (r0, r1):
        assert (r["replicas"], r["sum"], r["mean"]) == (2, 3.0, 1.5)
        assert r["mean_axis"] == pytest.approx(4 / 5)  # (0+1) + (0+1+2) over 5 elements
        assert r["gather"] == [0, 0, 1]
    assert r0["replica"] == [0, 2.0] and r1["replica"] == [1, 2.0]
    # Each global batch of 5 split 3 + 2; the function's dataset sharded, batch 4 / 2 replicas.
    assert r0["distributed"] == [[0, 1, 2], [5, 6, 7]] and r1["distributed"] == [[3, 4], [8, 9]]
    assert r0["from_function"] == [[0, 2], [4, 6]] and r1["from_function"] == [[1, 3], [5, 7]]
    # Different seeds, yet the first apply_gradients gave both the chief's weights: identical after.
    assert r0["losses"] == r1["losses"] and len(r0["losses"]) == 4
    for name in w0:
        assert np.array_equal(w0[name], w1[name])
