"""Records TF 2.15's tf.data transformation results (issue 30) as a JSON fixture.

Run with a Python that has TensorFlow 2.15 (never a dependency of the project):

    ~/anchor-venvs/tf215/bin/python tools/make_tf_data_transform_fixtures.py

Writes tests/data/fixtures/tf_data_transforms.json: element values (in order),
element specs (shape, dtype), cardinalities and error messages of the
deterministic transformations (choose_from_datasets, group_by_window,
bucket_by_sequence_length, scan, unique, window, group_by_reducer,
padded_batch of text, assert_cardinality, ...). tests/data/test_data_*.py
compare torchestimator's results with these.
"""

from __future__ import annotations

import json
import os

import numpy as np
import tensorflow as tf

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "fixtures",
                   "tf_data_transforms.json")


def py(value):
    """Element values as JSON (bytes decoded, arrays as lists, nests kept)."""
    if isinstance(value, dict):
        return {k: py(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [py(v) for v in value]
    if isinstance(value, tf.data.Dataset):
        return [py(v) for v in value.as_numpy_iterator()]
    if isinstance(value, (bytes, np.bytes_)):
        return value.decode()
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "OS":
            return np.vectorize(lambda b: b.decode(), otypes=[object])(value).tolist() \
                if value.size else value.tolist()
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    return value


def spec(s):
    if isinstance(s, dict):
        return {k: spec(v) for k, v in s.items()}
    if isinstance(s, tuple):
        return [spec(v) for v in s]
    if isinstance(s, tf.data.DatasetSpec):
        return {"dataset": spec(s.element_spec)}
    return [None if s.shape.rank is None else s.shape.as_list(), s.dtype.name]


def record(ds):
    return {"values": [py(e) for e in ds.as_numpy_iterator()], "spec": spec(ds.element_spec),
            "cardinality": int(ds.cardinality())}


def error(fn):
    try:
        out = fn()
        if isinstance(out, tf.data.Dataset):
            list(out.as_numpy_iterator())
    except Exception as e:  # noqa: BLE001 - the message is what is recorded
        return {"type": type(e).__name__, "message": str(e).split("\n")[0]}
    return None


def sequences():
    lengths = [1, 4, 2, 6, 3, 5, 2, 7, 1, 3, 4, 8, 2]

    def gen():
        for i, n in enumerate(lengths):
            yield np.arange(1, n + 1, dtype=np.int64) + 10 * i

    return tf.data.Dataset.from_generator(
        gen, output_signature=tf.TensorSpec((None,), tf.int64))


def main():
    out = {}
    r = tf.data.Dataset.range
    ds = [r(0, 5), r(100, 103), r(200, 210)]
    choice = tf.data.Dataset.from_tensor_slices(tf.constant([0, 1, 2, 1, 0, 1, 1, 2, 0, 0],
                                                            tf.int64))
    out["choose_stop"] = record(tf.data.Dataset.choose_from_datasets(ds, choice))
    out["choose_nostop"] = record(tf.data.Dataset.choose_from_datasets(
        ds, choice, stop_on_empty_dataset=False))
    out["choose_exp_default"] = record(tf.data.experimental.choose_from_datasets(ds, choice))
    out["choose_err_dtype"] = error(lambda: tf.data.Dataset.choose_from_datasets(
        ds, tf.data.Dataset.from_tensor_slices(tf.constant([0, 1], tf.int32))))
    out["choose_err_range"] = error(lambda: tf.data.Dataset.choose_from_datasets(
        ds, tf.data.Dataset.from_tensor_slices(tf.constant([0, 5], tf.int64))))
    out["choose_err_empty"] = error(lambda: tf.data.Dataset.choose_from_datasets([], choice))

    out["sample_card"] = {
        "finite": int(tf.data.Dataset.sample_from_datasets([r(3), r(5)], seed=1).cardinality()),
        "finite_stop": int(tf.data.Dataset.sample_from_datasets(
            [r(3), r(5)], seed=1, stop_on_empty_dataset=True).cardinality()),
        "infinite": int(tf.data.Dataset.sample_from_datasets(
            [r(3).repeat(), r(5).repeat()], seed=1).cardinality()),
        "mixed": int(tf.data.Dataset.sample_from_datasets([r(3).repeat(), r(5)],
                                                          seed=1).cardinality()),
    }
    a = tf.data.Dataset.from_tensor_slices(np.zeros((4, 3), np.float32))
    b = tf.data.Dataset.from_tensor_slices(np.ones((4, 5), np.float32))
    out["sample_spec_relaxed"] = spec(tf.data.Dataset.sample_from_datasets([a, b]).element_spec)
    out["sample_err_weights"] = error(lambda: tf.data.Dataset.sample_from_datasets(
        [r(3), r(5)], weights=[0.5, 0.3, 0.2]))
    out["sample_err_empty"] = error(lambda: tf.data.Dataset.sample_from_datasets([]))
    out["sample_all"] = sorted(py(e) for e in tf.data.Dataset.sample_from_datasets(
        [r(3), r(100, 105)], seed=3).as_numpy_iterator())

    out["gbw"] = record(r(20).group_by_window(
        key_func=lambda x: x % 3, reduce_func=lambda k, w: w.batch(4), window_size=4))
    out["gbw_sizefunc"] = record(r(20).group_by_window(
        key_func=lambda x: x % 3, reduce_func=lambda k, w: w.batch(10),
        window_size_func=lambda k: k + 2))
    out["gbw_keyed"] = record(r(10).group_by_window(
        key_func=lambda x: x % 2,
        reduce_func=lambda k, w: w.map(lambda x: (k, x)).batch(3), window_size=3))
    out["gbw_exp"] = record(r(9).apply(tf.data.experimental.group_by_window(
        lambda x: x % 2, lambda k, w: w.batch(2), window_size=2)))
    out["gbw_err_key"] = error(lambda: r(5).group_by_window(
        lambda x: tf.cast(x, tf.int32), lambda k, w: w.batch(2), window_size=2))
    out["gbw_err_both"] = error(lambda: r(5).group_by_window(
        lambda x: x, lambda k, w: w.batch(2), window_size=2, window_size_func=lambda k: k))
    out["gbw_err_none"] = error(lambda: r(5).group_by_window(
        lambda x: x, lambda k, w: w.batch(2)))

    out["window"] = record(r(7).window(3, shift=2).flat_map(lambda w: w.batch(3)))
    out["window_drop"] = record(r(7).window(3, shift=2, stride=2, drop_remainder=True)
                                .flat_map(lambda w: w.batch(3)))
    out["window_spec"] = spec(r(7).window(3).element_spec)
    out["window_card"] = [int(r(7).window(3, shift=2).cardinality()),
                          int(r(7).window(3, shift=2, drop_remainder=True).cardinality())]

    seqs = sequences()
    out["bucket_plain"] = record(seqs.bucket_by_sequence_length(
        lambda x: tf.shape(x)[0], bucket_boundaries=[3, 5], bucket_batch_sizes=[2, 2, 3]))
    out["bucket_boundary_pad"] = record(seqs.bucket_by_sequence_length(
        lambda x: tf.shape(x)[0], bucket_boundaries=[3, 5, 9], bucket_batch_sizes=[2, 2, 3, 1],
        pad_to_bucket_boundary=True, padding_values=tf.constant(-1, tf.int64)))
    out["bucket_drop"] = record(seqs.bucket_by_sequence_length(
        lambda x: tf.shape(x)[0], bucket_boundaries=[3, 5], bucket_batch_sizes=[2, 2, 3],
        drop_remainder=True))
    out["bucket_shapes"] = record(seqs.bucket_by_sequence_length(
        lambda x: tf.shape(x)[0], bucket_boundaries=[4], bucket_batch_sizes=[3, 3],
        padded_shapes=[10]))
    out["bucket_no_padding"] = record(r(10).map(lambda x: tf.fill([3], x)).bucket_by_sequence_length(
        lambda x: tf.cast(x[0], tf.int32), bucket_boundaries=[4], bucket_batch_sizes=[3, 2],
        no_padding=True))
    out["bucket_err_sizes"] = error(lambda: seqs.bucket_by_sequence_length(
        lambda x: tf.shape(x)[0], bucket_boundaries=[3, 5], bucket_batch_sizes=[2, 2]))
    out["bucket_err_boundary"] = error(lambda: seqs.bucket_by_sequence_length(
        lambda x: tf.shape(x)[0], bucket_boundaries=[3], bucket_batch_sizes=[2, 2],
        pad_to_bucket_boundary=True))
    out["bucket_dict"] = record(tf.data.Dataset.from_generator(
        lambda: ({"tokens": np.arange(n, dtype=np.int32), "label": n} for n in [2, 5, 1, 4, 3]),
        output_signature={"tokens": tf.TensorSpec((None,), tf.int32),
                          "label": tf.TensorSpec((), tf.int64)}).bucket_by_sequence_length(
        lambda e: tf.shape(e["tokens"])[0], [3], [2, 2]))

    out["scan"] = record(r(1, 8).scan(tf.constant(0, tf.int64), lambda s, x: (s + x, s * 10 + x)))
    out["scan_nested"] = record(r(5).scan(
        (tf.constant(0, tf.int64), tf.constant(1.0)),
        lambda s, x: ((s[0] + x, s[1] * 2.0), {"sum": s[0] + x, "pow": s[1]})))
    out["scan_exp"] = record(r(4).apply(tf.data.experimental.scan(
        tf.constant(1, tf.int64), lambda s, x: (s * 2, s + x))))
    out["scan_err_dtype"] = error(lambda: r(3).scan(tf.constant(0, tf.int64),
                                                    lambda s, x: (tf.cast(s, tf.float32), x)))

    out["unique_int"] = record(tf.data.Dataset.from_tensor_slices(
        tf.constant([3, 1, 3, 2, 1, 5, 2], tf.int64)).unique())
    out["unique_str"] = record(tf.data.Dataset.from_tensor_slices(
        ["b", "a", "b", "c", "a"]).unique())
    out["unique_err_float"] = error(lambda: tf.data.Dataset.from_tensor_slices(
        [1.0, 2.0]).unique())
    out["unique_err_tuple"] = error(lambda: tf.data.Dataset.from_tensor_slices(
        ([1, 2], [3, 4])).unique())

    out["assert_card_ok"] = record(r(5).apply(tf.data.experimental.assert_cardinality(5)))
    out["assert_card_few"] = error(lambda: r(3).apply(tf.data.experimental.assert_cardinality(5)))
    out["assert_card_many"] = error(lambda: r(8).apply(tf.data.experimental.assert_cardinality(5)))
    out["assert_card_unknown"] = int(r(10).filter(lambda x: x > 3).apply(tf.data.experimental.assert_cardinality(6))
                                     .cardinality())

    red = tf.data.experimental.Reducer(
        init_func=lambda k: tf.constant(0, tf.int64),
        reduce_func=lambda s, x: s + x,
        finalize_func=lambda s: s * 10)
    out["group_by_reducer"] = record(tf.data.Dataset.from_tensor_slices(
        tf.constant([5, 2, 7, 4, 1, 8, 9], tf.int64)).apply(
        tf.data.experimental.group_by_reducer(lambda x: x % 3, red)))

    text = tf.data.Dataset.from_tensor_slices(["the cat sat", "a dog", "one two three four", "hi"])
    tokens = text.map(lambda s: tf.strings.split(s))
    out["text_split_spec"] = spec(tokens.element_spec)
    out["text_padded"] = record(tokens.padded_batch(3))
    out["text_padded_values"] = record(tokens.padded_batch(
        2, padded_shapes=[5], padding_values="<pad>", drop_remainder=True))
    out["text_lower"] = record(text.map(lambda s: tf.strings.lower(tf.strings.regex_replace(
        s, "[aeiou]", "_"))))
    out["text_length"] = record(text.map(tf.strings.length))
    out["text_substr"] = record(text.map(lambda s: tf.strings.substr(s, 0, 4)))
    out["text_len_tokens"] = record(tokens.map(lambda t: tf.size(t)))
    out["text_batch_lower"] = record(text.batch(3).map(tf.strings.lower))
    out["padded_multi"] = record(tf.data.Dataset.from_generator(
        lambda: ((np.arange(n, dtype=np.int32), np.full((n, 2), n, np.float32), "x" * n)
                 for n in [1, 3, 2]),
        output_signature=(tf.TensorSpec((None,), tf.int32), tf.TensorSpec((None, 2), tf.float32),
                          tf.TensorSpec((), tf.string))).padded_batch(
        2, padded_shapes=([4], [None, 2], []), padding_values=(-1, 0.5, "?")))

    out["enumerate_exp"] = record(r(3).apply(tf.data.experimental.enumerate_dataset(start=5)))
    out["counter"] = {"spec": spec(tf.data.experimental.Counter(3, 2).element_spec),
                      "values": [py(e) for e in tf.data.experimental.Counter(3, 2).take(4)
                                 .as_numpy_iterator()],
                      "cardinality": int(tf.data.Dataset.counter().cardinality()),
                      "int32": spec(tf.data.Dataset.counter(dtype=tf.int32).element_spec)}
    out["random"] = {"spec": spec(tf.data.Dataset.random(seed=4).element_spec),
                     "cardinality": int(tf.data.Dataset.random(seed=4).cardinality())}
    out["from_list"] = record(tf.data.experimental.from_list([(1, "a"), (2, "b"), (3, "c")]))
    out["at"] = [int(tf.data.experimental.at(r(10, 20), 3)),
                 error(lambda: tf.data.experimental.at(r(3), 5))]
    out["get_single_element_err"] = [error(lambda: r(0).get_single_element()),
                                     error(lambda: r(2).get_single_element())]
    out["pad_to_cardinality"] = record(tf.data.Dataset.from_tensor_slices(
        {"a": [1, 2], "b": [1.5, 2.5]}).apply(tf.data.experimental.pad_to_cardinality(4)))
    out["pad_to_cardinality_err"] = error(lambda: tf.data.Dataset.from_tensor_slices(
        {"a": [1, 2, 3]}).apply(tf.data.experimental.pad_to_cardinality(2)))
    out["map_and_batch"] = record(r(7).apply(tf.data.experimental.map_and_batch(
        lambda x: x * 2, 3, drop_remainder=False)))
    out["shuffle_and_repeat_card"] = int(r(7).apply(
        tf.data.experimental.shuffle_and_repeat(10, count=2)).cardinality())
    out["unbatch_exp"] = record(r(6).batch(4).apply(tf.data.experimental.unbatch()))
    out["take_while_exp"] = record(r(10).apply(tf.data.experimental.take_while(lambda x: x < 4)))
    out["ignore_errors"] = record(tf.data.Dataset.from_tensor_slices([1.0, 2.0, 0.0, 4.0]).map(
        lambda x: tf.debugging.check_numerics(1.0 / x, "error")).ignore_errors())
    rr = tf.data.Dataset.from_tensor_slices(tf.constant([0, 1, 1, 0, 1], tf.int64))
    out["rejection_spec"] = spec(rr.rejection_resample(lambda x: x, [0.5, 0.5], seed=1)
                                 .element_spec)
    out["ragged_batch_spec"] = str(tokens.ragged_batch(2).element_spec)
    out["window_more"] = [
        [py(w) for w in r(10).window(2, shift=4).flat_map(lambda w: w.batch(9))
         .as_numpy_iterator()],
        [py(w) for w in r(10).window(3, shift=1, stride=3).flat_map(lambda w: w.batch(9))
         .as_numpy_iterator()],
        [py(w) for w in r(5).window(4, shift=3, stride=2).flat_map(lambda w: w.batch(9))
         .as_numpy_iterator()],
        [int(r(10).window(2, shift=4).cardinality()),
         int(r(10).window(3, shift=1, stride=3).cardinality()),
         int(r(10).window(3, shift=1, stride=3, drop_remainder=True).cardinality())],
    ]
    inf = r(7).repeat()
    out["card_more"] = {
        "sample_stop_mixed": int(tf.data.Dataset.sample_from_datasets(
            [r(3).repeat(), r(5)], stop_on_empty_dataset=True).cardinality()),
        "unique_infinite": int(inf.unique().cardinality()),
        "ignore_errors_finite": int(r(7).ignore_errors().cardinality()),
        "ignore_errors_infinite": int(inf.ignore_errors().cardinality()),
        "rejection_infinite": int(inf.rejection_resample(lambda x: x % 2, [0.5, 0.5])
                                  .cardinality()),
        "group_by_window_infinite": int(inf.group_by_window(
            lambda x: x % 2, lambda k, w: w.batch(2), 2).cardinality()),
        "scan_infinite": int(inf.scan(tf.constant(0, tf.int64), lambda s, x: (s, x))
                             .cardinality()),
        "window_stride_drop": int(r(7).window(3, shift=2, stride=2, drop_remainder=True)
                                  .cardinality()),
    }
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        r(5).save(d + "/a")
        out["card_more"]["load"] = int(tf.data.Dataset.load(d + "/a").cardinality())
        out["card_more"]["snapshot"] = int(r(5).snapshot(d + "/s").cardinality())
    with open(OUT, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
    print("wrote", OUT)


if __name__ == "__main__":
    main()
