"""Shape and indexing ops (`tf.reshape`, `tf.gather`, `tf.pad`, `tf.strided_slice`, ...) against
numpy computations of TF's documented definitions, and against TF 2.15's recorded outputs."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator._dtypes import dtype_name

FIXTURE = json.loads((Path(__file__).parent / "fixtures" / "array.json").read_text())
LINALG_CASES = (
    "matmul",
    "matvec",
    "norm",
    "svd",
    "qr",
    "eigh",
    "slogdet",
    "inv",
    "det",
    "solve",
    "cholesky",
    "lstsq",
    "band_part",
    "trace",
    "diag",
    "set_diag",
    "eye",
    "tensordot",
    "einsum",
    "l2_normalize",
    "cross",
)


def _x24():
    return tf.constant(np.arange(24, dtype=np.int32).reshape(2, 3, 4))


def _np(t):
    return t.detach().cpu().numpy() if isinstance(t, torch.Tensor) else np.asarray(t)


def _check(ours, want, mode, where):
    if want is None:
        assert ours is None, where
        return
    if "items" in want:
        assert isinstance(ours, (list, tuple)), where
        if want["kind"] != "sequence":
            assert type(ours).__name__ == want["kind"], where
        assert len(ours) == len(want["items"]), where
        for i, (o, w) in enumerate(zip(ours, want["items"])):
            _check(o, w, mode, f"{where}[{i}]")
        return
    if want["dtype"] == "string":
        assert isinstance(ours, np.ndarray), where
        assert ours.tolist() == want["value"], where
        return
    assert isinstance(ours, torch.Tensor), where
    assert dtype_name(ours.dtype) == want["dtype"], where
    assert list(ours.shape) == want["shape"], where
    expected = np.array(want["value"]).reshape(want["shape"])
    if "imag" in want:
        expected = expected + 1j * np.array(want["imag"]).reshape(want["shape"])
    got = _np(ours)
    if mode == "abs":
        got, expected = np.abs(got), np.abs(expected)
    if got.dtype.kind in "biu":
        np.testing.assert_array_equal(got, expected, err_msg=where)
    else:
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5, err_msg=where)


_ARRAY_CASES = [c for c in FIXTURE["cases"] if not c["name"].startswith(LINALG_CASES)]


@pytest.mark.parametrize("case", _ARRAY_CASES, ids=[c["name"] for c in _ARRAY_CASES])
def test_matches_tensorflow_fixture(case):
    namespace = {"tf": tf, "np": np}
    exec(FIXTURE["setup"], namespace)
    _check(eval(case["expr"], namespace), case["result"], case["compare"], case["name"])


def test_fixture_covers_array_ops():
    assert len(_ARRAY_CASES) >= 40


# ----------------------------------------------------------------------------- shapes


def test_reshape_infers_minus_one_and_names_both_shapes():
    x = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
    np.testing.assert_array_equal(_np(tf.reshape(x, [3, -1])), np.arange(6).reshape(3, 2))
    assert tf.reshape(x, tf.constant([-1])).shape == (6,)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[2, 3\].*6 values.*\[4, 2\].*8"):
        tf.reshape(x, [4, 2])
    with pytest.raises(tf.errors.InvalidArgumentError, match="multiple of 4"):
        tf.reshape(x, [4, -1])
    with pytest.raises(tf.errors.InvalidArgumentError, match="only one input size may be -1"):
        tf.reshape(x, [-1, -1])


def test_reshape_of_strings_and_lists():
    s = np.array(["a", "b", "c", "d"], dtype=object)
    assert tf.reshape(s, [2, 2]).tolist() == [["a", "b"], ["c", "d"]]
    out = tf.reshape([[1, 2], [3, 4]], [4])
    assert out.dtype == torch.int32 and out.tolist() == [1, 2, 3, 4]


def test_transpose_default_reverses_and_conjugates():
    x = np.arange(24).reshape(2, 3, 4)
    np.testing.assert_array_equal(_np(tf.transpose(tf.constant(x))), x.transpose())
    np.testing.assert_array_equal(
        _np(tf.transpose(tf.constant(x), [1, 0, 2])), x.transpose(1, 0, 2)
    )
    c = tf.constant(np.array([[1 + 2j, 3 - 1j]], np.complex64))
    np.testing.assert_allclose(_np(tf.transpose(c, conjugate=True)), np.array([[1 - 2j], [3 + 1j]]))
    np.testing.assert_allclose(_np(tf.transpose(c)), np.array([[1 + 2j], [3 - 1j]]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="rank 3"):
        tf.transpose(tf.constant(x), [1, 0])


def test_concat_and_stack():
    a = tf.constant(np.ones((2, 3), np.float32))
    b = tf.constant(np.zeros((2, 1), np.float32))
    out = tf.concat([a, b], axis=-1)
    assert out.shape == (2, 4) and _np(out)[:, 3].tolist() == [0, 0]
    assert tf.concat([a, [[5.0, 5.0, 5.0]]], 0).dtype == torch.float32  # a list takes the dtype
    assert tf.concat([a], 0) is a
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[2, 3\] and \[2, 1\]"):
        tf.concat([a, b], 0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="dtype"):
        tf.concat([a, tf.constant(np.ones((2, 3), np.int32))], 0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="scalars"):
        tf.concat([tf.constant(1.0), tf.constant(2.0)], 0)
    s = tf.stack([a, a + 1], axis=-1)
    assert s.shape == (2, 3, 2) and _np(s)[0, 0].tolist() == [1, 2]
    assert tf.stack([1, 2, 3]).dtype == torch.int32
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[2, 3\] and \[2, 1\]"):
        tf.stack([a, b])
    strings = tf.concat([np.array(["a"], object), np.array(["b", "c"], object)], 0)
    assert strings.tolist() == ["a", "b", "c"]


def test_unstack_split():
    x = _x24()
    parts = tf.unstack(x, axis=-1)
    assert len(parts) == 4 and parts[1].shape == (2, 3)
    np.testing.assert_array_equal(_np(parts[1]), np.arange(24).reshape(2, 3, 4)[..., 1])
    with pytest.raises(tf.errors.InvalidArgumentError, match="num=3"):
        tf.unstack(x, num=3)
    sizes = [p.shape[2] for p in tf.split(x, [1, -1, 1], axis=-1)]
    assert sizes == [1, 2, 1]
    assert [p.shape[1] for p in tf.split(x, tf.constant([2, 1]), axis=1)] == [2, 1]
    with pytest.raises(tf.errors.InvalidArgumentError, match="evenly divide"):
        tf.split(x, 3, axis=2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="sum to the size 4"):
        tf.split(x, [1, 2], axis=2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="only be one -1"):
        tf.split(x, [-1, -1], axis=2)


def test_squeeze_expand_dims():
    x = tf.constant(np.zeros((1, 3, 1), np.float32))
    assert tf.squeeze(x).shape == (3,)
    assert tf.squeeze(x, axis=-1).shape == (1, 3)
    assert tf.squeeze(x, [0, 2]).shape == (3,)
    assert tf.squeeze(x, []).shape == (3,)  # TF: an empty list squeezes all
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"squeeze dim\[1\].*got 3"):
        tf.squeeze(x, axis=1)
    assert tf.expand_dims(x, -1).shape == (1, 3, 1, 1)
    assert tf.expand_dims(x, 0).shape == (1, 1, 3, 1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="expand dim index 4"):
        tf.expand_dims(x, 4)


def test_tile_repeat_broadcast_to():
    x = np.array([[1, 2], [3, 4]], np.int32)
    np.testing.assert_array_equal(_np(tf.tile(tf.constant(x), [2, 3])), np.tile(x, (2, 3)))
    with pytest.raises(tf.errors.InvalidArgumentError, match="length 2 .* length 1"):
        tf.tile(tf.constant(x), [2])
    np.testing.assert_array_equal(
        _np(tf.repeat(tf.constant(x), [1, 3], axis=-1)), np.repeat(x, [1, 3], axis=-1)
    )
    np.testing.assert_array_equal(_np(tf.repeat(tf.constant(x), 2)), np.repeat(x, 2))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[2\] and \[3\]"):
        tf.repeat(tf.constant(x), [1, 2, 3], axis=0)
    b = tf.broadcast_to(tf.constant([1, 2]), [3, 2])
    assert b.shape == (3, 2) and _np(b)[2].tolist() == [1, 2]
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[3\] and \[2, 2\]"):
        tf.broadcast_to(tf.constant([1, 2, 3]), [2, 2])
    assert list(tf.broadcast_static_shape([2, 1], [3])) == [2, 3]
    dyn = tf.broadcast_dynamic_shape([2, 1], [1, 3])
    assert dyn.dtype == torch.int32 and dyn.tolist() == [2, 3]
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.broadcast_dynamic_shape([2, 2], [3])


def test_meshgrid_shape_n_sequence_mask():
    xs, ys = tf.meshgrid([1, 2, 3], [4, 5])
    ex, ey = np.meshgrid([1, 2, 3], [4, 5])
    np.testing.assert_array_equal(_np(xs), ex)
    np.testing.assert_array_equal(_np(ys), ey)
    xi, _ = tf.meshgrid([1, 2, 3], [4, 5], indexing="ij")
    assert xi.shape == (3, 2)
    with pytest.raises(ValueError, match="indexing"):
        tf.meshgrid([1], [2], indexing="ab")
    shapes = tf.shape_n([tf.constant(np.zeros((2, 3))), tf.constant([1])])
    assert [s.tolist() for s in shapes] == [[2, 3], [1]] and shapes[0].dtype == torch.int32
    mask = tf.sequence_mask([[1], [3]])
    assert mask.dtype == torch.bool and mask.shape == (2, 1, 3)
    np.testing.assert_array_equal(_np(mask)[:, 0], np.arange(3) < np.array([[1], [3]]))
    assert tf.sequence_mask([2], 3, dtype=tf.float32).tolist() == [[1.0, 1.0, 0.0]]


# ----------------------------------------------------------------------------- indexing


def test_bracket_slicing_is_torch_indexing():
    x = _x24()
    ref = np.arange(24).reshape(2, 3, 4)
    np.testing.assert_array_equal(_np(x[1:, ::2]), ref[1:, ::2])
    assert x[..., tf.newaxis].shape == (2, 3, 4, 1)
    assert tf.newaxis is None


def test_strided_slice_matches_python_slicing():
    x = _x24()
    ref = np.arange(24).reshape(2, 3, 4)
    np.testing.assert_array_equal(
        _np(tf.strided_slice(x, [0, 2], [2, -5], [1, -2])), ref[0:2, 2:-5:-2]
    )
    np.testing.assert_array_equal(
        _np(tf.strided_slice(x, [0], [0], [-1], begin_mask=1, end_mask=1)), ref[::-1]
    )
    np.testing.assert_array_equal(
        _np(tf.strided_slice(x, [0, 1], [0, 3], [1, 1], ellipsis_mask=1)), ref[..., 1:3]
    )
    np.testing.assert_array_equal(
        _np(
            tf.strided_slice(
                x, [1, 0, 2], [2, 0, 0], [1, 1, 1], new_axis_mask=2, shrink_axis_mask=5
            )
        ),
        ref[1, None, 2],
    )
    with pytest.raises(tf.errors.InvalidArgumentError, match="slice index 5 of dimension 0"):
        tf.strided_slice(x, [5], [6], shrink_axis_mask=1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="non-zero"):
        tf.strided_slice(x, [0], [1], [0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="ellipses"):
        tf.strided_slice(x, [0, 0], [1, 1], ellipsis_mask=3)
    s = np.array([["a", "b"], ["c", "d"]], dtype=object)
    assert tf.strided_slice(s, [0, 1], [2, 2], shrink_axis_mask=2).tolist() == ["b", "d"]


def test_slice_and_reverse():
    x = _x24()
    ref = np.arange(24).reshape(2, 3, 4)
    np.testing.assert_array_equal(_np(tf.slice(x, [1, 1, 0], [-1, 2, 3])), ref[1:, 1:3, 0:3])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"size\[0\] in \[0, 1\]"):
        tf.slice(x, [1, 0, 0], [2, -1, -1])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"begin\[0\]"):
        tf.slice(x, [-1, 0, 0], [1, 1, 1])
    np.testing.assert_array_equal(_np(tf.reverse(x, [-1, 0])), ref[::-1, :, ::-1])
    with pytest.raises(tf.errors.InvalidArgumentError, match="more than once"):
        tf.reverse(x, [0, -3])
    with pytest.raises(tf.errors.InvalidArgumentError, match="1-D"):
        tf.reverse(x, 0)


def test_gather_axis_and_batch_dims_against_numpy():
    rng = np.random.default_rng(0)
    p = rng.normal(size=(2, 3, 4, 5)).astype(np.float32)
    idx = np.array([[[0, 3], [1, 1], [2, 0]], [[3, 3], [0, 2], [1, 0]]], np.int32)
    out = tf.gather(tf.constant(p), tf.constant(idx), axis=2, batch_dims=2)
    want = np.stack([np.stack([p[i, j][idx[i, j]] for j in range(3)]) for i in range(2)])
    np.testing.assert_array_equal(_np(out), want)
    idx1 = np.array([[1, 0, 2], [2, 2, 0]], np.int64)
    out = tf.gather(tf.constant(p), tf.constant(idx1), axis=3, batch_dims=1)
    want = np.stack([np.take(p[i], idx1[i], axis=2) for i in range(2)])
    assert out.shape == (2, 3, 4, 3)
    np.testing.assert_array_equal(_np(out), want)
    np.testing.assert_array_equal(
        _np(tf.gather(tf.constant(p), [[0, 1]], axis=-2)), np.take(p, [[0, 1]], axis=-2)
    )
    with pytest.raises(
        tf.errors.InvalidArgumentError, match=r"indices\[1\] = 7 is not in \[0, 4\)"
    ):
        tf.gather(tf.constant(p), [0, 7], axis=2)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"= -1 is not in"):
        tf.gather(tf.constant(p), [-1])
    with pytest.raises(tf.errors.InvalidArgumentError, match="batch_dims"):
        tf.gather(tf.constant(p), tf.constant(idx), axis=1, batch_dims=2)
    with pytest.raises(TypeError, match="integer"):
        tf.gather(tf.constant(p), [1.0])
    words = np.array(["a", "b", "c"], dtype=object)
    assert tf.gather(words, [2, 0, 2]).tolist() == ["c", "a", "c"]


def test_gather_keeps_gradients():
    p = torch.ones(3, 2, requires_grad=True)
    tf.gather(p, [0, 0, 2]).sum().backward()
    assert p.grad[:, 0].tolist() == [2.0, 0.0, 1.0]


def test_gather_nd_against_numpy():
    p = np.arange(2 * 3 * 4).reshape(2, 3, 4).astype(np.int64)
    idx = np.array([[[1, 2], [0, 1]], [[0, 0], [1, 1]]], np.int32)
    out = tf.gather_nd(tf.constant(p), tf.constant(idx))
    np.testing.assert_array_equal(_np(out), p[idx[..., 0], idx[..., 1]])
    out = tf.gather_nd(tf.constant(p), tf.constant(idx), batch_dims=1)
    want = np.stack([p[b][idx[b, :, 0], idx[b, :, 1]] for b in range(2)])
    np.testing.assert_array_equal(_np(out), want)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[5, 0\] does not index into"):
        tf.gather_nd(tf.constant(p), [[5, 0]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="innermost"):
        tf.gather_nd(tf.constant(p), [[0, 0, 0, 0]])


def test_boolean_mask():
    x = np.arange(24).reshape(2, 3, 4)
    m = np.array([True, False, True])
    np.testing.assert_array_equal(_np(tf.boolean_mask(tf.constant(x), m, axis=1)), x[:, m])
    m2 = np.array([[True, False, True], [False, False, True]])
    np.testing.assert_array_equal(_np(tf.boolean_mask(tf.constant(x), m2)), x[m2])
    np.testing.assert_array_equal(_np(tf.boolean_mask(tf.constant(x), [1, 0], axis=-3)), x[[0]])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[3\] and \[2\]"):
        tf.boolean_mask(tf.constant(x), [True, False], axis=1)
    with pytest.raises(ValueError, match="scalar"):
        tf.boolean_mask(tf.constant(x), True)


def test_where_both_forms():
    c = np.array([[True, False, True], [False, False, True]])
    coords = tf.where(tf.constant(c))
    assert coords.dtype == torch.int64
    np.testing.assert_array_equal(_np(coords), np.argwhere(c))
    assert tf.where(tf.constant([0.0, 2.0, -1.0])).tolist() == [[1], [2]]
    x = tf.constant(np.arange(3, dtype=np.float32))
    out = tf.where(tf.constant([[True], [False]]), x, -1.0)
    np.testing.assert_array_equal(_np(out), np.where([[True], [False]], np.arange(3), -1.0))
    assert out.dtype == torch.float32
    assert tf.where(tf.constant([True, False]), [1, 2], x[:2]).dtype == torch.float32
    assert tf.where(tf.constant([True, False]), "a", np.array(["b", "c"], object)).tolist() == [
        "a",
        "c",
    ]
    with pytest.raises(ValueError, match="both"):
        tf.where(tf.constant([True]), x=x)
    with pytest.raises(tf.errors.InvalidArgumentError, match="dtype"):
        tf.where(tf.constant([True, False, True]), x, tf.constant([1, 2, 3]))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"condition \[2\], then \[3\]"):
        tf.where(tf.constant([True, False]), x, x)
    with pytest.raises(tf.errors.InvalidArgumentError, match="bool"):
        tf.where(tf.constant([1, 0, 1]), x, x)


def test_one_hot_rules():
    out = tf.one_hot(tf.constant([[0, 2], [-1, 5]]), 3)
    want = (np.array([[0, 2], [-1, 5]])[..., None] == np.arange(3)).astype(np.float32)
    assert out.dtype == torch.float32
    np.testing.assert_array_equal(_np(out), want)
    out = tf.one_hot([1, 0], 2, on_value=1.5, off_value=-0.5, axis=0)
    np.testing.assert_array_equal(_np(out), [[-0.5, 1.5], [1.5, -0.5]])
    assert tf.one_hot([1], 2, off_value=3).dtype == torch.int32
    assert tf.one_hot([1], 2, on_value=5, dtype=tf.float64).dtype == torch.float64
    assert tf.one_hot(tf.constant([1], dtype=tf.uint8), 2).tolist() == [[0.0, 1.0]]
    with pytest.raises(TypeError, match="does not match"):
        tf.one_hot([1], 2, on_value=tf.constant(1), off_value=tf.constant(0.0))
    with pytest.raises(tf.errors.InvalidArgumentError, match="axis"):
        tf.one_hot([[1]], 2, axis=-2)
    with pytest.raises(TypeError, match="integer"):
        tf.one_hot([1.0], 2)


def test_pad_modes():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    for mode in ("CONSTANT", "reflect", "Symmetric"):
        np_mode = {"constant": "constant", "reflect": "reflect", "symmetric": "symmetric"}[
            mode.lower()
        ]
        np.testing.assert_array_equal(
            _np(tf.pad(tf.constant(x), [[1, 1], [2, 1]], mode)),
            np.pad(x, [[1, 1], [2, 1]], mode=np_mode),
        )
    np.testing.assert_array_equal(
        _np(tf.pad(tf.constant(x), tf.constant([[0, 1], [1, 0]]), constant_values=-2)),
        np.pad(x, [[0, 1], [1, 0]], constant_values=-2),
    )
    with pytest.raises(tf.errors.InvalidArgumentError, match="less than the dimension size"):
        tf.pad(tf.constant(x), [[2, 0], [0, 0]], "REFLECT")
    with pytest.raises(tf.errors.InvalidArgumentError, match="no greater than"):
        tf.pad(tf.constant(x), [[3, 0], [0, 0]], "SYMMETRIC")
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"shape \[2, 2\]"):
        tf.pad(tf.constant(x), [[1, 0]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="non-negative"):
        tf.pad(tf.constant(x), [[-1, 0], [0, 0]])
    with pytest.raises(ValueError, match="mode"):
        tf.pad(tf.constant(x), [[1, 0], [0, 0]], "edge")
    with pytest.raises(TypeError):
        tf.pad(tf.constant(np.arange(3, dtype=np.int32)), [[1, 0]], constant_values=0.5)


def test_scatter_ops_against_numpy():
    base = np.arange(12, dtype=np.float32).reshape(3, 4)
    idx = np.array([[2, 1], [0, 3], [2, 1]])
    upd = np.array([10.0, 20.0, 30.0], np.float32)
    want = base.copy()
    np.add.at(want, (idx[:, 0], idx[:, 1]), upd)
    np.testing.assert_array_equal(_np(tf.tensor_scatter_nd_add(tf.constant(base), idx, upd)), want)
    want = base.copy()
    np.subtract.at(want, (idx[:, 0], idx[:, 1]), upd)
    np.testing.assert_array_equal(_np(tf.tensor_scatter_nd_sub(tf.constant(base), idx, upd)), want)
    want = base.copy()
    np.maximum.at(want, (idx[:, 0], idx[:, 1]), upd)
    np.testing.assert_array_equal(_np(tf.tensor_scatter_nd_max(tf.constant(base), idx, upd)), want)
    want = base.copy()
    np.minimum.at(want, (idx[:, 0], idx[:, 1]), np.array([-1.0, 50.0, 3.0], np.float32))
    got = tf.tensor_scatter_nd_min(tf.constant(base), idx, [-1.0, 50.0, 3.0])
    np.testing.assert_array_equal(_np(got), want)
    rows = tf.tensor_scatter_nd_update(tf.constant(base), [[2], [0]], [[1.0] * 4, [2.0] * 4])
    want = base.copy()
    want[2], want[0] = 1.0, 2.0
    np.testing.assert_array_equal(_np(rows), want)
    nd = tf.scatter_nd([[1], [1], [3]], tf.constant([1, 2, 5]), [4])
    assert nd.dtype == torch.int32 and nd.tolist() == [0, 3, 0, 5]
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[5\] does not index into"):
        tf.tensor_scatter_nd_update(tf.constant(base), [[5]], [[1.0] * 4])
    with pytest.raises(
        tf.errors.InvalidArgumentError, match=r"\[1, 3\] and \(1, 4\)|\[1, 3\] and \[1, 4\]"
    ):
        tf.tensor_scatter_nd_update(tf.constant(base), [[1]], [[1.0] * 3])


# ----------------------------------------------------------------------------- sorting


def test_sort_argsort_directions_and_dtypes():
    x = np.array([[3, 1, 2, 1], [0, 5, 5, -1]], np.int32)
    np.testing.assert_array_equal(_np(tf.sort(tf.constant(x))), np.sort(x, axis=-1))
    np.testing.assert_array_equal(
        _np(tf.sort(tf.constant(x), axis=0, direction="DESCENDING")), -np.sort(-x, axis=0)
    )
    order = tf.argsort(tf.constant(x))
    assert order.dtype == torch.int32
    np.testing.assert_array_equal(_np(order), np.argsort(x, axis=-1, kind="stable"))
    np.testing.assert_array_equal(
        _np(tf.argsort(tf.constant(x), direction="DESCENDING")),
        np.argsort(-x, axis=-1, kind="stable"),
    )
    with pytest.raises(ValueError, match="direction"):
        tf.sort(tf.constant(x), direction="descending")


def test_unique_first_occurrence_order():
    y, idx = tf.unique(tf.constant([5, 3, 5, 9, 3]))
    assert y.tolist() == [5, 3, 9] and idx.tolist() == [0, 1, 0, 2, 1] and idx.dtype == torch.int32
    y, idx, count = tf.unique_with_counts(tf.constant([True, False, True]), out_idx=tf.int64)
    assert y.tolist() == [True, False] and idx.dtype == torch.int64 and count.tolist() == [2, 1]
    with pytest.raises(tf.errors.InvalidArgumentError, match="1D"):
        tf.unique(tf.constant([[1, 2]]))


def test_searchsorted_roll_unravel_reverse_sequence():
    seq = np.array([[1.0, 3.0, 5.0], [0.0, 0.0, 2.0]], np.float32)
    vals = np.array([[3.0, 6.0], [0.0, 1.0]], np.float32)
    for side in ("left", "right"):
        got = tf.searchsorted(tf.constant(seq), tf.constant(vals), side=side)
        assert got.dtype == torch.int32
        want = np.stack([np.searchsorted(seq[i], vals[i], side=side) for i in range(2)])
        np.testing.assert_array_equal(_np(got), want)
    with pytest.raises(ValueError, match="side"):
        tf.searchsorted(tf.constant(seq), tf.constant(vals), side="middle")
    x = np.arange(6).reshape(2, 3)
    np.testing.assert_array_equal(_np(tf.roll(tf.constant(x), 1, -1)), np.roll(x, 1, -1))
    np.testing.assert_array_equal(
        _np(tf.roll(tf.constant(x), [1, 2], [0, 1])), np.roll(x, [1, 2], [0, 1])
    )
    np.testing.assert_array_equal(
        _np(tf.unravel_index([5, 7], [3, 4])), np.unravel_index([5, 7], (3, 4))
    )
    out = tf.reverse_sequence(tf.constant(x), [2, 0], seq_axis=1)
    assert _np(out).tolist() == [[1, 0, 2], [3, 4, 5]]


# ----------------------------------------------------------------------------- clipping


def test_clip_by_value_tf_order_and_broadcast():
    x = np.array([[1.0, 5.0, 9.0]], np.float32)
    np.testing.assert_array_equal(_np(tf.clip_by_value(tf.constant(x), 2.0, 7.0)), np.clip(x, 2, 7))
    np.testing.assert_array_equal(
        _np(tf.clip_by_value(tf.constant(x), 7.0, 2.0)), [[7.0, 7.0, 7.0]]
    )
    lo, hi = np.array([0.0, 6.0, 0.0], np.float32), np.array([1.0, 7.0, 8.0], np.float32)
    np.testing.assert_array_equal(_np(tf.clip_by_value(tf.constant(x), lo, hi)), np.clip(x, lo, hi))
    ints = tf.clip_by_value(tf.constant([1, 5, 9]), 2, 7)
    assert ints.dtype == torch.int32 and ints.tolist() == [2, 5, 7]
    with pytest.raises(TypeError):
        tf.clip_by_value(tf.constant([1, 5, 9]), 2.5, 7)
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.clip_by_value(tf.constant(x), np.zeros((2, 3), np.float32), 1.0)


def test_clip_by_norm_and_global_norm():
    x = np.array([[3.0, 4.0], [0.0, 1.0]], np.float32)
    norm = np.sqrt((x**2).sum())
    np.testing.assert_allclose(
        _np(tf.clip_by_norm(tf.constant(x), 2.0)), x * 2.0 / max(norm, 2.0), rtol=1e-6
    )
    rows = np.sqrt((x**2).sum(axis=1, keepdims=True))
    np.testing.assert_allclose(
        _np(tf.clip_by_norm(tf.constant(x), 2.0, axes=[-1])),
        x * 2.0 / np.maximum(rows, 2.0),
        rtol=1e-6,
    )
    assert tf.clip_by_norm(tf.constant([0.0, 0.0]), 1.0).tolist() == [0.0, 0.0]
    with pytest.raises(TypeError, match="floating"):
        tf.clip_by_norm(tf.constant([3, 4]), 2)
    a, b = np.array([3.0, 4.0], np.float32), np.array([[12.0]], np.float32)
    clipped, gn = tf.clip_by_global_norm([tf.constant(a), None, tf.constant(b)], 6.5)
    assert float(gn) == pytest.approx(13.0) and clipped[1] is None
    np.testing.assert_allclose(_np(clipped[0]), a * 0.5, rtol=1e-6)
    np.testing.assert_allclose(_np(clipped[2]), b * 0.5, rtol=1e-6)
    clipped, gn = tf.clip_by_global_norm([tf.constant([np.inf, 1.0])], 1.0)
    assert np.isnan(_np(clipped[0])).all() and np.isinf(float(gn))
    with pytest.raises(TypeError, match="sequence"):
        tf.clip_by_global_norm(tf.constant(a), 1.0)
    assert float(tf.linalg.global_norm([tf.constant(a), None])) == pytest.approx(5.0)
