"""tf.strings over numpy object arrays of str.

Checked against Python/numpy computations of TF's documented definitions, and a sample
against TensorFlow 2.15's own outputs (fixtures/image.json, written by make_image_fixture.py).
"""

import inspect
import json
import os

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator import _hashing

FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "image.json")
with open(FIXTURE) as _f:
    _CASES = [c for c in json.load(_f)["cases"] if c["namespace"] == "strings"]


def _arg(a):
    if isinstance(a, dict) and "array" in a:
        return np.array(a["array"], dtype=a["dtype"])
    if isinstance(a, list):
        return [_arg(v) for v in a]
    return a


def _value(out):
    if isinstance(out, torch.Tensor):
        return out.tolist()
    if isinstance(out, np.ndarray):
        return out.tolist()
    return out


# ---------------------------------------------------------------------------- TF 2.15 fixture
@pytest.mark.parametrize("case", _CASES,
                         ids=[f"{c['op']}-{json.dumps(c['kwargs'])}" for c in _CASES])
def test_matches_tensorflow(case):
    kwargs = dict(case["kwargs"])
    if "out_type" in kwargs:
        kwargs["out_type"] = tf.as_dtype(kwargs["out_type"])
    out = getattr(tf.strings, case["op"])(*[_arg(a) for a in case["args"]], **kwargs)
    if case["expected_dtype"] == "string":
        assert isinstance(out, np.ndarray) and out.dtype == object
    else:
        assert out.dtype is tf.as_dtype(case["expected_dtype"])
    expected = case["expected"]
    if case["expected_dtype"].startswith("float"):
        np.testing.assert_allclose(out.numpy(), np.array(expected, dtype=float), rtol=1e-7)
    else:
        assert _value(out) == expected


# ---------------------------------------------------------------------------- inputs
def test_accepts_lists_bytes_scalars_and_numpy_text():
    assert tf.strings.upper("ab").tolist() == "AB"
    out = tf.strings.upper(["ab", b"cd"])
    assert out.dtype == object and out.tolist() == ["AB", "CD"]
    assert tf.strings.upper(np.array(["x", "yz"])).tolist() == ["X", "YZ"]  # numpy 'U' array
    assert tf.strings.upper(np.array([b"x"])).tolist() == ["X"]  # numpy 'S' array
    assert tf.strings.length([["ab", "c"], ["", "def"]]).shape == (2, 2)
    assert tf.strings.length([[["ab"], ["c"]], [[""], ["def"]]]).tolist() == [[[2], [1]], [[0], [3]]]
    with pytest.raises(TypeError, match="as_string"):
        tf.strings.length([1, 2])
    with pytest.raises(TypeError, match="int64 tensor"):
        tf.strings.lower(torch.tensor([1]))


# ---------------------------------------------------------------------------- case, space, length
def test_lower_upper_ascii_by_default_unicode_with_encoding():
    words = ["Héllo", "ÄÖß"]
    assert tf.strings.lower(words).tolist() == ["héllo", "ÄÖß"]
    assert tf.strings.upper(words).tolist() == ["HéLLO", "ÄÖß"]
    assert tf.strings.lower(words, encoding="utf-8").tolist() == [w.lower() for w in words]
    assert tf.strings.upper(words, encoding="utf-8").tolist() == ["HÉLLO", "ÄÖSS"]
    with pytest.raises(tf.errors.InvalidArgumentError, match="latin-1"):
        tf.strings.upper(words, encoding="latin-1")


def test_strip_removes_ascii_whitespace_only():
    out = tf.strings.strip([" a b \n", "\t\x0bx\r ", "\xa0y\xa0", ""])
    assert out.tolist() == ["a b", "x", "\xa0y\xa0", ""]
    scalar = "  x "
    assert tf.strings.strip(scalar).tolist() == "x"


def test_length_counts_bytes_or_characters():
    words = np.array([["héllo", ""], ["日本", "abc"]], dtype=object)
    by_bytes = tf.strings.length(words)
    assert by_bytes.dtype == torch.int32
    assert by_bytes.tolist() == [[len(w.encode()) for w in row] for row in words.tolist()]
    chars = tf.strings.length(words, unit="UTF8_CHAR")
    assert chars.tolist() == [[len(w) for w in row] for row in words.tolist()]
    assert tf.strings.length("abc").shape == ()
    with pytest.raises(tf.errors.InvalidArgumentError, match='"CHAR"'):
        tf.strings.length(["a"], unit="CHAR")


