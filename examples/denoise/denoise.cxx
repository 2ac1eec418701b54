static char help[] = "L1-mean-curvature image denoising by the augmented Lagrangian method of Myllykoski, Glowinski, Karkkainen\n\
and Rossi (SIAM J. Imaging Sci. 8, 2015; GPU version: WSCG 2015): three multipliers, four subproblems per iteration\n\
(pointwise non-convex minimisation, a CG solve on the P0 vector fields, a soft threshold, and a separable linear\n\
system solved with KSP + PCPSCR), all on the device.\n\n\
Options:\n\
  -image <file.pgm>     : the clean image (binary or ASCII PGM); default: a synthetic image of shapes\n\
  -size <n>             : size of the synthetic image (default 128)\n\
  -noise <sigma>        : standard deviation of the uniform noise added (default 0.1), -seed <s> (default 1)\n\
  -r0 <r0>              : the parameter r0 of eps = r0 h, r1 = 10 r0 h, r2 = 5 r0, r3 = 5 r0 h^2 (default 0.005)\n\
  -h <h>                : the mesh size (default 0.005, the GPU paper's choice)\n\
  -max_it <n>           : ADMM iterations at most (default 500), -rtol <delta> relative change of the augmented\n\
                          Lagrangian that stops the iteration (default 1e-4)\n\
  -cg_rtol, -cg_max_it  : subproblem 2 (default 1e-8, 200)\n\
  -o <file.png>         : the denoised image; -o_noisy <file.png> the noisy one\n\
  -print_times          : wall-clock time per ADMM iteration and per subproblem (device synchronised)\n\
The linear subproblem 4 is solved by a KSP with prefix u_ (default -u_ksp_type preonly -u_pc_type pscr).\n\n";

/*
   Discretisation (paper, Section 3): pixels are the vertices of a uniform triangulation of spacing h (every pixel
   square split by its diagonal from (i,j) to (i+1,j+1): a lower triangle T0 = (i,j),(i+1,j),(i+1,j+1) and an upper
   one T1 = (i,j),(i+1,j+1),(i,j+1)); u, f are continuous P1 (vertex values), p1, p2, p3 and lambda1, lambda2 are P0
   vector fields (one 2-vector per triangle), psi and lambda3 live on the interior vertices. div_h q at an interior
   vertex is -(3/|Omega_j|) int q . grad w_j. Subproblem 4, (r1 K + M) u = M f + G^T (r1 p1 - lambda1), has the P1
   stiffness K = K_y (x) M_x + M_y (x) K_x (exact on this mesh) and the lumped mass taken as the tensor product
   M = M_y (x) M_x (the P1 lumped mass differs from it only at the four corners, by h^2/12): it is exactly separable
   and PCPSCR solves it directly. The noise is uniform with the given standard deviation (seeded). Subproblem 1 is
   reduced to one variable (the minimiser is collinear with b1 + b2 / sqrt(1 + |x|^2)) and minimised globally by a
   logarithmic scan and a golden-section refinement; the previous p1 is kept when it is better.
*/
#include "kp_kokkos.hpp" /* first: it includes petsckp_compat.h with the Kokkos helpers */
#include "kp_vec.hpp"
#include <petscksp.h>
#include <petsckp.h>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

using namespace petsckp;

struct Grid {
  Int  W = 0, H = 0, S = 0; /* vertices W x H (x fastest), S = (W-1)(H-1) squares */
  Real h = 0.005;
};

/* grad of the P1 function u on the two triangles of every square: Q planes (T0x, T0y, T1x, T1y) of S entries */
static void Gradient(const Grid &g, const View<Real> &u, const View<Real> &q)
{
  const Int  W = g.W, S = g.S, W1 = g.W - 1;
  const Real ih = 1 / g.h;
  Kokkos::parallel_for(
    "denoise::Gradient", range(S), KOKKOS_LAMBDA(Int s) {
      const Int  i = s % W1, j = s / W1, a = j * W + i;
      const Real uA = u(a), uB = u(a + 1), uC = u(a + W + 1), uD = u(a + W);
      q(s)         = (uB - uA) * ih;
      q(S + s)     = (uC - uB) * ih;
      q(2 * S + s) = (uC - uD) * ih;
      q(3 * S + s) = (uD - uA) * ih;
    });
}

