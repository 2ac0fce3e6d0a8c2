"""Property-based fuzzing (hypothesis) of the TFRecord reader and the serving request decoder.

- TFRecord: random bytes and mutated real files (uncompressed, GZIP, ZLIB; read with the right
  and a wrong `compression_type`, through `tf_record_iterator` and `tf.data.TFRecordDataset`)
  give the original records (a mutation may only cut the file at a record boundary, which gives
  a prefix) or `tf.errors.DataLossError` naming the file; never another exception, a crash or a
  hang.
- Serving: random JSON values into `decode_input` (every dtype the REST API converts), and
  random / mutated request bodies through the server's `RestApi.handle` (in-process, over a real
  export): a 400 with an `{"error": ...}` message, or a 200 whose result has one row per
  instance; never a 500 or another exception.

The default run is bounded (TORCHESTIMATOR_FUZZ_EXAMPLES, 25 per property); set it higher for a
deeper run, e.g. TORCHESTIMATOR_FUZZ_EXAMPLES=2000 python -m pytest tests/reliability -k fuzz.
"""

from __future__ import annotations

import base64
import json
import os
import tempfile
import time

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import torchestimator as tf
from torchestimator.serving._errors import RequestError
from torchestimator.serving._json_tensor import decode_input
from torchestimator.serving._rest import RestApi
from torchestimator.serving._versions import ModelVersions

EXAMPLES = int(os.environ.get("TORCHESTIMATOR_FUZZ_EXAMPLES", "25"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow])
PER_CASE_SECONDS = 10.0
COMPRESSIONS = ["", "GZIP", "ZLIB"]

_MUTATION = st.tuples(
    st.sampled_from(["flip", "truncate", "zero-run", "insert", "duplicate"]),
    st.floats(0.0, 0.999),  # where, as a fraction of the file
    st.integers(1, 255),  # the xor mask, the run length or the inserted byte
)


def _mutate(data: bytes, mutation) -> bytes:
    how, where, amount = mutation
    out = bytearray(data)
    at = int(where * len(out))
    if how == "flip":
        out[at] ^= amount
    elif how == "truncate":
        del out[at:]
    elif how == "zero-run":
        out[at:at + amount] = bytes(len(out[at:at + amount]))
    elif how == "insert":
        out[at:at] = bytes([amount])
    else:
        out[at:at] = out[at:at + amount]
    return bytes(out)


# ------------------------------------------------------------------------------------ TFRecord
_RECORDS = [b"", b"a", b"hello world", bytes(range(256)) * 3, b"\x00" * 40, b"last"]


def _read_all(path: str, compression: str, through_dataset: bool) -> list[bytes]:
    start = time.monotonic()
    try:
        if through_dataset:
            ds = tf.data.TFRecordDataset(path, compression_type=compression)
            return [r if isinstance(r, bytes) else r.numpy() for r in ds]
        options = tf.io.TFRecordOptions(compression) if compression else None
        return list(tf.io.tf_record_iterator(path, options))
    finally:
        assert time.monotonic() - start < PER_CASE_SECONDS


def _check_read(path: str, compression: str, through_dataset: bool, original: list[bytes] | None):
    try:
        got = _read_all(path, compression, through_dataset)
    except tf.errors.DataLossError as error:
        assert os.path.basename(path) in str(error), str(error)
        return None
    if original is not None:
        assert got == original[:len(got)], "the reader returned records that were not written"
    return got


def _written(compression: str) -> bytes:
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "w.tfrecord")
        with tf.io.TFRecordWriter(path, tf.io.TFRecordOptions(compression)) as writer:
            for record in _RECORDS:
                writer.write(record)
        with open(path, "rb") as f:
            return f.read()


_FILES = {c: _written(c) for c in COMPRESSIONS}


@FUZZ
@given(st.binary(max_size=300), st.sampled_from(COMPRESSIONS), st.booleans())
def test_tfrecord_reader_on_random_bytes(data, compression, through_dataset):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "random.tfrecord")
        with open(path, "wb") as f:
            f.write(data)
        _check_read(path, compression, through_dataset, None)


@FUZZ
@given(st.sampled_from(COMPRESSIONS), st.sampled_from(COMPRESSIONS), _MUTATION, st.booleans())
def test_tfrecord_reader_on_mutated_files(written_as, read_as, mutation, through_dataset):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "mutated.tfrecord")
        with open(path, "wb") as f:
            f.write(_mutate(_FILES[written_as], mutation))
        got = _check_read(path, read_as, through_dataset, _RECORDS)
        if got and written_as != read_as and written_as and read_as:  # (an empty file: no records)
            raise AssertionError(f"a {written_as} file read as {read_as} gave records {got[:2]}")


def test_tfrecord_reader_reads_every_unmutated_file():
    with tempfile.TemporaryDirectory() as d:
        for compression, data in _FILES.items():
            path = os.path.join(d, f"{compression or 'plain'}.tfrecord")
            with open(path, "wb") as f:
                f.write(data)
            for through_dataset in (False, True):
                assert _read_all(path, compression, through_dataset) == _RECORDS


# ------------------------------------------------------------------------ serving: decode_input
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=6)
    | st.fixed_dictionaries({"b64": st.sampled_from(["aGk=", "!!", "", "aGk"])}),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=3),
                                                                      children, max_size=3),
    max_leaves=20)
