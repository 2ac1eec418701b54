/* Unit tests of the radix-q PSCR kernels (src/pc/pscr/pscr_kernels): exactness of one application against the
   operator applied by a plain serial stencil loop, 1D-3D, radix 2-5, any n (odd, prime, q^j and q^j +- 1), Dirichlet,
   Neumann, Robin ends, non-uniform meshes, tridiagonal (Q1) mass factors, shifts changed without a new setup. */
#include "kp_test.hpp"
#include "pc/pscr/pscr_kernels.hpp"
#include <petscksp.h>
#include <petsckp.h>

namespace
{
using namespace kptest;
using petsckp::pscr::Factor;

enum class Bc { Dirichlet, Neumann, Robin, FD, Q1 };

/* 1D factors of -u'' on n nodes with the given ends: lumped linear FE on a random non-uniform mesh (Dirichlet,
   Neumann, Robin), the plain 3-point difference with M = I (FD), or bilinear FE with the consistent (tridiagonal)
   mass matrix (Q1, Dirichlet) */
Factor Make1D(Int n, Bc bc, unsigned seed)
{
  std::mt19937                           g(seed);
  std::uniform_real_distribution<double> u(0.5, 1.5);
  Factor                                 F;
  const bool                             natural = bc == Bc::Neumann || bc == Bc::Robin;
  /* node spacings: Dirichlet: n + 1 intervals around n interior nodes; natural ends: n - 1 intervals */
  const Int         ni = natural ? std::max<Int>(n - 1, 1) : n + 1;
  std::vector<Real> h(ni);
  for (auto &x : h) x = u(g) / (ni);
  F.ad.assign(n, 0);
  F.ao.assign(n > 0 ? n - 1 : 0, 0);
  F.md.assign(n, 0);
  if (bc == Bc::FD) {
    const Real s = (Real)(n + 1) * (n + 1);
    for (Int i = 0; i < n; i++) F.ad[i] = 2 * s;
    for (Int i = 0; i + 1 < n; i++) F.ao[i] = -s;
    F.md.clear();
    return F;
  }
  for (Int i = 0; i < n; i++) {
    /* node i lies between intervals il (left) and ir (right), either of which may be absent at a natural end */
    const Int il = natural ? i - 1 : i, ir = natural ? i : i + 1;
    Real      a = 0, m = 0;
    if (il >= 0 && il < ni) a += 1 / h[il], m += h[il] / (bc == Bc::Q1 ? 3 : 2);
    if (ir >= 0 && ir < ni && !(natural && i == n - 1)) a += 1 / h[ir], m += h[ir] / (bc == Bc::Q1 ? 3 : 2);
    F.ad[i] = a;
    F.md[i] = m;
    if (i + 1 < n) F.ao[i] = -1 / h[ir];
  }
  if (bc == Bc::Q1) {
    F.mo.assign(n > 0 ? n - 1 : 0, 0);
    for (Int i = 0; i + 1 < n; i++) F.mo[i] = h[i + 1] / 6;
  }
  if (bc == Bc::Robin) {
    F.ad[0] += 2.5;
    F.ad[n - 1] += 0.75;
  }
  if (n == 1 && natural) { /* one node: a point mass */
    F.ad[0] = bc == Bc::Robin ? 1 : 0;
    F.md[0] = 1;
  }
  return F;
}

Real Entry(const std::vector<Real> &d, const std::vector<Real> &o, Int i, int off, Real ident)
{
  if (off == 0) return d.empty() ? ident : d[i];
  if (o.empty()) return 0;
  return off < 0 ? o[i - 1] : o[i];
}

/* y = A x, A = sum_d M1 (x) .. A_d .. (x) M_dim + c M1 (x) ... (x) M_dim, by a plain loop over the 3^dim stencil */
std::vector<Scalar> Apply(const std::vector<Factor> &F, Real c, const std::vector<Scalar> &x)
{
  const Int        dim = (Int)F.size();
  std::vector<Int> n(3, 1);
  for (Int d = 0; d < dim; d++) n[d] = F[d].n();
  std::vector<Scalar> y(x.size(), 0);
  for (Int i0 = 0; i0 < n[0]; i0++)
    for (Int i1 = 0; i1 < n[1]; i1++)
      for (Int i2 = 0; i2 < n[2]; i2++) {
        Int    idx[3] = {i0, i1, i2};
        Scalar acc    = 0;
        for (int o0 = -1; o0 <= 1; o0++)
          for (int o1 = -1; o1 <= 1; o1++)
            for (int o2 = -1; o2 <= 1; o2++) {
              int o[3] = {o0, o1, o2};
              Int j[3];
              bool ok = true;
              for (Int d = 0; d < 3; d++) {
                j[d] = idx[d] + o[d];
                if (j[d] < 0 || j[d] >= n[d] || (d >= dim && o[d] != 0)) ok = false;
              }
              if (!ok) continue;
              Real a[3], m[3];
              for (Int d = 0; d < dim; d++) {
                a[d] = Entry(F[d].ad, F[d].ao, idx[d], o[d], 0);
                m[d] = Entry(F[d].md, F[d].mo, idx[d], o[d], 1);
              }
              Real coef = c;
              for (Int d = 0; d < dim; d++) coef *= m[d];
              for (Int d = 0; d < dim; d++) {
                Real t = a[d];
                for (Int e = 0; e < dim; e++)
                  if (e != d) t *= m[e];
                coef += t;
              }
              acc += coef * x[(j[0] * n[1] + j[1]) * n[2] + j[2]];
            }
        y[(i0 * n[1] + i1) * n[2] + i2] = acc;
      }
  return y;
}

double Norm(const std::vector<Scalar> &v)
{
  double s = 0;
  for (auto x : v) s += (double)x * (double)x;
  return std::sqrt(s);
}

/* || f - A A_pscr^-1 f || / || f || */
double SolveResidual(petsckp::pscr::Solver &S, const std::vector<Factor> &F, Real c, unsigned seed, Int *failures = nullptr)
{
  Int N = 1;
  for (auto &f : F) N *= f.n();
  std::vector<Scalar> f = RandomVector(N, seed);
  auto                X = ToDevice(f);
  Int                 nf = petsckp::pscr::Apply(S, c, UView<Scalar>(X.data(), N));
  if (failures) *failures = nf;
  std::vector<Scalar> u  = ToHost(X);
  std::vector<Scalar> Au = Apply(F, c, u);
  for (Int i = 0; i < N; i++) Au[i] -= f[i];
  return Norm(Au) / std::max(Norm(f), 1e-300);
}

double Check(const std::vector<Factor> &F, Int q, Real c, unsigned seed)
{
  petsckp::pscr::Solver S;
  std::string           err = petsckp::pscr::Setup(F, q, S);
  EXPECT_EQ(err, "");
  if (!err.empty()) return INFINITY;
  Int    nf  = 0;
  double res = SolveResidual(S, F, c, seed, &nf);
  EXPECT_EQ(nf, 0);
  return res;
}
} // namespace

TEST(PSCR, Levels)
{
  EXPECT_EQ(petsckp::pscr::Levels(1, 4), 1);
  EXPECT_EQ(petsckp::pscr::Levels(3, 4), 1);
  EXPECT_EQ(petsckp::pscr::Levels(4, 4), 2);
  EXPECT_EQ(petsckp::pscr::Levels(15, 4), 2);
  EXPECT_EQ(petsckp::pscr::Levels(16, 4), 3);
  EXPECT_EQ(petsckp::pscr::Levels(4095, 4), 6);
  EXPECT_EQ(petsckp::pscr::Levels(4096, 4), 7);
  EXPECT_EQ(petsckp::pscr::Levels(255, 2), 8);
}

/* every n1 from 1 to 70 (n1 < q, q^j, q^j +- 1, short trailing blocks) for radix 2..5 */
TEST(PSCR, Exact2DAllSizesAllRadices)
{
  for (Int q = 2; q <= 5; q++)
    for (Int n1 = 1; n1 <= 70; n1++) {
      std::vector<Factor> F = {Make1D(n1, Bc::Dirichlet, 10 + n1), Make1D(9, Bc::Dirichlet, 3)};
      double              r = Check(F, q, 0, 7 + n1);
      EXPECT_LE(r, 1e-11) << "q " << q << " n1 " << n1;
    }
}

TEST(PSCR, Exact2DBoundaryTypesAndShifts)
{
  struct Case {
    Bc   b1, b2;
    Real c;
  } cases[] = {
    {Bc::Dirichlet, Bc::Dirichlet, 0},  {Bc::FD, Bc::FD, 0},        {Bc::Neumann, Bc::Neumann, 1.0}, {Bc::Robin, Bc::Robin, 0},
    {Bc::Neumann, Bc::Dirichlet, 0},    {Bc::Robin, Bc::Neumann, 0}, {Bc::Q1, Bc::Q1, 0},             {Bc::Q1, Bc::Dirichlet, 2.5},
    {Bc::Dirichlet, Bc::Robin, 37.0},   {Bc::FD, Bc::Dirichlet, -5.0},
  };
  for (const auto &cs : cases)
    for (Int q = 2; q <= 5; q++)
      for (Int n1 : {1, 13, 31, 64, 97})
        for (Int n2 : {1, 2, 17}) {
          std::vector<Factor> F = {Make1D(n1, cs.b1, 100 + n1), Make1D(n2, cs.b2, 200 + n2)};
          if (cs.c == 0 && cs.b1 == Bc::Neumann && cs.b2 == Bc::Neumann) continue;
          double r = Check(F, q, cs.c, 5);
          EXPECT_LE(r, 1e-11) << "bc " << (int)cs.b1 << "/" << (int)cs.b2 << " c " << cs.c << " q " << q << " n " << n1 << "x" << n2;
        }
}

TEST(PSCR, Exact3D)
{
  const Int sizes[][3] = {{1, 1, 1}, {7, 5, 6}, {13, 11, 9}, {16, 17, 5}, {5, 64, 3}, {2, 3, 31}};
  for (Int q = 2; q <= 5; q++)
    for (const auto &n : sizes)
      for (int variant = 0; variant < 3; variant++) {
        std::vector<Factor> F;
        Real                c = 0;
        if (variant == 0) F = {Make1D(n[0], Bc::Dirichlet, 1), Make1D(n[1], Bc::Dirichlet, 2), Make1D(n[2], Bc::Dirichlet, 3)};
        if (variant == 1) F = {Make1D(n[0], Bc::Robin, 4), Make1D(n[1], Bc::Neumann, 5), Make1D(n[2], Bc::Q1, 6)};
        if (variant == 2) F = {Make1D(n[0], Bc::Neumann, 7), Make1D(n[1], Bc::Neumann, 8), Make1D(n[2], Bc::Neumann, 9)}, c = 3.0;
        double r = Check(F, q, c, 11);
        EXPECT_LE(r, 1e-11) << "variant " << variant << " q " << q << " n " << n[0] << "x" << n[1] << "x" << n[2];
      }
}

/* one tridiagonal system; at n = 100003 on a random mesh (condition ~ 1e10) the normwise backward error
   || f - A u || / (|| A ||_inf || u ||) is checked instead */
TEST(PSCR, OneDimension)
{
  for (Int n : Sizes()) {
    if (n == 0) continue;
    std::vector<Factor>   F = {Make1D(n, Bc::Robin, 3)};
    petsckp::pscr::Solver S;
    ASSERT_EQ(petsckp::pscr::Setup(F, 4, S), "");
    std::vector<Scalar> f = RandomVector(n, 9);
    auto                X = ToDevice(f);
    EXPECT_EQ(petsckp::pscr::Apply(S, 0.5, UView<Scalar>(X.data(), n)), 0);
    std::vector<Scalar> u = ToHost(X), r = Apply(F, 0.5, u);
    double              anorm = 0;
    for (Int i = 0; i < n; i++) {
      anorm = std::max(anorm, std::abs(F[0].ad[i] + 0.5 * F[0].md[i]) + (i > 0 ? std::abs(F[0].ao[i - 1]) : 0) + (i + 1 < n ? std::abs(F[0].ao[i]) : 0));
      r[i] -= f[i];
    }
    EXPECT_LE(n <= 597 ? Norm(r) / Norm(f) : Norm(r) / (anorm * Norm(u)), 1e-11) << n;
  }
}

/* the sizes of every kernel test (0 is refused), the large one in 2D */
TEST(PSCR, KernelSizes)
{
  for (Int n : Sizes()) {
    std::vector<Factor>   F = {Make1D(n <= 597 ? n : 1023, Bc::Dirichlet, 1), Make1D(n <= 597 ? 13 : 255, Bc::Robin, 2)};
    petsckp::pscr::Solver S;
    std::string           err = petsckp::pscr::Setup(F, 4, S);
    if (n == 0) {
      EXPECT_NE(err, "");
      continue;
    }
    ASSERT_EQ(err, "");
    EXPECT_LE(SolveResidual(S, F, 0, 3), 1e-11) << n;
  }
}

