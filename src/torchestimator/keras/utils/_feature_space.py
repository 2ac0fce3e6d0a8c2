"""`tf.keras.utils.FeatureSpace`: one-stop preprocessing and encoding of structured data
(Keras 2.15), built from the package's preprocessing layers.

Strings travel as numpy object arrays, numbers as torch tensors (the package's convention)."""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np
import torch

from torchestimator.keras import _registry, layers
from torchestimator.keras.backend import unique_object_name
from torchestimator.keras.engine.base_layer import Layer
from torchestimator.keras.saving import saving_lib
from torchestimator.keras.utils._feature_space_specs import Cross, Feature, deserialize_spec


def _layers() -> Any:
    return layers


def _dtype_name(x: Any) -> str:
    dtype = getattr(x, "dtype", None)
    if isinstance(x, np.ndarray) and x.dtype.kind in "OUS":
        return "string"
    name = str(dtype).replace("torch.", "")
    return "string" if name in ("object", "string") else name


def _as_value(x: Any, dtype: str) -> Any:
    """`x` as a batch value: a numpy object array for strings, a torch tensor of `dtype` else."""
    if dtype == "string":
        if isinstance(x, np.ndarray) and x.dtype == object:
            return x
        return np.asarray(getattr(x, "values", x), dtype=object)
    if isinstance(x, torch.Tensor):
        return x.to(getattr(torch, dtype))
    return torch.as_tensor(np.asarray(getattr(x, "values", x)), dtype=getattr(torch, dtype))


def _expand_last(x: Any) -> Any:
    return np.expand_dims(x, -1) if isinstance(x, np.ndarray) else torch.unsqueeze(torch.as_tensor(x), -1)


