"""tf.strings' Unicode, n-gram, segment-join and Hash64 ops against TF 2.15's recorded outputs."""

import numpy as np
import pytest
import torch

import torchestimator as tf
from _tf_api_extras import assert_same, error, expected
from torchestimator.errors import InvalidArgumentError

S = tf.strings


def _rt(rows):
    """A ragged input: TF's RaggedTensor where the project has one, else a list of rows."""
    try:
        from torchestimator._ragged_tensor import RaggedTensor  # noqa: F401

        return tf.ragged.constant(rows)
    except (ImportError, AttributeError):
        return rows


CASES = {
    "to_hash_bucket": lambda: S.to_hash_bucket([["x", "yy", ""], ["z" * 20, "w" * 9, "héllo"]], 1000),
    "to_hash_bucket_long": lambda: S.to_hash_bucket(["a" * n for n in range(0, 40)], 2**31 - 1),
    "string_to_hash_bucket_v1": lambda: tf.compat.v1.string_to_hash_bucket(
        string_tensor=["ab", "c"], num_buckets=7),
    "bytes_split_scalar": lambda: S.bytes_split("héllo"),
    "bytes_split_empty": lambda: S.bytes_split(""),
    "bytes_split_1d": lambda: S.bytes_split(["ab", "", "c"]),
    "ngrams_1d": lambda: S.ngrams(["a", "b", "c"], 2),
    "ngrams_2d": lambda: S.ngrams([["a", "b", "c"], ["d", "e", "f"]], 2, separator="-"),
    "ngrams_ragged_pad": lambda: S.ngrams(_rt([["a", "b", "c"], ["d"]]), [1, 2], pad_values="#"),
    "ngrams_ragged_pad2": lambda: S.ngrams(_rt([["a", "b", "c"], ["d"]]), 3,
                                           pad_values=("<", ">"), padding_width=1),
    "ngrams_preserve": lambda: S.ngrams(_rt([["a", "b", "c"], ["d"], []]), 3,
                                        preserve_short_sequences=True),
    "ngrams_short": lambda: S.ngrams(["a", "b"], 3),
    "ngrams_short_preserve": lambda: S.ngrams(["a", "b"], 3, preserve_short_sequences=True),
    "ngrams_multi": lambda: S.ngrams(["a", "b", "c"], (2, 3), pad_values="#", padding_width=1),
    "unicode_decode_1d": lambda: S.unicode_decode(["héllo", b"a\xffb", ""], "UTF-8"),
    "unicode_decode_scalar": lambda: S.unicode_decode("h\U0001F600", "UTF-8"),
    "unicode_decode_ctrl": lambda: S.unicode_decode(b"a\xe2\x82b\x01", "UTF-8",
                                                    replace_control_characters=True),
    "unicode_decode_ignore": lambda: S.unicode_decode(b"a\xe2\x82b", "UTF-8", errors="ignore"),
    "unicode_decode_surrogate": lambda: S.unicode_decode(b"\xed\xa0\x80x\xf0\x9f", "UTF-8"),
    "unicode_decode_overlong": lambda: S.unicode_decode(b"\xc0\xafx\xf4\x90\x80\x80", "UTF-8",
                                                        replacement_char=63),
    "unicode_decode_utf16": lambda: S.unicode_decode("h\U0001F600".encode("utf-16-be"),
                                                     "UTF-16-BE"),
    "unicode_decode_offsets": lambda: S.unicode_decode_with_offsets(["héllo", b"a\xffb"], "UTF-8"),
    "unicode_decode_offsets_utf16": lambda: S.unicode_decode_with_offsets(
        "h\U0001F600".encode("utf-16-be"), "UTF-16-BE"),
    "unicode_decode_2d": lambda: S.unicode_decode([["ab", "c"], ["", "é"]], "UTF-8"),
    "unicode_split_offsets": lambda: S.unicode_split_with_offsets(["hé", "\U0001F600x"], "UTF-8"),
    "unicode_split_offsets_scalar": lambda: S.unicode_split_with_offsets("hé", "UTF-8"),
    "unicode_transcode_utf16": lambda: S.unicode_transcode(["hé", b"a\xffb"], "UTF-8",
                                                           "UTF-16-BE"),
    "unicode_transcode_q": lambda: S.unicode_transcode(["hé", b"a\xffb"], "UTF-8", "UTF-8",
                                                       replacement_char=63),
    "unicode_transcode_ctrl": lambda: S.unicode_transcode(b"a\x00", "UTF-8", "UTF-8",
                                                          replace_control_characters=True),
    "unicode_transcode_utf32": lambda: S.unicode_transcode("h\U0001F600", "UTF-8", "UTF-32-BE"),
    "unicode_encode_bad": lambda: S.unicode_encode([104, -1, 0x110000, 0xD800], "UTF-8"),
    "unicode_encode_ignore": lambda: S.unicode_encode([104, -1, 105], "UTF-8", errors="ignore"),
    "unicode_encode_2d": lambda: S.unicode_encode([[104, 105], [106, 233]], "UTF-8"),
    "unicode_encode_ragged": lambda: S.unicode_encode(_rt([[104, 233], [], [0x1F600]]), "UTF-8"),
    "unicode_encode_utf16": lambda: S.unicode_encode([104, 0x1F600], "UTF-16-BE"),
    "unicode_script": lambda: S.unicode_script(torch.tensor(
        [0x41, 0x3B1, 0x4E00, 0x30, -1, 0x110000, 0x300, 0xFFFE, 0x0627, 0x0915],
        dtype=torch.int32)),
    "unsorted_segment_join": lambda: S.unsorted_segment_join(
        [["a", "b"], ["c", "d"], ["e", "f"]], [1, 0, 1], 3, separator="-"),
    "unsorted_segment_join_1d": lambda: S.unsorted_segment_join(["x", "y", "z", "w"],
                                                                [2, 2, 0, 2], 4),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_tf(name):
    assert_same(CASES[name](), expected(name))


ERRORS = {
    "ngrams_err_width": (lambda: S.ngrams(["a", "b"], 0), ValueError, "ngram_widths"),
    "ngrams_err_padding": (lambda: S.ngrams(["a", "b"], 2, pad_values="x", padding_width=0),
                           ValueError, "padding_width"),
    "ngrams_err_padvalues": (lambda: S.ngrams(["a", "b"], 2, pad_values=3), TypeError,
                             "pad_values"),
    "ngrams_err_rank": (lambda: S.ngrams("a", 2), ValueError, "rank"),
    "unicode_decode_strict": (lambda: S.unicode_decode(b"a\xe2\x82b", "UTF-8", errors="strict"),
                              InvalidArgumentError, "Invalid formatting"),
    "unicode_decode_err_errors": (lambda: S.unicode_decode("a", "UTF-8", errors="bad"),
                                  InvalidArgumentError, "errors"),
    "unicode_encode_strict": (lambda: S.unicode_encode([104, -1], "UTF-8", errors="strict"),
                              InvalidArgumentError, "out of range"),
    "unicode_encode_err_encoding": (lambda: S.unicode_encode([104], "latin1"), InvalidArgumentError,
                                    "output_encoding"),
    "unsorted_segment_join_err": (lambda: S.unsorted_segment_join(["a"], [5], 3),
                                  InvalidArgumentError, "num_segments"),
    "unsorted_segment_join_neg": (lambda: S.unsorted_segment_join(["a"], [-1], 3),
                                  InvalidArgumentError, "negative"),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_as_tf(name):
    fn, cls, words = ERRORS[name]
    error(name)  # TF raised too
    with pytest.raises(cls, match=words):
        fn()


def test_to_hash_bucket_errors_name_the_argument():
    with pytest.raises(InvalidArgumentError, match="num_buckets"):
        S.to_hash_bucket(["a"], 0)
    with pytest.raises(TypeError, match="input"):
        S.to_hash_bucket(torch.tensor([1]), 3)
    with pytest.raises(InvalidArgumentError, match="input_encoding"):
        S.unicode_decode("a", "no-such-encoding")


def test_unicode_script_needs_int32():
    with pytest.raises(InvalidArgumentError, match="int32"):
        S.unicode_script(torch.tensor([65], dtype=torch.int64))


def test_round_trip_decode_encode():
    text = np.array(["héllo wörld", "\U0001F600!"], dtype=object)
    points = S.unicode_decode(text, "UTF-8")
    rows = points.to_list() if hasattr(points, "to_list") else [p.tolist() for p in points]
    back = [S.unicode_encode(r, "UTF-8") for r in rows]
    assert back == list(text)