/* a new shift needs no new setup; the weighted sums by threads and by teams agree */
TEST(PSCR, ShiftWithoutSetupAndSumKernels)
{
  std::vector<Factor>   F = {Make1D(300, Bc::Dirichlet, 1), Make1D(21, Bc::Neumann, 2)};
  petsckp::pscr::Solver S;
  ASSERT_EQ(petsckp::pscr::Setup(F, 4, S), "");
  for (Real c : {0.0, 1.0, 1e3, -2.0}) EXPECT_LE(SolveResidual(S, F, c, 4), 1e-11) << c;
  for (auto sk : {petsckp::pscr::SumKernel::Thread, petsckp::pscr::SumKernel::Team}) {
    S.sum = sk;
    EXPECT_LE(SolveResidual(S, F, 0.5, 4), 1e-11);
  }
  /* the shifted solves by the partition method (what the device uses for few long systems) and by PCR-Thomas */
  for (Int P : {2, 5}) {
    S.topt.alg    = petsckp::TridiagAlgorithm::Partition;
    S.topt.chunks = P;
    EXPECT_LE(SolveResidual(S, F, 0.5, 4), 1e-11) << P;
  }
  S.topt.alg       = petsckp::TridiagAlgorithm::PCRThomas;
  S.topt.pcr_steps = 2;
  EXPECT_LE(SolveResidual(S, F, 0.5, 4), 1e-11);
  /* the right-hand sides formed in a kernel of their own (G stored) instead of inside the tridiagonal solves */
  S.fuse_rhs = false;
  for (auto alg : {petsckp::TridiagAlgorithm::Thomas, petsckp::TridiagAlgorithm::Partition}) {
    S.topt.alg = alg;
    EXPECT_LE(SolveResidual(S, F, 0.5, 4), 1e-11);
  }
  std::vector<Factor> F3 = {Make1D(70, Bc::Dirichlet, 1), Make1D(40, Bc::Robin, 2), Make1D(6, Bc::Dirichlet, 3)};
  ASSERT_EQ(petsckp::pscr::Setup(F3, 3, S), "");
  S.sum = petsckp::pscr::SumKernel::Team;
  EXPECT_LE(SolveResidual(S, F3, 0, 4), 1e-11);
  S.topt.alg    = petsckp::TridiagAlgorithm::Partition;
  S.topt.chunks = 2;
  EXPECT_LE(SolveResidual(S, F3, 0, 4), 1e-11);
  S.fuse_rhs = false;
  EXPECT_LE(SolveResidual(S, F3, 0, 4), 1e-11);
}

TEST(PSCR, SingularAndBadFactors)
{
  /* pure Neumann: the smallest eigenvalue of the operator is 0 (the PC refuses c = 0) */
  std::vector<Factor>   F = {Make1D(8, Bc::Neumann, 1), Make1D(5, Bc::Neumann, 2)};
  petsckp::pscr::Solver S;
  ASSERT_EQ(petsckp::pscr::Setup(F, 4, S), "");
  EXPECT_TRUE(S.have_min);
  EXPECT_LE(std::abs(S.min_sum), 1e-12 * S.eig_scale);
  std::vector<Factor> G = {Make1D(8, Bc::Neumann, 1), Make1D(5, Bc::Robin, 2)};
  ASSERT_EQ(petsckp::pscr::Setup(G, 4, S), "");
  EXPECT_TRUE(S.have_min);
  EXPECT_GT(S.min_sum, 1e-3 * S.eig_scale);
  /* a zero shifted pivot is counted, never silently wrong */
  Factor Z;
  Z.ad = {0, 0, 0};
  Z.ao = {0, 0};
  std::vector<Factor> H = {Make1D(5, Bc::Dirichlet, 1), Z};
  ASSERT_EQ(petsckp::pscr::Setup(H, 2, S), "");
  {
    /* c = -lambda of a mode makes that mode's system zero */
    std::vector<Factor> H1 = {Z, Z};
    ASSERT_EQ(petsckp::pscr::Setup(H1, 2, S), "");
    auto X = ToDevice(std::vector<Scalar>(9, 1.0));
    EXPECT_GT(petsckp::pscr::Apply(S, 0.0, UView<Scalar>(X.data(), 9)), 0);
  }
  Factor bad = Make1D(5, Bc::Dirichlet, 1);
  bad.md[2]  = -1;
  EXPECT_NE(petsckp::pscr::Setup({bad, bad}, 4, S), "");
  bad        = Make1D(5, Bc::Dirichlet, 1);
  bad.ad[1]  = NAN;
  EXPECT_NE(petsckp::pscr::Setup({bad, bad}, 4, S), "");
  EXPECT_NE(petsckp::pscr::Setup({Make1D(5, Bc::Dirichlet, 1), Make1D(5, Bc::Dirichlet, 1)}, 1, S), "");
  EXPECT_NE(petsckp::pscr::Setup({Make1D(5, Bc::Dirichlet, 1), Make1D(5, Bc::Dirichlet, 1)}, 9, S), "");
}

/* a box solved by PSCR inside a grid of diagonal-only rows that the box couples to (Dirichlet values kept in the
   matrix, as PETSc's KSP ex45 writes them): the whole matrix is inverted exactly */
TEST(PSCR, BoundaryRowsAroundTheBox)
{
  for (Int nb : {1, 13, 40}) {
    const Int gx = nb + 2, gy = nb + 3, N = gx * gy; /* box nb x (nb + 1) at (1, 1) */
    std::vector<Factor> F = {Make1D(nb + 1, Bc::Dirichlet, 1), Make1D(nb, Bc::Dirichlet, 2)};
    for (auto &f : F) f.md.clear(); /* M = I: the box operator is a 5-point stencil */
    petsckp::pscr::Solver S;
    ASSERT_EQ(petsckp::pscr::Setup(F, 4, S), "");
    petsckp::pscr::Boundary B;
    B.identity = false;
    B.nbox     = nb * (nb + 1);
    B.lo[0] = 1, B.lo[1] = 1, B.bn[0] = nb, B.bn[1] = nb + 1, B.gn[0] = gx, B.gn[1] = gy;
    std::vector<Int>    didx, crow, ccol;
    std::vector<Scalar> dval, cval;
    std::vector<Scalar> A((size_t)N * N, 0); /* the dense reference matrix */
    auto                inbox = [&](Int i, Int j) { return i >= 1 && i <= nb && j >= 1 && j <= nb + 1; };
    for (Int j = 0; j < gy; j++)
      for (Int i = 0; i < gx; i++) {
        const Int g = j * gx + i;
        if (!inbox(i, j)) {
          didx.push_back(g);
          dval.push_back(2.0 + 0.01 * g);
          A[(size_t)g * N + g] = dval.back();
          continue;
        }
        const Int bi = i - 1, bj = j - 1, b = bj * nb + bi;
        A[(size_t)g * N + g] = F[1].ad[bi] + F[0].ad[bj];
        const Int di[4] = {-1, 1, 0, 0}, dj[4] = {0, 0, -1, 1};
        for (int k = 0; k < 4; k++) {
          const Int ii = i + di[k], jj = j + dj[k], h = jj * gx + ii;
          Real      v;
          if (inbox(ii, jj)) v = dj[k] == 0 ? F[1].ao[std::min(bi, bi + di[k])] : F[0].ao[std::min(bj, bj + dj[k])];
          else {
            v = -0.5 - 0.001 * h; /* a coupling to the outside (any value) */
            crow.push_back(b);
            ccol.push_back(h);
            cval.push_back(v);
          }
          A[(size_t)g * N + h] = v;
        }
      }
    B.didx = ToDevice(didx);
    B.dval = ToDevice(dval);
    B.crow = ToDevice(crow);
    B.ccol = ToDevice(ccol);
    B.cval = ToDevice(cval);
    std::vector<Scalar> r = RandomVector(N, 5);
    auto                dr = ToDevice(r), dz = ToDevice(std::vector<Scalar>(N, 0));
    View<Scalar>        X;
    EXPECT_EQ(petsckp::pscr::ApplyBoundary(S, B, 0.0, UView<const Scalar>(dr.data(), N), UView<Scalar>(dz.data(), N), X), 0);
    std::vector<Scalar> z = ToHost(dz), res(N, 0);
    for (Int g = 0; g < N; g++) {
      res[g] = -r[g];
      for (Int h = 0; h < N; h++) res[g] += A[(size_t)g * N + h] * z[h];
    }
    EXPECT_LE(Norm(res) / Norm(r), 1e-11) << nb;
  }
}

/* every way a level can run gives the same solution: the fused level kernels (1, 2, 4, 8 rows per thread; one group
   per block or groups of 1, 2, 5 modes whose partial sums are added afterwards), the stored path with the team
   tridiagonal solver (1, 2, 8, 16 rows per thread) and with kp_tridiag's interleaved solvers, right-hand sides formed
   inside the solves or apart, weighted sums by one thread or by groups of modes; 2D and 3D (the inner problems of 3D are the last reduced dimension), radix 2 to 8 */
TEST(PSCR, LevelKernelVariants)
{
  const Int sizes[][3] = {{1, 1, 0}, {2, 3, 0}, {13, 13, 0}, {17, 40, 0}, {64, 33, 0}, {5, 7, 9}, {13, 11, 6}, {3, 20, 17}};
  for (Int q : {2, 3, 4, 5, 8})
    for (const auto &n : sizes) {
      std::vector<Factor> F = {Make1D(n[0], Bc::Robin, 1), Make1D(n[1], n[2] ? Bc::Neumann : Bc::Q1, 2)};
      if (n[2]) F.push_back(Make1D(n[2], Bc::Q1, 3));
      petsckp::pscr::Solver S;
      ASSERT_EQ(petsckp::pscr::Setup(F, q, S), "");
      Int N = 1;
      for (auto &f : F) N *= f.n();
      const std::vector<Scalar> f = RandomVector(N, 21);
      std::vector<Scalar>       ref;
      auto                      run = [&](const char *what) {
        auto X = ToDevice(f);
        EXPECT_EQ(petsckp::pscr::Apply(S, 0.25, UView<Scalar>(X.data(), N)), 0) << what;
        std::vector<Scalar> u = ToHost(X), r = Apply(F, 0.25, u);
        for (Int i = 0; i < N; i++) r[i] -= f[i];
        EXPECT_LE(Norm(r) / Norm(f), 1e-11) << what << " q " << q << " n " << n[0] << "x" << n[1] << "x" << n[2];
        if (ref.empty()) ref = u;
        else EXPECT_LE(RelErr(u, ref), 1e-11) << what << " q " << q << " n " << n[0] << "x" << n[1] << "x" << n[2];
      };
      for (Int rows : {1, 2, 4, 8})
        for (Int modes : {0, 1, 2, 5}) {
          S.team_rows  = rows;
          S.team_modes = modes;
          run("fused");
        }
      S.team = false;
      for (Int rows : {1, 2, 8, 16}) {
        S.topt.team_rows = rows;
        S.sum_modes      = rows == 2 ? 3 : rows == 8 ? 1 : 0; /* the sums by groups of modes, added afterwards */
        run("stored, team solver");
        S.fuse_rhs = false;
        run("stored, team solver, right-hand sides apart");
        S.fuse_rhs = true;
      }
      for (auto alg : {petsckp::TridiagAlgorithm::Thomas, petsckp::TridiagAlgorithm::Partition}) {
        S.topt.alg = alg;
        S.sum_modes = alg == petsckp::TridiagAlgorithm::Thomas ? 2 : 0;
        run("stored, interleaved");
        S.fuse_rhs = false;
        run("stored, interleaved, right-hand sides apart");
        S.fuse_rhs = true;
      }
    }
}

/* a shifted system with a zero pivot is counted and its result is NaN on every level path (fused, stored with the team
   solver, stored with kp_tridiag), never a silently wrong answer: A1 = A2 = 0 and c = 0 make every system zero */
TEST(PSCR, ZeroPivotEveryPath)
{
  Factor Z1, Z2;
  Z1.ad.assign(9, 0);
  Z1.ao.assign(8, 0);
  Z2.ad.assign(13, 0);
  Z2.ao.assign(12, 0);
  petsckp::pscr::Solver S;
  ASSERT_EQ(petsckp::pscr::Setup({Z1, Z2}, 4, S), "");
  const Int N = 9 * 13;
  for (int path = 0; path < 3; path++) {
    S.team     = path == 0;
    S.topt.alg = path == 2 ? petsckp::TridiagAlgorithm::Thomas : petsckp::TridiagAlgorithm::Auto;
    auto X     = ToDevice(RandomVector(N, 3));
    EXPECT_GT(petsckp::pscr::Apply(S, 0.0, UView<Scalar>(X.data(), N)), 0) << "path " << path;
    bool nan = false;
    for (auto v : ToHost(X)) nan = nan || std::isnan((double)v);
    EXPECT_TRUE(nan) << "path " << path;
    /* a regular shift on the same setup solves again */
    X = ToDevice(RandomVector(N, 3));
    EXPECT_EQ(petsckp::pscr::Apply(S, 2.0, UView<Scalar>(X.data(), N)), 0) << "path " << path;
    for (auto v : ToHost(X)) EXPECT_TRUE(std::isfinite((double)v));
  }
}

