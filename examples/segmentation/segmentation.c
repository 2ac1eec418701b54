static char help[] = "Constrained level-set image segmentation (Klement, Oberhuber and Sevcovic; the test problem of Klement and\n\
Oberhuber's projected multigrid paper): every semi-implicit time step of\n\
    u_t <= Q div(g grad u / Q),  u <= v,  with complementarity,  Q = sqrt(eps^2 + |grad u|^2),  g = 1/(1 + K |grad I|^2)\n\
is a linear complementarity problem A u <= b, u <= v (A a pentadiagonal symmetric M-matrix of the pixel grid) solved\n\
with -ksp_type richardson -pc_type psormg on the DMDA of the image. The segmented object is {u < 0}.\n\n\
Input image:\n\
  -n <128>                   : synthetic N x N image (a disc and a square, bright on a dark background, with noise)\n\
  -noise <0.05>              : standard deviation of the Gaussian noise of the synthetic image (intensities in [0,1])\n\
  -image <file.pgm>          : read a PGM image instead (binary P5 or ASCII P2, 8 or 16 bit); a relative path that does\n\
                               not exist is also looked up next to this example's source\n\
  -truth <mask.pgm>          : ground-truth mask (nonzero = object) to check the result against (the synthetic image\n\
                               has its own)\n\
Model (domain (0,1)^2, h = 1/max(width, height), image intensities scaled to [0,1]):\n\
  -K <1> -eps <1>            : edge-detector and regularisation constants (the paper: K = 10, eps = 1, for an\n\
                               unstated intensity and gradient scale; here I in [0,1] and gradients in (0,1)^2)\n\
  -sigma <1>                 : width (pixels) of the Gaussian presmoothing of I before its gradient is taken\n\
  -sigma_domain <s>          : the same width in domain units instead (sigma = s max(width, height) pixels): the\n\
                               scale-consistent choice when one scene is sampled at several resolutions (see below)\n\
  -tau <0.02> -steps <20>    : time step and number of steps\n\
  -gamma0 x,y,r[,x,y,r...]   : initial curve: union of circles (u_ini = signed distance, negative inside)\n\
  -seeds x,y,r[,x,y,r...]    : Omega_in: union of discs inside the object (v = signed distance to them)\n\
Output and checks:\n\
  -mask <file>               : write the mask {u < 0} (PNG if the name ends in .png, else binary PGM)\n\
  -contour <file>            : write the image with the contour {u < 0 next to u >= 0} drawn white (PNG or PGM)\n\
  -jaccard_min <0.95>        : fail when the Jaccard index against the truth is lower\n\
  -miss_max <0.02>           : fail when the fraction of misclassified pixels is larger\n\
  -max_cycles <200>          : fail when one LCP solve needs more psormg cycles\n  -ksp_rtol <1e-6>           : tolerance of every LCP solve (relative projected residual; near a steady state a\n\
                               solve stops at the rounding error of the residual if that is larger)\n\
  -check_every_step <true>   : check constraints and complementarity after every solve (else after the last)\n\
  -check_io                  : check the PGM/PNG encoders and decoders and the error messages for bad files\n\
  -write_image <file.pgm>    : write the (synthetic) input image; -write_truth <file.pgm>: its truth mask (ASCII)\n\
  -verbose                   : print timings, cycles per step and the solver statistics\n\
Scaling with the image size: the model lives on the unit square (u, Q, tau and the time T = steps tau in domain units),\n\
so one T gives the same evolution at every resolution, provided the edge detector g converges as the pixels shrink.\n\
With a presmoothing width fixed in pixels it does not: per-pixel noise smoothed over a fixed number of pixels has a\n\
gradient ~ noise/h, so g ~ h^2/K in the background: the curve slows down like 1/N^2 and the coefficient g/Q becomes a\n\
rough field of growing contrast, which is what slows every multigrid (the constraint is inactive in those solves).\n\
-sigma_domain fixes the width in domain units (the Catte et al. regularisation), so that g, the time T and the\n\
cycles per step are resolution-independent; -sigma_domain 0.00390625 (1/256) equals -sigma 1 at 256 x 256.\n\n";

#include <petscdmda.h>
#include <petscksp.h>
#include <petsckp.h>
#include <stdint.h>
#include <string.h>
#include <errno.h>

/* ---------------------------------------------------------------------------------------------------------------- */
/* Images: nx x ny values in [0,1], row-major from the top row (the PGM order); pixel (i,j) is column i of row j */

typedef struct {
  PetscInt   nx, ny;
  PetscReal *v;
} Image;

/* PGM (P2 ASCII or P5 binary, maxval 1..65535) parsed from a memory buffer; returns nonzero and a message on error */
static int PGMSkip(const unsigned char *buf, size_t len, size_t *pos)
{
  while (*pos < len) {
    if (buf[*pos] == '#') {
      while (*pos < len && buf[*pos] != '\n' && buf[*pos] != '\r') (*pos)++;
    } else if (buf[*pos] == ' ' || buf[*pos] == '\t' || buf[*pos] == '\n' || buf[*pos] == '\r' || buf[*pos] == '\v' || buf[*pos] == '\f') (*pos)++;
    else break;
  }
  return *pos < len;
}
static int PGMInt(const unsigned char *buf, size_t len, size_t *pos, long *val)
{
  long v = 0;
  int  digits = 0;

  if (!PGMSkip(buf, len, pos)) return 1;
  while (*pos < len && buf[*pos] >= '0' && buf[*pos] <= '9' && digits < 10) v = 10 * v + (buf[(*pos)++] - '0'), digits++;
  if (!digits || (*pos < len && buf[*pos] >= '0' && buf[*pos] <= '9')) return 1;
  *val = v;
  return 0;
}
static int PGMParse(const unsigned char *buf, size_t len, Image *img, char *msg, size_t mlen)
{
  size_t pos = 2;
  long   w, h, maxval, k;
  int    ascii;

  img->nx = img->ny = 0;
  img->v            = NULL;
  if (len >= 8 && buf[0] == 0x89 && buf[1] == 'P' && buf[2] == 'N' && buf[3] == 'G') {
    snprintf(msg, mlen, "PNG input is not supported: convert the image to PGM (e.g. 'convert in.png -colorspace gray out.pgm')");
    return 1;
  }
  if (len < 2 || buf[0] != 'P' || (buf[1] != '2' && buf[1] != '5')) {
    snprintf(msg, mlen, "not a PGM image: it must start with P5 (binary) or P2 (ASCII)%s", len >= 2 && buf[0] == 'P' && (buf[1] == '3' || buf[1] == '6') ? "; this is a colour PPM, convert it to grayscale" : "");
    return 1;
  }
  ascii = buf[1] == '2';
  if (PGMInt(buf, len, &pos, &w) || PGMInt(buf, len, &pos, &h) || PGMInt(buf, len, &pos, &maxval)) {
    snprintf(msg, mlen, "bad PGM header: expected width, height and maximum value after the magic number");
    return 1;
  }
  if (w < 2 || h < 2 || w > 65536 || h > 65536) {
    snprintf(msg, mlen, "bad PGM size %ld x %ld: width and height must lie in [2, 65536]", w, h);
    return 1;
  }
  if (maxval < 1 || maxval > 65535) {
    snprintf(msg, mlen, "bad PGM maximum value %ld: it must lie in [1, 65535]", maxval);
    return 1;
  }
  img->v = (PetscReal *)malloc(sizeof(PetscReal) * (size_t)w * (size_t)h);
  if (!img->v) {
    snprintf(msg, mlen, "cannot allocate a %ld x %ld image", w, h);
    return 1;
  }
  img->nx = w, img->ny = h;
  if (ascii) {
    for (k = 0; k < w * h; k++) {
      long s;
      if (PGMInt(buf, len, &pos, &s)) {
        snprintf(msg, mlen, "ASCII PGM data end or are not a number at pixel %ld of %ld", k, w * h);
        return 1;
      }
      if (s > maxval) {
        snprintf(msg, mlen, "ASCII PGM pixel %ld has value %ld larger than the maximum value %ld", k, s, maxval);
        return 1;
      }
      img->v[k] = (PetscReal)s / (PetscReal)maxval;
    }
  } else {
    const size_t bpp = maxval < 256 ? 1 : 2;
    if (pos >= len || !(buf[pos] == ' ' || buf[pos] == '\n' || buf[pos] == '\r' || buf[pos] == '\t')) {
      snprintf(msg, mlen, "bad binary PGM: no white space after the header");
      return 1;
    }
    pos++;
    if (len - pos < bpp * (size_t)w * (size_t)h) {
      snprintf(msg, mlen, "binary PGM is truncated: %zu bytes of pixel data for %ld x %ld pixels of %zu byte(s)", len - pos, w, h, bpp);
      return 1;
    }
    for (k = 0; k < w * h; k++) {
      long s = bpp == 1 ? buf[pos + k] : 256 * buf[pos + 2 * k] + buf[pos + 2 * k + 1];
      if (s > maxval) {
        snprintf(msg, mlen, "binary PGM pixel %ld has value %ld larger than the maximum value %ld", k, s, maxval);
        return 1;
      }
      img->v[k] = (PetscReal)s / (PetscReal)maxval;
    }
  }
  return 0;
}

