"""`get_variable(collections=...)` decides which of TF1's variable collections a variable is
in: `collections=[LOCAL_VARIABLES]` makes it local only (not in `global_variables()`), still
trainable by default; a collection of one's own keeps it out of the global one too. The
expected names were printed by TF 2.15.1 in a graph."""

import torchestimator as tf


def test_collections_decide_global_local_and_trainable_as_tf():
    v1 = tf.compat.v1
    v1.reset_default_graph()
    v1.get_variable("a", [2], collections=[v1.GraphKeys.LOCAL_VARIABLES])
    v1.get_variable("b", [2])
    v1.get_variable("c", [2], trainable=False, collections=["mine"])
    v1.get_variable("d", [2], collections=[v1.GraphKeys.GLOBAL_VARIABLES, "mine"])

    def names(variables):
        return [v.name for v in variables]

    assert names(v1.global_variables()) == ["b:0", "d:0"]
    assert names(v1.local_variables()) == ["a:0"]
    assert names(v1.trainable_variables()) == ["a:0", "b:0", "d:0"]
    assert names(v1.get_collection("mine")) == ["c:0", "d:0"]
    with v1.variable_scope("s"):
        v1.get_variable("e", [1], collections=[v1.GraphKeys.LOCAL_VARIABLES])
    assert names(v1.local_variables("s/")) == ["s/e:0"]
    v1.reset_default_graph()
