"""`tf.debugging`: assertions and numeric checks."""