/* the eigen setup of a block: A W = M W Lambda and W^T M W = I checked with all components (pos = every row) for the
   closed form (constant diagonals: difference Laplacian, uniform lumped and consistent mass), LAPACK's MRRR (diagonal
   M) and Crawford's reduction (tridiagonal M) on random meshes; and the closed form against MRRR on a large uniform
   block at the rows PSCR keeps */
TEST(PSCR, EigenSetupPaths)
{
  auto uniform = [](Int n, int kind) {
    Factor F;
    F.ad.assign(n, kind == 0 ? 2.0 : 2.0 * (n + 1));
    F.ao.assign(n - 1, kind == 0 ? -1.0 : -1.0 * (n + 1));
    if (kind >= 1) F.md.assign(n, kind == 1 ? 1.0 / (n + 1) : 2.0 / (3 * (n + 1)));
    if (kind == 2) F.mo.assign(n - 1, 1.0 / (6 * (n + 1)));
    return F;
  };
  for (Int n : {1, 2, 13, 597})
    for (int kind = 0; kind < 5; kind++) {
      /* 0-2: constant diagonals (difference, lumped, consistent); 3: random mesh, lumped; 4: random mesh, Q1 */
      const Factor F = kind < 3 ? uniform(n, kind) : Make1D(n, kind == 3 ? Bc::Robin : Bc::Q1, 5 + (unsigned)n);
      for (bool closed : {true, false}) {
        std::vector<Int> pos(n);
        for (Int i = 0; i < n; i++) pos[i] = i;
        std::vector<Real> lam, W;
        ASSERT_EQ(petsckp::pscr::Eigen(F, 0, n - 1, pos, lam, W, closed), "");
        auto   A = [&](Int i, Int j) { return i == j ? F.ad[i] : (std::abs(i - j) == 1 ? F.ao[std::min(i, j)] : 0.0); };
        auto   M = [&](Int i, Int j) { return i == j ? (F.md.empty() ? 1.0 : F.md[i]) : (std::abs(i - j) == 1 && !F.mo.empty() ? F.mo[std::min(i, j)] : 0.0); };
        double scale = 0, res = 0, orth = 0;
        for (Int i = 0; i < n; i++) scale = std::max(scale, std::abs(F.ad[i]) / M(i, i));
        for (Int l = 0; l < n; l++)
          for (Int i = 0; i < n; i++) {
            double r = 0;
            for (Int j = std::max<Int>(0, i - 1); j <= std::min(n - 1, i + 1); j++) r += (A(i, j) - lam[l] * M(i, j)) * W[j + l * n];
            res = std::max(res, std::abs(r) / (scale * M(i, i)));
          }
        for (Int l = 0; l < n; l += std::max<Int>(1, n / 40))
          for (Int k = 0; k < n; k++) {
            double g = 0;
            for (Int i = 0; i < n; i++)
              for (Int j = std::max<Int>(0, i - 1); j <= std::min(n - 1, i + 1); j++) g += W[i + l * n] * M(i, j) * W[j + k * n];
            orth = std::max(orth, std::abs(g - (l == k ? 1.0 : 0.0)));
          }
        EXPECT_LE(res, 1e-12) << "n " << n << " kind " << kind << " closed " << closed;
        EXPECT_LE(orth, 1e-13) << "n " << n << " kind " << kind << " closed " << closed;
      }
    }
  /* large: the closed form and MRRR agree at the rows of the top block that PSCR keeps (eigenvector signs aside) */
  const Int         n   = 2047;
  const Factor      F   = uniform(n, 1);
  std::vector<Int>  pos = {0, 511, 1023, 1535, n - 1};
  std::vector<Real> l1, w1, l2, w2;
  ASSERT_EQ(petsckp::pscr::Eigen(F, 0, n - 1, pos, l1, w1, true), "");
  ASSERT_EQ(petsckp::pscr::Eigen(F, 0, n - 1, pos, l2, w2, false), "");
  double dl = 0, dw = 0;
  for (Int k = 0; k < n; k++) {
    dl           = std::max(dl, std::abs(l1[k] - l2[k]) / l2[n - 1]);
    double sign  = 0;
    for (size_t t = 0; t < pos.size(); t++)
      if (std::abs(w2[t + k * pos.size()]) > std::abs(sign)) sign = w2[t + k * pos.size()] * w1[t + k * pos.size()] > 0 ? 1 : -1;
    for (size_t t = 0; t < pos.size(); t++) dw = std::max(dw, std::abs(w1[t + k * pos.size()] - sign * w2[t + k * pos.size()]));
  }
  EXPECT_LE(dl, 1e-14);
  EXPECT_LE(dw, 1e-10 * std::sqrt(2.0 * (n + 1))); /* components ~ sqrt(2 (n + 1)) */
}

/* ---- Detection of the factors of an assembled DMDA operator: the kernels against a plain serial reference over
   natural grid indices, on grids of 0 (a process without points), 1, 13, 597 and about 10^5 points split over 1 to 4
   processes the way a DMDA splits them (each process a box, its rows in lexicographic order, processes in rank order) */
namespace
{
using petsckp::pscr::GridLayout;

struct Layout {
  Int              gn[3], np;
  std::vector<Int> start, box; /* as GridLayout, on the host */
};

/* px x py x pz processes; the sizes of an axis split as evenly as DMDA splits them (the first ones one larger) */
Layout MakeLayout(const Int gn[3], const Int pn[3])
{
  Layout L;
  for (int d = 0; d < 3; d++) L.gn[d] = gn[d];
  L.np = pn[0] * pn[1] * pn[2];
  std::vector<Int> off[3], len[3];
  for (int d = 0; d < 3; d++) {
    Int o = 0;
    for (Int p = 0; p < pn[d]; p++) {
      const Int m = gn[d] / pn[d] + (p < gn[d] % pn[d] ? 1 : 0);
      off[d].push_back(o);
      len[d].push_back(m);
      o += m;
    }
  }
  L.start.push_back(0);
  for (Int pk = 0; pk < pn[2]; pk++)
    for (Int pj = 0; pj < pn[1]; pj++)
      for (Int pi = 0; pi < pn[0]; pi++) {
        const Int b[6] = {off[0][pi], off[1][pj], off[2][pk], len[0][pi], len[1][pj], len[2][pk]};
        L.box.insert(L.box.end(), b, b + 6);
        L.start.push_back(L.start.back() + b[3] * b[4] * b[5]);
      }
  return L;
}

GridLayout ToDevice(const Layout &L)
{
  GridLayout G;
  for (int d = 0; d < 3; d++) G.gn[d] = L.gn[d];
  G.np    = L.np;
  G.start = kptest::ToDevice(L.start);
  G.box   = kptest::ToDevice(L.box);
  return G;
}

/* PETSc row of the natural point g, and the natural point of PETSc row r */
Int PetscRow(const Layout &L, Int g)
{
  const Int i = g % L.gn[0], j = (g / L.gn[0]) % L.gn[1], k = g / (L.gn[0] * L.gn[1]);
  for (Int p = 0; p < L.np; p++) {
    const Int *b = &L.box[6 * p];
    if (i >= b[0] && i < b[0] + b[3] && j >= b[1] && j < b[1] + b[4] && k >= b[2] && k < b[2] + b[5]) return L.start[p] + ((k - b[2]) * b[4] + j - b[1]) * b[3] + i - b[0];
  }
  return -1;
}

Int Natural(const Layout &L, Int p, Int r)
{
  const Int *b = &L.box[6 * p];
  return ((b[2] + r / (b[3] * b[4])) * L.gn[1] + b[1] + (r / b[3]) % b[4]) * L.gn[0] + b[0] + r % b[3];
}

/* an operator in natural indexing: rows of (column, value) */
using NatMatrix = std::vector<std::vector<std::pair<Int, Real>>>;

/* a separable operator A_x (x) I (x) I + I (x) A_y (x) I + I (x) I (x) A_z with random tridiagonal 1D factors on the
   interior box [1, gn - 2] of the axes longer than 2, the layer around it diagonal-only rows (eliminated Dirichlet
   points, as DMDA examples write them) coupled to the box rows next to them; explicit zeros stored at random */
NatMatrix Separable(const Int gn[3], unsigned seed, std::vector<Real> fac[3][2], Int lo[3], Int hi[3])
{
  std::mt19937                           g(seed);
  std::uniform_real_distribution<double> u(0.5, 1.5);
  for (int d = 0; d < 3; d++) {
    lo[d] = gn[d] > 2 ? 1 : 0;
    hi[d] = gn[d] > 2 ? gn[d] - 2 : gn[d] - 1;
    const Int n = hi[d] - lo[d] + 1;
    fac[d][0].resize(n); /* diagonal */
    fac[d][1].resize(n > 0 ? n - 1 : 0);
    for (auto &x : fac[d][1]) x = -u(g);
    for (Int i = 0; i < n; i++) fac[d][0][i] = (n > 1 ? 2.5 : 1.0) * u(g);
  }
  const Int N = gn[0] * gn[1] * gn[2];
  NatMatrix A(N);
  for (Int k = 0; k < gn[2]; k++)
    for (Int j = 0; j < gn[1]; j++)
      for (Int i = 0; i < gn[0]; i++) {
        const Int  p[3] = {i, j, k}, row = (k * gn[1] + j) * gn[0] + i;
        const bool in   = i >= lo[0] && i <= hi[0] && j >= lo[1] && j <= hi[1] && k >= lo[2] && k <= hi[2];
        if (!in) {
          A[row].push_back({row, 1.0 + 0.01 * (row % 7)});
          if (N > 1 && g() % 5 == 0) A[row].push_back({row == 0 ? N - 1 : row - 1, 0.0}); /* a stored zero: not a coupling */
          continue;
        }
        Real diag = 0;
        for (int d = 0; d < 3; d++) diag += fac[d][0][p[d] - lo[d]];
        A[row].push_back({row, diag});
        const Int stride[3] = {1, gn[0], gn[0] * gn[1]};
        for (int d = 0; d < 3; d++)
          for (int sg = -1; sg <= 1; sg += 2) {
            const Int q = p[d] + sg;
            if (q < 0 || q >= gn[d]) continue;
            Real v;
            if (q < lo[d] || q > hi[d]) v = -0.25 - 0.001 * (row % 11); /* a coupling to an eliminated point */
            else v = fac[d][1][std::min(p[d], q) - lo[d]];
            A[row].push_back({row + sg * stride[d], v});
          }
      }
  return A;
}

/* the rows of process p as PETSc stores them: the local block (local columns) and the off-process block over the
   sorted ghost columns, entries in a random order within a row */
void Split(const Layout &L, const NatMatrix &A, Int p, unsigned seed, petsckp::CsrMatrix &Ad, petsckp::CsrMatrix &Ao, View<Int> &ghost)
{
  std::mt19937     g(seed);
  const Int        s = L.start[p], e = L.start[p + 1], nloc = e - s;
  std::vector<Int> gh;
  for (Int r = 0; r < nloc; r++)
    for (auto &c : A[Natural(L, p, r)]) {
      const Int pc = PetscRow(L, c.first);
      if (pc < s || pc >= e) gh.push_back(pc);
    }
  std::sort(gh.begin(), gh.end());
  gh.erase(std::unique(gh.begin(), gh.end()), gh.end());
  std::vector<Int>    dr{0}, dc, orp{0}, oc;
  std::vector<Scalar> dv, ov;
  for (Int r = 0; r < nloc; r++) {
    auto row = A[Natural(L, p, r)];
    std::shuffle(row.begin(), row.end(), g);
    for (auto &c : row) {
      const Int pc = PetscRow(L, c.first);
      if (pc >= s && pc < e) dc.push_back(pc - s), dv.push_back(c.second);
      else oc.push_back((Int)(std::lower_bound(gh.begin(), gh.end(), pc) - gh.begin())), ov.push_back(c.second);
    }
    dr.push_back((Int)dc.size());
    orp.push_back((Int)oc.size());
  }
  auto Csr = [](Int nr, Int nc, const std::vector<Int> &rp, const std::vector<Int> &ci, const std::vector<Scalar> &v, petsckp::CsrMatrix &M) {
    auto drp = kptest::ToDevice(rp), dci = kptest::ToDevice(ci);
    auto dvv = kptest::ToDevice(v);
    petsckp::CsrFromArrays(nr, nc, UView<const Int>(drp.data(), rp.size()), UView<const Int>(dci.data(), ci.size()), UView<const Scalar>(dvv.data(), v.size()), M);
  };
  Csr(nloc, nloc, dr, dc, dv, Ad);
  if (L.np > 1) Csr(nloc, (Int)gh.size(), orp, oc, ov, Ao);
  ghost = kptest::ToDevice(gh.empty() ? std::vector<Int>{0} : gh);
}

/* the reference star coefficients of the rows of process p and the first entry outside the star */
Int RefStar(const Layout &L, const NatMatrix &A, Int p, std::vector<Real> &s, Int bad[2])
{
  const Int nloc = L.start[p + 1] - L.start[p], M = L.gn[0], N = L.gn[1];
  Int       nbad = 0;
  s.assign(7 * (size_t)nloc, 0);
  bad[0] = bad[1] = -1;
  for (Int r = 0; r < nloc; r++) {
    const Int g = Natural(L, p, r), i = g % M, j = (g / M) % N, k = g / (M * N);
    bool      rowbad = false;
    Int       first  = -1;
    for (auto &c : A[g]) {
      if (c.second == 0) continue;
      const Int ci = c.first % M, cj = (c.first / M) % N, ck = c.first / (M * N);
      const Int di = ci - i, dj = cj - j, dk = ck - k;
      int       t  = -1;
      if (!di && !dj && !dk) t = 0;
      else if (!dj && !dk && std::abs(di) == 1) t = di < 0 ? 1 : 2;
      else if (!di && !dk && std::abs(dj) == 1) t = dj < 0 ? 3 : 4;
      else if (!di && !dj && std::abs(dk) == 1) t = dk < 0 ? 5 : 6;
      if (t < 0) {
        rowbad = true;
        if (first < 0 || c.first < first) first = c.first;
      } else s[7 * r + t] = c.second;
    }
    if (rowbad) {
      nbad++;
      if (bad[0] < 0 || g < bad[0]) bad[0] = g, bad[1] = first;
    }
  }
  return nbad;
}

struct Case {
  Int gn[3], pn[3];
};

std::vector<Case> DetectCases()
{
  return {
    {{1, 1, 1}, {1, 1, 1}},                                                                  /* 1 point */
    {{2, 1, 1}, {2, 1, 1}}, {{3, 1, 1}, {4, 1, 1}},                                          /* processes with 0 points */
    {{13, 1, 1}, {1, 1, 1}}, {{13, 1, 1}, {3, 1, 1}},                                        /* 13 */
    {{3, 199, 1}, {1, 1, 1}}, {{3, 199, 1}, {1, 4, 1}}, {{199, 3, 1}, {2, 2, 1}},            /* 597 */
    {{1, 1, 597}, {1, 1, 3}},
    {{47, 45, 48}, {1, 1, 1}}, {{47, 45, 48}, {2, 1, 2}}, {{47, 45, 48}, {1, 2, 2}}, /* about 10^5 */
  };
}
} // namespace

