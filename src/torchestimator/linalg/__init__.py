"""`tf.linalg`: TensorFlow's linear algebra ops over torch.

Matrices are the two innermost dimensions; leading dimensions are batch
dimensions. `svd` returns TF's `(s, u, v)`, `slogdet` a
`LogMatrixDeterminant(sign, log_abs_determinant)`, `qr` a `Qr(q, r)`.
TF's `LinearOperator` family (matrix-free operators with structure-exploiting
matmul/solve/determinant) is provided with TF 2.15's signatures.
"""

from torchestimator._ops.array_ops import global_norm
from torchestimator._ops.creation import eye
from torchestimator._ops.linalg_ops import (
    adjoint,
    band_part,
    cholesky,
    cholesky_solve,
    cross,
    det,
    diag,
    diag_part,
    eig,
    eigh,
    eigvals,
    eigvalsh,
    einsum,
    expm,
    inv,
    l2_normalize,
    logdet,
    lstsq,
    lu,
    matmul,
    matrix_rank,
    matrix_transpose,
    matvec,
    norm,
    normalize,
    pinv,
    qr,
    set_diag,
    slogdet,
    solve,
    svd,
    tensor_diag,
    tensor_diag_part,
    tensordot,
    trace,
    triangular_solve,
)
from torchestimator.linalg import experimental
from torchestimator.linalg._linalg_functions import (
    banded_triangular_solve,
    eigh_tridiagonal,
    logm,
    lu_matrix_inverse,
    lu_reconstruct,
    lu_solve,
    sqrtm,
    tridiagonal_matmul,
    tridiagonal_solve,
)
from torchestimator.linalg._linear_operator import LinearOperator
from torchestimator.linalg._linear_operator_basic import (
    LinearOperatorDiag,
    LinearOperatorFullMatrix,
    LinearOperatorLowerTriangular,
)
from torchestimator.linalg._linear_operator_block import (
    LinearOperatorBlockDiag,
    LinearOperatorBlockLowerTriangular,
    LinearOperatorLowRankUpdate,
)
from torchestimator.linalg._linear_operator_composite import (
    LinearOperatorAdjoint,
    LinearOperatorComposition,
    LinearOperatorInversion,
    LinearOperatorKronecker,
)
from torchestimator.linalg._linear_operator_identity import (
    LinearOperatorIdentity,
    LinearOperatorScaledIdentity,
    LinearOperatorZeros,
)
from torchestimator.linalg._linear_operator_permutation import (
    LinearOperatorHouseholder,
    LinearOperatorPermutation,
)
from torchestimator.linalg._linear_operator_structured import (
    LinearOperatorCirculant,
    LinearOperatorCirculant2D,
    LinearOperatorCirculant3D,
    LinearOperatorToeplitz,
    LinearOperatorTridiag,
)

__all__ = [
    "LinearOperator",
    "LinearOperatorAdjoint",
    "LinearOperatorBlockDiag",
    "LinearOperatorBlockLowerTriangular",
    "LinearOperatorCirculant",
    "LinearOperatorCirculant2D",
    "LinearOperatorCirculant3D",
    "LinearOperatorComposition",
    "LinearOperatorDiag",
    "LinearOperatorFullMatrix",
    "LinearOperatorHouseholder",
    "LinearOperatorIdentity",
    "LinearOperatorInversion",
    "LinearOperatorKronecker",
    "LinearOperatorLowRankUpdate",
    "LinearOperatorLowerTriangular",
    "LinearOperatorPermutation",
    "LinearOperatorScaledIdentity",
    "LinearOperatorToeplitz",
    "LinearOperatorTridiag",
    "LinearOperatorZeros",
    "banded_triangular_solve",
    "eigh_tridiagonal",
    "experimental",
    "logm",
    "lu_matrix_inverse",
    "lu_reconstruct",
    "lu_solve",
    "sqrtm",
    "tridiagonal_matmul",
    "tridiagonal_solve",
    "adjoint",
    "band_part",
    "cholesky",
    "cholesky_solve",
    "cross",
    "det",
    "diag",
    "diag_part",
    "eig",
    "eigh",
    "eigvals",
    "eigvalsh",
    "einsum",
    "expm",
    "eye",
    "global_norm",
    "inv",
    "l2_normalize",
    "logdet",
    "lstsq",
    "lu",
    "matmul",
    "matrix_rank",
    "matrix_transpose",
    "matvec",
    "norm",
    "normalize",
    "pinv",
    "qr",
    "set_diag",
    "slogdet",
    "solve",
    "svd",
    "tensor_diag",
    "tensor_diag_part",
    "tensordot",
    "trace",
    "triangular_solve",
]

# Last: tf.linalg ops given symbolic Keras tensors record TFOpLambda layers (_ops/symbolic_dispatch.py)
from torchestimator._ops.symbolic_dispatch import wrap_namespace as _wrap_namespace  # noqa: E402

_wrap_namespace(globals(), "linalg")
