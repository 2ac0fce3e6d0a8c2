"""tf.linalg and tf.matmul, tf.tensordot, tf.einsum over torch.

TensorFlow 2.15's names, argument names and defaults; matrices are the two
innermost dimensions and the leading ones are batch dimensions (broadcast in
`matmul` and `solve`'s right-hand side as TF does). Operands must share a dtype
(TF does not promote). Shape mismatches raise `tf.errors.InvalidArgumentError`
naming both shapes; a singular matrix given to `inv`/`solve` raises it too, as
TF does on CPU.

Where TF's result order or form differs from torch's, TF's is kept:
`svd` returns `(s, u, v)` with `a = u @ diag(s) @ adjoint(v)`; `slogdet`
returns `LogMatrixDeterminant(sign, log_abs_determinant)`; `qr` returns
`Qr(q, r)`; `lu` returns `Lu(lu, p)` with `p` a permutation vector.
"""

from torchestimator._ops._home import keep_home as _keep_home
from torchestimator._ops.linalg_ops._common import (
    _EIGHT_BIT,
    _FLOATING,
    Tensor,
    _floating,
    _matrix,
    _mT,
    _not_invertible,
    _numeric,
    _pair,
)
from torchestimator._ops.linalg_ops._decompositions import (
    LogMatrixDeterminant,
    Lu,
    Qr,
    cholesky,
    cholesky_solve,
    det,
    eig,
    eigh,
    eigvals,
    eigvalsh,
    expm,
    inv,
    logdet,
    lstsq,
    lu,
    matrix_rank,
    pinv,
    qr,
    slogdet,
    solve,
    svd,
    triangular_solve,
)
from torchestimator._ops.linalg_ops._norms import (
    _MATRIX_ORDS,
    _VECTOR_ORDS,
    _is_ord,
    l2_normalize,
    norm,
    normalize,
)
from torchestimator._ops.linalg_ops._products import cross, einsum, matmul, matvec, tensordot
from torchestimator._ops.linalg_ops._structure import (
    _align,
    _band_index,
    _diag_offsets,
    _k_range,
    _max_len,
    adjoint,
    band_part,
    diag,
    diag_part,
    matrix_transpose,
    set_diag,
    tensor_diag,
    tensor_diag_part,
    trace,
)

__all__ = ["eig", "eigvals", "einsum", "matmul", "norm", "tensordot"]


_keep_home(globals(), __name__)
