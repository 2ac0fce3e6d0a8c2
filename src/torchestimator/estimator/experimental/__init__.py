"""`tf.estimator.experimental`: early stopping on eval results, stopping at a checkpoint step,
evaluation inside the training process (`InMemoryEvaluatorHook`), and the RNN estimators."""

from torchestimator.estimator._estimator_extras import (
    build_raw_supervised_input_receiver_fn,
    call_logit_fn,
)
from torchestimator.estimator._linear_sdca import LinearSDCA
from torchestimator.estimator.canned.rnn import RNNClassifier, RNNEstimator
from torchestimator.estimator.experimental._in_memory_evaluator import InMemoryEvaluatorHook
from torchestimator.estimator.hooks.early_stopping import (
    make_early_stopping_hook,
    make_stop_at_checkpoint_step_hook,
    stop_if_higher_hook,
    stop_if_lower_hook,
    stop_if_no_decrease_hook,
    stop_if_no_increase_hook,
)
from torchestimator.saved_model._onnx import export_onnx
