"""The pieces of `tf.test` (see the package docstring)."""

from __future__ import annotations

import atexit
import collections.abc
import contextlib
import functools
import math
import os
import re
import shutil
import sys
import tempfile
import time
import types
import unittest
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import torch

from torchestimator import _dtypes
from torchestimator._engine import storage
from torchestimator._ops.convert import convert_to_tensor
from torchestimator._refused import refuse
from torchestimator._sparse_tensor import SparseTensor
from torchestimator.errors import OpError
from torchestimator.test._tempfiles import TempDir, TempFile


def _to_numpy(value: Any) -> Any:
    """Tensors, variables, SparseTensors, IndexedSlices and nested structures of them as numpy."""

    if isinstance(value, torch.Tensor):
        value = value.detach()
        if value.dtype == torch.bfloat16:
            value = value.float()
        return value.cpu().numpy()
    if isinstance(value, SparseTensor):
        return value
    if isinstance(value, dict):
        return {k: _to_numpy(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)) and any(isinstance(v, (torch.Tensor, dict, list, tuple)) for v in value):
        return type(value)(_to_numpy(v) for v in value) if not hasattr(value, "_fields") else \
            type(value)(*(_to_numpy(v) for v in value))
    if hasattr(value, "__array__") and not isinstance(value, np.ndarray):
        return np.asarray(value)
    return value


_PROGRAM_TEMP_DIR: list[str] = []


def _program_temp_dir() -> str:
    """The folder every test's temporary directory is made in, made once per process (under
    `TEST_TMPDIR` when set) and removed with all it holds when the process exits, as TF's
    `googletest.GetTempDir`."""

    if not _PROGRAM_TEMP_DIR:
        parent = os.environ.get("TEST_TMPDIR") or None
        if parent:
            os.makedirs(parent, exist_ok=True)
        main = os.path.basename(getattr(sys.modules.get("__main__"), "__file__", None) or "test")
        path = tempfile.mkdtemp(prefix=f"{main.removesuffix('.py')}_", dir=parent)
        atexit.register(shutil.rmtree, path, True)
        _PROGRAM_TEMP_DIR.append(path)
    return _PROGRAM_TEMP_DIR[0]


def _remove(path: str) -> None:
    """Removes a file or a directory tree; nothing when it is already gone."""

    if os.path.isdir(path) and not os.path.islink(path):
        storage.rmtree(path)
    else:
        storage.remove(path)


