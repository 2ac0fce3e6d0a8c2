"""`tf.nn`: TensorFlow's neural-network ops over torch."""
