"""Every public class and function reachable from the documented namespaces (the API
reference's pages) has a docstring of its own: the reference renders it."""

from __future__ import annotations

import functools
import inspect

from _api_reference import load_generator

#: TODO(issue 34): public names that still lack a docstring (0 today). A name added here
#: must be given a docstring soon; the test fails once it has one, to keep this list short.
WITHOUT_DOCSTRING: frozenset[str] = frozenset()


def _own_docstring(obj: object) -> str:
    doc = obj.__dict__.get("__doc__") if inspect.isclass(obj) else obj.__doc__
    return (doc or "").strip()


@functools.lru_cache(maxsize=1)
def _undocumented() -> frozenset[str]:
    generator = load_generator()
    modules = generator.load_namespaces()
    found: dict[int, str] = {}
    for namespace, name, obj in generator.public_objects(modules):
        if not (inspect.isclass(obj) or inspect.isfunction(obj)):
            continue
        if not (getattr(obj, "__module__", "") or "").startswith("torchestimator"):
            continue  # torch's and numpy's own objects (tf.Tensor is torch.Tensor)
        if not _own_docstring(obj):
            found.setdefault(id(obj), generator.tf_name(namespace, name))
    return frozenset(found.values())


def test_every_public_class_and_function_has_a_docstring():
    missing = sorted(_undocumented() - WITHOUT_DOCSTRING)
    assert not missing, f"{len(missing)} public names have no docstring: {missing[:50]}"


def test_the_skip_list_holds_only_names_still_without_a_docstring():
    documented_now = sorted(WITHOUT_DOCSTRING - _undocumented())
    assert not documented_now, f"remove from WITHOUT_DOCSTRING: {documented_now}"
