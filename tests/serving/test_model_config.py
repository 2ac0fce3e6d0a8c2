"""--model_config_file and --batching_parameters_file: TF Serving's text formats, parsed with
protobuf's text_format against TF Serving's message definitions (no TensorFlow needed)."""

from __future__ import annotations

import pytest

from torchestimator.serving._model_config import (
    BatchingParameters,
    ModelSpec,
    VersionPolicy,
    message_class,
    parse_batching_parameters,
    parse_model_config,
    parse_model_config_text,
)

TWO_MODELS = """
model_config_list {
  config {
    name: "iris"
    base_path: "/models/iris"
    model_platform: "tensorflow"
    model_version_policy { specific { versions: 1 versions: 2 } }
    version_labels { key: "stable" value: 1 }
    version_labels { key: "canary" value: 2 }
  }
  config {
    name: 'reg'
    base_path: '/models/reg'
    model_version_policy { latest { num_versions: 2 } }
    logging_config { sampling_config { sampling_rate: 0.5 } }
  }
  config { name: "all" base_path: "/models/all" model_version_policy { all {} } }
  config { name: "plain" base_path: "/models/plain" }
}
"""


def test_two_models_with_policies_and_labels():
    specs = parse_model_config_text(TWO_MODELS)
    assert [s.name for s in specs] == ["iris", "reg", "all", "plain"]
    iris, reg, every, plain = specs
    assert iris == ModelSpec("iris", "/models/iris", "tensorflow",
                             VersionPolicy("specific", versions=(1, 2), explicit=True),
                             (("canary", 2), ("stable", 1)))
    assert reg.policy == VersionPolicy("latest", 2, explicit=True)
    assert every.policy.kind == "all"
    assert plain.policy == VersionPolicy() and plain.policy.num_versions == 1  # TF's default
    assert plain.model_platform == "tensorflow"
    assert iris.policy.describe() == "specific { versions: 1 versions: 2 }"


def test_field_numbers_are_tf_servings():
    """The binary form matches TF Serving's .proto field numbers (a config serialized by TF
    Serving's own classes reads back)."""
    config = message_class("ModelServerConfig")()
    model = config.model_config_list.config.add(name="m", base_path="/b")
    model.model_version_policy.specific.versions.append(7)
    model.version_labels["x"] = 7
    wire = config.SerializeToString()
    # model_config_list = 1 > config = 1 > name = 2... checked on the tags of the bytes
    assert wire[0] == (1 << 3 | 2)
    inner = config.model_config_list.SerializeToString()
    assert inner[0] == (1 << 3 | 2)
    fields = {f.name: f.number for f in model.DESCRIPTOR.fields}
    assert fields == {"name": 1, "base_path": 2, "model_type": 3, "model_platform": 4,
                      "logging_config": 6, "model_version_policy": 7, "version_labels": 8}
    policy = {f.name: f.number for f in model.model_version_policy.DESCRIPTOR.fields}
    assert policy == {"latest": 100, "all": 101, "specific": 102}
    batching = {f.name: f.number for f in message_class("BatchingParameters").DESCRIPTOR.fields}
    assert batching["max_batch_size"] == 1 and batching["batch_timeout_micros"] == 2
    assert batching["max_enqueued_batches"] == 3 and batching["num_batch_threads"] == 4
    assert batching["allowed_batch_sizes"] == 6


@pytest.mark.parametrize("text, words", [
    ("model_config_list { config { nam: 'x' } }", ["Invalid protobuf file", "nam"]),
    ("model_config_list { config { name: 'x' } }", ["no base_path"]),
    ("model_config_list { config { base_path: '/x' } }", ["no name"]),
    ("model_config_list { config { name: 'x' base_path: '/a' } config { name: 'x' "
     "base_path: '/b' } }", ["configured twice"]),
    ("model_config_list { config { name: 'x' base_path: '/a' model_platform: 'pytorch' } }",
     ["model_platform", "pytorch"]),
    ("model_config_list { config { name: 'x' base_path: '/a' model_version_policy { "
     "specific {} } } }", ["lists no versions"]),
    ("model_config_list { config { name: 'a/b' base_path: '/a' } }", ["'/'"]),
    ("__import__('os').system('echo pwned')", ["Invalid protobuf file"]),
    ("custom_model_config { }", ["custom model config"]),
])
def test_bad_configs_are_refused_naming_the_fault(text, words):
    with pytest.raises(ValueError) as raised:
        parse_model_config_text(text, "models.config")
    for word in words:
        assert word in str(raised.value)
    assert "models.config" in str(raised.value)


def test_config_file_and_relative_base_path(tmp_path, monkeypatch):
    path = tmp_path / "models.config"
    path.write_text("model_config_list { config { name: 'm' base_path: 'exports/m' } }")
    monkeypatch.chdir(tmp_path)
    (spec,) = parse_model_config(path)
    assert spec.base_path == str(tmp_path / "exports" / "m")  # from the working directory
    with pytest.raises(ValueError, match="cannot be read"):
        parse_model_config(tmp_path / "missing.config")


def test_batching_parameters_file(tmp_path):
    path = tmp_path / "batching.config"
    path.write_text("max_batch_size { value: 32 }\nbatch_timeout_micros { value: 1000 }\n"
                    "num_batch_threads { value: 4 }\nmax_enqueued_batches { value: 100 }\n"
                    "allowed_batch_sizes: 8\nallowed_batch_sizes: 32\n")
    params = parse_batching_parameters(path)
    assert (params.max_batch_size, params.batch_timeout_micros, params.num_batch_threads,
            params.max_enqueued_batches, params.allowed_batch_sizes) == (32, 1000, 4, 100, (8, 32))


def test_batching_defaults_are_tf_servings(tmp_path):
    defaults = parse_batching_parameters(None)
    assert (defaults.max_batch_size, defaults.batch_timeout_micros,
            defaults.max_enqueued_batches) == (1000, 0, 10)
    assert defaults.num_batch_threads >= 1
    path = tmp_path / "partial.config"
    path.write_text("max_batch_size { value: 8 }")
    partial = parse_batching_parameters(path)
    assert partial.max_batch_size == 8 and partial.max_enqueued_batches == 10


@pytest.mark.parametrize("text, words", [
    ("max_batch_size { value: 32 } allowed_batch_sizes: 8 allowed_batch_sizes: 16",
     ["allowed_batch_sizes", "16", "max_batch_size", "32"]),
    ("allowed_batch_sizes: 8 allowed_batch_sizes: 4 max_batch_size { value: 4 }",
     ["increasing"]),
    ("num_batch_threads { value: 0 }", ["num_batch_threads", ">= 1"]),
    ("max_batch_size: 32", ["Invalid protobuf file"]),  # a wrapper, written { value: 32 }
])
def test_bad_batching_parameters_are_refused(tmp_path, text, words):
    path = tmp_path / "batching.config"
    path.write_text(text)
    with pytest.raises(ValueError) as raised:
        parse_batching_parameters(path)
    for word in words:
        assert word in str(raised.value)
    assert "batching.config" in str(raised.value)


def test_batching_parameters_check():
    with pytest.raises(ValueError, match="batch_timeout_micros"):
        BatchingParameters(batch_timeout_micros=-1).check()
