"""`tf.io`: `tf.train.Example` parsing and TFRecord files.

    features = tf.io.parse_example(serialized, {
        "x": tf.io.FixedLenFeature([4], tf.float32),
        "kind": tf.io.VarLenFeature(tf.string),
    })
    with tf.io.TFRecordWriter("train.tfrecord") as w:
        w.write(example.SerializeToString())

`parse_example` gives torch tensors for numbers, numpy object arrays of bytes
for strings and `tf.SparseTensor`s for `VarLenFeature`s.
"""

from torchestimator._ops.image_codecs import (
    decode_bmp,
    decode_gif,
    decode_image,
    read_file,
    write_file,
)
from torchestimator._ops.image_ops import decode_jpeg, decode_png, encode_jpeg, encode_png
from torchestimator.io import gfile
from torchestimator.io._decode_csv import decode_csv
from torchestimator.io._io_extras import (
    decode_and_crop_jpeg,
    decode_compressed,
    decode_json_example,
    deserialize_many_sparse,
    extract_jpeg_shape,
    is_jpeg,
    match_filenames_once,
    matching_files,
    serialize_many_sparse,
    serialize_sparse,
)
from torchestimator.io._parse_example import parse_example, parse_single_example
from torchestimator.io._parse_spec import (
    FixedLenFeature,
    FixedLenSequenceFeature,
    RaggedFeature,
    SparseFeature,
    VarLenFeature,
)
from torchestimator.io._sequence_example import (
    parse_sequence_example,
    parse_single_sequence_example,
)
from torchestimator.io._tensor_codecs import (
    decode_base64,
    decode_raw,
    encode_base64,
    parse_tensor,
    serialize_tensor,
)
from torchestimator.io._tfrecord import TFRecordOptions, TFRecordWriter, tf_record_iterator