/* whole file into memory */
static int ReadFile(const char *name, unsigned char **buf, size_t *len, char *msg, size_t mlen)
{
  FILE *f = fopen(name, "rb");
  long  sz;

  *buf = NULL, *len = 0;
  if (!f) {
    snprintf(msg, mlen, "cannot open image file '%s': %s", name, strerror(errno));
    return 1;
  }
  if (fseek(f, 0, SEEK_END) || (sz = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
    snprintf(msg, mlen, "cannot read image file '%s' (not a regular file?)", name);
    fclose(f);
    return 1;
  }
  *buf = (unsigned char *)malloc((size_t)sz + 1);
  if (!*buf || fread(*buf, 1, (size_t)sz, f) != (size_t)sz) {
    snprintf(msg, mlen, "cannot read image file '%s'", name);
    fclose(f);
    return 1;
  }
  *len = (size_t)sz;
  fclose(f);
  return 0;
}

/* reads a PGM on rank 0 and broadcasts it; errors are raised on all ranks with the reader's message. A relative
   name that does not exist is also looked up in the directory of this source file (so TEST blocks can name data/) */
static PetscErrorCode ImageLoad(MPI_Comm comm, const char *name, Image *img)
{
  PetscMPIInt rank;
  char        msg[PETSC_MAX_PATH_LEN + 256] = "", path[PETSC_MAX_PATH_LEN];
  int         err = 0;
  PetscInt    dims[2];

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    unsigned char *buf;
    size_t         len;
    FILE          *f;

    PetscCall(PetscStrncpy(path, name, sizeof(path)));
    if (name[0] != '/') {
      if ((f = fopen(name, "rb"))) fclose(f);
      else {
        const char *src = __FILE__, *slash = strrchr(src, '/');
        char        alt[PETSC_MAX_PATH_LEN];
        if (slash) {
          snprintf(alt, sizeof(alt), "%.*s/%s", (int)(slash - src), src, name);
          if ((f = fopen(alt, "rb"))) {
            fclose(f);
            PetscCall(PetscStrncpy(path, alt, sizeof(path)));
          }
        }
      }
    }
    err = ReadFile(path, &buf, &len, msg, sizeof(msg));
    if (!err) {
      char m2[256];
      err = PGMParse(buf, len, img, m2, sizeof(m2));
      if (err) snprintf(msg, sizeof(msg), "image file '%s': %s", path, m2);
    }
    free(buf);
  }
  PetscCallMPI(MPI_Bcast(&err, 1, MPI_INT, 0, comm));
  PetscCallMPI(MPI_Bcast(msg, (PetscMPIInt)sizeof(msg), MPI_CHAR, 0, comm));
  if (err) free(img->v), img->v = NULL;
  PetscCheck(!err, comm, PETSC_ERR_FILE_UNEXPECTED, "%s", msg);
  dims[0] = img->nx, dims[1] = img->ny;
  PetscCallMPI(MPI_Bcast(dims, 2, MPIU_INT, 0, comm));
  if (rank) {
    img->nx = dims[0], img->ny = dims[1];
    img->v  = (PetscReal *)malloc(sizeof(PetscReal) * (size_t)dims[0] * (size_t)dims[1]);
    PetscCheck(img->v, PETSC_COMM_SELF, PETSC_ERR_MEM, "cannot allocate the image");
  }
  PetscCallMPI(MPI_Bcast(img->v, (PetscMPIInt)(dims[0] * dims[1]), MPIU_REAL, 0, comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 8-bit binary PGM (P5) or ASCII PGM with maximum value 1 (P2, for masks) in memory */
static PetscErrorCode PGMEncode(const unsigned char *pix, PetscInt nx, PetscInt ny, PetscBool ascii_mask, unsigned char **out, size_t *len)
{
  char   head[64];
  int    hl = snprintf(head, sizeof(head), "%s\n%d %d\n%d\n", ascii_mask ? "P2" : "P5", (int)nx, (int)ny, ascii_mask ? 1 : 255);
  size_t n  = (size_t)nx * (size_t)ny, p = (size_t)hl;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(hl + (ascii_mask ? 2 * n + ny : n), out));
  memcpy(*out, head, (size_t)hl);
  for (size_t k = 0; k < n; k++) {
    if (ascii_mask) {
      (*out)[p++] = pix[k] ? '1' : '0';
      (*out)[p++] = ((k + 1) % (size_t)nx) ? ' ' : '\n';
    } else (*out)[p++] = pix[k];
  }
  *len = p;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PNG: written by petsckp (PetscKPPNGEncodeGray), decoded here for the self-check */
static uint32_t Crc32(uint32_t crc, const unsigned char *b, size_t n)
{
  crc = ~crc;
  for (size_t k = 0; k < n; k++) {
    crc ^= b[k];
    for (int t = 0; t < 8; t++) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}
static uint32_t Get32(const unsigned char *p)
{
  return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}
/* decoder of exactly what PetscKPPNGEncodeGray() writes (for the self-check): returns nonzero on any inconsistency */
static int PNGDecodeStored(const unsigned char *png, size_t len, PetscInt nx, PetscInt ny, unsigned char *pix)
{
  size_t         p = 8, q = 0;
  const size_t   raw = (size_t)ny * ((size_t)nx + 1);
  unsigned char *r   = (unsigned char *)malloc(raw + 1);
  uint32_t       a = 1, b = 0;
  int            ok = 0;

  if (!r || len < 8 || memcmp(png, "\x89PNG\r\n\x1a\n", 8)) goto done;
  while (p + 12 <= len) {
    uint32_t n = Get32(png + p);
    if (p + 12 + n > len || Crc32(0, png + p + 4, 4 + (size_t)n) != Get32(png + p + 8 + n)) goto done;
    if (!memcmp(png + p + 4, "IHDR", 4) && (Get32(png + p + 8) != (uint32_t)nx || Get32(png + p + 12) != (uint32_t)ny || png[p + 16] != 8 || png[p + 17] != 0)) goto done;
    if (!memcmp(png + p + 4, "IDAT", 4)) {
      const unsigned char *z = png + p + 8;
      size_t               s = 2;
      int                  last = 0;
      if (((z[0] << 8) | z[1]) % 31) goto done;
      while (!last) {
        size_t l = z[s + 1] | (z[s + 2] << 8), nl = z[s + 3] | (z[s + 4] << 8);
        last = z[s] & 1;
        if ((z[s] & 6) || (l ^ 0xffff) != nl || q + l > raw) goto done;
        memcpy(r + q, z + s + 5, l);
        q += l, s += 5 + l;
      }
      for (size_t k = 0; k < q; k++) a = (a + r[k]) % 65521u, b = (b + a) % 65521u;
      if (Get32(z + s) != ((b << 16) | a)) goto done;
    }
    p += 12 + n;
  }
  if (q != raw) goto done;
  for (PetscInt j = 0; j < ny; j++) {
    if (r[(size_t)j * (nx + 1)]) goto done;
    memcpy(pix + (size_t)j * nx, r + (size_t)j * (nx + 1) + 1, (size_t)nx);
  }
  ok = 1;
done:
  free(r);
  return !ok;
}

static PetscErrorCode WriteImage(const char *name, const unsigned char *pix, PetscInt nx, PetscInt ny, PetscBool ascii_mask)
{
  unsigned char *buf;
  size_t         len, l = strlen(name);
  FILE          *f;

  PetscFunctionBeginUser;
  if (l > 4 && !strcmp(name + l - 4, ".png")) PetscCall(PetscKPPNGEncodeGray(pix, nx, ny, &buf, &len));
  else PetscCall(PGMEncode(pix, nx, ny, ascii_mask, &buf, &len));
  f = fopen(name, "wb");
  PetscCheck(f, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot open '%s' for writing: %s", name, strerror(errno));
  PetscCheck(fwrite(buf, 1, len, f) == len, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "cannot write '%s'", name);
  fclose(f);
  PetscCall(PetscFree(buf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------------------------- */
/* The synthetic image: a disc and a square, intensity 0.8 on 0.2, plus Gaussian noise from a hash of the pixel index
   (the same image on any number of processes) */

static const PetscReal disc_c[2] = {0.30, 0.32}, disc_r = 0.17, sq_c[2] = {0.69, 0.67}, sq_half = 0.15;

static PetscBool InShapes(PetscReal x, PetscReal y)
{
  return (PetscBool)((x - disc_c[0]) * (x - disc_c[0]) + (y - disc_c[1]) * (y - disc_c[1]) < disc_r * disc_r || (PetscAbsReal(x - sq_c[0]) < sq_half && PetscAbsReal(y - sq_c[1]) < sq_half));
}
static PetscReal HashUniform(uint64_t k)
{
  uint64_t z = k + 0x9E3779B97F4A7C15ull;
  z          = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z          = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return ((PetscReal)(z >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}
static PetscErrorCode ImageSynthetic(PetscInt n, PetscReal noise, Image *img, unsigned char *truth)
{
  const PetscReal h = 1.0 / n;

  PetscFunctionBeginUser;
  img->nx = img->ny = n;
  PetscCall(PetscMalloc1(n * n, &img->v));
  for (PetscInt j = 0; j < n; j++)
    for (PetscInt i = 0; i < n; i++) {
      const PetscInt  k  = j * n + i;
      const PetscBool in = InShapes((i + 0.5) * h, (j + 0.5) * h);
      const PetscReal u1 = HashUniform(2 * (uint64_t)k), u2 = HashUniform(2 * (uint64_t)k + 1);
      img->v[k] = (in ? 0.8 : 0.2) + noise * PetscSqrtReal(-2 * PetscLogReal(u1)) * PetscCosReal(2 * PETSC_PI * u2);
      if (truth) truth[k] = (unsigned char)in;
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* separable Gaussian smoothing of width sigma pixels with reflecting (Neumann) boundaries */
static PetscErrorCode ImageSmooth(const Image *img, PetscReal sigma, PetscReal *out)
{
  const PetscInt nx = img->nx, ny = img->ny, R = (PetscInt)PetscCeilReal(3 * sigma);
  PetscReal     *w, *tmp, s = 0;

  PetscFunctionBeginUser;
  if (sigma <= 0) {
    PetscCall(PetscArraycpy(out, img->v, nx * ny));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscMalloc2(2 * R + 1, &w, nx * ny, &tmp));
  for (PetscInt k = -R; k <= R; k++) s += (w[k + R] = PetscExpReal(-0.5 * k * k / (sigma * sigma)));
  for (PetscInt k = 0; k <= 2 * R; k++) w[k] /= s;
#define REFL(a, n) ((a) < 0 ? PetscMin(-(a)-1, (n)-1) : ((a) >= (n) ? PetscMax(2 * (n) - (a)-1, 0) : (a)))
  for (PetscInt j = 0; j < ny; j++)
    for (PetscInt i = 0; i < nx; i++) {
      PetscReal t = 0;
      for (PetscInt k = -R; k <= R; k++) t += w[k + R] * img->v[j * nx + REFL(i + k, nx)];
      tmp[j * nx + i] = t;
    }
  for (PetscInt j = 0; j < ny; j++)
    for (PetscInt i = 0; i < nx; i++) {
      PetscReal t = 0;
      for (PetscInt k = -R; k <= R; k++) t += w[k + R] * tmp[REFL(j + k, ny) * nx + i];
      out[j * nx + i] = t;
    }
#undef REFL
  PetscCall(PetscFree2(w, tmp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------------------------- */
/* The semi-implicit co-volume discretisation of Mikula and Sarti ("Parallel co-volume subjective surface method for
   3D medical image segmentation", 2007), as Klement and Oberhuber use it. For the edge between cell (i,j) and its
   east (dir 0) or north (dir 1) neighbour: |grad w|^2 = (normal difference / h)^2 + (mean of the two cells' central
   tangential differences / h)^2, with reflected (Neumann) values outside the image. The same formula gives Q_pq
   (from u^n) and g_pq (from the smoothed image). Each edge is always evaluated from its west/south cell, so that
   both rows of A see bitwise the same coupling (A is exactly symmetric on any number of processes). */

#define CLAMP(a, lo, hi) ((a) < (lo) ? (lo) : ((a) > (hi) ? (hi) : (a)))

static PetscReal EdgeGrad2Full(const PetscReal *w, PetscInt nx, PetscInt ny, PetscInt i, PetscInt j, int dir, PetscReal h)
{
#define W(a, b) w[CLAMP(b, 0, ny - 1) * nx + CLAMP(a, 0, nx - 1)]
  PetscReal dn, dt;
  if (dir == 0) dn = W(i + 1, j) - W(i, j), dt = 0.25 * ((W(i, j + 1) - W(i, j - 1)) + (W(i + 1, j + 1) - W(i + 1, j - 1)));
  else dn = W(i, j + 1) - W(i, j), dt = 0.25 * ((W(i + 1, j) - W(i - 1, j)) + (W(i + 1, j + 1) - W(i - 1, j + 1)));
#undef W
  return (dn * dn + dt * dt) / (h * h);
}
static PetscReal EdgeGrad2Local(const PetscScalar *const *u, PetscInt nx, PetscInt ny, PetscInt i, PetscInt j, int dir, PetscReal h)
{
#define U(a, b) PetscRealPart(u[CLAMP(b, 0, ny - 1)][CLAMP(a, 0, nx - 1)])
  PetscReal dn, dt;
  if (dir == 0) dn = U(i + 1, j) - U(i, j), dt = 0.25 * ((U(i, j + 1) - U(i, j - 1)) + (U(i + 1, j + 1) - U(i + 1, j - 1)));
  else dn = U(i, j + 1) - U(i, j), dt = 0.25 * ((U(i + 1, j) - U(i - 1, j)) + (U(i + 1, j + 1) - U(i - 1, j + 1)));
#undef U
  return (dn * dn + dt * dt) / (h * h);
}

typedef struct {
  DM         da;
  PetscInt   nx, ny;
  PetscReal  h, K, eps, tau;
  PetscReal *gE, *gN; /* edge detector on the east and north edges of every pixel (all processes hold all) */
  Vec        uloc;    /* local (ghosted) u^n */
  PetscCount ncoo;
  PetscReal *vals;    /* COO values of A, in the order of the preallocation */
  PetscReal  anorm;   /* ||A||_inf of the last assembly (the largest row sum of |A_pq| on this process) */
} Seg;

/* the pattern of A (5-point, Neumann boundary: only existing neighbours) through MatSetPreallocationCOO, so that the
   values of every time step go in with one MatSetValuesCOO (on the device for GPU matrices) */
static PetscErrorCode SegPreallocate(Seg *s, Mat A)
{
  PetscInt               xs, ys, xm, ym, gxs, gys, gxm, gym, *ci, *cj, c = 0;
  ISLocalToGlobalMapping l2g;

  PetscFunctionBeginUser;
  PetscCall(DMDAGetCorners(s->da, &xs, &ys, NULL, &xm, &ym, NULL));
  PetscCall(DMDAGetGhostCorners(s->da, &gxs, &gys, NULL, &gxm, &gym, NULL));
  PetscCall(DMGetLocalToGlobalMapping(s->da, &l2g));
  PetscCall(PetscMalloc2(5 * xm * ym, &ci, 5 * xm * ym, &cj));
  for (PetscInt j = ys; j < ys + ym; j++)
    for (PetscInt i = xs; i < xs + xm; i++) {
      const PetscInt nb[5][2] = {{i, j}, {i - 1, j}, {i + 1, j}, {i, j - 1}, {i, j + 1}};
      for (int q = 0; q < 5; q++) {
        if (nb[q][0] < 0 || nb[q][0] >= s->nx || nb[q][1] < 0 || nb[q][1] >= s->ny) continue;
        ci[c] = (j - gys) * gxm + (i - gxs);
        cj[c] = (nb[q][1] - gys) * gxm + (nb[q][0] - gxs);
        c++;
      }
    }
  PetscCall(ISLocalToGlobalMappingApply(l2g, c, ci, ci));
  PetscCall(ISLocalToGlobalMappingApply(l2g, c, cj, cj));
  PetscCall(MatSetPreallocationCOO(A, c, ci, cj));
  s->ncoo = c;
  PetscCall(PetscMalloc1(c, &s->vals));
  PetscCall(PetscFree2(ci, cj));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A and b of the step from u^n:  A_pp = h^2/(tau Q_p) + sum_q g_pq/Q_pq,  A_pq = -g_pq/Q_pq,  b_p = h^2/(tau Q_p) u^n_p,
   Q_p the mean of Q_pq over the edges of p: the semi-implicit step of u_t = Q div(g grad u/Q) divided by Q_p */
static PetscErrorCode SegAssemble(Seg *s, Vec u, Mat A, Vec b)
{
  PetscInt            xs, ys, xm, ym, c = 0;
  const PetscScalar **ua;
  PetscScalar       **ba;
  const PetscReal     h = s->h, e2 = s->eps * s->eps;

  PetscFunctionBeginUser;
  PetscCall(DMGlobalToLocalBegin(s->da, u, INSERT_VALUES, s->uloc));
  PetscCall(DMGlobalToLocalEnd(s->da, u, INSERT_VALUES, s->uloc));
  PetscCall(DMDAGetCorners(s->da, &xs, &ys, NULL, &xm, &ym, NULL));
  PetscCall(DMDAVecGetArrayRead(s->da, s->uloc, &ua));
  PetscCall(DMDAVecGetArray(s->da, b, &ba));
  s->anorm = 0;
  for (PetscInt j = ys; j < ys + ym; j++)
    for (PetscInt i = xs; i < xs + xm; i++) {
      /* west, east, south, north edges: (cell the edge is evaluated from, direction) */
      const PetscInt e[4][3] = {{i - 1, j, 0}, {i, j, 0}, {i, j - 1, 1}, {i, j, 1}};
      PetscReal      w[4], qsum = 0, wsum = 0, d;
      PetscInt       cnt = 0;
      PetscBool      has[4];

      for (int q = 0; q < 4; q++) {
        const PetscInt a = e[q][0], bb = e[q][1], dir = e[q][2];
        has[q] = (PetscBool)(a >= 0 && bb >= 0 && (dir == 0 ? a + 1 < s->nx : bb + 1 < s->ny));
        if (!has[q]) continue;
        {
          const PetscReal Q = PetscSqrtReal(e2 + EdgeGrad2Local(ua, s->nx, s->ny, a, bb, (int)dir, h));
          const PetscReal g = dir == 0 ? s->gE[bb * s->nx + a] : s->gN[bb * s->nx + a];
          w[q] = g / Q, qsum += Q, wsum += w[q], cnt++;
        }
      }
      d              = h * h / (s->tau * (qsum / cnt));
      s->vals[c++]   = d + wsum;
      s->anorm       = PetscMax(s->anorm, d + 2 * wsum);
      ba[j][i]       = d * ua[j][i];
      /* same order as SegPreallocate: W, E, S, N */
      for (int q = 0; q < 4; q++)
        if (has[q]) s->vals[c++] = -w[q];
    }
  PetscCall(DMDAVecRestoreArray(s->da, b, &ba));
  PetscCall(DMDAVecRestoreArrayRead(s->da, s->uloc, &ua));
  PetscCheck(c == s->ncoo, PETSC_COMM_SELF, PETSC_ERR_PLIB, "COO count mismatch");
  PetscCall(MatSetValuesCOO(A, s->vals, INSERT_VALUES));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* signed distance to a union of circles (x, y, r triples): negative inside */
static PetscReal CirclesDistance(const PetscReal *c, PetscInt nc, PetscReal x, PetscReal y)
{
  PetscReal d = PETSC_MAX_REAL;
  for (PetscInt k = 0; k < nc; k++) d = PetscMin(d, PetscSqrtReal((x - c[3 * k]) * (x - c[3 * k]) + (y - c[3 * k + 1]) * (y - c[3 * k + 1])) - c[3 * k + 2]);
  return d;
}

/* LCP measures of u for A u <= b, u <= v:  projected residual ||p||_2 with r = b - A u, p_i = r_i where u_i < v_i and
   min(r_i, 0) where u_i = v_i; infeasibility max(u - v, 0); complementarity sum_i (v_i - u_i) |r_i| / ||v - u||, a
   residual norm (at most ||p||: only the points below the constraint count, where p_i = r_i), to be compared with
   the initial projected residual, the reference of -ksp_rtol */
static PetscErrorCode LcpMeasures(Mat A, Vec b, Vec u, Vec v, Vec r, PetscReal *pnorm, PetscReal *infeas, PetscReal *comp)
{
  const PetscScalar *ua, *va, *ra;
  PetscReal          loc[4] = {0, 0, 0, 0}, glob[4];
  PetscInt           n;

  PetscFunctionBeginUser;
  PetscCall(MatMult(A, u, r));
  PetscCall(VecAYPX(r, -1.0, b));
  PetscCall(VecGetLocalSize(u, &n));
  PetscCall(VecGetArrayRead(u, &ua));
  PetscCall(VecGetArrayRead(v, &va));
  PetscCall(VecGetArrayRead(r, &ra));
  for (PetscInt k = 0; k < n; k++) {
    const PetscReal uu = PetscRealPart(ua[k]), vv = PetscRealPart(va[k]), rr = PetscRealPart(ra[k]);
    const PetscReal p = uu < vv ? rr : PetscMin(rr, 0.0);
    loc[0] += p * p;
    loc[1] = PetscMax(loc[1], uu - vv);
    loc[2] += (vv - uu) * PetscAbsReal(rr);
    loc[3] += (vv - uu) * (vv - uu);
  }
  PetscCall(VecRestoreArrayRead(r, &ra));
  PetscCall(VecRestoreArrayRead(v, &va));
  PetscCall(VecRestoreArrayRead(u, &ua));
  PetscCall(MPIU_Allreduce(loc, glob, 1, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)u)));
  PetscCall(MPIU_Allreduce(loc + 1, glob + 1, 1, MPIU_REAL, MPIU_MAX, PetscObjectComm((PetscObject)u)));
  PetscCall(MPIU_Allreduce(loc + 2, glob + 2, 2, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)u)));
  *pnorm  = PetscSqrtReal(glob[0]);
  *infeas = PetscMax(glob[1], 0.0);
  *comp   = glob[3] > 0 ? glob[2] / PetscSqrtReal(glob[3]) : 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the encoders, the decoders and the error messages for bad input */
static PetscErrorCode CheckIO(MPI_Comm comm)
{
  const PetscInt nx = 37, ny = 23; /* odd sizes; the PNG needs more than one stored block for 400 x 200 below */
  unsigned char  pix[37 * 23], *buf, *big, *back;
  size_t         len;
  Image          img;
  char           msg[256];
  const char    *bad[] = {"P7\n2 2\n255\n", "P5\n2 2\n255\n\x01\x02", "P2\n2 2\n3\n0 1 2 9\n", "P2\n2 x\n255\n", "P5\n2 2\n0\n\x00\x00\x00\x00", "P6\n2 2\n255\n", "\x89PNG\r\n\x1a\n...."};
  const char    *why[] = {"bad magic", "truncated P5", "value above maxval", "bad header", "maxval 0", "colour PPM", "PNG input"};

  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < nx * ny; k++) pix[k] = (unsigned char)((k * 37) % 256);
  /* P5 round trip */
  PetscCall(PGMEncode(pix, nx, ny, PETSC_FALSE, &buf, &len));
  PetscCheck(!PGMParse(buf, len, &img, msg, sizeof(msg)) && img.nx == nx && img.ny == ny, comm, PETSC_ERR_PLIB, "P5 round trip failed: %s", msg);
  for (PetscInt k = 0; k < nx * ny; k++) PetscCheck((unsigned char)PetscFloorReal(0.5 + 255 * img.v[k]) == pix[k], comm, PETSC_ERR_PLIB, "P5 round trip: pixel %" PetscInt_FMT " differs", k);
  free(img.v);
  PetscCall(PetscFree(buf));
  /* P2 mask round trip */
  PetscCall(PGMEncode(pix, nx, ny, PETSC_TRUE, &buf, &len));
  PetscCheck(!PGMParse(buf, len, &img, msg, sizeof(msg)), comm, PETSC_ERR_PLIB, "P2 round trip failed: %s", msg);
  for (PetscInt k = 0; k < nx * ny; k++) PetscCheck((img.v[k] > 0.5) == (pix[k] != 0), comm, PETSC_ERR_PLIB, "P2 round trip: pixel %" PetscInt_FMT " differs", k);
  free(img.v);
  PetscCall(PetscFree(buf));
  /* 16-bit P5 with a comment */
  {
    const unsigned char p16[] = "P5 # comment\n2 2\n# another\n1000\n\x01\x02\x03\xe8\x00\x00\x00\x07";
    PetscCheck(!PGMParse(p16, sizeof(p16) - 1, &img, msg, sizeof(msg)), comm, PETSC_ERR_PLIB, "16-bit P5: %s", msg);
    PetscCheck(PetscAbsReal(img.v[0] - 258.0 / 1000) < 1e-15 && img.v[1] == 1.0 && img.v[2] == 0.0 && PetscAbsReal(img.v[3] - 0.007) < 1e-15, comm, PETSC_ERR_PLIB, "16-bit P5 values wrong");
    free(img.v);
  }
  /* PNG round trip, one and several stored blocks */
  PetscCall(PetscKPPNGEncodeGray(pix, nx, ny, &buf, &len));
  PetscCall(PetscMalloc1(nx * ny, &back));
  PetscCheck(!PNGDecodeStored(buf, len, nx, ny, back) && !memcmp(back, pix, (size_t)(nx * ny)), comm, PETSC_ERR_PLIB, "PNG round trip failed");
  PetscCall(PetscFree(back));
  PetscCall(PetscFree(buf));
  PetscCall(PetscMalloc2(400 * 200, &big, 400 * 200, &back));
  for (PetscInt k = 0; k < 400 * 200; k++) big[k] = (unsigned char)(k % 251);
  PetscCall(PetscKPPNGEncodeGray(big, 400, 200, &buf, &len));
  PetscCheck(!PNGDecodeStored(buf, len, 400, 200, back) && !memcmp(back, big, 400 * 200), comm, PETSC_ERR_PLIB, "PNG round trip (several blocks) failed");
  buf[len / 2] ^= 1; /* a flipped bit must break the CRC */
  PetscCheck(PNGDecodeStored(buf, len, 400, 200, back), comm, PETSC_ERR_PLIB, "PNG decoder missed a corrupted byte");
  PetscCall(PetscFree(buf));
  PetscCall(PetscFree2(big, back));
  PetscCall(PetscPrintf(comm, "PGM (P2, P5 8 and 16 bit) and PNG encoders/decoders round trip: yes\n"));
  /* bad files give an error with a message */
  for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
    int rc = PGMParse((const unsigned char *)bad[k], strlen(bad[k]) + (k == 4 ? 4 : 0), &img, msg, sizeof(msg));
    free(img.v);
    PetscCheck(rc, comm, PETSC_ERR_PLIB, "bad PGM input (%s) was accepted", why[k]);
    PetscCall(PetscInfo(NULL, "%s: %s\n", why[k], msg));
  }
  {
    PetscErrorCode ierr;
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = ImageLoad(comm, "no/such/image.pgm", &img);
    PetscCall(PetscPopErrorHandler());
    PetscCheck(ierr == PETSC_ERR_FILE_UNEXPECTED, comm, PETSC_ERR_PLIB, "a missing image file should give PETSC_ERR_FILE_UNEXPECTED, got %d", (int)ierr);
  }
  PetscCall(PetscPrintf(comm, "bad or missing PGM files are refused with a message: yes\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the mask {u < 0} in natural (image) order on rank 0 */
static PetscErrorCode GatherMask(DM da, Vec u, unsigned char *mask)
{
  Vec                nat, seq;
  VecScatter         sc;
  const PetscScalar *a;
  PetscInt           n;
  PetscMPIInt        rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)da), &rank));
  PetscCall(DMDACreateNaturalVector(da, &nat));
  PetscCall(DMDAGlobalToNaturalBegin(da, u, INSERT_VALUES, nat));
  PetscCall(DMDAGlobalToNaturalEnd(da, u, INSERT_VALUES, nat));
  PetscCall(VecScatterCreateToZero(nat, &sc, &seq));
  PetscCall(VecScatterBegin(sc, nat, seq, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(sc, nat, seq, INSERT_VALUES, SCATTER_FORWARD));
  if (rank == 0) {
    PetscCall(VecGetLocalSize(seq, &n));
    PetscCall(VecGetArrayRead(seq, &a));
    for (PetscInt k = 0; k < n; k++) mask[k] = (unsigned char)(PetscRealPart(a[k]) < 0);
    PetscCall(VecRestoreArrayRead(seq, &a));
  }
  PetscCall(VecScatterDestroy(&sc));
  PetscCall(VecDestroy(&seq));
  PetscCall(VecDestroy(&nat));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  MPI_Comm           comm;
  PetscMPIInt        rank;
  Image              img = {0, 0, NULL};
  Seg                s;
  Mat                A;
  Vec                u, b, v, r;
  KSP                ksp;
  PC                 pc;
  char               imagefile[PETSC_MAX_PATH_LEN] = "", truthfile[PETSC_MAX_PATH_LEN] = "", maskfile[PETSC_MAX_PATH_LEN] = "", contourfile[PETSC_MAX_PATH_LEN] = "";
  char               writeimage[PETSC_MAX_PATH_LEN] = "", writetruth[PETSC_MAX_PATH_LEN] = "";
  PetscBool          flg, hasimage, hastruth = PETSC_FALSE, verbose = PETSC_FALSE, check_io = PETSC_FALSE, check_every = PETSC_TRUE;
  PetscInt           n = 128, steps = 20, max_cycles = 200, ng = 6, ns = 6, totcyc = 0, maxcyc = 0, levels;
  PetscReal          noise = 0.05, sigma = 1.0, sigma_domain = 0, jmin = 0.95, miss_max = 0.02, rtol = 1e-6;
  PetscReal          gamma0[48] = {0.30, 0.32, 0.25, 0.69, 0.67, 0.27}, seeds[48] = {0.28, 0.35, 0.05, 0.71, 0.64, 0.05};
  PetscReal          maxinfeas = 0, maxcomp = 0, maxprel = 0, tasm = 0, tsolve = 0, t0, tall, atol, dtol, maxfloor = 0;
  PetscInt           maxits, nfloor = 0;
  unsigned char     *truth = NULL, *mask = NULL;
  PetscReal         *Is;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscKPRegisterAll());
  comm = PETSC_COMM_WORLD;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  s.K = 1, s.eps = 1, s.tau = 2e-2;
  PetscOptionsBegin(comm, NULL, "Constrained level-set segmentation options", NULL);
  PetscCall(PetscOptionsInt("-n", "size of the synthetic image", NULL, n, &n, NULL));
  PetscCall(PetscOptionsReal("-noise", "noise of the synthetic image", NULL, noise, &noise, NULL));
  PetscCall(PetscOptionsString("-image", "PGM image to segment", NULL, imagefile, imagefile, sizeof(imagefile), &hasimage));
  PetscCall(PetscOptionsString("-truth", "ground-truth mask (PGM)", NULL, truthfile, truthfile, sizeof(truthfile), &hastruth));
  PetscCall(PetscOptionsReal("-K", "edge detector g = 1/(1 + K |grad I|^2)", NULL, s.K, &s.K, NULL));
  PetscCall(PetscOptionsReal("-eps", "regularisation Q = sqrt(eps^2 + |grad u|^2)", NULL, s.eps, &s.eps, NULL));
  PetscCall(PetscOptionsReal("-sigma", "Gaussian presmoothing of the image (pixels)", NULL, sigma, &sigma, NULL));
  PetscCall(PetscOptionsReal("-sigma_domain", "Gaussian presmoothing width in domain units (overrides -sigma: sigma = s max(width, height) pixels)", NULL, sigma_domain, &sigma_domain, NULL));
  PetscCall(PetscOptionsReal("-tau", "time step", NULL, s.tau, &s.tau, NULL));
  PetscCall(PetscOptionsInt("-steps", "number of time steps", NULL, steps, &steps, NULL));
  ng = 48;
  PetscCall(PetscOptionsRealArray("-gamma0", "initial curve: circles x,y,r,...", NULL, gamma0, &ng, &flg));
  if (!flg) ng = 6;
  ns = 48;
  PetscCall(PetscOptionsRealArray("-seeds", "Omega_in: discs x,y,r,...", NULL, seeds, &ns, &flg));
  if (!flg) ns = 6;
  PetscCall(PetscOptionsString("-mask", "write the mask (.png or .pgm)", NULL, maskfile, maskfile, sizeof(maskfile), NULL));
  PetscCall(PetscOptionsString("-contour", "write the image with the contour (.png or .pgm)", NULL, contourfile, contourfile, sizeof(contourfile), NULL));
  PetscCall(PetscOptionsString("-write_image", "write the input image (PGM or PNG)", NULL, writeimage, writeimage, sizeof(writeimage), NULL));
  PetscCall(PetscOptionsString("-write_truth", "write the truth mask of the synthetic image (ASCII PGM)", NULL, writetruth, writetruth, sizeof(writetruth), NULL));
  PetscCall(PetscOptionsReal("-jaccard_min", "smallest accepted Jaccard index", NULL, jmin, &jmin, NULL));
  PetscCall(PetscOptionsReal("-miss_max", "largest accepted fraction of misclassified pixels", NULL, miss_max, &miss_max, NULL));
  PetscCall(PetscOptionsInt("-max_cycles", "most psormg cycles accepted for one solve", NULL, max_cycles, &max_cycles, NULL));
  PetscCall(PetscOptionsBool("-check_every_step", "check every solve (else only the last)", NULL, check_every, &check_every, NULL));
  PetscCall(PetscOptionsBool("-check_io", "check the image encoders/decoders and the errors for bad files", NULL, check_io, &check_io, NULL));
  PetscCall(PetscOptionsBool("-verbose", "print timings and cycle counts", NULL, verbose, &verbose, NULL));
  PetscOptionsEnd();
  PetscCheck(ng > 0 && ng % 3 == 0, comm, PETSC_ERR_ARG_WRONG, "-gamma0 takes triples x,y,r (got %" PetscInt_FMT " numbers)", ng);
  PetscCheck(ns > 0 && ns % 3 == 0, comm, PETSC_ERR_ARG_WRONG, "-seeds takes triples x,y,r (got %" PetscInt_FMT " numbers)", ns);
  PetscCheck(s.tau > 0 && s.K >= 0 && s.eps > 0 && steps >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "need -tau > 0, -K >= 0, -eps > 0 and -steps >= 1");
  if (check_io) PetscCall(CheckIO(comm));

  /* the image and its truth */
  if (hasimage) PetscCall(ImageLoad(comm, imagefile, &img));
  else {
    PetscCheck(n >= 8, comm, PETSC_ERR_ARG_OUTOFRANGE, "-n must be at least 8");
    PetscCall(PetscMalloc1(n * n, &truth));
    PetscCall(ImageSynthetic(n, noise, &img, truth));
    hastruth = PETSC_TRUE;
  }
  s.nx = img.nx, s.ny = img.ny, s.h = 1.0 / PetscMax(img.nx, img.ny);
  PetscCheck(sigma_domain >= 0 && sigma >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-sigma and -sigma_domain must be >= 0");
  if (sigma_domain > 0) sigma = sigma_domain * PetscMax(img.nx, img.ny);
  if (hasimage && truthfile[0]) {
    Image t;
    PetscCall(ImageLoad(comm, truthfile, &t));
    PetscCheck(t.nx == img.nx && t.ny == img.ny, comm, PETSC_ERR_ARG_SIZ, "the truth mask is %" PetscInt_FMT " x %" PetscInt_FMT ", the image %" PetscInt_FMT " x %" PetscInt_FMT, t.nx, t.ny, img.nx, img.ny);
    PetscCall(PetscMalloc1(t.nx * t.ny, &truth));
    for (PetscInt k = 0; k < t.nx * t.ny; k++) truth[k] = (unsigned char)(t.v[k] > 0.5);
    free(t.v);
  }
  if (rank == 0 && writeimage[0]) {
    unsigned char *p;
    PetscCall(PetscMalloc1(s.nx * s.ny, &p));
    for (PetscInt k = 0; k < s.nx * s.ny; k++) p[k] = (unsigned char)PetscFloorReal(0.5 + 255 * PetscClipInterval(img.v[k], 0.0, 1.0));
    PetscCall(WriteImage(writeimage, p, s.nx, s.ny, PETSC_FALSE));
    PetscCall(PetscFree(p));
  }
  if (rank == 0 && writetruth[0] && truth) PetscCall(WriteImage(writetruth, truth, s.nx, s.ny, PETSC_TRUE));
  PetscCall(PetscPrintf(comm, "%s image %" PetscInt_FMT " x %" PetscInt_FMT ", %" PetscInt_FMT " time steps of %g, K %g, eps %g, presmoothing %g pixels\n", hasimage ? "PGM" : "synthetic", s.nx, s.ny, steps, (double)s.tau, (double)s.K, (double)s.eps, (double)sigma));

  /* the edge detector on the edges, from the presmoothed image */
  PetscCall(PetscMalloc3(s.nx * s.ny, &Is, s.nx * s.ny, &s.gE, s.nx * s.ny, &s.gN));
  PetscCall(ImageSmooth(&img, sigma, Is));
  for (PetscInt j = 0; j < s.ny; j++)
    for (PetscInt i = 0; i < s.nx; i++) {
      s.gE[j * s.nx + i] = 1.0 / (1.0 + s.K * EdgeGrad2Full(Is, s.nx, s.ny, i, j, 0, s.h));
      s.gN[j * s.nx + i] = 1.0 / (1.0 + s.K * EdgeGrad2Full(Is, s.nx, s.ny, i, j, 1, s.h));
    }

  /* the grid: box stencil of width 1 for the tangential differences; A itself is 5-point */
  PetscCall(DMDACreate2d(comm, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_BOX, s.nx, s.ny, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, &s.da));
  PetscCall(DMSetFromOptions(s.da));
  PetscCall(DMSetUp(s.da));
  PetscCall(DMCreateMatrix(s.da, &A));
  PetscCall(SegPreallocate(&s, A));
  PetscCall(DMCreateGlobalVector(s.da, &u));
  PetscCall(DMCreateLocalVector(s.da, &s.uloc));
  PetscCall(VecDuplicate(u, &b));
  PetscCall(VecDuplicate(u, &v));
  PetscCall(VecDuplicate(u, &r));
  {
    PetscInt      xs, ys, xm, ym;
    PetscScalar **ua, **va;
    PetscCall(DMDAGetCorners(s.da, &xs, &ys, NULL, &xm, &ym, NULL));
    PetscCall(DMDAVecGetArray(s.da, u, &ua));
    PetscCall(DMDAVecGetArray(s.da, v, &va));
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++) {
        const PetscReal x = (i + 0.5) * s.h, y = (j + 0.5) * s.h;
        ua[j][i] = CirclesDistance(gamma0, ng / 3, x, y);
        va[j][i] = CirclesDistance(seeds, ns / 3, x, y);
      }
    PetscCall(DMDAVecRestoreArray(s.da, v, &va));
    PetscCall(DMDAVecRestoreArray(s.da, u, &ua));
  }

  /* the LCP solver: projected multigrid through PCApplyRichardson, upper bound v */
  PetscCall(KSPCreate(comm, &ksp));
  PetscCall(KSPSetDM(ksp, s.da));
  PetscCall(PetscKPKSPSetDMActive(ksp, PETSC_FALSE));
  PetscCall(KSPSetType(ksp, KSPRICHARDSON));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCPSORMG));
  PetscCall(PCPSORMGSetVariableBounds(pc, NULL, v));
  PetscCall(KSPSetTolerances(ksp, rtol, 1e-50, PETSC_DEFAULT, max_cycles));
  PetscCall(KSPSetInitialGuessNonzero(ksp, PETSC_TRUE));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPGetTolerances(ksp, &rtol, &atol, &dtol, &maxits));

  PetscCall(PetscTime(&tall));
  for (PetscInt step = 0; step < steps; step++) {
    KSPConvergedReason reason;
    PetscInt           its;
    PetscReal          p0, p, infeas, comp, bn, un, an, rfloor;
    const PetscBool    check = (PetscBool)(check_every || step == steps - 1);

    PetscCall(PetscTime(&t0));
    PetscCall(SegAssemble(&s, u, A, b));
    PetscCall(KSPSetOperators(ksp, A, A));
    tasm -= t0;
    PetscCall(PetscTime(&t0));
    tasm += t0;
    /* the residual of u is computed with a rounding error of about eps (||b|| + ||A|| ||u||). A step that starts
       near a steady state (a large -tau: u hardly changes from step to step) has an initial residual so small that
       -ksp_rtol would ask for less than that; such a solve stops at the rounding level (KSP_CONVERGED_ATOL) */
    PetscCall(VecNorm(b, NORM_2, &bn));
    PetscCall(VecNorm(u, NORM_2, &un));
    PetscCall(MPIU_Allreduce(&s.anorm, &an, 1, MPIU_REAL, MPIU_MAX, comm));
    rfloor = 100 * PETSC_MACHINE_EPSILON * (bn + an * un);
    PetscCall(KSPSetTolerances(ksp, rtol, PetscMax(atol, rfloor), dtol, maxits));
    if (check) PetscCall(LcpMeasures(A, b, u, v, r, &p0, &infeas, &comp));
    PetscCall(PetscTime(&t0));
    PetscCall(KSPSolve(ksp, b, u));
    PetscCall(KSPGetConvergedReason(ksp, &reason));
    PetscCall(KSPGetIterationNumber(ksp, &its));
    tsolve -= t0;
    PetscCall(PetscTime(&t0));
    tsolve += t0;
    PetscCheck(reason == KSP_CONVERGED_RTOL || reason == KSP_CONVERGED_ATOL, comm, PETSC_ERR_NOT_CONVERGED, "step %" PetscInt_FMT ": PCPSORMG did not converge (%s after %" PetscInt_FMT " cycles; -max_cycles %" PetscInt_FMT ")", step, KSPConvergedReasons[reason], its, max_cycles);
    totcyc += its, maxcyc = PetscMax(maxcyc, its);
    if (reason == KSP_CONVERGED_ATOL && rfloor > atol) nfloor++, maxfloor = PetscMax(maxfloor, rfloor);
    if (check) {
      /* independent check of what the solver claims: tolerance reached, feasible, complementary */
      PetscCall(LcpMeasures(A, b, u, v, r, &p, &infeas, &comp));
      PetscCheck(p <= 1.01 * rtol * p0 || reason == KSP_CONVERGED_ATOL, comm, PETSC_ERR_PLIB, "step %" PetscInt_FMT ": projected residual %g > rtol %g * initial %g", step, (double)p, (double)rtol, (double)p0);
      PetscCheck(infeas == 0, comm, PETSC_ERR_PLIB, "step %" PetscInt_FMT ": u exceeds the constraint v by %g", step, (double)infeas);
      maxinfeas = PetscMax(maxinfeas, infeas);
      /* relative to the initial projected residual, the reference of -ksp_rtol (or to the rounding level it stopped at) */
      maxcomp   = PetscMax(maxcomp, comp > 0 ? comp / PetscMax(p0, PetscMax(atol, rfloor) / rtol) : 0);
      maxprel   = PetscMax(maxprel, p0 > 0 ? p / p0 : 0);
    }
    if (verbose) PetscCall(PetscPrintf(comm, "  step %3" PetscInt_FMT ": %3" PetscInt_FMT " cycles\n", step, its));
  }
  PetscCall(PetscTime(&t0));
  tall = t0 - tall;
  PetscCall(PCPSORMGGetLevels(pc, &levels));
  PetscCall(PetscPrintf(comm, "every LCP solve reached -ksp_rtol %g within %" PetscInt_FMT " psormg cycles: yes\n", (double)rtol, max_cycles));
  if (nfloor) PetscCall(PetscPrintf(comm, "of which %" PetscInt_FMT " stopped at the rounding level of the residual, %.1e at most (near a steady state -ksp_rtol asks for less)\n", nfloor, (double)maxfloor));
  PetscCheck(maxcomp <= 1e3 * rtol, comm, PETSC_ERR_PLIB, "complementarity %g (sum (v-u)|b-Au| / |v-u|, relative to the initial projected residual) is not at the solver tolerance -ksp_rtol %g", (double)maxcomp, (double)rtol);
  PetscCall(PetscPrintf(comm, "constraint u <= v holds exactly and complementarity sum (v-u)|b-Au| / (|v-u| p0) <= 1e3 rtol (p0: initial projected residual): yes\n"));

  /* the segmentation: {u < 0}; Omega_in (v < 0) must be inside it */
  {
    PetscInt           xs, ys, xm, ym;
    const PetscScalar **ua, **va;
    PetscInt           cnt[5] = {0, 0, 0, 0, 0}; /* inside, intersection, union, misclassified, Omega_in outside */
    PetscCall(DMDAGetCorners(s.da, &xs, &ys, NULL, &xm, &ym, NULL));
    PetscCall(DMDAVecGetArrayRead(s.da, u, &ua));
    PetscCall(DMDAVecGetArrayRead(s.da, v, &va));
    for (PetscInt j = ys; j < ys + ym; j++)
      for (PetscInt i = xs; i < xs + xm; i++) {
        const PetscBool in = (PetscBool)(PetscRealPart(ua[j][i]) < 0);
        cnt[0] += in;
        if (PetscRealPart(va[j][i]) < 0 && !in) cnt[4]++;
        if (truth) {
          const PetscBool t = (PetscBool)(truth[j * s.nx + i] != 0);
          cnt[1] += in && t, cnt[2] += in || t, cnt[3] += in != t;
        }
      }
    PetscCall(DMDAVecRestoreArrayRead(s.da, v, &va));
    PetscCall(DMDAVecRestoreArrayRead(s.da, u, &ua));
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, cnt, 5, MPIU_INT, MPI_SUM, comm));
    PetscCheck(cnt[4] == 0, comm, PETSC_ERR_PLIB, "%" PetscInt_FMT " pixels of Omega_in are outside the segmented region", cnt[4]);
    PetscCall(PetscPrintf(comm, "Omega_in lies inside the segmented region {u < 0}: yes\n"));
    if (verbose) {
      PetscCall(PetscPrintf(comm, "levels %" PetscInt_FMT ", cycles per step: mean %.2f, max %" PetscInt_FMT "; max relative projected residual %.2e, complementarity %.2e, infeasibility %g\n", levels, (double)totcyc / steps, maxcyc, (double)maxprel, (double)maxcomp, (double)maxinfeas));
      PetscCall(PetscPrintf(comm, "time: total %.3f s, assembly %.3f s, LCP solves %.3f s; segmented fraction %.4f\n", (double)tall, (double)tasm, (double)tsolve, (double)cnt[0] / (s.nx * s.ny)));
    }
    if (truth) {
      const PetscReal jac = cnt[2] ? (PetscReal)cnt[1] / cnt[2] : 1.0, miss = (PetscReal)cnt[3] / (s.nx * s.ny);
      if (verbose) PetscCall(PetscPrintf(comm, "Jaccard index %.4f, misclassified fraction %.4f\n", (double)jac, (double)miss));
      PetscCheck(jac >= jmin && miss <= miss_max, comm, PETSC_ERR_PLIB, "segmentation does not match the truth: Jaccard index %.4f (need >= %g), misclassified fraction %.4f (need <= %g)", (double)jac, (double)jmin, (double)miss, (double)miss_max);
      PetscCall(PetscPrintf(comm, "segmentation matches the truth (Jaccard >= %g, misclassified <= %g): yes\n", (double)jmin, (double)miss_max));
    }
  }

  /* outputs */
  if (maskfile[0] || contourfile[0]) {
    if (rank == 0) PetscCall(PetscMalloc1(s.nx * s.ny, &mask));
    PetscCall(GatherMask(s.da, u, mask));
    if (rank == 0 && maskfile[0]) {
      for (PetscInt k = 0; k < s.nx * s.ny; k++) mask[k] = mask[k] ? 255 : 0;
      PetscCall(WriteImage(maskfile, mask, s.nx, s.ny, PETSC_FALSE));
    }
    if (rank == 0 && contourfile[0]) {
      unsigned char *p;
      PetscCall(PetscMalloc1(s.nx * s.ny, &p));
      for (PetscInt j = 0; j < s.ny; j++)
        for (PetscInt i = 0; i < s.nx; i++) {
          const PetscInt k  = j * s.nx + i;
          PetscBool      ct = PETSC_FALSE;
          if (mask[k]) ct = (PetscBool)((i > 0 && !mask[k - 1]) || (i < s.nx - 1 && !mask[k + 1]) || (j > 0 && !mask[k - s.nx]) || (j < s.ny - 1 && !mask[k + s.nx]));
          p[k] = ct ? 255 : (unsigned char)PetscFloorReal(0.5 + 200 * PetscClipInterval(img.v[k], 0.0, 1.0));
        }
      PetscCall(WriteImage(contourfile, p, s.nx, s.ny, PETSC_FALSE));
      PetscCall(PetscFree(p));
    }
    PetscCall(PetscFree(mask));
  }

  PetscCall(KSPDestroy(&ksp));
  PetscCall(MatDestroy(&A));
  PetscCall(VecDestroy(&u));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&v));
  PetscCall(VecDestroy(&r));
  PetscCall(VecDestroy(&s.uloc));
  PetscCall(DMDestroy(&s.da));
  PetscCall(PetscFree(s.vals));
  PetscCall(PetscFree3(Is, s.gE, s.gN));
  PetscCall(PetscFree(truth));
  if (hasimage) free(img.v);
  else PetscCall(PetscFree(img.v));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  # synthetic disc and square with noise: odd sizes (the multigrid interpolation keeps constants up to both edges)
  test:
    suffix: synthetic
    nsize: {{1 2 4}}
    args: -n 65 -tau 4e-2 -steps 10
    output_file: output/segmentation_synthetic65.out

  test:
    suffix: synthetic_129
    nsize: {{1 2}}
    args: -n 129 -tau 4e-2 -steps 10
    output_file: output/segmentation_synthetic129.out

  # truncated monotone multigrid (-pc_psormg_obstacle_restriction truncated): at most 18 cycles per step here, where the monotone
  # restriction needs up to 33 once the contour reaches the seeds (kept tested below)
  test:
    suffix: synthetic_truncated
    nsize: {{1 2 4}}
    args: -n 65 -tau 4e-2 -steps 10 -max_cycles 20 -pc_psormg_obstacle_restriction truncated
    output_file: output/segmentation_synthetic_truncated.out

  test:
    suffix: synthetic_monotone
    nsize: {{1 2}}
    args: -n 65 -tau 4e-2 -steps 10 -pc_psormg_obstacle_restriction monotone
    output_file: output/segmentation_synthetic65.out

  # the grid hierarchy set up on the device on every rank (P by a kernel, the ghost rows of P and the off-process rows of
  # R A P exchanged between the ranks) and on the host (MatPtAP): the same cycles in every step at 1, 2 and 4 ranks
  test:
    suffix: synthetic_setup_cycles
    nsize: {{1 2 4}}
    args: -n 65 -tau 4e-2 -steps 10 -verbose -pc_psormg_device_setup {{true false}}
    filter: grep -v "^time:"
    output_file: output/segmentation_synthetic65_cycles.out

  # the same with truncated transfers (the coarse operators recomputed by the numeric phase when the active set moves)
  test:
    suffix: synthetic_truncated_setup_cycles
    nsize: {{1 2 4}}
    args: -n 65 -tau 4e-2 -steps 10 -max_cycles 20 -pc_psormg_obstacle_restriction truncated -verbose -pc_psormg_device_setup {{true false}}
    filter: grep -v "^time:"
    output_file: output/segmentation_synthetic_truncated_cycles.out

  # even sizes (the paper's images are 256, 512, 1024): the interpolation extrapolates constants to the Neumann edge
  # past the last coarse point, so every solve needs at most the cycles of the odd neighbour (65: 33, 257: 36 at
  # most; with the Dirichlet-style half value at that edge 64 needed up to 72 and 256 up to 150 cycles)
  test:
    suffix: synthetic_even
    nsize: {{1 2 4}}
    args: -n 64 -tau 4e-2 -steps 10 -max_cycles 33
    output_file: output/segmentation_synthetic64.out

  test:
    suffix: synthetic_256
    nsize: 1
    args: -n 256 -tau 4e-2 -steps 10 -max_cycles 45
    output_file: output/segmentation_synthetic256.out

  # presmoothing width in domain units (-sigma_domain: 2 pixels at 128), as bench/run_segmentation.sh runs the paper's sizes
  test:
    suffix: sigma_domain
    nsize: {{1 2}}
    args: -n 128 -sigma_domain 0.015625 -tau 4e-2 -steps 10 -max_cycles 40
    output_file: output/segmentation_sigma_domain.out

  # the shipped PGM (binary P5 image, ASCII P2 truth), the image codecs and the errors for bad files, mask/contour output
  test:
    suffix: pgm
    nsize: {{1 2 4}}
    args: -image data/shapes65.pgm -truth data/shapes65_truth.pgm -tau 4e-2 -steps 10 -check_io -mask /dev/null -contour /dev/null
    output_file: output/segmentation_pgm.out

  # large time steps (no segmentation: the curve fills the image): u reaches a steady state, where the initial residual
  # of a step is so small that -ksp_rtol asks for less than its rounding error (those solves stop at that level), and
  # the complementarity is measured against the initial residual (||b|| shrinks like 1/tau). PCPSORMG needs many more
  # V-cycles per step than at -tau 4e-2 (here up to 183; 360 at -n 65, 248 at -tau 10 there, against 33)
  test:
    suffix: large_tau
    nsize: {{1 2}}
    args: -n 33 -tau 100 -steps 10 -max_cycles 400 -jaccard_min 0 -miss_max 1
    filter: sed -E "s/of which [0-9]+ stopped/of which N stopped/"
    output_file: output/segmentation_large_tau.out

TEST*/