# ---------------------------------------------------------------------------- join, reduce_join
def test_join_elementwise_with_scalar_broadcast():
    out = tf.strings.join([["a", "b"], ["c", "d"]], separator="-")
    assert out.tolist() == ["a-c", "b-d"]
    assert tf.strings.join(["x", ["c", "d"], "y"]).tolist() == ["xcy", "xdy"]
    assert tf.strings.join(["a", "b", "c"], separator="+").tolist() == "a+b+c"
    assert tf.strings.join([]).tolist() == ""
    nested = tf.strings.join([[["a"], ["b"]], [["c"], ["d"]]])
    assert nested.shape == (2, 1) and nested.tolist() == [["ac"], ["bd"]]
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[2\] vs. \[3\]"):
        tf.strings.join([["a", "b"], ["c", "d", "e"]])


def test_reduce_join_axes():
    x = np.array([[["a", "b"], ["c", "d"]], [["e", "f"], ["g", "h"]]], dtype=object)
    assert tf.strings.reduce_join(x).tolist() == "abcdefgh"
    assert tf.strings.reduce_join(x, keepdims=True).shape == (1, 1, 1)
    last = tf.strings.reduce_join(x, axis=-1, separator="|")
    assert last.tolist() == [["a|b", "c|d"], ["e|f", "g|h"]]
    assert tf.strings.reduce_join(x, axis=1, separator=".").tolist() == \
        [["a.c", "b.d"], ["e.g", "f.h"]]
    kept = tf.strings.reduce_join(x, axis=1, keepdims=True)
    assert kept.shape == (2, 1, 2) and kept[0, 0, 1] == "bd"
    # with several axes, the first listed varies fastest (TF's order)
    assert tf.strings.reduce_join(x[0], axis=[0, 1], separator="|").tolist() == "a|c|b|d"
    assert tf.strings.reduce_join(x[0], axis=[1, 0], separator="|").tolist() == "a|b|c|d"
    assert tf.strings.reduce_join(x, axis=[0, 2], separator="|").tolist() == \
        ["a|e|b|f", "c|g|d|h"]
    assert tf.strings.reduce_join(x, axis=[]).tolist() == x.tolist()
    assert tf.strings.reduce_join(np.zeros((2, 0), dtype=object), axis=1).tolist() == ["", ""]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Duplicate reduction dimension 0"):
        tf.strings.reduce_join(x, axis=[0, 0])
    with pytest.raises(tf.errors.OutOfRangeError, match="dimension 3 for input with 3"):
        tf.strings.reduce_join(x, axis=3)


# ---------------------------------------------------------------------------- split
def _tokens(ragged):
    """A RaggedTensor of strings as nested lists of str."""
    def dec(v):
        return [dec(x) for x in v] if isinstance(v, list) else v.decode()
    return dec(ragged.to_list())


def test_split_shapes_of_the_result():
    tokens = tf.strings.split("a b  c")  # a scalar gives a 1-D string array
    assert isinstance(tokens, np.ndarray) and tokens.tolist() == ["a", "b", "c"]
    rows = tf.strings.split(["a b  c", " d e ", ""])  # 1-D gives a RaggedTensor (TF 2.x)
    assert isinstance(rows, tf.RaggedTensor) and _tokens(rows) == [["a", "b", "c"], ["d", "e"], []]
    grid = tf.strings.split([["a b", ""], ["c", "d e f"]])  # rank 3, ragged in the last axis
    assert grid.ragged_rank == 2 and tuple(grid.shape) == (2, 2, None)
    assert _tokens(grid) == [[["a", "b"], []], [["c"], ["d", "e", "f"]]]


