"""tf.linalg, tf.matmul, tf.tensordot, tf.einsum, tf.norm against numpy computations of TF's
documented definitions, and against TF 2.15's recorded outputs."""

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
RNG = np.random.default_rng(7)


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


_LINALG = [c for c in FIXTURE["cases"] if c["name"].startswith(LINALG_CASES)]


@pytest.mark.parametrize("case", _LINALG, ids=[c["name"] for c in _LINALG])
def test_matches_tensorflow_fixture(case):
    namespace = {"tf": tf, "np": np}
    exec(FIXTURE["setup"], namespace)
    _check(eval(case["expr"], namespace), case["result"], case["compare"], case["name"])


def test_fixture_covers_linalg_ops():
    assert len(_LINALG) >= 35


def _f32(*shape):
    return RNG.normal(size=shape).astype(np.float32)


# ----------------------------------------------------------------------------- products


def test_matmul_flags_and_batch_broadcasting():
    a, b = _f32(4, 1, 2, 3), _f32(5, 3, 2)
    out = tf.matmul(tf.constant(a), tf.constant(b))
    assert out.shape == (4, 5, 2, 2)
    np.testing.assert_allclose(_np(out), a @ b, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(
        _np(tf.matmul(tf.constant(b), tf.constant(a), transpose_a=True, transpose_b=True)),
        np.swapaxes(b, -1, -2) @ np.swapaxes(a, -1, -2),
        rtol=1e-5,
        atol=1e-6,
    )
    c = (_f32(2, 3) + 1j * _f32(2, 3)).astype(np.complex64)
    np.testing.assert_allclose(
        _np(tf.matmul(tf.constant(c), tf.constant(c), adjoint_b=True)),
        c @ c.conj().T,
        rtol=1e-5,
        atol=1e-5,
    )
    np.testing.assert_allclose(
        _np(tf.matmul(tf.constant(c), tf.constant(c), transpose_b=True)),
        c @ c.T,
        rtol=1e-5,
        atol=1e-5,
    )
    ints = tf.matmul(tf.constant([[1, 2]]), tf.constant([[3], [4]]))
    assert ints.dtype == torch.int32 and ints.tolist() == [[11]]
    q = tf.matmul(
        tf.constant(np.full((2, 3), 100, np.int8)),
        tf.constant(np.ones((3, 1), np.int8)),
        output_type=tf.int32,
    )
    assert q.dtype == torch.int32 and q.tolist() == [[300], [300]]
    assert tf.matmul([[1.0, 2.0]], [[3.0], [4.0]]).tolist() == [[11.0]]


def test_matmul_errors_name_both_shapes():
    a = tf.constant(_f32(2, 3))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[2, 3\] and \[2, 3\]"):
        tf.matmul(a, a)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[4, 2, 3\] and \[5, 3, 2\]"):
        tf.matmul(tf.constant(_f32(4, 2, 3)), tf.constant(_f32(5, 3, 2)))
    with pytest.raises(tf.errors.InvalidArgumentError, match="rank >= 2"):
        tf.matmul(tf.constant(_f32(3)), tf.constant(_f32(3, 2)))
    with pytest.raises(tf.errors.InvalidArgumentError, match="float32 and float64"):
        tf.matmul(a, tf.constant(np.ones((3, 2))))
    with pytest.raises(ValueError, match="transpose_a"):
        tf.matmul(a, a, transpose_a=True, adjoint_a=True)


def test_matmul_keeps_gradients():
    w = torch.ones(3, 2, requires_grad=True)
    tf.matmul(torch.ones(4, 3), w).sum().backward()
    assert w.grad.tolist() == [[4.0, 4.0]] * 3


def test_matvec_tensordot_einsum_cross():
    a, v = _f32(4, 2, 3), _f32(3)
    np.testing.assert_allclose(
        _np(tf.linalg.matvec(tf.constant(a), tf.constant(v))), a @ v, rtol=1e-5
    )
    np.testing.assert_allclose(
        _np(
            tf.linalg.matvec(
                tf.constant(a), tf.constant(_f32(2)[None].repeat(4, 0)), transpose_a=True
            )
        ).shape,
        (4, 3),
    )
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[4, 2, 3\] and \[2\]"):
        tf.linalg.matvec(tf.constant(a), tf.constant(_f32(2)))
    x, y = _f32(2, 3, 4), _f32(4, 3, 5)
    np.testing.assert_allclose(
        _np(tf.tensordot(tf.constant(x), tf.constant(y), [[1, 2], [1, 0]])),
        np.tensordot(x, y, [[1, 2], [1, 0]]),
        rtol=1e-4,
        atol=1e-5,
    )
    np.testing.assert_allclose(
        _np(tf.tensordot(tf.constant(x), tf.constant(y), 1)),
        np.tensordot(x, y, 1),
        rtol=1e-4,
        atol=1e-5,
    )
    np.testing.assert_allclose(
        _np(tf.tensordot(tf.constant(x), tf.constant(y), [-1, 0])),
        np.tensordot(x, y, [[-1], [0]]),
        rtol=1e-4,
        atol=1e-5,
    )
    assert tf.tensordot(tf.constant(x), tf.constant(y), 0).shape == (2, 3, 4, 4, 3, 5)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[2, 3, 4\] and \[4, 3, 5\]"):
        tf.tensordot(tf.constant(x), tf.constant(y), [[0], [0]])
    with pytest.raises(ValueError, match="larger"):
        tf.tensordot(tf.constant(_f32(2)), tf.constant(_f32(2)), 2)
    np.testing.assert_allclose(
        _np(tf.einsum("bij,jk->bik", tf.constant(a), tf.constant(_f32(3, 5)[:, :]))).shape,
        (4, 2, 5),
    )
    m, n = _f32(2, 3), _f32(3, 4)
    np.testing.assert_allclose(
        _np(tf.einsum("ij,jk", tf.constant(m), tf.constant(n))), m @ n, rtol=1e-5
    )
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[2, 3\] and \[2, 3\]"):
        tf.einsum("ij,jk->ik", tf.constant(m), tf.constant(m))
    p, q = _f32(5, 3), _f32(5, 3)
    np.testing.assert_allclose(
        _np(tf.linalg.cross(tf.constant(p), tf.constant(q))), np.cross(p, q), rtol=1e-5, atol=1e-6
    )


# ----------------------------------------------------------------------------- norms


@pytest.mark.parametrize("ord_", ["euclidean", 1, 2, np.inf, 3, 0.5])
def test_vector_norms(ord_):
    x = _f32(2, 3, 4)
    p = 2 if ord_ == "euclidean" else ord_
    want_all = np.linalg.norm(x.reshape(-1), ord=p)
    np.testing.assert_allclose(float(tf.norm(tf.constant(x), ord_)), want_all, rtol=1e-5)
    got = tf.norm(tf.constant(x), ord_, axis=-2, keepdims=True)
    np.testing.assert_allclose(
        _np(got), np.linalg.norm(x, ord=p, axis=-2, keepdims=True), rtol=1e-5
    )


@pytest.mark.parametrize("ord_", ["euclidean", "fro", 1, 2, np.inf])
def test_matrix_norms(ord_):
    x = _f32(3, 4, 5)
    p = "fro" if ord_ in ("euclidean", "fro") else ord_
    np.testing.assert_allclose(
        _np(tf.norm(tf.constant(x), ord_, axis=[-2, -1])),
        np.linalg.norm(x, ord=p, axis=(-2, -1)),
        rtol=1e-5,
    )
    np.testing.assert_allclose(
        _np(tf.norm(tf.constant(x), ord_, axis=(2, 0), keepdims=True)),
        np.linalg.norm(x, ord=p, axis=(2, 0), keepdims=True),
        rtol=1e-5,
    )


def test_norm_argument_errors():
    x = tf.constant(_f32(2, 3))
    assert tf.norm(x).shape == () and tf.norm(x, keepdims=True).shape == (1, 1)
    with pytest.raises(ValueError, match="vector norm"):
        tf.norm(x, "fro")
    with pytest.raises(ValueError, match="vector norm"):
        tf.norm(x, -1, axis=0)
    with pytest.raises(ValueError, match="matrix norm"):
        tf.norm(x, 3, axis=[0, 1])
    with pytest.raises(ValueError, match="axis"):
        tf.norm(x, axis=[0, 0])
    with pytest.raises(TypeError, match="floating"):
        tf.norm(tf.constant([3, 4]))
    assert tf.linalg.norm is tf.norm


def test_l2_normalize_and_normalize():
    x = _f32(3, 4)
    got = tf.linalg.l2_normalize(tf.constant(x), axis=-1)
    want = x / np.sqrt(np.maximum((x**2).sum(-1, keepdims=True), 1e-12))
    np.testing.assert_allclose(_np(got), want, rtol=1e-5)
    flat = tf.linalg.l2_normalize(tf.constant(x))
    np.testing.assert_allclose(_np(flat), x / np.sqrt((x**2).sum()), rtol=1e-5)
    zeros = tf.linalg.l2_normalize(tf.constant(np.zeros((2, 2), np.float32)), axis=0)
    assert _np(zeros).tolist() == [[0.0, 0.0], [0.0, 0.0]]
    np.testing.assert_allclose(
        _np(tf.linalg.l2_normalize(tf.constant(x), dim=0)),
        x / np.linalg.norm(x, axis=0, keepdims=True),
        rtol=1e-5,
    )
    with pytest.raises(TypeError):
        tf.linalg.l2_normalize(tf.constant([3, 4]))
    normed, norm = tf.linalg.normalize(tf.constant([3.0, 4.0]))
    assert norm.tolist() == [5.0] and _np(normed).tolist() == pytest.approx([0.6, 0.8])


# ----------------------------------------------------------------------------- structure


def test_band_part_trace_transpose():
    x = np.arange(2 * 4 * 5).reshape(2, 4, 5).astype(np.int32)
    i, j = np.arange(4)[:, None], np.arange(5)[None, :]
    for lower, upper in [(1, 2), (0, 0), (-1, 0), (0, -1), (-1, -1)]:
        keep = ((lower < 0) | (i - j <= lower)) & ((upper < 0) | (j - i <= upper))
        np.testing.assert_array_equal(
            _np(tf.linalg.band_part(tf.constant(x), lower, upper)), np.where(keep, x, 0)
        )
    t = tf.linalg.trace(tf.constant(x))
    assert t.dtype == torch.int32
    np.testing.assert_array_equal(_np(t), np.trace(x, axis1=-2, axis2=-1))
    assert tf.linalg.matrix_transpose(tf.constant(x)).shape == (2, 5, 4)
    c = tf.constant(np.array([[1 + 1j, 2]], np.complex64))
    np.testing.assert_allclose(_np(tf.linalg.adjoint(c)), [[1 - 1j], [2]])
    with pytest.raises(ValueError, match="rank >= 2"):
        tf.linalg.matrix_transpose(tf.constant([1.0]))


def test_diag_family_against_numpy():
    d = np.array([[1, 2, 3], [4, 5, 6]], np.int32)
    out = tf.linalg.diag(tf.constant(d))
    assert out.shape == (2, 3, 3)
    np.testing.assert_array_equal(_np(out)[1], np.diag(d[1]))
    np.testing.assert_array_equal(
        _np(tf.linalg.diag(tf.constant(d[0]), k=2))[0], np.diag(d[0], k=2)[0]
    )
    m = np.arange(20).reshape(4, 5).astype(np.float32)
    for k in (-2, 0, 3):
        np.testing.assert_array_equal(
            _np(tf.linalg.diag_part(tf.constant(m), k=k)), np.diag(m, k=k)
        )
    replaced = tf.linalg.set_diag(tf.constant(m), tf.constant(np.full(4, -1.0, np.float32)))
    want = m.copy()
    np.fill_diagonal(want, -1.0)
    np.testing.assert_array_equal(_np(replaced), want)
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.linalg.set_diag(tf.constant(m), tf.constant(np.ones(3, np.float32)))
    e = tf.linalg.eye(2, 3, batch_shape=[2], dtype=tf.int32)
    assert (
        e.shape == (2, 2, 3)
        and e.dtype == torch.int32
        and _np(e)[1].tolist() == [[1, 0, 0], [0, 1, 0]]
    )
    td = tf.linalg.tensor_diag(tf.constant([[1, 2], [3, 4]]))
    assert td.shape == (2, 2, 2, 2) and int(td[1, 0, 1, 0]) == 3 and int(td[1, 0, 0, 1]) == 0
    assert tf.linalg.tensor_diag_part(td).tolist() == [[1, 2], [3, 4]]


# ----------------------------------------------------------------------------- decompositions


def _spd(n, batch=()):
    a = RNG.normal(size=batch + (n, n))
    return (a @ np.swapaxes(a, -1, -2) + n * np.eye(n)).astype(np.float64)


def test_inverse_determinant_solve():
    a = _spd(3, (2,))
    np.testing.assert_allclose(_np(tf.linalg.inv(tf.constant(a))), np.linalg.inv(a), rtol=1e-8)
    np.testing.assert_allclose(_np(tf.linalg.det(tf.constant(a))), np.linalg.det(a), rtol=1e-8)
    sign, logabs = tf.linalg.slogdet(tf.constant(a))
    want_sign, want_log = np.linalg.slogdet(a)
    np.testing.assert_allclose(_np(sign), want_sign)
    np.testing.assert_allclose(_np(logabs), want_log, rtol=1e-8)
    np.testing.assert_allclose(_np(tf.linalg.logdet(tf.constant(a))), want_log, rtol=1e-8)
    rhs = RNG.normal(size=(2, 3, 2))
    np.testing.assert_allclose(
        _np(tf.linalg.solve(tf.constant(a), tf.constant(rhs))), np.linalg.solve(a, rhs), rtol=1e-8
    )
    ns = RNG.normal(size=(3, 3))
    np.testing.assert_allclose(
        _np(tf.linalg.solve(tf.constant(ns), tf.constant(rhs[0]), adjoint=True)),
        np.linalg.solve(ns.T, rhs[0]),
        rtol=1e-7,
        atol=1e-9,
    )
    with pytest.raises(tf.errors.InvalidArgumentError, match="not invertible"):
        tf.linalg.inv(tf.constant(np.zeros((2, 2), np.float32)))
    with pytest.raises(tf.errors.InvalidArgumentError, match="not invertible"):
        tf.linalg.solve(tf.constant(np.zeros((2, 2))), tf.constant(np.ones((2, 1))))
    with pytest.raises(tf.errors.InvalidArgumentError, match="square"):
        tf.linalg.det(tf.constant(_f32(2, 3)))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[2, 3, 3\] and \[2, 2, 2\]"):
        tf.linalg.solve(tf.constant(a), tf.constant(np.ones((2, 2, 2))))
    with pytest.raises(TypeError, match="floating"):
        tf.linalg.det(tf.constant([[1, 0], [0, 1]]))


def test_factorizations_reconstruct():
    a = _spd(4)
    chol = _np(tf.linalg.cholesky(tf.constant(a)))
    np.testing.assert_allclose(chol, np.linalg.cholesky(a), rtol=1e-8)
    bad = _np(tf.linalg.cholesky(tf.constant(-np.eye(2))))
    assert np.isnan(bad[1, 1]) and bad[0, 1] == 0.0
    rhs = RNG.normal(size=(4, 2))
    np.testing.assert_allclose(
        _np(tf.linalg.cholesky_solve(tf.constant(chol), tf.constant(rhs))),
        np.linalg.solve(a, rhs),
        rtol=1e-8,
    )
    m = RNG.normal(size=(5, 3))
    q, r = tf.linalg.qr(tf.constant(m))
    assert q.shape == (5, 3) and r.shape == (3, 3)
    np.testing.assert_allclose(_np(q) @ _np(r), m, atol=1e-10)
    assert tf.linalg.qr(tf.constant(m), full_matrices=True).q.shape == (5, 5)
    s, u, v = tf.linalg.svd(tf.constant(m))
    assert s.shape == (3,) and u.shape == (5, 3) and v.shape == (3, 3)
    np.testing.assert_allclose(_np(u) @ np.diag(_np(s)) @ _np(v).T, m, atol=1e-10)
    np.testing.assert_allclose(
        _np(tf.linalg.svd(tf.constant(m), compute_uv=False)),
        np.linalg.svd(m, compute_uv=False),
        rtol=1e-10,
    )
    e, vecs = tf.linalg.eigh(tf.constant(a))
    np.testing.assert_allclose(_np(e), np.linalg.eigvalsh(a), rtol=1e-10)
    np.testing.assert_allclose(_np(vecs) @ np.diag(_np(e)) @ _np(vecs).T, a, atol=1e-9)
    np.testing.assert_allclose(
        _np(tf.linalg.eigvalsh(tf.constant(a))), np.linalg.eigvalsh(a), rtol=1e-10
    )
    ev = tf.eigvals(tf.constant(a))
    assert ev.is_complex()
    np.testing.assert_allclose(np.sort(_np(ev).real), np.linalg.eigvalsh(a), rtol=1e-8)
    lu, p = tf.linalg.lu(tf.constant(m[:3]))
    assert p.dtype == torch.int32
    lower = np.tril(_np(lu), -1) + np.eye(3)
    np.testing.assert_allclose(lower @ np.triu(_np(lu)), m[:3][_np(p)], atol=1e-10)


def test_least_squares_pinv_rank_triangular():
    a = RNG.normal(size=(6, 3))
    b = RNG.normal(size=(6, 2))
    want = np.linalg.lstsq(a, b, rcond=None)[0]
    np.testing.assert_allclose(
        _np(tf.linalg.lstsq(tf.constant(a), tf.constant(b))), want, rtol=1e-7
    )
    np.testing.assert_allclose(
        _np(tf.linalg.lstsq(tf.constant(a), tf.constant(b), fast=False)), want, rtol=1e-7
    )
    reg = _np(tf.linalg.lstsq(tf.constant(a), tf.constant(b), l2_regularizer=0.3))
    np.testing.assert_allclose(reg, np.linalg.solve(a.T @ a + 0.3 * np.eye(3), a.T @ b), rtol=1e-7)
    wide = RNG.normal(size=(2, 4))
    np.testing.assert_allclose(
        _np(tf.linalg.lstsq(tf.constant(wide), tf.constant(b[:2]))),
        np.linalg.pinv(wide) @ b[:2],
        rtol=1e-7,
        atol=1e-10,
    )
    np.testing.assert_allclose(_np(tf.linalg.pinv(tf.constant(a))), np.linalg.pinv(a), rtol=1e-7)
    low_rank = a[:, :1] @ RNG.normal(size=(1, 4))
    rank = tf.linalg.matrix_rank(tf.constant(low_rank))
    assert rank.dtype == torch.int32 and int(rank) == 1
    tri = np.tril(_spd(3))
    np.testing.assert_allclose(
        _np(tf.linalg.triangular_solve(tf.constant(tri), tf.constant(b[:3]))),
        np.linalg.solve(tri, b[:3]),
        rtol=1e-8,
    )
    np.testing.assert_allclose(
        _np(tf.linalg.triangular_solve(tf.constant(tri), tf.constant(b[:3]), adjoint=True)),
        np.linalg.solve(tri.T, b[:3]),
        rtol=1e-8,
    )
    np.testing.assert_allclose(_np(tf.linalg.expm(tf.constant(np.zeros((2, 2))))), np.eye(2))


def test_top_level_names_match_tensorflow():
    for name in ("matmul", "tensordot", "einsum", "norm", "eye", "eig", "eigvals"):
        assert callable(getattr(tf, name)), name
    for name in ("inv", "svd", "l2_normalize", "band_part", "global_norm"):
        assert not hasattr(tf, name), name  # tf.linalg only, as in TF 2.15
        assert callable(getattr(tf.linalg, name)), name

