"""`tf.image`: TensorFlow's image ops over torch."""