class TestCase(unittest.TestCase):
    """Base class for tests that need to test TensorFlow (TF's `tf.test.TestCase`): unittest's
    TestCase with TF's tensor assertions and `evaluate` (tensors to numpy, as TF's eager
    `self.evaluate`)."""

    def evaluate(self, tensors: Any) -> Any:
        """Evaluates tensors and returns numpy values (nested structures kept)."""
        return _to_numpy(tensors)

    def get_temp_dir(self) -> str:
        """A temporary directory unique to this test (created once per test case), inside the
        program's temporary folder, which is removed when the program exits (TF's)."""
        if not hasattr(self, "_tf_tempdir"):
            self._tf_tempdir = tempfile.mkdtemp(prefix=f"{type(self).__name__}_",
                                                dir=_program_temp_dir())
        return self._tf_tempdir

    def create_tempdir(self, name: str | None = None, cleanup: Any = None) -> TempDir:
        """Creates a directory for this test (absltest's): `name` relative to the test's
        temporary directory (parents made), or a new unique one when None. Returns a `TempDir`
        (`full_path`, `create_file`, `mkdir`, usable as a path). It is removed when the test
        ends unless `cleanup` is 'off' (everything goes when the program exits)."""

        made = TempDir.create(self.get_temp_dir(), name)
        self._remove_after_test(made.full_path, cleanup)
        return made

    def create_tempfile(self, file_path: str | None = None, content: str | bytes | None = None,
                        mode: str = "w", encoding: str = "utf8", errors: str = "strict",
                        cleanup: Any = None) -> TempFile:
        """Creates a file for this test holding `content` (absltest's): `file_path` relative to
        the test's temporary directory (parents made), or a new unique name when None. Returns
        a `TempFile` (`full_path`, `read_text`, `write_bytes`, `open_text`, ..., usable as a
        path). It is removed when the test ends unless `cleanup` is 'off'."""

        made = TempFile.create(self.get_temp_dir(), file_path, content, mode, encoding, errors)
        self._remove_after_test(made.full_path, cleanup)
        return made

    def _remove_after_test(self, path: str, cleanup: Any) -> None:
        """Removes `path` when the test ends (absltest's `TempFileCleanup.ALWAYS`), unless
        `cleanup` says 'off' (a string or absl's enum value)."""

        if str(getattr(cleanup, "value", cleanup)).lower() in ("off", "false"):
            return
        self.addCleanup(_remove, path)

    @contextlib.contextmanager
    def cached_session(self, graph: Any = None, config: Any = None, use_gpu: bool = True,
                       force_gpu: bool = False) -> Iterator[TestCase]:
        """TF's session block for graph tests: ops run eagerly, so the block runs as is and
        yields this test (whose `evaluate` reads values)."""
        yield self

    session = cached_session

    # -- assertions -------------------------------------------------------------------------------

    def _arrays(self, a: Any, b: Any) -> tuple[np.ndarray, np.ndarray]:
        return np.asarray(_to_numpy(a)), np.asarray(_to_numpy(b))

    def assertAllClose(self, a: Any, b: Any, rtol: float = 1e-6, atol: float = 1e-6, msg: str | None = None) -> None:
        """Asserts that two structures of numpy arrays or Tensors have near values."""
        a, b = _to_numpy(a), _to_numpy(b)
        if isinstance(a, dict) or isinstance(b, dict):
            self.assertIsInstance(a, dict, msg)
            self.assertIsInstance(b, dict, msg)
            self.assertEqual(set(a), set(b), msg)
            for key in a:
                self.assertAllClose(a[key], b[key], rtol=rtol, atol=atol, msg=f"{msg or ''} key {key!r}")
            return
        if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and \
                any(isinstance(x, (dict, list, tuple, np.ndarray)) for x in (*a, *b)):
            try:
                np.asarray(a, dtype=float), np.asarray(b, dtype=float)
            except (TypeError, ValueError):
                self.assertEqual(len(a), len(b), msg)
                for x, y in zip(a, b):
                    self.assertAllClose(x, y, rtol=rtol, atol=atol, msg=msg)
                return
        a_arr, b_arr = np.asarray(a), np.asarray(b)
        self.assertEqual(a_arr.shape, b_arr.shape, f"Shape mismatch: expected {a_arr.shape}, got {b_arr.shape}. "
                                                   f"{msg or ''}")
        np.testing.assert_allclose(b_arr, a_arr, rtol=rtol, atol=atol, err_msg=msg or "", equal_nan=True)

    def assertAllCloseAccordingToType(self, a: Any, b: Any, rtol: float = 1e-6, atol: float = 1e-6,
                                      float_rtol: float = 1e-6, float_atol: float = 1e-6,
                                      half_rtol: float = 1e-3, half_atol: float = 1e-3,
                                      bfloat16_rtol: float = 1e-2, bfloat16_atol: float = 1e-2,
                                      msg: str | None = None) -> None:
        """Like assertAllClose, with tolerances chosen by the values' dtype."""
        dtype = getattr(a, "dtype", None) or getattr(b, "dtype", None)
        if dtype in (torch.float32, np.float32, torch.complex64):
            rtol, atol = max(rtol, float_rtol), max(atol, float_atol)
        elif dtype in (torch.float16, np.float16):
            rtol, atol = max(rtol, half_rtol), max(atol, half_atol)
        elif dtype == torch.bfloat16:
            rtol, atol = max(rtol, bfloat16_rtol), max(atol, bfloat16_atol)
        self.assertAllClose(a, b, rtol=rtol, atol=atol, msg=msg)

    def assertNotAllClose(self, a: Any, b: Any, rtol: float = 1e-6, atol: float = 1e-6, **kwargs: Any) -> None:
        """Asserts that two values are not all close."""
        try:
            self.assertAllClose(a, b, rtol=rtol, atol=atol)
        except AssertionError:
            return
        raise AssertionError("The two values are close at all elements.")

    def assertAllEqual(self, a: Any, b: Any, msg: str | None = None) -> None:
        """Asserts that two numpy arrays or Tensors have the same values (and shapes)."""
        a_arr, b_arr = self._arrays(a, b)
        if a_arr.shape != b_arr.shape and not (a_arr.size == b_arr.size == 1):
            raise AssertionError(f"Shape mismatch: expected {a_arr.shape}, got {b_arr.shape} with contents "
                                 f"{b_arr}. {msg or ''}")
        np.testing.assert_array_equal(a_arr.reshape(b_arr.shape) if a_arr.size == b_arr.size else a_arr, b_arr,
                                      err_msg=msg or "")

    def assertNotAllEqual(self, a: Any, b: Any, msg: str | None = None) -> None:
        """Asserts that two values differ somewhere (TF's: fails exactly when `assertAllEqual`
        passes)."""
        try:
            self.assertAllEqual(a, b)
        except AssertionError:
            return
        raise AssertionError(f"The two values are equal at all elements. {msg or ''}")

    def _assert_all(self, a: Any, check: Callable[[np.ndarray], np.ndarray], what: str) -> None:
        arr = np.asarray(_to_numpy(a))
        if not np.all(check(arr)):
            raise AssertionError(f"{arr} is not {what}")

    def assertAllGreater(self, a: Any, comparison_target: Any) -> None:
        """Asserts every element of `a` > `comparison_target`."""
        self._assert_all(a, lambda x: x > comparison_target, f"all greater than {comparison_target}")

    def assertAllGreaterEqual(self, a: Any, comparison_target: Any) -> None:
        """Asserts every element of `a` >= `comparison_target`."""
        self._assert_all(a, lambda x: x >= comparison_target, f"all greater than or equal to {comparison_target}")

    def assertAllLess(self, a: Any, comparison_target: Any) -> None:
        """Asserts every element of `a` < `comparison_target`."""
        self._assert_all(a, lambda x: x < comparison_target, f"all less than {comparison_target}")

    def assertAllLessEqual(self, a: Any, comparison_target: Any) -> None:
        """Asserts every element of `a` <= `comparison_target`."""
        self._assert_all(a, lambda x: x <= comparison_target, f"all less than or equal to {comparison_target}")

    def assertAllInRange(self, target: Any, lower_bound: Any, upper_bound: Any, open_lower_bound: bool = False,
                         open_upper_bound: bool = False) -> None:
        """Asserts every element of `target` is in the range [lower_bound, upper_bound] (each
        bound open when asked)."""
        arr = np.asarray(_to_numpy(target))
        if not np.issubdtype(arr.dtype, np.number):
            raise AssertionError(f"The value of {target} does not have an ordered numeric type, instead it has "
                                 f"type: {arr.dtype}")
        low = arr > lower_bound if open_lower_bound else arr >= lower_bound
        high = arr < upper_bound if open_upper_bound else arr <= upper_bound
        if not np.all(low & high):
            bounds = f"{'(' if open_lower_bound else '['}{lower_bound}, {upper_bound}{')' if open_upper_bound else ']'}"
            raise AssertionError(f"{np.count_nonzero(~(low & high))} of the {arr.size} element(s) are outside the "
                                 f"range {bounds}: {arr[~(low & high)]}")

    def assertAllInSet(self, target: Any, expected_set: Any) -> None:
        """Asserts every element of `target` is in `expected_set`."""
        arr = np.asarray(_to_numpy(target)).reshape(-1)
        outside = set(arr.tolist()) - set(np.asarray(list(expected_set)).reshape(-1).tolist())
        if outside:
            raise AssertionError(f"{sorted(outside)} not in {expected_set}")

    def assertNear(self, f1: float, f2: float, err: float, msg: str | None = None) -> None:
        """Asserts that two floats are near each other (|f1 - f2| <= err)."""
        self.assertTrue(f1 == f2 or math.fabs(f1 - f2) <= err,
                        f"{f1:f} != {f2:f} +/- {err:f}{f' ({msg})' if msg else ''}")

    def assertArrayNear(self, farray1: Any, farray2: Any, err: float, msg: str | None = None) -> None:
        """Asserts that two float arrays are near each other, element by element."""
        self.assertEqual(len(farray1), len(farray2), msg=msg)
        for f1, f2 in zip(farray1, farray2):
            self.assertNear(float(f1), float(f2), err, msg=msg)

    def assertNDArrayNear(self, ndarray1: Any, ndarray2: Any, err: float, msg: str | None = None) -> None:
        """Asserts that two numpy arrays have near values: the norm of their difference is
        below `err` (TF's strict `<`)."""
        self.assertTrue(np.linalg.norm(np.asarray(ndarray1) - np.asarray(ndarray2)) < err, msg=msg)

    def assertDTypeEqual(self, target: Any, expected_dtype: Any) -> None:
        """Asserts `target` (a tensor, array or list of them) has dtype `expected_dtype`."""

        want = _dtypes.as_dtype(expected_dtype)
        targets = target if isinstance(target, (list, tuple)) else [target]
        for t in targets:
            got = t.dtype if isinstance(t, torch.Tensor) else _dtypes.as_dtype(np.asarray(t).dtype)
            self.assertEqual(got, want)

    def assertShapeEqual(self, input_a: Any, input_b: Any, msg: str | None = None) -> None:
        """Asserts that a numpy array and a tensor have the same shape."""
        self.assertEqual(tuple(np.shape(_to_numpy(input_a))), tuple(np.shape(_to_numpy(input_b))), msg)

    def assertLen(self, container: Any, expected_len: int, msg: str | None = None) -> None:
        """Asserts `len(container) == expected_len`."""
        if len(container) != expected_len:
            raise AssertionError(f"{container!r} has length of {len(container)}, expected {expected_len}. "
                                 f"{msg or ''}")

    def assertEmpty(self, container: Any, msg: str | None = None) -> None:
        """Asserts the container is empty (a Sized object, as absltest's)."""
        self._check_sized(container, msg)
        self.assertLen(container, 0, msg)

    def assertNotEmpty(self, container: Any, msg: str | None = None) -> None:
        """Asserts the container is not empty (a Sized object, as absltest's)."""
        self._check_sized(container, msg)
        if not len(container):
            raise AssertionError(f"{container!r} has length of 0. {msg or ''}")

    def _check_sized(self, container: Any, msg: str | None) -> None:
        if not isinstance(container, collections.abc.Sized):
            raise AssertionError(f"Expected a Sized object, got: {type(container).__name__!r}. "
                                 f"{msg or ''}")

    def assertStartsWith(self, actual: str, expected_start: str, msg: str | None = None) -> None:
        """Asserts `actual` starts with `expected_start`."""
        self.assertTrue(actual.startswith(expected_start), msg or f"{actual!r} does not start with "
                                                                   f"{expected_start!r}")

    def assertEndsWith(self, actual: str, expected_end: str, msg: str | None = None) -> None:
        """Asserts `actual` ends with `expected_end`."""
        self.assertTrue(actual.endswith(expected_end), msg or f"{actual!r} does not end with {expected_end!r}")

    def assertBetween(self, value: Any, minv: Any, maxv: Any, msg: str | None = None) -> None:
        """Asserts `minv <= value <= maxv`."""
        self.assertTrue(minv <= value <= maxv, msg or f"{value!r} is not between {minv!r} and {maxv!r}")

    def assertItemsEqual(self, expected_seq: Any, actual_seq: Any, msg: str | None = None) -> None:
        """Asserts the two sequences hold the same items, in any order."""
        self.assertCountEqual(expected_seq, actual_seq, msg)

    def assertSameElements(self, expected_seq: Any, actual_seq: Any, msg: str | None = None) -> None:
        """Asserts the two sequences hold the same elements, ignoring order and duplicates
        (absltest's: strings are refused, unhashable elements compared by equality)."""
        if isinstance(expected_seq, (str, bytes)) or isinstance(actual_seq, (str, bytes)):
            raise AssertionError(
                "Passing string/bytes to assertSameElements is usually a bug. Did you mean to "
                f"use assertEqual?\nExpected: {expected_seq!r}\nActual: {actual_seq!r}")
        expected, actual = list(expected_seq), list(actual_seq)
        missing = [e for i, e in enumerate(expected) if e not in actual and e not in expected[:i]]
        unexpected = [e for i, e in enumerate(actual) if e not in expected and e not in actual[:i]]
        if missing or unexpected:
            parts = ([f"Expected, but missing:\n  {missing!r}"] if missing else []) + \
                    ([f"Unexpected, but present:\n  {unexpected!r}"] if unexpected else [])
            raise AssertionError("\n".join(parts) + (f"\n{msg}" if msg else ""))

    def assertRaisesOpError(self, expected_err_re_or_predicate: Any) -> Any:
        """A context manager asserting a `tf.errors.OpError` whose message matches."""

        return self.assertRaisesRegex(OpError, expected_err_re_or_predicate)

    @contextlib.contextmanager
    def assertRaisesWithPredicateMatch(self, exception_type: Any,
                                       expected_err_re_or_predicate: Any) -> Iterator[None]:
        """A context manager asserting `exception_type` whose message matches (a regex searched
        in the message, or a predicate on the exception). Another exception, or one whose
        message does not match, becomes an AssertionError naming it (TF's)."""
        if callable(expected_err_re_or_predicate):
            predicate = expected_err_re_or_predicate
        else:
            def predicate(e: BaseException) -> Any:
                return re.search(expected_err_re_or_predicate, str(e))
        try:
            yield
        except Exception as e:  # noqa: BLE001 (TF's: any exception is checked)
            if not isinstance(e, exception_type) or not predicate(e):
                raise AssertionError(f"Exception of type {type(e)}: {e}") from e
        else:
            raise AssertionError(f"{exception_type.__name__} not raised")


