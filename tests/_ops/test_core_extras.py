"""TF's less common top-level ops, tf.bitwise and tf.sets: values TF 2.15 gives for the same
inputs (recorded by running it), and their errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import torchestimator as tf


def test_dynamic_partition_and_stitch_as_tf():
    parts = tf.dynamic_partition(tf.constant([10, 20, 30, 40, 50]), tf.constant([0, 0, 1, 1, 0]), 2)
    assert [p.tolist() for p in parts] == [[10, 20, 50], [30, 40]]
    rows = tf.dynamic_partition(tf.constant([[1, 2], [3, 4], [5, 6]]), tf.constant([1, 0, 1]), 3)
    assert [p.tolist() for p in rows] == [[[3, 4]], [[1, 2], [5, 6]], []]
    merged = tf.dynamic_stitch(
        [tf.constant([6]), tf.constant([4, 1]), tf.constant([[5, 2], [0, 3]])],
        [tf.constant([[61, 62]]), tf.constant([[41, 42], [11, 12]]),
         tf.constant([[[51, 52], [21, 22]], [[1, 2], [31, 32]]])])
    assert merged.tolist() == [[1, 2], [11, 12], [21, 22], [31, 32], [41, 42], [51, 52], [61, 62]]
    later_wins = tf.dynamic_stitch([tf.constant([0, 1]), tf.constant([1, 2])],
                                   [tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])])
    assert later_wins.tolist() == [1.0, 3.0, 4.0]
    with pytest.raises(ValueError, match="outside \\[0, 2\\)"):
        tf.dynamic_partition(tf.constant([1, 2]), tf.constant([0, 2]), 2)
    assert tf.parallel_stack([tf.constant([1, 2]), tf.constant([3, 4])]).tolist() == [[1, 2], [3, 4]]


def test_histograms_as_tf():
    values = tf.constant([-1.0, 0.0, 1.5, 2.0, 5.0, 15])
    assert tf.histogram_fixed_width(values, [0.0, 5.0], nbins=5).tolist() == [2, 1, 1, 0, 2]
    bins = tf.histogram_fixed_width_bins(values, [0.0, 5.0], nbins=5)
    assert bins.tolist() == [0, 0, 1, 2, 4, 4] and bins.dtype == torch.int32
    with pytest.raises(ValueError, match="low < high"):
        tf.histogram_fixed_width(values, [1.0, 1.0])


def test_space_to_batch_and_back_as_tf():
    x = torch.arange(16.0).reshape(1, 4, 4, 1)
    y = tf.space_to_batch(x, [2, 2], [[0, 0], [0, 0]])
    assert y[..., 0].tolist() == [[[0.0, 2.0], [8.0, 10.0]], [[1.0, 3.0], [9.0, 11.0]],
                                  [[4.0, 6.0], [12.0, 14.0]], [[5.0, 7.0], [13.0, 15.0]]]
    padded = tf.space_to_batch_nd(x, [2, 2], [[1, 1], [0, 2]])
    assert tuple(padded.shape) == (4, 3, 3, 1)
    assert padded[..., 0].tolist() == [
        [[0.0, 0.0, 0.0], [4.0, 6.0, 0.0], [12.0, 14.0, 0.0]], [[0.0, 0.0, 0.0], [5.0, 7.0, 0.0], [13.0, 15.0, 0.0]],
        [[0.0, 2.0, 0.0], [8.0, 10.0, 0.0], [0.0, 0.0, 0.0]], [[1.0, 3.0, 0.0], [9.0, 11.0, 0.0], [0.0, 0.0, 0.0]]]
    assert torch.equal(tf.batch_to_space(padded, [2, 2], [[1, 1], [0, 2]]), x)
    paddings, crops = tf.required_space_to_batch_paddings([5, 7], [2, 3])
    assert paddings.tolist() == [[0, 1], [0, 2]] and crops.tolist() == [[0, 1], [0, 2]]
    paddings, crops = tf.required_space_to_batch_paddings([5, 7], [2, 3], [[1, 0], [0, 2]])
    assert paddings.tolist() == [[1, 0], [0, 2]] and crops.tolist() == [[0, 0], [0, 0]]
    with pytest.raises(ValueError, match="not a multiple of block_shape"):
        tf.space_to_batch_nd(x, [3, 3], [[0, 0], [0, 0]])


def test_fingerprint_and_bitcast_as_tf():
    assert tf.fingerprint(tf.constant(["hello", "x"])).tolist() == [
        [232, 12, 56, 49, 169, 229, 139, 180], [2, 104, 255, 236, 186, 253, 126, 193]]
    assert tf.fingerprint(torch.tensor([[1, 2], [3, 4]], dtype=torch.int32)).tolist() == [
        [76, 18, 253, 133, 168, 204, 240, 10], [254, 162, 60, 240, 103, 244, 53, 255]]
    assert tf.fingerprint(tf.constant([["hello", "x"]])).tolist() == [[110, 77, 71, 18, 249, 61, 205, 159]]
    # a bytes string with NUL bytes hashes as TF's (numpy would drop the trailing NULs)
    assert tf.fingerprint([b"\x01\x00\x00\x00\x02\x00\x00\x00"]).tolist() == [[76, 18, 253, 133, 168, 204, 240, 10]]
    assert tf.bitcast(tf.constant([1.0]), tf.int32).tolist() == [1065353216]
    assert tf.bitcast(tf.constant([1.0]), tf.uint8).tolist() == [[0, 0, 128, 63]]
    assert tf.bitcast(torch.tensor([[1, 0, 128, 63]], dtype=torch.uint8), tf.float32).tolist() == [1.0000001192092896]
    with pytest.raises(ValueError, match="last dimension of the input must be 4"):
        tf.bitcast(torch.tensor([1, 2], dtype=torch.uint8), tf.float32)


def test_edit_distance_as_tf():
    hypothesis = tf.SparseTensor([[0, 0], [0, 1], [1, 0]], ["a", "b", "c"], [2, 2])
    truth = tf.SparseTensor([[0, 0], [1, 0], [1, 1]], ["a", "c", "d"], [2, 2])
    assert tf.edit_distance(hypothesis, truth).tolist() == [1.0, 0.5]
    assert tf.edit_distance(hypothesis, truth, normalize=False).tolist() == [1.0, 1.0]
    empty_truth = tf.SparseTensor(np.zeros((0, 2), np.int64), np.array([], dtype=object), [1, 1])
    assert tf.edit_distance(tf.SparseTensor([[0, 0]], ["a"], [1, 1]), empty_truth).tolist() == [float("inf")]


def test_fft_nd_matches_numpy():
    a = np.arange(24, dtype=np.complex64).reshape(2, 3, 4)
    np.testing.assert_allclose(tf.fftnd(torch.from_numpy(a), [3, 4], [1, 2]).numpy(), np.fft.fftn(a, (3, 4), (1, 2)),
                               rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(tf.ifftnd(torch.from_numpy(a), [3, 4], [1, 2]).numpy(), np.fft.ifftn(a, (3, 4), (1, 2)),
                               rtol=1e-5, atol=1e-5)
    real = torch.from_numpy(a.real.astype(np.float32))
    spectrum = tf.rfftnd(real, [2, 4], [0, 2])
    assert tuple(spectrum.shape) == (2, 3, 3) and spectrum.dtype == torch.complex64
    np.testing.assert_allclose(tf.irfftnd(spectrum, [2, 4], [0, 2]).numpy(), real.numpy(), atol=1e-4)


def test_tensor_protos_as_tf():
    proto = tf.make_tensor_proto([[1.0, 2.0]])
    assert proto.dtype == 1 and proto.tensor_content == b"\x00\x00\x80?\x00\x00\x00@"
    assert [d.size for d in proto.tensor_shape.dim] == [1, 2]
    assert tf.make_ndarray(tf.make_tensor_proto(np.array([[1, 2]], np.int64))).tolist() == [[1, 2]]
    strings = tf.make_tensor_proto(["ab", "c"])
    assert strings.dtype == 7 and list(strings.string_val) == [b"ab", b"c"]
    scalar = tf.make_tensor_proto(3, dtype=tf.float32, shape=[2, 2])
    assert list(scalar.float_val) == [3.0] and tf.make_ndarray(scalar).tolist() == [[3.0, 3.0], [3.0, 3.0]]
    short = tf.make_tensor_proto([1, 2, 3], shape=[2, 2])
    assert short.dtype == 3 and list(short.int_val) == [1, 2, 3]
    assert tf.make_ndarray(short).tolist() == [[1, 2], [3, 3]]
    with pytest.raises(TypeError, match=r"Expected Tensor's shape: \(2, 2\), but got \(4,\)"):
        tf.make_tensor_proto([1, 2, 3, 4], shape=[2, 2], verify_shape=True)
    # the message is TensorBoard's TensorProto: the same wire format as TF's
    from tensorboard.compat.proto import tensor_pb2

    assert tensor_pb2.TensorProto.FromString(proto.SerializeToString()) == proto


def test_graph_names_behave_as_in_eager_tf():
    assert tf.timestamp().dtype == torch.float64
    assert tf.get_current_name_scope() == ""
    with tf.name_scope("outer"):
        with tf.name_scope("inner"):
            assert tf.get_current_name_scope() == "outer/inner"
    assert tf.inside_function() is False and tf.is_symbolic_tensor(tf.constant(1)) is False
    assert tf.tuple([tf.constant(1), tf.constant(2)])[1].tolist() == 2
    assert [m.name for m in tf.VariableAggregation] == ["NONE", "SUM", "MEAN", "ONLY_FIRST_REPLICA"]
    assert [m.value for m in tf.VariableSynchronization] == [0, 1, 2, 3]
    assert tf.AggregationMethod.DEFAULT == tf.AggregationMethod.ADD_N == 0


def test_grad_pass_through_and_recompute_grad():
    x = torch.tensor([0.3, 1.7], requires_grad=True)
    y = tf.grad_pass_through(torch.round)(x)
    y.sum().backward()
    assert y.tolist() == [0.0, 2.0] and x.grad.tolist() == [1.0, 1.0]
    w = torch.tensor([2.0], requires_grad=True)
    out = tf.recompute_grad(lambda t: torch.sin(t * w))(torch.tensor([0.5]))
    out.sum().backward()
    assert torch.allclose(w.grad, torch.cos(torch.tensor([1.0])) * 0.5)


def test_bitwise_as_tf():
    assert tf.bitwise.invert(torch.tensor([0, 5], dtype=torch.uint8)).tolist() == [255, 250]
    assert tf.bitwise.right_shift(torch.tensor([-8], dtype=torch.int32), torch.tensor([1], dtype=torch.int32)).tolist() == [-4]
    assert tf.bitwise.bitwise_and(tf.constant([12]), tf.constant([10])).tolist() == [8]
    assert tf.bitwise.bitwise_or(tf.constant([12]), tf.constant([10])).tolist() == [14]
    assert tf.bitwise.bitwise_xor(tf.constant([12]), tf.constant([10])).tolist() == [6]
    assert tf.bitwise.left_shift(tf.constant([1]), tf.constant([3])).tolist() == [8]
    with pytest.raises(TypeError, match="must be an integer tensor"):
        tf.bitwise.bitwise_and(tf.constant([1.0]), tf.constant([1.0]))


def test_sets_as_tf():
    a, b = tf.constant([[1, 2, 3], [4, 5, 6]]), tf.constant([[1, 2], [4, 4]])
    expected = {"intersection": ([[0, 0], [0, 1], [1, 0]], [1, 2, 4], [2, 2]),
                "union": ([[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]], [1, 2, 3, 4, 5, 6], [2, 3]),
                "difference": ([[0, 0], [1, 0], [1, 1]], [3, 5, 6], [2, 2])}
    for op, (indices, values, shape) in expected.items():
        result = getattr(tf.sets, op)(a, b)
        assert (result.indices.tolist(), result.values.tolist(), result.dense_shape.tolist()) == (indices, values, shape)
    assert tf.sets.difference(a, b, aminusb=False).values.tolist() == []
    assert tf.sets.size(tf.sparse.from_dense(a)).tolist() == [3, 3]
    assert tf.sets.size(tf.sparse.from_dense(torch.tensor([[1, 1, 0], [2, 3, 0]]))).tolist() == [1, 2]
    assert tf.sets.union(tf.constant([["a", "b"], ["c", "c"]]), tf.constant([["b"], ["d"]])).values.tolist() == [
        b"a", b"b", b"c", b"d"]
    with pytest.raises(ValueError, match="same row dimensions"):
        tf.sets.union(a, tf.constant([[1]]))
