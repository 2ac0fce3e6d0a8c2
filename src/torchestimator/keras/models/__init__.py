"""`tf.keras.models`: `Model`, `Sequential`, `load_model`, `clone_model`, `model_from_json`,
`model_from_yaml` (removed: raises as Keras 2.15), `experimental.SharpnessAwareMinimization`."""

from torchestimator.keras.engine.functional import Functional
from torchestimator.keras.engine.model import Model
from torchestimator.keras.engine.sequential import Sequential
from torchestimator.keras.models import experimental
from torchestimator.keras.models._model_from_yaml import model_from_yaml
from torchestimator.keras.models.cloning import clone_model
from torchestimator.keras.saving.saving_lib import (
    load_model,
    model_from_config,
    model_from_json,
    save_model,
)
