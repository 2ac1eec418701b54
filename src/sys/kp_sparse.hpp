/*
   kp_sparse.hpp - device sparse matrices of the shared layer (CSR and sliced ELLPACK) and their kernels.

   Everything here takes and returns Kokkos views; nothing here knows about PETSc objects.

   SELL-C (sliced ELLPACK, C = 32): rows are grouped in slices of C consecutive rows; a slice stores
   width(slice) = max row length entries per row, column-major inside the slice, so that the C threads of a
   warp read consecutive addresses. Padding entries have column -1. Column indices are 32-bit.
*/
#pragma once

#include "kp_kokkos.hpp"
#include <string>

namespace petsckp
{
using Ordinal = int; /* 32-bit local column indices in device formats */

struct CsrMatrix {
  Int           nrows = 0, ncols = 0, nnz = 0;
  View<Int>     rowptr; /* nrows + 1 */
  View<Ordinal> colidx; /* nnz */
  View<Scalar>  vals;   /* nnz */
};

struct SellMatrix {
  static constexpr Int C = 32;
  Int                  nrows = 0, ncols = 0, nnz = 0, nslices = 0, stored = 0;
  View<Int>            sliceptr; /* nslices + 1: offset of each slice in colidx/vals */
  View<Ordinal>        colidx;   /* stored */
  View<Scalar>         vals;     /* stored */
  View<Int>            csr2sell; /* nnz: position in vals of each CSR entry, for value refresh */
};

/* CSR from row pointers, column indices and values given as views in our memory space (copied) */
void CsrFromArrays(Int nrows, Int ncols, UView<const Int> rowptr, UView<const Int> colidx, UView<const Scalar> vals, CsrMatrix &A);
/* copy new values (same pattern) */
void CsrUpdateValues(CsrMatrix &A, UView<const Scalar> vals);
/* SELL-C from a CSR matrix; keeps the map for value refresh */
void SellFromCsr(const CsrMatrix &A, SellMatrix &S);
/* refresh SELL values from CSR-ordered values */
void SellUpdateValues(SellMatrix &S, UView<const Scalar> csrvals);

/* M = an nrows x ncols CSR matrix over the given row pointer (nrows + 1 entries, exclusive scan of the row lengths) with
   nnz entries: colidx and vals are allocated uninitialised, for the caller's fill kernel; label names the views */
void CsrAllocate(CsrMatrix &M, Int nrows, Int ncols, View<Int> rowptr, Int nnz, const std::string &label);

/* y = alpha A x + beta y; when beta == 0, y is not read (may hold NaN) */
void Spmv(const CsrMatrix &A, Scalar alpha, UView<const Scalar> x, Scalar beta, UView<Scalar> y);
void Spmv(const SellMatrix &A, Scalar alpha, UView<const Scalar> x, Scalar beta, UView<Scalar> y);

/* y = alpha A x + beta y with one team per row (a reduction over the row inside the team): for matrices with few,
   long rows, e.g. the transposed deflation space Z^T (d rows of N/d entries); when beta == 0, y is not read */
void SpmvTeam(const CsrMatrix &A, Scalar alpha, UView<const Scalar> x, Scalar beta, UView<Scalar> y);

/* the diagonal of a square CSR matrix (0 where absent) */
void CsrDiagonal(const CsrMatrix &A, UView<Scalar> d);
/* the smallest row of A (any shape, e.g. the off-process block of a rank) holding a NaN or Inf value; -1 if none */
Int CsrFirstNonFiniteRow(const CsrMatrix &A);

/* At = A^T (A.ncols x A.nrows) on the device, for row-wise (atomic-free) products with A^T; explicit zeros are kept.
   sorted (default): ascending column indices in every row, deterministic (the entries of a row of At are ordered by
   their row in A, whatever the order of the atomic fill; one thread sorts a row, so keep it for short rows such as
   R = P^T). sorted = false: the entries of a row come in the order of the atomic fill, which may depend on thread
   scheduling on the GPU (for few, long rows such as the transposed deflation space Z^T, where sorting a row of N/d
   entries in one thread would dominate the setup). */
void CsrTranspose(const CsrMatrix &A, CsrMatrix &At, bool sorted = true);
/* the sorted transpose with perm(q) = the entry of A that entry q of At copies (At.vals(q) = A.vals(perm(q))): the
   numeric phase of a transpose whose pattern stays is GatherValues(A.vals, perm, At.vals) (kp_galerkin) */
void CsrTranspose(const CsrMatrix &A, CsrMatrix &At, View<Int> &perm);
/* A.vals(k) = left(i) * vals0(k) * right(j) for entry k = (i, j) of A, like MatDiagonalScale() but from kept values
   vals0 (A.nnz entries, not aliasing A.vals), so that a scaling by a 0/1 mask can be undone; an empty left / right
   view stands for ones. right has A.ncols entries (the ghost values for an off-process block). E.g. the truncation
   of the transfers at the active points of an obstacle problem: P with its rows, R = P^T with its columns scaled. */
void CsrScaleValues(const CsrMatrix &A, UView<const Scalar> vals0, UView<const Scalar> left, UView<const Scalar> right);
/* The same for the rows that change only: the rows i with rowflag(i) != 0 (left scaling) or with an entry in a column
   j with colflag(j) != 0 (right scaling) are rewritten from vals0, the other rows keep their values (an empty flag
   view flags nothing on its side). One kernel, no host synchronisation: the refresh of truncated transfers after a
   few points of the mask changed (P with its changed rows, R = P^T with its changed columns). */
void CsrScaleValues(const CsrMatrix &A, UView<const Scalar> vals0, UView<const Scalar> left, UView<const Scalar> right, UView<const Int> rowflag, UView<const Int> colflag);
/* rowflag(i) = 1 when row i of M has an entry in a column j with colflag(j) != 0, or (self, for a square M) when
   colflag(i) != 0 itself; else 0. Returns the number of rows flagged. E.g. the rows of a product M B that change
   when the rows colflag of B change. */
Int CsrFlagRows(const CsrMatrix &M, UView<const Int> colflag, bool self, UView<Int> rowflag);
/* Checks of an operator that a smoother divides by its diagonal (local part): the smallest row of the local block Ad or of the ghost block Ao
   with a NaN or Inf entry, and the smallest row whose diagonal (the sum of its entries a_ii in Ad, 0 when absent)
   is not positive, with that diagonal; -1 where there is no such row. */
struct OperatorInfo {
  Int  nonfinite_row = -1, bad_diag_row = -1;
  Real diag_value    = 0;
};
OperatorInfo CsrCheckOperator(const CsrMatrix &Ad, const CsrMatrix &Ao);

} // namespace petsckp