_DTYPES = ["float32", "float64", "int32", "int64", "uint8", "bool", "string", "float16"]


@FUZZ
@given(_JSON, st.sampled_from(_DTYPES), st.sampled_from([(None,), (None, 2), (), None]))
def test_decode_input_on_random_json(value, dtype, shape):
    spec = tf.TensorSpec(shape, getattr(tf, dtype)) if shape is not None else tf.TensorSpec(
        None, getattr(tf, dtype))
    start = time.monotonic()
    try:
        array = decode_input(value, "x", spec)
    except RequestError as error:
        assert error.status == 400 and "'x'" in error.message, error.message
        return
    finally:
        assert time.monotonic() - start < PER_CASE_SECONDS
    assert isinstance(array, np.ndarray)
    if shape is not None:
        assert array.ndim == len(shape)


# ---------------------------------------------------------------------- serving: whole requests
_API: dict[str, RestApi] = {}


def _api() -> RestApi:
    """A RestApi over two real exports (a raw and a parsing receiver), made once."""
    if "api" in _API:
        return _API["api"]
    root = tempfile.mkdtemp(prefix="fuzz-serving-")
    x = np.linspace(-1, 1, 32).astype(np.float32)
    kinds = np.array(["a", "b"] * 16, dtype=object)
    columns = [tf.feature_column.numeric_column("x"),
               tf.feature_column.indicator_column(
                   tf.feature_column.categorical_column_with_vocabulary_list("k", ["a", "b"]))]
    est = tf.estimator.DNNClassifier([4], columns, n_classes=2, model_dir=os.path.join(root, "m"),
                                     config=tf.estimator.RunConfig(tf_random_seed=3))
    est.train(lambda: tf.data.Dataset.from_tensor_slices(
        ({"x": x, "k": kinds}, (x > 0).astype(np.int64))).batch(8), steps=2)
    raw = tf.estimator.export.build_raw_serving_input_receiver_fn(
        {"x": tf.TensorSpec([None], tf.float32), "k": tf.TensorSpec([None], tf.string)})
    parsing = tf.estimator.export.build_parsing_serving_input_receiver_fn(
        tf.feature_column.make_parse_example_spec(columns))
    models = {}
    for name, receiver in (("raw", raw), ("parsing", parsing)):
        base = os.path.join(root, name)
        est.export_saved_model(base, receiver)
        versions = ModelVersions(name, base, poll_seconds=0)
        versions.start()
        models[name] = versions
    _API["api"] = RestApi(models)
    return _API["api"]


def _example_b64(x: float, k: str) -> str:
    example = tf.train.Example()
    example.features.feature["x"].float_list.value.append(x)
    example.features.feature["k"].bytes_list.value.append(k.encode())
    return base64.b64encode(example.SerializeToString()).decode()


_VALID = [
    ("raw", "predict", {"signature_name": "predict",
                        "instances": [{"x": 0.5, "k": "a"}, {"x": -1.0, "k": "b"}]}),
    ("raw", "predict", {"signature_name": "predict", "inputs": {"x": [0.5, 1.0], "k": ["a", "b"]}}),
    ("parsing", "predict", {"instances": [{"x": 0.5, "k": "a"}]}),
    ("parsing", "classify", {"examples": [{"x": 0.5}, {"x": 2.0}], "context": {"k": "b"}}),
    ("parsing", "predict", {"signature_name": "predict",
                            "instances": [{"b64": _example_b64(0.5, "a")}]}),
]


def _handle(model: str, verb: str, body: bytes) -> tuple[int, dict]:
    start = time.monotonic()
    status, payload = _api().handle("POST", f"/v1/models/{model}:{verb}", body)
    assert time.monotonic() - start < PER_CASE_SECONDS
    document = json.loads(payload)
    assert status in (200, 400), (status, document)
    if status == 400:
        assert isinstance(document["error"], str) and document["error"]
    return status, document


def test_the_valid_requests_are_answered():
    for model, verb, body in _VALID:
        status, document = _handle(model, verb, json.dumps(body).encode())
        assert status == 200, document


@FUZZ
@given(st.integers(0, len(_VALID) - 1), _MUTATION)
def test_server_on_mutated_request_bodies(which, mutation):
    model, verb, body = _VALID[which]
    _handle(model, verb, _mutate(json.dumps(body).encode(), mutation))


@FUZZ
@given(st.integers(0, len(_VALID) - 1), _JSON, st.sampled_from(["instances", "inputs", "examples",
                                                                  "context", "signature_name"]))
def test_server_on_requests_with_a_random_value(which, value, key):
    model, verb, body = _VALID[which]
    mutated = {**body, key: value}
    if key in ("instances", "inputs") and key not in body:
        mutated.pop("inputs" if key == "instances" else "instances", None)
    status, document = _handle(model, verb, json.dumps(mutated).encode())
    if status == 200 and verb == "predict" and isinstance(value, list) and key == "instances":
        assert len(document["predictions"]) == len(value)


@FUZZ
@given(st.binary(max_size=200))
def test_server_on_random_bytes(body):
    _handle("parsing", "predict", body)
