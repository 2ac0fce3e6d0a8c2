"""tf.Variable's sparse updates and reads (`scatter_*` with an IndexedSlices of rows,
`scatter_nd_*`, `batch_scatter_update`, `sparse_read`, `gather_nd`, `count_up_to`, `ref`), checked
against the values TF 2.15's resource variables give; `scatter_add` called as torch's stays torch's."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import torchestimator as tf

BASE = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], np.float32)
ROWS = tf.IndexedSlices(tf.constant([[2.0, 2.0], [4.0, 4.0], [1.0, 1.0]]), tf.constant([0, 2, 0]))


@pytest.mark.parametrize("method, expected", [
    ("scatter_add", [[4.0, 5.0], [3.0, 4.0], [9.0, 10.0]]),  # repeated rows all apply
    ("scatter_sub", [[-2.0, -1.0], [3.0, 4.0], [1.0, 2.0]]),
    ("scatter_mul", [[2.0, 4.0], [3.0, 4.0], [20.0, 24.0]]),
    ("scatter_div", [[0.5, 1.0], [3.0, 4.0], [1.25, 1.5]]),
    ("scatter_max", [[2.0, 2.0], [3.0, 4.0], [5.0, 6.0]]),
    ("scatter_min", [[1.0, 1.0], [3.0, 4.0], [4.0, 4.0]]),
])
def test_row_scatters_apply_every_row_and_return_the_variable(method, expected):
    var = tf.Variable(BASE)
    assert getattr(var, method)(ROWS) is var
    np.testing.assert_allclose(var.numpy(), expected)


def test_scatter_update_assigns_rows():
    var = tf.Variable(BASE)
    var.scatter_update(tf.IndexedSlices(tf.constant([[0.0, 0.0]]), tf.constant([1])))
    np.testing.assert_allclose(var.numpy(), [[1.0, 2.0], [0.0, 0.0], [5.0, 6.0]])


@pytest.mark.parametrize("method, expected", [
    ("scatter_nd_add", [[1.0, 12.0], [3.0, 4.0], [25.0, 6.0]]),
    ("scatter_nd_sub", [[1.0, -8.0], [3.0, 4.0], [-15.0, 6.0]]),
    ("scatter_nd_update", [[1.0, 10.0], [3.0, 4.0], [20.0, 6.0]]),
    ("scatter_nd_max", [[1.0, 10.0], [3.0, 4.0], [20.0, 6.0]]),
    ("scatter_nd_min", [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]),
])
def test_nd_scatters_take_element_indices(method, expected):
    var = tf.Variable(BASE)
    assert getattr(var, method)([[0, 1], [2, 0]], [10.0, 20.0]) is var
    np.testing.assert_allclose(var.numpy(), expected)


def test_batch_scatter_update_assigns_at_the_indices():
    """(An IndexedSlices holds a vector of indices: the variable's only axis is the indexed one.)"""
    var = tf.Variable([1.0, 2.0, 3.0, 4.0])
    var.batch_scatter_update(tf.IndexedSlices(tf.constant([9.0, 8.0]), tf.constant([3, 0])))
    np.testing.assert_allclose(var.numpy(), [8.0, 2.0, 3.0, 9.0])


def test_sparse_read_and_gather_nd_read_without_changing():
    var = tf.Variable(BASE)
    np.testing.assert_allclose(var.sparse_read([2, 0]).numpy(), BASE[[2, 0]])
    np.testing.assert_allclose(var.gather_nd([[1, 1], [0, 0]]).numpy(), [4.0, 1.0])
    np.testing.assert_allclose(var.numpy(), BASE)


def test_count_up_to_returns_the_old_value_and_stops_at_the_limit():
    counter = tf.Variable(0, dtype=tf.int64)
    assert [int(counter.count_up_to(2)) for _ in range(2)] == [0, 1]
    with pytest.raises(tf.errors.OutOfRangeError, match="limit of 2"):
        counter.count_up_to(2)


def test_ref_is_a_hashable_key_that_gives_the_variable_back():
    a, b = tf.Variable(1.0), tf.Variable(1.0)
    keys = {a.ref(): "a", b.experimental_ref(): "b"}
    assert keys[a.ref()] == "a" and keys[b.ref()] == "b" and a.ref() != b.ref()
    assert a.ref().deref() is a


def test_a_row_scatter_needs_indexed_slices():
    with pytest.raises(TypeError, match="scatter_sub: sparse_delta must be a tf.IndexedSlices"):
        tf.Variable(BASE).scatter_sub(np.ones((3, 2), np.float32))


def test_torch_scatter_add_is_still_torchs():
    var = tf.Variable(BASE)
    out = var.scatter_add(0, torch.tensor([[0, 0]]).to(var.device), torch.ones(1, 2).to(var.device))
    np.testing.assert_allclose(out.detach().numpy(), [[2.0, 3.0], [3.0, 4.0], [5.0, 6.0]])
    np.testing.assert_allclose(var.numpy(), BASE)  # out of place, as torch's


def test_a_slice_of_a_variable_assigns_into_the_variable():
    var = tf.Variable(BASE)
    assert var[0].assign([9.0, 9.0]) is var
    var[1:, 1].assign_add(1.0)
    var[:, 0].assign_sub(tf.constant([1.0, 1.0, 1.0]))
    np.testing.assert_allclose(var.numpy(), [[8.0, 9.0], [2.0, 5.0], [4.0, 7.0]])
    with pytest.raises(ValueError, match=r"shape \[3\] does not fit the slice's shape \[2\]"):
        var[0].assign([1.0, 2.0, 3.0])


def test_a_slice_of_a_variable_is_still_a_differentiable_view():
    var = tf.Variable(np.ones((2, 2), np.float32))
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(var[0] * 2.0)
    np.testing.assert_allclose(tape.gradient(y, var).numpy(), [[2.0, 2.0], [0.0, 0.0]])


def test_tf1_eval_load_and_initialized_value():
    var = tf.Variable([1.0, 2.0])
    assert isinstance(var.eval(), np.ndarray) and var.eval().tolist() == [1.0, 2.0]
    assert var.initialized_value().tolist() == [1.0, 2.0]
    assert var.load([3.0, 4.0]) is None and var.numpy().tolist() == [3.0, 4.0]