def main(argv: list[str] | None = None) -> None:
    """Runs all unit tests (TF's `tf.test.main`: unittest's main on `__main__`)."""
    unittest.main(module="__main__", argv=argv if argv is not None else sys.argv)


def is_built_with_cuda() -> bool:
    """Returns whether the installed torch was built with CUDA support."""
    return torch.version.cuda is not None


def is_built_with_rocm() -> bool:
    """Returns whether the installed torch was built with ROCm support."""
    return getattr(torch.version, "hip", None) is not None


def is_built_with_gpu_support() -> bool:
    """Returns whether the installed torch was built with GPU support (CUDA or ROCm)."""
    return is_built_with_cuda() or is_built_with_rocm()


def is_built_with_xla() -> bool:
    """Returns whether TensorFlow was built with XLA support: there is no XLA here."""
    return False


def is_gpu_available(cuda_only: bool = False, min_cuda_compute_capability: tuple[int, int] | None = None) -> bool:
    """Returns whether a GPU is available (TF's deprecated `tf.test.is_gpu_available`), with at
    least `min_cuda_compute_capability` (major, minor) when given."""
    if not torch.cuda.is_available():
        return False
    if cuda_only and not is_built_with_cuda():
        return False
    if min_cuda_compute_capability is None:
        return True
    return any(torch.cuda.get_device_capability(i) >= tuple(min_cuda_compute_capability)
               for i in range(torch.cuda.device_count()))