/* v = G^T diag(|T|) q: the load int q . grad w_j of every vertex */
static void GradientT(const Grid &g, const View<Real> &q, const View<Real> &v)
{
  const Int  W = g.W, H = g.H, S = g.S, W1 = g.W - 1;
  const Real c = g.h / 2; /* |T| / h */
  Kokkos::parallel_for(
    "denoise::GradientT", range(W * H), KOKKOS_LAMBDA(Int p) {
      const Int i = p % W, j = p / W;
      Real      a = 0;
      if (i < W - 1 && j < H - 1) { /* square (i, j): vertex A */
        const Int s = j * W1 + i;
        a += -q(s) - q(3 * S + s);
      }
      if (i > 0 && j < H - 1) { /* square (i-1, j): vertex B */
        const Int s = j * W1 + i - 1;
        a += q(s) - q(S + s);
      }
      if (i > 0 && j > 0) { /* square (i-1, j-1): vertex C */
        const Int s = (j - 1) * W1 + i - 1;
        a += q(S + s) + q(2 * S + s);
      }
      if (i < W - 1 && j > 0) { /* square (i, j-1): vertex D */
        const Int s = (j - 1) * W1 + i;
        a += -q(2 * S + s) + q(3 * S + s);
      }
      v(p) = c * a;
    });
}

/* div_h q = -(1 / h^2) G^T diag(|T|) q at interior vertices (|Omega_j| = 3 h^2), 0 on the boundary */
static void Divergence(const Grid &g, const View<Real> &q, const View<Real> &d)
{
  GradientT(g, q, d);
  const Int  W = g.W, H = g.H;
  const Real s = -1 / (g.h * g.h);
  Kokkos::parallel_for(
    "denoise::Divergence", range(W * H), KOKKOS_LAMBDA(Int p) {
      const Int i = p % W, j = p / W;
      d(p)        = (i > 0 && j > 0 && i < W - 1 && j < H - 1) ? s * d(p) : 0.0;
    });
}

static Real Dot(const View<Real> &a, const View<Real> &b)
{
  Real r = 0;
  Kokkos::parallel_reduce(
    "denoise::Dot", range((Int)a.extent(0)), KOKKOS_LAMBDA(Int p, Real & s) { s += a(p) * b(p); }, r);
  return r;
}

/* y = a x + b y */
static void Axpby(Real a, const View<Real> &x, Real b, const View<Real> &y)
{
  Kokkos::parallel_for(
    "denoise::Axpby", range((Int)x.extent(0)), KOKKOS_LAMBDA(Int p) { y(p) = a * x(p) + b * y(p); });
}

/* subproblem 2 operator on Q (divided by |T|): q -> r2 q + 2 r3 D^T D q with D = div_h, D^T phi = -(1/2) G phi */
static void Op2(const Grid &g, Real r2, Real r3, const View<Real> &q, const View<Real> &y, const View<Real> &wv)
{
  Divergence(g, q, wv);
  Gradient(g, wv, y);
  Axpby(r2, q, -r3, y); /* 2 r3 (-1/2) G div q */
}

struct State {
  View<Real> f, u, psi, l3, p1, p2, p3, l1, l2, gu, wq, wq2, wq3, wq4, wv, wv2;
};

/* subproblem 1 on every triangle: min over x of |x|^2/2 (r1 + r2/(1+|x|^2)) - (b1 + b2/sqrt(1+|x|^2)) . x,
   b1 = r1 grad u + l1, b2 = r2 p3 - l2; p2 = p1 / sqrt(1 + |p1|^2) */
