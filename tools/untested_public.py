"""Lists the package's public functions and methods whose body no test ran: the paths to check
next (the first such function looked at, `tf.test.TestCase.create_tempdir`, raised on every
call).

    python3 -m pip install coverage
    python3 -m coverage run --source=src/torchestimator --data-file=/tmp/te.coverage \\
        -m pytest -p no:cacheprovider -m "not slow" tests
    python3 tools/untested_public.py /tmp/te.coverage [--package src/torchestimator]

prints one line per function, `path:line<TAB>qualified name<TAB>lines`, path relative to the
package, and the count on stderr. A function counts as public when its name and its class's
have no leading underscore (`__init__` and `__call__` count); "never ran" means no line of its
body was recorded. The run measures the test process only: code that runs in subprocesses the
tests start (distribute's workers, the serving servers, `tf.test.main` scripts) and in tests
marked slow is listed too, so check a listed function against those before calling it untested.
"""

from __future__ import annotations

import argparse
import ast
import os
import sys
from collections.abc import Iterator

#: dunder methods counted as public entry points
PUBLIC_DUNDERS = frozenset({"__init__", "__call__", "__iter__", "__getitem__", "__len__"})


def _is_docstring(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(getattr(node, "value", None), ast.Constant) \
        and isinstance(node.value.value, str)


def public_functions(tree: ast.AST) -> Iterator[tuple[str, int, int, int]]:
    """(qualified name, def line, first body line, last line) of each public function or method
    in `tree` with a body besides its docstring (nested functions are not visited)."""

    def visit(node: ast.AST, prefix: str, public_class: bool) -> Iterator[tuple[str, int, int, int]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                yield from visit(child, f"{prefix}{child.name}.",
                                 public_class and not child.name.startswith("_"))
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                body = [s for s in child.body if not _is_docstring(s)]
                public = not child.name.startswith("_") or child.name in PUBLIC_DUNDERS
                if body and public and public_class:
                    yield prefix + child.name, child.lineno, body[0].lineno, child.end_lineno

    yield from visit(tree, "", True)


def never_ran(package: str, data_file: str) -> list[tuple[str, int, str, int]]:
    """(path relative to `package`, def line, qualified name, lines) of each public function of
    the package's modules whose body has no line in the coverage data `data_file`."""
    import coverage  # noqa: PLC0415 - a tool's own dependency, installed to run it

    data = coverage.CoverageData(basename=data_file)
    data.read()
    package = os.path.abspath(package)
    found = []
    for folder, _, files in os.walk(package):
        for name in sorted(files):
            if not name.endswith(".py"):
                continue
            path = os.path.join(folder, name)
            executed = set(data.lines(path) or ())
            with open(path, encoding="utf-8") as source:
                tree = ast.parse(source.read(), path)
            for qualified, line, first, last in public_functions(tree):
                if not any(first <= n <= last for n in executed):
                    found.append((os.path.relpath(path, package), line, qualified, last - line + 1))
    return sorted(found)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data_file", help="the coverage data file of a test run")
    parser.add_argument("--package", default=os.path.join("src", "torchestimator"),
                        help="the package folder the run measured (default: src/torchestimator)")
    args = parser.parse_args(argv)
    rows = never_ran(args.package, args.data_file)
    for path, line, qualified, lines in rows:
        print(f"{path}:{line}\t{qualified}\t{lines}")
    print(f"{len(rows)} public functions whose body no test ran", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
