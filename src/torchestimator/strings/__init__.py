"""`tf.strings`: TensorFlow's string ops over numpy object arrays."""
