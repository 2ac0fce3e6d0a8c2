"""`tf.compat.v1.estimator.inputs` (also `tf.estimator.inputs`): input functions that feed
numpy arrays or a pandas DataFrame to an Estimator, built on `tf.data`."""

from torchestimator.estimator.inputs._numpy_io import numpy_input_fn
from torchestimator.estimator.inputs._pandas_io import pandas_input_fn

__all__ = ["numpy_input_fn", "pandas_input_fn"]
