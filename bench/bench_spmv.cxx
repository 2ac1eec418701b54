/*
   bench_spmv - SpMV bandwidth of petsckp's device matrix (SELL-C and CSR) next to PETSc's MatMult and a
   device-to-device copy, on the 7-point 3D Laplacian of a DMDA (n^3 rows).

     ./bench_spmv -n 256 -vec_type cuda -mat_type aijcusparse -use_gpu_aware_mpi 0 -reps 50 -o result.md

   Bandwidth counts the minimal bytes of a CSR SpMV: 8+4 bytes per nonzero, 4 per row pointer, x read once,
   y written once (the padding of SELL is not counted).
*/
#include <petscdmda.h>
#include <petsckp.h>
#include <chrono>
#include "kp_kokkos.hpp"

static PetscErrorCode Laplacian(DM da, Mat A)
{
  PetscInt    i, j, k, M, N, P, xs, ys, zs, xm, ym, zm;
  MatStencil  row, col[7];
  PetscScalar v[7];

  PetscFunctionBeginUser;
  PetscCall(DMDAGetInfo(da, 0, &M, &N, &P, 0, 0, 0, 0, 0, 0, 0, 0, 0));
  PetscCall(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
  for (k = zs; k < zs + zm; k++)
    for (j = ys; j < ys + ym; j++)
      for (i = xs; i < xs + xm; i++) {
        PetscInt c = 0;
        row.i = i, row.j = j, row.k = k;
        v[c] = 6.0, col[c++] = row;
        if (i > 0) v[c] = -1, col[c] = row, col[c++].i = i - 1;
        if (i < M - 1) v[c] = -1, col[c] = row, col[c++].i = i + 1;
        if (j > 0) v[c] = -1, col[c] = row, col[c++].j = j - 1;
        if (j < N - 1) v[c] = -1, col[c] = row, col[c++].j = j + 1;
        if (k > 0) v[c] = -1, col[c] = row, col[c++].k = k - 1;
        if (k < P - 1) v[c] = -1, col[c] = row, col[c++].k = k + 1;
        PetscCall(MatSetValuesStencil(A, 1, &row, c, col, v, INSERT_VALUES));
      }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static double Now()
{
  Kokkos::fence();
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

int main(int argc, char **argv)
{
  PetscInt         n = 64, reps = 20, m, nnz, stored, N;
  DM               da;
  Mat              A;
  Vec              x, y, y2;
  PetscKPDeviceMat dm[2];
  char             out[PETSC_MAX_PATH_LEN] = "";
  PetscMPIInt      size;
  PetscReal        err;
  double           t, tcopy, tkp[2], tpetsc, bytes;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscKPRegisterAll());
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &reps, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-o", out, sizeof(out), NULL));
  PetscCall(DMDACreate3d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, n, n, n, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, NULL, &da));
  PetscCall(DMSetFromOptions(da));
  PetscCall(DMSetUp(da));
  PetscCall(DMCreateMatrix(da, &A));
  PetscCall(Laplacian(da, A));
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(VecDuplicate(y, &y2));
  PetscCall(VecSetRandom(x, NULL));
  PetscCall(MatGetSize(A, &N, NULL));

  for (int f = 0; f < 2; f++) PetscCall(PetscKPDeviceMatCreate(A, (PetscKPMatFormat)(1 - f), &dm[f])); /* sell, csr */
  PetscCall(PetscKPDeviceMatGetInfo(dm[1], &m, &nnz, NULL, NULL));
  PetscCall(PetscKPDeviceMatGetInfo(dm[0], NULL, NULL, &stored, NULL));
  bytes = 12.0 * nnz + 4.0 * (m + 1) + 16.0 * m;

  /* device-to-device copy of the same number of bytes as the SpMV moves (read + write) */
  {
    size_t                    len = (size_t)(bytes / 16.0);
    petsckp::View<PetscScalar> a("a", len), b("b", len);
    Kokkos::deep_copy(a, 1.0);
    Kokkos::deep_copy(b, a);
    t = Now();
    for (PetscInt r = 0; r < reps; r++) Kokkos::deep_copy(b, a);
    tcopy = (Now() - t) / reps;
  }
  for (int f = 0; f < 2; f++) {
    PetscCall(PetscKPDeviceMatMult(dm[f], x, y));
    t = Now();
    for (PetscInt r = 0; r < reps; r++) PetscCall(PetscKPDeviceMatMult(dm[f], x, y));
    tkp[f] = (Now() - t) / reps;
  }
  PetscCall(MatMult(A, x, y2));
  t = Now();
  for (PetscInt r = 0; r < reps; r++) PetscCall(MatMult(A, x, y2));
  tpetsc = (Now() - t) / reps;
  PetscCall(VecAXPY(y2, -1.0, y));
  PetscCall(VecNorm(y2, NORM_INFINITY, &err));
  PetscCheck(err < 1e-10, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "SpMV differs from MatMult by %g", (double)err);

  {
    char      ver[256], row[1024];
    VecType   vt;
    MatType   mt;
    double    copybw = 2.0 * (size_t)(bytes / 16.0) * 8.0 / tcopy * 1e-9 * size;
    PetscCall(PetscKPGetVersion(ver, sizeof(ver)));
    PetscCall(VecGetType(x, &vt));
    PetscCall(MatGetType(A, &mt));
    PetscCall(PetscSNPrintf(row, sizeof(row), "| %" PetscInt_FMT "^3 | %" PetscInt_FMT " | %d | %s/%s | %.1f | %.3f (%.0f GB/s, %.0f%%) | %.3f (%.0f GB/s, %.0f%%) | %.3f (%.0f GB/s, %.0f%%) | %.3f |\n", n, N, size, vt, mt, copybw, tkp[0] * 1e3, bytes / tkp[0] * 1e-9 * size, 100 * (bytes / tkp[0] * 1e-9 * size) / copybw, tkp[1] * 1e3, bytes / tkp[1] * 1e-9 * size, 100 * (bytes / tkp[1] * 1e-9 * size) / copybw, tpetsc * 1e3, bytes / tpetsc * 1e-9 * size, 100 * (bytes / tpetsc * 1e-9 * size) / copybw, (double)stored / nnz));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s\n| grid | rows | ranks | vec/mat | copy GB/s | petsckp SELL ms | petsckp CSR ms | PETSc MatMult ms | SELL stored/nnz |\n|---|---|---|---|---|---|---|---|---|\n%s", ver, row));
    if (out[0]) {
      FILE *fp;
      PetscCall(PetscFOpen(PETSC_COMM_WORLD, out, "a", &fp));
      PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "%s", row));
      PetscCall(PetscFClose(PETSC_COMM_WORLD, fp));
    }
  }
  for (int f = 0; f < 2; f++) PetscCall(PetscKPDeviceMatDestroy(&dm[f]));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&y2));
  PetscCall(MatDestroy(&A));
  PetscCall(DMDestroy(&da));
  PetscCall(PetscFinalize());
  return 0;
}