/* the gathered vector of a DMDA operator (the processes' blocks in rank order) to the natural order and back, against
   the serial map Natural() (and an empty grid) */
TEST(PSCR, PetscNaturalOrder)
{
  std::vector<Case> cases = DetectCases();
  cases.push_back({{0, 1, 1}, {1, 1, 1}});
  for (const auto &c : cases) {
    const Layout        L = MakeLayout(c.gn, c.pn);
    const GridLayout    G = ToDevice(L);
    const Int           N = L.start.back();
    std::vector<Scalar> x = kptest::RandomVector(N, 5), yref(N), back;
    for (Int p = 0; p < L.np; p++)
      for (Int r = 0; r < L.start[p + 1] - L.start[p]; r++) yref[Natural(L, p, r)] = x[L.start[p] + r];
    View<Scalar> xd = kptest::ToDevice(x), yd("y", (size_t)N), zd("z", (size_t)N);
    petsckp::pscr::PetscToNatural(G, UView<const Scalar>(xd.data(), N), UView<Scalar>(yd.data(), N));
    EXPECT_EQ(ToHost(yd), yref) << c.gn[0] << "x" << c.gn[1] << "x" << c.gn[2] << " on " << L.np;
    petsckp::pscr::NaturalToPetsc(G, UView<const Scalar>(yd.data(), N), UView<Scalar>(zd.data(), N));
    EXPECT_EQ(ToHost(zd), x) << c.gn[0] << "x" << c.gn[1] << "x" << c.gn[2] << " on " << L.np;
  }
}

TEST(PSCR, DetectStarCoefficients)
{
  for (const auto &c : DetectCases())
    for (int variant = 0; variant < 3; variant++) {
      std::vector<Real> fac[3][2];
      Int               lo[3], hi[3];
      NatMatrix         A = Separable(c.gn, 11 + variant, fac, lo, hi);
      const Int         N = (Int)A.size();
      /* a column outside the star of row g (-1 when the grid has none) */
      auto nonstar = [&](Int g, Int shift) {
        const Int M = c.gn[0], NY = c.gn[1];
        for (Int o = shift; o < shift + N; o++) {
          const Int h  = (g + o) % N;
          const Int di = std::abs(h % M - g % M), dj = std::abs((h / M) % NY - (g / M) % NY), dk = std::abs(h / (M * NY) - g / (M * NY));
          if (di + dj + dk > 1) return h;
        }
        return (Int)-1;
      };
      Int nadded = 0;
      for (Int g = variant == 1 ? N / 2 : 3; variant > 0 && g < N; g += variant == 1 ? N : 7) { /* one entry outside the star, or many */
        const Int h = nonstar(g, c.gn[0] + 1);
        if (h >= 0) A[g].push_back({h, variant == 1 ? 0.5 : -0.125}), nadded++;
      }
      const Layout     L = MakeLayout(c.gn, c.pn);
      const GridLayout G = ToDevice(L);
      Int              tot = 0, totref = 0;
      Int              first[2] = {-1, -1}, firstref[2] = {-1, -1};
      for (Int p = 0; p < L.np; p++) {
        petsckp::CsrMatrix Ad, Ao;
        View<Int>          ghost;
        Split(L, A, p, 3 + (unsigned)p, Ad, Ao, ghost);
        const Int         nloc = L.start[p + 1] - L.start[p];
        View<Real>        s("s", 7 * (size_t)nloc);
        Int               bad[2], badref[2];
        std::vector<Real> sref;
        const Int         nb = petsckp::pscr::StarCoefficients(G, p, Ad, Ao, UView<const Int>(ghost.data(), ghost.extent(0)), UView<Real>(s.data(), s.extent(0)), bad);
        const Int         nbref = RefStar(L, A, p, sref, badref);
        ASSERT_EQ(nb, nbref) << c.gn[0] << "x" << c.gn[1] << "x" << c.gn[2] << " p " << p << " variant " << variant;
        EXPECT_EQ(bad[0], badref[0]);
        if (nb) {
          /* the first violating column of the first violating row: any column outside the star of that row is a
             correct report, the smallest one is the reference */
          EXPECT_EQ(bad[1], badref[1]);
        }
        EXPECT_EQ(ToHost(s), sref);
        tot += nb, totref += nbref;
        if (nb && (first[0] < 0 || bad[0] < first[0])) first[0] = bad[0], first[1] = bad[1];
        if (nbref && (firstref[0] < 0 || badref[0] < firstref[0])) firstref[0] = badref[0], firstref[1] = badref[1];
      }
      EXPECT_EQ(tot, totref);
      EXPECT_EQ(first[0], firstref[0]);
      if (variant == 0) EXPECT_EQ(tot, 0);
      if (variant > 0) EXPECT_EQ(tot > 0, nadded > 0);
      if (variant > 0 && N > 3) EXPECT_GT(nadded, 0);
    }
}

/* the box, its lines, the separability check and the outside lists, each process's part combined as the PC combines
   them (minimum/maximum, sums, concatenation in rank order), against the reference computed from all the points */
TEST(PSCR, DetectSeparableBox)
{
  for (const auto &c : DetectCases())
    for (int variant = 0; variant < 4; variant++) {
      std::vector<Real> fac[3][2];
      Int               lo[3], hi[3];
      NatMatrix         A = Separable(c.gn, 21 + variant, fac, lo, hi);
      const Int         N = (Int)A.size(), M = c.gn[0], NY = c.gn[1];
      const Int         bn[3] = {hi[0] - lo[0] + 1, hi[1] - lo[1] + 1, hi[2] - lo[2] + 1}, nbox = bn[0] * bn[1] * bn[2];
      auto              boxpt = [&](Int g, Int q[3]) {
        q[0] = g % M, q[1] = (g / M) % NY, q[2] = g / (M * NY);
        return q[0] >= lo[0] && q[0] <= hi[0] && q[1] >= lo[1] && q[1] <= hi[1] && q[2] >= lo[2] && q[2] <= hi[2];
      };
      /* violations: 1 a coupling inside the box changed; 2 a diagonal changed; 3 an eliminated point with zero diagonal */
      int64_t expect_first = -1;
      if (variant == 1 || variant == 2) {
        for (Int g = N - 1; g >= 0; g--) {
          Int q[3];
          if (!boxpt(g, q)) continue;
          /* the number of axes along which the point leaves the first point of the box: a point on one of the
             three lines through it defines the line's entries, and its changes are absorbed into the line */
          int off = 0;
          for (int d = 0; d < 3; d++) off += q[d] != lo[d];
          if (variant == 2) {
            A[g][0].second += 1e-3;
            expect_first = off > 1 ? 16 * (int64_t)g + 8 : -1;
            break;
          }
          /* the +x (or +y, +z) coupling inside the box of the last box point that has one: found by its row and by
             its neighbour's row (as a - coupling), the smaller key first */
          for (int d = 0; d < 3 && expect_first < 0; d++) {
            if (q[d] + 1 > hi[d]) continue;
            const Int stride = d == 0 ? 1 : (d == 1 ? M : M * NY);
            for (auto &e : A[g])
              if (e.first == g + stride) e.second *= 1.01;
            /* on the line of axis d: the line holds the new value, the neighbour's - coupling is the one that differs */
            expect_first = off == (q[d] != lo[d]) ? 16 * (int64_t)(g + stride) + 2 + 2 * d : 16 * (int64_t)g + 2 + 2 * d + 1;
          }
          if (expect_first >= 0) break;
        }
      }
      if (variant == 3) {
        for (Int g = 0; g < N; g++) {
          Int q[3];
          if (boxpt(g, q)) continue;
          A[g][0].second = 0;
          expect_first   = 16 * (int64_t)g;
          break;
        }
      }
      const Layout     L = MakeLayout(c.gn, c.pn);
      const GridLayout G = ToDevice(L);
      std::vector<View<Real>> S(L.np);
      Int                     blo[3] = {c.gn[0], c.gn[1], c.gn[2]}, bhi[3] = {-1, -1, -1};
      Real                    amax = 0, amaxref = 0;
      for (Int p = 0; p < L.np; p++) {
        petsckp::CsrMatrix Ad, Ao;
        View<Int>          ghost;
        Split(L, A, p, 5 + (unsigned)p, Ad, Ao, ghost);
        const Int nloc = L.start[p + 1] - L.start[p];
        S[p]           = View<Real>("s", 7 * (size_t)nloc);
        Int bad[2];
        ASSERT_EQ(petsckp::pscr::StarCoefficients(G, p, Ad, Ao, UView<const Int>(ghost.data(), ghost.extent(0)), UView<Real>(S[p].data(), S[p].extent(0)), bad), 0);
        Int  l[3], h[3];
        Real am;
        petsckp::pscr::CoupledBox(G, p, UView<const Real>(S[p].data(), S[p].extent(0)), l, h, am);
        for (int d = 0; d < 3; d++) blo[d] = std::min(blo[d], l[d]), bhi[d] = std::max(bhi[d], h[d]);
        amax = std::max(amax, am);
      }
      for (auto &row : A)
        for (auto &e : row) amaxref = std::max(amaxref, std::abs(e.second));
      EXPECT_EQ(amax, amaxref);
      /* the coupled box: the interior (the eliminated rows have no couplings), empty on a single point */
      if (N > 1)
        for (int d = 0; d < 3; d++) {
          EXPECT_EQ(blo[d], lo[d]) << d;
          EXPECT_EQ(bhi[d], hi[d]) << d;
        }
      else EXPECT_EQ(bhi[0], -1);
      if (bhi[0] < 0) continue; /* nothing coupled: the PC takes the diagonal path */
      const Int nl = bn[0] - 1 + bn[1] - 1 + bn[2] - 1 + bn[0] + bn[1] + bn[2];
      std::vector<Real> lines(nl, 0);
      for (Int p = 0; p < L.np; p++) {
        View<Real> lp("lines", nl + 8); /* 8 guard entries that must stay 0 */
        petsckp::pscr::BoxLines(G, p, UView<const Real>(S[p].data(), S[p].extent(0)), lo, bn, UView<Real>(lp.data(), nl + 8));
        auto h = ToHost(lp);
        for (Int t = 0; t < nl; t++) lines[t] += h[t];
        for (Int t = nl; t < nl + 8; t++) EXPECT_EQ(h[t], 0) << "BoxLines wrote past the lines";
      }
      /* reference lines: the couplings and diagonals along the three lines through the box's first point */
      {
        std::vector<Real> ref;
        const Int         g0 = (lo[2] * NY + lo[1]) * M + lo[0], stride[3] = {1, M, M * NY};
        auto              entry = [&](Int r, Int cidx) {
          for (auto &e : A[r])
            if (e.first == cidx) return e.second;
          return 0.0;
        };
        for (int d = 0; d < 3; d++)
          for (Int t = 0; t + 1 < bn[d]; t++) ref.push_back(entry(g0 + t * stride[d], g0 + (t + 1) * stride[d]));
        for (int d = 0; d < 3; d++)
          for (Int t = 0; t < bn[d]; t++) ref.push_back(entry(g0 + t * stride[d], g0 + t * stride[d]));
        EXPECT_EQ(lines, ref);
      }
      auto              dlines = kptest::ToDevice(lines);
      Int               nviol = 0, nout = 0, ncpl = 0;
      int64_t           first = -1;
      std::vector<Int>  didx, crow, ccol;
      std::vector<Real> dval, cval;
      for (Int p = 0; p < L.np; p++) {
        const auto cnt = petsckp::pscr::CheckSeparable(G, p, UView<const Real>(S[p].data(), S[p].extent(0)), lo, hi, UView<const Real>(dlines.data(), nl), 1e-12);
        nviol += cnt.nviol, nout += cnt.nout, ncpl += cnt.ncpl;
        if (cnt.first >= 0 && (first < 0 || cnt.first < first)) first = cnt.first;
        View<Int>  di("didx", cnt.nout), cr("crow", cnt.ncpl), cc("ccol", cnt.ncpl);
        View<Real> dv("dval", cnt.nout), cv("cval", cnt.ncpl);
        petsckp::pscr::OutsideLists(G, p, UView<const Real>(S[p].data(), S[p].extent(0)), lo, hi, UView<Int>(di.data(), cnt.nout), UView<Real>(dv.data(), cnt.nout), UView<Int>(cr.data(), cnt.ncpl), UView<Int>(cc.data(), cnt.ncpl), UView<Real>(cv.data(), cnt.ncpl));
        for (auto x : ToHost(di)) didx.push_back(x);
        for (auto x : ToHost(dv)) dval.push_back(x);
        for (auto x : ToHost(cr)) crow.push_back(x);
        for (auto x : ToHost(cc)) ccol.push_back(x);
        for (auto x : ToHost(cv)) cval.push_back(x);
      }
      EXPECT_EQ(first, expect_first) << c.gn[0] << "x" << c.gn[1] << "x" << c.gn[2] << " variant " << variant;
      if (variant == 0) EXPECT_EQ(nviol, 0);
      /* reference outside lists, in PETSc row order (rank by rank, lexicographic in each box) */
      std::vector<Int>  rdidx, rcrow, rccol;
      std::vector<Real> rdval, rcval;
      for (Int p = 0; p < L.np; p++)
        for (Int r = 0; r < L.start[p + 1] - L.start[p]; r++) {
          const Int g = Natural(L, p, r);
          Int       q[3];
          if (!boxpt(g, q)) {
            rdidx.push_back(g);
            rdval.push_back(A[g][0].second);
            continue;
          }
          const Int stride[3] = {1, M, M * NY};
          for (int d = 0; d < 3; d++)
            for (int sg = -1; sg <= 1; sg += 2) {
              const Int qq = q[d] + sg;
              if (qq >= lo[d] && qq <= hi[d]) continue;
              if (qq < 0 || qq >= c.gn[d]) continue;
              for (auto &e : A[g])
                if (e.first == g + sg * stride[d] && e.second != 0) {
                  rcrow.push_back(((q[2] - lo[2]) * bn[1] + q[1] - lo[1]) * bn[0] + q[0] - lo[0]);
                  rccol.push_back(e.first);
                  rcval.push_back(e.second);
                }
            }
        }
      EXPECT_EQ(nout, (Int)rdidx.size());
      EXPECT_EQ(ncpl, (Int)rcrow.size());
      EXPECT_EQ(didx, rdidx);
      EXPECT_EQ(dval, rdval);
      EXPECT_EQ(crow, rcrow);
      EXPECT_EQ(ccol, rccol);
      EXPECT_EQ(cval, rcval);
      /* StarCoefficientAt: the owner returns the entry, the others 0 */
      for (Int g : {(Int)0, N / 2, N - 1}) {
        Real v = 0;
        for (Int p = 0; p < L.np; p++) v += petsckp::pscr::StarCoefficientAt(G, p, UView<const Real>(S[p].data(), S[p].extent(0)), g, 0);
        EXPECT_EQ(v, A[g][0].second);
      }
    }
}

