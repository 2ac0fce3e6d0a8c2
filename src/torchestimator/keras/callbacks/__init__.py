"""`tf.keras.callbacks`: objects called at points of `fit`, `evaluate` and `predict`."""

from torchestimator.keras.callbacks import experimental
from torchestimator.keras.callbacks.backup_and_restore import BackupAndRestore
from torchestimator.keras.callbacks.base_logger import BaseLogger
from torchestimator.keras.callbacks.callback import Callback
from torchestimator.keras.callbacks.callback_list import CallbackList
from torchestimator.keras.callbacks.csv_logger import CSVLogger
from torchestimator.keras.callbacks.early_stopping import EarlyStopping
from torchestimator.keras.callbacks.history import History
from torchestimator.keras.callbacks.lambda_callback import LambdaCallback
from torchestimator.keras.callbacks.learning_rate_scheduler import LearningRateScheduler
from torchestimator.keras.callbacks.model_checkpoint import ModelCheckpoint
from torchestimator.keras.callbacks.progbar import Progbar
from torchestimator.keras.callbacks.progbar_logger import ProgbarLogger
from torchestimator.keras.callbacks.reduce_lr_on_plateau import ReduceLROnPlateau
from torchestimator.keras.callbacks.remote_monitor import RemoteMonitor
from torchestimator.keras.callbacks.sidecar_evaluator_model_export import (
    SidecarEvaluatorModelExport,
)
from torchestimator.keras.callbacks.tensorboard import TensorBoard
from torchestimator.keras.callbacks.terminate_on_nan import TerminateOnNaN

__all__ = [
    "BackupAndRestore",
    "BaseLogger",
    "CSVLogger",
    "Callback",
    "CallbackList",
    "EarlyStopping",
    "History",
    "LambdaCallback",
    "LearningRateScheduler",
    "ModelCheckpoint",
    "ProgbarLogger",
    "ReduceLROnPlateau",
    "RemoteMonitor",
    "SidecarEvaluatorModelExport",
    "TensorBoard",
    "TerminateOnNaN",
    "experimental",
]
