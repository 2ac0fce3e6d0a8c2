"""`tf.estimator.export`: serving input receivers, their builders and export outputs."""

from torchestimator.estimator.export._receivers import (
    ServingInputReceiver,
    TensorServingInputReceiver,
    build_parsing_serving_input_receiver_fn,
    build_raw_serving_input_receiver_fn,
)
from torchestimator.saved_model._export_output import (
    ClassificationOutput,
    EvalOutput,
    ExportOutput,
    PredictOutput,
    RegressionOutput,
)
