"""tf.random over torch's generators.

Seeds follow TensorFlow's two-level rule, with torch generators underneath:

- `tf.random.set_seed(s)` sets the global seed and calls `torch.manual_seed(s)`, so every op
  without an op-level `seed=` draws from torch's default generator and repeats its sequence
  after the same `set_seed` (torch code in the same program becomes reproducible too).
- An op given `seed=` draws from its own `torch.Generator`, seeded from the pair (global seed,
  op seed) (TF's default global seed 87654321 when none was set) and kept per op kind, so the
  same pair gives the same sequence of values, call after call, and `set_seed` restarts it, as
  in TF. The values themselves differ from TensorFlow's (another bit generator).
- `stateless_*` ops are pure functions of their `seed` (shape [2]): a fresh generator each call.

Random tensors are created on torch's default device (`torch.get_default_device()`).
"""

from typing import Any

from torchestimator._ops._home import keep_home as _keep_home
from torchestimator._ops.random_ops import _generator, _seeds
from torchestimator._ops.random_ops._generator import (
    Generator,
    get_global_generator,
    set_global_generator,
)
from torchestimator._ops.random_ops._samplers import (
    _TRUNC_LOW,
    _categorical,
    _dtype,
    _full_range_int,
    _gamma,
    _normal,
    _param,
    _poisson,
    _scalar_int,
    _scale_shift,
    _shape,
    _truncated,
    _uniform,
)
from torchestimator._ops.random_ops._seeds import (
    _FLOAT_DTYPES,
    _GOLDEN,
    _INT_DTYPES,
    _MASK64,
    DEFAULT_GRAPH_SEED,
    Tensor,
    _device,
    _mix,
    _op_generator,
    _op_generators,
    _seed_pair,
    _stateless_generator,
    get_global_seed,
    set_seed,
)
from torchestimator._ops.random_ops._stateful import (
    categorical,
    gamma,
    normal,
    poisson,
    shuffle,
    truncated_normal,
    uniform,
)
from torchestimator._ops.random_ops._stateless import (
    _as_array,
    _stateless_param_shape,
    fold_in,
    split,
    stateless_categorical,
    stateless_gamma,
    stateless_normal,
    stateless_poisson,
    stateless_truncated_normal,
    stateless_uniform,
)

__all__: list[str] = []  # tf.random's ops are not at TF's top level; tf.random imports them


_keep_home(globals(), __name__)


def __getattr__(name: str) -> Any:
    # The global seed and the global generator are rebound after import (`set_seed`,
    # `set_global_generator`): read them from the submodule that owns them, never a copy.
    if name == "_global_seed":
        return _seeds._global_seed
    if name == "_global_generator":
        return _generator._global_generator
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
