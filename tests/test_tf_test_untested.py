"""`tf.test` paths no other default-run test reached in-process: the absltest assertions
`tf.test.TestCase` inherits (assertEmpty, assertStartsWith, assertSameElements, ...), TF's
assertNotAllEqual / assertNDArrayNear / assertAllGreaterEqual / assertRaisesWithPredicateMatch,
the `TempFile` helpers, `Benchmark.evaluate`, `benchmark_config`, `disable_with_predicate`,
`with_eager_op_as_function` and the build queries, each against TF 2.15's behaviour."""

from __future__ import annotations

import os
import unittest

import numpy as np
import pytest
import torch

import torchestimator as tf


class _Case(tf.test.TestCase):
    def runTest(self) -> None:  # (a bare TestCase instance to call the assertions on)
        pass


@pytest.fixture
def case() -> _Case:
    made = _Case()
    yield made
    made.doCleanups()


def _fails(fn, *args, match: str | None = None, **kwargs) -> None:
    with pytest.raises(AssertionError, match=match):
        fn(*args, **kwargs)


def test_assert_not_all_equal_fails_exactly_when_all_equal_passes(case) -> None:
    case.assertNotAllEqual([1, 2, 3], [1, 2, 4])
    case.assertNotAllEqual(tf.constant([1.0, 2.0]), np.array([1.0, 2.5]))
    _fails(case.assertNotAllEqual, [1, 2, 3], tf.constant([1, 2, 3]),
           match="equal at all elements")
    _fails(case.assertNotAllEqual, np.zeros((2, 2)), np.zeros((2, 2)), msg="ctx", match="ctx")


def test_assert_all_greater_equal(case) -> None:
    case.assertAllGreaterEqual(tf.constant([1.0, 2.0, 3.0]), 1.0)
    _fails(case.assertAllGreaterEqual, [1.0, 0.5], 1.0, match="greater than or equal to 1.0")


def test_assert_nd_array_near_uses_the_norm_of_the_difference(case) -> None:
    a = np.array([[1.0, 2.0], [3.0, 4.0]])
    case.assertNDArrayNear(a, a + 0.01, 0.1)  # norm 0.02 < 0.1
    _fails(case.assertNDArrayNear, a, a + 0.06, 0.1)  # each off by 0.06 but the norm is 0.12
    _fails(case.assertNDArrayNear, a, a, 0.0)  # TF's test is strict: norm < err


def test_assert_empty_and_not_empty(case) -> None:
    case.assertEmpty([])
    case.assertEmpty({})
    case.assertNotEmpty("x")
    _fails(case.assertEmpty, [1], match="has length of 1")
    _fails(case.assertNotEmpty, (), match="has length of 0")
    _fails(case.assertEmpty, iter([]), match="Expected a Sized object")
    _fails(case.assertNotEmpty, (i for i in [1]), match="Expected a Sized object")


def test_assert_starts_ends_with_and_between(case) -> None:
    case.assertStartsWith("tensorflow", "tensor")
    case.assertEndsWith("tensorflow", "flow")
    _fails(case.assertStartsWith, "tensorflow", "flow", match="does not start with 'flow'")
    _fails(case.assertEndsWith, "tensorflow", "tensor", match="does not end with 'tensor'")
    case.assertBetween(2, 1, 3)
    case.assertBetween(1, 1, 1)
    _fails(case.assertBetween, 4, 1, 3, match="not between 1 and 3")
    _fails(case.assertBetween, 0, 1, 3)


def test_assert_items_equal_counts_duplicates(case) -> None:
    case.assertItemsEqual([1, 2, 2, 3], [3, 2, 1, 2])
    case.assertItemsEqual([[1], [2]], [[2], [1]])
    _fails(case.assertItemsEqual, [1, 2, 2], [1, 2])


