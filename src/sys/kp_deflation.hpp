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
#include <petscmat.h>
#include <petscdm.h>
#include <vector>

namespace petsckp
{
/* ---- kernels (views only) */
/* Z of aggregates: row i has the single entry 1 in column agg(i) (none when agg(i) < 0) */
void AggregateZ(Int nlocal, Int d, View<Int> agg, CsrMatrix &Z);
/* AZ for aggregates: row i of A with each column j replaced by its aggregate (agg for the diagonal block,
   aggghost for the compressed columns of the off-diagonal block Aoff, which may have 0 rows), merged */
void AggregateAZ(const CsrMatrix &Aloc, const CsrMatrix &Aoff, View<Int> agg, View<Int> aggghost, Int d, CsrMatrix &AZ);
/* E (d x d column-major, zeroed first) = Z^T AZ over the local rows */
void GalerkinLocal(const CsrMatrix &Z, const CsrMatrix &AZ, Int d, UView<Scalar> E);
/* a (length d, zeroed first) = Z^T w over the local rows */
void RestrictLocal(const CsrMatrix &Z, UView<const Scalar> w, UView<Scalar> a);

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
  DenseSpd            E;       /* factor or inverse on the device */
  std::vector<Scalar> Ehost;   /* E = Z^T A Z, column-major, replicated (kept for views and tests) */
  View<Scalar>        a1, a2;  /* d-vectors on the device */
  std::vector<Scalar> hbuf;    /* staging for the MPI_Allreduce */
  PetscObjectState    Astate = -1;
  Mat                 Aref   = nullptr; /* not referenced; only compared */

  /* Z from global aggregate ids of the local rows (agg[i] in [0, d) or -1), AZ by the aggregation kernel */
  PetscErrorCode SetUpAggregates(Mat A, const Int agg[], Int d, DenseSpdForm form, Real rtol);
  /* Z from a user matrix (AIJ or dense, N x d), AZ = A Z by MatMatMult */
  PetscErrorCode SetUpUser(Mat A, Mat Zmat, DenseSpdForm form, Real rtol);
  /* a2 = E^-1 Z^T w */
  PetscErrorCode Coarse(Vec w);
  /* s = P w = w - AZ E^-1 Z^T w (s may be w) */
  PetscErrorCode ApplyP(Vec w, Vec s);
  /* x += Q r = Z E^-1 Z^T r */
  PetscErrorCode AddQ(Vec r, Vec x);
  /* the space as a PETSc AIJ matrix (N x d), e.g. for PCDeflationSetSpace() */
  PetscErrorCode CreateZMat(Mat A, Mat *Zmat);

private:
  PetscErrorCode FormCoarse(DenseSpdForm form, Real rtol);
};

/* global aggregate ids of the local rows of A: contiguous index ranges (the paper's stripes and planes: d chunks
   of about N/d rows). With a DMDA, ranges of the natural (lexicographic, x fastest) grid ordering, so that the
   space does not depend on the number of ranks; otherwise ranges of PETSc's global row numbering. */
PetscErrorCode DeflationChunkAggregates(Mat A, DM da, Int nchunks, std::vector<Int> &agg);
/* subdomain boxes of a DMDA: bx x by x bz boxes of the global grid (d = bx by bz) */
PetscErrorCode DeflationBlockAggregates(Mat A, DM da, const Int nb[3], std::vector<Int> &agg);
} // namespace petsckp
