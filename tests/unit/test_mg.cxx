/* Unit tests of src/sys/kp_mg, the shared multigrid layer, against plain serial references: the V-, W- and K-cycles
   (Algorithms 2.1/2.2 of Wang, Hu, Cohen and Xu, SIAM J. Sci. Comput. 2013) on 1D/2D Poisson hierarchies built by
   aggregation (kp_galerkin), by a device CSR interpolation and by the host MatPtAP setup, against a host
   implementation of the same cycles; the symmetry (x, B y) = (y, B x) of the V/W cycles with symmetric smoothing;
   the numeric refresh; levels stored by the PC itself (the plug-in path); and the dense coarsest-level direct solve
   (sequential and on two ranks). */
#include "kp_test.hpp"
#include "kp_mg.hpp"
#include "kp_segsort.hpp"
#include <petscmat.h>
#include <map>
#include <string>

using namespace kptest;

namespace
{
/* ------------------------------------------------------------------------------------------------------------- */
/* host helpers */

HostCsr Laplace1D(Int n, double shift = 0)
{
  HostCsr A;
  A.nrows = A.ncols = n;
  A.rowptr.push_back(0);
  for (Int i = 0; i < n; i++) {
    if (i > 0) A.colidx.push_back(i - 1), A.vals.push_back(-1.0);
    A.colidx.push_back(i), A.vals.push_back(2.0 + shift);
    if (i < n - 1) A.colidx.push_back(i + 1), A.vals.push_back(-1.0);
    A.rowptr.push_back((Int)A.colidx.size());
  }
  return A;
}

/* 5-point Laplacian on an N x N grid (eliminated Dirichlet boundary), natural ordering */
HostCsr Laplace2D(Int N)
{
  HostCsr A;
  A.nrows = A.ncols = N * N;
  A.rowptr.push_back(0);
  for (Int j = 0; j < N; j++)
    for (Int i = 0; i < N; i++) {
      if (j > 0) A.colidx.push_back(i + N * (j - 1)), A.vals.push_back(-1.0);
      if (i > 0) A.colidx.push_back(i - 1 + N * j), A.vals.push_back(-1.0);
      A.colidx.push_back(i + N * j), A.vals.push_back(4.0);
      if (i < N - 1) A.colidx.push_back(i + 1 + N * j), A.vals.push_back(-1.0);
      if (j < N - 1) A.colidx.push_back(i + N * (j + 1)), A.vals.push_back(-1.0);
      A.rowptr.push_back((Int)A.colidx.size());
    }
  return A;
}

Mat ToMat(const HostCsr &h)
{
  Mat                   A;
  std::vector<PetscInt> nnz(h.nrows);
  for (Int i = 0; i < h.nrows; i++) nnz[i] = h.rowptr[i + 1] - h.rowptr[i];
  MatCreateSeqAIJ(PETSC_COMM_SELF, h.nrows, h.ncols, 0, nnz.data(), &A);
  for (Int i = 0; i < h.nrows; i++) MatSetValues(A, 1, &i, nnz[i], h.colidx.data() + h.rowptr[i], h.vals.data() + h.rowptr[i], INSERT_VALUES);
  MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY);
  MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY);
  return A;
}

CsrMatrix ToDeviceCsr(const HostCsr &h)
{
  CsrMatrix A;
  auto      rp = ToDevice(h.rowptr), ci = ToDevice(h.colidx);
  auto      v  = ToDevice(h.vals);
  CsrFromArrays(h.nrows, h.ncols, ucv(rp), ucv(ci), ucv(v), A);
  return A;
}

HostCsr ToHostCsr(const CsrMatrix &A)
{
  HostCsr h;
  h.nrows = A.nrows, h.ncols = A.ncols;
  h.rowptr = ToHost(Kokkos::subview(A.rowptr, Kokkos::make_pair((Int)0, A.nrows + 1)));
  auto ci  = ToHost(Kokkos::subview(A.colidx, Kokkos::make_pair((Int)0, A.nnz)));
  h.colidx.assign(ci.begin(), ci.end());
  h.vals = ToHost(Kokkos::subview(A.vals, Kokkos::make_pair((Int)0, A.nnz)));
  return h;
}

/* aggregates of s consecutive rows (1D) or of s x s cells (2D grid of N x N) */
std::vector<Int> Agg1D(Int n, Int s, Int *nc)
{
  std::vector<Int> a(n);
  for (Int i = 0; i < n; i++) a[i] = i / s;
  *nc = (n + s - 1) / s;
  return a;
}
std::vector<Int> Agg2D(Int N, Int *Nc)
{
  std::vector<Int> a(N * N);
  *Nc = (N + 1) / 2;
  for (Int j = 0; j < N; j++)
    for (Int i = 0; i < N; i++) a[i + N * j] = i / 2 + *Nc * (j / 2);
  return a;
}

/* P^T A P for piecewise-constant P */
HostCsr RefGalerkinAgg(const HostCsr &A, const std::vector<Int> &agg, Int nc)
{
  std::vector<std::map<Int, Scalar>> rows(nc);
  for (Int i = 0; i < A.nrows; i++)
    for (Int k = A.rowptr[i]; k < A.rowptr[i + 1]; k++) rows[agg[i]][agg[A.colidx[k]]] += A.vals[k];
  HostCsr C;
  C.nrows = C.ncols = nc;
  C.rowptr.push_back(0);
  for (auto &r : rows) {
    for (auto &e : r) C.colidx.push_back(e.first), C.vals.push_back(e.second);
    C.rowptr.push_back((Int)C.colidx.size());
  }
  return C;
}

/* 1D linear interpolation from a grid of (n + 1) / 2 points (coarse point I on fine point 2I; zero past the edge) */
HostCsr Interp1D(Int n)
{
  const Int nc = (n + 1) / 2;
  HostCsr   P;
  P.nrows = n, P.ncols = nc;
  P.rowptr.push_back(0);
  for (Int i = 0; i < n; i++) {
    if (i % 2 == 0) P.colidx.push_back(i / 2), P.vals.push_back(1.0);
    else {
      P.colidx.push_back((i - 1) / 2), P.vals.push_back(0.5);
      if ((i + 1) / 2 < nc) P.colidx.push_back((i + 1) / 2), P.vals.push_back(0.5);
    }
    P.rowptr.push_back((Int)P.colidx.size());
  }
  return P;
}

void HostSpmv(const HostCsr &A, const Scalar *x, Scalar *y)
{
  for (Int i = 0; i < A.nrows; i++) {
    Scalar s = 0;
    for (Int k = A.rowptr[i]; k < A.rowptr[i + 1]; k++) s += A.vals[k] * x[A.colidx[k]];
    y[i] = s;
  }
}

/* Gauss-Seidel sweeps, rows ascending (forward) or descending (backward): the symmetric smoother of the tests */
void HostGS(const HostCsr &A, const Scalar *b, Scalar *x, Int sweeps, bool backward)
{
  for (Int s = 0; s < sweeps; s++)
    for (Int t = 0; t < A.nrows; t++) {
      const Int i = backward ? A.nrows - 1 - t : t;
      Scalar    r = b[i], d = 0;
      for (Int k = A.rowptr[i]; k < A.rowptr[i + 1]; k++) {
        if (A.colidx[k] == i) d += A.vals[k];
        else r -= A.vals[k] * x[A.colidx[k]];
      }
      x[i] = r / d;
    }
}

/* dense Gaussian elimination with partial pivoting */
std::vector<Scalar> DenseSolve(const HostCsr &A, std::vector<Scalar> b)
{
  const Int           n = A.nrows;
  std::vector<Scalar> M((size_t)n * n, 0.0);
  for (Int i = 0; i < n; i++)
    for (Int k = A.rowptr[i]; k < A.rowptr[i + 1]; k++) M[(size_t)i * n + A.colidx[k]] += A.vals[k];
  for (Int c = 0; c < n; c++) {
    Int p = c;
    for (Int i = c + 1; i < n; i++)
      if (std::abs(M[(size_t)i * n + c]) > std::abs(M[(size_t)p * n + c])) p = i;
    for (Int j = 0; j < n; j++) std::swap(M[(size_t)c * n + j], M[(size_t)p * n + j]);
    std::swap(b[c], b[p]);
    for (Int i = c + 1; i < n; i++) {
      const Scalar f = M[(size_t)i * n + c] / M[(size_t)c * n + c];
      for (Int j = c; j < n; j++) M[(size_t)i * n + j] -= f * M[(size_t)c * n + j];
      b[i] -= f * b[c];
    }
  }
  std::vector<Scalar> x(n);
  for (Int i = n - 1; i >= 0; i--) {
    Scalar s = b[i];
    for (Int j = i + 1; j < n; j++) s -= M[(size_t)i * n + j] * x[j];
    x[i] = s / M[(size_t)i * n + i];
  }
  return x;
}

Scalar Dot(const std::vector<Scalar> &a, const std::vector<Scalar> &b)
{
  Scalar s = 0;
  for (size_t i = 0; i < a.size(); i++) s += a[i] * b[i];
  return s;
}

/* ------------------------------------------------------------------------------------------------------------- */
/* the reference: a plain host multigrid with transfers given as host CSR P (R = P^T), the same cycles */

struct RefMG {
  std::vector<HostCsr> A, P; /* P[l]: level l+1 -> level l */
  MGCycleParams        p;

  std::vector<Scalar> Restrict(Int l, const std::vector<Scalar> &r) const
  {
    std::vector<Scalar> rc(P[l].ncols, 0.0);
    for (Int i = 0; i < P[l].nrows; i++)
      for (Int k = P[l].rowptr[i]; k < P[l].rowptr[i + 1]; k++) rc[P[l].colidx[k]] += P[l].vals[k] * r[i];
    return rc;
  }
  void Cycle(Int l, const std::vector<Scalar> &b, std::vector<Scalar> &x, bool zero) const
  {
    const Int n = A[l].nrows;
    if (zero) x.assign(n, 0.0);
    if (l == (Int)A.size() - 1) {
      x = DenseSolve(A[l], b);
      return;
    }
    HostGS(A[l], b.data(), x.data(), p.pre, false);
    std::vector<Scalar> r(n), xc(A[l + 1].nrows, 0.0);
    HostSpmv(A[l], x.data(), r.data());
    for (Int i = 0; i < n; i++) r[i] = b[i] - r[i];
    std::vector<Scalar> bc = Restrict(l, r);
    if (p.type == MGCycleType::K) KCycle(l + 1, bc, xc);
    else
      for (Int g = 0; g < (p.type == MGCycleType::W ? 2 : 1); g++) Cycle(l + 1, bc, xc, g == 0);
    for (Int i = 0; i < n; i++)
      for (Int k = P[l].rowptr[i]; k < P[l].rowptr[i + 1]; k++) x[i] += P[l].vals[k] * xc[P[l].colidx[k]];
    HostGS(A[l], b.data(), x.data(), p.post, true);
  }
  /* Algorithm 2.1: n steps of GCG with full A-orthogonalisation, preconditioned by Cycle (Algorithm 2.2) */
  void KCycle(Int l, const std::vector<Scalar> &f, std::vector<Scalar> &u) const
  {
    const Int n = A[l].nrows, its = p.kcycle_its;
    if (l == (Int)A.size() - 1) {
      Cycle(l, f, u, true);
      return;
    }
    std::vector<std::vector<Scalar>> pv(its), Apv(its);
    std::vector<Scalar>              r = f, pAp(its);
    u.assign(n, 0.0);
    const Scalar rho0 = std::sqrt(Dot(r, r));
    for (Int i = 0; i < its; i++) {
      Cycle(l, r, pv[i], true);
      std::vector<Scalar> z = pv[i];
      for (Int j = 0; j < i; j++) {
        const Scalar beta = -Dot(z, Apv[j]) / pAp[j];
        for (Int q = 0; q < n; q++) pv[i][q] += beta * pv[j][q];
      }
      Apv[i].resize(n);
      HostSpmv(A[l], pv[i].data(), Apv[i].data());
      pAp[i] = Dot(pv[i], Apv[i]);
      if (pAp[i] <= 0) break;
      const Scalar alpha = Dot(pv[i], r) / pAp[i];
      for (Int q = 0; q < n; q++) u[q] += alpha * pv[i][q];
      if (i + 1 == its) break;
      for (Int q = 0; q < n; q++) r[q] -= alpha * Apv[i][q];
      if (i == 0 && p.kcycle_rtol > 0 && std::sqrt(Dot(r, r)) <= p.kcycle_rtol * rho0) break;
    }
  }
};

