"""`ReduceOp`: how values from several replicas are combined (`tf.distribute.ReduceOp`)."""

from __future__ import annotations

import enum


class ReduceOp(enum.Enum):
    """Indicates how a set of values should be reduced across replicas.

    `SUM`: add the values of all replicas. `MEAN`: add them and divide by the
    number of replicas (or, with `axis`, by the number of elements reduced).
    """

    SUM = "SUM"
    MEAN = "MEAN"

    @staticmethod
    def from_variable_aggregation(aggregation: object) -> ReduceOp:
        """The ReduceOp of a `tf.VariableAggregation` name ('sum', 'mean', ...)."""
        name = str(getattr(aggregation, "name", aggregation)).upper()
        if name == "SUM":
            return ReduceOp.SUM
        if name in ("MEAN", "ONLY_FIRST_REPLICA"):
            return ReduceOp.MEAN
        raise ValueError(
            f"Could not convert from `tf.VariableAggregation` {aggregation!r} to `tf.distribute.ReduceOp`; "
            "expected 'sum' or 'mean'."
        )
