/*
   kp_deflation.cxx - deflation spaces (aggregates: chunks, DMDA blocks; user Z), the coarse matrix E = Z^T A Z
   and the projections, shared by KSPDCG and PCNEUMANN.
*/
#include "kp_deflation.hpp"
#include "kp_sys.hpp"
#include "kp_segsort.hpp"
#include <petscdmda.h>
#include <petsc/private/petscimpl.h>

namespace petsckp
{
void AggregateZ(Int nlocal, Int d, View<Int> agg, CsrMatrix &Z)
{
  Z.nrows  = nlocal;
  Z.ncols  = d;
  Z.rowptr = View<Int>("Z rowptr", nlocal + 1);
  auto rp  = Z.rowptr;
  Kokkos::parallel_for(
    "petsckp::AggregateZCount", range(nlocal), KOKKOS_LAMBDA(Int i) { rp(i + 1) = agg(i) >= 0 ? 1 : 0; });
  Kokkos::parallel_scan(
    "petsckp::AggregateZScan", range(nlocal + 1), KOKKOS_LAMBDA(Int i, Int & upd, const bool final) {
      upd += rp(i);
      if (final) rp(i) = upd;
    });
  Kokkos::View<Int, Kokkos::HostSpace> h("nnz");
  Kokkos::deep_copy(exec(), h, Kokkos::subview(rp, nlocal));
  exec().fence();
  Z.nnz    = h();
  Z.colidx = View<Ordinal>(std::string("Z colidx"), Z.nnz);
  Z.vals   = View<Scalar>(std::string("Z vals"), Z.nnz);
  auto zc  = Z.colidx;
  auto zv  = Z.vals;
  Kokkos::parallel_for(
    "petsckp::AggregateZFill", range(nlocal), KOKKOS_LAMBDA(Int i) {
      if (agg(i) >= 0) {
        zc(rp(i)) = (Ordinal)agg(i);
        zv(rp(i)) = 1.0;
      }
    });
}

void AggregateZt(Int nlocal, Int d, View<Int> agg, CsrMatrix &Zt)
{
  View<std::uint64_t> keys(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("Zt keys")), nlocal);
  View<Int>           rows(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("Zt rows")), nlocal);
  View<Int>           cnt(std::string("Zt counts"), d + 1);
  int                 bits = 0;
  /* rows in no aggregate get the key d: after every aggregate, left out below */
  Kokkos::parallel_for(
    "petsckp::AggregateZtKeys", range(nlocal), KOKKOS_LAMBDA(Int i) {
      const Int a = agg(i);
      keys(i)     = (std::uint64_t)(a >= 0 ? a : d);
      rows(i)     = i;
      if (a >= 0) Kokkos::atomic_add(&cnt(a), (Int)1);
    });
  while (bits < 63 && (std::uint64_t(d) >> bits) != 0) bits++;
  KeySortPairs(uv(keys), uv(rows), bits);
  const Int nnz = ExclusiveScan(cnt, d, "petsckp::AggregateZtScan");
  CsrAllocate(Zt, d, nlocal, cnt, nnz, "Zt");
  auto zc = Zt.colidx;
  auto zv = Zt.vals;
  Kokkos::parallel_for(
    "petsckp::AggregateZtFill", range(nnz), KOKKOS_LAMBDA(Int q) {
      zc(q) = (Ordinal)rows(q);
      zv(q) = 1.0;
    });
}

void AggregateAZ(const CsrMatrix &Aloc, const CsrMatrix &Aoff, View<Int> agg, View<Int> aggghost, Int d, CsrMatrix &AZ)
{
  const Int n   = Aloc.nrows;
  const bool off = Aoff.nrows > 0;
  auto      lrp = Aloc.rowptr, orp = Aoff.rowptr;
  auto      lci = Aloc.colidx, oci = Aoff.colidx;
  auto      lv  = Aloc.vals, ov = Aoff.vals;

  AZ.nrows  = n;
  AZ.ncols  = d;
  AZ.rowptr = View<Int>("AZ rowptr", n + 1);
  auto rp   = AZ.rowptr;
  /* entry q of row i (local entries first, then the off-diagonal block) and its aggregate */
  Kokkos::parallel_for(
    "petsckp::AggregateAZCount", range(n), KOKKOS_LAMBDA(Int i) {
      const Int nl = lrp(i + 1) - lrp(i), no = off ? orp(i + 1) - orp(i) : 0;
      Int       c  = 0;
      for (Int q = 0; q < nl + no; q++) {
        const Int a = q < nl ? agg(lci(lrp(i) + q)) : aggghost(oci(orp(i) + q - nl));
        if (a < 0) continue;
        bool seen = false;
        for (Int p = 0; p < q && !seen; p++) seen = (p < nl ? agg(lci(lrp(i) + p)) : aggghost(oci(orp(i) + p - nl))) == a;
        if (!seen) c++;
      }
      rp(i + 1) = c;
    });
  Kokkos::parallel_scan(
    "petsckp::AggregateAZScan", range(n + 1), KOKKOS_LAMBDA(Int i, Int & upd, const bool final) {
      upd += rp(i);
      if (final) rp(i) = upd;
    });
  Kokkos::View<Int, Kokkos::HostSpace> h("nnz");
  Kokkos::deep_copy(exec(), h, Kokkos::subview(rp, n));
  exec().fence();
  AZ.nnz    = h();
  AZ.colidx = View<Ordinal>(std::string("AZ colidx"), AZ.nnz);
  AZ.vals   = View<Scalar>(std::string("AZ vals"), AZ.nnz);
  auto zc   = AZ.colidx;
  auto zv   = AZ.vals;
  Kokkos::parallel_for(
    "petsckp::AggregateAZFill", range(n), KOKKOS_LAMBDA(Int i) {
      const Int nl = lrp(i + 1) - lrp(i), no = off ? orp(i + 1) - orp(i) : 0;
      const Int b  = rp(i);
      Int       c  = 0;
      for (Int q = 0; q < nl + no; q++) {
        const Int    a = q < nl ? agg(lci(lrp(i) + q)) : aggghost(oci(orp(i) + q - nl));
        const Scalar v = q < nl ? lv(lrp(i) + q) : ov(orp(i) + q - nl);
        if (a < 0) continue;
        Int p = 0;
        while (p < c && zc(b + p) != (Ordinal)a) p++;
        if (p == c) {
          zc(b + c) = (Ordinal)a;
          zv(b + c) = v;
          c++;
        } else zv(b + p) += v;
      }
    });
}

