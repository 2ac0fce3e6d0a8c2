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

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch

from torchestimator import _dtypes
from torchestimator._ops.convert import convert_to_tensor, dtype_name
from torchestimator.errors import InvalidArgumentError

__all__: list[str] = []  # tf.random's ops are not at TF's top level; tf.random imports them

Tensor = torch.Tensor

DEFAULT_GRAPH_SEED = 87654321
_MASK64 = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15

_FLOAT_DTYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float64)
_INT_DTYPES = (torch.int32, torch.int64)

_global_seed: int | None = None
_op_generators: dict[tuple[str, int, int, str], torch.Generator] = {}


# ----------------------------------------------------------------------------- seeds


def set_seed(seed: int | None) -> None:
    """Sets the global random seed, as TF's `tf.random.set_seed`.

    Also seeds torch (`torch.manual_seed`), so ops without an op-level seed repeat their
    sequence after the same `set_seed`; ops with `seed=` restart their per-(global, op) seed
    sequence. `set_seed(None)` clears the global seed (torch's generator is reseeded randomly).

    Returns:
        None.
    """
    global _global_seed
    _op_generators.clear()
    if seed is None:
        _global_seed = None
        torch.seed()
        return
    if isinstance(seed, Tensor):
        seed = int(seed.item())
    _global_seed = int(seed)
    torch.manual_seed(_global_seed & _MASK64)


def get_global_seed() -> int | None:
    """The global seed set by `set_seed` (None when unset). Not a TF name; used by other modules."""
    return _global_seed


def _mix(a: int, b: int) -> int:
    """A 64-bit seed from two integers (distinct pairs give distinct seeds for 32-bit `b`)."""
    return ((a & _MASK64) * _GOLDEN + (b & _MASK64)) & _MASK64


def _device() -> torch.device:
    return torch.get_default_device()


def _op_generator(op: str, seed: Any, device: torch.device | None = None) -> torch.Generator | None:
    """The generator an op draws from: torch's default one (None) without an op seed, else the
    op kind's generator for the (global seed, op seed) pair, created on first use."""
    if seed is None:
        return None
    if isinstance(seed, Tensor):
        seed = seed.item()
    seed = int(seed)
    device = _device() if device is None else torch.device(device)
    global_seed = DEFAULT_GRAPH_SEED if _global_seed is None else _global_seed
    key = (op, global_seed, seed, str(device))
    generator = _op_generators.get(key)
    if generator is None:
        generator = torch.Generator(device=device)
        generator.manual_seed(_mix(global_seed, seed))
        _op_generators[key] = generator
    return generator


def _stateless_generator(seed: Any, op: str, device: torch.device | None = None) -> torch.Generator:
    """A fresh generator that is a pure function of a shape-[2] integer `seed`."""
    values = _seed_pair(seed, op)
    generator = torch.Generator(device=_device() if device is None else device)
    generator.manual_seed(_mix(values[0], values[1]))
    return generator


def _seed_pair(seed: Any, op: str) -> tuple[int, int]:
    if isinstance(seed, Tensor):
        if seed.is_floating_point() or seed.dtype is torch.bool:
            raise InvalidArgumentError(
                None,
                None,
                f"{op}: seed must be an int32 or int64 tensor, got {dtype_name(seed.dtype)}.",
            )
        shape, values = list(seed.shape), seed.reshape(-1).tolist()
    else:
        array = np.asarray(seed)
        if array.dtype.kind not in "iu":
            raise InvalidArgumentError(None, None, f"{op}: seed must be integers, got {seed!r}.")
        shape, values = list(array.shape), array.reshape(-1).tolist()
    if shape != [2]:
        raise InvalidArgumentError(None, None, f"{op}: seed must have shape [2], not {shape}.")
    return int(values[0]), int(values[1])


# ----------------------------------------------------------------------------- arguments


