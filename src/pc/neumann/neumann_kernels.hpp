/*
   neumann_kernels.hpp - kernels of the truncated Neumann series preconditioner (PCNEUMANN).

   Split A = L + D + U (strictly lower, diagonal, strictly upper parts of a square CSR matrix). With the
   prescaled factors B = L D^-1 and Bt = D^-1 U the preconditioner is

      z = M^-1 r = Kt D^-1 K r,   K = sum_{j=0..k} (-B)^j,   Kt = sum_{j=0..k} (-Bt)^j,

   applied in Horner form (no triangular solves): t <- r; k times t <- r - B t; s <- D^-1 t; z <- s; k times
   z <- s - Bt z. The application runs 2k fused kernels and no copies: the first K step reads r as t, the last K step
   writes s = D^-1 (r - B t) directly, the first K^T step reads s as z. B and Bt are applied in SELL-C-32 layout
   (one thread per row, coalesced loads of the C rows of a slice). For a symmetric A, Bt = B^T and M^-1 = K^T D^-1 K is symmetric positive definite for every k
   (K is unit lower triangular). Everything here takes Kokkos views; nothing here knows about PETSc objects.
*/
#pragma once

#include "kp_sparse.hpp"

namespace petsckp
{
namespace neumann
{
struct Factors {
  Int          n = 0;
  CsrMatrix    B;    /* L D^-1: strictly lower part, column-scaled */
  CsrMatrix    Bt;   /* D^-1 U: strictly upper part, row-scaled */
  SellMatrix   Bs;   /* B in SELL-C-32 (the layout the application reads) */
  SellMatrix   Bts;  /* Bt in SELL-C-32 */
  View<Scalar> dinv; /* D^-1 */
};

/* Result of the setup checks: the first (smallest) local row whose diagonal is not positive (or absent), the
   first row holding a NaN/Inf value, -1 when none; the infinity norm of L D^-1 (the paper's series criterion). */
struct SetupInfo {
  Int  bad_diag_row = -1;
  Int  nonfinite_row = -1;
  Real diag_value   = 0; /* the diagonal value at bad_diag_row */
  Real norm_BInf    = 0;
};

/* builds B, Bt and D^-1 from a square CSR matrix (the rank-local diagonal block under MPI) */
void Setup(const CsrMatrix &A, Factors &F, SetupInfo &info);


/* the depth of the strictly lower triangular matrix B = L D^-1: the length of the longest chain i_0 > i_1 > ... > i_d
   with B(i_{l-1}, i_l) stored (0 when B has no entry), computed on the host from the structure. B^j = 0 for j > d, so
   the series K = sum_{j<=k} (-B)^j equals (I + B)^-1 for every k >= d, and the preconditioner is then exactly
   symmetric Gauss-Seidel; d <= n - 1, and d = 2 m - 2 for the 5-point stencil on an m x m grid in lexicographic order. */
Int SeriesDepth(const CsrMatrix &B);

/* z = Kt D^-1 K r with k terms; w1 and w2 are work views of length n (z, w1, w2 distinct; r may not alias them) */
void Apply(const Factors &F, Int k, UView<const Scalar> r, UView<Scalar> z, UView<Scalar> w1, UView<Scalar> w2);

/* the two halves, for symmetric application: y = D^-1/2 K r (left), z = Kt D^-1/2 y (right) */
void ApplyLeft(const Factors &F, Int k, UView<const Scalar> r, UView<Scalar> y, UView<Scalar> w1, UView<Scalar> w2);
void ApplyRight(const Factors &F, Int k, UView<const Scalar> y, UView<Scalar> z, UView<Scalar> w1, UView<Scalar> w2);
} // namespace neumann
} // namespace petsckp