/* ------------------------------------------------------------------------------------------------------------- */
/* the smoother plugged into the layer: Gauss-Seidel on host copies of the layer's own level operators */

class GSOps : public MGLevelOps {
public:
  explicit GSOps(MGHierarchy &H) : MGLevelOps(H)
  {
    for (auto &L : H.levels) A.push_back(L.Ad ? ToHostCsr(DeviceMatLocalCsr(L.Ad)) : HostCsr());
  }
  PetscErrorCode Smooth(PetscInt l, Vec b, Vec x, PetscInt nsweeps, MGSweepDirection dir, bool) override
  {
    const PetscScalar *bb;
    PetscScalar       *xx;

    PetscFunctionBegin;
    PetscCall(VecGetArrayRead(b, &bb));
    PetscCall(VecGetArray(x, &xx));
    HostGS(A[l], bb, xx, nsweeps, dir == MGSweepDirection::Backward);
    PetscCall(VecRestoreArray(x, &xx));
    PetscCall(VecRestoreArrayRead(b, &bb));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  std::vector<HostCsr> A;
};

std::vector<Scalar> VecToStd(Vec v)
{
  PetscInt           n;
  const PetscScalar *a;
  VecGetLocalSize(v, &n);
  VecGetArrayRead(v, &a);
  std::vector<Scalar> s(a, a + n);
  VecRestoreArrayRead(v, &a);
  return s;
}

void StdToVec(const std::vector<Scalar> &s, Vec v)
{
  PetscScalar *a;
  VecGetArray(v, &a);
  std::copy(s.begin(), s.end(), a);
  VecRestoreArray(v, &a);
}

enum class SetupKind {
  Aggregation, /* device, P piecewise constant (GalerkinAggregate) */
  DeviceCsr,   /* device, P linear interpolation (GalerkinRap) */
  Host         /* host MatPtAP with the same P */
};
const char *SetupName(SetupKind s) { return s == SetupKind::Aggregation ? "aggregation" : s == SetupKind::DeviceCsr ? "device csr" : "host"; }

/* a hierarchy of the layer and the matching reference, coarsened while the grid has more than coarse rows:
   1D (grid2d = false) by aggregates of 3 (or linear interpolation), 2D by 2 x 2 aggregates */
struct Problem {
  Mat         A = nullptr;
  MGHierarchy H;
  RefMG       ref;

  void Build(const HostCsr &A0, SetupKind setup, bool grid2d, Int N2d, Int coarse = 8)
  {
    A = ToMat(A0);
    ASSERT_EQ((int)MGHierarchyCreate(PETSC_COMM_SELF, A, setup != SetupKind::Host, H), 0);
    ref.A.push_back(A0);
    Int N = N2d;
    while (ref.A.back().nrows > coarse) {
      const HostCsr &F = ref.A.back();
      HostCsr        P;
      if (setup == SetupKind::Aggregation) {
        Int              nc;
        std::vector<Int> agg = grid2d ? Agg2D(N, &nc) : Agg1D(F.nrows, 3, &nc);
        if (grid2d) N = nc, nc = nc * nc;
        Aggregation a;
        auto        da = ToDevice(agg);
        ASSERT_EQ(AggregationCreate(F.nrows, nc, ucv(da), a), 0);
        ASSERT_EQ((int)MGHierarchyAddLevelAggregation(H, a), 0);
        P.nrows = F.nrows, P.ncols = nc;
        P.rowptr.push_back(0);
        for (Int i = 0; i < F.nrows; i++) P.colidx.push_back(agg[i]), P.vals.push_back(1.0), P.rowptr.push_back(i + 1);
        ref.A.push_back(RefGalerkinAgg(F, agg, nc));
      } else {
        P = Interp1D(F.nrows);
        if (setup == SetupKind::DeviceCsr) ASSERT_EQ((int)MGHierarchyAddLevelDevice(H, ToDeviceCsr(P)), 0);
        else ASSERT_EQ((int)MGHierarchyAddLevelHost(H, ToMat(P)), 0);
        /* the reference R A P, entry by entry */
        std::vector<std::map<Int, Scalar>> rows(P.ncols);
        for (Int i = 0; i < F.nrows; i++)
          for (Int k = F.rowptr[i]; k < F.rowptr[i + 1]; k++) {
            const Int j = F.colidx[k];
            for (Int a = P.rowptr[i]; a < P.rowptr[i + 1]; a++)
              for (Int c = P.rowptr[j]; c < P.rowptr[j + 1]; c++) rows[P.colidx[a]][P.colidx[c]] += P.vals[a] * F.vals[k] * P.vals[c];
          }
        HostCsr C;
        C.nrows = C.ncols = P.ncols;
        C.rowptr.push_back(0);
        for (auto &r : rows) {
          for (auto &e : r) C.colidx.push_back(e.first), C.vals.push_back(e.second);
          C.rowptr.push_back((Int)C.colidx.size());
        }
        ref.A.push_back(C);
      }
      ref.P.push_back(P);
    }
    ASSERT_EQ((int)MGHierarchySetUpVecs(H), 0);
    ASSERT_EQ((int)MGHierarchySetUpCoarseDirect(H), 0);
    ASSERT_EQ(H.levels.size(), ref.A.size());
  }
  ~Problem()
  {
    MGHierarchyReset(H);
    MatDestroy(&A);
  }
};

/* B b of the layer (from zero) */
std::vector<Scalar> ApplyLayer(Problem &pr, const MGCycleParams &p, const std::vector<Scalar> &b)
{
  Vec x, bv;
  MatCreateVecs(pr.A, &x, &bv);
  StdToVec(b, bv);
  GSOps ops(pr.H);
  EXPECT_EQ((int)MGCycleApply(pr.H, ops, p, bv, x, true), 0);
  auto r = VecToStd(x);
  VecDestroy(&x);
  VecDestroy(&bv);
  return r;
}

std::vector<Scalar> ApplyRef(Problem &pr, const MGCycleParams &p, const std::vector<Scalar> &b)
{
  std::vector<Scalar> x;
  pr.ref.p = p;
  pr.ref.Cycle(0, b, x, true);
  return x;
}

MGCycleParams Params(MGCycleType t, Int pre, Int post, Int its = 2, Real rtol = 0)
{
  MGCycleParams p;
  p.type = t, p.pre = pre, p.post = post, p.kcycle_its = its, p.kcycle_rtol = rtol;
  return p;
}
} // namespace

class MGSizes : public ::testing::TestWithParam<Int> { };

/* the coarse operators of every setup against the reference Galerkin products */
TEST_P(MGSizes, HierarchyMatchesReferenceGalerkin)
{
  const Int n = GetParam();
  for (SetupKind s : {SetupKind::Aggregation, SetupKind::DeviceCsr, SetupKind::Host}) {
    Problem pr;
    ASSERT_NO_FATAL_FAILURE(pr.Build(Laplace1D(n, 0.01), s, false, 0));
    for (size_t l = 0; l < pr.H.levels.size(); l++) {
      HostCsr             h = ToHostCsr(DeviceMatLocalCsr(pr.H.levels[l].Ad));
      const HostCsr      &r = pr.ref.A[l];
      std::vector<Scalar> x = RandomVector(h.nrows, 5 + (unsigned)l), y1(h.nrows), y2(h.nrows);
      ASSERT_EQ(h.nrows, r.nrows) << SetupName(s) << " level " << l;
      HostSpmv(h, x.data(), y1.data());
      HostSpmv(r, x.data(), y2.data());
      EXPECT_LT(RelErr(y1, y2), 1e-13) << SetupName(s) << " level " << l;
      PetscInt rows, nnz;
      ASSERT_EQ((int)MGHierarchyLevelInfo(pr.H, (PetscInt)l, &rows, &nnz), 0);
      EXPECT_EQ(rows, r.nrows);
      EXPECT_EQ(nnz, h.rowptr[h.nrows]);
    }
  }
}

/* V, W and K cycles of the layer against the host reference, every setup */
TEST_P(MGSizes, CyclesMatchHostReference)
{
  const Int           n  = GetParam();
  auto                xs = RandomVector(n, 17);
  std::vector<Scalar> b(n);
  HostSpmv(Laplace1D(n), xs.data(), b.data());
  for (SetupKind s : {SetupKind::Aggregation, SetupKind::DeviceCsr, SetupKind::Host}) {
    if (n > 100000 && s != SetupKind::Aggregation) continue; /* the large size once */
    Problem pr;
    ASSERT_NO_FATAL_FAILURE(pr.Build(Laplace1D(n), s, false, 0));
    for (auto p : {Params(MGCycleType::V, 1, 1), Params(MGCycleType::W, 2, 1), Params(MGCycleType::K, 1, 1), Params(MGCycleType::K, 1, 1, 3), Params(MGCycleType::K, 2, 2, 2, 0.25)}) {
      auto x  = ApplyLayer(pr, p, b);
      auto xr = ApplyRef(pr, p, b);
      EXPECT_LT(RelErr(x, xr), 1e-10) << SetupName(s) << " cycle " << (int)p.type << " its " << p.kcycle_its << " n " << n;
      if (n >= 13) { /* one cycle from zero reduces the error in the energy norm: || x* - B A x* ||_A < || x* ||_A */
        std::vector<Scalar> e(n), Ae(n), Axs(n);
        for (Int i = 0; i < n; i++) e[i] = xs[i] - x[i];
        HostSpmv(pr.ref.A[0], e.data(), Ae.data());
        EXPECT_LT(Dot(e, Ae), Dot(xs, b)) << SetupName(s) << " cycle " << (int)p.type;
      }
    }
  }
}

