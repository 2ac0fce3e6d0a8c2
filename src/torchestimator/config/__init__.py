"""`tf.config`: devices and threading."""