static void Sub1(const Grid &g, State &st, Real r1, Real r2)
{
  Gradient(g, st.u, st.gu);
  const Int  S = g.S;
  const auto gu = st.gu, p1 = st.p1, p2 = st.p2, p3 = st.p3, l1 = st.l1, l2 = st.l2;
  const int  K     = 48;                          /* samples of the logarithmic scan of [1e-8 smax, smax] */
  const Real ratio = std::pow(10.0, 8.0 / K);
  Kokkos::parallel_for(
    "denoise::Sub1", range(2 * S), KOKKOS_LAMBDA(Int t) {
      const Int  tri = t / S, s = t % S, ix = 2 * tri * S + s, iy = ix + S;
      const Real b1x = r1 * gu(ix) + l1(ix), b1y = r1 * gu(iy) + l1(iy), b2x = r2 * p3(ix) - l2(ix), b2y = r2 * p3(iy) - l2(iy);
      auto       vecv = [&](Real sg, Real &vx, Real &vy) {
        const Real w = 1 / compat::sqrt(1 + sg * sg);
        vx           = b1x + b2x * w;
        vy           = b1y + b2y * w;
      };
      auto psi = [&](Real sg) {
        Real vx, vy;
        vecv(sg, vx, vy);
        return 0.5 * sg * sg * (r1 + r2 / (1 + sg * sg)) - sg * compat::sqrt(vx * vx + vy * vy);
      };
      auto phi = [&](Real x, Real y) {
        const Real n2 = x * x + y * y, w = 1 / compat::sqrt(1 + n2);
        return 0.5 * n2 * (r1 + r2 / (1 + n2)) - ((b1x + b2x * w) * x + (b1y + b2y * w) * y);
      };
      const Real bn   = compat::sqrt(b1x * b1x + b1y * b1y) + compat::sqrt(b2x * b2x + b2y * b2y);
      const Real smax = 2 * bn / r1 + 1;
      /* logarithmic scan of (smax 1e-8, smax], then golden section around the best sample */
      Real best = 0, fbest = 0, lo = 0, hi = 0, sg = smax * 1e-8;
      for (int k = 0; k <= K; k++, sg *= ratio) {
        const Real fv = psi(sg);
        if (fv < fbest) {
          fbest = fv;
          best  = sg;
          lo    = k > 0 ? sg / ratio : 0;
          hi    = k < K ? sg * ratio : smax;
        }
      }
      if (best > 0) {
        const Real gr = 0.6180339887498949;
        Real       a = lo, b = hi, c = b - gr * (b - a), d = a + gr * (b - a), fc = psi(c), fd = psi(d);
        for (int it = 0; it < 80 && b - a > 1e-13 * (1 + b); it++) {
          if (fc < fd) {
            b = d, d = c, fd = fc, c = b - gr * (b - a), fc = psi(c);
          } else {
            a = c, c = d, fc = fd, d = a + gr * (b - a), fd = psi(d);
          }
        }
        const Real m = 0.5 * (a + b), fm = psi(m);
        if (fm < fbest) best = m, fbest = fm;
      }
      Real vx, vy, x = 0, y = 0;
      vecv(best, vx, vy);
      const Real vn = compat::sqrt(vx * vx + vy * vy);
      if (vn > 0) x = best * vx / vn, y = best * vy / vn;
      if (phi(p1(ix), p1(iy)) < phi(x, y)) x = p1(ix), y = p1(iy); /* keep the previous minimiser when better */
      const Real w = 1 / compat::sqrt(1 + x * x + y * y);
      p1(ix)       = x;
      p1(iy)       = y;
      p2(ix)       = x * w;
      p2(iy)       = y * w;
    });
}

/* subproblem 2: CG from p3 on (r2 I + 2 r3 D^T D) p3 = r2 p2 + l2 + 2 D^T (r3 psi - l3) */
static Int Sub2(const Grid &g, State &st, Real r2, Real r3, Real rtol, Int maxit)
{
  const Int  NQ = 4 * g.S, NV = g.W * g.H;
  View<Real> b = st.wq, r = st.wq2, pdir = st.wq3, Ap = st.wq4;
  const auto psi = st.psi, l3 = st.l3, wv = st.wv, p2 = st.p2, l2 = st.l2;
  Kokkos::parallel_for(
    "denoise::Sub2Load", range(NV), KOKKOS_LAMBDA(Int p) { wv(p) = r3 * psi(p) - l3(p); });
  Gradient(g, wv, b); /* 2 D^T phi = -G phi */
  Kokkos::parallel_for(
    "denoise::Sub2Rhs", range(NQ), KOKKOS_LAMBDA(Int p) { b(p) = r2 * p2(p) + l2(p) - b(p); });
  Op2(g, r2, r3, st.p3, r, st.wv2);
  Axpby(1, b, -1, r); /* r = b - A p3 */
  const Real bn = compat::sqrt(Dot(b, b));
  Kokkos::deep_copy(exec(), pdir, r);
  Real rr = Dot(r, r);
  Int  it = 0;
  while (it < maxit && compat::sqrt(rr) > rtol * bn) {
    Op2(g, r2, r3, pdir, Ap, st.wv2);
    const Real alpha = rr / Dot(pdir, Ap);
    Axpby(alpha, pdir, 1, st.p3);
    Axpby(-alpha, Ap, 1, r);
    const Real rr1 = Dot(r, r);
    Axpby(1, r, rr1 / rr, pdir);
    rr = rr1;
    it++;
  }
  return it;
}

