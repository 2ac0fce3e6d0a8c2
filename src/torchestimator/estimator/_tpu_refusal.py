"""`tf.compat.v1.estimator.tpu`: TF1's TPUEstimator API, refused by name."""

from __future__ import annotations

from torchestimator._refused import refused_module

_TPU = ("TPUEstimator runs on TPUs, which are not supported: use tf.estimator.Estimator (the same model_fn "
        "returning an EstimatorSpec) with RunConfig(train_distribute=tf.distribute.MirroredStrategy()) on GPUs")

tpu = refused_module("tf.compat.v1.estimator.tpu", "TF1's TPUEstimator API (refused).", {
    name: _TPU for name in ("InputPipelineConfig", "RunConfig", "TPUConfig", "TPUEstimator", "TPUEstimatorSpec",
                            "experimental")})
