"""`tf.keras.mixed_precision`: dtype policies (`Policy`, `set_global_policy`, `global_policy`)
and `LossScaleOptimizer`, Keras's mixed-precision API.

`set_global_policy('mixed_float16')` (or 'mixed_bfloat16') makes the layers built afterwards
compute in float16 (bfloat16) with float32 weights; keep the model's last layer in float32
(`Activation('linear', dtype='float32')`) for a numerically stable loss, as TensorFlow's guide
does. Compiling a 'mixed_float16' model wraps its optimizer in a `LossScaleOptimizer`.
"""

from torchestimator.keras.mixed_precision._loss_scale_optimizer import LossScaleOptimizer
from torchestimator.keras.mixed_precision._policy import Policy, global_policy, set_global_policy

__all__ = ["LossScaleOptimizer", "Policy", "global_policy", "set_global_policy"]
