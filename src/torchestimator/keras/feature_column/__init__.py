"""The Keras layers over feature columns (Keras 2.15's `keras/feature_column/`).

`DenseFeatures` (`tf.keras.layers.DenseFeatures`; TF1's `input_layer`),
`SequenceFeatures` (`tf.keras.experimental.SequenceFeatures`) and `LinearModel`
(the canned linear estimator's input; TF1's `linear_model`). The columns
themselves live in `tf.feature_column`, which imports no Keras; these layers own
the columns' weights (embedding tables, linear weights) and import the columns.
The public names are `tf.keras.layers.DenseFeatures`,
`tf.keras.experimental.SequenceFeatures` and
`tf.compat.v1.feature_column.input_layer` / `linear_model`. The feature-column
`LinearModel` class has no public name, as in TF 2.15 (tensorflow_estimator's
`canned/linear.py` defines it unexported): `tf.keras.experimental.LinearModel`
is Keras' premade model (`torchestimator.keras.premade_models`).
"""
