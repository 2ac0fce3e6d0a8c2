"""TensorFlow's eager control API over torch: `tf.function`, `tf.print`, `tf.group`, `tf.no_op`,
`tf.control_dependencies`, `tf.device`, `tf.name_scope`, `tf.Module`, `tf.custom_gradient`,
`tf.py_function`, `tf.numpy_function`, `tf.cond`, `tf.while_loop`, ...

Everything runs eagerly, as TF 2 does outside a `tf.function`:

- `tf.function` returns a callable that runs the Python function on every
  call (Python side effects run every time, not once per trace). With
  `jit_compile=True` (or `tf.config.optimizer.set_jit(True)`) the function
  goes through `torch.compile`; if compiling fails, it warns once and runs
  eagerly from then on. `tf.config.run_functions_eagerly(True)` turns
  compilation off. `input_signature` is checked on every call.
- `tf.group`, `tf.no_op` and `tf.control_dependencies`: eager ops have
  already run when they return (`var.assign_add(1)` updated the variable), so
  there is nothing left to order. `tf.group` keeps the train ops that
  `optimizer.minimize` returns inside an Estimator `model_fn` (deferred until
  the step runs) and returns a no-op object when there is none, which an
  `EstimatorSpec` accepts as `train_op` (TF eager would return None).
(`ensure_shape`, `identity_n` and `get_static_value` live in `creation.py`.)

- `tf.device('/GPU:0')` makes that device torch's default device for tensors
  created inside the block. As with TF's default soft placement, a GPU that
  does not exist (no CUDA; an index past the last GPU) means the CPU, silently;
  on a Mac without CUDA, 'GPU' is the MPS device. Tensors made before the
  block are not moved.
"""

from torchestimator._gradient_tape import UnconnectedGradients
from torchestimator._ops._home import keep_home as _keep_home
from torchestimator._ops.check_ops import (
    Assert,
    assert_equal,
    assert_greater,
    assert_less,
    assert_rank,
)
from torchestimator._ops.control_ops._context import (
    _DEVICE_TYPES,
    _SCOPE_NAME,
    DEVICE_SETTINGS,
    NoOp,
    _DeviceSettings,
    _parse_device,
    _resolve_device,
    control_dependencies,
    device,
    executing_eagerly,
    group,
    init_scope,
    name_scope,
    no_op,
)
from torchestimator._ops.control_ops._control_flow import case, cond, switch_case, while_loop
from torchestimator._ops.control_ops._function import (
    FUNCTION_SETTINGS,
    ConcreteFunction,
    Function,
    _all_parameters,
    _conform,
    _FunctionSettings,
    _holds_spec,
    _positional_parameters,
    _ref,
    _shape_fits,
    _spec_of,
    _spec_text,
    _specs_for,
    function,
)
from torchestimator._ops.control_ops._module import (
    _MODULE_NAME,
    _TORCH_MODULE_ATTRS,
    Module,
    _camel_to_snake,
    _is_variable,
    _leaves,
    _module_attributes,
    _walk,
)
from torchestimator._ops.control_ops._print import (
    _FLOAT_DIGITS,
    _c_escape,
    _dim_spacing,
    _element_formatter,
    _format_float,
    _is_printed_tensor,
    _replace_tensors,
    _sort_key,
    _write,
    format_tensor,
    print,
)
from torchestimator._ops.control_ops._py_functions import (
    _accepts_variables,
    _CustomGradientFunction,
    _outputs,
    _to_dtype,
    custom_gradient,
    numpy_function,
    py_function,
)

__all__: list[str] = [
    "Assert", "Module", "UnconnectedGradients", "assert_equal", "assert_greater", "assert_less",
    "assert_rank", "case", "cond", "control_dependencies", "custom_gradient", "device",
    "executing_eagerly", "function", "group", "init_scope", "name_scope", "no_op",
    "numpy_function", "print", "py_function", "switch_case", "while_loop",
]


_keep_home(globals(), __name__)