void GalerkinLocal(const CsrMatrix &Z, const CsrMatrix &AZ, Int d, UView<Scalar> E)
{
  auto zr = Z.rowptr, ar = AZ.rowptr;
  auto zc = Z.colidx, ac = AZ.colidx;
  auto zv = Z.vals, av = AZ.vals;
  Kokkos::deep_copy(exec(), E, 0.0);
  Kokkos::parallel_for(
    "petsckp::Galerkin", range(Z.nrows), KOKKOS_LAMBDA(Int i) {
      for (Int p = zr(i); p < zr(i + 1); p++)
        for (Int q = ar(i); q < ar(i + 1); q++) Kokkos::atomic_add(&E((Int)zc(p) + (Int)ac(q) * d), zv(p) * av(q));
    });
}

void RestrictLocalAdd(const CsrMatrix &Mt, Scalar alpha, UView<const Scalar> w, UView<Scalar> a)
{
  SpmvTeam(Mt, alpha, w, 1.0, a);
}

void RestrictLocal(const CsrMatrix &Zt, UView<const Scalar> w, UView<Scalar> a)
{
  if (Zt.nrows == 0) return;
  SpmvTeam(Zt, 1.0, w, 0.0, a);
}

void RestrictLocalPair(const CsrMatrix &Zt, UView<const Scalar> w, UView<const Scalar> r, UView<Scalar> a, UView<Scalar> s)
{
  using TP     = Kokkos::TeamPolicy<ExecSpace>;
  using Member = TP::member_type;
  auto rp      = Zt.rowptr;
  auto ci      = Zt.colidx;
  auto v       = Zt.vals;
  if (Zt.nrows == 0) return;
  auto f = KOKKOS_LAMBDA(const Member &t) {
    const Int j = t.league_rank();
    Sums4     sum; /* both sums in one pass: the column indices and values are read once */
    Kokkos::parallel_reduce(
      Kokkos::TeamThreadRange(t, rp(j), rp(j + 1)),
      [&](Int q, Sums4 &acc) {
        const Int    c  = ci(q);
        const Scalar vq = v(q);
        acc.v[0] += vq * w(c);
        acc.v[1] += vq * r(c);
      },
      Kokkos::Sum<Sums4>(sum));
    Kokkos::single(Kokkos::PerTeam(t), [&]() {
      a(j) = sum.v[0];
      s(j) = sum.v[1];
    });
  };
  /* a team of up to 512 threads per deflation vector: with 512 vectors (8x8x8 blocks) the default 128 kept a quarter of
     an H200's threads busy, and the gathers of a row were latency-bound */
  Kokkos::parallel_for("petsckp::RestrictLocalPair", TeamPolicyUpTo(f, Zt.nrows, 512), f);
}

void ColumnNorms2Local(const CsrMatrix &Zt, UView<Real> zz)
{
  auto rp = Zt.rowptr;
  auto v  = Zt.vals;
  Kokkos::parallel_for(
    "petsckp::ColumnNorms2", range(Zt.nrows), KOKKOS_LAMBDA(Int j) {
      Real sum = 0;
      for (Int q = rp(j); q < rp(j + 1); q++) sum += PetscRealPart(v(q) * PetscConj(v(q)));
      zz(j) = sum;
    });
}

void BlockAggregates(const DeflationGrid &g, const Int b[3], UView<Int> agg)
{
  const DeflationGrid G = g;
  const Int           b0 = b[0], b1 = b[1], b2 = b[2];
  const Int           n  = G.xm * G.ym * G.zm * G.dof;

  Kokkos::parallel_for(
    "petsckp::BlockAggregates", range(n), KOKKOS_LAMBDA(Int l) {
      const Int c = l / G.dof, i = G.xs + c % G.xm, j = G.ys + (c / G.xm) % G.ym, k = G.zs + c / (G.xm * G.ym);
      const Int bi = (Int)((int64_t)i * b0 / G.M), bj = (Int)((int64_t)j * b1 / G.N), bk = (Int)((int64_t)k * b2 / G.P);
      agg(l) = bi + b0 * (bj + b1 * bk);
    });
  (void)b2;
}

void ChunkAggregates(const DeflationGrid *g, Int rstart, Int M, Int nchunks, Int nlocal, UView<Int> agg)
{
  if (g) {
    const DeflationGrid G     = *g;
    const int64_t       ncell = (int64_t)G.M * G.N * G.P;
    Kokkos::parallel_for(
      "petsckp::ChunkAggregatesGrid", range(nlocal), KOKKOS_LAMBDA(Int l) {
        const Int     c  = l / G.dof, i = G.xs + c % G.xm, j = G.ys + (c / G.xm) % G.ym, k = G.zs + c / (G.xm * G.ym);
        const int64_t gc = i + (int64_t)G.M * (j + (int64_t)G.N * k);
        agg(l)           = (Int)(gc * nchunks / ncell);
      });
  } else
    Kokkos::parallel_for(
      "petsckp::ChunkAggregatesRows", range(nlocal), KOKKOS_LAMBDA(Int l) { agg(l) = (Int)(((int64_t)(rstart + l)) * nchunks / M); });
}

void AggregatesToScalar(UView<const Int> agg, UView<Scalar> v)
{
  Kokkos::parallel_for("petsckp::AggregatesToScalar", range((Int)agg.extent(0)), KOKKOS_LAMBDA(Int i) { v(i) = (Scalar)agg(i); });
}

