"""Signature differences from TF 2.15 kept on purpose (data area): key -> why."""

EXCEPTIONS: dict[str, str] = {
    "data.Dataset": "TF's constructor takes an internal graph `variant_tensor` users never pass; ours "
                    "takes the input datasets of a pipeline node, for the subclasses that build it.",
    "distribute.Strategy": "TF's base constructor takes an internal `StrategyExtended` users never build; "
                           "ours takes the cluster position and device its concrete strategies resolve.",
}
