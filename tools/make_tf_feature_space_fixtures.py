"""Records TF 2.15 FeatureSpace encodings of a tiny fixed table for
tests/keras/utils/test_feature_space.py. Run with ~/anchor-venvs/tf215/bin/python."""

import json
import os

import tensorflow as tf

TABLE = {
    "f": [0.0, 1.0, 2.0, 3.0, 4.0, 5.0],
    "fr": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
    "fn": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
    "fd": [0.5, 1.5, 2.5, 3.5, 4.5, 5.5],
    "ic": [3, 1, 3, 2, 7, 3],
    "sc": ["b", "a", "b", "c", "a", "b"],
    "sh": ["x", "y", "z", "x", "y", "w"],
    "ih": [10, 20, 30, 10, 40, 50],
}
QUERY = {"f": [1.5, 9.0], "fr": [2.0, 0.0], "fn": [3.5, 10.0], "fd": [1.0, 9.0],
         "ic": [3, 99], "sc": ["a", "zz"], "sh": ["x", "q"], "ih": [20, 77]}


def main():
    fs = tf.keras.utils.FeatureSpace
    space = fs(
        features={"f": fs.float(), "fr": fs.float_rescaled(scale=2.0, offset=1.0),
                  "fn": fs.float_normalized(), "fd": fs.float_discretized(num_bins=3),
                  "ic": fs.integer_categorical(), "sc": fs.string_categorical(),
                  "sh": fs.string_hashed(num_bins=4), "ih": fs.integer_hashed(num_bins=5)},
        crosses=[fs.cross(("sc", "ic"), crossing_dim=8)],
        output_mode="dict")
    space.adapt(tf.data.Dataset.from_tensor_slices(TABLE))
    out = space(QUERY)
    result = {"table": TABLE, "query": QUERY,
              "dict": {k: v.numpy().tolist() for k, v in out.items()}}
    concat = fs(features={"fn": "float_normalized", "sc": "string_categorical",
                          "ic": "integer_categorical"}, crosses=[("sc", "ic")],
                crossing_dim=4, output_mode="concat")
    concat.adapt(tf.data.Dataset.from_tensor_slices({k: TABLE[k] for k in ("fn", "sc", "ic")}))
    result["concat"] = concat({k: QUERY[k] for k in ("fn", "sc", "ic")}).numpy().tolist()
    path = os.path.join(os.path.dirname(__file__), "..", "tests", "keras", "utils", "fixtures",
                        "tf_feature_space.json")
    with open(path, "w") as f:
        json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
