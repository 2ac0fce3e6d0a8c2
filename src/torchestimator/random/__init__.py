"""`tf.random`: TensorFlow's random ops over torch."""
