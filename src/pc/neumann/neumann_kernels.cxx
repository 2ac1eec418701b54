/*
   neumann_kernels.cxx - setup (split and prescale the triangles) and Horner application of PCNEUMANN.
*/
#include "neumann_kernels.hpp"

namespace petsckp
{
/* the strictly lower (lower = true) or strictly upper part of A, scaled: lower L_ij d_j, upper d_i U_ij */
static void ExtractTriangle(const CsrMatrix &A, View<Scalar> dinv, bool lower, CsrMatrix &T)
{
  const Int n      = A.nrows;
  auto      rowptr = A.rowptr;
  auto      colidx = A.colidx;
  auto      vals   = A.vals;

  T.nrows  = n;
  T.ncols  = n;
  T.rowptr = View<Int>("neumann triangle rowptr", n + 1);
  auto rp  = T.rowptr;
  Kokkos::parallel_for(
    "petsckp::NeumannCount", range(n), KOKKOS_LAMBDA(Int i) {
      Int c = 0;
      for (Int q = rowptr(i); q < rowptr(i + 1); q++) {
        const Int j = colidx(q);
        if (lower ? j < i : j > i) c++;
      }
      rp(i + 1) = c;
    });
  Kokkos::parallel_scan(
    "petsckp::NeumannScan", range(n + 1), KOKKOS_LAMBDA(Int i, Int & upd, const bool final) {
      upd += rp(i);
      if (final) rp(i) = upd;
    });
  Int nnz = 0;
  {
    Kokkos::View<Int, Kokkos::HostSpace> h("nnz");
    Kokkos::deep_copy(exec(), h, Kokkos::subview(rp, n));
    exec().fence();
    nnz = h();
  }
  T.nnz    = nnz;
  T.colidx = View<Ordinal>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("neumann triangle colidx")), nnz);
  T.vals   = View<Scalar>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("neumann triangle vals")), nnz);
  auto tc  = T.colidx;
  auto tv  = T.vals;
  Kokkos::parallel_for(
    "petsckp::NeumannFill", range(n), KOKKOS_LAMBDA(Int i) {
      Int p = rp(i);
      for (Int q = rowptr(i); q < rowptr(i + 1); q++) {
        const Int j = colidx(q);
        if (lower ? j < i : j > i) {
          tc(p)   = (Ordinal)j;
          tv(p++) = vals(q) * (lower ? dinv(j) : dinv(i));
        }
      }
    });
}

void NeumannSetup(const CsrMatrix &A, NeumannFactors &F, NeumannSetupInfo &info)
{
  const Int n      = A.nrows;
  auto      rowptr = A.rowptr;
  auto      colidx = A.colidx;
  auto      vals   = A.vals;

  F.n    = n;
  F.dinv = View<Scalar>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("neumann dinv")), n);
  auto dinv = F.dinv;
  /* diagonal and the checks: smallest row with a non-positive/absent diagonal, smallest row with NaN/Inf */
  Int bad = n, nonfinite = n;
  Kokkos::parallel_reduce(
    "petsckp::NeumannDiag", range(n),
    KOKKOS_LAMBDA(Int i, Int & lbad) {
      Scalar d = 0;
      for (Int q = rowptr(i); q < rowptr(i + 1); q++)
        if (colidx(q) == i) d += vals(q);
      if (!(d > 0) && i < lbad) lbad = i;
      dinv(i) = d > 0 ? 1.0 / d : 0.0;
    },
    Kokkos::Min<Int>(bad));
  Kokkos::parallel_reduce(
    "petsckp::NeumannFinite", range(n),
    KOKKOS_LAMBDA(Int i, Int & lnf) {
      for (Int q = rowptr(i); q < rowptr(i + 1); q++)
        if (!compat::isfinite(vals(q)) && i < lnf) lnf = i;
    },
    Kokkos::Min<Int>(nonfinite));
  info.bad_diag_row  = bad < n ? bad : -1;
  info.nonfinite_row = nonfinite < n ? nonfinite : -1;
  info.diag_value    = 0;
  if (bad < n) {
    Scalar d = 0;
    Kokkos::parallel_reduce(
      "petsckp::NeumannDiagValue", range(bad, bad + 1),
      KOKKOS_LAMBDA(Int i, Scalar & s) {
        for (Int q = rowptr(i); q < rowptr(i + 1); q++)
          if (colidx(q) == i) s += vals(q);
      },
      d);
    info.diag_value = d;
  }
  if (info.bad_diag_row >= 0 || info.nonfinite_row >= 0) return;
  ExtractTriangle(A, dinv, true, F.B);
  ExtractTriangle(A, dinv, false, F.Bt);
  /* || L D^-1 ||_inf */
  auto bp = F.B.rowptr;
  auto bv = F.B.vals;
  Real nrm = 0;
  Kokkos::parallel_reduce(
    "petsckp::NeumannNorm", range(n),
    KOKKOS_LAMBDA(Int i, Real & m) {
      Real s = 0;
      for (Int q = bp(i); q < bp(i + 1); q++) s += compat::fabs(bv(q));
      if (s > m) m = s;
    },
    Kokkos::Max<Real>(nrm));
  info.norm_BInf = nrm;
}

