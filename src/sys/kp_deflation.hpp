/*
   kp_deflation.hpp - deflation spaces of the shared layer, used by KSPDCG (DEF1) and by PCNEUMANN's two-level
   (A-DEF2) variant: one implementation.

   Z (N x d) is kept row-distributed as a local CSR with global column ids (0..d-1), AZ likewise; the coarse
   matrix E = Z^T A Z (d x d) is replicated on every rank, factored (Cholesky) or inverted once per operator
   change. Per application: a1 = Z^T w (device kernel + one MPI_Allreduce of d values), a2 = E^-1 a1 (device),
   then s = w - AZ a2 (deflation, P w) or x += Z a2 (correction, Q w).
*/
#pragma once

#include "kp_sparse.hpp"
#include "kp_dense.hpp"
#include "kp_kcycle.hpp" /* Sums4 */
#include <petscmat.h>
#include <petscdm.h>
#include <vector>

namespace petsckp
{
/* ---- kernels (views only) */
/* Z of aggregates: row i has the single entry 1 in column agg(i) (none when agg(i) < 0) */
void AggregateZ(Int nlocal, Int d, View<Int> agg, CsrMatrix &Z);
/* Zt = Z^T of AggregateZ's Z (d x nlocal): row J lists the rows i with agg(i) == J in ascending order, with the value
   1. A stable radix sort of the rows by aggregate (KeySortPairs): deterministic and parallel over the rows, where a
   general transpose of Z would fill its d long rows with atomics on d cursors and copy each row in one thread */
void AggregateZt(Int nlocal, Int d, View<Int> agg, CsrMatrix &Zt);
/* AZ for aggregates: row i of A with each column j replaced by its aggregate (agg for the diagonal block,
   aggghost for the compressed columns of the off-diagonal block Aoff, which may have 0 rows), merged */
void AggregateAZ(const CsrMatrix &Aloc, const CsrMatrix &Aoff, View<Int> agg, View<Int> aggghost, Int d, CsrMatrix &AZ);
/* E (d x d column-major, zeroed first) = Z^T AZ over the local rows */
void GalerkinLocal(const CsrMatrix &Z, const CsrMatrix &AZ, Int d, UView<Scalar> E);
/* a (length d, overwritten) = Z^T w over the local rows, given Zt = Z^T (d x nlocal, CsrTranspose()): one team per
   deflation vector reduces its row, no atomics (the old one-atomic-per-row restriction put N atomics on d addresses) */
void RestrictLocal(const CsrMatrix &Zt, UView<const Scalar> w, UView<Scalar> a);
/* a += alpha M^T w over the local rows, given Mt = M^T (d x nlocal, e.g. Z^T or (AZ)^T; a not zeroed) */
void RestrictLocalAdd(const CsrMatrix &Mt, Scalar alpha, UView<const Scalar> w, UView<Scalar> a);
/* a = Z^T w and s = Z^T r (both overwritten, length d) in one pass: one team per deflation vector reduces both rows */
void RestrictLocalPair(const CsrMatrix &Zt, UView<const Scalar> w, UView<const Scalar> r, UView<Scalar> a, UView<Scalar> s);
/* zz (length d, overwritten) = the squared norms of the columns of Z over the local rows, given Zt = Z^T */
void ColumnNorms2Local(const CsrMatrix &Zt, UView<Real> zz);

/* the grid of a DMDA as the aggregate kernels see it: global cells M x N x P (x fastest), dof unknowns per cell, the local
   box of xm x ym x zm cells at (xs, ys, zs); the unused directions of a 1D or 2D grid have size 1 */
struct DeflationGrid {
  Int dim = 1, M = 1, N = 1, P = 1, dof = 1, xs = 0, ys = 0, zs = 0, xm = 1, ym = 1, zm = 1;
};
/* agg(l) (nlocal = xm ym zm dof entries) = the box of the cell of local row l among b[0] x b[1] x b[2] boxes of the
   global grid: box (bi, bj, bk) = bi + b[0] (bj + b[1] bk), bi = floor(i b[0] / M) */
void BlockAggregates(const DeflationGrid &g, const Int b[3], UView<Int> agg);
/* agg(l) (nlocal entries) = the chunk of local row l among nchunks contiguous ranges: of the natural (lexicographic)
   numbering of the cells of grid g when given (floor(cell nchunks / cells)), else of the global rows rstart + l of M */
void ChunkAggregates(const DeflationGrid *g, Int rstart, Int M, Int nchunks, Int nlocal, UView<Int> agg);
/* v(i) = agg(i) as a scalar (exact below 2^53), for the ghost exchange of aggregate ids through a PETSc Vec */
void AggregatesToScalar(UView<const Int> agg, UView<Scalar> v);
/* agg(i) = v(i), the inverse of AggregatesToScalar() */
void AggregatesFromScalar(UView<const Scalar> v, UView<Int> agg);

/* ---- the deflation object (PETSc-facing) */
enum class DeflationSpaceType {
  None,
  Chunks,
  Blocks,
  User
};

class Deflation {
public:
  MPI_Comm            comm   = MPI_COMM_NULL;
  Int                 d      = 0, nlocal = 0;
  CsrMatrix           Z, AZ;
  CsrMatrix           Zt;      /* Z^T (d x nlocal): the restriction Z^T w row by row, without atomics */
  CsrMatrix           AZt;     /* (AZ)^T, built by PrepareResidualRestriction() for AddQResidual() only */
  bool                azt_ready = false;
  DenseSpd            E;       /* factor or inverse on the device */
  View<Scalar>        Edev;    /* E = Z^T A Z on the device, column-major, replicated (kept for the condition estimate and tests) */
  View<Scalar>        red;     /* 2 d: a1 and s1, contiguous, so that one copy takes both to the host under MPI */
  View<Scalar>        a1, a2;  /* d-vectors on the device (a1: the first half of red) */
  View<Scalar>        s1;      /* d: Z^T r of the second vector of RestrictPairSolve() (the drift of a deflated residual;
                                  the second half of red) */
  View<Real>          zw;      /* d: 1 / ||z_j||^2, so that sum_j zw_j (z_j^T r)^2 = ||Z (Z^T Z)^-1 Z^T r||^2 for disjoint
                                  aggregates (the part of r in range(Z)); an estimate for a general Z */
  Real                cond = 0; /* estimate of the 1-norm condition number of E (Hager's estimator of ||E^-1||_1) */
  std::vector<Scalar> hbuf;    /* staging for the MPI_Allreduce (2 d and the callers' extra sums) */
  View<Scalar>        keep;    /* 3 d: red and a2 kept by AddQKeepState() */
  PetscObjectState    Astate = -1;
  Mat                 Aref   = nullptr; /* not referenced; only compared */

