"""Keras' engine: `Layer`, `Model` (functional, sequential, subclassed), the `fit` front
of the training loop, compile containers and the symbolic `KerasTensor` graph."""