def gpu_device_name() -> str:
    """Returns the name of a GPU device if available ('/device:GPU:0') or the empty string."""
    return "/device:GPU:0" if torch.cuda.is_available() else ""


def compute_gradient(f: Callable[..., Any], x: Any, delta: float | None = None) -> tuple[list, list]:
    """Computes the theoretical and numeric Jacobians of `f` at `x` (TF's
    `tf.test.compute_gradient(f, x, delta=None)`): returns `(theoretical, numerical)`, each a
    list with one 2-D numpy array per element of `x`, of shape
    `[x_i.size, y.size]` (central differences with step `delta`, TF's default 1e-3 in float32)."""

    xs = [convert_to_tensor(v) for v in x]
    xs = [v.detach().clone().to(torch.float64 if v.dtype == torch.float64 else v.dtype) for v in xs]
    step = delta if delta is not None else 1e-3
    theoretical, numerical = [], []
    for i, xi in enumerate(xs):
        def fi(value: torch.Tensor, i: int = i) -> torch.Tensor:
            args = list(xs)
            args[i] = value
            return torch.as_tensor(f(*args))
        y = fi(xi)
        jac = torch.autograd.functional.jacobian(fi, xi)
        theoretical.append(jac.reshape(y.numel(), xi.numel()).T.detach().cpu().numpy())
        num = np.zeros((xi.numel(), y.numel()), dtype=np.float64 if xi.dtype == torch.float64 else np.float32)
        flat = xi.reshape(-1)
        for k in range(xi.numel()):
            plus, minus = flat.clone(), flat.clone()
            plus[k] += step
            minus[k] -= step
            diff = fi(plus.reshape(xi.shape)) - fi(minus.reshape(xi.shape))
            num[k] = (diff.reshape(-1) / (2 * step)).detach().cpu().numpy()
        numerical.append(num)
    return theoretical, numerical