void AggregatesFromScalar(UView<const Scalar> v, UView<Int> agg)
{
  Kokkos::parallel_for("petsckp::AggregatesFromScalar", range((Int)agg.extent(0)), KOKKOS_LAMBDA(Int i) { agg(i) = (Int)PetscRealPart(v(i)); });
}

/* device CSR from host arrays */
static void CsrFromHost(Int nrows, Int ncols, const std::vector<Int> &rp, const std::vector<Int> &ci, const std::vector<Scalar> &v, CsrMatrix &M)
{
  View<Int>    drp(std::string("h2d rowptr"), rp.size()), dci(std::string("h2d colidx"), ci.size());
  View<Scalar> dv(std::string("h2d vals"), v.size());
  Kokkos::deep_copy(exec(), drp, HostUView<const Int>(rp.data(), rp.size()));
  Kokkos::deep_copy(exec(), dci, HostUView<const Int>(ci.data(), ci.size()));
  Kokkos::deep_copy(exec(), dv, HostUView<const Scalar>(v.data(), v.size()));
  CsrFromArrays(nrows, ncols, UView<const Int>(drp.data(), drp.extent(0)), UView<const Int>(dci.data(), dci.extent(0)), UView<const Scalar>(dv.data(), dv.extent(0)), M);
  exec().fence();
}