/* subproblem 3: psi = sgn(X) max(0, |X| - eps) / r3, X = r3 div p3 + l3 (interior vertices) */
static void Sub3(const Grid &g, State &st, Real r3, Real eps)
{
  Divergence(g, st.p3, st.wv);
  const auto wv = st.wv, l3 = st.l3, psi = st.psi;
  Kokkos::parallel_for(
    "denoise::Sub3", range(g.W * g.H), KOKKOS_LAMBDA(Int p) {
      const Real X = r3 * wv(p) + l3(p), a = X < 0 ? -X : X;
      psi(p)       = a > eps ? (X < 0 ? -1 : 1) * (a - eps) / r3 : 0.0;
    });
}

/* the 1D factors of r1 K + M: K_1D = (1/h) tridiag(-1, [1 2 ... 2 1], -1), M_1D = h diag(1/2, 1, ..., 1, 1/2) */
static Real Mass1D(Int i, Int n, Real h) { return (i == 0 || i == n - 1) ? h / 2 : h; }
static Real Stiff1D(Int i, Int n, Real h) { return (i == 0 || i == n - 1) ? 1 / h : 2 / h; }

static PetscErrorCode Factor1D(Int n, Real h, Real r1, Mat *A, Mat *M)
{
  PetscFunctionBeginUser;
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, n, n, 3, NULL, A));
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, n, n, 1, NULL, M));
  for (Int i = 0; i < n; i++) {
    PetscCall(MatSetValue(*A, i, i, r1 * Stiff1D(i, n, h), INSERT_VALUES));
    if (i > 0) PetscCall(MatSetValue(*A, i, i - 1, -r1 / h, INSERT_VALUES));
    if (i + 1 < n) PetscCall(MatSetValue(*A, i, i + 1, -r1 / h, INSERT_VALUES));
    PetscCall(MatSetValue(*M, i, i, Mass1D(i, n, h), INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyBegin(*M, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*M, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the assembled r1 (K_y (x) M_x + M_y (x) K_x) + M_y (x) M_x (5-point) */
static PetscErrorCode Operator4(const Grid &g, Real r1, MatType type, Mat *A)
{
  const Int W = g.W, H = g.H;
  const Real h = g.h;

  PetscFunctionBeginUser;
  PetscCall(MatCreate(PETSC_COMM_SELF, A));
  PetscCall(MatSetSizes(*A, W * H, W * H, W * H, W * H));
  PetscCall(MatSetType(*A, MATSEQAIJ));
  PetscCall(MatSeqAIJSetPreallocation(*A, 5, NULL));
  for (Int j = 0; j < H; j++)
    for (Int i = 0; i < W; i++) {
      const Int    p = j * W + i;
      const Real   mx = Mass1D(i, W, h), my = Mass1D(j, H, h);
      PetscInt     cols[5], c = 0;
      PetscScalar  v[5];
      cols[c] = p, v[c++] = r1 * (Stiff1D(i, W, h) * my + mx * Stiff1D(j, H, h)) + mx * my;
      if (i > 0) cols[c] = p - 1, v[c++] = -r1 / h * my;
      if (i + 1 < W) cols[c] = p + 1, v[c++] = -r1 / h * my;
      if (j > 0) cols[c] = p - W, v[c++] = -r1 / h * mx;
      if (j + 1 < H) cols[c] = p + W, v[c++] = -r1 / h * mx;
      PetscCall(MatSetValues(*A, 1, &p, c, cols, v, INSERT_VALUES));
    }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  if (type) PetscCall(MatConvert(*A, type, MAT_INPLACE_MATRIX, A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the augmented Lagrangian L_rh (paper, eq. 3.22, with the quadrature of Section 3) */
static Real Lagrangian(const Grid &g, State &st, Real eps, Real r1, Real r2, Real r3)
{
  const Int  W = g.W, H = g.H, S = g.S;
  const Real h = g.h, T = h * h / 2;
  Gradient(g, st.u, st.gu);
  Divergence(g, st.p3, st.wv);
  Real       a = 0, b = 0;
  const auto gu = st.gu, p1 = st.p1, p2 = st.p2, p3 = st.p3, l1 = st.l1, l2 = st.l2, u = st.u, f = st.f, psi = st.psi, l3 = st.l3, dv = st.wv;
  Kokkos::parallel_reduce(
    "denoise::LagrangianQ", range(4 * S),
    KOKKOS_LAMBDA(Int p, Real & s) {
      const Real e1 = gu(p) - p1(p), e2 = p2(p) - p3(p);
      s += T * (0.5 * r1 * e1 * e1 + l1(p) * e1 + 0.5 * r2 * e2 * e2 + l2(p) * e2);
    },
    a);
  Kokkos::parallel_reduce(
    "denoise::LagrangianV", range(W * H),
    KOKKOS_LAMBDA(Int p, Real & s) {
      const Int  i = p % W, j = p / W;
      const Real mx = (i == 0 || i == W - 1) ? h / 2 : h, my = (j == 0 || j == H - 1) ? h / 2 : h, d = f(p) - u(p);
      s += 0.5 * mx * my * d * d;
      if (i > 0 && j > 0 && i < W - 1 && j < H - 1) {
        const Real e3 = dv(p) - psi(p);
        s += h * h * (eps * (psi(p) < 0 ? -psi(p) : psi(p)) + 0.5 * r3 * e3 * e3 + l3(p) * e3);
      }
    },
    b);
  return a + b;
}

static PetscErrorCode ReadPGM(const char *file, std::vector<Real> &img, Int &W, Int &H)
{
  FILE *fp;
  char  magic[3] = {0};
  int   w, hgt, maxv;

  PetscFunctionBeginUser;
  fp = fopen(file, "rb");
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot open the image %s", file);
  PetscCheck(fscanf(fp, "%2s", magic) == 1 && (magic[1] == '5' || magic[1] == '2') && magic[0] == 'P', PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s is not a PGM image (P2 or P5); convert PNG images to PGM first", file);
  auto skip = [&]() {
    int c;
    while ((c = fgetc(fp)) != EOF) {
      if (c == '#') {
        while ((c = fgetc(fp)) != EOF && c != '\n') {}
      } else if (!isspace(c)) {
        ungetc(c, fp);
        break;
      }
    }
  };
  skip();
  PetscCheck(fscanf(fp, "%d", &w) == 1, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "bad PGM header in %s", file);
  skip();
  PetscCheck(fscanf(fp, "%d", &hgt) == 1, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "bad PGM header in %s", file);
  skip();
  PetscCheck(fscanf(fp, "%d", &maxv) == 1 && maxv > 0 && maxv < 65536 && w > 2 && hgt > 2, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "bad PGM header in %s (at least 3 x 3 pixels)", file);
  fgetc(fp);
  W = w, H = hgt;
  if (magic[1] == '5') { /* the pixels must be in the file before they are allocated (a bad header may give any size) */
    const long here = ftell(fp);
    PetscCheck(here >= 0 && fseek(fp, 0, SEEK_END) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "cannot read %s", file);
    const long end = ftell(fp);
    PetscCheck(end >= here && (double)(end - here) >= (double)W * H * (maxv > 255 ? 2 : 1), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s ends early: its header gives %d x %d pixels", file, w, hgt);
    PetscCheck(fseek(fp, here, SEEK_SET) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "cannot read %s", file);
  }
  img.resize((size_t)W * H);
  for (Int p = 0; p < W * H; p++) {
    int v = 0;
    if (magic[1] == '5') {
      v = fgetc(fp);
      if (maxv > 255) v = v * 256 + fgetc(fp);
    } else PetscCheck(fscanf(fp, "%d", &v) == 1, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s ends early", file);
    PetscCheck(v >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s ends early", file);
    PetscCheck(v <= maxv, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: pixel %d has the value %d, above the maximum %d of its header", file, (int)p, v, maxv);
    img[p] = (Real)v / maxv;
  }
  fclose(fp);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* shapes on a background (in the spirit of the paper's synthetic test images): a rectangle, a disk, a triangle, a
   ring, a smooth gradient band */
static void Shapes(Int n, std::vector<Real> &img)
{
  img.assign((size_t)n * n, 0.2);
  for (Int j = 0; j < n; j++)
    for (Int i = 0; i < n; i++) {
      const Real x = (i + 0.5) / n, y = (j + 0.5) / n;
      Real      &v = img[j * n + i];
      if (x > 0.1 && x < 0.45 && y > 0.1 && y < 0.35) v = 0.85;
      if ((x - 0.72) * (x - 0.72) + (y - 0.28) * (y - 0.28) < 0.03) v = 0.6;
      if (y > 0.55 && y < 0.9 && std::abs(x - 0.3) < 0.5 * (y - 0.55)) v = 0.45;
      const Real r = std::sqrt((x - 0.72) * (x - 0.72) + (y - 0.72) * (y - 0.72));
      if (r > 0.1 && r < 0.17) v = 0.95;
      if (y > 0.93) v = 0.2 + 0.6 * x;
    }
}

static PetscErrorCode WritePNG(const char *file, const std::vector<Real> &img, Int W, Int H)
{
  std::vector<unsigned char> pix((size_t)W * H);
  unsigned char             *png;
  size_t                     len;
  FILE                      *fp;

  PetscFunctionBeginUser;
  for (size_t p = 0; p < pix.size(); p++) pix[p] = (unsigned char)std::lround(255 * std::min<Real>(1, std::max<Real>(0, img[p])));
  PetscCall(PetscKPPNGEncodeGray(pix.data(), W, H, &png, &len));
  fp = fopen(file, "wb");
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot write %s", file);
  PetscCheck(fwrite(png, 1, len, fp) == len, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "cannot write %s", file);
  fclose(fp);
  PetscCall(PetscFree(png));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static Real PSNR(const std::vector<Real> &a, const std::vector<Real> &b)
{
  double e = 0;
  for (size_t p = 0; p < a.size(); p++) e += (a[p] - b[p]) * (a[p] - b[p]);
  return 10 * std::log10(a.size() / std::max(e, 1e-300));
}

template <class V>
static std::vector<Real> ToHostVec(const V &v)
{
  std::vector<Real> h(v.extent(0));
  Kokkos::fence();
  Kokkos::deep_copy(HostUView<Real>(h.data(), h.size()), v);
  return h;
}

int main(int argc, char **argv)
{
  char              file[PETSC_MAX_PATH_LEN] = "", out[PETSC_MAX_PATH_LEN] = "", outn[PETSC_MAX_PATH_LEN] = "";
  PetscInt          size = 128, maxit = 500, cgmax = 200, seed = 1;
  PetscReal         noise = 0.1, r0 = 0.005, rtol = 1e-4, cgrtol = 1e-8;
  PetscMPIInt       nproc;
  Grid              g;
  std::vector<Real> clean, noisy;
  MatType           mtype = NULL;
  char              mt[64];
  PetscBool         flg, times = PETSC_FALSE;
  double            tsub[6] = {0, 0, 0, 0, 0, 0}, tall = 0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscKPRegisterAll());
  PetscCall(KokkosInitializeOnce());
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &nproc));
  PetscCheck(nproc == 1, PETSC_COMM_WORLD, PETSC_ERR_SUP, "the denoising example runs on one process (one device)");
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "Denoising options", NULL);
  PetscCall(PetscOptionsString("-image", "clean image (PGM)", NULL, file, file, sizeof(file), NULL));
  PetscCall(PetscOptionsInt("-size", "size of the synthetic image", NULL, size, &size, NULL));
  PetscCall(PetscOptionsReal("-noise", "standard deviation of the uniform noise", NULL, noise, &noise, NULL));
  PetscCall(PetscOptionsInt("-seed", "seed of the noise", NULL, seed, &seed, NULL));
  PetscCall(PetscOptionsReal("-r0", "r0 (eps = r0 h, r1 = 10 r0 h, r2 = 5 r0, r3 = 5 r0 h^2)", NULL, r0, &r0, NULL));
  PetscCall(PetscOptionsReal("-h", "mesh size", NULL, g.h, &g.h, NULL));
  PetscCall(PetscOptionsInt("-max_it", "ADMM iterations at most", NULL, maxit, &maxit, NULL));
  PetscCall(PetscOptionsReal("-rtol", "relative change of the augmented Lagrangian that stops", NULL, rtol, &rtol, NULL));
  PetscCall(PetscOptionsReal("-cg_rtol", "subproblem 2 CG tolerance", NULL, cgrtol, &cgrtol, NULL));
  PetscCall(PetscOptionsInt("-cg_max_it", "subproblem 2 CG iterations at most", NULL, cgmax, &cgmax, NULL));
  PetscCall(PetscOptionsString("-o", "denoised PNG", NULL, out, out, sizeof(out), NULL));
  PetscCall(PetscOptionsString("-o_noisy", "noisy PNG", NULL, outn, outn, sizeof(outn), NULL));
  PetscCall(PetscOptionsBool("-print_times", "time per iteration and per subproblem", NULL, times, &times, NULL));
  PetscOptionsEnd();
  PetscCheck(r0 > 0 && g.h > 0 && noise >= 0 && size >= 3, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-r0 and -h must be > 0, -noise >= 0, -size >= 3");
  PetscCheck(!PetscIsInfOrNanReal(r0) && !PetscIsInfOrNanReal(g.h) && !PetscIsInfOrNanReal(noise), PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-r0, -h and -noise must be finite");
  PetscCheck(maxit >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-max_it must be >= 1, not %" PetscInt_FMT, maxit);
  PetscCall(PetscOptionsGetString(NULL, NULL, "-mat_type", mt, sizeof(mt), &flg));
  if (flg) mtype = mt;

  if (file[0]) PetscCall(ReadPGM(file, clean, g.W, g.H));
  else {
    Shapes(size, clean);
    g.W = g.H = size;
  }
  g.S = (g.W - 1) * (g.H - 1);
  {
    std::mt19937                           gen((unsigned)seed);
    std::uniform_real_distribution<double> un(-noise * std::sqrt(3.0), noise * std::sqrt(3.0));
    noisy = clean;
    for (auto &v : noisy) v += un(gen);
  }
  const Real eps = r0 * g.h, r1 = 10 * r0 * g.h, r2 = 5 * r0, r3 = 5 * r0 * g.h * g.h;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "image %" PetscInt_FMT " x %" PetscInt_FMT ", uniform noise sigma %g, h %g, r0 %g: eps %.3g r1 %.3g r2 %.3g r3 %.3g\n", g.W, g.H, (double)noise, (double)g.h, (double)r0, (double)eps, (double)r1, (double)r2, (double)r3));

  /* state on the device, zero initial values (paper, initialisation (4.3)) */
  const Int NV = g.W * g.H, NQ = 4 * g.S;
  State     st;
  st.f   = View<Real>("f", NV);
  st.u   = View<Real>("u", NV);
  st.psi = View<Real>("psi", NV);
  st.l3  = View<Real>("l3", NV);
  st.wv  = View<Real>("wv", NV);
  st.wv2 = View<Real>("wv2", NV);
  for (auto *q : {&st.p1, &st.p2, &st.p3, &st.l1, &st.l2, &st.gu, &st.wq, &st.wq2, &st.wq3, &st.wq4}) *q = View<Real>("q", NQ);
  Kokkos::deep_copy(st.f, HostUView<const Real>(noisy.data(), noisy.size()));

  /* subproblem 4: KSP (default preonly + PCPSCR with the factors r1 K_d, M_d and the shift 1) */
  Mat A, Ay, My, Ax, Mx;
  Vec b, x;
  KSP ksp;
  PC  pc;
  PetscCall(Operator4(g, r1, mtype, &A));
  PetscCall(Factor1D(g.H, g.h, r1, &Ay, &My));
  PetscCall(Factor1D(g.W, g.h, r1, &Ax, &Mx));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOptionsPrefix(ksp, "u_"));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPPREONLY));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCPSCR));
  PetscCall(PCPSCRSetFactors(pc, Ay, My, Ax, Mx, NULL, NULL));
  PetscCall(PCPSCRSetShift(pc, 1.0));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSetUp(ksp));

  Real     Lold = 0, L = 0;
  Int      it, cgits = 0;
  PetscInt kspits = 0;
  auto clock = [&]() {
    if (!times) return 0.0;
    Kokkos::fence();
    return MPI_Wtime();
  };
  const double tstart = clock();
  for (it = 1; it <= maxit; it++) {
    double t0 = clock();
    Sub1(g, st, r1, r2);
    double t1 = clock();
    cgits += Sub2(g, st, r2, r3, cgrtol, cgmax);
    double t2 = clock();
    Sub3(g, st, r3, eps);
    double t3 = clock();
    tsub[0] += t1 - t0, tsub[1] += t2 - t1, tsub[2] += t3 - t2;
    /* subproblem 4: right-hand side M f + G^T (r1 p1 - l1) */
    {
      const auto p1 = st.p1, l1 = st.l1, wq = st.wq;
      Kokkos::parallel_for(
        "denoise::Sub4Load", range(NQ), KOKKOS_LAMBDA(Int p) { wq(p) = r1 * p1(p) - l1(p); });
      GradientT(g, st.wq, st.wv);
      DeviceVec  bv;
      const Int  W = g.W, H = g.H;
      const Real h = g.h;
      const auto f = st.f, wv = st.wv;
      PetscCall(bv.Get(b, Access::Write));
      auto bb = bv.view();
      Kokkos::parallel_for(
        "denoise::Sub4Rhs", range(NV), KOKKOS_LAMBDA(Int p) {
          const Int i = p % W, j = p / W;
          bb(p)       = ((i == 0 || i == W - 1) ? h / 2 : h) * ((j == 0 || j == H - 1) ? h / 2 : h) * f(p) + wv(p);
        });
      PetscCall(bv.Restore());
      PetscCall(KSPSolve(ksp, b, x));
      KSPConvergedReason reason;
      PetscCall(KSPGetConvergedReason(ksp, &reason));
      PetscCheck(reason >= 0, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "subproblem 4 failed in ADMM iteration %" PetscInt_FMT ": %s (a NaN or Inf right-hand side: the image or the parameters overflow?)", (PetscInt)it, KSPConvergedReasons[reason]);
      PetscInt its;
      PetscCall(KSPGetIterationNumber(ksp, &its));
      kspits += its;
      DeviceVec xv;
      PetscCall(xv.Get(x, Access::Read));
      Kokkos::deep_copy(exec(), st.u, xv.cview());
      PetscCall(xv.Restore());
    }
    double t4 = clock();
    tsub[3] += t4 - t3;
    /* multipliers */
    Gradient(g, st.u, st.gu);
    Divergence(g, st.p3, st.wv);
    {
      const auto gu = st.gu, p1 = st.p1, p2 = st.p2, p3 = st.p3, l1 = st.l1, l2 = st.l2, l3 = st.l3, dv = st.wv, psi = st.psi;
      const Int  W = g.W, H = g.H;
      Kokkos::parallel_for(
        "denoise::MultQ", range(NQ), KOKKOS_LAMBDA(Int p) {
          l1(p) += r1 * (gu(p) - p1(p));
          l2(p) += r2 * (p2(p) - p3(p));
        });
      Kokkos::parallel_for(
        "denoise::MultV", range(NV), KOKKOS_LAMBDA(Int p) {
          const Int i = p % W, j = p / W;
          if (i > 0 && j > 0 && i < W - 1 && j < H - 1) l3(p) += r3 * (dv(p) - psi(p));
        });
    }
    L = Lagrangian(g, st, eps, r1, r2, r3);
    PetscCheck(!PetscIsInfOrNanReal(L), PETSC_COMM_WORLD, PETSC_ERR_FP, "the augmented Lagrangian is %g in ADMM iteration %" PetscInt_FMT ": the image or the noise level overflows (noise sigma %g)", (double)L, (PetscInt)it, (double)noise);
    tsub[4] += clock() - t4;
    if (it > 1 && std::abs(Lold - L) < rtol * std::abs(Lold)) break;
    Lold = L;
  }
  if (it > maxit) it = maxit;
  tall = clock() - tstart;
  std::vector<Real> den = ToHostVec(st.u);
  const Real        p0 = PSNR(clean, noisy), p1 = PSNR(clean, den);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ADMM iterations %" PetscInt_FMT ", subproblem 2 CG iterations %.1f per ADMM iteration, subproblem 4 KSP iterations %" PetscInt_FMT "\n", it, (double)cgits / it, kspits));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "PSNR noisy %.1f dB, denoised %.1f dB: gain %.1f dB\n", (double)p0, (double)p1, (double)(p1 - p0)));
  PCType pctype;
  PetscCall(PCGetType(pc, &pctype));
  if (times)
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "time %.3f s, per iteration %.5f s: subproblem 1 %.5f, 2 (CG) %.5f, 3 %.5f, 4 (KSP %s) %.5f, multipliers and Lagrangian %.5f\n", tall, tall / it, tsub[0] / it, tsub[1] / it, tsub[2] / it, pctype, tsub[3] / it, tsub[4] / it));
  if (out[0]) PetscCall(WritePNG(out, den, g.W, g.H));
  if (outn[0]) PetscCall(WritePNG(outn, noisy, g.W, g.H));
  if (out[0]) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "wrote the denoised image %s\n", out));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Ax));
  PetscCall(MatDestroy(&Mx));
  PetscCall(MatDestroy(&Ay));
  PetscCall(MatDestroy(&My));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  st = State();
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  test:
    suffix: shapes
    args: -size 48 -noise 0.1 -r0 0.005 -max_it 300 -o denoise_shapes.png
    tolerance: 0.05
    output_file: output/denoise_shapes.out

  test:
    suffix: gamg
    args: -size 32 -noise 0.1 -max_it 300 -u_ksp_type cg -u_pc_type gamg -u_ksp_rtol 1e-12
    filter: sed -E -e "s/, subproblem 4 KSP iterations [0-9]+//"
    tolerance: 0.05
    output_file: output/denoise_gamg.out

  # parameters out of range, and a noise level whose squares overflow: errors instead of NaN results
  test:
    suffix: bad_max_it
    args: -size 8 -max_it {{0 -5}}
    expect_error: -max_it must be >= 1

  test:
    suffix: bad_nonfinite
    args: -size 8 {{-r0 -h -noise}} inf
    expect_error: (-r0, -h and -noise must be finite|allowed bound|is not a finite number)

  test:
    suffix: bad_overflow
    args: -size 8 -noise 1e300
    expect_error: the augmented Lagrangian is \S+ in ADMM iteration 1: the image or the noise level overflows

TEST*/