def _shape(shape: Any, op: str) -> tuple[int, ...]:
    """A 1-D shape (list, tuple, TensorShape, 1-D tensor or array) as a tuple of ints."""
    if isinstance(shape, Tensor) or isinstance(shape, np.ndarray):
        if shape.ndim != 1:
            raise InvalidArgumentError(
                None,
                None,
                f"{op}: shape must be a vector of int32 or int64, got shape {list(shape.shape)}.",
            )
        shape = shape.tolist()
    if isinstance(shape, (int, np.integer)) or not hasattr(shape, "__iter__"):
        raise InvalidArgumentError(
            None,
            None,
            f"{op}: shape must be a vector (a list or 1-D tensor) of int32 or int64, got "
            f"{shape!r}; "
            f"for example shape=[{shape!r}].",
        )
    dims = []
    for d in shape:
        if d is None or int(d) < 0:
            raise InvalidArgumentError(
                None, None, f"{op}: shape {list(shape)} must be fully known and >= 0."
            )
        dims.append(int(d))
    return tuple(dims)


def _dtype(
    dtype: Any, allowed: tuple[torch.dtype, ...], op: str, error: type = ValueError
) -> torch.dtype:
    want = _dtypes.as_dtype(dtype)
    if want not in allowed:
        names = ", ".join(dtype_name(d) for d in allowed)
        raise error(
            f"{op}: argument `dtype` got invalid value {dtype_name(want)}. Accepted dtypes are "
            f"({names})."
        )
    return want


