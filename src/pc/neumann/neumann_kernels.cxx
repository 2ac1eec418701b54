/*
   neumann_kernels.cxx - setup (split and prescale the triangles) and Horner application of PCNEUMANN.
*/
#include "neumann_kernels.hpp"
#include <vector>

namespace petsckp
{
namespace neumann
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

void Setup(const CsrMatrix &A, Factors &F, SetupInfo &info)
{
  const Int n      = A.nrows;
  auto      rowptr = A.rowptr;
  auto      colidx = A.colidx;
  auto      vals   = A.vals;

  F.n    = n;
  F.dinv = View<Scalar>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("neumann dinv")), n);
  auto dinv = F.dinv;
  /* diagonal and the checks: smallest row with a non-positive/absent diagonal, smallest row with NaN/Inf */
  Int bad = n;
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
  info.bad_diag_row  = bad < n ? bad : -1;
  info.nonfinite_row = CsrFirstNonFiniteRow(A);
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
  SellFromCsr(F.B, F.Bs);
  SellFromCsr(F.Bt, F.Bts);
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

Int SeriesDepth(const CsrMatrix &B)
{
  const Int n = B.nrows;
  Int       depth = 0;

  if (n == 0 || B.nnz == 0) return 0;
  auto rp = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), B.rowptr);
  auto ci = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), B.colidx);
  /* level(i) = 1 + max level(j) over the stored B(i, j), j < i (0 without such entries): rows in increasing order */
  std::vector<Int> level(n, 0);
  for (Int i = 0; i < n; i++) {
    Int l = 0;
    for (Int q = rp(i); q < rp(i + 1); q++) {
      const Int j = (Int)ci(q);
      if (j < i && level[j] + 1 > l) l = level[j] + 1;
    }
    level[i] = l;
    if (l > depth) depth = l;
  }
  return depth;
}

/*
   Bytes moved per application (k terms; 3D 7-point stencil, N rows; SELL stores 8 B value + 4 B column per entry and
   B, Bt have 3 entries per interior row; t/z neighbours counted once, i.e. assumed to hit in cache):
     first K step   t1 = r - B r              : B 36 + r 8 + write 8                = 52 B/row
     middle K steps t  = r - B t              : B 36 + r 8 + t 8 + write 8          = 60 B/row   (k - 2 of them)
     last K step    s  = D^-1 (r - B t)       : B 36 + r 8 + t 8 + dinv 8 + write 8 = 68 B/row   (k >= 2)
                    s  = D^-1 (r - B r)       : 36 + 8 + 8 + 8                       = 60 B/row   (k = 1)
     first Kt step  z1 = s - Bt s             : 52 B/row;  further Kt steps z = s - Bt z: 60 B/row
   Neu2 (k = 2): 52 + 68 + 52 + 60 = 232 B per row and application, in 4 kernels (Neu1: 60 + 52 = 112 B, 2 kernels).
   The previous version (two deep copies, a separate D^-1 scaling, CSR with row pointers) moved about 312 B per row
   in 7 kernels for Neu2.
*/
enum class HornerScale {
  None,
  Dinv,
  SqrtDinv
};

/* out = scale .* (rr - T t), T in SELL-C; t may be rr (the first step of a sweep); out aliases neither */
static void HornerSell(const SellMatrix &T, UView<const Scalar> rr, UView<const Scalar> t, const View<Scalar> &dinv, HornerScale scale, UView<Scalar> out)
{
  constexpr Int C  = SellMatrix::C;
  auto          sp = T.sliceptr;
  auto          sc = T.colidx;
  auto          sv = T.vals;
  const int     sm = (int)scale;
  Kokkos::parallel_for(
    "petsckp::NeumannHorner", range(T.nrows), KOKKOS_LAMBDA(Int i) {
      const Int s = i / C, lane = i % C;
      Scalar    acc = rr(i);
      for (Int pos = sp(s) + lane; pos < sp(s + 1); pos += C) {
        const Ordinal c = sc(pos);
        if (c >= 0) acc -= sv(pos) * t(c);
      }
      if (sm == 1) acc *= dinv(i);
      else if (sm == 2) acc *= compat::sqrt(dinv(i));
      out(i) = acc;
    });
}

/* out = scale .* in, scale = dinv or sqrt(dinv) */
static void DiagScale(View<Scalar> dinv, bool sqrtd, UView<const Scalar> in, UView<Scalar> out)
{
  Kokkos::parallel_for(
    "petsckp::NeumannScale", range((Int)in.extent(0)), KOKKOS_LAMBDA(Int i) { out(i) = (sqrtd ? compat::sqrt(dinv(i)) : dinv(i)) * in(i); });
}

static UView<const Scalar> Const(UView<Scalar> v) { return UView<const Scalar>(v.data(), v.extent(0)); }

/* out = scale .* K r (k >= 1); the intermediate t's ping-pong between pa and pb (neither aliases out or r) */
static void ApplyKScaled(const Factors &F, Int k, UView<const Scalar> r, HornerScale scale, UView<Scalar> out, UView<Scalar> pa, UView<Scalar> pb)
{
  UView<const Scalar> cur = r;
  for (Int j = 1; j < k; j++) {
    UView<Scalar> nxt = (j % 2) ? pa : pb;
    HornerSell(F.Bs, r, cur, F.dinv, HornerScale::None, nxt);
    cur = Const(nxt);
  }
  HornerSell(F.Bs, r, cur, F.dinv, scale, out);
}

/* z = Kt s (k >= 1); s stays; the intermediates use wfree and z, arranged so that the last step writes z */
static void ApplyKt(const Factors &F, Int k, UView<const Scalar> s, UView<Scalar> z, UView<Scalar> wfree)
{
  UView<const Scalar> cur = s;
  for (Int j = 1; j <= k; j++) {
    UView<Scalar> nxt = ((k - j) % 2 == 0) ? z : wfree;
    HornerSell(F.Bts, s, cur, F.dinv, HornerScale::None, nxt);
    cur = Const(nxt);
  }
}

void Apply(const Factors &F, Int k, UView<const Scalar> r, UView<Scalar> z, UView<Scalar> w1, UView<Scalar> w2)
{
  if (k == 0) {
    DiagScale(F.dinv, false, r, z);
    return;
  }
  ApplyKScaled(F, k, r, HornerScale::Dinv, w1, w2, z); /* s = D^-1 K r in w1 */
  ApplyKt(F, k, Const(w1), z, w2);
}

void ApplyLeft(const Factors &F, Int k, UView<const Scalar> r, UView<Scalar> y, UView<Scalar> w1, UView<Scalar> w2)
{
  if (k == 0) {
    DiagScale(F.dinv, true, r, y);
    return;
  }
  ApplyKScaled(F, k, r, HornerScale::SqrtDinv, y, w1, w2);
}

void ApplyRight(const Factors &F, Int k, UView<const Scalar> y, UView<Scalar> z, UView<Scalar> w1, UView<Scalar> w2)
{
  if (k == 0) {
    DiagScale(F.dinv, true, y, z);
    return;
  }
  DiagScale(F.dinv, true, y, w1);
  ApplyKt(F, k, Const(w1), z, w2);
}
} // namespace neumann
} // namespace petsckp
