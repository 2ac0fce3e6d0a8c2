"""Checks the import contracts in `.importlinter` (docs/design.md section 8: dependencies point
one way) with import-linter; exits non-zero when a contract is broken. The same as the
`lint-imports` command, run through `python3` so it works where that script is not on PATH."""

from importlinter.cli import lint_imports_command

if __name__ == "__main__":
    lint_imports_command()