def test_assert_same_elements_ignores_order_and_duplicates(case) -> None:
    case.assertSameElements([1, 2, 2, 3], [3, 1, 2])
    case.assertSameElements([[1], [2]], [[2], [1], [1]])  # unhashable elements compare too
    _fails(case.assertSameElements, [1, 2], [1, 3], match=r"missing:\n  \[2\][\s\S]*present:\n  \[3\]")
    _fails(case.assertSameElements, "ab", "ba", match="Passing string/bytes")


def test_assert_raises_with_predicate_match(case) -> None:
    with case.assertRaisesWithPredicateMatch(ValueError, r"bad \d"):
        raise ValueError("a bad 3 value")
    with case.assertRaisesWithPredicateMatch(tf.errors.InvalidArgumentError,
                                             lambda e: "shape" in e.message):
        raise tf.errors.InvalidArgumentError(None, None, "wrong shape")
    # No exception, a message that does not match, another type: all AssertionErrors.
    with pytest.raises(AssertionError, match="ValueError not raised"):
        with case.assertRaisesWithPredicateMatch(ValueError, "x"):
            pass
    with pytest.raises(AssertionError, match="Exception of type .*ValueError.*: other"):
        with case.assertRaisesWithPredicateMatch(ValueError, "wanted"):
            raise ValueError("other")
    with pytest.raises(AssertionError, match="Exception of type .*KeyError"):
        with case.assertRaisesWithPredicateMatch(ValueError, lambda e: True):
            raise KeyError("k")


def test_temp_file_helpers(case) -> None:
    made = case.create_tempfile("sub/f.bin")
    made.write_bytes(b"ab")
    made.write_bytes(b"cd", mode="ab")
    assert made.read_bytes() == b"abcd"
    with made.open_bytes() as f:
        assert f.read() == b"abcd"
    with made.open_bytes("w") as f:  # 'b' implied
        f.write(b"\x00\x01")
    assert made.read_bytes() == b"\x00\x01"
    made.write_text("héllo")
    made.write_text("!", mode="a")
    assert made.read_text() == "héllo!"
    assert os.path.dirname(made.full_path).endswith("sub")
    folder = case.create_tempdir()
    inner = folder.mkdir("a/b")
    assert os.path.isdir(inner.full_path)
    assert inner.create_file("c.txt", "x").read_text() == "x"
    with pytest.raises(ValueError, match="'../up' is not a relative path inside"):
        folder.mkdir("../up")


def test_benchmark_evaluate_and_config() -> None:
    out = tf.test.Benchmark().evaluate({"a": tf.constant([1, 2]), "b": [tf.constant(3.0)]})
    assert isinstance(out["a"], np.ndarray) and out["a"].tolist() == [1, 2]
    assert float(out["b"][0]) == 3.0
    config = tf.test.benchmark_config()
    assert isinstance(config, tf.compat.v1.ConfigProto)


def test_disable_with_predicate_skips_only_when_true() -> None:
    ran = []

    class T(tf.test.TestCase):
        @tf.test.disable_with_predicate(lambda: True, "off here")
        def test_off(self):
            ran.append("off")

        @tf.test.disable_with_predicate(lambda: False, "unused")
        def test_on(self):
            ran.append("on")

    result = unittest.TestResult()
    unittest.defaultTestLoader.loadTestsFromTestCase(T).run(result)
    assert ran == ["on"]
    assert [(t.id().rsplit(".", 1)[-1], why) for t, why in result.skipped] == [("test_off", "off here")]
    assert T.test_off.__name__ == "test_off"


def test_with_eager_op_as_function_returns_the_class() -> None:
    class T(tf.test.TestCase):
        pass

    assert tf.test.with_eager_op_as_function(T) is T
    assert tf.test.with_eager_op_as_function(only_as_function=True)(T) is T


def test_build_queries() -> None:
    rocm = getattr(torch.version, "hip", None) is not None
    assert tf.test.is_built_with_rocm() is rocm
    assert tf.test.is_built_with_gpu_support() is (rocm or torch.version.cuda is not None)