/* ---- Box stencils (Q1 finite elements): the factors A = sum_d A_d (x) prod_{e != d} M_e with tridiagonal M_d recovered
   from the lines through the first point of the box, checked on every row; kernels against a serial reference over
   natural grid indices, on the layouts above */
namespace
{
using petsckp::pscr::Stencil;

/* 1D factors of axis d of a separable box operator: kind 0 random tensor mesh Q1 (stiffness with random per-element
   coefficients, consistent mass), 1 uniform Q1 with Neumann ends, 2 uniform Q1 Dirichlet, 3 finite differences (M = I) */
void BoxFactor1D(Int n, int kind, unsigned seed, std::vector<Real> &ad, std::vector<Real> &ao, std::vector<Real> &md, std::vector<Real> &mo)
{
  std::mt19937                           g(seed);
  std::uniform_real_distribution<double> u(0.5, 1.5);
  const bool                             natural = kind == 1;
  const Int                              ne      = natural ? std::max<Int>(n - 1, 1) : n + 1; /* elements */
  std::vector<Real>                      h(ne, 1.0 / ne), k(ne, 1.0);
  if (kind == 0)
    for (Int e = 0; e < ne; e++) h[e] = u(g) / ne, k[e] = u(g);
  ad.assign(n, 0), ao.assign(n > 1 ? n - 1 : 0, 0), md.assign(n, 0), mo.assign(n > 1 ? n - 1 : 0, 0);
  if (kind == 3) {
    for (Int i = 0; i < n; i++) ad[i] = 2.0 * (n + 1) * (n + 1), md[i] = 1;
    for (Int i = 0; i + 1 < n; i++) ao[i] = -1.0 * (n + 1) * (n + 1);
    return;
  }
  for (Int i = 0; i < n; i++) {
    const Int el = natural ? i - 1 : i, er = natural ? i : i + 1; /* the elements left and right of node i */
    if (el >= 0 && el < ne) ad[i] += k[el] / h[el], md[i] += h[el] / 3;
    if (er >= 0 && er < ne && !(natural && i == n - 1)) ad[i] += k[er] / h[er], md[i] += h[er] / 3;
    if (i + 1 < n) ao[i] = -k[er] / h[er], mo[i] = h[er] / 6;
  }
  if (n == 1 && natural) ad[0] = 1, md[0] = 1;
}

/* the separable box operator of the factors fac[d] = {ad, ao, md, mo} on the box [lo, hi] of the grid, plus c M (x) M
   (x) M; the layer outside holds diagonal-only rows coupled to the box rows next to them (kept Dirichlet values) */
NatMatrix BoxOperator(const Int gn[3], const Int lo[3], const Int hi[3], std::vector<Real> fac[3][4], Real c, unsigned seed)
{
  std::mt19937 g(seed);
  const Int    N = gn[0] * gn[1] * gn[2];
  NatMatrix    A(N);
  auto         X = [&](int d, int w, Int i, Int o) -> Real { /* entry (i, i + o) of A_d (w = 0) or M_d (w = 1) */
    if (o == 0) return fac[d][2 * w][i];
    return fac[d][2 * w + 1][o < 0 ? i - 1 : i];
  };
  for (Int k = 0; k < gn[2]; k++)
    for (Int j = 0; j < gn[1]; j++)
      for (Int i = 0; i < gn[0]; i++) {
        const Int  p[3] = {i, j, k}, row = (k * gn[1] + j) * gn[0] + i;
        const bool in   = i >= lo[0] && i <= hi[0] && j >= lo[1] && j <= hi[1] && k >= lo[2] && k <= hi[2];
        if (!in) {
          A[row].push_back({row, 1.0 + 0.01 * (row % 7)});
          if (N > 1 && g() % 5 == 0) A[row].push_back({row == 0 ? N - 1 : row - 1, 0.0}); /* a stored zero */
          continue;
        }
        for (int t = 0; t < 27; t++) {
          const Int o[3] = {t % 3 - 1, (t / 3) % 3 - 1, t / 9 - 1};
          Int       q[3];
          bool      ok = true, inq = true;
          for (int d = 0; d < 3; d++) {
            q[d] = p[d] + o[d];
            if (q[d] < 0 || q[d] >= gn[d]) ok = false;
            if (q[d] < lo[d] || q[d] > hi[d]) inq = false;
          }
          if (!ok) continue;
          const Int col = (q[2] * gn[1] + q[1]) * gn[0] + q[0];
          Real      v;
          if (!inq) v = -0.25 - 0.001 * (row % 11); /* a coupling to a kept Dirichlet point */
          else {
            const Int b[3] = {p[0] - lo[0], p[1] - lo[1], p[2] - lo[2]};
            v              = c;
            for (int d = 0; d < 3; d++) v *= X(d, 1, b[d], o[d]);
            for (int d = 0; d < 3; d++) {
              Real term = X(d, 0, b[d], o[d]);
              for (int e = 0; e < 3; e++)
                if (e != d) term *= X(e, 1, b[e], o[e]);
              v += term;
            }
          }
          if (v != 0 || g() % 3 == 0) A[row].push_back({col, v});
        }
      }
  return A;
}

/* the factors of the axes of a box: random kinds per axis (kind < 0), axes of one point A = 0, M = 1 */
void BoxFactors(const Int bn[3], int kind, unsigned seed, std::vector<Real> fac[3][4])
{
  for (int d = 0; d < 3; d++) {
    if (bn[d] == 1) {
      fac[d][0] = {0}, fac[d][1] = {}, fac[d][2] = {1}, fac[d][3] = {};
      continue;
    }
    const int kd = kind >= 0 ? kind : (int)((seed + 7 * d) % 3);
    BoxFactor1D(bn[d], kd, seed + 13 * d, fac[d][0], fac[d][1], fac[d][2], fac[d][3]);
  }
}

Real Entry(const NatMatrix &A, Int r, Int c)
{
  for (auto &e : A[r])
    if (e.first == c) return e.second;
  return 0;
}

/* the reference lines (layout of pscr::StencilLines) from the natural operator */
std::vector<Real> RefLines(const NatMatrix &A, const Int gn[3], const Int lo[3], const Int bn[3])
{
  std::vector<Real> l(petsckp::pscr::BoxLinesLength(bn), 0);
  auto              nat = [&](const Int q[3]) { return (q[2] * gn[1] + q[1]) * gn[0] + q[0]; };
  Int               off = 0;
  for (int d = 0; d < 3; d++) {
    const Int pr = petsckp::pscr::LinePair(bn, d);
    for (Int i = 0; i < bn[d]; i++) {
      Int p[3] = {lo[0], lo[1], lo[2]};
      p[d] += i;
      Int q[3] = {p[0], p[1], p[2]};
      l[off + 4 * i] = Entry(A, nat(p), nat(p));
      q[d] += 1;
      if (i + 1 < bn[d]) l[off + 4 * i + 1] = Entry(A, nat(p), nat(q));
      if (pr >= 0) {
        Int r[3] = {p[0], p[1], p[2]};
        r[pr] += 1;
        l[off + 4 * i + 2] = Entry(A, nat(p), nat(r));
        r[d] += 1;
        if (i + 1 < bn[d]) l[off + 4 * i + 3] = Entry(A, nat(p), nat(r));
      }
    }
    off += 4 * bn[d];
  }
  for (int t = 0; t < 8; t++) {
    const Int o[3] = {t & 1, (t >> 1) & 1, (t >> 2) & 1};
    bool      ok   = true;
    for (int d = 0; d < 3; d++) ok = ok && !(o[d] && bn[d] < 2);
    if (!ok) continue;
    const Int q[3] = {lo[0] + o[0], lo[1] + o[1], lo[2] + o[2]};
    l[off + t]     = Entry(A, nat(lo), nat(q));
  }
  return l;
}

/* largest |coefficient of the factors - coefficient of A| over the box couplings, relative to the largest |A| */
double Reproduction(const NatMatrix &A, const Int gn[3], const Int lo[3], const Int bn[3], const Factor F[3])
{
  const auto fac  = petsckp::pscr::PackFactors(bn, F);
  double     dmax = 0, amax = 0;
  for (Int k = 0; k < bn[2]; k++)
    for (Int j = 0; j < bn[1]; j++)
      for (Int i = 0; i < bn[0]; i++) {
        const Int b[3] = {i, j, k}, row = ((lo[2] + k) * gn[1] + lo[1] + j) * gn[0] + lo[0] + i;
        for (int t = 0; t < 27; t++) {
          const Int o[3] = {t % 3 - 1, (t / 3) % 3 - 1, t / 9 - 1};
          bool      in   = true;
          for (int d = 0; d < 3; d++) in = in && b[d] + o[d] >= 0 && b[d] + o[d] < bn[d];
          if (!in) continue;
          const Int  col = ((lo[2] + k + o[2]) * gn[1] + lo[1] + j + o[1]) * gn[0] + lo[0] + i + o[0];
          const Real a   = Entry(A, row, col);
          amax           = std::max(amax, std::abs((double)a));
          dmax           = std::max(dmax, std::abs((double)(a - petsckp::pscr::SeparableCoefficient(bn, fac, b, o))));
        }
      }
  return amax > 0 ? dmax / amax : dmax;
}

bool PositiveDefinite(const Factor &F)
{
  const Int n = F.n();
  if (F.md.empty()) return true;
  double piv = 0;
  for (Int i = 0; i < n; i++) {
    const double o = i > 0 && !F.mo.empty() ? F.mo[i - 1] : 0;
    piv            = F.md[i] - (i > 0 ? o * o / piv : 0);
    if (!(piv > 0)) return false;
  }
  return true;
}
} // namespace

