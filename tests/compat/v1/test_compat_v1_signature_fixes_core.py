"""TF1's signatures of `tf.compat.v1`'s functions whose TF2 namesake takes its arguments in
another order or under other names, and of `tf.compat.v1.nn` / `tf.compat.v1.summary`: a
positional call binds as TF1's, the assertions show `data`. Expected values and messages were
printed by TF 2.15.1."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator.errors import InvalidArgumentError

v1 = tf.compat.v1


# ------------------------------------------------------------------ assertions show `data`
@pytest.mark.parametrize("call, text", [
    (lambda: v1.assert_greater_equal([1, 2], [2, 2], data=["hello", tf.constant([5, 6, 7, 8])],
                                      summarize=2, message="msg"),
     "msg\nhello\n['5', '6', '...']"),
    (lambda: v1.assert_equal([1, 2], [1, 3], ["bad", tf.constant([1, 2, 3, 4])], 2, "m"),
     "m\nbad\n['1', '2', '...']"),
    (lambda: v1.assert_less([1, 2], [1, 3], data=["bad"]), "bad"),
    (lambda: v1.assert_none_equal([1, 2], [1, 3], data=["x"]), "x"),
    (lambda: v1.assert_positive([1, -2], data=["hi", tf.constant([1, -2])], message="m"),
     "hi\n['1', '-2']"),
    (lambda: v1.assert_negative([1, -2], ["neg", tf.constant([1.5, 2.5])]), "neg\n['1.5', '2.5']"),
    (lambda: v1.assert_positive([1, -2], message="m"),
     "m.  \nCondition x > 0 did not hold element-wise:\nx (shape=(2,) dtype=int32) = \n"
     "['1', '-2']"),
    (lambda: v1.assert_greater_equal([1, 2], [2, 2], message="msg"),
     "msg\nCondition x >= y did not hold.\nIndices of first 1 different values:\n[[0]]\n"
     "Corresponding x values:\n[1]\nCorresponding y values:\n[2]\nFirst 2 elements of x:\n"
     "[1 2]\nFirst 2 elements of y:\n[2 2]"),
])
def test_binary_and_sign_assertions_show_data(call, text):
    with pytest.raises(InvalidArgumentError) as caught:
        call()
    assert str(caught.value) == text


def test_assert_near_shows_data_in_place_of_its_default():
    with pytest.raises(InvalidArgumentError) as caught:
        v1.assert_near([1.0, 2.0], [1.0, 3.0], None, None, ["bad", tf.constant([1, 2, 3, 4])], 2, "m")
    assert str(caught.value) == ("Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. "
                                 "Summarized data: bad\n1, 2, ...")
    v1.assert_near([1.0, 2.0], [1.0, 2.0], data=["unused"])
    v1.assert_non_negative([0, 1], ["unused"])
    v1.assert_non_positive([0, -1], data=["unused"])
    v1.assert_less_equal([1, 2], [1, 2], ["unused"])


def test_rank_assertions_fail_statically_with_the_message_as_tfs():
    with pytest.raises(ValueError) as caught:
        v1.assert_rank_at_least(tf.constant(1), 1, ["d", tf.constant([1, 2])], 3, "m")
    assert str(caught.value) == "m.  Tensor  must have rank at least 1.  Received rank 0, shape ()"
    with pytest.raises(ValueError) as caught:
        v1.assert_rank_in(tf.constant(1), [1, 2], ["d"], 3, "m", "nm")
    assert str(caught.value) == "m.  Tensor  must have rank in (1, 2).  Received rank 0, shape ()"
    with pytest.raises(ValueError) as caught:
        v1.assert_scalar(tf.constant([1]), "nm", "m")
    assert str(caught.value) == "m.  Expected scalar shape, saw shape: (1,)."
    assert int(v1.assert_scalar(tf.constant(1), "nm", "m")) == 1


# ------------------------------------------------------------------ TF1's argument order
def test_array_functions_bind_positionally_as_tf1():
    assert v1.gather([[1, 2], [3, 4]], [1], None, None, 1).tolist() == [[2], [4]]
    assert v1.gather_nd([[[1, 2], [3, 4]], [[5, 6], [7, 8]]], [[1], [0]], None, 1).tolist() == \
        [[3, 4], [5, 6]]
    assert v1.pad([[1, 2]], [[1, 0], [0, 1]], "CONSTANT", None, 9).tolist() == [[9, 9, 9], [1, 2, 9]]
    assert v1.transpose(tf.constant([[1 + 2j, 3j]]), None, "t", True).tolist() == [[1 - 2j], [-3j]]
    shape = v1.shape([[1, 2, 3]], None, tf.int64)
    assert shape.tolist() == [1, 3] and shape.dtype == torch.int64
    assert v1.shape([[1, 2, 3]]).dtype == torch.int32
    size = v1.size([[1, 2, 3]], None, tf.int64)
    assert int(size) == 3 and size.dtype == torch.int64
    assert v1.boolean_mask([[1, 2], [3, 4]], [True, False], "bm", 1).tolist() == [[1], [3]]
    cm = v1.confusion_matrix([0, 1, 1], [0, 1, 0], 2, tf.float32, None, [1.0, 2.0, 3.0])
    assert cm.tolist() == [[1.0, 0.0], [3.0, 2.0]] and cm.dtype == torch.float32
    assert len(v1.tuple([tf.constant(1)], None, None)) == 1


def test_space_and_depth_functions_bind_as_tf1():
    x = tf.constant(np.arange(16, dtype=np.float32).reshape(1, 2, 2, 4))
    want = [[[[0.0], [1.0], [4.0], [5.0]], [[2.0], [3.0], [6.0], [7.0]],
             [[8.0], [9.0], [12.0], [13.0]], [[10.0], [11.0], [14.0], [15.0]]]]
    assert v1.depth_to_space(x, 2, None, "NHWC").tolist() == want
    assert v1.nn.depth_to_space(x, 2, None, "NHWC").tolist() == want
    back = v1.space_to_depth(v1.depth_to_space(x, 2), 2, None, "NHWC")
    assert back.tolist() == x.tolist() and v1.nn.space_to_depth is v1.space_to_depth
    y = tf.constant(np.arange(8, dtype=np.float32).reshape(4, 1, 1, 2))
    assert v1.batch_to_space(y, [[0, 0], [0, 0]], 2).tolist() == \
        [[[[0.0, 1.0], [2.0, 3.0]], [[4.0, 5.0], [6.0, 7.0]]]]
    assert v1.batch_to_space(y, [[0, 0], [0, 0]], None, block_shape=2).shape == (1, 2, 2, 2)
    with pytest.raises(ValueError, match="Cannot specify both"):
        v1.batch_to_space(y, [[0, 0], [0, 0]], 2, block_shape=2)
    z = tf.constant(np.arange(8, dtype=np.float32).reshape(1, 2, 2, 2))
    assert v1.space_to_batch(z, [[0, 0], [0, 0]], 2).tolist() == \
        [[[[0.0, 1.0]]], [[[2.0, 3.0]]], [[[4.0, 5.0]]], [[[6.0, 7.0]]]]
    with pytest.raises(ValueError, match="Cannot specify both"):
        v1.space_to_batch(z, [[0, 0], [0, 0]], 2, block_shape=2)


def test_string_functions_bind_as_tf1():
    joined = v1.reduce_join([["a", "b"], ["c", "d"]], 1, True, "-")
    assert joined.tolist() == [["a-b"], ["c-d"]]
    joined = v1.reduce_join([["a", "b"], ["c", "d"]], reduction_indices=0, keepdims=False,
                            separator="+")
    assert joined.tolist() == ["a+c", "b+d"]
    with pytest.raises(ValueError, match="Cannot specify both"):
        v1.reduce_join([["a"]], keep_dims=True, keepdims=True)
    assert v1.substr(["hello"], 1, 3, None, "BYTE").tolist() == ["ell"]
    assert v1.decode_raw(bytes=[b"\x01\x00\x02\x00"], out_type=tf.int16).tolist() == [[1, 2]]
    assert v1.decode_raw([b"\x00\x01"], tf.int16, False, None).tolist() == [[1]]
    with pytest.raises(ValueError, match="out_type"):
        v1.decode_raw([b"\x00\x01"])
    assert v1.string_to_number(input=["1.5", "2"]).tolist() == [1.5, 2.0]
    assert v1.string_to_number(["3"], tf.int32).tolist() == [3]


def _sparse(sp):
    return sp.indices.tolist(), list(np.asarray(sp.values).tolist()), sp.dense_shape.tolist()


@pytest.mark.parametrize("args, kwargs, want", [
    ((["a b  c", "", "d"],), {}, ([[0, 0], [0, 1], [0, 2], [2, 0]], ["a", "b", "c", "d"], [3, 3])),
    ((["a b  c", "", "d"],), {"skip_empty": False},
     ([[0, 0], [0, 1], [0, 2], [0, 3], [2, 0]], ["a", "b", "", "c", "d"], [3, 4])),
    ((["a,b;c", "x"], ",;"), {}, ([[0, 0], [0, 1], [0, 2], [1, 0]], ["a", "b", "c", "x"], [2, 3])),
    ((["ab c"], ""), {}, ([[0, 0], [0, 1], [0, 2], [0, 3]], ["a", "b", " ", "c"], [1, 4])),
    ((["a|b"],), {"delimiter": "|"}, ([[0, 0], [0, 1]], ["a", "b"], [1, 2])),
    ((["a  b"], "  "), {}, ([[0, 0], [0, 1]], ["a", "b"], [1, 2])),
])
def test_string_split_is_tf1s(args, kwargs, want):
    assert _sparse(v1.string_split(*args, **kwargs)) == want


def test_string_split_ragged_result_and_errors():
    rt = v1.string_split(["a b c", "d"], result_type="RaggedTensor")
    assert rt.to_list() == [[b"a", b"b", b"c"], [b"d"]]  # TF's to_list gives bytes
    with pytest.raises(InvalidArgumentError, match="input must be a vector"):
        v1.string_split("a b")
    with pytest.raises(ValueError, match="result_type"):
        v1.string_split(["a"], result_type="list")


def test_parse_example_names_order_is_tf1s():
    example = tf.train.Example(features=tf.train.Features(feature={
        "v": tf.train.Feature(int64_list=tf.train.Int64List(value=[4]))})).SerializeToString()
    spec = {"v": tf.io.FixedLenFeature([], tf.int64)}
    assert v1.parse_example([example], spec, "name", ["ex"])["v"].tolist() == [4]


def test_name_scope_takes_default_name_and_values():
    with v1.name_scope(None, "dflt") as scope:
        variable = tf.Variable(1.0)
    assert scope == "dflt/" and variable.name == "dflt/Variable:0"
    with v1.name_scope("a", "dflt", [1]) as scope:
        assert scope == "a/"
    with v1.name_scope(None) as scope:
        assert scope == ""
    with pytest.raises(ValueError, match="At least one of name"):
        with v1.name_scope(None, None, [1]):
            pass
    with pytest.raises(TypeError, match="default_name"):
        v1.name_scope(None, [1])


def test_fftnd_raw_ops_take_tf1_arguments():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    got = v1.fftnd(tf.constant(x.astype(np.complex64)), [3, 4], [0, 1])
    np.testing.assert_allclose(got.numpy(), np.fft.fftn(x), rtol=1e-5, atol=1e-4)
    back = v1.ifftnd(got, [3, 4], [0, 1])
    np.testing.assert_allclose(back.numpy().real, x, atol=1e-5)
    spectrum = v1.rfftnd(tf.constant(x), [3, 4], [0, 1])
    assert spectrum.dtype == torch.complex64
    assert v1.irfftnd(spectrum, [3, 4], [0, 1], tf.float32).dtype == torch.float32
    assert v1.rfftnd(tf.constant(x.astype(np.float64)), [3, 4], [0, 1], tf.complex128).dtype == \
        torch.complex128
    with pytest.raises(TypeError, match="Tcomplex"):
        v1.rfftnd(tf.constant(x), [3, 4], [0, 1], tf.complex128)
    with pytest.raises(TypeError, match="Treal"):
        v1.irfftnd(spectrum, [3, 4], [0, 1], Treal=tf.float64)


# ------------------------------------------------------------------ tf.compat.v1.nn
_W = [tf.constant(np.arange(6, dtype=np.float32).reshape(3, 2) / 10),
      tf.constant(np.arange(4, dtype=np.float32).reshape(2, 2) / 7)]
_B = [tf.constant([0.1, 0.2, 0.3]), tf.constant([0.4, 0.5])]
_LABELS = tf.constant([[0], [3]], dtype=tf.int64)
_INPUTS = tf.constant([[1.0, 2.0], [0.5, -1.0]])
_SAMPLED = (tf.constant([1, 4], dtype=tf.int64), tf.constant([[0.5], [0.5]]), tf.constant([0.3, 0.2]))


@pytest.mark.parametrize("strategy, nce, softmax", [
    ("mod", [5.690854072570801, 3.800506591796875], [2.6092686653137207, 1.559710144996643]),
    ("div", [5.914020538330078, 3.766582727432251], [2.634129524230957, 1.5441275835037231]),
])
def test_sampled_losses_partition_shards_by_strategy(strategy, nce, softmax):
    got = v1.nn.nce_loss(_W, _B, _LABELS, _INPUTS, 2, 5, 1, _SAMPLED, False, strategy)
    np.testing.assert_allclose(got.numpy(), nce, rtol=1e-5)
    got = v1.nn.sampled_softmax_loss(_W, _B, _LABELS, _INPUTS, 2, 5, 1, _SAMPLED, True, strategy)
    np.testing.assert_allclose(got.numpy(), softmax, rtol=1e-5)


def test_sampled_losses_default_to_mod_and_tf2_to_div():
    mod = v1.nn.nce_loss(_W, _B, _LABELS, _INPUTS, 2, 5, sampled_values=_SAMPLED)
    np.testing.assert_allclose(mod.numpy(), [5.690854072570801, 3.800506591796875], rtol=1e-5)
    div = tf.nn.nce_loss(_W, _B, _LABELS, _INPUTS, 2, 5, sampled_values=_SAMPLED)
    np.testing.assert_allclose(div.numpy(), [5.914020538330078, 3.766582727432251], rtol=1e-5)
    with pytest.raises(ValueError, match="Unrecognized partition strategy"):
        v1.nn.nce_loss(_W, _B, _LABELS, _INPUTS, 2, 5, sampled_values=_SAMPLED,
                       partition_strategy="x")


def test_compat_v1_nn_crelu_and_sparse_softmax_cross_entropy():
    assert v1.nn.crelu([[1.0, -2.0]], None, 0).tolist() == [[1.0, 0.0], [0.0, 2.0]]
    loss = v1.nn.sparse_softmax_cross_entropy_with_logits(labels=[0], logits=[[0.0, 0.0]])
    np.testing.assert_allclose(loss.numpy(), [np.log(2.0)], rtol=1e-6)
    with pytest.raises(ValueError, match="Both `labels` and `logits` must be provided"):
        v1.nn.sparse_softmax_cross_entropy_with_logits(logits=[[1.0, 2.0]])


def test_quantized_ops_default_to_tfs_quantized_out_types():
    q = torch.tensor([[[[0], [255]], [[128], [64]]]], dtype=torch.uint8)
    f = torch.tensor([[[[1]]]], dtype=torch.uint8)
    out, _, _ = v1.nn.quantized_conv2d(q, f, 0.0, 1.0, 0.0, 1.0, [1, 1, 1, 1], "VALID")
    assert out.dtype == torch.int32  # tf.qint32 is stored as int32
    same, _, _ = v1.nn.quantized_conv2d(q, f, 0.0, 1.0, 0.0, 1.0, [1, 1, 1, 1], "VALID", tf.qint32)
    assert same.tolist() == out.tolist()
    with pytest.raises(TypeError, match="out_type"):
        v1.nn.quantized_conv2d(q, f, 0.0, 1.0, 0.0, 1.0, [1, 1, 1, 1], "VALID", tf.quint8)
    relu, _, _ = v1.nn.quantized_relu_x(q, 0.5, 0.0, 1.0)
    assert relu.dtype == torch.uint8
    assert v1.nn.quantized_relu_x(q, 0.5, 0.0, 1.0, tf.quint8)[0].tolist() == relu.tolist()
    with pytest.raises(TypeError, match="out_type"):
        v1.nn.quantized_relu_x(q, 0.5, 0.0, 1.0, tf.qint32)


# ------------------------------------------------------------------ tf.compat.v1.summary
def test_file_writer_fifth_positional_is_graph_def(tmp_path):
    graph_def = v1.GraphDef()
    writer = v1.summary.FileWriter(str(tmp_path), None, 10, 120, graph_def, ".mine")
    writer.close()
    events = [e for path in tmp_path.glob("*tfevents*.mine")
              for e in v1.train.summary_iterator(str(path))]
    assert any(e.HasField("graph_def") for e in events)


def test_merge_all_key_is_the_summaries_collection():
    assert v1.summary.merge_all()._merge_all
    assert v1.summary.merge_all(v1.GraphKeys.SUMMARIES)._merge_all
    with pytest.raises(NotImplementedError, match="merge_all"):
        v1.summary.merge_all("my_summaries")