class Benchmark:
    """Abstract class that provides helpers for TensorFlow benchmarks (TF's `tf.test.Benchmark`):
    `report_benchmark` records a result (printed, and returned), `evaluate` reads tensors."""

    def __init__(self) -> None:
        self.reported: list[dict] = []

    def report_benchmark(self, iters: int | None = None, cpu_time: float | None = None,
                         wall_time: float | None = None, throughput: float | None = None,
                         extras: dict | None = None, name: str | None = None,
                         metrics: list | None = None) -> dict:
        """Reports a benchmark (TF's fields), printing it as one line."""
        entry = {"name": name or type(self).__name__, "iters": iters, "cpu_time": cpu_time,
                 "wall_time": wall_time, "throughput": throughput, "extras": extras or {},
                 "metrics": metrics or []}
        self.reported.append(entry)
        print(f"benchmark {entry['name']}: " + ", ".join(f"{k}={v}" for k, v in entry.items()
                                                         if k != "name" and v not in (None, {}, [])))
        return entry

    def evaluate(self, tensors: Any) -> Any:
        """Tensors as numpy values."""
        return _to_numpy(tensors)

    def run_op_benchmark(self, sess: Any, op_or_tensor: Callable[[], Any], feed_dict: Any = None,
                         burn_iters: int = 2, min_iters: int = 10, store_trace: bool = False,
                         store_memory_usage: bool = True, name: str | None = None, extras: dict | None = None,
                         mbs: int = 0) -> dict:
        """Times `op_or_tensor` (a callable, eagerly; `sess` is ignored) over `min_iters` runs
        after `burn_iters` warm-up runs and reports the median wall time."""
        if not callable(op_or_tensor):
            raise TypeError("run_op_benchmark runs eagerly: pass a callable producing the op's result.")
        for _ in range(burn_iters):
            op_or_tensor()
        times = []
        for _ in range(min_iters):
            start = time.perf_counter()
            op_or_tensor()
            times.append(time.perf_counter() - start)
        wall = float(np.median(times))
        throughput = mbs / wall if mbs else None
        return self.report_benchmark(iters=min_iters, wall_time=wall, throughput=throughput, extras=extras, name=name)


