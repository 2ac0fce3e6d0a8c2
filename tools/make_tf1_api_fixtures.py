"""Writes tests/compat/v1/fixtures/tf1_api.json: TF 2.15's TF1-graph values of
`tf.compat.v1.estimator.inputs`, `tf.compat.v1.losses`, `tf.compat.v1.metrics` and the
`tf.compat.v1.train` learning-rate decays, and the evaluate() of a TF1-style Estimator program
(run with TensorFlow 2.15 + tensorflow-estimator 2.15, never in CI):

    ~/anchor-venvs/tf215/bin/python tools/make_tf1_api_fixtures.py

Every value comes from a `tf.compat.v1.Graph` run in a `tf.compat.v1.Session` (metrics: two
`update_op` runs on two fixed batches, then the value), so it is TF1's graph semantics.
"""

from __future__ import annotations

import json
import os
import sys

import numpy as np
import tensorflow as tf

v1 = tf.compat.v1
OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "compat", "v1", "fixtures", "tf1_api.json")


def _py(value):
    if isinstance(value, dict):
        return {k: _py(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_py(v) for v in value]
    array = np.asarray(value)
    if array.dtype == object:
        return [v.decode() if isinstance(v, bytes) else v for v in array.tolist()]
    if array.dtype.kind == "f":
        return [None if np.isnan(v) else float(v) for v in array.reshape(-1)] if array.ndim else (
            None if np.isnan(array) else float(array))
    return array.tolist()


def _drain(input_fn):
    """Every batch input_fn's queue gives until OutOfRange."""
    out = []
    with v1.Graph().as_default():
        result = input_fn()
        with v1.Session() as sess:
            sess.run([v1.local_variables_initializer(), v1.global_variables_initializer()])
            coord = v1.train.Coordinator()
            threads = v1.train.start_queue_runners(sess, coord=coord)
            try:
                while True:
                    out.append(_py(sess.run(result)))
            except tf.errors.OutOfRangeError:
                pass
            coord.request_stop()
            coord.join(threads)
    return out


def inputs():
    import pandas as pd

    inp = v1.estimator.inputs
    x = {"b": np.arange(10, dtype=np.float32), "a": np.arange(10, 20, dtype=np.int64)}
    y = np.arange(100, 110, dtype=np.int32)
    res = {
        "dict_x_y_bs4_e2": _drain(inp.numpy_input_fn(x, y, batch_size=4, num_epochs=2, shuffle=False)),
        "array_x_bs3_e1": _drain(inp.numpy_input_fn(np.arange(14, dtype=np.float64).reshape(7, 2),
                                                    batch_size=3, shuffle=False)),
        "dict_y_bs4_e1": _drain(inp.numpy_input_fn(x, {"t": y, "u": y * 2}, batch_size=4, shuffle=False)),
    }
    df = pd.DataFrame({"a": np.arange(5, dtype=np.float32), "b": np.arange(5, 10)}, index=range(5))
    res["pandas_bs2_e1"] = _drain(inp.pandas_input_fn(df, pd.Series(np.arange(5) * 10), batch_size=2,
                                                      shuffle=False))
    errors = {}
    for label, call in {
        "shuffle_none": lambda: inp.numpy_input_fn(x, y),
        "shuffle_none_pandas": lambda: inp.pandas_input_fn(df, shuffle=None),
        "mismatch": lambda: inp.numpy_input_fn(x, np.arange(3), shuffle=False)(),
        "dup_keys": lambda: inp.numpy_input_fn(x, {"a": y}, shuffle=False)(),
        "bad_x": lambda: inp.numpy_input_fn([1, 2], shuffle=False)(),
    }.items():
        try:
            with v1.Graph().as_default():
                call()
            errors[label] = None
        except (ValueError, TypeError) as e:
            errors[label] = [type(e).__name__, str(e)]
    res["errors"] = errors
    return res


LAB = np.array([[0.0, 1.0], [1.0, 0.5], [0.2, 0.0], [1.0, 1.0]], np.float32)
PRED = np.array([[0.1, 0.8], [0.7, 0.4], [0.9, 0.3], [0.6, 0.2]], np.float32)
W_ROW = np.array([[1.0], [0.0], [2.0], [0.5]], np.float32)


def losses():
    L = v1.losses
    R = L.Reduction
    cases = {
        "cosine_distance": lambda w, r: L.cosine_distance(LAB, PRED, axis=1, weights=w, reduction=r),
        "hinge_loss": lambda w, r: L.hinge_loss(np.round(LAB), PRED * 2 - 1, weights=w, reduction=r),
        "huber_loss": lambda w, r: L.huber_loss(LAB * 3, PRED, weights=w, delta=0.5, reduction=r),
        "log_loss": lambda w, r: L.log_loss(np.round(LAB), PRED, weights=w, reduction=r),
    }
    out = {}
    with v1.Graph().as_default(), v1.Session() as sess:
        for name, fn in cases.items():
            for wname, w in (("w1", 1.0), ("wrow", W_ROW)):
                for rname in ("NONE", "SUM", "MEAN", "SUM_OVER_BATCH_SIZE", "SUM_BY_NONZERO_WEIGHTS"):
                    out[f"{name}/{wname}/{rname}"] = _py(sess.run(fn(w, getattr(R, rname))))
        for wname, w in (("w1", 1.0), ("wrow", W_ROW), ("w3", 3.0)):
            out[f"mean_pairwise_squared_error/{wname}"] = _py(sess.run(
                L.mean_pairwise_squared_error(LAB, PRED, weights=w)))
        coll = L.add_loss(tf.constant(2.5))
        out["add_loss_collected"] = len(v1.get_collection(v1.GraphKeys.LOSSES))
        del coll
    return out


def _stream(make, batches):
    """Runs update_op on each batch (fed through placeholders), then the value."""
    with v1.Graph().as_default():
        phs = [v1.placeholder(tf.as_dtype(np.asarray(a).dtype), np.asarray(a).shape) for a in batches[0]]
        value, update = make(*phs)
        with v1.Session() as sess:
            sess.run(v1.local_variables_initializer())
            updates = [_py(sess.run(update, dict(zip(phs, b)))) for b in batches]
            return {"value": _py(sess.run(value)), "updates": updates}


def metrics():
    M = v1.metrics
    rng = np.random.RandomState(0)
    lab1 = rng.randint(0, 2, 8).astype(np.int64)
    lab2 = rng.randint(0, 2, 8).astype(np.int64)
    p1 = rng.rand(8).astype(np.float32)
    p2 = rng.rand(8).astype(np.float32)
    w1 = rng.rand(8).astype(np.float32)
    w2 = rng.rand(8).astype(np.float32)
    binary = [(lab1, p1, w1), (lab2, p2, w2)]
    boolean = [(lab1, (p1 > 0.5), w1), (lab2, (p2 > 0.5), w2)]
    thr = [0.0, 0.3, 0.5, 0.9]
    out = {}
    for name in ("true_positives", "false_positives", "true_negatives", "false_negatives"):
        out[name] = _stream(lambda lab, p, w, f=getattr(M, name): f(lab, p, weights=w), boolean)
        out[name + "_at_thresholds"] = _stream(
            lambda lab, p, w, f=getattr(M, name + "_at_thresholds"): f(lab, p, thr, weights=w), binary)
    out["precision_at_thresholds"] = _stream(lambda lab, p, w: M.precision_at_thresholds(lab, p, thr, weights=w), binary)
    out["recall_at_thresholds"] = _stream(lambda lab, p, w: M.recall_at_thresholds(lab, p, thr, weights=w), binary)
    for target in (0.3, 0.5, 0.8):
        out[f"sensitivity_at_specificity/{target}"] = _stream(
            lambda lab, p, w, t=target: M.sensitivity_at_specificity(lab, p, t, weights=w, num_thresholds=20), binary)
        out[f"specificity_at_sensitivity/{target}"] = _stream(
            lambda lab, p, w, t=target: M.specificity_at_sensitivity(lab, p, t, weights=w, num_thresholds=20), binary)
    out["sensitivity_at_specificity/default"] = _stream(
        lambda lab, p, w: M.sensitivity_at_specificity(lab, p, 0.5), binary)
    v1a, v1b = rng.randn(4, 3).astype(np.float32), rng.randn(4, 3).astype(np.float32)
    v2a, v2b = rng.randn(4, 3).astype(np.float32), rng.randn(4, 3).astype(np.float32)
    wr1, wr2 = rng.rand(4, 1).astype(np.float32), rng.rand(4, 1).astype(np.float32)
    pair = [(v1a, v1b, wr1), (v2a, v2b, wr2)]
    out["mean_cosine_distance"] = _stream(lambda a, b, w: M.mean_cosine_distance(a, b, 1, weights=w), pair)
    out["mean_relative_error"] = _stream(lambda a, b, w: M.mean_relative_error(a, b, a + 3.0, weights=w), pair)
    out["mean_relative_error_zero"] = _stream(
        lambda a, b, w: M.mean_relative_error(a, b, a * 0.0, weights=w), pair)
    out["percentage_below"] = _stream(lambda a, b, w: M.percentage_below(a, 0.2, weights=w), pair)
    out["mean_tensor"] = _stream(lambda a, b, w: M.mean_tensor(a, weights=w), pair)
    out["mean_tensor_unweighted"] = _stream(lambda a, b, w: M.mean_tensor(a), pair)
    cl1, cl2 = rng.randint(0, 4, 10).astype(np.int64), rng.randint(0, 4, 10).astype(np.int64)
    cp1, cp2 = rng.randint(0, 4, 10).astype(np.int64), rng.randint(0, 4, 10).astype(np.int64)
    cw1, cw2 = rng.rand(10).astype(np.float32), rng.rand(10).astype(np.float32)
    cls = [(cl1, cp1, cw1), (cl2, cp2, cw2)]
    out["mean_iou"] = _stream(lambda lab, p, w: M.mean_iou(lab, p, 5, weights=w), cls)
    out["mean_per_class_accuracy"] = _stream(lambda lab, p, w: M.mean_per_class_accuracy(lab, p, 5, weights=w), cls)
    # at_k: labels (batch, 2) int64; logits (batch, 6)
    kl1, kl2 = rng.randint(0, 6, (5, 2)).astype(np.int64), rng.randint(0, 6, (5, 2)).astype(np.int64)
    kp1, kp2 = rng.randn(5, 6).astype(np.float32), rng.randn(5, 6).astype(np.float32)
    kw1, kw2 = rng.rand(5).astype(np.float32), rng.rand(5).astype(np.float32)
    atk = [(kl1, kp1, kw1), (kl2, kp2, kw2)]
    atk_1d = [(kl1[:, 0], kp1, kw1), (kl2[:, 0], kp2, kw2)]
    for k in (1, 3):
        for cid in (None, 2):
            for name in ("precision_at_k", "recall_at_k", "sparse_precision_at_k"):
                out[f"{name}/k{k}/c{cid}"] = _stream(
                    lambda lab, p, w, f=getattr(M, name), k=k, c=cid: f(lab, p, k, class_id=c, weights=w), atk)
                out[f"{name}/1d/k{k}/c{cid}"] = _stream(
                    lambda lab, p, w, f=getattr(M, name), k=k, c=cid: f(lab, p, k, class_id=c), atk_1d)
            for name in ("precision_at_top_k", "recall_at_top_k"):
                out[f"{name}/k{k}/c{cid}"] = _stream(
                    lambda lab, p, w, f=getattr(M, name), k=k, c=cid: f(
                        lab, tf.nn.top_k(p, k).indices, k=k, class_id=c, weights=w), atk)
        for name in ("average_precision_at_k", "sparse_average_precision_at_k"):
            out[f"{name}/k{k}"] = _stream(lambda lab, p, w, f=getattr(M, name), k=k: f(lab, p, k, weights=w), atk)
            out[f"{name}/1d/k{k}"] = _stream(lambda lab, p, w, f=getattr(M, name), k=k: f(lab, p, k), atk_1d)
    out["_inputs"] = {
        "binary": _py(binary), "boolean": _py([(a, b.astype(np.int64), c) for a, b, c in boolean]),
        "thresholds": thr, "pair": _py(pair), "cls": _py(cls), "atk": _py(atk),
    }
    return out


def decays():
    T = v1.train
    steps = [0, 1, 5, 10, 15, 37, 100, 250]
    cases = {
        "exponential_decay": lambda s: T.exponential_decay(0.1, s, 10, 0.96),
        "exponential_decay_staircase": lambda s: T.exponential_decay(0.1, s, 10, 0.5, staircase=True),
        "piecewise_constant": lambda s: T.piecewise_constant(s, [5, 15], [1.0, 0.5, 0.1]),
        "polynomial_decay": lambda s: T.polynomial_decay(0.1, s, 50, 0.01, power=2.0),
        "polynomial_decay_cycle": lambda s: T.polynomial_decay(0.1, s, 30, 0.01, power=0.5, cycle=True),
        "natural_exp_decay": lambda s: T.natural_exp_decay(0.1, s, 10, 0.5),
        "natural_exp_decay_staircase": lambda s: T.natural_exp_decay(0.1, s, 10, 0.5, staircase=True),
        "inverse_time_decay": lambda s: T.inverse_time_decay(0.1, s, 10, 0.5),
        "inverse_time_decay_staircase": lambda s: T.inverse_time_decay(0.1, s, 10, 0.5, staircase=True),
        "cosine_decay": lambda s: T.cosine_decay(0.1, s, 50, alpha=0.1),
        "cosine_decay_restarts": lambda s: T.cosine_decay_restarts(0.1, s, 10, t_mul=2.0, m_mul=0.9, alpha=0.05),
        "cosine_decay_restarts_t1": lambda s: T.cosine_decay_restarts(0.1, s, 10, t_mul=1.0),
        "linear_cosine_decay": lambda s: T.linear_cosine_decay(0.1, s, 50, num_periods=2.0, alpha=0.1, beta=0.01),
    }
    out = {"steps": steps}
    with v1.Graph().as_default(), v1.Session() as sess:
        step = v1.placeholder(tf.int64, [])
        for name, fn in cases.items():
            op = fn(step)
            out[name] = [float(sess.run(op, {step: s})) for s in steps]
    errors = {}
    with v1.Graph().as_default():
        for name, fn in {
            "exponential_decay": lambda: T.exponential_decay(0.1, None, 10, 0.96),
            "piecewise_constant": lambda: T.piecewise_constant(tf.constant(1), [5, 15], [1.0, 0.5]),
            "cosine_decay": lambda: T.cosine_decay(0.1, None, 10),
        }.items():
            try:
                fn()
                errors[name] = None
            except (ValueError, TypeError) as e:
                errors[name] = [type(e).__name__, str(e)]
    out["errors"] = errors
    return out


def checkpoint_state():
    """generate_checkpoint_state_proto's rewriting of relative paths, and
    get_checkpoint_state of an index update_checkpoint_state wrote."""
    import tempfile

    T = v1.train
    out = {}
    for label, args in {
        "relative": ("run/dir", "run/dir/model.ckpt-5", ["run/dir/model.ckpt-1"]),
        "relative_outside": ("run/dir", "other/model.ckpt-5", None),
        "absolute": ("/abs/dir", "/abs/dir/model.ckpt-5", ["/abs/dir/model.ckpt-3", "/abs/dir/model.ckpt-5"]),
    }.items():
        proto = T.generate_checkpoint_state_proto(*args)
        out[label] = [proto.model_checkpoint_path, list(proto.all_model_checkpoint_paths)]
    with tempfile.TemporaryDirectory() as d:
        T.update_checkpoint_state(d, os.path.join(d, "model.ckpt-7"), [os.path.join(d, "model.ckpt-2")])
        state = T.get_checkpoint_state(d)
        out["roundtrip"] = [os.path.relpath(state.model_checkpoint_path, d),
                            [os.path.relpath(p, d) for p in state.all_model_checkpoint_paths],
                            open(os.path.join(d, "checkpoint")).read()]
        out["missing"] = T.get_checkpoint_state(os.path.join(d, "nothing")) is None
    return out


def program():
    """The TF1-style Estimator program of tests/compat/v1/test_tf1_program.py: eval metrics of
    fixed predictions (a model_fn whose predictions do not depend on trained weights)."""
    rng = np.random.RandomState(3)
    x = rng.rand(50, 3).astype(np.float32)
    y = (x.sum(1) > 1.5).astype(np.int64)

    def model_fn(features, labels, mode, params):
        logits = v1.layers.dense(features["x"], 2)
        fixed = features["x"][:, 0] * 2.0 - 0.5  # a fixed score: the metrics are deterministic
        prob = tf.sigmoid(fixed)
        predicted = tf.cast(prob > 0.5, tf.int64)
        predictions = {"class": tf.argmax(logits, 1), "prob": prob}
        if mode == tf.estimator.ModeKeys.PREDICT:
            return tf.estimator.EstimatorSpec(mode, predictions=predictions)
        loss = v1.losses.sparse_softmax_cross_entropy(labels, logits)
        lr = v1.train.exponential_decay(0.1, v1.train.get_global_step(), 5, 0.5, staircase=True)
        train_op = v1.train.GradientDescentOptimizer(lr).minimize(loss, global_step=v1.train.get_global_step())
        ops = {
            "accuracy": v1.metrics.accuracy(labels, predicted),
            "tp": v1.metrics.true_positives(labels, predicted),
            "fn": v1.metrics.false_negatives(labels, predicted),
            "prec_thr": v1.metrics.precision_at_thresholds(labels, prob, [0.3, 0.6]),
            "mpca": v1.metrics.mean_per_class_accuracy(labels, predicted, 2),
            "below": v1.metrics.percentage_below(prob, 0.5),
            "sens": v1.metrics.sensitivity_at_specificity(labels, prob, 0.6),
        }
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, eval_metric_ops=ops)

    import tempfile

    with tempfile.TemporaryDirectory() as d:
        est = tf.estimator.Estimator(model_fn, model_dir=d)
        est.train(v1.estimator.inputs.numpy_input_fn({"x": x}, y, batch_size=8, num_epochs=2, shuffle=False))
        result = est.evaluate(v1.estimator.inputs.numpy_input_fn({"x": x}, y, batch_size=16, shuffle=False))
    return {k: _py(v) for k, v in result.items() if k not in ("loss",)}


def main(parts):
    data = json.load(open(OUT)) if os.path.exists(OUT) else {}
    for part in parts or ["inputs", "losses", "metrics", "decays", "checkpoint_state", "program"]:
        data[part] = globals()[part]()
        print("done", part, flush=True)
    tmp = OUT + ".tmp"
    with open(tmp, "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
    os.replace(tmp, OUT)


if __name__ == "__main__":
    main(sys.argv[1:])