/* the recovery alone: lines of known separable operators (random tensor meshes, Neumann ends with a shift, finite
   differences (M = I: a star), axes of 1 and 2 points) give factors that reproduce the operator to rounding, with positive
   definite mass factors; the true mass matrices where they are determined (3D; 2D uniform isotropic meshes) */
TEST(PSCR, SeparableFromLines)
{
  const Int boxes[][3] = {{7, 5, 1}, {2, 9, 1}, {13, 13, 1}, {40, 9, 1}, {1, 6, 1}, {5, 4, 3}, {9, 9, 9}, {2, 2, 2}, {11, 3, 17}, {6, 1, 8}, {1, 1, 1}};
  for (const auto &bx : boxes)
    for (int kind = -1; kind < 4; kind++)
      for (Real c : {0.0, 2.5}) {
        const Int         gn[3] = {bx[0], bx[1], bx[2]}, lo[3] = {0, 0, 0}, hi[3] = {bx[0] - 1, bx[1] - 1, bx[2] - 1};
        std::vector<Real> fac[3][4];
        BoxFactors(gn, kind, 17 + (unsigned)(bx[0] * 31 + bx[1] * 7 + bx[2]), fac);
        if (kind == 1 && c == 0) continue; /* pure Neumann: singular, and no mass is determined by a zero operator */
        const NatMatrix A = BoxOperator(gn, lo, hi, fac, c, 3);
        Factor          F[3];
        bool            definite = false;
        const auto      err      = petsckp::pscr::SeparableFromLines(gn, RefLines(A, gn, lo, gn), F, &definite);
        SCOPED_TRACE(std::to_string(bx[0]) + "x" + std::to_string(bx[1]) + "x" + std::to_string(bx[2]) + " kind " + std::to_string(kind) + " c " + std::to_string(c));
        int act = 0;
        for (int d = 0; d < 3; d++) act += bx[d] > 1;
        ASSERT_EQ(err, "");
        EXPECT_TRUE(definite);
        EXPECT_LE(Reproduction(A, gn, lo, gn, F), 1e-13);
        for (int d = 0; d < 3; d++) {
          EXPECT_EQ(F[d].n(), gn[d]);
          EXPECT_TRUE(PositiveDefinite(F[d])) << d;
          EXPECT_EQ(petsckp::pscr::CheckFactor(F[d]), "") << d;
        }
        /* the true masses (up to scale) when they are determined */
        const bool iso = act == 2 && (kind == 2 || kind == 3) && bx[0] == bx[1];
        if (act == 3 || iso)
          for (int d = 0; d < 3; d++) {
            if (bx[d] < 2) continue;
            const Real s = fac[d][2][0] / F[d].md[0];
            for (Int i = 0; i < bx[d]; i++) EXPECT_NEAR(F[d].md[i] * s, fac[d][2][i], 1e-9 * fac[d][2][0]) << d << " " << i;
          }
      }
  /* a sum of two Kronecker products (not separable in this sense) is refused or fails the check */
  {
    const Int         gn[3] = {6, 5, 4}, lo[3] = {0, 0, 0}, hi[3] = {5, 4, 3};
    std::vector<Real> f1[3][4], f2[3][4];
    BoxFactors(gn, 0, 5, f1);
    BoxFactors(gn, 0, 9, f2);
    NatMatrix A = BoxOperator(gn, lo, hi, f1, 0, 3), B = BoxOperator(gn, lo, hi, f2, 0, 3);
    /* A1 (x) M2 (x) M3 + M1' (x) A2' (x) A3': replace A by the sum of the first term of f1 and a product of f2 */
    std::vector<Real> g1[3][4], g2[3][4];
    for (int d = 0; d < 3; d++)
      for (int w = 0; w < 4; w++) g1[d][w] = f1[d][w], g2[d][w] = f2[d][w];
    for (int d = 0; d < 2; d++) g1[d][0].assign(gn[d], 0), g1[d][1].assign(gn[d] - 1, 0); /* A_x = A_y = 0: A_z M_y M_x */
    for (int d = 0; d < 3; d++) g2[d][2] = f2[d][0], g2[d][3] = f2[d][1];                /* M := A: c A_z A_y A_x */
    NatMatrix P = BoxOperator(gn, lo, hi, g1, 0, 3), Q = BoxOperator(gn, lo, hi, g2, 1, 3);
    for (size_t r = 0; r < P.size(); r++)
      for (auto &e : P[r]) e.second += Entry(Q, (Int)r, e.first);
    Factor     F[3];
    bool       definite = false;
    const auto err      = petsckp::pscr::SeparableFromLines(gn, RefLines(P, gn, lo, gn), F, &definite);
    EXPECT_TRUE(!err.empty() || Reproduction(P, gn, lo, gn, F) > 1e-6) << err;
    (void)A, (void)B;
  }
}

/* the kernels of the box path (StencilCoefficients with the box, CoupledBox, StencilLines, CheckSeparableBox,
   OutsideLists, CoefficientAt) on 1 to 4 process layouts against the serial reference, with the recovered factors;
   variants: 0 separable, 1 one coefficient of a row off the lines changed, 2 a zero diagonal-only row outside the box */
TEST(PSCR, DetectBoxStencil)
{
  for (const auto &cs : DetectCases())
    for (int variant = 0; variant < 3; variant++) {
      if (cs.gn[0] * cs.gn[1] * cs.gn[2] > 20000 && cs.pn[0] * cs.pn[1] * cs.pn[2] == 1) continue; /* the large grid: on several processes only */
      const Int gn[3] = {cs.gn[0], cs.gn[1], cs.gn[2]};
      Int       lo[3], hi[3], bn[3];
      for (int d = 0; d < 3; d++) {
        lo[d] = gn[d] > 2 ? 1 : 0;
        hi[d] = gn[d] > 2 ? gn[d] - 2 : gn[d] - 1;
        bn[d] = hi[d] - lo[d] + 1;
      }
      std::vector<Real> fac[3][4];
      BoxFactors(bn, -1, 23 + (unsigned)variant, fac);
      NatMatrix     A  = BoxOperator(gn, lo, hi, fac, 0.5, 31 + (unsigned)variant);
      const Int     N  = (Int)A.size(), M = gn[0], NY = gn[1];
      const Stencil st = Stencil::Box(gn);
      SCOPED_TRACE(std::to_string(gn[0]) + "x" + std::to_string(gn[1]) + "x" + std::to_string(gn[2]) + " np " + std::to_string(cs.pn[0] * cs.pn[1] * cs.pn[2]) + " variant " + std::to_string(variant));
      int64_t expect_first = -1;
      if (variant == 1) { /* the last box point with two coordinates off the first point's, its first in-box coupling */
        for (Int g = N - 1; g >= 0 && expect_first < 0; g--) {
          const Int q[3] = {g % M, (g / M) % NY, g / (M * NY)};
          int       off  = 0;
          bool      in   = true;
          for (int d = 0; d < 3; d++) in = in && q[d] >= lo[d] && q[d] <= hi[d], off += q[d] != lo[d];
          if (!in || off < 2) continue;
          for (auto &e : A[g]) {
            const Int c[3] = {e.first % M, (e.first / M) % NY, e.first / (M * NY)};
            bool      cin  = e.second != 0;
            for (int d = 0; d < 3; d++) cin = cin && c[d] >= lo[d] && c[d] <= hi[d];
            if (!cin) continue;
            e.second *= 1.01;
            expect_first = 32 * (int64_t)g + 2 + st.Slot(c[0] - q[0], c[1] - q[1], c[2] - q[2]);
            break;
          }
        }
      }
      if (variant == 2)
        for (Int g = 0; g < N && expect_first < 0; g++) {
          const Int q[3] = {g % M, (g / M) % NY, g / (M * NY)};
          bool      in   = true;
          for (int d = 0; d < 3; d++) in = in && q[d] >= lo[d] && q[d] <= hi[d];
          if (in) continue;
          A[g][0].second = 0;
          expect_first   = 32 * (int64_t)g;
        }
      const Layout     L = MakeLayout(cs.gn, cs.pn);
      const GridLayout G = ToDevice(L);
      std::vector<View<Real>> S(L.np);
      Int                     blo[3] = {gn[0], gn[1], gn[2]}, bhi[3] = {-1, -1, -1};
      for (Int p = 0; p < L.np; p++) {
        petsckp::CsrMatrix Ad, Ao;
        View<Int>          ghost;
        Split(L, A, p, 5 + (unsigned)p, Ad, Ao, ghost);
        const Int nloc = L.start[p + 1] - L.start[p];
        S[p]           = View<Real>("s", (size_t)st.w * nloc);
        Int bad[2];
        ASSERT_EQ(petsckp::pscr::StencilCoefficients(G, p, st, Ad, Ao, UView<const Int>(ghost.data(), ghost.extent(0)), UView<Real>(S[p].data(), S[p].extent(0)), bad), 0);
        /* against the reference coefficients (every row of the small grids, every 7th of the large ones) */
        auto s = ToHost(S[p]);
        for (Int r = 0; r < nloc; r += N > 20000 ? 7 : 1) {
          const Int g = Natural(L, p, r), q[3] = {g % M, (g / M) % NY, g / (M * NY)};
          for (int t = 0; t < st.w; t++) {
            Int o[3];
            st.Offset(t, o);
            bool ok = true;
            for (int d = 0; d < 3; d++) ok = ok && q[d] + o[d] >= 0 && q[d] + o[d] < gn[d];
            const Real ref = ok ? Entry(A, g, ((q[2] + o[2]) * NY + q[1] + o[1]) * M + q[0] + o[0]) : 0;
            ASSERT_EQ(s[(size_t)st.w * r + t], ref) << g << " " << t;
          }
        }
        Int  l[3], h[3];
        Real am;
        petsckp::pscr::CoupledBox(G, p, st, UView<const Real>(S[p].data(), S[p].extent(0)), l, h, am);
        for (int d = 0; d < 3; d++) blo[d] = std::min(blo[d], l[d]), bhi[d] = std::max(bhi[d], h[d]);
      }
      if (N == 1) {
        EXPECT_EQ(bhi[0], -1);
        continue;
      }
      for (int d = 0; d < 3; d++) {
        EXPECT_EQ(blo[d], lo[d]) << d;
        EXPECT_EQ(bhi[d], hi[d]) << d;
      }
      /* the lines, summed over the processes, against the reference; then the factors */
      const Int         nl = petsckp::pscr::BoxLinesLength(bn);
      std::vector<Real> lines(nl, 0);
      for (Int p = 0; p < L.np; p++) {
        View<Real> lp("lines", nl + 8); /* 8 guard entries that must stay 0 */
        petsckp::pscr::StencilLines(G, p, st, UView<const Real>(S[p].data(), S[p].extent(0)), lo, bn, UView<Real>(lp.data(), nl + 8));
        auto hl = ToHost(lp);
        for (Int t = 0; t < nl; t++) lines[t] += hl[t];
        for (Int t = nl; t < nl + 8; t++) EXPECT_EQ(hl[t], 0) << "StencilLines wrote past the lines";
      }
      EXPECT_EQ(lines, RefLines(A, gn, lo, bn));
      Factor     F[3];
      bool       definite = false;
      const auto err      = petsckp::pscr::SeparableFromLines(bn, lines, F, &definite);
      ASSERT_EQ(err, "");
      EXPECT_TRUE(definite);
      const auto        hfac = petsckp::pscr::PackFactors(bn, F);
      auto              dfac = kptest::ToDevice(hfac);
      Int               nviol = 0, nout = 0, ncpl = 0;
      int64_t           first = -1;
      Real              defect = 0, amax = 0;
      std::vector<Int>  didx, crow, ccol;
      std::vector<Real> dval, cval;
      for (auto &row : A)
        for (auto &e : row) amax = std::max(amax, std::abs(e.second));
      for (Int p = 0; p < L.np; p++) {
        const auto cnt = petsckp::pscr::CheckSeparableBox(G, p, st, UView<const Real>(S[p].data(), S[p].extent(0)), lo, hi, UView<const Real>(dfac.data(), hfac.size()), 1e-10 * amax);
        nviol += cnt.nviol, nout += cnt.nout, ncpl += cnt.ncpl, defect = std::max(defect, cnt.defect);
        if (cnt.first >= 0 && (first < 0 || cnt.first < first)) first = cnt.first;
        View<Int>  di("didx", cnt.nout), cr("crow", cnt.ncpl), cc("ccol", cnt.ncpl);
        View<Real> dv("dval", cnt.nout), cv("cval", cnt.ncpl);
        petsckp::pscr::OutsideLists(G, p, st, UView<const Real>(S[p].data(), S[p].extent(0)), lo, hi, UView<Int>(di.data(), cnt.nout), UView<Real>(dv.data(), cnt.nout), UView<Int>(cr.data(), cnt.ncpl), UView<Int>(cc.data(), cnt.ncpl), UView<Real>(cv.data(), cnt.ncpl));
        for (auto x : ToHost(di)) didx.push_back(x);
        for (auto x : ToHost(dv)) dval.push_back(x);
        for (auto x : ToHost(cr)) crow.push_back(x);
        for (auto x : ToHost(cc)) ccol.push_back(x);
        for (auto x : ToHost(cv)) cval.push_back(x);
      }
      EXPECT_EQ(first, expect_first);
      if (variant == 0) {
        EXPECT_EQ(nviol, 0);
        EXPECT_LE(defect, 1e-14 * amax);
      }
      /* reference outside lists, in PETSc row order and slot order within a row */
      std::vector<Int>  rdidx, rcrow, rccol;
      std::vector<Real> rdval, rcval;
      for (Int p = 0; p < L.np; p++)
        for (Int r = 0; r < L.start[p + 1] - L.start[p]; r++) {
          const Int g = Natural(L, p, r), q[3] = {g % M, (g / M) % NY, g / (M * NY)};
          bool      in = true;
          for (int d = 0; d < 3; d++) in = in && q[d] >= lo[d] && q[d] <= hi[d];
          if (!in) {
            rdidx.push_back(g);
            rdval.push_back(Entry(A, g, g));
            continue;
          }
          bool inner = true; /* all neighbours inside the box: no couplings to the outside */
          for (int d = 0; d < 3; d++) inner = inner && (st.e[d] == 1 || (q[d] > lo[d] && q[d] < hi[d]));
          if (inner) continue;
          for (int t = 0; t < st.w; t++) {
            Int o[3], c[3];
            st.Offset(t, o);
            bool ok = true, cin = true;
            for (int d = 0; d < 3; d++) c[d] = q[d] + o[d], ok = ok && c[d] >= 0 && c[d] < gn[d], cin = cin && c[d] >= lo[d] && c[d] <= hi[d];
            if (!ok || cin) continue;
            const Int  col = (c[2] * NY + c[1]) * M + c[0];
            const Real v   = Entry(A, g, col);
            if (v == 0) continue;
            rcrow.push_back(((q[2] - lo[2]) * bn[1] + q[1] - lo[1]) * bn[0] + q[0] - lo[0]);
            rccol.push_back(col);
            rcval.push_back(v);
          }
        }
      EXPECT_EQ(nout, (Int)rdidx.size());
      EXPECT_EQ(ncpl, (Int)rcrow.size());
      EXPECT_EQ(didx, rdidx);
      EXPECT_EQ(dval, rdval);
      EXPECT_EQ(crow, rcrow);
      EXPECT_EQ(ccol, rccol);
      EXPECT_EQ(cval, rcval);
      /* CoefficientAt: the owner returns the entry, the others 0 */
      for (Int g : {(Int)0, N / 2, N - 1}) {
        Real v = 0;
        for (Int p = 0; p < L.np; p++) v += petsckp::pscr::CoefficientAt(G, p, st, UView<const Real>(S[p].data(), S[p].extent(0)), g, st.center);
        EXPECT_EQ(v, Entry(A, g, g));
      }
      /* the factors solve the box operator exactly (the interior of a separable variant) */
      if (variant != 1) {
        std::vector<Factor> Fs;
        for (int d = 2; d >= 0; d--)
          if (bn[d] > 1 || (d == 0 && Fs.empty())) Fs.push_back(F[d]);
        if (Fs.size() >= 1 && Fs.size() <= 3) EXPECT_LE(Check(Fs, 4, 0, 5), 1e-11);
      }
    }
}

