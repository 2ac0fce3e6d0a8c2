"""tf.compat.v1's added top-level names (issue 32) against TF 2.15's recorded outputs."""

import inspect

import numpy as np
import pytest
import torch

import torchestimator as tf
from _tf_api_extras import assert_same, error, expected
from torchestimator.errors import InvalidArgumentError, OutOfRangeError, UnimplementedError

C = tf.compat.v1
IMG = torch.arange(2 * 5 * 6 * 2, dtype=torch.float32).reshape(2, 5, 6, 2)
VOL = torch.arange(1 * 4 * 5 * 3 * 2, dtype=torch.float32).reshape(1, 4, 5, 3, 2)
PARAMS = torch.arange(24, dtype=torch.float32).reshape(2, 3, 4)

CASES = {
    "setdiff1d": lambda: C.setdiff1d(torch.tensor([1, 2, 3, 4, 5, 6], dtype=torch.int32),
                                     torch.tensor([1, 3, 5], dtype=torch.int32)),
    "setdiff1d_int64": lambda: C.setdiff1d([4.0, 2.0, 4.0, 7.0], [2.0], index_dtype=tf.int64),
    "batch_to_space_nd": lambda: C.batch_to_space_nd(
        torch.arange(16, dtype=torch.float32).reshape(4, 2, 2, 1), [2, 2], [[0, 0], [1, 0]]),
    "extract_image_patches": lambda: C.extract_image_patches(IMG, [1, 2, 3, 1], [1, 2, 2, 1],
                                                             [1, 1, 1, 1], "VALID"),
    "extract_image_patches_sizes": lambda: C.extract_image_patches(
        IMG, strides=[1, 1, 2, 1], rates=[1, 2, 1, 1], padding="SAME", sizes=[1, 2, 2, 1]),
    "extract_volume_patches": lambda: C.extract_volume_patches(VOL, [1, 2, 2, 2, 1],
                                                               [1, 2, 1, 2, 1], "VALID"),
    "extract_volume_patches_same": lambda: tf.extract_volume_patches(VOL, [1, 3, 2, 2, 1],
                                                                     [1, 2, 2, 1, 1], "SAME"),
    "matrix_square_root": lambda: C.matrix_square_root(torch.tensor(
        [[[4.0, 1.0], [1.0, 3.0]], [[2.0, 0.0], [0.0, 9.0]]], dtype=torch.float64)),
    "batch_gather": lambda: C.batch_gather(PARAMS, torch.tensor([[2, 0], [1, 1]])),
    "batch_gather_3d": lambda: C.batch_gather(
        PARAMS, torch.tensor([[[0, 3], [1, 1], [2, 0]], [[3, 3], [0, 0], [1, 2]]])),
    "decode_csv": lambda: C.decode_csv(["1,a,2.5", "3,,"], [[0], ["z"], [1.0]]),
    "sparse_matmul": lambda: C.sparse_matmul(torch.tensor([[1.0, 0], [0, 2]]),
                                             torch.tensor([[3.0, 4], [5, 6]]),
                                             transpose_b=True, a_is_sparse=True),
    "verify_tensor_all_finite": lambda: C.verify_tensor_all_finite(torch.tensor([1.0, 2.0]),
                                                                   "bad"),
    "Print": lambda: C.Print(torch.tensor([1, 2], dtype=torch.int32), [torch.tensor([3.0])],
                             "msg: "),
    "string_to_hash_bucket_alias": lambda: C.string_to_hash_bucket(["ab", "c"], 7),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_tf(name):
    assert_same(CASES[name](), expected(name), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "min", "max", "update"])
def test_scatter_updates_the_variable(op):
    v = tf.Variable([1.0, 2.0, 3.0, 4.0])
    out = getattr(C, f"scatter_{op}")(v, [3, 1], [10.0, 20.0])
    assert out is v
    assert_same(v.read_value(), expected(f"scatter_{op}"))


def test_scatter_add_2d_accumulates_repeated_indices():
    v = tf.Variable(torch.ones(3, 2))
    C.scatter_add(v, [[0, 2], [2, 2]], torch.full((2, 2, 2), 1.5))
    assert_same(v.read_value(), expected("scatter_add_2d"))


@pytest.mark.parametrize("op", ["add", "sub", "update"])
def test_scatter_nd_and_tensor_scatter(op):
    v = tf.Variable(torch.tensor([1, 2, 3, 4, 5], dtype=torch.int32))
    assert getattr(C, f"scatter_nd_{op}")(v, [[4], [1]], torch.tensor([10, 20],
                                                                       dtype=torch.int32)) is v
    assert_same(v.read_value(), expected(f"scatter_nd_{op}"))
    out = getattr(C, f"tensor_scatter_{op}")(torch.tensor([1, 2, 3, 4], dtype=torch.int32),
                                             [[1], [3]], torch.tensor([5, 6], dtype=torch.int32))
    assert_same(out, expected(f"tensor_scatter_{op}"))


def test_scatter_needs_a_variable_and_valid_indices():
    with pytest.raises(TypeError, match="ref"):
        C.scatter_add(torch.zeros(3), [0], [1.0])
    with pytest.raises(InvalidArgumentError, match="out of range"):
        C.scatter_update(tf.Variable([1.0, 2.0]), [5], [1.0])