def benchmark_config() -> Any:
    """TF's benchmark session config (a ConfigProto with graph optimizations off): a ConfigProto
    here, accepted and unused."""
    from torchestimator.compat.v1 import (  # lazy: heavy (torchestimator.compat.v1._legacy_ops, 127 ms)
        ConfigProto,
    )

    return ConfigProto()


def disable_with_predicate(pred: Callable[[], bool], skip_message: str) -> Callable:
    """Decorator skipping a test method when `pred()` is true (TF's `tf.test.disable_with_predicate`)."""
    def decorator(func: Callable) -> Callable:
        @functools.wraps(func)
        def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
            if pred():
                self.skipTest(skip_message)
            return func(self, *args, **kwargs)
        return wrapper
    return decorator


def with_eager_op_as_function(cls: Any = None, only_as_function: bool = False) -> Any:
    """TF's class decorator running tests with ops as functions too: ops here are Python
    functions already, so the class is returned unchanged."""
    return cls if cls is not None else (lambda c: c)


def _sync_devices() -> None:
    """Synchronizes all devices (waits for pending CUDA work)."""
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        torch.cuda.synchronize()


experimental = types.SimpleNamespace(sync_devices=_sync_devices)
assert_equal_graph_def = refuse("tf.test.assert_equal_graph_def",
                                "there are no GraphDefs: compare SavedModel signatures or the values directly")
create_local_cluster = refuse("tf.test.create_local_cluster",
                              "TF's in-process gRPC servers do not exist: test a cluster with real processes "
                              "started by `torchestimator launch` or torchrun (see tests/distribute)")
