/*
   kp_image.cxx - pictures of results for the examples: an 8-bit grayscale PNG encoder (stored deflate blocks,
   no zlib needed) and a slice of a DMDA vector written as a PNG.
*/
#include <petsckp.h>
#include <petscdmda.h>
#include <cstring>
#include <cstdint>

static uint32_t Crc32(uint32_t crc, const unsigned char *b, size_t n)
{
  crc = ~crc;
  for (size_t k = 0; k < n; k++) {
    crc ^= b[k];
    for (int t = 0; t < 8; t++) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

static void Put32(unsigned char *p, uint32_t v)
{
  p[0] = (unsigned char)(v >> 24), p[1] = (unsigned char)(v >> 16), p[2] = (unsigned char)(v >> 8), p[3] = (unsigned char)v;
}

static size_t PNGChunk(unsigned char *o, const char *type, const unsigned char *data, uint32_t n)
{
  Put32(o, n);
  std::memcpy(o + 4, type, 4);
  if (n) std::memcpy(o + 8, data, n);
  Put32(o + 8 + n, Crc32(0, o + 4, 4 + (size_t)n));
  return 12 + (size_t)n;
}

/*@C
  PetscKPPNGEncodeGray - encodes an 8-bit grayscale image as a PNG in memory (uncompressed deflate blocks)

  Not Collective

  Input Parameters:
+ pix - the pixels, row by row from the top, nx * ny bytes
. nx  - width
- ny  - height

  Output Parameters:
+ out - the PNG bytes, free with `PetscFree()`
- len - their number

  Level: developer

.seealso: `PetscKPDMDAWriteSlicePNG()`
@*/
PetscErrorCode PetscKPPNGEncodeGray(const unsigned char *pix, PetscInt nx, PetscInt ny, unsigned char **out, size_t *len)
{
  const size_t   raw = (size_t)ny * ((size_t)nx + 1), nblk = raw / 65535 + 1, zlen = 2 + raw + 5 * nblk + 4;
  unsigned char *r, *z, ihdr[13];
  uint32_t       a = 1, b = 0;
  size_t         p = 0, q = 0;

  PetscFunctionBegin;
  PetscCheck(nx > 0 && ny > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "PNG size %" PetscInt_FMT " x %" PetscInt_FMT " must be positive", nx, ny);
  PetscCall(PetscMalloc1(raw, &r));
  PetscCall(PetscMalloc1(zlen, &z));
  for (PetscInt j = 0; j < ny; j++) {
    r[p++] = 0; /* filter type none */
    std::memcpy(r + p, pix + (size_t)j * nx, (size_t)nx);
    p += (size_t)nx;
  }
  z[q++] = 0x78, z[q++] = 0x01;
  for (size_t s = 0; s < raw; s += 65535) {
    const size_t n = raw - s < 65535 ? raw - s : 65535;
    z[q++]         = (unsigned char)(s + n >= raw); /* BFINAL, BTYPE 00 (stored) */
    z[q++] = (unsigned char)(n & 0xff), z[q++] = (unsigned char)(n >> 8), z[q++] = (unsigned char)(~n & 0xff), z[q++] = (unsigned char)((~n >> 8) & 0xff);
    std::memcpy(z + q, r + s, n);
    q += n;
  }
  for (size_t k = 0; k < raw; k++) a = (a + r[k]) % 65521u, b = (b + a) % 65521u;
  Put32(z + q, (b << 16) | a);
  q += 4;
  Put32(ihdr, (uint32_t)nx), Put32(ihdr + 4, (uint32_t)ny);
  ihdr[8] = 8, ihdr[9] = 0, ihdr[10] = 0, ihdr[11] = 0, ihdr[12] = 0;
  PetscCall(PetscMalloc1(8 + 25 + 12 + q + 12, out));
  std::memcpy(*out, "\x89PNG\r\n\x1a\n", 8);
  p = 8;
  p += PNGChunk(*out + p, "IHDR", ihdr, 13);
  p += PNGChunk(*out + p, "IDAT", z, (uint32_t)q);
  p += PNGChunk(*out + p, "IEND", NULL, 0);
  *len = p;
  PetscCall(PetscFree(r));
  PetscCall(PetscFree(z));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PetscKPDMDAWriteSlicePNG - writes the plane k of a 2D or 3D `DMDA` vector (one component) as a grayscale PNG,
  black at the minimum and white at the maximum of the plane (log10 |v| when `logscale`)

  Collective

  Input Parameters:
+ da       - the `DMDA` (2D or 3D, one degree of freedom)
. v        - a global vector of `da` (any memory type)
. k        - the plane for 3D (ignored in 2D)
. logscale - map log10 |v| instead of v (for coefficients with high contrast)
- file     - the PNG file name

  Level: beginner

  Note:
  The plane is gathered on rank 0, which writes the file. The image has y upwards.

.seealso: `PetscKPPNGEncodeGray()`
@*/
PetscErrorCode PetscKPDMDAWriteSlicePNG(DM da, Vec v, PetscInt k, PetscBool logscale, const char file[])
{
  PetscInt     dim, M, N, P, dof;
  Vec          nat, v0;
  VecScatter   sct;
  PetscMPIInt  rank;

  PetscFunctionBegin;
  PetscCall(DMDAGetInfo(da, &dim, &M, &N, &P, NULL, NULL, NULL, &dof, NULL, NULL, NULL, NULL, NULL));
  PetscCheck(dim == 2 || dim == 3, PetscObjectComm((PetscObject)da), PETSC_ERR_ARG_WRONG, "PetscKPDMDAWriteSlicePNG needs a 2D or 3D DMDA, not %" PetscInt_FMT "D", dim);
  PetscCheck(dof == 1, PetscObjectComm((PetscObject)da), PETSC_ERR_ARG_WRONG, "PetscKPDMDAWriteSlicePNG needs one degree of freedom per point, not %" PetscInt_FMT, dof);
  if (dim == 2) k = 0, P = 1;
  PetscCheck(k >= 0 && k < P, PetscObjectComm((PetscObject)da), PETSC_ERR_ARG_OUTOFRANGE, "plane %" PetscInt_FMT " is outside 0..%" PetscInt_FMT, k, P - 1);
  PetscCall(DMDACreateNaturalVector(da, &nat));
  PetscCall(DMDAGlobalToNaturalBegin(da, v, INSERT_VALUES, nat));
  PetscCall(DMDAGlobalToNaturalEnd(da, v, INSERT_VALUES, nat));
  PetscCall(VecScatterCreateToZero(nat, &sct, &v0));
  PetscCall(VecScatterBegin(sct, nat, v0, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(sct, nat, v0, INSERT_VALUES, SCATTER_FORWARD));
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)da), &rank));
  if (rank == 0) {
    const PetscScalar *a;
    unsigned char     *pix, *png;
    size_t             len;
    PetscReal          lo = PETSC_MAX_REAL, hi = -PETSC_MAX_REAL;
    FILE              *fp;

    PetscCall(VecGetArrayRead(v0, &a));
    PetscCall(PetscMalloc1((size_t)M * N, &pix));
    for (PetscInt pass = 0; pass < 2; pass++)
      for (PetscInt j = 0; j < N; j++)
        for (PetscInt i = 0; i < M; i++) {
          PetscReal x = PetscRealPart(a[i + M * (j + N * k)]);
          if (logscale) x = PetscLog10Real(PetscAbsReal(x) + PETSC_SMALL);
          if (!pass) lo = PetscMin(lo, x), hi = PetscMax(hi, x);
          else pix[(size_t)(N - 1 - j) * M + i] = (unsigned char)(hi > lo ? 255.0 * (x - lo) / (hi - lo) + 0.5 : 128);
        }
    PetscCall(VecRestoreArrayRead(v0, &a));
    PetscCall(PetscKPPNGEncodeGray(pix, M, N, &png, &len));
    PetscCall(PetscFOpen(PETSC_COMM_SELF, file, "wb", &fp));
    PetscCheck(fwrite(png, 1, len, fp) == len, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "cannot write the PNG file %s", file);
    PetscCall(PetscFClose(PETSC_COMM_SELF, fp));
    PetscCall(PetscFree(png));
    PetscCall(PetscFree(pix));
  }
  PetscCall(VecScatterDestroy(&sct));
  PetscCall(VecDestroy(&v0));
  PetscCall(VecDestroy(&nat));
  PetscFunctionReturn(PETSC_SUCCESS);
}