class FeatureSpace(Layer):
    """One-stop utility for preprocessing and encoding structured data.

    Args:
        features: dict mapping each feature name to its type, a name such as
            `"integer_categorical"` or a spec such as `FeatureSpace.integer_categorical()`.
            Types: "float", "float_rescaled", "float_normalized", "float_discretized",
            "integer_categorical", "string_categorical", "integer_hashed", "string_hashed".
        output_mode: "concat" (one float vector per sample) or "dict" (a dict of individually
            encoded features, keyed by feature and cross names).
        crosses: features to cross, e.g. `[("f1", "f2")]` or `[FeatureSpace.cross(...)]`.
        crossing_dim: default number of hash bins of a cross (32).
        hashing_dim: default number of bins of "integer_hashed"/"string_hashed" (32).
        num_discretization_bins: default number of bins of "float_discretized" (32).

    Call `adapt(dataset)` on a `tf.data.Dataset` of feature dicts, then call the space on a
    dict of (batched) values, inside `Dataset.map` too. `preprocessors` and `crossers` hold
    the underlying layers; `get_inputs()`/`get_encoded_features()` give the symbolic inputs
    and outputs for a functional model. `save(path)` writes a `.keras` file that
    `tf.keras.models.load_model` reads back.
    """

    @classmethod
    def cross(cls, feature_names: Any, crossing_dim: int, output_mode: str = "one_hot") -> Cross:
        """Returns a `Cross` of `feature_names` into `crossing_dim` hash bins."""
        return Cross(feature_names, crossing_dim, output_mode=output_mode)

    @classmethod
    def feature(cls, dtype: str, preprocessor: Any, output_mode: str) -> Feature:
        """Returns a `Feature` with a custom `preprocessor` layer."""
        return Feature(dtype, preprocessor, output_mode)

    @classmethod
    def float(cls, name: str | None = None) -> Feature:
        """Returns a float feature passed through unchanged (an `Identity` layer)."""
        name = name or unique_object_name("float")
        return Feature("float32", _layers().Identity(dtype="float32", name=f"{name}_preprocessor"),
                       "float")

    @classmethod
    def float_rescaled(cls, scale: builtins.float = 1.0, offset: builtins.float = 0.0,
                       name: str | None = None) -> Feature:
        """Returns a float feature computed as `x * scale + offset` (a `Rescaling` layer)."""
        name = name or unique_object_name("float_rescaled")
        return Feature("float32", _layers().Rescaling(scale=scale, offset=offset,
                                                      name=f"{name}_preprocessor"), "float")

    @classmethod
    def float_normalized(cls, name: str | None = None) -> Feature:
        """Returns a float feature normalized to mean 0, variance 1 by `adapt`."""
        name = name or unique_object_name("float_normalized")
        return Feature("float32", _layers().Normalization(axis=-1, name=f"{name}_preprocessor"),
                       "float")

    @classmethod
    def float_discretized(cls, num_bins: int, bin_boundaries: Any = None,
                          output_mode: str = "one_hot", name: str | None = None) -> Feature:
        """Returns a float feature bucketed into `num_bins` bins (learned by `adapt` unless
        `bin_boundaries` is given)."""
        name = name or unique_object_name("float_discretized")
        layer = _layers().Discretization(num_bins=num_bins, bin_boundaries=bin_boundaries,
                                         name=f"{name}_preprocessor")
        return Feature("float32", layer, output_mode)

    @classmethod
    def integer_categorical(cls, max_tokens: int | None = None, num_oov_indices: int = 1,
                            output_mode: str = "one_hot", name: str | None = None) -> Feature:
        """Returns an integer category feature indexed by an `IntegerLookup` vocabulary."""
        name = name or unique_object_name("integer_categorical")
        layer = _layers().IntegerLookup(name=f"{name}_preprocessor", max_tokens=max_tokens,
                                        num_oov_indices=num_oov_indices)
        return Feature("int64", layer, output_mode)

    @classmethod
    def string_categorical(cls, max_tokens: int | None = None, num_oov_indices: int = 1,
                           output_mode: str = "one_hot", name: str | None = None) -> Feature:
        """Returns a string category feature indexed by a `StringLookup` vocabulary."""
        name = name or unique_object_name("string_categorical")
        layer = _layers().StringLookup(name=f"{name}_preprocessor", max_tokens=max_tokens,
                                       num_oov_indices=num_oov_indices)
        return Feature("string", layer, output_mode)

    @classmethod
    def string_hashed(cls, num_bins: int, output_mode: str = "one_hot",
                      name: str | None = None) -> Feature:
        """Returns a string feature hashed into `num_bins` bins."""
        name = name or unique_object_name("string_hashed")
        return Feature("string", _layers().Hashing(name=f"{name}_preprocessor", num_bins=num_bins),
                       output_mode)

    @classmethod
    def integer_hashed(cls, num_bins: int, output_mode: str = "one_hot",
                       name: str | None = None) -> Feature:
        """Returns an integer feature hashed into `num_bins` bins."""
        name = name or unique_object_name("integer_hashed")
        return Feature("int64", _layers().Hashing(name=f"{name}_preprocessor", num_bins=num_bins),
                       output_mode)

    def __init__(self, features: dict, output_mode: str = "concat", crosses: Any = None,
                 crossing_dim: int = 32, hashing_dim: int = 32, num_discretization_bins: int = 32,
                 **kwargs: Any):
        super().__init__(**kwargs)
        if not features:
            raise ValueError("The `features` argument cannot be None or empty.")
        self.crossing_dim = crossing_dim
        self.hashing_dim = hashing_dim
        self.num_discretization_bins = num_discretization_bins
        self._features = {name: self._standardize_feature(name, value)
                          for name, value in features.items()}
        self._crosses = []
        for cross in crosses or []:
            if isinstance(cross, dict):
                cross = deserialize_spec(cross, Cross)
            if not isinstance(cross, Cross):
                if not crossing_dim:
                    raise ValueError(
                        "When specifying `crosses`, the argument `crossing_dim` (dimensionality "
                        "of the crossing space) should be specified as well.")
                cross = Cross(cross, crossing_dim=crossing_dim)
            unknown = [key for key in cross.feature_names if key not in features]
            if unknown:
                raise ValueError(
                    "All features referenced in the `crosses` argument should be present in "
                    f"the `features` dict. Received unknown features: {list(cross.feature_names)}")
            self._crosses.append(cross)
        self._crosses_by_name = {cross.name: cross for cross in self._crosses}
        if output_mode not in {"dict", "concat"}:
            raise ValueError(
                "Invalid value for argument `output_mode`. Expected one of {'dict', 'concat'}. "
                f"Received: output_mode={output_mode}")
        self.output_mode = output_mode
        self._inputs: dict | None = None
        self.preprocessors = {name: f.preprocessor for name, f in self._features.items()}
        layers = _layers()
        self.crossers = {c.name: layers.HashedCrossing(c.crossing_dim, name=c.name)
                         for c in self._crosses}
        self._one_hot_encoders: dict = {}
        self._encoded_features: Any = None
        self._is_adapted = False
        self._names: list | None = None

    # -------------------------------------------------------------------- specs
    @property
    def features(self) -> dict:
        """The `Feature` spec of each feature, by name."""
        return self._features

    @property
    def crosses(self) -> list:
        """The `Cross` specs."""
        return self._crosses

    @property
    def inputs(self) -> dict:
        """The symbolic `Input` of each feature (shape `(None, 1)`), by name."""
        if self._inputs is None:
            keras_input = _layers().Input
            self._inputs = {name: keras_input(shape=(1,), dtype=f.dtype, name=name)
                            for name, f in self._features.items()}
        return self._inputs

    def _standardize_feature(self, name: str, feature: Any) -> Feature:
        if isinstance(feature, Feature):
            return feature
        if isinstance(feature, dict):
            return deserialize_spec(feature, Feature)
        simple = {"float": self.float, "float_normalized": self.float_normalized,
                  "float_rescaled": self.float_rescaled, "integer_categorical":
                  self.integer_categorical, "string_categorical": self.string_categorical}
        if isinstance(feature, str) and feature in simple:
            return simple[feature](name=name)
        if feature == "float_discretized":
            return self.float_discretized(name=name, num_bins=self.num_discretization_bins)
        if feature == "integer_hashed":
            return self.integer_hashed(self.hashing_dim, name=name)
        if feature == "string_hashed":
            return self.string_hashed(self.hashing_dim, name=name)
        raise ValueError(f"Invalid feature type: {feature}")

    # -------------------------------------------------------------------- adapt
    def _list_adaptable_preprocessors(self) -> list:
        normalization = _layers().Normalization
        names = []
        for name in self._features:
            preprocessor = self.preprocessors[name]
            if isinstance(preprocessor, normalization) and preprocessor.input_mean is not None:
                continue
            if hasattr(preprocessor, "adapt"):
                names.append(name)
        return names

    def adapt(self, dataset: Any) -> None:
        """Learns each adaptable preprocessor's state (vocabularies, mean and variance, bin
        boundaries) from `dataset`, a `tf.data.Dataset` of feature dicts (batched or not)."""
        from torchestimator.data import Dataset  # lazy: heavy (torchestimator.data, 90 ms)

        if not isinstance(dataset, Dataset):
            raise ValueError(
                "`adapt()` can only be called on a tf.data.Dataset. "
                f"Received instead: {dataset} (of type {type(dataset)})")
        for name in self._list_adaptable_preprocessors():
            feature_dataset = dataset.map(lambda x, name=name: x[name])
            first = next(iter(feature_dataset.take(1)), None)
            rank = np.ndim(first) if first is not None else 1
            if rank == 0:
                feature_dataset = feature_dataset.batch(32)
            if rank in (0, 1):
                feature_dataset = feature_dataset.map(_expand_last)
            self.preprocessors[name].adapt(feature_dataset)
        self._is_adapted = True
        self.get_encoded_features()
        self.built = True

    # ------------------------------------------------------------- functional
    def get_inputs(self) -> dict:
        """Returns the dict of symbolic `Input`s, one per feature (adapts first)."""
        self._check_if_built()
        return self.inputs

    def get_encoded_features(self) -> Any:
        """Returns the symbolic encoded output (a tensor, or a dict in "dict" mode) of
        `get_inputs()`, for building a functional model on top."""
        self._check_if_adapted()
        if self._encoded_features is None:
            preprocessed = self._preprocess_features(self.inputs)
            self._encoded_features = self._merge_features(
                preprocessed, self._cross_features(preprocessed))
        return self._encoded_features

    def _check_if_adapted(self) -> None:
        if not self._is_adapted:
            if self._list_adaptable_preprocessors():
                raise ValueError("You need to call `.adapt(dataset)` on the FeatureSpace "
                                 "before you can start using it.")
            self._is_adapted = True

    def _check_if_built(self) -> None:
        if not self.built:
            self._check_if_adapted()
            self.get_encoded_features()
            self.built = True

    # -------------------------------------------------------------- encoding
    def _preprocess_features(self, features: dict) -> dict:
        return {name: self.preprocessors[name](features[name]) for name in features}

    def _cross_features(self, features: dict) -> dict:
        return {c.name: self.crossers[c.name]([features[n] for n in c.feature_names])
                for c in self._crosses}

    def _cardinality(self, name: str) -> int:
        layers = _layers()
        layer = self.preprocessors[name] if name in self.preprocessors else self.crossers[name]
        if isinstance(layer, (layers.IntegerLookup, layers.StringLookup)):
            return layer.vocabulary_size()
        if isinstance(layer, layers.CategoryEncoding):
            return layer.num_tokens
        if isinstance(layer, (layers.Discretization, layers.HashedCrossing, layers.Hashing)):
            return layer.num_bins
        raise ValueError(
            f"Feature '{name}' has `output_mode='one_hot'`. However it isn't a standard feature "
            "and the dimensionality of its output space is not known, thus it cannot be one-hot "
            "encoded. Try using `output_mode='int'`.")

    def _merge_features(self, preprocessed: dict, crossed: dict) -> Any:
        if self._names is None:
            self._names = sorted(preprocessed) + sorted(crossed)
        values = {**preprocessed, **crossed}
        build = not self.built
        outputs = {}
        for name in self._names:
            feature = values[name]
            spec = self._features.get(name) or self._crosses_by_name[name]
            if build and spec.output_mode == "one_hot":
                dtype = _dtype_name(feature)
                if not dtype.startswith("int"):
                    raise ValueError(
                        f"Feature '{name}' has `output_mode='one_hot'`. Thus its preprocessor "
                        f"should return an int64 dtype. Instead it returns a {dtype} dtype.")
                self._one_hot_encoders[name] = _layers().CategoryEncoding(
                    num_tokens=self._cardinality(name), output_mode="multi_hot")
            encoder = self._one_hot_encoders.get(name)
            if encoder is not None:
                feature = encoder(feature)
            if build and self.output_mode == "concat":
                dtype = _dtype_name(feature)
                if dtype.startswith("int") or dtype == "string":
                    raise ValueError(
                        f"Cannot concatenate features because feature '{name}' has not been "
                        f"encoded (it has dtype {dtype}). Consider using `output_mode='dict'`.")
            outputs[name] = feature
        if self.output_mode == "dict":
            return outputs
        return _layers().Concatenate(axis=-1)([outputs[name] for name in self._names])

    def __call__(self, data: Any) -> Any:
        """Encodes `data`, a dict of feature values (a batch, or one sample of scalars):
        returns a float tensor (concat mode) or a dict of encoded features (dict mode)."""
        self._check_if_built()
        if not isinstance(data, dict):
            raise ValueError("A FeatureSpace can only be called with a dict. "
                             f"Received: data={data} (of type {type(data)}")
        unknown = sorted(set(self._features) - set(data))
        if unknown:
            raise ValueError(f"FeatureSpace: `data` lacks the feature(s) {unknown}; it has keys "
                             f"{sorted(data)}. Pass a value for every feature of the space.")
        converted, rebatched = {}, False
        for name, feature in self._features.items():
            x = _as_value(data[name], feature.dtype)
            if x.ndim == 0:
                x, rebatched = x.reshape(1, 1), True
            elif x.ndim == 1:
                x = _expand_last(x)
            converted[name] = x
        preprocessed = self._preprocess_features(converted)
        merged = self._merge_features(preprocessed, self._cross_features(preprocessed))
        if rebatched:
            if self.output_mode == "concat":
                return merged.squeeze(0)
            for name, x in merged.items():
                if x.ndim == 2 and x.shape[0] == 1:
                    merged[name] = x[0]
        return merged

    # ---------------------------------------------------------------- saving
    def get_config(self) -> dict:
        """Returns the constructor arguments (Keras 2.15 keys), features and crosses
        serialized with their preprocessors' state."""
        return {
            "features": _registry.serialize_keras_object(self._features),
            "output_mode": self.output_mode,
            "crosses": _registry.serialize_keras_object(self._crosses),
            "crossing_dim": self.crossing_dim,
            "hashing_dim": self.hashing_dim,
            "num_discretization_bins": self.num_discretization_bins,
        }

    @classmethod
    def from_config(cls, config: dict) -> FeatureSpace:
        """Returns a `FeatureSpace` made from `get_config()`'s output."""
        return cls(**config)

    def get_build_config(self) -> dict:
        """Returns each preprocessor's build config, by feature name."""
        return {name: f.preprocessor.get_build_config() for name, f in self._features.items()}

    def build_from_config(self, config: dict) -> None:
        """Builds each preprocessor from `get_build_config()`'s output; the space counts as
        adapted."""
        for name, value in config.items():
            self._features[name].preprocessor.build_from_config(value)
        self._is_adapted = True

    def save(self, filepath: str) -> None:
        """Saves the `FeatureSpace` to a `.keras` file; reload it with
        `tf.keras.models.load_model(filepath)`."""

        saving_lib.save_model(self, filepath)

    def save_own_variables(self, store: Any) -> None:
        """Writes nothing, as Keras 2.15's: the preprocessors save their own state."""
        return

    def load_own_variables(self, store: Any) -> None:
        """Reads nothing, as Keras 2.15's (see `save_own_variables`)."""
        return
