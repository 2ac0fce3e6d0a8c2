"""Two programs from TensorFlow's guides, kept as written for TensorFlow 2.15 in
examples/tf215/, differ from our examples only in their import lines: the Keras functional
multi-input model (examples/tf215/keras_functional_tf.py vs examples/functional_multi_input.py)
and the custom Estimator (examples/tf215/custom_estimator_tf.py vs examples/custom_estimator.py).

An import line may differ only by naming `torchestimator` where TensorFlow's names
`tensorflow` (`import tensorflow as tf`, `from tensorflow import keras`,
`from tensorflow.keras import layers`). Any other differing line must be in EXCEPTIONS, with
its reason, and that reason must be listed in docs/migration.md under "Documented
exceptions". (The tf215 files run under TensorFlow 2.15; TensorFlow is not a dependency, so
this test only diffs them.)
"""

from __future__ import annotations

import difflib
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"

PAIRS = [
    ("tf215/keras_functional_tf.py", "functional_multi_input.py"),
    ("tf215/custom_estimator_tf.py", "custom_estimator.py"),
]

# (our example, the TF 2.15 line, our line) -> the reason, as docs/migration.md lists it.
# Empty today: both programs run with the import lines changed and nothing else.
EXCEPTIONS: dict[tuple[str, str, str], str] = {}

IMPORT_PREFIXES = ("import tensorflow", "from tensorflow")


def _is_import_rename(tf_line: str, our_line: str) -> bool:
    """True when `tf_line` imports from TensorFlow and `our_line` is the same line naming
    torchestimator instead."""
    return (tf_line.lstrip().startswith(IMPORT_PREFIXES)
            and our_line == tf_line.replace("tensorflow", "torchestimator"))


def _unexplained_differences(tf_text: str, our_text: str, ours: str) -> list[str]:
    """The differing lines of the two programs that are neither an import rename nor listed
    in EXCEPTIONS, as unified-diff lines."""
    tf_lines, our_lines = tf_text.splitlines(), our_text.splitlines()
    problems = []
    matcher = difflib.SequenceMatcher(a=tf_lines, b=our_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        removed, added = tf_lines[i1:i2], our_lines[j1:j2]
        if tag == "replace" and len(removed) == len(added):
            pairs = list(zip(removed, added))
        else:
            pairs = [(line, "") for line in removed] + [("", line) for line in added]
        for tf_line, our_line in pairs:
            if _is_import_rename(tf_line, our_line) or (ours, tf_line, our_line) in EXCEPTIONS:
                continue
            problems.append(f"- {tf_line}\n+ {our_line}")
    return problems


@pytest.mark.parametrize("tf_name, our_name", PAIRS)
def test_program_differs_from_tensorflow_2_15_only_by_its_imports(tf_name, our_name):
    tf_text = (EXAMPLES / tf_name).read_text()
    our_text = (EXAMPLES / our_name).read_text()
    assert "import tensorflow as tf" in tf_text.splitlines(), tf_name
    assert "import torchestimator as tf" in our_text.splitlines(), our_name
    problems = _unexplained_differences(tf_text, our_text, our_name)
    assert not problems, (f"{our_name} differs from {tf_name} beyond its imports; make the "
                          "line the same, or list it in EXCEPTIONS with its reason (and in "
                          "docs/migration.md, 'Documented exceptions'):\n" + "\n".join(problems))
    renamed = [line for line in tf_text.splitlines() if line.startswith(IMPORT_PREFIXES)]
    assert renamed, tf_name  # the diff is the import line(s), never nothing at all


def test_diff_check_catches_a_changed_line():
    tf_text = "import tensorflow as tf\nx = tf.ones((2, 2))\n"
    assert _unexplained_differences(tf_text, tf_text.replace("tensorflow", "torchestimator"),
                                    "x.py") == []
    changed = "import torchestimator as tf\nx = tf.ones((3, 2))\n"
    assert _unexplained_differences(tf_text, changed, "x.py") == [
        "- x = tf.ones((2, 2))\n+ x = tf.ones((3, 2))"]
    assert _unexplained_differences(tf_text, "import torchestimator as np\n"
                                    "x = tf.ones((2, 2))\n", "x.py") != []
    assert _unexplained_differences(tf_text, tf_text + "y = 1\n", "x.py") == ["- \n+ y = 1"]


def test_every_exception_is_documented_in_the_migration_guide():
    text = (ROOT / "docs" / "migration.md").read_text()
    assert "## Documented exceptions" in text
    section = text.split("## Documented exceptions", 1)[1].split("\n## ", 1)[0]
    for (ours, _, _), reason in EXCEPTIONS.items():
        assert reason in section, f"{ours}: {reason!r} is not in docs/migration.md"
    for _, ours in PAIRS:
        assert f"examples/{ours}" in section, ours