/* out = r - T t  (one Horner step, fused) */
static void HornerStep(const CsrMatrix &T, UView<const Scalar> r, UView<const Scalar> t, UView<Scalar> out)
{
  auto rp = T.rowptr;
  auto ci = T.colidx;
  auto v  = T.vals;
  Kokkos::parallel_for(
    "petsckp::NeumannHorner", range(T.nrows), KOKKOS_LAMBDA(Int i) {
      Scalar s = r(i);
      for (Int q = rp(i); q < rp(i + 1); q++) s -= v(q) * t(ci(q));
      out(i) = s;
    });
}

/* out = scale .* in, scale = dinv or sqrt(dinv) */
static void DiagScale(View<Scalar> dinv, bool sqrtd, UView<const Scalar> in, UView<Scalar> out)
{
  Kokkos::parallel_for(
    "petsckp::NeumannScale", range((Int)in.extent(0)), KOKKOS_LAMBDA(Int i) { out(i) = (sqrtd ? compat::sqrt(dinv(i)) : dinv(i)) * in(i); });
}

/* K r (lower Horner) into a work view; returns the view holding the result */
static UView<Scalar> ApplyK(const NeumannFactors &F, Int k, UView<const Scalar> r, UView<Scalar> w1, UView<Scalar> w2)
{
  UView<Scalar> cur = w1, nxt = w2;
  Kokkos::deep_copy(exec(), cur, r);
  for (Int j = 0; j < k; j++) {
    HornerStep(F.B, r, UView<const Scalar>(cur.data(), cur.extent(0)), nxt);
    std::swap(cur, nxt);
  }
  return cur;
}

/* z = Kt s; s is in one of the work views, the other is free; the result goes to z */
static void ApplyKt(const NeumannFactors &F, Int k, UView<const Scalar> s, UView<Scalar> z, UView<Scalar> wfree)
{
  if (k == 0) {
    Kokkos::deep_copy(exec(), z, s);
    return;
  }
  /* ping-pong between z and wfree, arranged so that the last step writes z */
  UView<Scalar> a = (k % 2) ? wfree : z, b = (k % 2) ? z : wfree;
  Kokkos::deep_copy(exec(), a, s);
  for (Int j = 0; j < k; j++) {
    HornerStep(F.Bt, s, UView<const Scalar>(a.data(), a.extent(0)), b);
    std::swap(a, b);
  }
}

void NeumannApply(const NeumannFactors &F, Int k, UView<const Scalar> r, UView<Scalar> z, UView<Scalar> w1, UView<Scalar> w2)
{
  if (k == 0) {
    DiagScale(F.dinv, false, r, z);
    return;
  }
  UView<Scalar> t = ApplyK(F, k, r, w1, w2);
  UView<Scalar> s = (t.data() == w1.data()) ? w2 : w1;
  DiagScale(F.dinv, false, UView<const Scalar>(t.data(), t.extent(0)), s);
  ApplyKt(F, k, UView<const Scalar>(s.data(), s.extent(0)), z, t);
}

void NeumannApplyLeft(const NeumannFactors &F, Int k, UView<const Scalar> r, UView<Scalar> y, UView<Scalar> w1, UView<Scalar> w2)
{
  UView<Scalar> t = ApplyK(F, k, r, w1, w2);
  DiagScale(F.dinv, true, UView<const Scalar>(t.data(), t.extent(0)), y);
}

void NeumannApplyRight(const NeumannFactors &F, Int k, UView<const Scalar> y, UView<Scalar> z, UView<Scalar> w1, UView<Scalar> w2)
{
  DiagScale(F.dinv, true, y, w1);
  ApplyKt(F, k, UView<const Scalar>(w1.data(), w1.extent(0)), z, w2);
}
} // namespace petsckp