/* the local rows of a parallel matrix (any type with MatGetRow) as host CSR with global columns, zeros dropped */
static PetscErrorCode LocalRowsToHost(Mat M, std::vector<Int> &rp, std::vector<Int> &ci, std::vector<Scalar> &v)
{
  PetscInt rs, re;

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(M, &rs, &re));
  rp.assign(1, 0);
  ci.clear();
  v.clear();
  for (PetscInt r = rs; r < re; r++) {
    PetscInt           nc;
    const PetscInt    *cols;
    const PetscScalar *vals;
    PetscCall(MatGetRow(M, r, &nc, &cols, &vals));
    for (PetscInt q = 0; q < nc; q++)
      if (vals[q] != 0.0) {
        ci.push_back(cols[q]);
        v.push_back(vals[q]);
      }
    PetscCall(MatRestoreRow(M, r, &nc, &cols, &vals));
    rp.push_back((Int)ci.size());
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* E = Z^T A Z = Z^T (AZ), its factor, the drift weights and the condition estimate, on the device: with one rank
   only d-vectors (the pivots, the condition estimator's iterates) come to the host; with several the local parts of
   E and of the column norms are summed through the host (MPI without device buffers) */
/* w(j) = 1 / w(j) where w(j) > 0, else 0 (a free function: CUDA's extended lambdas may not sit in a private member) */
static void InvertPositive(View<Real> w, Int d)
{
  Kokkos::parallel_for(
    "petsckp::DeflationWeights", range(d), KOKKOS_LAMBDA(Int j) { w(j) = w(j) > 0 ? 1.0 / w(j) : 0.0; });
}

PetscErrorCode Deflation::FormCoarse(DenseSpdForm form, Real rtol)
{
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(PETSCKP_DeflCoarse, 0, 0, 0, 0));
  PetscCallCXX(AZt = CsrMatrix());
  azt_ready = false;
  PetscCheck((double)d * d * sizeof(Scalar) <= 4.0e9, comm, PETSC_ERR_SUP, "%" PetscInt_FMT " deflation vectors give a dense coarse matrix of %g GB; use fewer vectors (larger chunks or blocks)", d, (double)d * d * sizeof(Scalar) / 1e9);
  PetscCallCXX(Edev = View<Scalar>(std::string("E"), (size_t)d * d));
  PetscCallCXX(GalerkinLocal(Z, AZ, d, UView<Scalar>(Edev.data(), Edev.extent(0))));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  if (size > 1) {
    std::vector<Scalar> h((size_t)d * d);
    PetscMPIInt         cnt;
    PetscCall(PetscMPIIntCast((PetscInt)h.size(), &cnt));
    PetscCallCXX(Kokkos::deep_copy(exec(), HostUView<Scalar>(h.data(), h.size()), Edev));
    PetscCallCXX(exec().fence());
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, h.data(), cnt, MPIU_SCALAR, MPIU_SUM, comm));
    PetscCallCXX(Kokkos::deep_copy(exec(), Edev, HostUView<const Scalar>(h.data(), h.size())));
  }
  /* symmetrise the round-off of the atomic sums (only where E is symmetric up to round-off) */
  {
    Real asym, emax;
    PetscCallCXX(asym = DenseAsymmetry(d, UView<const Scalar>(Edev.data(), Edev.extent(0)), &emax));
    if (asym <= 1e-13 * emax) PetscCallCXX(DenseSymmetrize(d, UView<Scalar>(Edev.data(), Edev.extent(0))));
  }
  PetscCall(DenseSpdSetUpDevice(comm, d, UView<const Scalar>(Edev.data(), Edev.extent(0)), form, rtol, E));
  PetscCallCXX(red = View<Scalar>(std::string("deflation a1, s1"), 2 * (size_t)d));
  PetscCallCXX(a1 = Kokkos::subview(red, Kokkos::make_pair((size_t)0, (size_t)d)));
  PetscCallCXX(s1 = Kokkos::subview(red, Kokkos::make_pair((size_t)d, 2 * (size_t)d)));
  PetscCallCXX(a2 = View<Scalar>(std::string("deflation a2"), d));
  PetscCallCXX(hbuf.resize(2 * (size_t)d));
  /* the weights 1 / ||z_j||^2 of the drift measure (a column of Z that is zero on every rank gave E_jj = 0 above) */
  PetscCallCXX(zw = View<Real>(std::string("deflation zw"), d));
  PetscCallCXX(ColumnNorms2Local(Zt, UView<Real>(zw.data(), d)));
  if (size > 1) {
    std::vector<Real> zz(d);
    PetscMPIInt       cnt;
    PetscCall(PetscMPIIntCast(d, &cnt));
    PetscCallCXX(Kokkos::deep_copy(exec(), HostUView<Real>(zz.data(), d), zw));
    PetscCallCXX(exec().fence());
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, zz.data(), cnt, MPIU_REAL, MPIU_SUM, comm));
    PetscCallCXX(Kokkos::deep_copy(exec(), zw, HostUView<const Real>(zz.data(), d)));
  }
  PetscCallCXX(InvertPositive(zw, d));
  PetscCall(EstimateCondition());
  PetscCallCXX(exec().fence());
  PetscCall(PetscLogEventEnd(PETSCKP_DeflCoarse, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = E^-1 x for host vectors, through the device solve (a1, a2 are free at setup) */
static PetscErrorCode ApplyCoarseHost(Deflation &D, const std::vector<Scalar> &x, std::vector<Scalar> &y)
{
  PetscFunctionBegin;
  PetscCallCXX(Kokkos::deep_copy(exec(), D.a1, HostUView<const Scalar>(x.data(), D.d)));
  PetscCallCXX(DenseSpdSolve(D.E, UView<const Scalar>(D.a1.data(), D.d), UView<Scalar>(D.a2.data(), D.d)));
  PetscCallCXX(Kokkos::deep_copy(exec(), HostUView<Scalar>(y.data(), D.d), D.a2));
  PetscCallCXX(exec().fence());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* cond_1(E) = ||E||_1 ||E^-1||_1, the second by Hager's estimator (W. W. Hager, "Condition estimates", SIAM J. Sci.
   Stat. Comput. 5 (1984), with N. J. Higham's extra step, "FORTRAN codes for estimating the one-norm of a real or
   complex matrix", ACM TOMS 14 (1988), as in LAPACK's xLACON), applying E^-1 with the coarse solve on the device
   (the solve the iteration uses). E^-1 is symmetric; for a nonsymmetric E the explicit inverse gives ||E^-1||_1. */
PetscErrorCode Deflation::EstimateCondition()
{
  std::vector<Scalar> x(d), y(d);
  Real                enorm = 0, inorm = 0;

  PetscFunctionBegin;
  cond = 0;
  if (d == 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallCXX(enorm = DenseNorm1(d, UView<const Scalar>(Edev.data(), Edev.extent(0))));
  if (!E.symmetric) {
    std::vector<Scalar> M((size_t)d * d);
    PetscCallCXX(Kokkos::deep_copy(exec(), HostUView<Scalar>(M.data(), M.size()), E.M));
    PetscCallCXX(exec().fence());
    for (Int j = 0; j < d; j++) {
      Real c = 0;
      for (Int i = 0; i < d; i++) c += PetscAbsScalar(M[i + (size_t)j * d]);
      inorm = PetscMax(inorm, c);
    }
  } else {
    /* y = E^-1 x through a1, a2 (free at setup) */
    Int jlast = -1;
    for (Int j = 0; j < d; j++) x[j] = 1.0 / d;
    for (int it = 0; it < 5; it++) {
      Real est = 0, zmax = -1, ztx = 0;
      Int  jmax = 0;
      PetscCall(ApplyCoarseHost(*this, x, y));
      for (Int j = 0; j < d; j++) est += PetscAbsScalar(y[j]);
      if (it > 0 && est <= inorm) break; /* no increase: converged */
      inorm = est;
      for (Int j = 0; j < d; j++) x[j] = PetscRealPart(y[j]) >= 0 ? 1.0 : -1.0; /* sign(y) */
      PetscCall(ApplyCoarseHost(*this, x, y)); /* z = E^-T sign(y) = E^-1 sign(y) */
      for (Int j = 0; j < d; j++) {
        if (PetscAbsScalar(y[j]) > zmax) zmax = PetscAbsScalar(y[j]), jmax = j;
        ztx += PetscRealPart(y[j]) * (jlast < 0 ? 1.0 / d : (j == jlast ? 1.0 : 0.0));
      }
      if (zmax <= ztx || jmax == jlast) break;
      jlast = jmax;
      for (Int j = 0; j < d; j++) x[j] = j == jmax ? 1.0 : 0.0;
    }
    /* Higham's extra step: x_j = (-1)^j (1 + j / (d - 1)) catches matrices on which the iteration stops early */
    for (Int j = 0; j < d; j++) x[j] = (j % 2 ? -1.0 : 1.0) * (1.0 + (d > 1 ? (Real)j / (d - 1) : 0.0));
    PetscCall(ApplyCoarseHost(*this, x, y));
    {
      Real alt = 0;
      for (Int j = 0; j < d; j++) alt += PetscAbsScalar(y[j]);
      inorm = PetscMax(inorm, 2.0 * alt / (3.0 * d));
    }
  }
  cond = enorm * inorm;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* an error naming the first row (global number) of A with a NaN or Inf entry, found by a device reduction over the
   local rows of the device copy of A */
static PetscErrorCode CheckFinite(Mat A, PetscKPDeviceMat dm)
{
  PetscInt rs, bad = PETSC_MAX_INT, allbad;
  Int      r0, r1;

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(A, &rs, NULL));
  PetscCallCXX(r0 = CsrFirstNonFiniteRow(DeviceMatLocalCsr(dm)));
  PetscCallCXX(r1 = dm->mpi ? CsrFirstNonFiniteRow(DeviceMatGhostCsr(dm)) : -1);
  if (r0 >= 0) bad = rs + r0;
  if (r1 >= 0) bad = PetscMin(bad, rs + r1);
  PetscCall(MPIU_Allreduce(&bad, &allbad, 1, MPIU_INT, MPI_MIN, PetscObjectComm((PetscObject)A)));
  PetscCheck(allbad == PETSC_MAX_INT, PetscObjectComm((PetscObject)A), PETSC_ERR_FP, "The matrix has a NaN or Inf entry in row %" PetscInt_FMT ": the coarse matrix E = Z^T A Z of the deflation cannot be formed; fix the matrix", allbad);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the aggregates of the ghost columns of the device matrix dm (those of the ranks owning them), exchanged through a
   Vec of A's type and the ghost scatter of dm (kept by dm for its later products) */
static PetscErrorCode GhostAggregatesOf(Mat A, PetscKPDeviceMat dm, View<Int> agg, View<Int> &aggghost)
{
  Vec       gv, lv;
  DeviceVec gvv, lvv;

  PetscFunctionBegin;
  PetscCallCXX(aggghost = View<Int>(std::string("agg ghost"), dm->nghost));
  if (!dm->mpi) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatCreateVecs(A, &gv, NULL));
  PetscCall(gvv.Get(gv, Access::Write));
  PetscCallCXX(AggregatesToScalar(UView<const Int>(agg.data(), agg.extent(0)), gvv.view()));
  PetscCall(gvv.Restore());
  PetscCall(DeviceMatGhostUpdate(dm, gv, &lv));
  PetscCall(lvv.Get(lv, Access::Read));
  PetscCallCXX(AggregatesFromScalar(lvv.cview(), UView<Int>(aggghost.data(), aggghost.extent(0))));
  PetscCall(lvv.Restore());
  PetscCall(VecDestroy(&gv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Deflation::SetUpAggregates(Mat A, View<Int> agg, Int nagg, DenseSpdForm form, Real rtol)
{
  PetscKPDeviceMat dm;
  View<Int>        dghost;
  CsrMatrix        empty;

  PetscFunctionBegin;
  comm = PetscObjectComm((PetscObject)A);
  d    = nagg;
  PetscCall(MatGetLocalSize(A, &nlocal, NULL));
  PetscCheck((Int)agg.extent(0) == nlocal, PETSC_COMM_SELF, PETSC_ERR_PLIB, "aggregates of %zu rows for %" PetscInt_FMT " local rows", (size_t)agg.extent(0), nlocal);
  PetscCall(DeviceMatGetShared(A, &dm));
  PetscCall(PetscLogEventBegin(PETSCKP_DeflSpace, A, 0, 0, 0));
  PetscCall(CheckFinite(A, dm));
  PetscCall(GhostAggregatesOf(A, dm, agg, dghost));
  PetscCallCXX(AggregateZ(nlocal, d, agg, Z));
  PetscCallCXX(AggregateAZ(DeviceMatLocalCsr(dm), dm->mpi ? dm->csr[1] : empty, agg, dghost, d, AZ));
  /* Z^T for the restrictions (rows of N/d entries, ascending); (AZ)^T only on demand */
  PetscCallCXX(AggregateZt(nlocal, d, agg, Zt));
  PetscCallCXX(exec().fence());
  PetscCall(PetscLogEventEnd(PETSCKP_DeflSpace, A, 0, 0, 0));
  PetscCall(PetscKPDeviceMatDestroy(&dm));
  PetscCall(FormCoarse(form, rtol));
  PetscCall(PetscObjectStateGet((PetscObject)A, &Astate));
  Aref = A;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Deflation::SetUpUser(Mat A, Mat Zmat, DenseSpdForm form, Real rtol)
{
  Mat                 AZm;
  PetscInt            m, M, zm, zM, zN;
  std::vector<Int>    rp, ci;
  std::vector<Scalar> v;

  PetscFunctionBegin;
  comm = PetscObjectComm((PetscObject)A);
  PetscCall(MatGetLocalSize(A, &m, NULL));
  PetscCall(MatGetSize(A, &M, NULL));
  PetscCall(MatGetLocalSize(Zmat, &zm, NULL));
  PetscCall(MatGetSize(Zmat, &zM, &zN));
  PetscCheck(zM == M && zm == m, comm, PETSC_ERR_ARG_SIZ, "The deflation space Z must have the rows of A (global %" PetscInt_FMT ", local %" PetscInt_FMT "), not %" PetscInt_FMT " (local %" PetscInt_FMT ")", M, m, zM, zm);
  nlocal = m;
  d      = zN;
  {
    PetscKPDeviceMat dm;
    PetscCall(DeviceMatGetShared(A, &dm));
    PetscCall(CheckFinite(A, dm));
    PetscCall(PetscKPDeviceMatDestroy(&dm));
  }
  PetscCall(LocalRowsToHost(Zmat, rp, ci, v));
  PetscCallCXX(CsrFromHost(m, d, rp, ci, v, Z));
  {
    /* A Z with Z of A's type: PETSc has no product of, e.g., an aijcusparse A with a host aij or dense Z */
    MatType   ta, tz;
    PetscBool same;
    Mat       Zc = Zmat;
    PetscCall(MatGetType(A, &ta));
    PetscCall(MatGetType(Zmat, &tz));
    PetscCall(PetscStrcmp(ta, tz, &same));
    if (!same) PetscCall(MatConvertCopy(Zmat, ta, &Zc));
    PetscCall(MatMatMult(A, Zc, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &AZm));
    if (!same) PetscCall(MatDestroy(&Zc));
  }
  PetscCall(LocalRowsToHost(AZm, rp, ci, v));
  PetscCall(MatDestroy(&AZm));
  PetscCallCXX(CsrFromHost(m, d, rp, ci, v, AZ));
  PetscCallCXX(CsrTranspose(Z, Zt, false));
  PetscCall(FormCoarse(form, rtol));
  PetscCall(PetscObjectStateGet((PetscObject)A, &Astate));
  Aref = A;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Deflation::Coarse(Vec w)
{
  DeviceVec wv;

  PetscFunctionBegin;
  PetscCall(wv.Get(w, Access::Read));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCallCXX(RestrictLocal(Zt, wv.cview(), UView<Scalar>(a1.data(), d)));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(wv.Restore());
  PetscCall(PetscLogFlops(2.0 * Z.nnz));
  PetscCall(ReduceSolve());
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Deflation::RestrictPairSolve(Vec w, Vec r)
{
  PetscFunctionBegin;
  PetscCall(RestrictPairReduce(w, r, nullptr, 0));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCallCXX(DenseSpdSolve(E, UView<const Scalar>(a1.data(), d), UView<Scalar>(a2.data(), d)));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogFlops(2.0 * d * d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Deflation::ReduceSolve(bool pair)
{
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  if (size > 1) {
    PetscMPIInt cnt;
    PetscCall(PetscMPIIntCast(pair ? 2 * d : d, &cnt));
    const Int len = pair ? 2 * d : d;
    PetscCallCXX(Kokkos::deep_copy(exec(), HostUView<Scalar>(hbuf.data(), len), UView<Scalar>(red.data(), len)));
    PetscCallCXX(exec().fence());
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, hbuf.data(), cnt, MPIU_SCALAR, MPIU_SUM, comm));
    PetscCallCXX(Kokkos::deep_copy(exec(), UView<Scalar>(red.data(), len), HostUView<const Scalar>(hbuf.data(), len)));
  }
  PetscCall(PetscLogGpuTimeBegin());
  PetscCallCXX(DenseSpdSolve(E, UView<const Scalar>(a1.data(), d), UView<Scalar>(a2.data(), d)));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogFlops(2.0 * d * d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Deflation::RestrictPairReduce(Vec w, Vec r, Scalar *extra, Int nextra)
{
  DeviceVec   wv, rv;
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCall(wv.Get(w, Access::Read));
  PetscCall(rv.Get(r, Access::Read));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCallCXX(RestrictLocalPair(Zt, wv.cview(), rv.cview(), UView<Scalar>(a1.data(), d), UView<Scalar>(s1.data(), d)));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(rv.Restore());
  PetscCall(wv.Restore());
  PetscCall(PetscLogFlops(4.0 * Z.nnz));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  if (size > 1) {
    const Int   len = 2 * d + nextra;
    PetscMPIInt cnt;
    PetscCall(PetscMPIIntCast(len, &cnt));
    if ((Int)hbuf.size() < len) PetscCallCXX(hbuf.resize(len));
    PetscCallCXX(Kokkos::deep_copy(exec(), HostUView<Scalar>(hbuf.data(), 2 * d), UView<Scalar>(red.data(), 2 * d)));
    if (nextra) PetscCallCXX(Kokkos::deep_copy(exec(), HostUView<Scalar>(hbuf.data() + 2 * d, nextra), UView<Scalar>(extra, nextra)));
    PetscCallCXX(exec().fence());
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, hbuf.data(), cnt, MPIU_SCALAR, MPIU_SUM, comm));
    PetscCallCXX(Kokkos::deep_copy(exec(), UView<Scalar>(red.data(), 2 * d), HostUView<const Scalar>(hbuf.data(), 2 * d)));
    if (nextra) PetscCallCXX(Kokkos::deep_copy(exec(), UView<Scalar>(extra, nextra), HostUView<const Scalar>(hbuf.data() + 2 * d, nextra)));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Deflation::SolveDots(Kokkos::View<Sums4, MemSpace> out)
{
  PetscFunctionBegin;
  PetscCall(PetscLogGpuTimeBegin());
  PetscCallCXX(DenseSpdSolveDots(E, UView<const Scalar>(a1.data(), d), UView<Scalar>(a2.data(), d), UView<const Scalar>(s1.data(), d), UView<const Real>(zw.data(), d), out));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogFlops(2.0 * d * d + 5.0 * d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Deflation::ApplyP(Vec w, Vec s)
{
  DeviceVec sv;

  PetscFunctionBegin;
  PetscCall(Coarse(w));
  if (s != w) PetscCall(VecCopy(w, s));
  PetscCall(sv.Get(s, Access::ReadWrite));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCallCXX(Spmv(AZ, -1.0, UView<const Scalar>(a2.data(), d), 1.0, sv.view()));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(sv.Restore());
  PetscCall(PetscLogFlops(2.0 * AZ.nnz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Deflation::AddQ(Vec r, Vec x)
{
  PetscFunctionBegin;
  PetscCall(Coarse(r));
  PetscCall(AddCoarse(x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Deflation::AddQKeepState(Vec r, Vec x)
{
  PetscFunctionBegin;
  if (keep.extent(0) != (size_t)(3 * d)) keep = View<Scalar>("deflation kept coarse vectors", 3 * d);
  PetscCallCXX(Kokkos::deep_copy(exec(), Kokkos::subview(keep, std::make_pair((Int)0, 2 * d)), red));
  PetscCallCXX(Kokkos::deep_copy(exec(), Kokkos::subview(keep, std::make_pair(2 * d, 3 * d)), a2));
  PetscCall(AddQ(r, x));
  PetscCallCXX(Kokkos::deep_copy(exec(), red, Kokkos::subview(keep, std::make_pair((Int)0, 2 * d))));
  PetscCallCXX(Kokkos::deep_copy(exec(), a2, Kokkos::subview(keep, std::make_pair(2 * d, 3 * d))));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Deflation::AddCoarse(Vec x)
{
  DeviceVec xv;

  PetscFunctionBegin;
  PetscCall(xv.Get(x, Access::ReadWrite));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCallCXX(Spmv(Z, 1.0, UView<const Scalar>(a2.data(), d), 1.0, xv.view()));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(xv.Restore());
  PetscCall(PetscLogFlops(2.0 * Z.nnz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Deflation::AddQResidual(Vec r, Vec y)
{
  DeviceVec rv, yv;

  PetscFunctionBegin;
  PetscCall(rv.Get(r, Access::Read));
  PetscCall(yv.Get(y, Access::ReadWrite));
  PetscCall(PrepareResidualRestriction());
  PetscCall(PetscLogGpuTimeBegin());
  PetscCallCXX(RestrictLocal(Zt, rv.cview(), UView<Scalar>(a1.data(), d)));
  PetscCallCXX(RestrictLocalAdd(AZt, -1.0, yv.cview(), UView<Scalar>(a1.data(), d)));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(rv.Restore());
  PetscCall(PetscLogFlops(2.0 * (Z.nnz + AZ.nnz)));
  PetscCall(ReduceSolve());
  PetscCall(PetscLogGpuTimeBegin());
  PetscCallCXX(Spmv(Z, 1.0, UView<const Scalar>(a2.data(), d), 1.0, yv.view()));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(yv.Restore());
  PetscCall(PetscLogFlops(2.0 * Z.nnz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Deflation::ResidualRestrictionAsymmetry(Vec Ay, Vec y, PetscReal *rel)
{
  DeviceVec av, yv;
  PetscReal m[2] = {0, 0};

  PetscFunctionBegin;
  PetscCall(PrepareResidualRestriction());
  PetscCall(av.Get(Ay, Access::Read));
  PetscCall(yv.Get(y, Access::Read));
  PetscCallCXX(RestrictLocal(Zt, av.cview(), UView<Scalar>(a1.data(), d)));
  PetscCallCXX(RestrictLocal(AZt, yv.cview(), UView<Scalar>(s1.data(), d)));
  PetscCall(av.Restore());
  PetscCall(yv.Restore());
  PetscCall(ReduceSolve(true)); /* a1 and s1 summed over the ranks (and a coarse solve, not used) */
  PetscCallCXX(Kokkos::deep_copy(exec(), HostUView<Scalar>(hbuf.data(), 2 * d), UView<Scalar>(red.data(), 2 * d)));
  PetscCallCXX(exec().fence());
  for (Int j = 0; j < d; j++) {
    m[0] = PetscMax(m[0], PetscAbsScalar(hbuf[j] - hbuf[d + j]));
    m[1] = PetscMax(m[1], PetscAbsScalar(hbuf[j]));
  }
  *rel = m[1] > 0 ? m[0] / m[1] : m[0];
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Deflation::PrepareResidualRestriction()
{
  PetscFunctionBegin;
  if (azt_ready) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallCXX(CsrTranspose(AZ, AZt, false));
  azt_ready = true;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Deflation::CreateZMat(Mat A, Mat *Zmat)
{
  PetscInt   rs;
  const auto hrp = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), Z.rowptr);
  const auto hci = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), Z.colidx);
  const auto hv  = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), Z.vals);

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(A, &rs, NULL));
  PetscCall(MatCreateAIJ(comm, nlocal, PETSC_DECIDE, PETSC_DETERMINE, d, 8, NULL, 8, NULL, Zmat));
  PetscCall(MatSetOption(*Zmat, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  for (Int i = 0; i < nlocal; i++)
    for (Int p = hrp(i); p < hrp(i + 1); p++) {
      PetscInt r = rs + i, c = hci(p);
      PetscCall(MatSetValue(*Zmat, r, c, hv(p), INSERT_VALUES));
    }
  PetscCall(MatAssemblyBegin(*Zmat, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*Zmat, MAT_FINAL_ASSEMBLY));
  {
    /* give Z the type of A (e.g. aijcusparse), so that products with A (PCDEFLATION's Z^T A Z) are supported */
    MatType   ta, tz;
    PetscBool same, sameclass;
    PetscCall(MatGetType(A, &ta));
    PetscCall(MatGetType(*Zmat, &tz));
    PetscCall(PetscStrcmp(ta, tz, &same));
    PetscCall(PetscStrncmp(ta, tz, 3, &sameclass)); /* both seq or both mpi */
    if (!same && sameclass) PetscCall(MatConvert(*Zmat, ta, MAT_INPLACE_MATRIX, Zmat));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the grid of a DMDA for the aggregate kernels */
static PetscErrorCode GetDAShape(DM da, DeflationGrid &s)
{
  PetscInt dim, M, N, P, dof, xs, ys, zs, xm, ym, zm;

  PetscFunctionBegin;
  PetscCall(DMDAGetInfo(da, &dim, &M, &N, &P, NULL, NULL, NULL, &dof, NULL, NULL, NULL, NULL, NULL));
  PetscCall(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
  if (dim < 3) P = 1, zs = 0, zm = 1;
  if (dim < 2) N = 1, ys = 0, ym = 1;
  s.dim = dim, s.M = M, s.N = N, s.P = P, s.dof = dof, s.xs = xs, s.ys = ys, s.zs = zs, s.xm = xm, s.ym = ym, s.zm = zm;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DeflationChunkAggregates(Mat A, DM da, Int nchunks, View<Int> &agg)
{
  PetscInt m, M, rs;

  PetscFunctionBegin;
  PetscCall(MatGetLocalSize(A, &m, NULL));
  PetscCall(MatGetSize(A, &M, NULL));
  PetscCall(MatGetOwnershipRange(A, &rs, NULL));
  PetscCheck(nchunks >= 1 && nchunks <= M, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "The number of chunks (deflation vectors) must be in [1, %" PetscInt_FMT "], not %" PetscInt_FMT, M, nchunks);
  PetscCallCXX(agg = View<Int>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("agg")), m));
  if (da) {
    DeflationGrid s;
    PetscCall(GetDAShape(da, s));
    const PetscInt64 ncell = (PetscInt64)s.M * s.N * s.P;
    PetscCheck(ncell * s.dof == M, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_INCOMP, "The DMDA (%" PetscInt64_FMT " unknowns) does not match the matrix (%" PetscInt_FMT " rows)", ncell * s.dof, M);
    PetscCallCXX(ChunkAggregates(&s, rs, M, nchunks, m, UView<Int>(agg.data(), m)));
  } else PetscCallCXX(ChunkAggregates(nullptr, rs, M, nchunks, m, UView<Int>(agg.data(), m)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DeflationBlockAggregates(Mat A, DM da, const Int nb[3], View<Int> &agg)
{
  PetscInt      m;
  DeflationGrid s;
  PetscInt      b[3];

  PetscFunctionBegin;
  PetscCall(MatGetLocalSize(A, &m, NULL));
  PetscCall(GetDAShape(da, s));
  b[0] = nb[0], b[1] = s.dim >= 2 ? nb[1] : 1, b[2] = s.dim >= 3 ? nb[2] : 1;
  PetscCheck(b[0] >= 1 && b[0] <= s.M && b[1] >= 1 && b[1] <= s.N && b[2] >= 1 && b[2] <= s.P, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_OUTOFRANGE, "Deflation blocks %" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT " must be between 1 and the grid size %" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT " per direction", b[0], b[1], b[2], s.M, s.N, s.P);
  PetscCheck(m == s.xm * s.ym * s.zm * s.dof, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "The DMDA's local grid does not match the matrix's local rows");
  PetscCallCXX(agg = View<Int>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("agg")), m));
  PetscCallCXX(BlockAggregates(s, b, UView<Int>(agg.data(), m)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DeflationCreate(Mat A, DM dm, Mat Zuser, const DeflationSpaceOptions &opt, const char *prefix, Deflation **defl, DeflationSpaceType *built, Int built_blocks[3])
{
  MPI_Comm           comm = PetscObjectComm((PetscObject)A);
  DM                 da   = NULL;
  DeflationSpaceType type = opt.type;
  View<Int>          agg;
  PetscInt           M, m;

  PetscFunctionBegin;
  PetscCallCXX(delete *defl);
  *defl = nullptr;
  PetscCall(MatGetSize(A, &M, NULL));
  PetscCall(MatGetLocalSize(A, &m, NULL));
  if (dm) {
    /* a DMDA whose grid is that of A (not, e.g., the DM of an outer problem of which A is a block) */
    PetscBool isda;
    PetscCall(PetscObjectTypeCompare((PetscObject)dm, DMDA, &isda));
    if (isda) {
      DeflationGrid s;
      PetscInt      ok, allok;
      PetscCall(GetDAShape(dm, s));
      ok = ((PetscInt64)s.M * s.N * s.P * s.dof == M && (PetscInt64)s.xm * s.ym * s.zm * s.dof == m) ? 1 : 0;
      PetscCall(MPIU_Allreduce(&ok, &allok, 1, MPIU_INT, MPI_MIN, comm));
      if (allok) da = dm;
    }
  }
  if (!opt.type_set) type = Zuser ? DeflationSpaceType::User : (da ? DeflationSpaceType::Blocks : DeflationSpaceType::Chunks);
  *built = type;
  built_blocks[0] = built_blocks[1] = built_blocks[2] = 0;
  if (type == DeflationSpaceType::None) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatCheckAIJ(A, NULL));
  PetscCallCXX(*defl = new Deflation());
  switch (type) {
  case DeflationSpaceType::Chunks: {
    Int d = opt.subdomains;
    PetscCheck(d >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "%s_subdomains %" PetscInt_FMT " must be positive (or 0 for the default)", prefix, d);
    PetscCheck(d <= M, comm, PETSC_ERR_ARG_OUTOFRANGE, "%s_subdomains %" PetscInt_FMT " is more than the %" PetscInt_FMT " rows of the matrix", prefix, d, M);
    /* the default 2 ceil(sqrt(N)) exceeds N for N <= 5: at most one chunk per row */
    if (d == 0) d = PetscMin(PetscMin(2048, M), PetscMax(1, (PetscInt)(2 * PetscCeilReal(PetscSqrtReal((PetscReal)M)))));
    PetscCall(DeflationChunkAggregates(A, da, d, agg));
    PetscCall((*defl)->SetUpAggregates(A, agg, d, opt.form, opt.pivot_rtol));
  } break;
  case DeflationSpaceType::Blocks: {
    DeflationGrid s;
    Int           nb[3], gs[3];
    PetscCheck(da, comm, PETSC_ERR_ARG_WRONGSTATE, "%s_space blocks needs a DMDA (KSPSetDM() or PCSetDM()) whose grid matches the matrix; use %s_space chunks or a user space otherwise", prefix, prefix);
    PetscCall(GetDAShape(da, s));
    gs[0] = s.M, gs[1] = s.N, gs[2] = s.P;
    for (PetscInt i = 0; i < 3; i++) {
      PetscCheck(opt.blocks[i] >= 0 && (opt.blocks[i] <= gs[i] || i >= s.dim), comm, PETSC_ERR_ARG_OUTOFRANGE, "%s_blocks: %" PetscInt_FMT " blocks in direction %" PetscInt_FMT " is outside 0 (automatic) .. %" PetscInt_FMT " (the grid size)", prefix, opt.blocks[i], i, gs[i]);
      nb[i] = opt.blocks[i] > 0 ? opt.blocks[i] : PetscMin(8, PetscMax(1, gs[i] / 4));
      if (i >= s.dim) nb[i] = 1;
      built_blocks[i] = nb[i];
    }
    PetscCall(DeflationBlockAggregates(A, da, nb, agg));
    PetscCall((*defl)->SetUpAggregates(A, agg, nb[0] * nb[1] * nb[2], opt.form, opt.pivot_rtol));
  } break;
  case DeflationSpaceType::User:
    PetscCheck(Zuser, comm, PETSC_ERR_ARG_WRONGSTATE, "%s_space user needs a space matrix (KSPDCGSetDeflationSpace() or PCNeumannSetDeflationSpace())", prefix);
    PetscCall((*defl)->SetUpUser(A, Zuser, opt.form, opt.pivot_rtol));
    break;
  default:
    SETERRQ(comm, PETSC_ERR_ARG_WRONG, "Unknown deflation space type %d", (int)type);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace petsckp
