"""`tf.keras.preprocessing.text`: Keras 2.15's legacy text utilities (`Tokenizer`,
`tokenizer_from_json`, `text_to_word_sequence`, `one_hot`, `hashing_trick`)."""

from torchestimator.keras.preprocessing._tokenizer import (
    Tokenizer,
    hashing_trick,
    one_hot,
    text_to_word_sequence,
    tokenizer_from_json,
)

__all__ = ["Tokenizer", "hashing_trick", "one_hot", "text_to_word_sequence", "tokenizer_from_json"]
