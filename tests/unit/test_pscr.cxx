/* Unit tests of the radix-q PSCR kernels (src/pc/pscr/pscr_kernels): exactness of one application against the
   operator applied by a plain serial stencil loop, 1D-3D, radix 2-5, any n (odd, prime, q^j and q^j +- 1), Dirichlet,
   Neumann, Robin ends, non-uniform meshes, tridiagonal (Q1) mass factors, shifts changed without a new setup. */
#include "kp_test.hpp"
#include "pc/pscr/pscr_kernels.hpp"

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