def test_split_rules():
    assert _tokens(tf.strings.split(["a,b,,c", ""], sep=",")) == [["a", "b", "", "c"], [""]]
    assert _tokens(tf.strings.split(["a<>b<>c"], sep="<>")) == [["a", "b", "c"]]
    assert _tokens(tf.strings.split(["a,b,c,d"], sep=",", maxsplit=2)) == [["a", "b", "c,d"]]
    assert _tokens(tf.strings.split(["a,b"], sep=",", maxsplit=0)) == [["a,b"]]
    # whitespace mode: ASCII whitespace only (TF keeps '\xa0' and '\x1c' inside tokens)
    assert _tokens(tf.strings.split(["a\xa0b c\x1cd e\x0bf\tg\nh"])) == [["a\xa0b", "c\x1cd", "e", "f",
                                                                   "g", "h"]]
    assert _tokens(tf.strings.split(["  a  b c  "], maxsplit=1)) == [["a", "b c  "]]
    assert _tokens(tf.strings.split(["a b"], maxsplit=2)) == [["a", "b", ""]]  # TF's rest token
    assert _tokens(tf.strings.split([" a b "], maxsplit=0)) == [[" a b "]]
    assert _tokens(tf.strings.split(["abc"], sep="")) == [["abc"]]


def test_unicode_split():
    assert tf.strings.unicode_split("héllo", "UTF-8").tolist() == ["h", "é", "l", "l", "o"]
    chars = tf.strings.unicode_split(["ab", ""], "UTF-8")  # TF: a RaggedTensor, rank 2
    assert isinstance(chars, tf.RaggedTensor) and chars.to_list() == [[b"a", b"b"], []]
    assert tf.strings.unicode_split([["ab", "c"]], "UTF-8").shape.as_list() == [1, 2, None]
    with pytest.raises(tf.errors.InvalidArgumentError, match="UTF-8"):
        tf.strings.unicode_split(["ab"], "UTF-16-BE")


def test_elementwise_ops_take_split_rows():
    rows = tf.strings.split(["1,2,3", "4", "5,6"], sep=",")
    numbers = tf.strings.to_number(rows)  # elementwise ops act on the RaggedTensor's values
    assert numbers.to_list() == [[1.0, 2.0, 3.0], [4.0], [5.0, 6.0]]
    assert numbers.dtype == torch.float32
    assert tf.strings.length(rows).to_list() == [[1, 1, 1], [1], [1, 1]]
    assert _tokens(tf.strings.regex_replace(rows, "[0-9]", "#")) == \
        [["#", "#", "#"], ["#"], ["#", "#"]]
    lists = [["1", "2"], ["3"]]  # a plain list of rows still works
    assert [r.tolist() for r in tf.strings.to_number(lists)] == [[1.0, 2.0], [3.0]]


# ---------------------------------------------------------------------------- to_number
def test_to_number_parses_as_tf():
    out = tf.strings.to_number(["1.5", "  2", "-3e2", "inf", "-INF", "NaN", "0x1A", "+1.5", ".5",
                                "1."])
    assert out.dtype == torch.float32
    np.testing.assert_array_equal(
        out.numpy(), np.array([1.5, 2, -300, np.inf, -np.inf, np.nan, 26, 1.5, 0.5, 1.0],
                              np.float32))
    assert tf.strings.to_number(["  "]).tolist() == [0.0]  # only whitespace reads as 0
    ints = tf.strings.to_number(["12", " -7 ", "007", "2147483647"], out_type=tf.int32)
    assert ints.dtype == torch.int32 and ints.tolist() == [12, -7, 7, 2147483647]
    big = tf.strings.to_number(["12345678901"], out_type=tf.int64)
    assert big.dtype == torch.int64 and big.tolist() == [12345678901]
    f64 = tf.strings.to_number(["0.1"], tf.float64)
    assert f64.dtype == torch.float64 and f64.item() == 0.1
    assert tf.strings.to_number([["1", "2"], ["3", "4"]]).shape == (2, 2)
    assert tf.strings.to_number("1.25").item() == 1.25


@pytest.mark.parametrize("text,out_type", [
    ("abc", tf.float32), ("", tf.float32), ("Infinity", tf.float32), ("1_000", tf.float32),
    ("1e", tf.float32), ("1 2", tf.float32), ("1.5", tf.int32), ("+5", tf.int32),
    ("0x10", tf.int32), ("3000000000", tf.int32), ("9223372036854775808", tf.int64),
    (" ", tf.int32),
])
def test_to_number_errors_name_the_string(text, out_type):
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="StringToNumberOp could not correctly convert string: "):
        tf.strings.to_number(["1", text], out_type=out_type)
    try:
        tf.strings.to_number(["1", text], out_type=out_type)
    except tf.errors.InvalidArgumentError as exc:
        assert str(exc).endswith(text.strip())