def test_batch_scatter_update():
    v = tf.Variable(torch.zeros(2, 3))
    assert C.batch_scatter_update(v, [[0, 2], [1, 0]], [[1.0, 2.0], [3.0, 4.0]]) is v
    assert_same(v.read_value(), expected("batch_scatter_update"))


def test_decode_json_example_gives_tf_bytes():
    out = C.decode_json_example(
        ['{"features": {"feature": {"x": {"int64List": {"value": ["1", "2"]}}}}}'])
    want = expected("decode_json_example")
    assert out.shape == want.shape and out[0] == want[0].encode("utf-8")
    mixed = C.decode_json_example(np.array([[
        '{"features": {"feature": {"b": {"bytesList": {"value": ["YWI="]}}, '
        '"f": {"floatList": {"value": [1.5, -2]}}}}}']], dtype=object))
    assert mixed.shape == (1, 1)
    parsed = tf.train.Example.FromString(mixed[0, 0])
    assert list(parsed.features.feature["b"].bytes_list.value) == [b"ab"]
    assert list(parsed.features.feature["f"].float_list.value) == [1.5, -2.0]
    with pytest.raises(InvalidArgumentError, match="JSON"):
        C.decode_json_example(["{not json"])


def test_sparse_mask():
    a = tf.IndexedSlices(torch.arange(8, dtype=torch.float32).reshape(4, 2),
                         torch.tensor([12, 26, 37, 45], dtype=torch.int32),
                         torch.tensor([50, 2], dtype=torch.int32))
    r = C.sparse_mask(a, [12, 45])
    want = expected("sparse_mask")
    assert_same(r.values, want["values"])
    assert_same(r.indices, want["indices"])
    assert_same(r.dense_shape, want["dense_shape"])


def test_count_up_to():
    v = tf.Variable(torch.tensor(3, dtype=torch.int32))
    a, b = C.count_up_to(v, 5), C.count_up_to(v, 5)
    want = expected("count_up_to")
    assert [int(a), int(b), int(v.read_value())] == [int(w) for w in want]
    error("count_up_to_err")
    with pytest.raises(OutOfRangeError, match="Reached limit of 5"):
        C.count_up_to(v, 5)


def test_errors_as_tf():
    error("setdiff1d_err_rank")
    with pytest.raises(InvalidArgumentError, match="1D"):
        C.setdiff1d([[1]], [1])
    error("extract_volume_patches_err")
    with pytest.raises(UnimplementedError, match="ksizes"):
        tf.extract_volume_patches(VOL, [2, 2, 2, 2, 1], [1, 1, 1, 1, 1], "SAME")
    error("verify_tensor_all_finite_err")
    with pytest.raises(InvalidArgumentError, match="found bad"):
        C.verify_tensor_all_finite(torch.tensor([1.0, float("inf")]), "found bad")
    error("uui_dtype_err")
    with pytest.raises(ValueError, match="floating point"):
        C.uniform_unit_scaling_initializer(dtype=tf.int32)


def test_dimensions():
    assert [C.dimension_value(C.Dimension(3)), C.dimension_value(5), C.dimension_value(None),
            C.dimension_value(C.Dimension(None))] == list(expected("dimension_value"))
    shape = tf.TensorShape([2, None, 4])
    got = [C.dimension_at_index(shape, 0).value, C.dimension_at_index(shape, 1).value,
           C.dimension_at_index(tf.TensorShape(None), 1).value]
    assert got == list(expected("dimension_at_index"))
    assert isinstance(C.dimension_at_index([2, 3], 1), C.Dimension)


def test_print_writes_message_and_data(capfd):
    out = C.Print(torch.tensor([1, 2]), [torch.tensor([3.0]), torch.arange(5)], "msg: ",
                  summarize=2)
    assert out.tolist() == [1, 2]
    assert "msg: [3][0 1...]" in capfd.readouterr().err
    for _ in range(3):
        C.Print(torch.tensor(1), [torch.tensor(1)], "once ", first_n=1)
    assert capfd.readouterr().err.count("once ") == 1


def test_no_regularizer_and_uniform_unit_scaling():
    assert C.no_regularizer(torch.tensor(1.0)) is None
    init = C.uniform_unit_scaling_initializer(factor=1.5, seed=1)
    values = init([400, 300])
    want_max, want_shape = expected("uui_stats")
    assert tuple(values.shape) == tuple(want_shape) and values.dtype == torch.float32
    limit = 1.5 * np.sqrt(3 / 400)
    assert float(values.abs().max()) <= limit and float(values.abs().max()) > 0.99 * limit
    assert abs(want_max - limit) < 1e-3 * limit
    assert C.uniform_unit_scaling_initializer.from_config(init.get_config()).factor == 1.5


def test_aliases():
    assert C.tensor_scatter_add(torch.tensor([1]), [[0]], torch.tensor([2])).tolist() == [3]
    assert inspect.unwrap(tf.matrix_square_root) is C.matrix_square_root  # tf.* takes KerasTensors
    a, b, x = torch.tensor([2.0]), torch.tensor([3.0]), torch.tensor([0.4])
    assert torch.equal(C.betainc(a, b, x), tf.math.betainc(a, b, x))
    assert torch.equal(C.polygamma(a, x), tf.math.polygamma(a, x))