/* (x, B y) = (y, B x) and (x, B x) > 0 for the V and W cycles with symmetric Gauss-Seidel smoothing */
TEST_P(MGSizes, LinearCyclesAreSymmetric)
{
  const Int n = GetParam();
  if (n > 100000) GTEST_SKIP() << "symmetry at the small sizes";
  auto x = RandomVector(n, 3), y = RandomVector(n, 4);
  for (SetupKind s : {SetupKind::Aggregation, SetupKind::DeviceCsr, SetupKind::Host}) {
    Problem pr;
    ASSERT_NO_FATAL_FAILURE(pr.Build(Laplace1D(n), s, false, 0));
    for (auto p : {Params(MGCycleType::V, 1, 1), Params(MGCycleType::V, 2, 2), Params(MGCycleType::W, 1, 1)}) {
      auto         Bx = ApplyLayer(pr, p, x), By = ApplyLayer(pr, p, y);
      const Scalar a = Dot(x, By), c = Dot(y, Bx), xBx = Dot(x, Bx);
      const Scalar scale = std::sqrt(Dot(x, x) * Dot(By, By)) + std::sqrt(Dot(y, y) * Dot(Bx, Bx));
      EXPECT_LE(std::abs(a - c), 1e-12 * scale) << SetupName(s) << " cycle " << (int)p.type << ": " << a << " vs " << c;
      if (n > 0) EXPECT_GT(xBx, 0) << SetupName(s);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, MGSizes, ::testing::ValuesIn(Sizes()));

/* 2D Poisson with 2 x 2 aggregates: K-cycle and V-cycle against the reference */
TEST(MG, KCycle2DAggregationMatchesHostReference)
{
  for (Int N : {1, 13, 64}) {
    Problem pr;
    ASSERT_NO_FATAL_FAILURE(pr.Build(Laplace2D(N), SetupKind::Aggregation, true, N, 16));
    auto b = RandomVector(N * N, 9);
    for (auto p : {Params(MGCycleType::K, 1, 1), Params(MGCycleType::K, 1, 1, 2, 0.2), Params(MGCycleType::V, 1, 1)}) EXPECT_LT(RelErr(ApplyLayer(pr, p, b), ApplyRef(pr, p, b)), 1e-10) << N;
  }
}

/* new values of the fine operator (same pattern): the refreshed hierarchy equals one built afresh */
TEST(MG, NumericRefreshEqualsNewSetup)
{
  const Int n = 597;
  for (SetupKind s : {SetupKind::Aggregation, SetupKind::DeviceCsr, SetupKind::Host}) {
    Problem pr, fresh;
    ASSERT_NO_FATAL_FAILURE(pr.Build(Laplace1D(n), s, false, 0));
    HostCsr A2 = Laplace1D(n);
    for (auto &v : A2.vals) v = 3 * v + (v > 0 ? 0.5 : 0);
    /* change the values of the Mat of the hierarchy in place */
    for (Int i = 0; i < n; i++) MatSetValues(pr.A, 1, &i, A2.rowptr[i + 1] - A2.rowptr[i], A2.colidx.data() + A2.rowptr[i], A2.vals.data() + A2.rowptr[i], INSERT_VALUES);
    MatAssemblyBegin(pr.A, MAT_FINAL_ASSEMBLY);
    MatAssemblyEnd(pr.A, MAT_FINAL_ASSEMBLY);
    ASSERT_EQ((int)MGHierarchyRefreshFine(pr.H), 0);
    ASSERT_EQ((int)MGHierarchyRefreshCoarse(pr.H), 0);
    ASSERT_NO_FATAL_FAILURE(fresh.Build(A2, s, false, 0));
    ASSERT_EQ(pr.H.levels.size(), fresh.H.levels.size());
    for (size_t l = 0; l < pr.H.levels.size(); l++) {
      HostCsr a = ToHostCsr(DeviceMatLocalCsr(pr.H.levels[l].Ad)), f = ToHostCsr(DeviceMatLocalCsr(fresh.H.levels[l].Ad));
      EXPECT_EQ(a.colidx, f.colidx) << SetupName(s) << " level " << l;
      EXPECT_LT(RelErr(a.vals, f.vals), 1e-14) << SetupName(s) << " level " << l;
    }
    auto b = RandomVector(n, 2);
    auto p = Params(MGCycleType::K, 1, 1);
    EXPECT_LT(RelErr(ApplyLayer(pr, p, b), ApplyLayer(fresh, p, b)), 1e-12) << SetupName(s);
  }
}

/* Truncated transfers (truncated monotone multigrid): P_0 rows and R_0 columns scaled by a 0/1 mask, and every coarse
   operator the Galerkin product of the truncated transfers, A_1 = (D P_0)^T A_0 (D P_0), A_{l+1} = P_l^T A_l P_l,
   after a sequence of masks (the device setup recomputes only the rows that change), and back to the setup's */
namespace
{
HostCsr RefRap(const HostCsr &F, const HostCsr &P)
{
  std::vector<std::map<Int, Scalar>> rows(P.ncols);
  for (Int i = 0; i < F.nrows; i++)
    for (Int k = F.rowptr[i]; k < F.rowptr[i + 1]; k++) {
      const Int j = F.colidx[k];
      for (Int a = P.rowptr[i]; a < P.rowptr[i + 1]; a++)
        for (Int c = P.rowptr[j]; c < P.rowptr[j + 1]; c++) rows[P.colidx[a]][P.colidx[c]] += P.vals[a] * F.vals[k] * P.vals[c];
    }
  HostCsr C;
  C.nrows = C.ncols = P.ncols;
  C.rowptr.push_back(0);
  for (auto &r : rows) {
    for (auto &e : r) C.colidx.push_back(e.first), C.vals.push_back(e.second);
    C.rowptr.push_back((Int)C.colidx.size());
  }
  return C;
}

/* y = A x for a host CSR that may hold explicit zeros (compared through products with random vectors) */
void ExpectSameOperator(const HostCsr &a, const HostCsr &r, const std::string &what)
{
  ASSERT_EQ(a.nrows, r.nrows) << what;
  for (unsigned seed : {3u, 4u}) {
    std::vector<Scalar> x = RandomVector(a.nrows, seed), y1(a.nrows), y2(a.nrows);
    HostSpmv(a, x.data(), y1.data());
    HostSpmv(r, x.data(), y2.data());
    EXPECT_LT(RelErr(y1, y2), 1e-13) << what;
  }
}
} // namespace

TEST(MG, TruncatedTransfersGiveTruncatedGalerkinOperators)
{
  for (const Int n : Sizes()) {
    for (SetupKind s : {SetupKind::DeviceCsr, SetupKind::Host}) {
      if (n > 100000 && s == SetupKind::Host) continue;
      SCOPED_TRACE(std::string(SetupName(s)) + " size " + std::to_string(n));
      Problem pr;
      ASSERT_NO_FATAL_FAILURE(pr.Build(Laplace1D(n, 0.01), s, false, 0));
      if (pr.H.levels.size() < 2) {
        Vec k;
        MatCreateVecs(pr.A, &k, NULL);
        EXPECT_NE((int)MGHierarchyTruncate(pr.H, 0, k), 0); /* no transfers to truncate */
        VecDestroy(&k);
        continue;
      }
      /* masks: every third point truncated, a few of them moved, a block of points, none (NULL) */
      std::vector<std::vector<Scalar>> masks;
      std::vector<Scalar>              m(n, 1.0);
      for (Int i = 0; i < n; i += 3) m[i] = 0;
      masks.push_back(m);
      for (Int i = 0; i < n; i += 17) m[i] = 1 - m[i];
      masks.push_back(m);
      std::fill(m.begin(), m.end(), 1.0);
      for (Int i = n / 4; i < n / 2; i++) m[i] = 0; /* whole coarse functions truncated away: zero rows */
      masks.push_back(m);
      masks.push_back(std::vector<Scalar>()); /* back to the setup's transfers */
      Vec keep;
      MatCreateVecs(pr.A, &keep, NULL);
      for (size_t t = 0; t < masks.size(); t++) {
        const bool none = masks[t].empty();
        if (!none) StdToVec(masks[t], keep);
        ASSERT_EQ((int)MGHierarchyTruncate(pr.H, 0, none ? NULL : keep), 0);
        EXPECT_EQ(MGHierarchyTruncated(pr.H, 0), !none);
        /* the reference: D P_0 on the finest level, then the plain Galerkin products */
        HostCsr Pt = pr.ref.P[0];
        for (Int i = 0; i < Pt.nrows; i++)
          for (Int k = Pt.rowptr[i]; k < Pt.rowptr[i + 1]; k++) Pt.vals[k] *= none ? 1.0 : masks[t][i];
        ExpectSameOperator(ToHostCsr(DeviceMatLocalCsr(pr.H.levels[0].Pd)), Pt, "P_0, mask " + std::to_string(t));
        HostCsr Ac = RefRap(pr.ref.A[0], Pt);
        for (size_t l = 1; l < pr.H.levels.size(); l++) {
          ExpectSameOperator(ToHostCsr(DeviceMatLocalCsr(pr.H.levels[l].Ad)), Ac, "level " + std::to_string(l) + ", mask " + std::to_string(t));
          if (l + 1 < pr.H.levels.size()) Ac = RefRap(Ac, pr.ref.P[l]);
        }
        /* R_0 = (D P_0)^T: y = R_0 x against the reference */
        std::vector<Scalar> x = RandomVector(n, 7), y(Pt.ncols, 0.0);
        for (Int i = 0; i < n; i++)
          for (Int k = Pt.rowptr[i]; k < Pt.rowptr[i + 1]; k++) y[Pt.colidx[k]] += Pt.vals[k] * x[i];
        std::vector<Scalar> yr(Pt.ncols);
        HostSpmv(ToHostCsr(DeviceMatLocalCsr(pr.H.levels[0].Rd)), x.data(), yr.data());
        EXPECT_LT(RelErr(yr, y), 1e-14) << "R_0, mask " << t;
      }
      /* a truncation, then the restore of every level with and without the refresh of the coarse operators */
      StdToVec(masks[0], keep);
      ASSERT_EQ((int)MGHierarchyTruncate(pr.H, 0, keep), 0);
      ASSERT_EQ((int)MGHierarchyUntruncate(pr.H, true), 0);
      EXPECT_FALSE(MGHierarchyTruncated(pr.H, 0));
      for (size_t l = 0; l < pr.H.levels.size(); l++) ExpectSameOperator(ToHostCsr(DeviceMatLocalCsr(pr.H.levels[l].Ad)), pr.ref.A[l], "restored level " + std::to_string(l));
      /* without the refresh: the transfers are restored, the caller refreshes the coarse operators (as after new values
         of the fine operator); a truncation after that starts from the setup's transfers again */
      ASSERT_EQ((int)MGHierarchyTruncate(pr.H, 0, keep), 0);
      ASSERT_EQ((int)MGHierarchyUntruncate(pr.H, false), 0);
      EXPECT_FALSE(MGHierarchyTruncated(pr.H, 0));
      ExpectSameOperator(ToHostCsr(DeviceMatLocalCsr(pr.H.levels[0].Pd)), pr.ref.P[0], "P_0 restored");
      ASSERT_EQ((int)MGHierarchyRefreshCoarse(pr.H), 0);
      for (size_t l = 0; l < pr.H.levels.size(); l++) ExpectSameOperator(ToHostCsr(DeviceMatLocalCsr(pr.H.levels[l].Ad)), pr.ref.A[l], "refreshed level " + std::to_string(l));
      StdToVec(masks[2], keep);
      ASSERT_EQ((int)MGHierarchyTruncate(pr.H, 0, keep), 0);
      {
        HostCsr Pt = pr.ref.P[0];
        for (Int i = 0; i < Pt.nrows; i++)
          for (Int k = Pt.rowptr[i]; k < Pt.rowptr[i + 1]; k++) Pt.vals[k] *= masks[2][i];
        ExpectSameOperator(ToHostCsr(DeviceMatLocalCsr(pr.H.levels[1].Ad)), RefRap(pr.ref.A[0], Pt), "level 1 after a refresh");
      }
      VecDestroy(&keep);
    }
  }
}

/* the plug-in path of a PC that stores its coarse levels itself (as the auxiliary-grid AMG will, in stencil
   arrays): levels added with MGHierarchyAddLevel, its own Mult/Restrict/ProlongAdd/CoarseSolve, the layer's cycle */
namespace
{
class PluggedOps : public GSOps {
public:
  PluggedOps(MGHierarchy &H, const RefMG &ref) : GSOps(H), ref_(ref)
  {
    for (size_t l = 1; l < ref.A.size(); l++) A[l] = ref.A[l]; /* the PC's own operators */
    const HostCsr &Ac = ref.A.back();
    CoarseOK = MGCoarseDirectSetUp(PETSC_COMM_SELF, Ac.nrows, 0, ToDeviceCsr(Ac), 1e-13, D);
  }
  ~PluggedOps() { MGCoarseDirectReset(D); }
  PetscErrorCode Mult(PetscInt l, Vec x, Vec y) override
  {
    PetscFunctionBegin;
    if (l == 0) PetscCall(MGLevelOps::Mult(l, x, y));
    else {
      const PetscScalar *xx;
      PetscScalar       *yy;
      PetscCall(VecGetArrayRead(x, &xx));
      PetscCall(VecGetArray(y, &yy));
      HostSpmv(A[l], xx, yy);
      PetscCall(VecRestoreArray(y, &yy));
      PetscCall(VecRestoreArrayRead(x, &xx));
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscErrorCode Restrict(PetscInt l, Vec r, Vec bc) override
  {
    PetscFunctionBegin;
    auto rc = ref_.Restrict(l, VecToStd(r));
    StdToVec(rc, bc);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscErrorCode ProlongAdd(PetscInt l, Vec ec, Vec x) override
  {
    const HostCsr &P = ref_.P[l];
    auto           e = VecToStd(ec), xx = VecToStd(x);
    PetscFunctionBegin;
    for (Int i = 0; i < P.nrows; i++)
      for (Int k = P.rowptr[i]; k < P.rowptr[i + 1]; k++) xx[i] += P.vals[k] * e[P.colidx[k]];
    StdToVec(xx, x);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscErrorCode CoarseSolve(PetscInt, Vec b, Vec x) override
  {
    PetscFunctionBegin;
    PetscCall(MGCoarseDirectSolve(PETSC_COMM_SELF, D, b, x));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  MGCoarseDirect D;
  PetscErrorCode CoarseOK;

private:
  const RefMG &ref_;
};
} // namespace

TEST(MG, LevelsStoredByThePCMatchHostReference)
{
  for (Int n : {1, 13, 597}) {
    HostCsr     A0 = Laplace1D(n);
    Mat         A  = ToMat(A0);
    MGHierarchy H;
    RefMG       ref;
    ref.A.push_back(A0);
    while (ref.A.back().nrows > 8) {
      Int  nc;
      auto agg = Agg1D(ref.A.back().nrows, 3, &nc);
      ref.A.push_back(RefGalerkinAgg(ref.A.back(), agg, nc));
      HostCsr P;
      P.nrows = (Int)agg.size(), P.ncols = nc;
      P.rowptr.push_back(0);
      for (size_t i = 0; i < agg.size(); i++) P.colidx.push_back(agg[i]), P.vals.push_back(1.0), P.rowptr.push_back((Int)i + 1);
      ref.P.push_back(P);
    }
    ASSERT_EQ((int)MGHierarchyCreate(PETSC_COMM_SELF, A, true, H), 0);
    for (size_t l = 1; l < ref.A.size(); l++) ASSERT_EQ((int)MGHierarchyAddLevel(H, ref.A[l].nrows), 0);
    ASSERT_EQ((int)MGHierarchySetUpVecs(H), 0);
    PluggedOps ops(H, ref);
    ASSERT_EQ((int)ops.CoarseOK, 0);
    Vec x, b;
    MatCreateVecs(A, &x, &b);
    auto bs = RandomVector(n, 1);
    StdToVec(bs, b);
    for (auto p : {Params(MGCycleType::K, 1, 1), Params(MGCycleType::V, 1, 1)}) {
      ref.p = p;
      std::vector<Scalar> xr;
      ref.Cycle(0, bs, xr, true);
      ASSERT_EQ((int)MGCycleApply(H, ops, p, b, x, true), 0);
      EXPECT_LT(RelErr(VecToStd(x), xr), 1e-10) << n;
    }
    PetscInt rows, nnz;
    ASSERT_EQ((int)MGHierarchyLevelInfo(H, (PetscInt)H.levels.size() - 1, &rows, &nnz), 0);
    EXPECT_EQ(rows, ref.A.back().nrows);
    if (H.levels.size() > 1) EXPECT_EQ(nnz, -1); /* the layer does not store that operator */
    VecDestroy(&x);
    VecDestroy(&b);
    MGHierarchyReset(H);
    MatDestroy(&A);
  }
}

/* the dense coarsest-level solve: SPD (Cholesky) and nonsymmetric (LU inverse) operators, from a CSR with global
   columns and from a device matrix; a singular operator is an error naming the multigrid operator */
TEST(MG, CoarseDirectSolves)
{
  for (Int n : {0, 1, 13, 597}) {
    for (bool sym : {true, false}) {
      HostCsr h = Laplace1D(n, 0.1);
      if (!sym)
        for (Int i = 0; i < n; i++)
          for (Int k = h.rowptr[i]; k < h.rowptr[i + 1]; k++)
            if (h.colidx[k] > i) h.vals[k] = -0.5; /* upwinded: -1 below, -0.5 above */
      auto           xs = RandomVector(n, 7);
      std::vector<Scalar> bs(n);
      HostSpmv(h, xs.data(), bs.data());
      MGCoarseDirect D;
      ASSERT_EQ((int)MGCoarseDirectSetUp(PETSC_COMM_SELF, n, 0, ToDeviceCsr(h), 1e-13, D), 0);
      if (n > 1) EXPECT_EQ(D.S.symmetric, sym);
      Vec x, b;
      VecCreateSeq(PETSC_COMM_SELF, n, &x);
      VecDuplicate(x, &b);
      StdToVec(bs, b);
      ASSERT_EQ((int)MGCoarseDirectSolve(PETSC_COMM_SELF, D, b, x), 0);
      EXPECT_LT(RelErr(VecToStd(x), xs), 1e-9) << n << (sym ? " spd" : " lu");
      /* the same from a device matrix of a PETSc Mat */
      Mat              A  = ToMat(h);
      PetscKPDeviceMat Ad = nullptr;
      MGCoarseDirect   D2;
      ASSERT_EQ((int)PetscKPDeviceMatCreate(A, PETSCKP_FORMAT_CSR, &Ad), 0);
      ASSERT_EQ((int)MGCoarseDirectSetUp(PETSC_COMM_SELF, Ad, 1e-13, D2), 0);
      VecSet(x, 0.0);
      ASSERT_EQ((int)MGCoarseDirectSolve(PETSC_COMM_SELF, D2, b, x), 0);
      EXPECT_LT(RelErr(VecToStd(x), xs), 1e-9) << n;
      PetscKPDeviceMatDestroy(&Ad);
      MatDestroy(&A);
      VecDestroy(&x);
      VecDestroy(&b);
    }
  }
}

namespace
{
PetscErrorCode CaptureMessage(MPI_Comm, int, const char *, const char *, PetscErrorCode n, PetscErrorType p, const char *mess, void *ctx)
{
  std::string *s = (std::string *)ctx;
  if (p == PETSC_ERROR_INITIAL && s->empty() && mess) *s = mess;
  return n;
}
} // namespace

TEST(MG, CoarseDirectSingularIsAnError)
{
  HostCsr        h = Laplace1D(13);
  MGCoarseDirect D;
  std::string    msg;
  h.vals[0] = h.vals[h.vals.size() - 1] = 1.0; /* pure Neumann: the constant is a null vector */
  PetscPushErrorHandler(CaptureMessage, &msg);
  PetscErrorCode ierr = MGCoarseDirectSetUp(PETSC_COMM_SELF, 13, 0, ToDeviceCsr(h), 1e-13, D);
  PetscPopErrorHandler();
  EXPECT_EQ((int)ierr, (int)PETSC_ERR_MAT_CH_ZRPVT);
  EXPECT_NE(msg.find("coarsest multigrid operator"), std::string::npos) << msg;
  /* a cycle without a coarse solve says what to do */
  Mat         A = ToMat(Laplace1D(5));
  MGHierarchy H;
  Vec         x, b;
  ASSERT_EQ((int)MGHierarchyCreate(PETSC_COMM_SELF, A, true, H), 0);
  ASSERT_EQ((int)MGHierarchySetUpVecs(H), 0);
  MatCreateVecs(A, &x, &b);
  GSOps ops(H);
  msg.clear();
  PetscPushErrorHandler(CaptureMessage, &msg);
  ierr = MGCycleApply(H, ops, Params(MGCycleType::V, 1, 1), b, x, true);
  PetscPopErrorHandler();
  EXPECT_EQ((int)ierr, (int)PETSC_ERR_ARG_WRONGSTATE);
  EXPECT_NE(msg.find("MGHierarchySetUpCoarseDirect"), std::string::npos) << msg;
  VecDestroy(&x);
  VecDestroy(&b);
  MGHierarchyReset(H);
  MatDestroy(&A);
}

/* two ranks: the coarsest solve gathered to both ranks, and the host setup of a distributed hierarchy (transfers
   and coarse operators with ghost columns) give the sequential results */
TEST(MGMPI2, DistributedHierarchyMatchesSequential)
{
  PetscMPIInt size, rank;
  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
  if (size != 2) GTEST_SKIP() << "needs 2 ranks";
  const Int n = 597, m0 = 301, m = rank == 0 ? m0 : n - m0, rstart = rank == 0 ? 0 : m0;
  HostCsr   h = Laplace1D(n, 0.05);
  Mat       A;
  MatCreateAIJ(PETSC_COMM_WORLD, m, m, n, n, 3, NULL, 2, NULL, &A);
  for (Int i = rstart; i < rstart + m; i++) MatSetValues(A, 1, &i, h.rowptr[i + 1] - h.rowptr[i], h.colidx.data() + h.rowptr[i], h.vals.data() + h.rowptr[i], INSERT_VALUES);
  MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY);
  MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY);
  /* the coarsest solve of the distributed operator */
  {
    PetscKPDeviceMat Ad;
    MGCoarseDirect   D;
    Vec              x, b;
    auto             xs = RandomVector(n, 8);
    std::vector<Scalar> bs(n);
    HostSpmv(h, xs.data(), bs.data());
    ASSERT_EQ((int)PetscKPDeviceMatCreate(A, PETSCKP_FORMAT_CSR, &Ad), 0);
    ASSERT_EQ((int)MGCoarseDirectSetUp(PETSC_COMM_WORLD, Ad, 1e-13, D), 0);
    MatCreateVecs(A, &x, &b);
    StdToVec(std::vector<Scalar>(bs.begin() + rstart, bs.begin() + rstart + m), b);
    ASSERT_EQ((int)MGCoarseDirectSolve(PETSC_COMM_WORLD, D, b, x), 0);
    EXPECT_LT(RelErr(VecToStd(x), std::vector<Scalar>(xs.begin() + rstart, xs.begin() + rstart + m)), 1e-9);
    VecDestroy(&x);
    VecDestroy(&b);
    PetscKPDeviceMatDestroy(&Ad);
  }
  /* a V-cycle with Jacobi smoothing (independent of the distribution) on the host setup, against the same on one rank */
  class JacobiOps : public MGLevelOps {
  public:
    explicit JacobiOps(MGHierarchy &H) : MGLevelOps(H)
    {
      for (auto &L : H.levels) {
        Vec d;
        MatCreateVecs(L.A, &d, NULL);
        MatGetDiagonal(L.A, d);
        VecReciprocal(d);
        dinv.push_back(d);
      }
    }
    ~JacobiOps()
    {
      for (Vec &d : dinv) VecDestroy(&d);
    }
    PetscErrorCode Smooth(PetscInt l, Vec b, Vec x, PetscInt nsweeps, MGSweepDirection, bool) override
    {
      Vec r;
      PetscFunctionBegin;
      PetscCall(VecDuplicate(x, &r));
      for (PetscInt s = 0; s < nsweeps; s++) {
        PetscCall(Residual(l, b, x, r));
        PetscCall(VecPointwiseMult(r, r, dinv[l]));
        PetscCall(VecAXPY(x, 0.6, r));
      }
      PetscCall(VecDestroy(&r));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    std::vector<Vec> dinv;
  };
  auto bs = RandomVector(n, 12);
  std::vector<std::vector<Scalar>> results;
  for (MPI_Comm comm : {PETSC_COMM_WORLD, PETSC_COMM_SELF}) {
    const bool  dist = comm == PETSC_COMM_WORLD;
    Mat         Aseq = nullptr, Ause;
    MGHierarchy H;
    if (!dist) Aseq = ToMat(h);
    Ause = dist ? A : Aseq;
    ASSERT_EQ((int)MGHierarchyCreate(comm, Ause, false, H), 0);
    for (Int nf = n; nf > 20; nf = (nf + 1) / 2) {
      /* linear interpolation of this level as a (distributed) AIJ matrix: the rows of this rank's fine block */
      HostCsr  P = Interp1D(nf);
      Mat      Ph;
      PetscInt fs, fe, cs = 0, ce = 0, nc = (nf + 1) / 2;
      MatGetOwnershipRange(H.levels.back().A, &fs, &fe);
      if (dist) cs = (fs + 1) / 2, ce = (fe + 1) / 2;
      else ce = nc;
      MatCreateAIJ(comm, fe - fs, ce - cs, nf, nc, 2, NULL, 2, NULL, &Ph);
      for (Int i = fs; i < fe; i++) MatSetValues(Ph, 1, &i, P.rowptr[i + 1] - P.rowptr[i], P.colidx.data() + P.rowptr[i], P.vals.data() + P.rowptr[i], INSERT_VALUES);
      MatAssemblyBegin(Ph, MAT_FINAL_ASSEMBLY);
      MatAssemblyEnd(Ph, MAT_FINAL_ASSEMBLY);
      ASSERT_EQ((int)MGHierarchyAddLevelHost(H, Ph), 0);
    }
    ASSERT_EQ((int)MGHierarchySetUpVecs(H), 0);
    ASSERT_EQ((int)MGHierarchySetUpCoarseDirect(H), 0);
    Vec      x, b;
    PetscInt fs, fe;
    MatCreateVecs(Ause, &x, &b);
    VecGetOwnershipRange(b, &fs, &fe);
    StdToVec(std::vector<Scalar>(bs.begin() + fs, bs.begin() + fe), b);
    {
      JacobiOps ops(H);
      /* the K-cycle also with the early exit (the ranks' sums added before the host's test) and with six inner steps
         (orthogonalisation against two groups of directions) */
      for (auto p : {Params(MGCycleType::V, 2, 2), Params(MGCycleType::K, 1, 1), Params(MGCycleType::K, 1, 1, 2, 0.5), Params(MGCycleType::K, 1, 1, 6)}) {
        ASSERT_EQ((int)MGCycleApply(H, ops, p, b, x, true), 0);
        auto xl = VecToStd(x);
        if (dist) {
          std::vector<Scalar> all(n);
          std::vector<int>    cnt = {(int)m0, (int)(n - m0)}, dsp = {0, (int)m0};
          MPI_Allgatherv(xl.data(), (int)xl.size(), MPIU_SCALAR, all.data(), cnt.data(), dsp.data(), MPIU_SCALAR, PETSC_COMM_WORLD);
          xl = all;
        }
        results.push_back(xl);
      }
    }
    VecDestroy(&x);
    VecDestroy(&b);
    MGHierarchyReset(H);
    MatDestroy(&Aseq);
  }
  ASSERT_EQ(results.size(), 8u);
  EXPECT_LT(RelErr(results[0], results[4]), 1e-12) << "V-cycle, rank " << rank;
  EXPECT_LT(RelErr(results[1], results[5]), 1e-12) << "K-cycle, rank " << rank;
  EXPECT_LT(RelErr(results[2], results[6]), 1e-12) << "K-cycle with the early exit, rank " << rank;
  EXPECT_LT(RelErr(results[3], results[7]), 1e-12) << "K-cycle with six inner steps, rank " << rank;
  MatDestroy(&A);
}

/* ------------------------------------------------------------------------------------------------------------- */
/* The distributed device Galerkin setup (MGHierarchyAddLevelDevice with local and ghost blocks, the design of PETSc's
   MatPtAP() for MPIAIJ) against the host setup (MatPtAP itself) on any number of ranks (ctest runs the MGMPIN tests
   at 1, 2, 3 and 4): odd grids, uneven partitions with a rank of no rows, the coarse operators, R and P, a numeric
   refresh after new values of A, and truncated transfers. Operators are compared by their products with random
   vectors (relative 2-norm of the difference). */
namespace
{
/* 2D tensor interpolation of an N x N grid (natural ordering) */
HostCsr Interp2D(Int N)
{
  const HostCsr p = Interp1D(N);
  const Int     Nc = p.ncols;
  HostCsr       P;
  P.nrows = N * N, P.ncols = Nc * Nc;
  P.rowptr.push_back(0);
  for (Int j = 0; j < N; j++)
    for (Int i = 0; i < N; i++) {
      std::vector<std::pair<Int, Scalar>> row;
      for (Int b = p.rowptr[j]; b < p.rowptr[j + 1]; b++)
        for (Int a = p.rowptr[i]; a < p.rowptr[i + 1]; a++) row.push_back({p.colidx[a] + Nc * p.colidx[b], p.vals[a] * p.vals[b]});
      std::sort(row.begin(), row.end());
      for (auto &e : row) P.colidx.push_back(e.first), P.vals.push_back(e.second);
      P.rowptr.push_back((Int)P.colidx.size());
    }
  return P;
}

/* 9-point operator of an N x N grid with varying coefficients (an SPD M-matrix, nonsymmetric values off the
   diagonal would do as well for the products) */
HostCsr Box2D(Int N, unsigned seed)
{
  std::mt19937 g(seed);
  HostCsr      A;
  A.nrows = A.ncols = N * N;
  A.rowptr.push_back(0);
  for (Int j = 0; j < N; j++)
    for (Int i = 0; i < N; i++) {
      Scalar diag = 0.1;
      for (Int dj = -1; dj <= 1; dj++)
        for (Int di = -1; di <= 1; di++) {
          const Int ii = i + di, jj = j + dj;
          if (ii < 0 || jj < 0 || ii >= N || jj >= N) continue;
          if (di == 0 && dj == 0) {
            A.colidx.push_back(ii + N * jj), A.vals.push_back(0.0); /* set below */
            continue;
          }
          const Scalar w = -(0.5 + (g() % 1000) / 1000.0) / (di && dj ? 2.0 : 1.0);
          A.colidx.push_back(ii + N * jj), A.vals.push_back(w);
          diag -= 1.5 * w;
        }
      for (Int k = A.rowptr.back(); k < (Int)A.colidx.size(); k++)
        if (A.colidx[k] == i + N * j) A.vals[k] = diag;
      A.rowptr.push_back((Int)A.colidx.size());
    }
  return A;
}

/* this rank's rows [fs, fe) of a global host matrix as an MPIAIJ matrix with cn local columns */
Mat RowsToMat(const HostCsr &h, Int fs, Int fe, Int cn)
{
  Mat A;
  MatCreateAIJ(PETSC_COMM_WORLD, fe - fs, cn, h.nrows, h.ncols, 9, NULL, 9, NULL, &A);
  for (Int i = fs; i < fe; i++) MatSetValues(A, 1, &i, h.rowptr[i + 1] - h.rowptr[i], h.colidx.data() + h.rowptr[i], h.vals.data() + h.rowptr[i], INSERT_VALUES);
  MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY);
  MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY);
  return A;
}

/* this rank's rows [fs, fe) of a global interpolation as the blocks of the device setup: columns [cs, ce) local */
void RowsToBlocks(const HostCsr &P, Int fs, Int fe, Int cs, Int ce, CsrMatrix &Pd, CsrMatrix &Po, std::vector<PetscInt> &gP)
{
  HostCsr d, o;
  gP.clear();
  for (Int k = P.rowptr[fs]; k < P.rowptr[fe]; k++)
    if (P.colidx[k] < cs || P.colidx[k] >= ce) gP.push_back(P.colidx[k]);
  std::sort(gP.begin(), gP.end());
  gP.erase(std::unique(gP.begin(), gP.end()), gP.end());
  d.nrows = o.nrows = fe - fs, d.ncols = ce - cs, o.ncols = (Int)gP.size();
  d.rowptr.push_back(0), o.rowptr.push_back(0);
  for (Int i = fs; i < fe; i++) {
    for (Int k = P.rowptr[i]; k < P.rowptr[i + 1]; k++) {
      const Int c = P.colidx[k];
      if (c >= cs && c < ce) d.colidx.push_back(c - cs), d.vals.push_back(P.vals[k]);
      else o.colidx.push_back((Int)(std::lower_bound(gP.begin(), gP.end(), c) - gP.begin())), o.vals.push_back(P.vals[k]);
    }
    d.rowptr.push_back((Int)d.colidx.size()), o.rowptr.push_back((Int)o.colidx.size());
  }
  Pd = ToDeviceCsr(d);
  Po = ToDeviceCsr(o);
}

/* ||M1 x - M2 x|| / ||M1 x|| for a random x (device matrices of the same layouts; those of the host setup are the
   copies of its host matrices that the cycles use, truncated like the device ones) */
double OperatorDiff(PetscKPDeviceMat M1, PetscKPDeviceMat M2, unsigned seed)
{
  Vec       x, y1, y2;
  PetscInt  s;
  PetscReal nd, n1;
  if (M1->m != M2->m || M1->n != M2->n || M1->M != M2->M || M1->N != M2->N) return INFINITY;
  VecCreateMPI(PETSC_COMM_WORLD, M1->n, PETSC_DETERMINE, &x);
  VecCreateMPI(PETSC_COMM_WORLD, M1->m, PETSC_DETERMINE, &y1);
  VecDuplicate(y1, &y2);
  VecGetOwnershipRange(x, &s, NULL);
  StdToVec(RandomVector(M1->n, seed + (unsigned)s), x);
  if (PetscKPDeviceMatMult(M1, x, y1) || PetscKPDeviceMatMult(M2, x, y2)) return INFINITY;
  VecAXPY(y2, -1.0, y1);
  VecNorm(y2, NORM_2, &nd);
  VecNorm(y1, NORM_2, &n1);
  VecDestroy(&x);
  VecDestroy(&y1);
  VecDestroy(&y2);
  return n1 > 0 ? nd / n1 : nd;
}

/* A = D A D with a random positive diagonal D in [0.5, 2] (new values, the same pattern; seed + the rank's first row) */
void ScaleSymmetric(Mat A, unsigned seed)
{
  Vec      dv;
  PetscInt nl, s;
  MatCreateVecs(A, &dv, NULL);
  VecGetLocalSize(dv, &nl);
  VecGetOwnershipRange(dv, &s, NULL);
  StdToVec(RandomVector(nl, seed + (unsigned)s, 0.5, 2.0), dv);
  MatDiagonalScale(A, dv, dv);
  VecDestroy(&dv);
}

/* the fine partition of n rows over the ranks: uneven, rank 1 of 3 or more with no rows */
std::vector<Int> UnevenPartition(Int n, PetscMPIInt size)
{
  std::vector<Int> off(size + 1, 0);
  Int              w = 0;
  for (PetscMPIInt p = 0; p < size; p++) w += (size >= 3 && p == 1) ? 0 : p + 2;
  for (PetscMPIInt p = 0; p < size; p++) off[p + 1] = off[p] + ((size >= 3 && p == 1) ? 0 : (n * (p + 2)) / w);
  off[size] = n;
  return off;
}
} // namespace

TEST(MGMPIN, DeviceGalerkinMatchesHostMatPtAP)
{
  PetscMPIInt size, rank;
  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
  for (int dim = 1; dim <= 2; dim++)
    for (Int N : dim == 1 ? std::vector<Int>{1, 13, 597} : std::vector<Int>{3, 13, 29}) {
      SCOPED_TRACE("dim " + std::to_string(dim) + " N " + std::to_string(N) + " ranks " + std::to_string(size));
      const Int        n   = dim == 1 ? N : N * N;
      HostCsr          h   = dim == 1 ? Laplace1D(N, 0.05) : Box2D(N, 5);
      std::vector<Int> off = UnevenPartition(n, size);
      Mat              A   = RowsToMat(h, off[rank], off[rank + 1], off[rank + 1] - off[rank]);
      MGHierarchy      Hh, Hd;
      ASSERT_EQ((int)MGHierarchyCreate(PETSC_COMM_WORLD, A, false, Hh), 0);
      ASSERT_EQ((int)MGHierarchyCreate(PETSC_COMM_WORLD, A, true, Hd), 0);
      /* levels down to 1 point per direction, the coarse points owned by the owners of their fine points */
      std::vector<Int> fo = off;
      for (Int Nf = N; Nf > 2;) {
        const Int        Nc = (Nf + 1) / 2;
        HostCsr          P  = dim == 1 ? Interp1D(Nf) : Interp2D(Nf);
        std::vector<Int> co(size + 1, 0);
        for (PetscMPIInt p = 0; p < size; p++) {
          Int c = 0;
          for (Int I = 0; I < P.ncols; I++) {
            const Int fi = dim == 1 ? 2 * I : 2 * (I % Nc) + Nf * 2 * (I / Nc); /* the fine point of coarse point I */
            c += fi >= fo[p] && fi < fo[p + 1];
          }
          co[p + 1] = co[p] + c;
        }
        Mat Ph = RowsToMat(P, fo[rank], fo[rank + 1], co[rank + 1] - co[rank]);
        ASSERT_EQ((int)MGHierarchyAddLevelHost(Hh, Ph), 0);
        CsrMatrix             Pd, Po;
        std::vector<PetscInt> gP;
        RowsToBlocks(P, fo[rank], fo[rank + 1], co[rank], co[rank + 1], Pd, Po, gP);
        ASSERT_EQ((int)MGHierarchyAddLevelDevice(Hd, Pd, Po, gP), 0);
        fo = co;
        Nf = Nc;
      }
      ASSERT_EQ((int)MGHierarchySetUpVecs(Hh), 0);
      ASSERT_EQ((int)MGHierarchySetUpVecs(Hd), 0);
      ASSERT_EQ(Hh.levels.size(), Hd.levels.size());
      auto compare = [&](const char *what) {
        for (size_t l = 0; l < Hh.levels.size(); l++) {
          SCOPED_TRACE(std::string(what) + ", level " + std::to_string(l));
          EXPECT_EQ(Hh.levels[l].nlocal, Hd.levels[l].nlocal);
          EXPECT_LT(OperatorDiff(Hh.levels[l].Ad, Hd.levels[l].Ad, 7 + (unsigned)l), 1e-13);
          if (l + 1 < Hh.levels.size()) {
            EXPECT_LT(OperatorDiff(Hh.levels[l].Pd, Hd.levels[l].Pd, 11), 1e-14);
            EXPECT_LT(OperatorDiff(Hh.levels[l].Rd, Hd.levels[l].Rd, 13), 1e-14);
          }
        }
      };
      compare("setup");
      /* new values of A (D A D, same pattern): the numeric products */
      ScaleSymmetric(A, 99);
      for (MGHierarchy *H : {&Hh, &Hd}) {
        ASSERT_EQ((int)MGHierarchyRefreshFine(*H), 0);
        ASSERT_EQ((int)MGHierarchyRefreshCoarse(*H), 0);
      }
      compare("refresh");
      /* truncated transfers on level 0 (a random mask), and back */
      if (Hh.levels.size() > 1) {
        Vec      keep;
        PetscInt nl, s;
        MatCreateVecs(A, &keep, NULL);
        VecGetLocalSize(keep, &nl);
        VecGetOwnershipRange(keep, &s, NULL);
        std::vector<Scalar> k(nl);
        for (PetscInt i = 0; i < nl; i++) k[i] = ((s + i) * 7919) % 5 == 0 ? 0.0 : 1.0;
        StdToVec(k, keep);
        for (MGHierarchy *H : {&Hh, &Hd}) ASSERT_EQ((int)MGHierarchyTruncate(*H, 0, keep), 0);
        compare("truncated");
        for (MGHierarchy *H : {&Hh, &Hd}) ASSERT_EQ((int)MGHierarchyUntruncate(*H, true), 0);
        compare("untruncated");
        VecDestroy(&keep);
      }
      MGHierarchyReset(Hh);
      MGHierarchyReset(Hd);
      MatDestroy(&A);
    }
}

/* The aggregation product under MPI (MGHierarchyAddLevelAggregation: A's local block and its ghost block, whose
   columns' aggregates come from their owners) against the distributed R A P of the same piecewise-constant P
   (MGHierarchyAddLevelDevice with P's local block from the aggregates), on 1-4 ranks with a rank of no rows: two
   coarse levels, fine points in no aggregate (-1), at the setup and after new values of A, and the restriction and
   prolongation of the cycles (the aggregation kernels against R and P) */
namespace
{
/* the layer's transfers alone (no smoothing) */
class TransferOps : public MGLevelOps {
public:
  explicit TransferOps(MGHierarchy &H) : MGLevelOps(H) { }
  PetscErrorCode Smooth(PetscInt, Vec, Vec, PetscInt, MGSweepDirection, bool) override { return PETSC_SUCCESS; }
};
} // namespace

TEST(MGMPIN, AggregationProductMatchesDistributedRap)
{
  PetscMPIInt size, rank;
  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
  for (int dim = 1; dim <= 2; dim++)
    for (Int N : dim == 1 ? std::vector<Int>{1, 13, 597} : std::vector<Int>{3, 13, 29}) {
      SCOPED_TRACE("dim " + std::to_string(dim) + " N " + std::to_string(N) + " ranks " + std::to_string(size));
      const Int        n   = dim == 1 ? N : N * N;
      HostCsr          h   = dim == 1 ? Laplace1D(N, 0.05) : Box2D(N, 7);
      std::vector<Int> off = UnevenPartition(n, size);
      Mat              A   = RowsToMat(h, off[rank], off[rank + 1], off[rank + 1] - off[rank]);
      MGHierarchy      Ha, Hr;
      ASSERT_EQ((int)MGHierarchyCreate(PETSC_COMM_WORLD, A, true, Ha), 0);
      ASSERT_EQ((int)MGHierarchyCreate(PETSC_COMM_WORLD, A, true, Hr), 0);
      Int nl = off[rank + 1] - off[rank], fs = off[rank];
      for (int lev = 0; lev < 2; lev++) {
        /* this rank's rows in groups of 3 consecutive rows; on the first level every 7th global row in none */
        std::vector<Int> a(nl);
        Int              nagg = 0;
        for (Int i = 0, g = 0; i < nl; i++) {
          if (lev == 0 && (fs + i) % 7 == 3) {
            a[i] = -1;
            continue;
          }
          if (g % 3 == 0) nagg++;
          a[i] = nagg - 1, g++;
        }
        View<Int>   da = ToDevice(a);
        Aggregation agg;
        ASSERT_EQ(AggregationCreate(nl, nagg, ucv(da), agg), 0);
        ASSERT_EQ((int)MGHierarchyAddLevelAggregation(Ha, agg), 0);
        CsrMatrix Pd, Po;
        AggregationToCsr(agg, Pd);
        Po.nrows = nl;
        Po.rowptr = View<Int>("empty ghost block", nl + 1);
        ASSERT_EQ((int)MGHierarchyAddLevelDevice(Hr, Pd, Po, std::vector<PetscInt>()), 0);
        PetscInt cs = 0, nc = nagg;
        MPI_Exscan(&nc, &cs, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD);
        fs = rank ? cs : 0, nl = nagg;
      }
      ASSERT_EQ((int)MGHierarchySetUpVecs(Ha), 0);
      ASSERT_EQ((int)MGHierarchySetUpVecs(Hr), 0);
      ASSERT_EQ(Ha.levels.size(), Hr.levels.size());
      auto compare = [&](const char *what) {
        for (size_t l = 0; l < Ha.levels.size(); l++) {
          SCOPED_TRACE(std::string(what) + ", level " + std::to_string(l));
          EXPECT_EQ(Ha.levels[l].nlocal, Hr.levels[l].nlocal);
          EXPECT_EQ((bool)Ha.levels[l].Ad->mpi, size > 1);
          EXPECT_LT(OperatorDiff(Ha.levels[l].Ad, Hr.levels[l].Ad, 17 + (unsigned)l), 1e-13);
        }
      };
      compare("setup");
      {
        /* the transfers of the cycles: R r and P e of the aggregation kernels against R and P of the products */
        TransferOps ops_a(Ha), ops_r(Hr);
        for (size_t l = 0; l + 1 < Ha.levels.size(); l++) {
          SCOPED_TRACE("transfers, level " + std::to_string(l));
          MGLevel &F = Ha.levels[l], &C = Ha.levels[l + 1];
          Vec      r, ca, cr, xa, xr;
          PetscInt s;
          VecDuplicate(F.r, &r);
          VecDuplicate(F.r, &xa);
          VecDuplicate(F.r, &xr);
          VecDuplicate(C.r, &ca);
          VecDuplicate(C.r, &cr);
          VecGetOwnershipRange(r, &s, NULL);
          StdToVec(RandomVector(F.nlocal, 5 + (unsigned)s), r);
          ASSERT_EQ((int)ops_a.Restrict((PetscInt)l, r, ca), 0);
          ASSERT_EQ((int)ops_r.Restrict((PetscInt)l, r, cr), 0);
          EXPECT_LT(RelErr(VecToStd(ca), VecToStd(cr)), 1e-14);
          VecCopy(r, xa);
          VecCopy(r, xr);
          ASSERT_EQ((int)ops_a.ProlongAdd((PetscInt)l, ca, xa), 0);
          ASSERT_EQ((int)ops_r.ProlongAdd((PetscInt)l, ca, xr), 0);
          EXPECT_LT(RelErr(VecToStd(xa), VecToStd(xr)), 1e-14);
          for (Vec *v : {&r, &ca, &cr, &xa, &xr}) VecDestroy(v);
        }
      }
      /* new values of A (D A D, same pattern): the numeric products */
      ScaleSymmetric(A, 77);
      for (MGHierarchy *H : {&Ha, &Hr}) {
        ASSERT_EQ((int)MGHierarchyRefreshFine(*H), 0);
        ASSERT_EQ((int)MGHierarchyRefreshCoarse(*H), 0);
      }
      compare("refresh");
      /* an aggregation of another number of rows (here on rank 0 only) is an error on every rank */
      {
        const Int   nc = Ha.levels.back().nlocal + (rank == 0 ? 1 : 0);
        View<Int>   da("bad aggregation", nc);
        Aggregation bad;
        ASSERT_EQ(AggregationCreate(nc, nc > 0 ? 1 : 0, ucv(da), bad), 0);
        PetscPushErrorHandler(PetscReturnErrorHandler, nullptr);
        PetscErrorCode ierr = MGHierarchyAddLevelAggregation(Ha, bad);
        PetscPopErrorHandler();
        EXPECT_EQ((int)ierr, (int)PETSC_ERR_ARG_SIZ);
      }
      MGHierarchyReset(Ha);
      MGHierarchyReset(Hr);
      MatDestroy(&A);
    }
}

/* MGCoarseReplica: the coarsest operator of any number of ranks on every rank, entry for entry (serial reference:
   the host CSR), its values again after the operator changed, and the gather and scatter of level vectors */
TEST(MGMPIN, CoarseReplicaMatchesTheOperator)
{
  PetscMPIInt size, rank;
  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
  for (Int N : {1, 3, 13, 29}) {
    SCOPED_TRACE("N " + std::to_string(N) + " ranks " + std::to_string(size));
    const Int        n   = N * N;
    HostCsr          h   = Box2D(N, 5);
    std::vector<Int> off = UnevenPartition(n, size);
    const Int        rstart = off[rank], m = off[rank + 1] - off[rank];
    Mat              A;
    ASSERT_EQ((int)MatCreateAIJ(PETSC_COMM_WORLD, m, m, n, n, 9, NULL, 9, NULL, &A), 0);
    for (Int i = rstart; i < rstart + m; i++) MatSetValues(A, 1, &i, h.rowptr[i + 1] - h.rowptr[i], h.colidx.data() + h.rowptr[i], h.vals.data() + h.rowptr[i], INSERT_VALUES);
    MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY);
    MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY);
    PetscKPDeviceMat Ad;
    MGCoarseReplica  R;
    ASSERT_EQ((int)PetscKPDeviceMatCreate(A, PETSCKP_FORMAT_CSR, &Ad), 0);
    ASSERT_EQ((int)MGCoarseReplicaSetUp(PETSC_COMM_WORLD, Ad, R), 0);
    for (double f : {1.0, -2.5}) {
      if (f != 1.0) { /* new values, same pattern */
        MatScale(A, f);
        ASSERT_EQ((int)PetscKPDeviceMatUpdateValues(Ad), 0);
        ASSERT_EQ((int)MGCoarseReplicaRefresh(PETSC_COMM_WORLD, Ad, R), 0);
      }
      HostCsr g = ToHostCsr(R.A);
      ASSERT_EQ(g.nrows, n);
      ASSERT_EQ(g.rowptr, h.rowptr);
      EXPECT_EQ(g.colidx, h.colidx);
      double e = 0;
      for (size_t k = 0; k < h.vals.size(); k++) e = std::max(e, std::abs((double)(g.vals[k] - f * h.vals[k])));
      EXPECT_EQ(e, 0.0);
    }
    /* vectors: gather the whole, scatter this rank's rows */
    Vec x, y;
    MatCreateVecs(A, &x, &y);
    auto xs = RandomVector(n, 31);
    StdToVec(std::vector<Scalar>(xs.begin() + rstart, xs.begin() + rstart + m), x);
    View<Scalar> full("full", n);
    ASSERT_EQ((int)MGCoarseReplicaGather(PETSC_COMM_WORLD, R, x, full), 0);
    EXPECT_EQ(RelErr(ToHost(full), xs), 0.0);
    VecSet(y, NAN);
    ASSERT_EQ((int)MGCoarseReplicaScatter(R, full, y), 0);
    EXPECT_EQ(RelErr(VecToStd(y), std::vector<Scalar>(xs.begin() + rstart, xs.begin() + rstart + m)), 0.0);
    /* values and two vectors in one gather */
    {
      View<Scalar> full2("full2", n);
      Vec          vs[2] = {x, y};
      View<Scalar> fs[2] = {full2, full};
      Kokkos::deep_copy(full, NAN);
      ASSERT_EQ((int)MGCoarseReplicaGatherAll(PETSC_COMM_WORLD, Ad, R, 2, vs, fs), 0);
      EXPECT_EQ(RelErr(ToHost(full2), xs), 0.0);
      EXPECT_EQ(RelErr(ToHost(full), xs), 0.0);
      HostCsr g = ToHostCsr(R.A);
      double  e = 0;
      for (size_t k = 0; k < h.vals.size(); k++) e = std::max(e, std::abs((double)(g.vals[k] + 2.5 * h.vals[k])));
      EXPECT_EQ(e, 0.0);
    }
    /* integers of the rows */
    std::vector<Int> li(m), gi;
    for (Int i = 0; i < m; i++) li[i] = 7 * (rstart + i) + 1;
    ASSERT_EQ((int)MGCoarseReplicaGatherInt(PETSC_COMM_WORLD, R, li, gi), 0);
    ASSERT_EQ((Int)gi.size(), n);
    for (Int i = 0; i < n; i++) EXPECT_EQ(gi[i], 7 * i + 1);
    VecDestroy(&x);
    VecDestroy(&y);
    PetscKPDeviceMatDestroy(&Ad);
    MatDestroy(&A);
  }
}

/* The coloured Gauss-Seidel sweeps of the multigrid layer (MGLevelColourSweeps) on a distributed operator (the 9-point
   box of random values, 4 parity colours, uneven partitions with an empty rank at 3 and 4 ranks), forward and
   backward, against a serial reference on the whole vector: per colour (the other processes' values exchanged before
   every colour: the sweep of one process) and hybrid (exchanged once per sweep: Jacobi between processes) */
TEST(MGMPIN, ColourSweepsPerColourAndHybrid)
{
  PetscMPIInt size, rank;
  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
  for (Int N : {1, 3, 13, 29}) {
    const Int        n = N * N;
    HostCsr          h = Box2D(N, 7);
    std::vector<Int> off = UnevenPartition(n, size), owner(n), colour(n);
    for (PetscMPIInt p = 0; p < size; p++)
      for (Int i = off[p]; i < off[p + 1]; i++) owner[i] = p;
    for (Int i = 0; i < n; i++) colour[i] = (i % N) % 2 + 2 * ((i / N) % 2);
    const Int        rstart = off[rank], m = off[rank + 1] - off[rank];
    Mat              A = RowsToMat(h, rstart, rstart + m, m);
    MGHierarchy      H;
    ASSERT_EQ((int)MGHierarchyCreate(PETSC_COMM_WORLD, A, true, H), 0);
    ASSERT_EQ((int)MGHierarchySetUpVecs(H), 0);
    ColourPartition  P;
    ASSERT_EQ(ColourPartitionCreate(m, ucv(kptest::ToDevice(std::vector<Int>(colour.begin() + rstart, colour.begin() + rstart + m))), 4, P), 0);
    const std::vector<Int> ids = {0, 1, 2, 3};
    const auto             bs = RandomVector(n, 41), x0 = RandomVector(n, 43);
    for (bool hybrid : {false, true})
      for (bool backward : {false, true}) {
        SCOPED_TRACE("N " + std::to_string(N) + " ranks " + std::to_string(size) + (hybrid ? " hybrid" : " per colour") + (backward ? " backward" : " forward"));
        const PetscInt sweeps = 2;
        const Real     omega  = 0.9;
        /* the reference: all rows of a colour at once from the values before it; the other processes' values from
           the start of the sweep when hybrid */
        std::vector<Scalar> xr = x0;
        for (PetscInt s = 0; s < sweeps; s++) {
          const std::vector<Scalar> start = xr;
          for (int cc = 0; cc < 4; cc++) {
            const Int           c = backward ? 3 - cc : cc;
            std::vector<Scalar> xn = xr;
            for (Int i = 0; i < n; i++) {
              if (colour[i] != c) continue;
              Scalar r = bs[i], d = 0;
              for (Int k = h.rowptr[i]; k < h.rowptr[i + 1]; k++) {
                const Int j = h.colidx[k];
                r -= h.vals[k] * (hybrid && owner[j] != owner[i] ? start[j] : xr[j]);
                if (j == i) d = h.vals[k];
              }
              xn[i] = xr[i] + omega * r / d;
            }
            xr = xn;
          }
        }
        Vec x, b;
        MatCreateVecs(A, &x, &b);
        StdToVec(std::vector<Scalar>(bs.begin() + rstart, bs.begin() + rstart + m), b);
        StdToVec(std::vector<Scalar>(x0.begin() + rstart, x0.begin() + rstart + m), x);
        ASSERT_EQ((int)MGLevelColourSweeps(H, 0, P, ids, sweeps, omega, backward, b, x, nullptr, nullptr, hybrid), 0);
        EXPECT_LE(RelErr(VecToStd(x), std::vector<Scalar>(xr.begin() + rstart, xr.begin() + rstart + m)), 1e-13);
        VecDestroy(&x);
        VecDestroy(&b);
      }
    MGHierarchyReset(H);
    MatDestroy(&A);
  }
}

/* ------------------------------------------------------------------------------------------------------------- */
/* Replicated coarse levels (section 7 of kp_mg.hpp): a distributed hierarchy whose coarsest level is replicated on
   every rank, with coarser levels built on the replica by aggregates that cross the ranks, against the same levels
   on one process (the whole operator, the same aggregates): V-, W- and K-cycles (the GCG of the first replicated
   level on the replica, with and without V-cycles below a level) give the same result on every rank's rows, also
   after new values of the operator (numeric refresh of the distributed and the replicated levels). Weighted Jacobi
   smoothing, whose result does not depend on the partition. */
namespace
{
class DeviceJacobiOps : public MGLevelOps {
public:
  explicit DeviceJacobiOps(MGHierarchy &H) : MGLevelOps(H) { Diagonals(); }
  ~DeviceJacobiOps()
  {
    for (Vec &d : dinv) VecDestroy(&d);
  }
  void Diagonals()
  {
    for (Vec &d : dinv) VecDestroy(&d);
    dinv.clear();
    for (MGLevel &L : Hierarchy().levels) {
      Vec       d;
      DeviceVec dv;
      VecDuplicate(L.r, &d);
      dv.Get(d, Access::Write);
      CsrDiagonal(DeviceMatLocalCsr(L.Ad), dv.view());
      dv.Restore();
      VecReciprocal(d);
      dinv.push_back(d);
    }
  }
  PetscErrorCode Smooth(PetscInt l, Vec b, Vec x, PetscInt nsweeps, MGSweepDirection, bool) override
  {
    MGLevel &L = Hierarchy().levels[l];

    PetscFunctionBegin;
    for (PetscInt s = 0; s < nsweeps; s++) {
      PetscCall(Residual(l, b, x, L.r));
      PetscCall(VecPointwiseMult(L.w, L.r, dinv[l]));
      PetscCall(VecAXPY(x, 0.6, L.w));
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  std::vector<Vec> dinv;
};

/* the whole of a host matrix on this process, scaled D A D by d (empty: not scaled) */
Mat WholeToSeqMat(const HostCsr &h, const std::vector<Scalar> &d)
{
  Mat A;
  MatCreateSeqAIJ(PETSC_COMM_SELF, h.nrows, h.ncols, 9, NULL, &A);
  for (Int i = 0; i < h.nrows; i++)
    for (Int k = h.rowptr[i]; k < h.rowptr[i + 1]; k++) {
      const Int    j = h.colidx[k];
      const Scalar v = d.empty() ? h.vals[k] : d[i] * h.vals[k] * d[j];
      MatSetValue(A, i, j, v, INSERT_VALUES);
    }
  MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY);
  MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY);
  return A;
}

Aggregation GroupsOf(Int n, Int g)
{
  std::vector<Int> a(n);
  for (Int i = 0; i < n; i++) a[i] = i / g;
  Aggregation agg;
  AggregationCreate(n, (n + g - 1) / g, ucv(ToDevice(a)), agg);
  return agg;
}
} // namespace

TEST(MGMPIN, ReplicatedLevelsMatchSequential)
{
  PetscMPIInt size, rank;
  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
  if (size == 1) GTEST_SKIP() << "replication needs several ranks";
  for (Int N : {13, 29}) {
    SCOPED_TRACE("N " + std::to_string(N) + " ranks " + std::to_string(size));
    const Int        n   = N * N;
    const HostCsr    h   = Box2D(N, 11);
    std::vector<Int> off = UnevenPartition(n, size);
    const Int        fs = off[rank], nl = off[rank + 1] - off[rank];
    Mat              A  = RowsToMat(h, fs, off[rank + 1], nl);
    Mat              As = WholeToSeqMat(h, {});
    /* level 1: each rank's rows in groups of 3 (never crossing ranks); the same aggregates numbered globally */
    std::vector<Int> aglob(n);
    Int              nc1 = 0;
    for (PetscMPIInt p = 0; p < size; p++) {
      const Int np = off[p + 1] - off[p];
      for (Int i = 0; i < np; i++) aglob[off[p] + i] = nc1 + i / 3;
      nc1 += (np + 2) / 3;
    }
    MGHierarchy H, S;
    ASSERT_EQ((int)MGHierarchyCreate(PETSC_COMM_WORLD, A, true, H), 0);
    ASSERT_EQ((int)MGHierarchyAddLevelAggregation(H, GroupsOf(nl, 3)), 0);
    ASSERT_EQ((int)MGHierarchySetUpVecs(H), 0);
    ASSERT_EQ((int)MGHierarchyReplicateCoarsest(H), 0);
    ASSERT_TRUE(H.replicated);
    MGHierarchy &T = H.replicated->T;
    ASSERT_EQ(T.levels[0].nlocal, nc1);
    /* the replicated levels: pairs, then triples of consecutive rows (crossing the ranks' pieces) */
    const Int nc2 = (nc1 + 1) / 2;
    ASSERT_EQ((int)MGHierarchyAddLevelAggregation(T, GroupsOf(nc1, 2)), 0);
    ASSERT_EQ((int)MGHierarchyAddLevelAggregation(T, GroupsOf(nc2, 3)), 0);
    ASSERT_EQ((int)MGHierarchySetUpVecs(T), 0);
    ASSERT_EQ((int)MGHierarchySetUpCoarseDirect(T), 0);
    /* the reference: the same levels on one process */
    {
      Aggregation a1;
      ASSERT_EQ(AggregationCreate(n, nc1, ucv(ToDevice(aglob)), a1), 0);
      ASSERT_EQ((int)MGHierarchyCreate(PETSC_COMM_SELF, As, true, S), 0);
      ASSERT_EQ((int)MGHierarchyAddLevelAggregation(S, a1), 0);
      ASSERT_EQ((int)MGHierarchyAddLevelAggregation(S, GroupsOf(nc1, 2)), 0);
      ASSERT_EQ((int)MGHierarchyAddLevelAggregation(S, GroupsOf(nc2, 3)), 0);
      ASSERT_EQ((int)MGHierarchySetUpVecs(S), 0);
      ASSERT_EQ((int)MGHierarchySetUpCoarseDirect(S), 0);
    }
    auto check = [&](const char *what) {
      DeviceJacobiOps oh(H), ot(T), os(S);
      oh.SetReplicated(&ot);
      const std::vector<Scalar> bg = RandomVector(n, 3 + (unsigned)N);
      Vec                       bd, xd, bs, xs;
      MatCreateVecs(A, &xd, &bd);
      MatCreateVecs(As, &xs, &bs);
      StdToVec(std::vector<Scalar>(bg.begin() + fs, bg.begin() + fs + nl), bd);
      StdToVec(bg, bs);
      for (int c = 0; c < 5; c++) {
        MGCycleParams p;
        p.type        = c == 0 ? MGCycleType::V : c == 1 ? MGCycleType::W : MGCycleType::K;
        p.kcycle_its  = c == 4 ? 3 : 2;
        p.kcycle_rtol = c == 3 ? 0.25 : 0;
        p.kcycle_last = c == 4 ? 2 : -1; /* GCG on levels 1 and 2, a V-cycle below */
        SCOPED_TRACE(std::string(what) + ", cycle " + std::to_string(c));
        ASSERT_EQ((int)MGCycleApply(H, oh, p, bd, xd, true), 0);
        ASSERT_EQ((int)MGCycleApply(S, os, p, bs, xs, true), 0);
        const std::vector<Scalar> xsv = VecToStd(xs);
        EXPECT_LT(RelErr(VecToStd(xd), std::vector<Scalar>(xsv.begin() + fs, xsv.begin() + fs + nl)), 1e-12) << "rank " << rank;
        /* the W-cycle's second coarse pass starts from an iterate: gathered with the right-hand side */
        if (c == 1) {
          ASSERT_EQ((int)MGCycleApply(H, oh, p, bd, xd, false), 0);
          ASSERT_EQ((int)MGCycleApply(S, os, p, bs, xs, false), 0);
          const std::vector<Scalar> xsw = VecToStd(xs);
          EXPECT_LT(RelErr(VecToStd(xd), std::vector<Scalar>(xsw.begin() + fs, xsw.begin() + fs + nl)), 1e-12) << "iteration, rank " << rank;
        }
      }
      PetscInt nb = -1;
      EXPECT_EQ((int)MGHierarchyGetKCycleBreakdowns(H, &nb), 0);
      EXPECT_EQ(nb, 0);
      for (Vec *v : {&bd, &xd, &bs, &xs}) VecDestroy(v);
    };
    check("setup");
    /* new values D A D (the same pattern) */
    {
      std::vector<Scalar> d(n);
      Vec                 dv;
      for (Int i = 0; i < n; i++) d[i] = 1.0 + (Scalar)(i % 5) / 4;
      MatCreateVecs(A, &dv, NULL);
      StdToVec(std::vector<Scalar>(d.begin() + fs, d.begin() + fs + nl), dv);
      MatDiagonalScale(A, dv, dv);
      VecDestroy(&dv);
      MatDestroy(&As);
      As = WholeToSeqMat(h, d);
      MGHierarchyReset(S);
      Aggregation a1;
      ASSERT_EQ(AggregationCreate(n, nc1, ucv(ToDevice(aglob)), a1), 0);
      ASSERT_EQ((int)MGHierarchyCreate(PETSC_COMM_SELF, As, true, S), 0);
      ASSERT_EQ((int)MGHierarchyAddLevelAggregation(S, a1), 0);
      ASSERT_EQ((int)MGHierarchyAddLevelAggregation(S, GroupsOf(nc1, 2)), 0);
      ASSERT_EQ((int)MGHierarchyAddLevelAggregation(S, GroupsOf(nc2, 3)), 0);
      ASSERT_EQ((int)MGHierarchySetUpVecs(S), 0);
      ASSERT_EQ((int)MGHierarchySetUpCoarseDirect(S), 0);
      ASSERT_EQ((int)MGHierarchyRefreshFine(H), 0);
      ASSERT_EQ((int)MGHierarchyRefreshCoarse(H), 0);
      ASSERT_EQ((int)MGHierarchyRefreshReplicated(H), 0);
    }
    check("refresh");
    MGHierarchyReset(H);
    EXPECT_FALSE(H.replicated);
    MGHierarchyReset(S);
    MatDestroy(&A);
    MatDestroy(&As);
  }
}
