"""`tf.keras.optimizers.experimental`: Keras 2.15's other name for the new optimizers."""

from torchestimator.keras.optimizers.adadelta import Adadelta
from torchestimator.keras.optimizers.adafactor import Adafactor
from torchestimator.keras.optimizers.adagrad import Adagrad
from torchestimator.keras.optimizers.adam import Adam
from torchestimator.keras.optimizers.adamax import Adamax
from torchestimator.keras.optimizers.adamw import AdamW
from torchestimator.keras.optimizers.ftrl import Ftrl
from torchestimator.keras.optimizers.nadam import Nadam
from torchestimator.keras.optimizers.optimizer import Optimizer
from torchestimator.keras.optimizers.rmsprop import RMSprop
from torchestimator.keras.optimizers.sgd import SGD

__all__ = ["SGD", "Adadelta", "Adafactor", "Adagrad", "Adam", "AdamW", "Adamax", "Ftrl", "Nadam", "Optimizer", "RMSprop"]
