"""JSON examples to the per-feature columns a parsing-receiver export takes.

TF Serving turns the `examples` (and `context`) of a `:classify` / `:regress`
request into `tf.train.Example`s and runs the signature on them. An export
with a parsing receiver knows its feature spec, so the server hands the
values to `Signature.call_on_features` instead: feature name -> one value (or
value list) per example, None where an example lacks the feature (parsing
then applies the spec's `default_value`, or fails naming the feature). The
export gives the same features as parsing the Examples would; strings may be
`{"b64": ...}`.

`context` features are given to every example; a feature in both is an error
(TF Serving's rule). A feature the export does not parse is ignored in
`:classify` / `:regress` (parsing an Example ignores it) and refused in the
feature dicts of `:predict` (beyond TF Serving: a misspelt feature should not
silently take its default).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from torchestimator.serving._errors import RequestError, shorten
from torchestimator.serving._json_tensor import is_b64_object, json_type


def feature_columns(examples: Sequence[Any], context: Any, known: Collection[str], where: str,
                    strict: bool) -> dict[str, list]:
    """Feature name -> per-example values for JSON `examples` (objects) and `context`.

    `known` are the export's features; `where` names the request field in errors
    ('examples', 'instances'). With `strict`, a feature outside `known` is an error;
    otherwise it is dropped.
    """
    if context is None:
        context = {}
    if not isinstance(context, dict) or is_b64_object(context):
        raise RequestError(f"'context' must be a JSON object of features; got "
                           f"{json_type(context)}")
    for index, example in enumerate(examples):
        if not isinstance(example, dict) or is_b64_object(example):
            raise RequestError(f"{where}[{index}]: Example must be JSON object but got JSON "
                               f"{json_type(example)} ({shorten(example, 60)})")
        for key in example:
            if key in context:
                raise RequestError(
                    f"{where}[{index}]: feature {key!r} is also in 'context'; a feature in "
                    "'context' must not appear in the examples")
            if strict and key not in known:
                raise RequestError(f"{where}[{index}]: unknown feature {key!r}; the export parses "
                                   f"{sorted(known)}")
    if strict:
        unknown = sorted(set(context) - set(known))
        if unknown:
            raise RequestError(f"context: unknown feature {unknown[0]!r}; the export parses "
                               f"{sorted(known)}")
    n = len(examples)
    columns: dict[str, list] = {}
    for key in known:
        if key in context:
            columns[key] = [context[key]] * n
        else:
            columns[key] = [example.get(key) for example in examples]
    return columns


def check_columns(columns: Mapping[str, Any], known: Collection[str]) -> None:
    """Checks a columnar feature object (`{"x": [v0, v1, ...], ...}`): known names, one list each."""
    for key, value in columns.items():
        if key not in known:
            raise RequestError(f"inputs: unknown feature {key!r}; the export parses "
                               f"{sorted(known)}")
        if not isinstance(value, list):
            raise RequestError(f"inputs: feature {key!r} must be a list with one value (or value "
                               f"list) per example; got {json_type(value)}")
