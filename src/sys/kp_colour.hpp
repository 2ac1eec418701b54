/*
   kp_colour.hpp - graph colouring on the device for multicolour (Gauss-Seidel type) smoothers.

   - GraphSymmetrize: the structure of A + A^T without the diagonal (sorted, no duplicates), for matrices whose
     pattern is not symmetric. The colouring needs a symmetric structure.
   - GraphColour: Jones-Plassmann colouring with first-fit colour choice. Vertex weights are a deterministic hash
     of the vertex number (ties broken by the number), and every round runs in two kernels (select the local
     maxima, then colour them), so the result does not depend on thread scheduling or on the backend: the same
     colours on CUDA and on the host.
   - GraphColourCheck: the number of violations (neighbours of equal colour, colours out of range), of a graph or of
     the local rows of a distributed matrix (local and ghost block).
   - ColourPartition: the rows grouped by colour (ascending row number inside a colour) with offsets on the
     device and on the host, what a multicolour smoother loops over.
   - StructuredColour: the closed-form colouring of a DMDA index space (star stencil: (i+j+k) mod (s+1),
     box stencil: the parity-type product (i mod (s+1)) + (s+1)(j mod (s+1)) + (s+1)^2 (k mod (s+1))), computed
     from global indices so that it is consistent across MPI ranks.

   Everything takes Kokkos views; nothing here knows about PETSc objects. Self loops (the diagonal) are ignored.
*/
#pragma once

#include "kp_sparse.hpp"

