"""Writes the API reference pages of the documentation site: docs/api/<namespace>.md.

    python3 tools/make_api_reference.py [--out docs/api]

One page per TensorFlow namespace the package has (`tf`, `tf.keras.layers`,
`tf.estimator`, ...), listing every public name of the namespace: classes and
functions through a mkdocstrings directive (`::: module.Name`, the module where the
object is defined, so that the page renders the signature and docstring even for
names defined in private modules or loaded lazily), aliases as links to the name they
alias, other objects (dtypes, constants) in a table; each with a link to TensorFlow's
page of the same name. `tests/docs/test_api_reference_current.py` checks the
committed pages are what this script writes.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import re
import sys
import types
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent

#: The namespaces documented, as TensorFlow 2.15 spells them (relative to `tf`): every
#: TF 2.15 namespace that is a module of this package of the same dotted name (found by
#: walking TF 2.15's modules and this package's public modules, with TF installed once;
#: the package does not read ../shared at run time), then the package's own namespaces.
TF_NAMESPACES: tuple[str, ...] = (
    "", "audio", "autodiff", "autograph", "autograph.experimental", "bitwise", "compat",
    "compat.v1", "compat.v1.estimator", "compat.v1.layers", "compat.v1.logging",
    "compat.v1.losses", "compat.v1.metrics", "compat.v1.nn", "compat.v1.summary",
    "compat.v1.train", "config", "data", "data.experimental", "debugging", "distribute",
    "distribute.cluster_resolver", "distribute.coordinator", "distribute.experimental",
    "dtypes", "errors", "estimator", "estimator.experimental", "estimator.export",
    "experimental", "experimental.dlpack", "experimental.extension_type", "feature_column",
    "graph_util", "image", "io", "io.gfile", "keras", "keras.activations",
    "keras.applications", "keras.applications.convnext", "keras.applications.densenet",
    "keras.applications.efficientnet", "keras.applications.efficientnet_v2",
    "keras.applications.imagenet_utils", "keras.applications.inception_resnet_v2",
    "keras.applications.inception_v3", "keras.applications.mobilenet",
    "keras.applications.mobilenet_v2", "keras.applications.mobilenet_v3",
    "keras.applications.nasnet", "keras.applications.regnet", "keras.applications.resnet",
    "keras.applications.resnet50", "keras.applications.resnet_rs",
    "keras.applications.resnet_v2", "keras.applications.vgg16", "keras.applications.vgg19",
    "keras.applications.xception", "keras.backend", "keras.backend.experimental",
    "keras.callbacks", "keras.callbacks.experimental", "keras.constraints", "keras.datasets",
    "keras.datasets.boston_housing", "keras.datasets.cifar10", "keras.datasets.cifar100",
    "keras.datasets.fashion_mnist", "keras.datasets.imdb", "keras.datasets.mnist",
    "keras.datasets.reuters", "keras.dtensor", "keras.dtensor.experimental",
    "keras.dtensor.experimental.optimizers", "keras.estimator", "keras.experimental",
    "keras.export", "keras.initializers", "keras.layers", "keras.layers.experimental",
    "keras.layers.experimental.preprocessing", "keras.losses", "keras.metrics",
    "keras.mixed_precision", "keras.models", "keras.models.experimental", "keras.optimizers",
    "keras.optimizers.experimental", "keras.optimizers.legacy", "keras.optimizers.schedules",
    "keras.preprocessing", "keras.preprocessing.image", "keras.preprocessing.sequence",
    "keras.preprocessing.text", "keras.regularizers", "keras.saving", "keras.utils",
    "keras.utils.experimental", "keras.utils.legacy", "linalg", "linalg.experimental", "lite",
    "lite.experimental", "lookup", "lookup.experimental", "math", "math.special", "mlir", "nn",
    "nn.experimental", "profiler", "profiler.experimental", "profiler.experimental.client",
    "profiler.experimental.server", "queue", "ragged", "random", "saved_model", "security",
    "sets", "signal", "sparse", "strings", "summary", "summary.experimental", "sysconfig",
    "test", "tools", "tpu", "train", "tsl", "types", "types.experimental",
    "types.experimental.distributed", "version", "xla",
)
#: TF 1.x namespaces (`tf.contrib...`, `tf.compat.v1.estimator.inputs`) and the package's own.
OWN_NAMESPACES: tuple[str, ...] = (
    "contrib", "contrib.training", "training", "estimator.inputs", "datasets", "migration",
    "serving",
)
#: Namespaces that are not TensorFlow's: no link to tensorflow.org.
NOT_TF = frozenset({"datasets", "migration", "serving", "contrib", "contrib.training",
                    "training"})
TF_DOCS = "https://www.tensorflow.org/versions/r2.15/api_docs/python/"

#: How mkdocstrings renders each class or function.
DIRECTIVE_OPTIONS = """\
    options:
      heading: "{heading}"
      toc_label: "{label}"
      heading_level: 2
      show_root_heading: true
      show_root_toc_entry: true"""


def module_name(namespace: str) -> str:
    return f"torchestimator.{namespace}" if namespace else "torchestimator"


def tf_name(namespace: str, name: str = "") -> str:
    return ".".join(p for p in ("tf", namespace, name) if p)


def page_name(namespace: str) -> str:
    return f"{namespace or 'tf'}.md"


def tf_url(namespace: str, name: str = "") -> str:
    return TF_DOCS + "/".join(p for p in ("tf", *namespace.split("."), name) if p)


def load_namespaces() -> dict[str, types.ModuleType]:
    """Imports every namespace; returns {namespace: module} for those this package has (a
    module of the namespace's name, imported or made by its parent: `tf.tpu`)."""
    import torchestimator

    found = {}
    for namespace in (*TF_NAMESPACES, *OWN_NAMESPACES):
        try:
            module = importlib.import_module(module_name(namespace))
        except ImportError:
            module = torchestimator
            for part in [p for p in namespace.split(".") if p]:
                module = getattr(module, part, None)
        if isinstance(module, types.ModuleType) and module.__name__ == module_name(namespace):
            found[namespace] = module
    return found


def public_names(module: types.ModuleType) -> list[str]:
    names = getattr(module, "__all__", None) or dir(module)
    return sorted({n for n in names if not n.startswith("_")}, key=lambda n: (n.lower(), n))


_SOURCE_CACHE: dict[str, str] = {}
SRC = ROOT / "src"


def _module_of_file(path: str) -> str | None:
    try:
        relative = Path(path).resolve().relative_to(SRC.resolve())
    except ValueError:
        return None
    parts = list(relative.with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts) if parts and parts[0] == "torchestimator" else None


def _defines(path: str, name: str) -> bool:
    """Whether the file defines `name` by `class`/`def` at the top level, where griffe's
    static analysis finds it."""
    if path not in _SOURCE_CACHE:
        _SOURCE_CACHE[path] = Path(path).read_text(encoding="utf-8")
    pattern = rf"^(?:async\s+def|def|class)\s+{re.escape(name)}\b"
    return re.search(pattern, _SOURCE_CACHE[path], re.M) is not None


def _defining_module(obj: object) -> str | None:
    """The dotted name of the module whose source defines `obj` at its top level (`__module__`
    may name a package that re-exports it), or None when griffe would not find it."""
    qualname = getattr(obj, "__qualname__", "")
    if not qualname or "<" in qualname:
        return None
    top = qualname.split(".")[0]
    try:
        files = [inspect.getsourcefile(inspect.unwrap(obj))]
    except (TypeError, ValueError, OSError):
        files = []
    package = getattr(obj, "__module__", "") or ""
    # a class's source file is its __module__'s; look in the modules under it that hold it
    files += [getattr(module, "__file__", None) for name, module in sorted(sys.modules.items())
              if name.startswith(package) and getattr(module, top, None) is obj]
    for path in files:
        if path and path.endswith(".py") and _defines(path, top):
            return _module_of_file(path)
    return None


#: Folders of the package without an `__init__.py` (implicit namespace packages, which
#: griffe does not find inside a regular package): mkdocs.yml's mkdocstrings `paths` holds
#: their parent folders, so that griffe loads each as a top-level package of its own name.
NAMESPACE_PACKAGE_PARENTS = ("src/torchestimator/keras",)


def griffe_path(module: str) -> str:
    """The dotted path griffe knows `module` by (see NAMESPACE_PACKAGE_PARENTS)."""
    parts = module.split(".")
    folder = ROOT / "src"
    for i, part in enumerate(parts[:-1]):
        folder = folder / part
        if folder.is_dir() and not (folder / "__init__.py").exists():
            parent = folder.parent.relative_to(ROOT).as_posix()
            if parent not in NAMESPACE_PACKAGE_PARENTS:
                raise SystemExit(f"{folder} has no __init__.py: add one, or add {parent!r} to "
                                 "NAMESPACE_PACKAGE_PARENTS and to mkdocs.yml's `paths`")
            return ".".join(parts[i:])
    return module


def documented_path(obj: object) -> str | None:
    """The dotted path mkdocstrings renders `obj` from, or None when it is no class or
    function of this package that griffe finds statically."""
    if not (inspect.isclass(obj) or inspect.isfunction(obj)):
        return None
    if not (getattr(obj, "__module__", "") or "").startswith("torchestimator"):
        return None
    module = _defining_module(obj)
    if module is None:
        return None
    return f"{griffe_path(module)}.{obj.__qualname__}"


_MISSING = object()


class Refused:
    """A name the package refuses by design (its attribute raises NotImplementedError
    saying why and what to write instead: docs/refusals.md)."""

    def __init__(self, error: NotImplementedError):
        self.reason = str(error)


def _get(module: types.ModuleType, name: str) -> object:
    """`module.name`; a Refused for a refused name; _MISSING when it cannot load (an
    optional extra not installed)."""
    try:
        return getattr(module, name)
    except NotImplementedError as error:
        return Refused(error)
    except Exception as error:  # noqa: BLE001 - any import error of a lazy attribute
        print(f"skipped {module.__name__}.{name}: {error}", file=sys.stderr)
        return _MISSING


def public_objects(modules: dict[str, types.ModuleType]):
    """Yields (namespace, name, object) for every public name of every namespace."""
    for namespace, module in modules.items():
        for name in public_names(module):
            obj = _get(module, name)
            if obj is not _MISSING:
                yield namespace, name, obj


def _first_line(doc: str | None) -> str:
    line = (doc or "").strip().split("\n\n")[0].replace("\n", " ").strip()
    return line.replace("|", "\\|")


def _priority(namespace: str) -> tuple:
    """Where an object reachable from several namespaces is rendered: the first namespace
    in this order (TF 2 before compat, stable before experimental and legacy, shallow first)."""
    parts = namespace.split(".") if namespace else []
    return ("compat" in parts, any(p in ("experimental", "legacy") for p in parts),
            namespace in NOT_TF, len(parts), namespace)


def canonical_names(modules: dict[str, types.ModuleType]) -> dict[int, tuple[str, str, str]]:
    """{id(object): (namespace, name, path)}: the one place each class or function is
    rendered (its own name where it has one); every other name of it links there."""
    found: dict[int, tuple[str, str, str]] = {}
    for namespace in sorted(modules, key=_priority):
        module = modules[namespace]
        names = public_names(module)
        for name in sorted(names, key=lambda n: getattr(_get(module, n), "__name__", None) != n):
            obj = _get(module, name)
            path = documented_path(obj)
            if path is not None and id(obj) not in found:
                found[id(obj)] = (namespace, name, path)
    return found


def write_page(namespace: str, module: types.ModuleType, modules: dict[str, types.ModuleType],
               canonical: dict[int, tuple[str, str, str]]) -> tuple[str, int]:
    """The markdown of one namespace's page, and how many names it documents."""
    title = tf_name(namespace)
    intro = _first_line(module.__doc__) or f"The `{title}` namespace."
    lines = [f"# `{title}`", "", intro, ""]
    if namespace not in NOT_TF:
        lines += [f"TensorFlow's page: [`{title}`]({tf_url(namespace)}).", ""]
    lines += ["<!-- Generated by tools/make_api_reference.py: do not edit. -->", ""]
    rendered, aliases, others, submodules, refused, plain = [], [], [], [], [], []
    namespace_of = {id(m): ns for ns, m in modules.items()}
    for name in public_names(module):
        obj = _get(module, name)
        if obj is _MISSING or type(obj).__module__ == "__future__" or (
                getattr(obj, "__module__", None) == "typing"):
            continue  # `from __future__ import annotations`, `from typing import Any`
        if isinstance(obj, types.ModuleType):
            if id(obj) in namespace_of and namespace_of[id(obj)] != namespace:
                submodules.append((name, namespace_of[id(obj)]))
            continue
        if type(obj).__name__ == "RefusedName" and type(obj).__module__.startswith(
                "torchestimator"):
            obj = Refused(obj._refuse())
        if isinstance(obj, Refused):
            refused.append((name, obj.reason))
        elif id(obj) in canonical and canonical[id(obj)][:2] == (namespace, name):
            rendered.append((name, canonical[id(obj)][2]))
        elif id(obj) in canonical:
            aliases.append((name, canonical[id(obj)]))
        elif _is_own_callable(obj):
            plain.append((name, obj))
        else:
            others.append((name, obj))
    if submodules:
        lines += ["## Namespaces", "", "| Name | |", "|---|---|"]
        for name, target in sorted(submodules):
            doc = _first_line(modules[target].__doc__)
            lines.append(f"| [`{tf_name(namespace, name)}`]({page_name(target)}) | {doc} |")
        lines.append("")
    for name, path in sorted(rendered, key=lambda item: (item[0].lower(), item[0])):
        lines += [f"::: {path}", DIRECTIVE_OPTIONS.format(heading=tf_name(namespace, name),
                                                          label=name), ""]
        if namespace not in NOT_TF:
            lines += [f"TensorFlow: [`{tf_name(namespace, name)}`]({tf_url(namespace, name)})", ""]
    for name, obj in sorted(plain, key=lambda item: (item[0].lower(), item[0])):
        lines += _plain_entry(namespace, name, obj)
    if aliases:
        lines += ["## Aliases", "", "These names are the same object as the one they link to.",
                  "", "| Name | Same object as |", "|---|---|"]
        for name, (target_ns, target, path) in sorted(aliases):
            page = "" if target_ns == namespace else page_name(target_ns)
            lines.append(f"| `{tf_name(namespace, name)}` | [`{tf_name(target_ns, target)}`]"
                         f"({page}#{path}) |")
        lines.append("")
    if others:
        lines += ["## Other names", "", "| Name | What it is |", "|---|---|"]
        for name, obj in sorted(others, key=lambda item: (item[0].lower(), item[0])):
            lines.append(f"| `{tf_name(namespace, name)}` | {_describe(obj)} |")
        lines.append("")
    if refused:
        lines += ["## Not available here", "",
                  "These names raise an error saying why and what to write instead "
                  "(see [the refusals](../refusals.md)).", "", "| Name | Why |", "|---|---|"]
        for name, reason in sorted(refused):
            lines.append(f"| `{tf_name(namespace, name)}` | {_first_line(reason)} |")
        lines.append("")
    count = len(rendered) + len(aliases) + len(others) + len(refused) + len(plain)
    return "\n".join(lines).rstrip() + "\n", count


def _is_own_callable(obj: object) -> bool:
    return (inspect.isclass(obj) or inspect.isfunction(obj)) and (
        getattr(obj, "__module__", "") or "").startswith("torchestimator")


def _plain_entry(namespace: str, name: str, obj: object) -> list[str]:
    """A class or function griffe cannot find statically (made by a factory): its signature
    and docstring, from the object itself."""
    try:
        signature = str(inspect.signature(obj))
        # annotations kept as strings (`from __future__ import annotations`): unquote them
        signature = re.sub(r"(: |-> )'([^']*)'", r"\1\2", signature)
    except (TypeError, ValueError):
        signature = "(...)"
    kind = "class " if inspect.isclass(obj) else ""
    doc = inspect.cleandoc(obj.__dict__.get("__doc__") or "" if inspect.isclass(obj)
                           else obj.__doc__ or "")
    lines = [f"## `{tf_name(namespace, name)}`", "", f"```python\n{kind}{tf_name(namespace, name)}"
             f"{signature}\n```", ""]
    if doc:
        lines += [doc, ""]
    if namespace not in NOT_TF:
        lines += [f"TensorFlow: [`{tf_name(namespace, name)}`]({tf_url(namespace, name)})", ""]
    return lines


def _describe(obj: object) -> str:
    kind = type(obj)
    module = getattr(obj, "__module__", None) if (inspect.isclass(obj) or callable(obj)) else None
    if inspect.isclass(obj) or inspect.isroutine(obj):
        where = f"{module}.{getattr(obj, '__qualname__', getattr(obj, '__name__', '?'))}"
        doc = _first_line(getattr(obj, "__doc__", None)) if (module or "").startswith(
            "torchestimator") else ""
        return f"`{where}`" + (f": {doc}" if doc else "")
    # the installed torch release stands as a placeholder: the pages do not change with it
    text = repr(obj).replace(f"torch {torch.__version__}", "torch <installed release>")
    if len(text) > 60 or "\n" in text or " at 0x" in text:
        text = f"a `{kind.__module__}.{kind.__qualname__}`"
    else:
        text = f"`{text.replace('`', '')}`"
    return text.replace("|", "\\|")


def index_page(modules: dict[str, types.ModuleType], counts: dict[str, int]) -> str:
    lines = [
        "# API reference", "",
        "Every public name of `import torchestimator as tf`, one page per TensorFlow namespace,",
        "rendered from the docstrings. Each name links TensorFlow 2.15's page of the same name,",
        "whose behaviour it follows (the differences are in the [migration notes](../migration.md)",
        "and the [refusals](../refusals.md)).", "",
        "<!-- Generated by tools/make_api_reference.py: do not edit. -->", "",
        "| Namespace | Names | |", "|---|---|---|",
    ]
    for namespace in sorted(modules, key=lambda ns: (ns != "", ns)):
        doc = _first_line(modules[namespace].__doc__)
        lines.append(f"| [`{tf_name(namespace)}`]({page_name(namespace)}) | "
                     f"{counts[namespace]} | {doc} |")
    return "\n".join(lines) + "\n"


def generate(out: Path) -> dict[str, int]:
    """Writes every page under `out`; returns {namespace: names documented}."""
    modules = load_namespaces()
    out.mkdir(parents=True, exist_ok=True)
    canonical = canonical_names(modules)
    counts = {}
    for namespace, module in modules.items():
        text, counts[namespace] = write_page(namespace, module, modules, canonical)
        (out / page_name(namespace)).write_text(text, encoding="utf-8")
    (out / "index.md").write_text(index_page(modules, counts), encoding="utf-8")
    expected = {page_name(ns) for ns in modules} | {"index.md"}
    for stale in out.glob("*.md"):
        if stale.name not in expected:
            stale.unlink()
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=str(ROOT / "docs" / "api"),
                        help="the folder of the pages (default docs/api)")
    args = parser.parse_args(argv)
    counts = generate(Path(args.out))
    print(f"wrote {len(counts) + 1} pages, {sum(counts.values())} names, into {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
