"""`tf.linalg`: TensorFlow's linear algebra ops over torch."""