namespace petsckp
{
/* adjacency structure of a graph with n vertices (CSR without values) */
struct CsrGraph {
  Int           n = 0, nnz = 0;
  View<Int>     rowptr; /* n + 1 */
  View<Ordinal> colidx; /* nnz */
};

/* G = structure of A + A^T without the diagonal; rows sorted, no duplicates. A is n x n (columns >= n or < 0 are
   ignored, so the local diagonal block of a rank works directly). */
void GraphSymmetrize(Int n, UView<const Int> rowptr, UView<const Ordinal> colidx, CsrGraph &G);
void GraphSymmetrize(const CsrMatrix &A, CsrGraph &G);

/* Jones-Plassmann colouring of the (symmetric) structure rowptr/colidx of n vertices: colour(i) in [0, ncolours).
   Returns ncolours (0 when n == 0). Columns outside [0, n) and self loops are ignored. seed changes the vertex
   weights (any value gives a valid colouring). If the structure is not symmetric, call GraphSymmetrize first:
   the result of a non-symmetric structure may have conflicts (GraphColourCheck finds them). */
Int GraphColour(Int n, UView<const Int> rowptr, UView<const Ordinal> colidx, UView<Int> colour, unsigned seed = 0);
Int GraphColour(const CsrGraph &G, UView<Int> colour, unsigned seed = 0);

/* number of violations: entries (i,j), j != i, 0 <= j < n, with colour(i) == colour(j), plus vertices whose
   colour is outside [0, ncolours). 0 means a valid colouring of this structure. */
Int GraphColourCheck(Int n, UView<const Int> rowptr, UView<const Ordinal> colidx, UView<const Int> colour, Int ncolours);

/* the same count for the local rows of a matrix distributed by rows, split as a PETSc MPIAIJ matrix is: the local
   block Ad (columns numbered locally) and the ghost block Ao (columns numbering the ghost values, Ao.nrows == 0 when
   sequential), whose colours ghostcolour holds as scalars (what a ghost exchange of a vector of colours delivers).
   Only nonzero entries couple: an explicit zero (kept by a Galerkin product) is not a violation. */
Int GraphColourCheck(const CsrMatrix &Ad, const CsrMatrix &Ao, UView<const Int> colour, UView<const Scalar> ghostcolour, Int ncolours);
/* s = colour as scalars (the values of a vector whose ghost exchange gives the ghostcolour of GraphColourCheck) */
void ColourScalars(UView<const Int> colour, UView<Scalar> s);

/* rows grouped by colour: rows(offsets(c) .. offsets(c+1)-1) are the rows of colour c in ascending order */
struct ColourPartition {
  Int          n = 0, ncolours = 0;
  View<Int>    offsets;  /* ncolours + 1, device */
  View<Int>    rows;     /* n, device */
  HostView<Int> hoffsets; /* ncolours + 1, host copy (loop bounds of per-colour kernel launches) */
};

/* builds the partition (deterministic stable counting sort); returns the number of rows whose colour is outside
   [0, ncolours) (they are left out of the partition; 0 means success) */
Int ColourPartitionCreate(Int n, UView<const Int> colour, Int ncolours, ColourPartition &P);

/* Structured colouring of a DMDA-like index space.
   dim 1, 2 or 3; s = stencil width >= 1; box = true for a box stencil (all |di|,|dj|,|dk| <= s), false for a star
   stencil (one nonzero offset of size <= s). Number of colours: star s+1, box (s+1)^dim. */
KOKKOS_INLINE_FUNCTION Int StructuredColourOf(Int i, Int j, Int k, int dim, Int s, bool box)
{
  const Int q = s + 1;
  if (!box) return (i + (dim > 1 ? j : 0) + (dim > 2 ? k : 0)) % q;
  return i % q + (dim > 1 ? q * (j % q) : 0) + (dim > 2 ? q * q * (k % q) : 0);
}
Int StructuredColourCount(int dim, Int s, bool box);

/* colours of the local box [xs, xs+xm) x [ys, ys+ym) x [zs, zs+zm) (global indices, as DMDAGetCorners gives them)
   in natural local order (i fastest): colour(i-xs + xm*((j-ys) + ym*(k-zs))). For dim < 3 pass zs = 0, zm = 1
   (and ys = 0, ym = 1 for dim 1). Returns the number of colours.
   Valid for any non-periodic grid; in a periodic direction the global extent must be a multiple of s+1
   (StructuredColourPeriodicOK tells). */
Int StructuredColour(int dim, Int s, bool box, Int xs, Int ys, Int zs, Int xm, Int ym, Int zm, UView<Int> colour);
bool StructuredColourPeriodicOK(Int s, Int M, bool periodic);
/* One colour of a (projected) SOR sweep on a coloured matrix, e.g. the coloured Gauss-Seidel smoothers of the
   multigrids: for every row i in rows (all of one colour, mutually uncoupled),
     s   = b_i - sum_{j != i} Ad_ij x_j - sum_k Ao_ik g_k
     x_i = clamp((1 - omega) x_i + omega s / Ad_ii, lo_i, up_i)
   Ad is the local (diagonal) block, Ao the off-process block acting on the ghost values g (Ao.nrows == 0 when
   sequential); lo / up empty = unbounded. Rows with a zero diagonal are left unchanged. */
void ColourSweep(const CsrMatrix &Ad, const CsrMatrix &Ao, UView<const Int> rows, Real omega, UView<const Scalar> b, UView<const Scalar> g, UView<const Scalar> lo, UView<const Scalar> up, UView<Scalar> x);

/* The row update of ColourSweep, for kernels that sweep in their own launch (e.g. one team over the coarsest grid):
   s -= sum_{j != i} Ad_ij x_j over the local row i, returning Ad_ii (duplicate entries summed) */
template <class RP, class CI, class VA, class XV>
KOKKOS_INLINE_FUNCTION Scalar SorRowSum(const RP &rp, const CI &ci, const VA &va, Int i, const XV &x, Scalar &s)
{
  Scalar diag = 0;
  for (Int k = rp(i); k < rp(i + 1); k++) {
    const Int j = ci(k);
    if (j == i) diag += va(k);
    else s -= va(k) * x(j);
  }
  return diag;
}
/* x_i = clamp((1 - omega) x_i + omega s / diag, lo, up) (a bound applies when its have flag is set; diag != 0) */
KOKKOS_INLINE_FUNCTION Scalar SorRowUpdate(Scalar xi, Scalar s, Scalar diag, Real omega, bool havelo, Scalar lo, bool haveup, Scalar up)
{
  Scalar v = (1 - omega) * xi + omega * s / diag;
  if (havelo) v = v > lo ? v : lo; /* compat::fmax */
  if (haveup) v = v < up ? v : up; /* compat::fmin */
  return v;
}

} // namespace petsckp
