"""TF's control flow, run eagerly: tf.cond, tf.while_loop, tf.switch_case, tf.case."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from torchestimator._ops.convert import convert_to_tensor
from torchestimator.errors import InvalidArgumentError


# ============================================================================ tf.cond & co
def cond(pred: Any, true_fn: Callable | None = None, false_fn: Callable | None = None,
         name: str | None = None) -> Any:
    """Returns `true_fn()` if `pred` is true, else `false_fn()`, as TF's `tf.cond` (eagerly,
    only the chosen branch runs)."""
    if true_fn is None:
        raise TypeError("cond(): 'true_fn' argument required")
    if false_fn is None:
        raise TypeError("cond(): 'false_fn' argument required")
    if not callable(true_fn) or not callable(false_fn):
        raise TypeError("cond(): 'true_fn' and 'false_fn' must be callable.")
    return true_fn() if bool(pred) else false_fn()


def while_loop(cond: Callable, body: Callable, loop_vars: Any, shape_invariants: Any = None,
               parallel_iterations: int = 10, back_prop: bool = True, swap_memory: bool = False,
               maximum_iterations: Any = None, name: str | None = None) -> Any:
    """Repeats `loop_vars = body(*loop_vars)` while `cond(*loop_vars)` is true (at most
    `maximum_iterations` times), as TF's `tf.while_loop`; returns the final loop variables in
    the structure of `loop_vars` (Python numbers become tensors, as in TF)."""
    if loop_vars is None or (isinstance(loop_vars, (list, tuple)) and not loop_vars):
        raise ValueError("'loop_vars' must be provided.")
    single = not isinstance(loop_vars, (list, tuple))
    values = [loop_vars] if single else list(loop_vars)
    values = [convert_to_tensor(v) if isinstance(v, (int, float, bool)) else v for v in values]
    limit = None if maximum_iterations is None else int(maximum_iterations)
    count = 0
    while (limit is None or count < limit) and bool(cond(*values)):
        result = body(*values)
        if not isinstance(result, (list, tuple)):
            if len(values) != 1:
                raise ValueError(
                    f"tf.while_loop: body returned one value for {len(values)} loop variables."
                )
            result = [result]
        if len(result) != len(values):
            raise ValueError(
                f"tf.while_loop: body returned {len(result)} values for {len(values)} loop variables."
            )
        values = list(result)
        count += 1
    if single:
        return values[0]
    return values if isinstance(loop_vars, list) else type(loop_vars)(values) \
        if not hasattr(loop_vars, "_fields") else type(loop_vars)(*values)


def switch_case(branch_index: Any, branch_fns: Any, default: Callable | None = None,
                name: str = "switch_case") -> Any:
    """Runs `branch_fns[branch_index]()` (a list of callables, or (index, callable) pairs or a
    dict), as TF's `tf.switch_case`; an index out of range runs `default` (the last branch when
    None)."""
    index = int(branch_index)
    if isinstance(branch_fns, dict):
        pairs = sorted(branch_fns.items())
    elif branch_fns and isinstance(branch_fns[0], (list, tuple)):
        pairs = sorted((int(k), fn) for k, fn in branch_fns)
    else:
        pairs = list(enumerate(branch_fns))
    if not pairs:
        raise ValueError("tf.switch_case: branch_fns must not be empty.")
    table = dict(pairs)
    fn = table.get(index)
    if fn is None:
        fn = default if default is not None else pairs[-1][1]
    return fn()


def case(pred_fn_pairs: Any, default: Callable | None = None, exclusive: bool = False,
         strict: bool = False, name: str = "case") -> Any:
    """Runs the callable of the first `(predicate, callable)` pair whose predicate is true, as
    TF's `tf.case`; `default()` when none is (an InvalidArgumentError without a default)."""
    if isinstance(pred_fn_pairs, dict):
        pred_fn_pairs = list(pred_fn_pairs.items())
    for pred, fn in pred_fn_pairs:
        if bool(pred):
            return fn()
    if default is None:
        raise InvalidArgumentError(None, None, "Input error: None of conditions evaluated as True.")
    return default()
