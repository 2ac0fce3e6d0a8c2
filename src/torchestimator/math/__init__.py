"""`tf.math`: TensorFlow's math ops over torch."""