/* The accuracy of one application for a right-hand side with a smooth part (uniform in [0, 1), as PETSc's
   VecSetRandom): the relative residual is about eps kappa(A) (kappa = cot^2(pi / (2 (n + 1))) for the 2D Dirichlet
   difference Laplacian, 0.4 (n + 1)^2), as for any backward stable solver, since || A || || u || ~ kappa || f || for
   such an f; the normwise backward error || f - A u || / (|| A ||_inf || u ||) stays a small multiple of eps. A loss of
   accuracy beyond the conditioning (e.g. in the order of the eigenvector sums at large n) breaks these bounds. */
TEST(PSCR, AccuracyRandomRhs)
{
  for (Int n : {127, 255})
    for (Int q : {2, 4, 8}) {
      std::vector<Factor> F = {Make1D(n, Bc::FD, 1), Make1D(n, Bc::FD, 2)};
      petsckp::pscr::Solver S;
      ASSERT_EQ(petsckp::pscr::Setup(F, q, S), "");
      const Int           N = n * n;
      std::vector<Scalar> f = RandomVector(N, 7 + (unsigned)q, 0, 1);
      auto                X = ToDevice(f);
      ASSERT_EQ(petsckp::pscr::Apply(S, 0, UView<Scalar>(X.data(), N)), 0);
      std::vector<Scalar> u = ToHost(X), r = Apply(F, 0, u);
      for (Int i = 0; i < N; i++) r[i] -= f[i];
      const double t = PETSC_PI / (2.0 * (n + 1)), kappa = 1 / (std::tan(t) * std::tan(t)), eps = std::numeric_limits<double>::epsilon();
      const double anorm = 8.0 * (n + 1) * (n + 1), rres = Norm(r) / Norm(f), bwd = Norm(r) / (anorm * Norm(u));
      EXPECT_LE(rres, 4 * eps * kappa) << "n " << n << " q " << q;
      EXPECT_GE(rres, 1e-3 * eps * kappa) << "n " << n << " q " << q; /* the bound is the conditioning, not slack */
      EXPECT_LE(bwd, 8 * eps) << "n " << n << " q " << q;
    }
}

/* the singular operator of pure Neumann ends with tridiagonal (Q1) masses is recognised: the smallest eigenvalues of
   the pencils with tridiagonal M are computed too (bisection on the inertia of A - sigma M), so PCPSCR refuses c = 0 */
TEST(PSCR, SingularTridiagonalMass)
{
  for (Int n : {2, 7, 64}) {
    std::vector<Factor> F(2);
    for (int d = 0; d < 2; d++) BoxFactor1D(n + d, 1, 3 + (unsigned)d, F[d].ad, F[d].ao, F[d].md, F[d].mo);
    petsckp::pscr::Solver S;
    ASSERT_EQ(petsckp::pscr::Setup(F, 4, S), "");
    EXPECT_TRUE(S.have_min);
    EXPECT_LE(std::abs(S.min_sum), 1e-12 * S.eig_scale) << n;
    /* Dirichlet ends: not singular, the smallest eigenvalue that of the closed form (uniform Q1: 6 (1 - cos) / (h^2 (2 + cos))) */
    for (int d = 0; d < 2; d++) BoxFactor1D(n + d, 2, 3 + (unsigned)d, F[d].ad, F[d].ao, F[d].md, F[d].mo);
    ASSERT_EQ(petsckp::pscr::Setup(F, 4, S), "");
    double ref = 0;
    for (int d = 0; d < 2; d++) {
      const double h = 1.0 / (n + d + 1), c = std::cos(PETSC_PI * h);
      ref += 6 * (1 - c) / (h * h * (2 + c));
    }
    EXPECT_NEAR(S.min_sum, ref, 1e-10 * ref) << n;
  }
}

/* ---- uniform factors: the interior-Toeplitz recurrences of the last dimension (tridiag_detail::TeamToeplitzSolve),
   against the general team solver on the same factors */
namespace
{
/* -u'' on a uniform mesh of n nodes, lumped linear elements: Dirichlet (n interior nodes), Neumann or Robin ends
   (n nodes including the ends: half a cell of mass and stiffness there) */
Factor Uniform1D(Int n, Bc bc, Real scale = 1)
{
  const bool natural = bc == Bc::Neumann || bc == Bc::Robin;
  const Real h       = 1.0 / (Real)(natural ? std::max<Int>(n - 1, 1) : n + 1);
  Factor     F;
  F.ad.assign(n, 2 * scale / h);
  F.ao.assign(n > 0 ? n - 1 : 0, -scale / h);
  F.md.assign(n, h);
  if (natural && n > 1) {
    F.ad[0] = F.ad[n - 1] = scale / h;
    F.md[0] = F.md[n - 1] = h / 2;
  }
  if (bc == Bc::Robin) F.ad[0] += 2.5 * scale, F.ad[n - 1] += 0.75 * scale;
  return F;
}
} // namespace

TEST(PSCR, ToeplitzRecurrencesUniformFactors)
{
  const Bc bcs[] = {Bc::Dirichlet, Bc::Neumann, Bc::Robin};
  const Int sizes[][2] = {{15, 31}, {31, 255}, {4, 15}, {7, 2000}, {64, 3}};
  for (Bc b1 : bcs)
    for (Bc b2 : bcs)
      for (Real c : {0.0, 1e-14, 3.0})
        for (const auto &n : sizes) {
          /* a zero eigenvalue in both directions with c = 0 is the singular pure Neumann operator */
          if (b1 != Bc::Dirichlet && b2 != Bc::Dirichlet && c < 1) continue;
          if (b1 == Bc::Neumann && b2 == Bc::Neumann) continue;
          SCOPED_TRACE("bc " + std::to_string((int)b1) + "/" + std::to_string((int)b2) + " c " + std::to_string(c) + " n " + std::to_string(n[0]) + "x" + std::to_string(n[1]));
          std::vector<Factor>   F = {Uniform1D(n[0], b1), Uniform1D(n[1], b2)};
          petsckp::pscr::Solver S;
          ASSERT_EQ(petsckp::pscr::Setup(F, 4, S), "");
          EXPECT_EQ(S.toep_last.on, n[1] >= 3);
          double r[2];
          for (int t = 0; t < 2; t++) {
            S.toeplitz = t == 0;
            Int nf     = 0;
            r[t]       = SolveResidual(S, F, c, 9, &nf);
            EXPECT_EQ(nf, 0);
          }
          /* the recurrences as accurate as the general solver (where r is close to 1 they are not taken) */
          EXPECT_LE(r[0], 10 * r[1] + 1e-14) << "recurrences " << r[0] << ", general solver " << r[1];
          EXPECT_LE(r[0], 1e-9);
          /* the stored path, the right-hand sides formed apart or inside the solves */
          S.toeplitz = true;
          S.team     = false;
          for (bool fuse : {false, true}) {
            S.fuse_rhs      = fuse;
            Int          nf = 0;
            const double rs = SolveResidual(S, F, c, 9, &nf);
            EXPECT_EQ(nf, 0);
            EXPECT_LE(rs, 10 * r[1] + 1e-14) << "stored path, fused right-hand sides " << fuse;
          }
        }
}

/* a factor is interior-Toeplitz only if each of its diagonals is constant at its own scale: a mass matrix varying
   by 2e-4 next to a stiffness of 1e12 is not */
TEST(PSCR, InteriorToeplitzDetection)
{
  Factor F = Uniform1D(33, Bc::Dirichlet, 1e12);
  EXPECT_TRUE(petsckp::pscr::InteriorToeplitz(F).on);
  Factor G = F;
  for (Int i = 0; i < G.n(); i++) G.md[i] *= 1 + 2e-4 * ((i % 3) - 1);
  EXPECT_FALSE(petsckp::pscr::InteriorToeplitz(G).on);
  Factor H = F;
  H.ao[7] *= 1 + 1e-12;
  EXPECT_FALSE(petsckp::pscr::InteriorToeplitz(H).on);
  Factor E = F; /* only the ends differ: still interior-Toeplitz */
  E.ad[0] *= 3, E.ad[32] *= 0.5, E.md[0] *= 2;
  EXPECT_TRUE(petsckp::pscr::InteriorToeplitz(E).on);
  EXPECT_FALSE(petsckp::pscr::InteriorToeplitz(Uniform1D(2, Bc::Dirichlet)).on);
}