  /* Z from global aggregate ids of the local rows (agg(i) in [0, d) or -1, on the device), AZ by the aggregation kernel,
     with the device copy of A shared with the other petsckp solvers of A */
  PetscErrorCode SetUpAggregates(Mat A, View<Int> agg, Int d, DenseSpdForm form, Real rtol);
  /* Z from a user matrix (AIJ or dense, N x d), AZ = A Z by MatMatMult */
  PetscErrorCode SetUpUser(Mat A, Mat Zmat, DenseSpdForm form, Real rtol);
  /* a2 = E^-1 Z^T w */
  PetscErrorCode Coarse(Vec w);
  /* a2 = E^-1 Z^T w and s1 = Z^T r with one restriction pass and one MPI_Allreduce of 2 d values */
  PetscErrorCode RestrictPairSolve(Vec w, Vec r);
  /* a1 <- sum over the ranks of the local a1 (and of s1 when pair), then a2 = E^-1 a1 */
  PetscErrorCode ReduceSolve(bool pair = false);
  /* a1 = Z^T w and s1 = Z^T r with one restriction pass (no coarse solve); with more than one rank the local a1 and s1
     and nextra more scalars at extra (device memory: the caller's local sums, e.g. inner products of the same
     iteration) are summed over the ranks in one MPI_Allreduce, in place */
  PetscErrorCode RestrictPairReduce(Vec w, Vec r, Scalar *extra, Int nextra);
  /* a2 = E^-1 a1 and, into out (device memory, no host synchronisation), {a1^T E^-1 a1, sum_j zw_j s1_j^2, 0, 0}:
     after RestrictPairReduce(A u, r) for a symmetric A, (u, A Z a2) = a1^T a2, and the drift sum of r */
  PetscErrorCode SolveDots(Kokkos::View<Sums4, MemSpace> out);
  /* s = P w = w - AZ E^-1 Z^T w (s may be w) */
  PetscErrorCode ApplyP(Vec w, Vec s);
  /* x += Q r = Z E^-1 Z^T r */
  PetscErrorCode AddQ(Vec r, Vec x);
  /* x += Z a2: the coarse correction with the last coarse solution (after ApplyP(r, .), x += Q r) */
  PetscErrorCode AddCoarse(Vec x);
  /* x += Q r, leaving the coarse vectors (red, a2) of an iteration in progress as they were: for a solution built
     in the middle of a solve (KSPBuildSolution() from a monitor) */
  PetscErrorCode AddQKeepState(Vec r, Vec x);
  /* y += Q (r - A y) = Z E^-1 (Z^T r - (AZ)^T y), with one reduction: the coarse correction of the two-level
     preconditioners (A-DEF2, BNN); (AZ)^T y = Z^T A y needs a symmetric A */
  PetscErrorCode AddQResidual(Vec r, Vec y);
  /* builds (AZ)^T for AddQResidual(); call at setup so that the first application does not pay for it */
  PetscErrorCode PrepareResidualRestriction();
  /* *rel = || Z^T (A y) - (AZ)^T y ||_inf / || Z^T (A y) ||_inf over all ranks (Ay = A y given): rounding for a
     symmetric A, O(1) for a nonsymmetric one, whose AddQResidual() is then not Z^T (r - A y); uses a1, s1 */
  PetscErrorCode ResidualRestrictionAsymmetry(Vec Ay, Vec y, PetscReal *rel);
  /* the space as a PETSc AIJ matrix (N x d), e.g. for PCDeflationSetSpace() */
  PetscErrorCode CreateZMat(Mat A, Mat *Zmat);

private:
  PetscErrorCode FormCoarse(DenseSpdForm form, Real rtol);
  PetscErrorCode EstimateCondition();
};

/* the choice of a deflation space, as the options of KSPDCG (-ksp_dcg_*) and PCNEUMANN (-pc_neumann_deflation_*) give it */
struct DeflationSpaceOptions {
  DeflationSpaceType type     = DeflationSpaceType::Chunks;
  bool               type_set = false; /* false: user Z if given, else blocks with a DMDA, else chunks */
  Int                subdomains = 0;   /* chunks: number of chunks (0: 2 ceil(sqrt(N)), at most 2048 and N) */
  Int                blocks[3]  = {0, 0, 0}; /* DMDA boxes per direction (0: min(8, n/4)) */
  DenseSpdForm       form       = DenseSpdForm::Cholesky;
  Real               pivot_rtol = 1e-13;
};

/* Builds the deflation of A (Z, AZ, E) as the options say (*defl = nullptr for type None); the one space builder
   of KSPDCG and PCNEUMANN. dm: the solver's DM, used when it is a DMDA whose grid matches A (NULL or any other DM:
   no grid); Zuser: the user's space (type User); prefix: the options prefix named in error messages ("-ksp_dcg",
   "-pc_neumann_deflation"). Returns the space built and, for blocks, the boxes per direction. A NaN or Inf entry of
   A is an error that names its row. The default number of chunks, 2 ceil(sqrt(N)), is clamped to N (an explicit
   opt.subdomains above N is an error). */
PetscErrorCode DeflationCreate(Mat A, DM dm, Mat Zuser, const DeflationSpaceOptions &opt, const char *prefix, Deflation **defl, DeflationSpaceType *built, Int built_blocks[3]);

/* global aggregate ids of the local rows of A, computed on the device: contiguous index ranges (the paper's stripes and
   planes: d chunks of about N/d rows). With a DMDA, ranges of the natural (lexicographic, x fastest) grid ordering, so
   that the space does not depend on the number of ranks; otherwise ranges of PETSc's global row numbering. */
PetscErrorCode DeflationChunkAggregates(Mat A, DM da, Int nchunks, View<Int> &agg);
/* subdomain boxes of a DMDA: bx x by x bz boxes of the global grid (d = bx by bz), computed on the device */
PetscErrorCode DeflationBlockAggregates(Mat A, DM da, const Int nb[3], View<Int> &agg);
} // namespace petsckp
