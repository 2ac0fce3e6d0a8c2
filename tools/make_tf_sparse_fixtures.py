"""Records TF 2.15 `tf.sparse` results for tests/sparse (run with TF 2.15's python).

Writes tests/sparse/tf_sparse_fixtures.json: per case, indices/values/dense_shape
(or a dense "value") as lists.
"""

import json
import os
import sys

import numpy as np
import tensorflow as tf

A = tf.sparse.SparseTensor([[1, 2], [0, 1], [2, 0], [0, 3]], [3.0, 1.0, 5.0, -2.0], [3, 4])
B = tf.sparse.SparseTensor([[0, 1], [1, 1], [2, 0]], [4.0, 2.0, -5.0], [3, 4])
A3 = tf.sparse.SparseTensor([[0, 0, 1], [0, 2, 0], [1, 1, 1]], [1.0, 2.0, 3.0], [2, 3, 2])


def enc(x):
    if isinstance(x, tf.sparse.SparseTensor):
        return {"indices": x.indices.numpy().tolist(), "values": x.values.numpy().tolist(),
                "dense_shape": x.dense_shape.numpy().tolist()}
    if isinstance(x, (list, tuple)):
        return [enc(v) for v in x]
    return {"value": np.asarray(x).tolist()}


def main():
    o = tf.sparse.reorder
    cases = {
        "reorder": o(A),
        "retain": tf.sparse.retain(o(A), [True, False, True, False]),
        "reset_shape": tf.sparse.reset_shape(o(A)),
        "reset_shape_new": tf.sparse.reset_shape(o(A), [5, 6]),
        "expand_dims_0": tf.sparse.expand_dims(o(A), 0),
        "expand_dims_m1": tf.sparse.expand_dims(o(A), -1),
        "eye": tf.sparse.eye(3, 4),
        "fill_empty_rows": tf.sparse.fill_empty_rows(
            tf.sparse.SparseTensor([[1, 0], [3, 2]], [7.0, 8.0], [5, 3]), -1.0),
        "reduce_sum": tf.sparse.reduce_sum(o(A)),
        "reduce_sum_1": tf.sparse.reduce_sum(o(A), 1),
        "reduce_sum_0_keep": tf.sparse.reduce_sum(o(A), 0, keepdims=True),
        "reduce_sum_sparse": tf.sparse.reduce_sum(o(A), 1, output_is_sparse=True),
        "reduce_max_1": tf.sparse.reduce_max(o(A), 1),
        "reduce_max_3d": tf.sparse.reduce_max(A3, [0, 2]),
        "add": tf.sparse.add(o(A), o(B)),
        "add_thresh": tf.sparse.add(o(A), o(B), threshold=2.5),
        "add_dense": tf.sparse.add(o(A), tf.ones([3, 4])),
        "maximum": tf.sparse.maximum(o(A), o(B)),
        "minimum": tf.sparse.minimum(o(A), o(B)),
        "transpose": tf.sparse.transpose(o(A)),
        "transpose_3d": tf.sparse.transpose(A3, [1, 2, 0]),
        "reshape": tf.sparse.reshape(o(A), [2, -1]),
        "reshape_3d": tf.sparse.reshape(A3, [-1, 2]),
        "slice": tf.sparse.slice(o(A), [0, 1], [2, 5]),
        "concat_1": tf.sparse.concat(1, [o(A), o(B)]),
        "concat_0": tf.sparse.concat(0, [o(A), o(B)]),
        "concat_expand": tf.sparse.concat(
            1, [o(A), tf.sparse.SparseTensor([[4, 0]], [9.0], [5, 2])],
            expand_nonconcat_dims=True),
        "split": tf.sparse.split(sp_input=o(A), num_split=3, axis=1),
        "matmul": tf.sparse.sparse_dense_matmul(o(A), tf.reshape(tf.range(8.0), [4, 2])),
        "matmul_adj": tf.sparse.sparse_dense_matmul(o(A), tf.reshape(tf.range(6.0), [3, 2]),
                                                    adjoint_a=True),
        "softmax": tf.sparse.softmax(o(A)),
        "to_indicator": tf.sparse.to_indicator(
            tf.sparse.SparseTensor([[0, 0], [0, 1], [2, 0]], tf.constant([3, 1, 0], tf.int64),
                                   [3, 2]), 4),
        "segment_sum": tf.sparse.segment_sum(tf.constant([[1.0, 2], [3, 4], [5, 6]]),
                                             [0, 1, 2], [0, 0, 1]),
        "segment_mean": tf.sparse.segment_mean(tf.constant([[1.0, 2], [3, 4], [5, 6]]),
                                               [0, 2, 1], [0, 0, 2]),
        "segment_sqrt_n": tf.sparse.segment_sqrt_n(tf.constant([[1.0, 2], [3, 4], [5, 6]]),
                                                   [0, 1, 2], [0, 0, 0], num_segments=2),
    }
    errors = {}
    for key, fn in {
        "reset_shape_small": lambda: tf.sparse.reset_shape(o(A), [2, 2]),
        "concat_mismatch": lambda: tf.sparse.concat(
            1, [o(A), tf.sparse.SparseTensor([[0, 0]], [1.0], [2, 2])]),
        "matmul_inner": lambda: tf.sparse.sparse_dense_matmul(o(A), tf.ones([3, 2])),
    }.items():
        try:
            fn()
            errors[key] = None
        except Exception as e:  # noqa: BLE001
            errors[key] = f"{type(e).__name__}: {str(e)[:300]}"
    out = {k: enc(v) for k, v in cases.items()}
    out["_errors"] = errors
    path = os.path.join(os.path.dirname(__file__), "..", "tests", "sparse",
                        "tf_sparse_fixtures.json")
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(out, f, indent=None, sort_keys=True)
    os.replace(tmp, path)
    print("wrote", path, file=sys.stderr)


if __name__ == "__main__":
    main()
