"""tf.test: TestCase's TF assertions and evaluate, main (run on a real test file in a
subprocess), compute_gradient, Benchmark and the device queries."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import torch

import torchestimator as tf


class _Case(tf.test.TestCase):
    def runTest(self):  # noqa: N802 - unittest's name
        pass


CASE = _Case()


def test_assert_all_close_and_equal():
    CASE.assertAllClose(tf.constant([1.0, 2.0]), [1.0, 2.0000001])
    CASE.assertAllClose({"a": tf.constant([1.0]), "b": [np.array(2.0)]}, {"a": [1.0], "b": [2.0]})
    with pytest.raises(AssertionError):
        CASE.assertAllClose(tf.constant([1.0, 2.0]), [1.0, 2.1])
    with pytest.raises(AssertionError, match="Shape mismatch"):
        CASE.assertAllClose(tf.zeros([2, 2]), tf.zeros([4]))
    CASE.assertAllEqual(tf.constant([[1, 2]]), np.array([[1, 2]]))
    with pytest.raises(AssertionError):
        CASE.assertAllEqual(tf.constant([1, 2]), [1, 3])
    CASE.assertNotAllClose([1.0], [2.0])
    CASE.assertAllCloseAccordingToType(tf.constant([1.0], dtype=tf.float16), [1.0004])


def test_range_and_set_assertions():
    CASE.assertAllInRange(tf.constant([0.0, 0.5, 1.0]), 0.0, 1.0)
    with pytest.raises(AssertionError, match=r"outside the range \(0.0, 1.0\]"):
        CASE.assertAllInRange(tf.constant([0.0, 0.5]), 0.0, 1.0, open_lower_bound=True)
    CASE.assertAllGreater(tf.constant([2, 3]), 1)
    CASE.assertAllLessEqual(tf.constant([2, 3]), 3)
    with pytest.raises(AssertionError):
        CASE.assertAllLess(tf.constant([2, 3]), 3)
    CASE.assertAllInSet(tf.constant([1, 2, 1]), {1, 2})
    CASE.assertNear(1.0, 1.05, 0.1)
    CASE.assertArrayNear([1.0, 2.0], [1.01, 2.0], 0.02)
    CASE.assertDTypeEqual(tf.constant([1.0]), tf.float32)
    CASE.assertShapeEqual(np.zeros([2, 3]), tf.zeros([2, 3]))
    CASE.assertLen([1, 2], 2)
    with CASE.assertRaisesOpError("must have"):
        raise tf.errors.InvalidArgumentError(None, None, "x must have rank 2")


def test_evaluate_and_sessions():
    out = CASE.evaluate({"a": tf.constant([1, 2]), "b": (tf.constant(3.0), 4)})
    assert isinstance(out["a"], np.ndarray) and out["a"].tolist() == [1, 2] and out["b"][0] == 3.0
    with CASE.cached_session() as sess:
        assert sess.evaluate(tf.constant(5)) == 5
    assert CASE.get_temp_dir() == CASE.get_temp_dir()


def test_main_runs_a_test_file(tmp_path):
    script = tmp_path / "my_test.py"
    script.write_text(textwrap.dedent("""
        import torchestimator as tf

        class MyTest(tf.test.TestCase):
            def test_add(self):
                self.assertAllEqual(tf.add(1, 2), 3)

            def test_fails(self):
                self.assertAllClose(tf.constant(1.0), 2.0)

        if __name__ == "__main__":
            tf.test.main()
    """))
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 1 and "Ran 2 tests" in result.stderr and "failures=1" in result.stderr


def test_temporary_directories_are_removed_when_the_program_exits(tmp_path):
    script = tmp_path / "temp_test.py"
    script.write_text(textwrap.dedent("""
        import os
        import torchestimator as tf

        class TempTest(tf.test.TestCase):
            def test_writes(self):
                first = self.get_temp_dir()
                assert first == self.get_temp_dir() and os.path.isdir(first)
                made = self.create_tempdir()
                assert made.create_file("a/b.txt", "x").read_text() == "x"
                assert os.path.isdir(made.mkdir("c").full_path)
                named = self.create_tempdir("runs/1", cleanup="off")
                assert os.fspath(named) == os.path.join(first, "runs", "1")
                data = self.create_tempfile(content=b"y")
                assert data.read_bytes() == b"y" and open(data, "rb").read() == b"y"
                with self.assertRaisesRegex(ValueError, "not a relative path"):
                    self.create_tempfile("../outside")
                print("TEMP", first, made.full_path, data.full_path, named.full_path)
                TempTest.made = (made.full_path, data.full_path, named.full_path)

            def test_writes_later(self):
                made, data, named = TempTest.made
                assert not os.path.exists(made) and not os.path.exists(data)  # at the test's end
                assert os.path.isdir(named)  # cleanup='off': at the program's exit

        if __name__ == "__main__":
            tf.test.main()
    """))
    parent = tmp_path / "tmp"
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                            timeout=120, env={**os.environ, "TEST_TMPDIR": str(parent)})
    assert result.returncode == 0, result.stderr
    paths = next(line.split()[1:] for line in result.stdout.splitlines() if line.startswith("TEMP"))
    assert all(path.startswith(str(parent)) for path in paths)
    assert not any(os.path.exists(path) for path in paths)
    assert os.listdir(parent) == []


def test_compute_gradient_matches_numeric():
    theoretical, numerical = tf.test.compute_gradient(lambda x: x ** 2, [tf.constant([1.0, 3.0], tf.float64)])
    np.testing.assert_allclose(theoretical[0], [[2.0, 0.0], [0.0, 6.0]])
    np.testing.assert_allclose(numerical[0], theoretical[0], atol=1e-5)


def test_device_queries_and_benchmark():
    assert tf.test.is_gpu_available() == torch.cuda.is_available()
    assert tf.test.is_built_with_cuda() == (torch.version.cuda is not None)
    assert tf.test.gpu_device_name() == ("/device:GPU:0" if torch.cuda.is_available() else "")
    assert tf.test.is_built_with_xla() is False
    bench = tf.test.Benchmark()
    entry = bench.run_op_benchmark(None, lambda: tf.matmul(tf.ones([4, 4]), tf.ones([4, 4])), min_iters=3, name="mm")
    assert entry["name"] == "mm" and entry["iters"] == 3 and entry["wall_time"] > 0
    tf.test.experimental.sync_devices()
