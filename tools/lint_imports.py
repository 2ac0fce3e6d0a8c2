"""Checks the package's import structure; exits non-zero when it is broken.

1. The contracts in `.importlinter` (docs/design.md section 8: dependencies point one way),
   with import-linter (the `lint-imports` command, run through `python3` so it works where
   that script is not on PATH).
2. No circle between the package's folders (`torchestimator.keras`, `torchestimator._ops`,
   `torchestimator._type_spec`, ...) through any import, at a module's top level or inside a
   function, other than the re-exports the layers contract lists by name.
3. Every import inside a function is of an optional or heavy module, or a subclass its base
   builds, and says so (`# lazy: ...`, `tools/lazy_imports.py`).
4. A load-time circle between modules (top-level imports; a submodule's load of its own
   package does not count) loads in every order: each module on one is imported first in a
   fresh process, and must import.
"""

from __future__ import annotations

import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lazy_imports  # noqa: E402 - the sibling tool, found through the line above

ROOT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")
PACKAGE = "torchestimator"


def _folder(module: str) -> str:
    return ".".join(module.split(".")[:2])


def _listed_exceptions() -> set[tuple[str, str]]:
    """The imports `.importlinter`'s layers contract lists under `ignore_imports` (re-exports of
    TF's public names that TF places below the code implementing them), as (importer, imported)."""
    import configparser

    parser = configparser.ConfigParser(inline_comment_prefixes=(";",))
    parser.read(os.path.join(os.path.dirname(ROOT), ".importlinter"))
    lines = parser.get("importlinter:contract:folder-layers", "ignore_imports", fallback="")
    pairs = set()
    for line in lines.splitlines():
        if "->" in line:
            importer, imported = (part.strip() for part in line.split("->"))
            pairs.add((importer, imported))
    return pairs


def strong_groups(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one node of the graph `edges` (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10000))
    for v in list(edges):
        if v not in index:
            visit(v)
    return groups


def module_cycles() -> list[list[str]]:
    """The load-time circles between the package's modules: strongly connected groups of the
    graph of top-level imports (`tools/lazy_imports.Graph`), leaving out a submodule's load of
    the packages above it, which every package has."""
    graph = lazy_imports.Graph()
    edges: dict[str, set[str]] = defaultdict(set)
    for module in graph.modules:
        for target in graph.edges.get(module, ()):
            if target in graph.modules and target != PACKAGE and not module.startswith(target + "."):
                edges[module].add(target)
    return strong_groups(edges)


def import_first_failures(modules: list[str]) -> list[tuple[str, str]]:
    """(module, last line of the error) for each module that fails to import when it is the
    first thing a fresh process imports."""
    import subprocess
    from concurrent.futures import ThreadPoolExecutor

    def one(module: str) -> tuple[str, str] | None:
        run = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True,
                             text=True, timeout=300)
        if run.returncode:
            return module, (run.stderr.strip().splitlines() or ["(no output)"])[-1]
        return None

    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        return [r for r in pool.map(one, modules) if r]


def folder_cycles() -> list[list[str]]:
    """The circles (strongly connected groups of more than one folder) of the folder graph: every
    import a module makes, at its top level or inside a function (grimp's import graph, the one
    import-linter checks), less the listed re-exports. A folder is a subpackage of the package
    or one of its top-level modules."""
    import grimp

    graph = grimp.build_graph(PACKAGE, exclude_type_checking_imports=True, cache_dir=None)
    skipped = _listed_exceptions()
    edges: dict[str, set[str]] = defaultdict(set)
    for module in graph.modules:
        for target in graph.find_modules_directly_imported_by(module):
            a, b = _folder(module), _folder(target)
            if a != b and (module, target) not in skipped:
                edges[a].add(b)
    return strong_groups(edges)


def main() -> int:
    from importlinter.cli import lint_imports

    status = lint_imports()
    cycles = folder_cycles()
    for group in cycles:
        print(f"Import circle between folders: {' <-> '.join(group)}", file=sys.stderr)
    if not cycles:
        print("No import circle between folders.")
    missing = lazy_imports.unannotated([os.path.join(ROOT, PACKAGE)])
    for path, line, text in missing:
        print(f"{os.path.relpath(path)}:{line}: import inside a function without an allowed "
              f"`# lazy: <reason>` (optional extra, heavy, subclass; tools/lazy_imports.py): "
              f"{text}", file=sys.stderr)
    if not missing:
        print("Every import inside a function gives an allowed reason.")
    circles = module_cycles()
    failures = import_first_failures(sorted(m for group in circles for m in group))
    for module, error in failures:
        print(f"{module} fails when a fresh process imports it first: {error}", file=sys.stderr)
    if not failures:
        print(f"Every module on a load-time circle ({len(circles)} circles) imports first.")
    return 1 if status or cycles or missing or failures else 0


if __name__ == "__main__":
    sys.exit(main())
