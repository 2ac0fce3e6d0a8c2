"""`tf.saved_model`: open an export without the code that trained it, and save Keras models.

`load(path)` returns an object whose `signatures["serving_default"]` (and `"predict"`,
`"classification"`, `"regression"`, as the export has them) are callable with the
signature's inputs.
"""

import os as _os

from torchestimator._engine import storage as _storage
from torchestimator.saved_model import _layout
from torchestimator.saved_model._builder import ExportError
from torchestimator.saved_model._keras_export import save
from torchestimator.saved_model._loaded import LoadedSavedModel, Signature, load
from torchestimator.saved_model._options import Asset, LoadOptions, SaveOptions

SERVING = "serve"
TRAINING = "train"
EVAL = "eval"
DEFAULT_SERVING_SIGNATURE_DEF_KEY = "serving_default"
PREDICT_METHOD_NAME = "tensorflow/serving/predict"
CLASSIFY_METHOD_NAME = "tensorflow/serving/classify"
REGRESS_METHOD_NAME = "tensorflow/serving/regress"
CLASSIFY_INPUTS = "inputs"
CLASSIFY_OUTPUT_CLASSES = "classes"
CLASSIFY_OUTPUT_SCORES = "scores"
REGRESS_INPUTS = "inputs"
REGRESS_OUTPUTS = "outputs"
PREDICT_INPUTS = "inputs"
PREDICT_OUTPUTS = "outputs"
GPU = "gpu"
TPU = "tpu"
# TF's SavedModel layout names (`tf.saved_model.*`); an export here keeps its own layout
# (`saved_model/_layout.py`), and the names are kept for programs that build paths with them.
ASSETS_DIRECTORY = "assets"
ASSETS_KEY = "saved_model_assets"
DEBUG_DIRECTORY = "debug"
DEBUG_INFO_FILENAME_PB = "saved_model_debug_info.pb"
SAVED_MODEL_FILENAME_PB = "saved_model.pb"
SAVED_MODEL_FILENAME_PBTXT = "saved_model.pbtxt"
SAVED_MODEL_SCHEMA_VERSION = 1
VARIABLES_DIRECTORY = "variables"
VARIABLES_FILENAME = "variables"


def contains_saved_model(export_dir: str) -> bool:
    """True when `export_dir` (a path or a URL) holds an export that `load` opens."""
    return _storage.isfile(_storage.join(_os.fsdecode(export_dir), _layout.DOCUMENT))
