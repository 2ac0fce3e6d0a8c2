"""Regressions from TF's "Text generation with an RNN" tutorial (run with
`import torchestimator as tf`): characters as RaggedTensors through StringLookup and back,
string results read with `.numpy()`, and the tutorial's two subclassed models."""

from __future__ import annotations

import numpy as np

import torchestimator as tf


def test_characters_round_trip_as_ragged_tensors():
    chars = tf.strings.unicode_split(["abcdefg", "xyz"], input_encoding="UTF-8")
    assert isinstance(chars, tf.RaggedTensor)
    ids_from_chars = tf.keras.layers.StringLookup(vocabulary=list("abcdefgxyz"), mask_token=None)
    ids = ids_from_chars(chars)
    assert isinstance(ids, tf.RaggedTensor) and ids.to_list() == [[1, 2, 3, 4, 5, 6, 7], [8, 9, 10]]
    chars_from_ids = tf.keras.layers.StringLookup(
        vocabulary=ids_from_chars.get_vocabulary(), invert=True, mask_token=None)
    back = chars_from_ids(ids)
    assert isinstance(back, tf.RaggedTensor)
    assert back.to_list() == [[c.encode() for c in "abcdefg"], [b"x", b"y", b"z"]]
    joined = tf.strings.reduce_join(back, axis=-1)
    assert joined.numpy().tolist() == [b"abcdefg", b"xyz"]
    assert joined[0].numpy() == b"abcdefg"  # an item reads back as TF's scalar tensor
    # one id (a 0-d tensor) gives a string whose .numpy() is its bytes
    assert chars_from_ids(ids.flat_values[0]).numpy().decode("utf-8") == "a"
    assert tf.strings.reduce_join(chars_from_ids(ids.flat_values[:3]), axis=-1).numpy() == b"abc"


def test_reduce_join_of_a_rank_3_ragged_tensor_keeps_the_outer_rows():
    joined = tf.strings.reduce_join(tf.strings.unicode_split([["ab", "c"]], "UTF-8"), axis=-1)
    assert isinstance(joined, tf.RaggedTensor) and joined.to_list() == [[b"ab", b"c"]]


class MyModel(tf.keras.Model):
    def __init__(self, vocab_size, embedding_dim, rnn_units):
        super().__init__(self)  # the tutorial passes `self`: Keras 2.15 ignores it
        self.embedding = tf.keras.layers.Embedding(vocab_size, embedding_dim)
        self.gru = tf.keras.layers.GRU(rnn_units, return_sequences=True, return_state=True)
        self.dense = tf.keras.layers.Dense(vocab_size)

    def call(self, inputs, states=None, return_state=False, training=False):
        x = self.embedding(inputs, training=training)
        if states is None:
            states = self.gru.get_initial_state(x)
        x, states = self.gru(x, initial_state=states, training=training)
        x = self.dense(x, training=training)
        return (x, states) if return_state else x


class OneStep(tf.keras.Model):  # no `call`: its own __init__ takes three arguments
    def __init__(self, model, chars_from_ids, ids_from_chars, temperature=1.0):
        super().__init__()
        self.temperature = temperature
        self.model = model
        self.chars_from_ids = chars_from_ids
        self.ids_from_chars = ids_from_chars
        skip_ids = self.ids_from_chars(["[UNK]"])[:, None]
        sparse_mask = tf.SparseTensor(values=[-float("inf")] * len(skip_ids), indices=skip_ids,
                                      dense_shape=[len(ids_from_chars.get_vocabulary())])
        self.prediction_mask = tf.sparse.to_dense(sparse_mask)

    @tf.function
    def generate_one_step(self, inputs, states=None):
        input_ids = self.ids_from_chars(tf.strings.unicode_split(inputs, "UTF-8")).to_tensor()
        predicted_logits, states = self.model(inputs=input_ids, states=states, return_state=True)
        predicted_logits = predicted_logits[:, -1, :] / self.temperature + self.prediction_mask
        predicted_ids = tf.squeeze(tf.random.categorical(predicted_logits, num_samples=1), axis=-1)
        return self.chars_from_ids(predicted_ids), states


def test_the_tutorials_subclassed_models_generate_text():
    ids_from_chars = tf.keras.layers.StringLookup(vocabulary=list("abc:"), mask_token=None)
    chars_from_ids = tf.keras.layers.StringLookup(
        vocabulary=ids_from_chars.get_vocabulary(), invert=True, mask_token=None)
    model = MyModel(len(ids_from_chars.get_vocabulary()), 4, 8)
    one_step = OneStep(model, chars_from_ids, ids_from_chars)
    assert type(one_step) is OneStep
    next_char, states = tf.constant(["ab:", "ab:"]), None
    result = [next_char]
    for _ in range(3):
        next_char, states = one_step.generate_one_step(next_char, states=states)
        result.append(next_char)
    text = tf.strings.join(result)
    assert text.shape == (2,) and all(t.startswith(b"ab:") and len(t) == 6 for t in text.numpy())
    assert b"[UNK]" not in text[0].numpy()  # the mask keeps [UNK] out
    assert np.asarray(states).shape == (2, 8)