/* the PC with factors given by PCPSCRSetFactors(): Dirichlet ends on a strongly graded mesh (cells from 1e-8 to 0.25 of
   [0, 1]: the smallest eigenvalue of the pencil about 1e-12 of the largest) is a nonsingular operator and is solved
   to its backward error, not refused as singular; a NaN entry of a factor is named as such, not as an asymmetry; a
   stiffness pair after a missing one is refused instead of being ignored */
TEST(PSCR, PCGradedMeshAndFactorChecks)
{
  const PetscInt n1 = 50, n2 = 7, N = n1 * n2;
  Mat            A1, M1, A2, A;
  Factor         G; /* the graded factor, for the eigenvalue ratio */
  {
    std::vector<PetscReal> h(n1 + 1);
    PetscReal              tot = 0;
    for (PetscInt i = 0; i <= n1; i++) tot += h[i] = std::pow(1.3, (double)i);
    for (auto &x : h) x /= tot;
    G.ad.assign(n1, 0), G.ao.assign(n1 - 1, 0), G.md.assign(n1, 0);
    for (PetscInt i = 0; i < n1; i++) {
      G.ad[i] = 1 / h[i] + 1 / h[i + 1], G.md[i] = (h[i] + h[i + 1]) / 2;
      if (i + 1 < n1) G.ao[i] = -1 / h[i + 1];
    }
  }
  {
    petsckp::pscr::Solver S;
    Factor L; /* tridiag(-1, 2, -1), M = I */
    L.ad.assign(n2, 2.0), L.ao.assign(n2 - 1, -1.0);
    ASSERT_EQ(petsckp::pscr::Setup({G, L}, 4, S), "");
    ASSERT_TRUE(S.have_min);
    EXPECT_LT(S.min_sum, 1e-10 * S.eig_scale); /* below the former singularity test */
  }
  MatCreateSeqAIJ(PETSC_COMM_SELF, n1, n1, 3, NULL, &A1);
  MatCreateSeqAIJ(PETSC_COMM_SELF, n1, n1, 1, NULL, &M1);
  MatCreateSeqAIJ(PETSC_COMM_SELF, n2, n2, 3, NULL, &A2);
  for (PetscInt i = 0; i < n1; i++) {
    MatSetValue(A1, i, i, G.ad[i], INSERT_VALUES);
    if (i + 1 < n1) MatSetValue(A1, i, i + 1, G.ao[i], INSERT_VALUES), MatSetValue(A1, i + 1, i, G.ao[i], INSERT_VALUES);
    MatSetValue(M1, i, i, G.md[i], INSERT_VALUES);
  }
  for (PetscInt i = 0; i < n2; i++) {
    MatSetValue(A2, i, i, 2.0, INSERT_VALUES);
    if (i + 1 < n2) MatSetValue(A2, i, i + 1, -1.0, INSERT_VALUES), MatSetValue(A2, i + 1, i, -1.0, INSERT_VALUES);
  }
  for (Mat X : {A1, M1, A2}) MatAssemblyBegin(X, MAT_FINAL_ASSEMBLY), MatAssemblyEnd(X, MAT_FINAL_ASSEMBLY);
  /* A = A1 (x) I + M1 (x) A2 */
  MatCreateSeqAIJ(PETSC_COMM_SELF, N, N, 7, NULL, &A);
  for (PetscInt i1 = 0; i1 < n1; i1++)
    for (PetscInt i2 = 0; i2 < n2; i2++)
      for (PetscInt j1 = std::max<PetscInt>(i1 - 1, 0); j1 <= std::min(i1 + 1, n1 - 1); j1++)
        for (PetscInt j2 = std::max<PetscInt>(i2 - 1, 0); j2 <= std::min(i2 + 1, n2 - 1); j2++) {
          const PetscReal a1 = j1 == i1 ? G.ad[i1] : G.ao[std::min(i1, j1)], m1 = j1 == i1 ? G.md[i1] : 0;
          const PetscReal a2 = j2 == i2 ? 2.0 : -1.0, v = a1 * (j2 == i2 ? 1.0 : 0.0) + m1 * a2;
          if (v != 0) MatSetValue(A, i1 * n2 + i2, j1 * n2 + j2, v, INSERT_VALUES);
        }
  MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY), MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY);
  auto message = []() {
    const char        *text;
    PetscKPErrorString specific = NULL;
    PetscErrorMessage(PETSC_ERR_ARG_WRONG, &text, &specific);
    return specific ? std::string(specific) : std::string();
  };
  Vec b, x, r;
  MatCreateVecs(A, &x, &b);
  VecDuplicate(b, &r);
  VecSetRandom(b, NULL);
  PC pc;
  PCCreate(PETSC_COMM_SELF, &pc);
  PCSetType(pc, PCPSCR);
  PCSetOperators(pc, A, A);
  PCPSCRSetFactors(pc, A1, M1, A2, NULL, NULL, NULL);
  PetscPushErrorHandler(PetscReturnErrorHandler, nullptr);
  PetscErrorCode ierr = PCSetUp(pc);
  if (!ierr) ierr = PCApply(pc, b, x);
  PetscPopErrorHandler();
  EXPECT_EQ((int)ierr, 0) << message();
  PetscReal nr, nb, na, nx;
  MatMult(A, x, r), VecAYPX(r, -1, b), VecNorm(r, NORM_2, &nr), VecNorm(b, NORM_2, &nb), VecNorm(x, NORM_2, &nx);
  MatNorm(A, NORM_INFINITY, &na);
  EXPECT_LT(nr / (na * nx + nb), 1e-14); /* the normwise backward error of a direct solve */
  /* a NaN in a factor */
  Mat B1;
  MatDuplicate(A1, MAT_COPY_VALUES, &B1);
  MatSetValue(B1, 3, 3, NAN, INSERT_VALUES);
  MatAssemblyBegin(B1, MAT_FINAL_ASSEMBLY), MatAssemblyEnd(B1, MAT_FINAL_ASSEMBLY);
  PCPSCRSetFactors(pc, B1, M1, A2, NULL, NULL, NULL);
  PetscPushErrorHandler(PetscReturnErrorHandler, nullptr);
  ierr = PCSetUp(pc);
  PetscPopErrorHandler();
  EXPECT_EQ((int)ierr, (int)PETSC_ERR_FP);
  EXPECT_NE(message().find("A1 has a NaN or Inf entry (3, 3)"), std::string::npos) << message();
  /* finite entries of 1e160, whose squares overflow: not reported as NaN or Inf entries of the operator (the
     solve may still fail on the scale, with its own error) */
  {
    Mat As;
    MatDuplicate(A, MAT_COPY_VALUES, &As);
    MatScale(As, 1e160);
    PCSetOperators(pc, As, As);
    PCPSCRSetFactors(pc, NULL, NULL, NULL, NULL, NULL, NULL);
    PetscPushErrorHandler(PetscReturnErrorHandler, nullptr);
    ierr = PCSetUp(pc);
    PetscPopErrorHandler();
    if (ierr) EXPECT_EQ(message().find("NaN or Inf entries"), std::string::npos) << message();
    /* and an Inf entry is */
    MatSetValue(As, 5, 5, INFINITY, INSERT_VALUES);
    MatAssemblyBegin(As, MAT_FINAL_ASSEMBLY), MatAssemblyEnd(As, MAT_FINAL_ASSEMBLY);
    PCSetOperators(pc, As, As);
    PetscPushErrorHandler(PetscReturnErrorHandler, nullptr);
    ierr = PCSetUp(pc);
    PetscPopErrorHandler();
    EXPECT_EQ((int)ierr, (int)PETSC_ERR_FP);
    EXPECT_NE(message().find("NaN or Inf entries"), std::string::npos) << message();
    PCSetOperators(pc, A, A);
    MatDestroy(&As);
  }
  /* (A2, M2) without (A1, M1) */
  PetscPushErrorHandler(PetscReturnErrorHandler, nullptr);
  ierr = PCPSCRSetFactors(pc, NULL, NULL, A2, NULL, NULL, NULL);
  PetscPopErrorHandler();
  EXPECT_EQ((int)ierr, (int)PETSC_ERR_ARG_WRONG);
  EXPECT_NE(message().find("give the pairs in order"), std::string::npos) << message();
  PCDestroy(&pc);
  for (Mat *X : {&A1, &M1, &A2, &A, &B1}) MatDestroy(X);
  for (Vec *v : {&b, &x, &r}) VecDestroy(v);
}

namespace
{
/* the eigenvalues of the pencil (A, M) of a factor, ascending, one by one: the k-th by bisection on the inertia of
   A - sigma M (the signs of the pivots of its LDL^T, Sylvester's law), to the rounding level of the bracket */
std::vector<Real> BisectionPencilEigenvalues(const Factor &F)
{
  const Int n     = F.n();
  auto      below = [&](Real x) { /* the number of eigenvalues < x */
    Int  c = 0;
    Real q = 1;
    for (Int i = 0; i < n; i++) {
      const Real o = i > 0 ? F.ao[i - 1] - x * (F.mo.empty() ? 0 : F.mo[i - 1]) : 0;
      q            = F.ad[i] - x * (F.md.empty() ? 1 : F.md[i]) - (i > 0 ? o * o / q : 0);
      if (q == 0) q = -std::numeric_limits<Real>::min();
      if (q < 0) c++;
    }
    return c;
  };
  Real lo = -1, hi = 1;
  while (below(lo) > 0) lo *= 2;
  while (below(hi) < n) hi *= 2;
  std::vector<Real> w(n);
  for (Int k = 0; k < n; k++) {
    Real a = lo, b = hi;
    for (int it = 0; it < 2000; it++) {
      const Real m = 0.5 * (a + b);
      if (!(m > a && m < b)) break;
      if (below(m) > k) b = m;
      else a = m;
    }
    w[k] = 0.5 * (a + b);
  }
  return w;
}
} // namespace

/* the distance of the shifted operator from singularity (ShiftGap, which PCPSCR uses to refuse a singular shift)
   against the eigenvalues of a plain bisection: an SPD shift (c + the sum of the smallest eigenvalues), shifts that
   make the operator indefinite, and shifts that make it singular through two (three) interior eigenvalues; 1D to 3D,
   uniform factors (closed form) and non-uniform ones with diagonal and tridiagonal mass factors */
TEST(PSCR, ShiftGapAgainstBisectionEigenvalues)
{
  const std::vector<std::vector<Factor>> cases = {
    {Make1D(1, Bc::Dirichlet, 1)},
    {Make1D(597, Bc::Robin, 2)},
    {Make1D(13, Bc::Robin, 3), Make1D(40, Bc::Q1, 4)},
    {Uniform1D(31, Bc::Dirichlet), Uniform1D(31, Bc::Dirichlet)},
    {Make1D(5, Bc::Neumann, 5), Make1D(7, Bc::Q1, 6), Make1D(6, Bc::Robin, 7)},
    {Uniform1D(13, Bc::Neumann), Uniform1D(1, Bc::Dirichlet), Uniform1D(9, Bc::Dirichlet)},
  };
  for (const auto &F : cases) {
    const Int                      dim = (Int)F.size();
    std::vector<std::vector<Real>> ev;
    Real                           scale = 0;
    for (const auto &f : F) ev.push_back(BisectionPencilEigenvalues(f)), scale += std::max(std::abs(ev.back().front()), std::abs(ev.back().back()));
    auto brute = [&](Real c) {
      Real g = std::numeric_limits<Real>::infinity();
      for (Real a : ev[0])
        for (Real b : dim > 1 ? ev[1] : std::vector<Real>{0})
          for (Real e : dim > 2 ? ev[2] : std::vector<Real>{0}) g = std::min(g, std::abs(a + b + e + c));
      return g;
    };
    petsckp::pscr::Solver S;
    ASSERT_EQ(petsckp::pscr::Setup(F, 4, S), "");
    /* SPD, indefinite (between eigenvalue sums), and singular (minus an interior sum) shifts */
    std::vector<Real> shifts = {1.0, -0.37 * scale, -0.8 * scale};
    Real              inner  = 0;
    for (Int d = 0; d < dim; d++) inner += ev[d][ev[d].size() / 2];
    shifts.push_back(-inner);
    for (Real c : shifts) {
      SCOPED_TRACE("dim " + std::to_string(dim) + " n " + std::to_string(F[0].n()) + " c " + std::to_string(c));
      Real gap = -1;
      ASSERT_EQ(petsckp::pscr::ShiftGap(S, c, &gap), "");
      EXPECT_NEAR(gap, brute(c), 1e-11 * (scale + std::abs(c)));
    }
    /* the singular shift is within PCPSCR's tolerance (1000 units of rounding) of zero */
    Real gap = -1;
    ASSERT_EQ(petsckp::pscr::ShiftGap(S, -inner, &gap), "");
    EXPECT_LE(gap, 1000 * std::numeric_limits<Real>::epsilon() * (scale + std::abs(inner)));
  }
}