def test_to_number_rejects_other_out_types():
    with pytest.raises(tf.errors.InvalidArgumentError, match="float16"):
        tf.strings.to_number(["1"], out_type=tf.float16)


# ---------------------------------------------------------------------------- regex
def test_regex_replace_re2_semantics():
    assert tf.strings.regex_replace(["aaa bbb", "abc"], "a+", "X").tolist() == ["X bbb", "Xbc"]
    assert tf.strings.regex_replace(["aaa bab"], "a", "X", replace_global=False).tolist() == \
        ["Xaa bab"]
    assert tf.strings.regex_replace(["john smith"], r"(\w+) (\w+)", r"\2 \1").tolist() == \
        ["smith john"]
    assert tf.strings.regex_replace(["ab"], "b", r"[\0]").tolist() == ["a[b]"]
    assert tf.strings.regex_replace(["abc"], "x*", "-").tolist() == ["-a-b-c-"]
    # RE2's \w is ASCII: 'é' is not a word character (Python's re would say it is)
    assert tf.strings.regex_replace(["é1"], r"\w", "#").tolist() == ["é#"]
    assert tf.strings.regex_replace([["a1", "b2"]], r"\d", "#").tolist() == [["a#", "b#"]]
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Invalid pattern: \(, error"):
        tf.strings.regex_replace(["ab"], "(", "x")
    with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid pattern"):
        tf.strings.regex_replace(["abc"], "a(?=b)", "*")  # no look-around in RE2


def test_regex_full_match():
    out = tf.strings.regex_full_match(["abc", "abcd", "xabc", "ab\n"], "ab.")
    assert out.dtype == torch.bool and out.tolist() == [True, False, False, False]
    assert tf.strings.regex_full_match(["a", "ab", "b"], "a|ab").tolist() == [True, True, False]
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Invalid pattern: \("):
        tf.strings.regex_full_match(["a"], "(")


# ---------------------------------------------------------------------------- substr
def test_substr_bytes_and_characters():
    words = ["hello", "héllo"]
    assert tf.strings.substr(words, 1, 3).tolist() == ["ell", "él"]  # 'é' is two bytes
    assert tf.strings.substr(words, 1, 3, unit="UTF8_CHAR").tolist() == ["ell", "éll"]
    assert tf.strings.substr(["hello"], -3, 2).tolist() == ["ll"]
    assert tf.strings.substr(["hello"], 2, 10).tolist() == ["llo"]
    assert tf.strings.substr(["hello"], 5, 1).tolist() == [""]
    assert tf.strings.substr(["hello"], 1, -1).tolist() == ["ello"]
    assert tf.strings.substr(["héllo"], 1, 1).tolist() == [b"\xc3"]  # half a character: bytes
    assert tf.strings.substr(["hello", "world"], [0, 1], [2, 3]).tolist() == ["he", "orl"]
    grid = tf.strings.substr([["hello"], ["world"]], [0, 1], [2, 3])
    assert grid.tolist() == [["he", "ell"], ["wo", "orl"]]
    with pytest.raises(tf.errors.InvalidArgumentError, match="pos 6 out of range"):
        tf.strings.substr(["hello"], 6, 1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="pos -6 out of range"):
        tf.strings.substr(["hello"], -6, 1)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[2\] vs. \[3\]"):
        tf.strings.substr(["hello", "a"], [0, 1, 2], [1, 1, 1])
    with pytest.raises(tf.errors.InvalidArgumentError, match="int32 or int64"):
        tf.strings.substr(["hello"], 1.0, 1)


# ---------------------------------------------------------------------------- as_string
def test_as_string_printf_formats():  # C's printf: the same as Python's format specs here
    x = torch.tensor([1.5, -0.1, 1e-7, 123456789.0])
    values = [float(v) for v in x.tolist()]
    assert tf.strings.as_string(x).tolist() == [f"{v:f}" for v in values]
    assert tf.strings.as_string(x, precision=2).tolist() == [f"{v:.2f}" for v in values]
    assert tf.strings.as_string(x, scientific=True).tolist() == [f"{v:e}" for v in values]
    assert tf.strings.as_string(x, shortest=True).tolist() == [f"{v:g}" for v in values]
    assert tf.strings.as_string(x, width=14, fill="0", precision=3).tolist() == \
        [f"{v:014.3f}" for v in values]
    assert tf.strings.as_string([1, -22], width=5).tolist() == ["    1", "  -22"]
    assert tf.strings.as_string([1, -22], width=5, fill="-").tolist() == ["1    ", "-22  "]
    assert tf.strings.as_string([True, False]).tolist() == ["true", "false"]
    assert tf.strings.as_string(3).tolist() == "3"
    assert tf.strings.as_string([[1, 2], [3, 4]]).tolist() == [["1", "2"], ["3", "4"]]
    assert tf.strings.as_string(torch.tensor([0.1], dtype=torch.float16)).tolist() == ["0.099976"]
    assert tf.strings.as_string([float("nan"), -float("inf")], width=6, fill="0").tolist() == \
        ["   nan", "  -inf"]  # printf ignores '0' for non-finite values
    assert tf.strings.as_string(["ab"], width=4).tolist() == ["  ab"]


def test_as_string_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match='Fill argument not supported: "x"'):
        tf.strings.as_string([1], width=5, fill="x")
    with pytest.raises(tf.errors.InvalidArgumentError, match="one or fewer characters"):
        tf.strings.as_string([1], fill="ab")
    with pytest.raises(tf.errors.InvalidArgumentError, match="both scientific and shortest"):
        tf.strings.as_string([1.5], scientific=True, shortest=True)
    with pytest.raises(tf.errors.InvalidArgumentError, match="precision not supported.*int32"):
        tf.strings.as_string([1], precision=2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="scientific and shortest.*int32"):
        tf.strings.as_string([1], scientific=True)


def test_as_string_is_top_level():
    assert inspect.unwrap(tf.strings.as_string) is __import__(
        "torchestimator._ops.string_ops", fromlist=["as_string"]).as_string


# ---------------------------------------------------------------------------- hashing
def test_hash_buckets_are_fingerprint64_modulo():
    words = np.array([["a", "b"], ["hello world", ""]], dtype=object)
    out = tf.strings.to_hash_bucket_fast(words, 100)
    assert out.dtype == torch.int64 and out.shape == (2, 2)
    expected = (_hashing.fingerprint64(words.reshape(-1)) % np.uint64(100)).astype(np.int64)
    assert out.reshape(-1).tolist() == expected.tolist()
    assert out.reshape(-1).tolist() == [39, 22, 11, 63]  # TF 2.15's values
    strong = tf.strings.to_hash_bucket_strong(["a", "b", "hello world", ""], 100, [1, 2])
    assert strong.tolist() == [46, 84, 46, 35]  # TF 2.15's values
    with pytest.raises(tf.errors.InvalidArgumentError, match="at least minimum 1"):
        tf.strings.to_hash_bucket_fast(["a"], 0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Key must have 2 elements"):
        tf.strings.to_hash_bucket_strong(["a"], 10, [1])


# ---------------------------------------------------------------------------- format
def test_format_summarizes_tensors():
    assert tf.strings.format("x={} y={}", [1, "a"]).tolist() == 'x=1 y="a"'
    assert tf.strings.format("{}", torch.tensor([1.5, 2.0, 3, 4, 5])).tolist() == \
        "[1.5 2 3 4 5]"
    assert tf.strings.format("{}", torch.arange(10, dtype=torch.int32)).tolist() == \
        "[0 1 2 ... 7 8 9]"
    assert tf.strings.format("{}", torch.arange(10), summarize=-1).tolist() == \
        "[0 1 2 3 4 5 6 7 8 9]"
    assert tf.strings.format("{}", torch.tensor([[1, 2], [3, 4]])).tolist() == "[[1 2]\n [3 4]]"
    assert tf.strings.format("{}", torch.tensor([0.1, 1 / 3])).tolist() == "[0.1 0.333333343]"
    assert tf.strings.format("a %s b", [5], placeholder="%s").tolist() == "a 5 b"
    with pytest.raises(ValueError, match="expects 2 tensors"):
        tf.strings.format("{} {}", [1])