def _param(value: Any, dtype: torch.dtype, device: torch.device, name: str) -> Any:
    """A Python number stays as is; anything else becomes a tensor of `dtype` on `device`."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    tensor = (
        convert_to_tensor(value, dtype=dtype, name=name) if not isinstance(value, Tensor) else value
    )
    if isinstance(tensor, np.ndarray):
        raise TypeError(f"`{name}` must be a number or a numeric tensor, got strings.")
    if tensor.dtype is not dtype:
        raise ValueError(
            f"`{name}` has dtype {dtype_name(tensor.dtype)} but the op's dtype is "
            f"{dtype_name(dtype)}; "
            "tf.cast it."
        )
    return tensor if tensor.device == device else tensor.to(device)


def _scale_shift(rnd: Tensor, scale: Any, shift: Any) -> Tensor:
    """`rnd * scale + shift`, in place when both are Python numbers (TF broadcasts tensors)."""
    if not isinstance(scale, Tensor) and not isinstance(shift, Tensor):
        if scale != 1:
            rnd.mul_(scale)
        if shift != 0:
            rnd.add_(shift)
        return rnd
    return rnd * scale + shift


# ----------------------------------------------------------------------------- samplers


def _normal(shape: Any, mean: Any, stddev: Any, dtype: Any, gen: Any, op: str) -> Tensor:
    shape = _shape(shape, op)
    dtype = _dtype(dtype, _FLOAT_DTYPES, op, TypeError)
    device = gen.device if gen is not None else _device()
    mean = _param(mean, dtype, device, "mean")
    stddev = _param(stddev, dtype, device, "stddev")
    rnd = torch.randn(shape, generator=gen, dtype=dtype, device=device)
    return _scale_shift(rnd, stddev, mean)


_TRUNC_LOW = 0.5 * math.erfc(2.0 / math.sqrt(2.0))  # Phi(-2): the normal CDF at -2 stddev


def _truncated(shape: Any, mean: Any, stddev: Any, dtype: Any, gen: Any, op: str) -> Tensor:
    shape = _shape(shape, op)
    dtype = _dtype(dtype, _FLOAT_DTYPES, op, TypeError)
    device = gen.device if gen is not None else _device()
    mean = _param(mean, dtype, device, "mean")
    stddev = _param(stddev, dtype, device, "stddev")
    work = torch.float64 if dtype is torch.float64 else torch.float32
    # Inverse-CDF sampling of N(0, 1) restricted to [-2, 2]: the same law as redrawing every
    # value beyond two standard deviations, in one vectorized pass.
    u = torch.rand(shape, generator=gen, dtype=work, device=device)
    u.mul_(1.0 - 2.0 * _TRUNC_LOW).add_(_TRUNC_LOW)
    rnd = u.mul_(2.0).sub_(1.0).erfinv_().mul_(math.sqrt(2.0)).clamp_(-2.0, 2.0)
    if work is not dtype:
        rnd = rnd.to(dtype)
    return _scale_shift(rnd, stddev, mean)


def _scalar_int(value: Any, name: str, op: str) -> int:
    if isinstance(value, (Tensor, np.ndarray)):
        if value.ndim != 0:
            raise InvalidArgumentError(
                None,
                None,
                f"{op}: {name} must be 0-D for an integer dtype, got shape {list(value.shape)}.",
            )
        value = value.item()
    if isinstance(value, float) and not value.is_integer():
        raise TypeError(f"{op}: {name}={value!r} is not an integer, as an integer dtype needs.")
    return int(value)


def _full_range_int(shape: tuple[int, ...], dtype: torch.dtype, gen: Any, device: Any) -> Tensor:
    if dtype is torch.int32:
        return torch.randint(
            -(2**31), 2**31, shape, generator=gen, dtype=torch.int64, device=device
        ).to(torch.int32)
    high = torch.randint(-(2**31), 2**31, shape, generator=gen, dtype=torch.int64, device=device)
    low = torch.randint(0, 2**32, shape, generator=gen, dtype=torch.int64, device=device)
    return (high << 32) | low


def _uniform(
    shape: Any, minval: Any, maxval: Any, dtype: Any, gen: Any, op: str, stateless: bool
) -> Tensor:
    shape = _shape(shape, op)
    dtype = _dtype(dtype, _FLOAT_DTYPES + _INT_DTYPES, op)
    device = gen.device if gen is not None else _device()
    if dtype in _INT_DTYPES:
        if stateless and (minval is None) != (maxval is None):
            raise ValueError(
                f"{op}: for integer dtype {dtype_name(dtype)}, `minval` and `maxval` must be both "
                "None "
                f"or not None. Got minval={minval!r} and maxval={maxval!r}."
            )
        if stateless and minval is None:
            return _full_range_int(shape, dtype, gen, device)
        if maxval is None:
            raise ValueError(f"{op}: must specify maxval for integer dtype {dtype_name(dtype)}.")
        low = _scalar_int(minval, "minval", op)
        high = _scalar_int(maxval, "maxval", op)
        if low >= high:
            raise InvalidArgumentError(
                None, None, f"{op}: need minval < maxval, got {low} >= {high}."
            )
        return torch.randint(low, high, shape, generator=gen, dtype=dtype, device=device)
    minval = 0 if minval is None else minval
    maxval = 1 if maxval is None else maxval
    minval = _param(minval, dtype, device, "minval")
    maxval = _param(maxval, dtype, device, "maxval")
    rnd = torch.rand(shape, generator=gen, dtype=dtype, device=device)
    return _scale_shift(rnd, maxval - minval, minval)


def _categorical(logits: Any, num_samples: Any, dtype: Any, gen: Any, op: str) -> Tensor:
    logits = convert_to_tensor(logits, dtype_hint=torch.float32, name="logits")
    if not isinstance(logits, Tensor) or not logits.is_floating_point():
        kind = "string" if not isinstance(logits, Tensor) else dtype_name(logits.dtype)
        raise InvalidArgumentError(
            None, None, f"{op}: logits must be a floating-point tensor, got {kind}."
        )
    if logits.ndim != 2:
        raise InvalidArgumentError(
            None,
            None,
            f"{op}: logits should be a matrix [batch_size, num_classes], got shape "
            f"{list(logits.shape)}.",
        )
    dtype = _dtype(torch.int64 if dtype is None else dtype, _INT_DTYPES, op)
    num_samples = _scalar_int(num_samples, "num_samples", op)
    if num_samples < 0:
        raise InvalidArgumentError(
            None, None, f"{op}: num_samples should be nonnegative, got {num_samples}."
        )
    batch, classes = logits.shape
    if num_samples == 0 or batch == 0 or classes == 0:
        return torch.zeros((batch, num_samples), dtype=dtype, device=logits.device)
    device = logits.device if gen is None else gen.device
    work = logits.detach().to(device=device, dtype=torch.float64)
    top = work.amax(dim=1, keepdim=True)
    valid = torch.isfinite(
        top
    )  # a row of -inf (or NaN, +inf) has no distribution: TF gives num_classes
    probs = torch.exp(work - torch.where(valid, top, torch.zeros_like(top)))
    probs = torch.where(valid, torch.nan_to_num(probs, nan=0.0), torch.ones_like(probs))
    samples = torch.multinomial(probs, num_samples, replacement=True, generator=gen)
    samples = torch.where(valid, samples, torch.full_like(samples, classes))
    return samples.to(device=logits.device, dtype=dtype)


def _gamma(shape: Any, alpha: Any, beta: Any, dtype: Any, gen: Any, op: str) -> Tensor:
    shape = _shape(shape, op)
    dtype = _dtype(dtype, _FLOAT_DTYPES, op, TypeError)
    device = gen.device if gen is not None else _device()
    alpha = convert_to_tensor(alpha, dtype=dtype, name="alpha").to(device)
    beta = None if beta is None else convert_to_tensor(beta, dtype=dtype, name="beta").to(device)
    params = alpha if beta is None else torch.broadcast_tensors(alpha, beta)[0]
    work = torch.float64 if dtype is torch.float64 else torch.float32
    concentration = params.detach().to(work).expand(shape + tuple(params.shape))
    samples = torch._standard_gamma(concentration.contiguous(), generator=gen)
    samples = samples.clamp_min_(torch.finfo(dtype).tiny)  # TF's floor: never exactly 0
    if beta is not None:
        samples = samples / beta.to(work)
    return samples.to(dtype)


def _poisson(shape: Any, lam: Any, dtype: Any, gen: Any, op: str) -> Tensor:
    shape = _shape(shape, op)
    dtype = _dtype(dtype, _FLOAT_DTYPES + _INT_DTYPES, op)
    device = gen.device if gen is not None else _device()
    lam = convert_to_tensor(lam, dtype_hint=torch.float32, name="lam")
    if not isinstance(lam, Tensor):
        raise TypeError(f"{op}: lam must be numeric.")
    rates = lam.detach().to(
        device=device, dtype=torch.float64 if lam.dtype is torch.float64 else torch.float32
    )
    samples = torch.poisson(rates.expand(shape + tuple(rates.shape)).contiguous(), generator=gen)
    return samples.to(dtype)


# ----------------------------------------------------------------------------- stateful ops


def normal(
    shape: Any,
    mean: Any = 0.0,
    stddev: Any = 1.0,
    dtype: Any = torch.float32,
    seed: int | None = None,
    name: str | None = None,
) -> Tensor:
    """Outputs random values from a normal distribution, as TF's `tf.random.normal`.

    `mean` and `stddev` may be tensors that broadcast with `shape`.

    Returns:
        A tensor of the specified shape filled with random normal values.
    """
    return _normal(shape, mean, stddev, dtype, _op_generator("normal", seed), "random.normal")


def uniform(
    shape: Any,
    minval: Any = 0,
    maxval: Any = None,
    dtype: Any = torch.float32,
    seed: int | None = None,
    name: str | None = None,
) -> Tensor:
    """Outputs random values from a uniform distribution in `[minval, maxval)`, as TF's
    `tf.random.uniform` (`maxval` defaults to 1 for floats and is required for int32/int64).

    Returns:
        A tensor of the specified shape filled with random uniform values.
    """
    return _uniform(
        shape, minval, maxval, dtype, _op_generator("uniform", seed), "random.uniform", False
    )


def truncated_normal(
    shape: Any,
    mean: Any = 0.0,
    stddev: Any = 1.0,
    dtype: Any = torch.float32,
    seed: int | None = None,
    name: str | None = None,
) -> Tensor:
    """Outputs random values from a truncated normal distribution, as TF's
    `tf.random.truncated_normal`: values beyond two standard deviations from the mean are
    dropped and re-picked (sampled here by the inverse CDF, the same distribution).

    Returns:
        A tensor of the specified shape filled with random truncated normal values.
    """
    return _truncated(
        shape,
        mean,
        stddev,
        dtype,
        _op_generator("truncated_normal", seed),
        "random.truncated_normal",
    )


def categorical(
    logits: Any,
    num_samples: Any,
    dtype: Any = None,
    seed: int | None = None,
    name: str | None = None,
) -> Tensor:
    """Draws samples from a categorical distribution, as TF's `tf.random.categorical`.

    `logits` is a 2-D `[batch_size, num_classes]` tensor of unnormalized log-probabilities; a row
    that is all `-inf` gives `num_classes`, as in TF.

    Returns:
        The drawn samples of shape `[batch_size, num_samples]` (int64 unless `dtype` is int32).
    """
    device = logits.device if isinstance(logits, Tensor) else None
    gen = _op_generator("categorical", seed, device)
    return _categorical(logits, num_samples, dtype, gen, "random.categorical")


def shuffle(value: Any, seed: int | None = None, name: str | None = None) -> Any:
    """Randomly shuffles a tensor along its first dimension, as TF's `tf.random.shuffle`.

    Returns:
        A tensor of the same shape and type as `value`, shuffled along its first dimension
        (numpy object arrays of strings are shuffled as well).
    """
    value = convert_to_tensor(value)
    if value.ndim == 0 or value.shape[0] <= 1:
        return value
    if isinstance(value, np.ndarray):
        order = torch.randperm(value.shape[0], generator=_op_generator("shuffle", seed, "cpu"))
        return value[order.numpy()]
    gen = _op_generator("shuffle", seed, value.device)
    order = torch.randperm(value.shape[0], generator=gen, device=value.device)
    return value[order]


def gamma(
    shape: Any,
    alpha: Any,
    beta: Any = None,
    dtype: Any = torch.float32,
    seed: int | None = None,
    name: str | None = None,
) -> Tensor:
    """Draws samples from each of the given Gamma distributions (shape `alpha`, inverse scale
    `beta`), as TF's `tf.random.gamma`.

    Returns:
        A tensor of shape `shape + broadcast_shape(alpha, beta)` of samples.
    """
    return _gamma(shape, alpha, beta, dtype, _op_generator("gamma", seed), "random.gamma")


def poisson(
    shape: Any,
    lam: Any,
    dtype: Any = torch.float32,
    seed: int | None = None,
    name: str | None = None,
) -> Tensor:
    """Draws samples from each of the given Poisson distributions (rates `lam`), as TF's
    `tf.random.poisson`.

    Returns:
        A tensor of shape `shape + lam.shape` of samples, of `dtype`.
    """
    return _poisson(shape, lam, dtype, _op_generator("poisson", seed), "random.poisson")


# ----------------------------------------------------------------------------- stateless ops


def stateless_normal(
    shape: Any,
    seed: Any,
    mean: Any = 0.0,
    stddev: Any = 1.0,
    dtype: Any = torch.float32,
    name: str | None = None,
    alg: Any = "auto_select",
) -> Tensor:
    """Outputs deterministic pseudorandom values from a normal distribution, as TF's
    `tf.random.stateless_normal` (the same `seed` of shape [2] gives the same values).

    Returns:
        A tensor of the specified shape filled with random normal values.
    """
    op = "random.stateless_normal"
    return _normal(shape, mean, stddev, dtype, _stateless_generator(seed, op), op)


def stateless_uniform(
    shape: Any,
    seed: Any,
    minval: Any = 0,
    maxval: Any = None,
    dtype: Any = torch.float32,
    name: str | None = None,
    alg: Any = "auto_select",
) -> Tensor:
    """Outputs deterministic pseudorandom values from a uniform distribution, as TF's
    `tf.random.stateless_uniform` (integers: `minval` and `maxval` both set, or both None for the
    dtype's full range).

    Returns:
        A tensor of the specified shape filled with random uniform values.
    """
    op = "random.stateless_uniform"
    return _uniform(shape, minval, maxval, dtype, _stateless_generator(seed, op), op, True)


def stateless_truncated_normal(
    shape: Any,
    seed: Any,
    mean: Any = 0.0,
    stddev: Any = 1.0,
    dtype: Any = torch.float32,
    name: str | None = None,
    alg: Any = "auto_select",
) -> Tensor:
    """Outputs deterministic pseudorandom values from a truncated normal distribution, as TF's
    `tf.random.stateless_truncated_normal`.

    Returns:
        A tensor of the specified shape filled with random truncated normal values.
    """
    op = "random.stateless_truncated_normal"
    return _truncated(shape, mean, stddev, dtype, _stateless_generator(seed, op), op)


def stateless_categorical(
    logits: Any, num_samples: Any, seed: Any, dtype: Any = torch.int64, name: str | None = None
) -> Tensor:
    """Draws deterministic pseudorandom samples from a categorical distribution, as TF's
    `tf.random.stateless_categorical`.

    Returns:
        The drawn samples of shape `[batch_size, num_samples]`.
    """
    op = "random.stateless_categorical"
    device = logits.device if isinstance(logits, Tensor) else None
    return _categorical(logits, num_samples, dtype, _stateless_generator(seed, op, device), op)


def stateless_gamma(
    shape: Any,
    seed: Any,
    alpha: Any,
    beta: Any = None,
    dtype: Any = torch.float32,
    name: str | None = None,
) -> Tensor:
    """Outputs deterministic pseudorandom values from Gamma distributions, as TF's
    `tf.random.stateless_gamma`.

    Returns:
        A tensor of shape `shape` (which must end with the broadcast shape of alpha and beta in
        TF; here `shape + broadcast_shape` when it does not) of samples.
    """
    op = "random.stateless_gamma"
    shape, params = _stateless_param_shape(shape, alpha, beta, op)
    return _gamma(shape, alpha, beta, dtype, _stateless_generator(seed, op), op).reshape(params)


def stateless_poisson(
    shape: Any, seed: Any, lam: Any, dtype: Any = torch.int32, name: str | None = None
) -> Tensor:
    """Outputs deterministic pseudorandom values from Poisson distributions, as TF's
    `tf.random.stateless_poisson`.

    Returns:
        A tensor of the specified shape (whose trailing dimensions broadcast with `lam`).
    """
    op = "random.stateless_poisson"
    shape, params = _stateless_param_shape(shape, lam, None, op)
    return _poisson(shape, lam, dtype, _stateless_generator(seed, op), op).reshape(params)


def _stateless_param_shape(
    shape: Any, a: Any, b: Any, op: str
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """TF's stateless gamma/poisson take the full output shape, ending with the parameters'
    broadcast shape: returns (the leading sample shape, the full shape)."""
    full = _shape(shape, op)
    param_shape = tuple(np.broadcast_shapes(np.shape(_as_array(a)), np.shape(_as_array(b))))
    if len(param_shape) > len(full) or full[len(full) - len(param_shape) :] != param_shape:
        if any(d != 1 for d in param_shape):
            raise InvalidArgumentError(
                None,
                None,
                f"{op}: shape {list(full)} must end with the parameters' shape "
                f"{list(param_shape)}.",
            )
        param_shape = ()
    lead = full[: len(full) - len(param_shape)]
    return lead, full


def _as_array(value: Any) -> Any:
    if value is None:
        return 0.0
    if isinstance(value, Tensor):
        return np.empty(tuple(value.shape))
    return np.asarray(value)


def split(seed: Any, num: int = 2, alg: Any = "auto_select") -> Tensor:
    """Splits an RNG seed into `num` new seeds by adding a leading axis, as TF's
    `tf.random.split` (deterministic in `seed`).

    Returns:
        An int64 tensor of shape `[num, 2]`.
    """
    gen = _stateless_generator(seed, "random.split", "cpu")
    return torch.randint(-(2**62), 2**62, (int(num), 2), generator=gen, dtype=torch.int64)


def fold_in(seed: Any, data: Any, alg: Any = "auto_select") -> Tensor:
    """Folds in data to an RNG seed to form a new RNG seed, as TF's `tf.random.fold_in`.

    Returns:
        An int64 tensor of shape `[2]`, a function of `seed` and `data`.
    """
    first, second = _seed_pair(seed, "random.fold_in")
    data = int(data.item() if isinstance(data, Tensor) else data)
    gen = torch.Generator().manual_seed(_mix(_mix(first, second), data))
    return torch.randint(-(2**62), 2**62, (2,), generator=gen, dtype=torch.int64)


# ----------------------------------------------------------------------------- tf.random.Generator


class Generator:
    """A random number generator object, as TF's `tf.random.Generator`, over a `torch.Generator`.

    Create it with `Generator.from_seed(seed)` or `Generator.from_non_deterministic_state()`; its
    methods (`normal`, `uniform`, `truncated_normal`, `uniform_full_int`, `binomial`,
    `make_seeds`, `split`) advance its state. `state` is torch's generator state (a uint8 tensor,
    not TF's [3] int64 Philox state) and `reset(state)` restores it. The values differ from TF's.
    """

    def __init__(
        self, copy_from: Generator | None = None, state: Any = None, alg: Any = None
    ) -> None:
        self._alg = alg
        if copy_from is not None:
            self._seed = copy_from._seed
            self._generators = {}
            self._cpu().set_state(copy_from._cpu().get_state())
        else:
            self._seed = torch.Generator().seed() if state is None else None
            self._generators = {}
            if state is not None:
                self.reset(state)

    # -- construction
    @classmethod
    def from_seed(cls, seed: Any, alg: Any = None) -> Generator:
        """Creates a generator from a seed (an integer, or a list/tensor of integers).

        Returns:
            The new generator.
        """
        generator = cls.__new__(cls)
        generator._alg = alg
        generator._generators = {}
        generator.reset_from_seed(seed)
        return generator

    @classmethod
    def from_non_deterministic_state(cls, alg: Any = None) -> Generator:
        """Creates a generator seeded non-deterministically.

        Returns:
            The new generator.
        """
        return cls(alg=alg)

    @classmethod
    def from_state(cls, state: Any, alg: Any = None) -> Generator:
        """Creates a generator from a state returned by another generator's `state`.

        Returns:
            The new generator.
        """
        return cls(state=state, alg=alg)

    @classmethod
    def from_key_counter(cls, key: Any, counter: Any, alg: Any = None) -> Generator:
        """Creates a generator from a key and a counter (folded into one seed here).

        Returns:
            The new generator.
        """
        return cls.from_seed([key, counter], alg=alg)

    # -- state
    def _cpu(self) -> torch.Generator:
        return self._on(torch.device("cpu"))

    def _on(self, device: torch.device) -> torch.Generator:
        key = str(device)
        generator = self._generators.get(key)
        if generator is None:
            generator = torch.Generator(device=device)
            if self._seed is not None:
                generator.manual_seed(self._seed)
            self._generators[key] = generator
        return generator

    def _gen(self) -> torch.Generator:
        return self._on(_device())

    @property
    def state(self) -> Tensor:
        """The CPU generator's state (torch's uint8 state tensor)."""
        return self._cpu().get_state()

    @property
    def algorithm(self) -> Any:
        """The algorithm this generator was asked for (torch picks its own)."""
        return self._alg

    @property
    def key(self) -> int:
        """The seed this generator was created from (`initial_seed`)."""
        return self._cpu().initial_seed()

    def reset(self, state: Any) -> None:
        """Resets the generator to a `state` read from `state`."""
        self._seed = None
        self._generators = {}
        self._cpu().set_state(torch.as_tensor(state, dtype=torch.uint8))

    def reset_from_seed(self, seed: Any) -> None:
        """Resets the generator as if created by `from_seed(seed)`."""
        if isinstance(seed, Tensor):
            seed = seed.tolist()
        values = [int(v) for v in np.asarray(seed).reshape(-1).tolist()]
        mixed = 0
        for value in values:
            mixed = _mix(mixed, value)
        self._seed = mixed
        self._generators = {}

    def reset_from_key_counter(self, key: Any, counter: Any) -> None:
        """Resets the generator from a key and a counter."""
        self.reset_from_seed([key, counter])

    def skip(self, delta: int) -> None:
        """Advances the generator by drawing and discarding `delta` numbers."""
        if int(delta) > 0:
            torch.empty(int(delta), dtype=torch.float64, device=_device()).uniform_(
                generator=self._gen()
            )

    # -- sampling
    def normal(
        self,
        shape: Any,
        mean: Any = 0.0,
        stddev: Any = 1.0,
        dtype: Any = torch.float32,
        name: str | None = None,
    ) -> Tensor:
        """Outputs random values from a normal distribution.

        Returns:
            A tensor of the specified shape filled with random normal values.
        """
        return _normal(shape, mean, stddev, dtype, self._gen(), "Generator.normal")

    def uniform(
        self,
        shape: Any,
        minval: Any = 0,
        maxval: Any = None,
        dtype: Any = torch.float32,
        name: str | None = None,
    ) -> Tensor:
        """Outputs random values from a uniform distribution in `[minval, maxval)` (integer
        dtypes: both bounds set, or both None for the full range).

        Returns:
            A tensor of the specified shape filled with random uniform values.
        """
        return _uniform(shape, minval, maxval, dtype, self._gen(), "Generator.uniform", True)

    def truncated_normal(
        self,
        shape: Any,
        mean: Any = 0.0,
        stddev: Any = 1.0,
        dtype: Any = torch.float32,
        name: str | None = None,
    ) -> Tensor:
        """Outputs random values from a truncated normal distribution (within two stddevs).

        Returns:
            A tensor of the specified shape filled with random truncated normal values.
        """
        return _truncated(shape, mean, stddev, dtype, self._gen(), "Generator.truncated_normal")

    def uniform_full_int(
        self, shape: Any, dtype: Any = torch.int64, name: str | None = None
    ) -> Tensor:
        """Uniform integers covering the whole range of `dtype` (int32 or int64; TF's default
        uint64 is given as int64, torch having no uint64 arithmetic).

        Returns:
            A tensor of the specified shape.
        """
        want = _dtype(dtype, _INT_DTYPES, "Generator.uniform_full_int")
        gen = self._gen()
        return _full_range_int(_shape(shape, "Generator.uniform_full_int"), want, gen, gen.device)

    def binomial(
        self, shape: Any, counts: Any, probs: Any, dtype: Any = torch.int32, name: str | None = None
    ) -> Tensor:
        """Outputs samples of binomial distributions with `counts` trials and success `probs`.

        Returns:
            A tensor of the specified shape, of `dtype`.
        """
        op = "Generator.binomial"
        shape = _shape(shape, op)
        gen = self._gen()
        counts = convert_to_tensor(counts, dtype_hint=torch.float32).to(gen.device, torch.float32)
        probs = convert_to_tensor(probs, dtype_hint=torch.float32).to(gen.device, torch.float32)
        counts, probs = (
            t.expand(shape).contiguous() for t in torch.broadcast_tensors(counts, probs)
        )
        return torch.binomial(counts, probs, generator=gen).to(_dtypes.as_dtype(dtype))

    def make_seeds(self, count: int = 1) -> Tensor:
        """Generates seeds for stateless random ops.

        Returns:
            An int64 tensor of shape `[2, count]`.
        """
        return torch.randint(
            -(2**62), 2**62, (2, int(count)), generator=self._cpu(), dtype=torch.int64
        )

    def split(self, count: int = 1) -> list[Generator]:
        """Returns `count` new generators seeded from this one (this one's state advances).

        Returns:
            A list of `count` generators.
        """
        seeds = self.make_seeds(count)
        return [Generator.from_seed(seeds[:, i]) for i in range(int(count))]


_global_generator: Generator | None = None


def get_global_generator() -> Generator:
    """Retrieves the global generator, created non-deterministically on first use, as TF's
    `tf.random.get_global_generator`.

    Returns:
        The global `tf.random.Generator`.
    """
    global _global_generator
    if _global_generator is None:
        _global_generator = Generator.from_non_deterministic_state()
    return _global_generator


def set_global_generator(generator: Generator) -> None:
    """Replaces the global generator with `generator`, as TF's `tf.random.set_global_generator`."""
    global _global_generator
    if not isinstance(generator, Generator):
        raise TypeError(
            f"set_global_generator expects a tf.random.Generator, got {type(generator).__name__}."
        )
    _global_generator = generator
