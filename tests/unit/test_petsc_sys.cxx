/* Unit tests of the PETSc-facing part of src/sys: Vec access by memory type and the device matrix.
   Vec and Mat types come from the options database, so PETSC_OPTIONS="-vec_type cuda -mat_type aijcusparse"
   runs the same tests on GPU types. */
#include <cstring>
#include "kp_test.hpp"
#include "kp_sys.hpp"
#include "kp_checked_vec.hpp"

using namespace kptest;

#define KP_OK(expr) ASSERT_EQ((int)(expr), 0)

static void CreateVec(Int n, Vec *v)
{
  ASSERT_EQ((int)VecCreate(PETSC_COMM_SELF, v), 0);
  ASSERT_EQ((int)VecSetSizes(*v, n, n), 0);
  ASSERT_EQ((int)VecSetFromOptions(*v), 0);
}

/* the matrix of a random host CSR as a PETSc matrix of the type from the options */
static void CreateMat(const HostCsr &h, Mat *A)
{
  ASSERT_EQ((int)MatCreate(PETSC_COMM_SELF, A), 0);
  ASSERT_EQ((int)MatSetSizes(*A, h.nrows, h.ncols, h.nrows, h.ncols), 0);
  ASSERT_EQ((int)MatSetType(*A, MATAIJ), 0);
  ASSERT_EQ((int)MatSetFromOptions(*A), 0);
  std::vector<PetscInt> nnz(h.nrows);
  for (Int i = 0; i < h.nrows; i++) nnz[i] = h.rowptr[i + 1] - h.rowptr[i];
  ASSERT_EQ((int)MatXAIJSetPreallocation(*A, 1, nnz.data(), nullptr, nullptr, nullptr), 0);
  for (Int i = 0; i < h.nrows; i++) {
    Int len = h.rowptr[i + 1] - h.rowptr[i];
    if (len) ASSERT_EQ((int)MatSetValues(*A, 1, &i, len, h.colidx.data() + h.rowptr[i], h.vals.data() + h.rowptr[i], INSERT_VALUES), 0);
  }
  ASSERT_EQ((int)MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY), 0);
  ASSERT_EQ((int)MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY), 0);
}

static std::vector<Scalar> VecToStd(Vec v)
{
  const PetscScalar *a;
  PetscInt           n;
  VecGetLocalSize(v, &n);
  VecGetArrayRead(v, &a);
  std::vector<Scalar> s(a, a + n);
  VecRestoreArrayRead(v, &a);
  return s;
}

static void SetVec(Vec v, const std::vector<Scalar> &s)
{
  PetscScalar *a;
  VecGetArrayWrite(v, &a);
  std::copy(s.begin(), s.end(), a);
  VecRestoreArrayWrite(v, &a);
}

/* a kernel through the DeviceVec: y = 2 x + 1 */
static void Affine(UView<const Scalar> x, UView<Scalar> y)
{
  Kokkos::parallel_for("test affine", range((Int)x.extent(0)), KOKKOS_LAMBDA(Int i) { y(i) = 2 * x(i) + 1; });
}

class PetscSizes : public ::testing::TestWithParam<Int> { };

TEST_P(PetscSizes, DeviceVecReadWrite)
{
  const Int n = GetParam();
  Vec       x, y;
  CreateVec(n, &x);
  CreateVec(n, &y);
  auto xs = RandomVector(n, 11);
  SetVec(x, xs);
  VecSet(y, NAN);
  {
    DeviceVec xv, yv;
    KP_OK(xv.Get(x, Access::Read));
    KP_OK(yv.Get(y, Access::Write));
    EXPECT_EQ(xv.size(), n);
    Affine(xv.cview(), yv.view());
    KP_OK(yv.Restore());
    KP_OK(xv.Restore());
  }
  std::vector<Scalar> ref(n);
  for (Int i = 0; i < n; i++) ref[i] = 2 * xs[i] + 1;
  EXPECT_LE(RelErr(VecToStd(y), ref), 1e-15);
  /* read-write in place */
  {
    DeviceVec yv;
    KP_OK(yv.Get(y, Access::ReadWrite));
    Affine(yv.cview(), yv.view());
  } /* the destructor restores */
  for (Int i = 0; i < n; i++) ref[i] = 2 * ref[i] + 1;
  EXPECT_LE(RelErr(VecToStd(y), ref), 1e-15);
  VecDestroy(&x);
  VecDestroy(&y);
}

TEST_P(PetscSizes, DeviceMatMatchesMatMult)
{
  const Int n = GetParam();
  for (int fmt = 0; fmt < 2; fmt++) {
    HostCsr          h = RandomCsr(n, n, 5 + (unsigned)n);
    Mat              A;
    Vec              x, y, yref;
    PetscKPDeviceMat dm;
    CreateMat(h, &A);
    KP_OK(MatCreateVecs(A, &x, &y));
    KP_OK(VecDuplicate(y, &yref));
    SetVec(x, RandomVector(n, 13));
    KP_OK(PetscKPDeviceMatCreate(A, (PetscKPMatFormat)fmt, &dm));
    KP_OK(PetscKPDeviceMatMult(dm, x, y));
    KP_OK(MatMult(A, x, yref));
    EXPECT_LE(RelErr(VecToStd(y), VecToStd(yref)), 1e-14);
    /* new values, same pattern: picked up automatically (no MatShift(): the random pattern misses diagonal entries,
       which MatShift() would insert, and PETSc reassembles an aijkokkos matrix entry by entry for that) */
    KP_OK(MatScale(A, -3.0));
    KP_OK(PetscKPDeviceMatMult(dm, x, y));
    KP_OK(MatMult(A, x, yref));
    EXPECT_LE(RelErr(VecToStd(y), VecToStd(yref)), 1e-14);
    KP_OK(PetscKPDeviceMatDestroy(&dm));
    KP_OK(MatDestroy(&A));
    KP_OK(VecDestroy(&x));
    KP_OK(VecDestroy(&y));
    KP_OK(VecDestroy(&yref));
  }
}

/* the device copy shared by the petsckp solvers of a matrix: one copy per matrix, its values refreshed by the next
   DeviceMatGetShared() after MatSetValues() (a stale copy would give wrong answers), its structure after a new
   nonzero, and released with the matrix */
TEST_P(PetscSizes, SharedDeviceMatIsReusedAndRefreshed)
{
  const Int        n = GetParam();
  HostCsr          h = RandomCsr(n, n, 7 + (unsigned)n);
  Mat              A;
  Vec              x, y, yref;
  PetscKPDeviceMat d1, d2, d3;
  CreateMat(h, &A);
  KP_OK(MatCreateVecs(A, &x, &y));
  KP_OK(VecDuplicate(y, &yref));
  SetVec(x, RandomVector(n, 13));
  KP_OK(DeviceMatGetShared(A, &d1));
  KP_OK(DeviceMatGetShared(A, &d2));
  EXPECT_EQ(d1, d2);
  EXPECT_EQ(d1->refct, 3); /* the matrix's and ours */
  EXPECT_EQ(d1->A, A);
  EXPECT_EQ(d1->format, PETSCKP_FORMAT_CSR);
  KP_OK(DeviceMatMultLocal(d1, x, y));
  KP_OK(MatMult(A, x, yref));
  EXPECT_LE(RelErr(VecToStd(y), VecToStd(yref)), 1e-14);
  /* new values: the next DeviceMatGetShared() refreshes them (DeviceMatMultLocal() itself does not) */
  for (Int i = 0; i < n; i++)
    for (Int q = h.rowptr[i]; q < h.rowptr[i + 1]; q += 2) KP_OK(MatSetValue(A, i, h.colidx[q], 10.0 + i, INSERT_VALUES));
  KP_OK(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  KP_OK(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  KP_OK(DeviceMatGetShared(A, &d3));
  EXPECT_EQ(d3, d1);
  KP_OK(DeviceMatMultLocal(d3, x, y));
  KP_OK(MatMult(A, x, yref));
  EXPECT_LE(RelErr(VecToStd(y), VecToStd(yref)), 1e-14) << "values not refreshed";
  KP_OK(PetscKPDeviceMatDestroy(&d3));
  EXPECT_EQ(d3, nullptr);
  /* a new nonzero (new nonzero state): the structure is rebuilt */
  if (n > 1) {
    const PetscInt r = 0, c = n - 1;
    KP_OK(MatSetOption(A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    KP_OK(MatSetValue(A, r, c, 0.5, ADD_VALUES));
    KP_OK(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    KP_OK(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    KP_OK(DeviceMatGetShared(A, &d3));
    EXPECT_EQ(d3, d1);
    KP_OK(DeviceMatMultLocal(d3, x, y));
    KP_OK(MatMult(A, x, yref));
    EXPECT_LE(RelErr(VecToStd(y), VecToStd(yref)), 1e-14) << "structure not rebuilt";
    KP_OK(PetscKPDeviceMatDestroy(&d3));
  }
  /* a copy of another matrix is not taken for this one */
  {
    Mat B;
    KP_OK(MatDuplicate(A, MAT_COPY_VALUES, &B));
    KP_OK(DeviceMatGetShared(B, &d3));
    EXPECT_NE(d3, d1);
    EXPECT_EQ(d3->A, B);
    KP_OK(PetscKPDeviceMatDestroy(&d3));
    KP_OK(MatDestroy(&B));
  }
  KP_OK(PetscKPDeviceMatDestroy(&d2));
  EXPECT_EQ(d1->refct, 2);
  /* the matrix goes first: the reference still held has no matrix behind it and is freed with its last release */
  KP_OK(MatDestroy(&A));
  EXPECT_EQ(d1->A, nullptr);
  EXPECT_EQ(d1->refct, 1);
  KP_OK(PetscKPDeviceMatUpdateValues(d1));
  KP_OK(PetscKPDeviceMatDestroy(&d1));
  KP_OK(VecDestroy(&x));
  KP_OK(VecDestroy(&y));
  KP_OK(VecDestroy(&yref));
}

/* MatHostAIJCopy(): a host AIJ matrix with the rows of A, entry for entry, for the AIJ subclasses PETSc converts
   without preallocation (on the CPU: aijperm; with PETSC_OPTIONS -mat_type aijcusparse or aijkokkos: the GPU types);
   the matrix is on PETSC_COMM_WORLD: one rank runs the sequential and one-process MPI paths, unit/mpi2 the local-rows
   merge of the diagonal and off-diagonal blocks */
TEST_P(PetscSizes, HostAIJCopyMPI2)
{
  const Int   n = GetParam();
  PetscMPIInt size;
  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  HostCsr h = RandomCsr(n, n, 17 + (unsigned)n);
  for (const char *type : {"options", MATAIJPERM, MATMPIAIJPERM}) {
    SCOPED_TRACE(type);
    if (size > 1 && !strcmp(type, MATAIJPERM)) continue; /* (aijperm is mpiaijperm there) */
    Mat      A, B;
    PetscInt rs, re;
    KP_OK(MatCreate(PETSC_COMM_WORLD, &A));
    KP_OK(MatSetSizes(A, PETSC_DECIDE, PETSC_DECIDE, n, n));
    if (!strcmp(type, "options")) {
      KP_OK(MatSetType(A, MATAIJ));
      KP_OK(MatSetFromOptions(A));
    } else KP_OK(MatSetType(A, type));
    KP_OK(MatXAIJSetPreallocation(A, 1, nullptr, nullptr, nullptr, nullptr));
    KP_OK(MatSeqAIJSetPreallocation(A, 9, nullptr));
    KP_OK(MatMPIAIJSetPreallocation(A, 9, nullptr, 9, nullptr));
    KP_OK(MatGetOwnershipRange(A, &rs, &re));
    for (PetscInt i = rs; i < re; i++) {
      Int len = h.rowptr[i + 1] - h.rowptr[i];
      if (len) KP_OK(MatSetValues(A, 1, &i, len, h.colidx.data() + h.rowptr[i], h.vals.data() + h.rowptr[i], INSERT_VALUES));
    }
    KP_OK(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    KP_OK(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    KP_OK(petsckp::MatHostAIJCopy(A, &B));
    PetscBool host;
    MatType   btype;
    KP_OK(PetscObjectTypeCompareAny((PetscObject)B, &host, MATSEQAIJ, MATMPIAIJ, ""));
    KP_OK(MatGetType(B, &btype));
    EXPECT_TRUE(host) << btype;
    PetscInt m, M, bm, bM;
    KP_OK(MatGetLocalSize(A, &m, NULL));
    KP_OK(MatGetSize(A, &M, NULL));
    KP_OK(MatGetLocalSize(B, &bm, NULL));
    KP_OK(MatGetSize(B, &bM, NULL));
    EXPECT_EQ(m, bm);
    EXPECT_EQ(M, bM);
    /* the rows of the reference, entry for entry: of the copy, and of A after the copy was scaled (a copy, not a view) */
    KP_OK(MatScale(B, 3.0));
    for (Mat C : {B, A}) {
      const Scalar f = C == B ? 3.0 : 1.0;
      for (PetscInt i = rs; i < re; i++) {
        PetscInt           nb;
        const PetscInt    *cb;
        const PetscScalar *vb;
        Int                len = h.rowptr[i + 1] - h.rowptr[i];
        KP_OK(MatGetRow(C, i, &nb, &cb, &vb));
        EXPECT_EQ(nb, len) << "row " << i;
        for (PetscInt k = 0; k < std::min<PetscInt>(nb, len); k++) {
          EXPECT_EQ(cb[k], h.colidx[h.rowptr[i] + k]) << "row " << i;
          EXPECT_EQ(vb[k], f * h.vals[h.rowptr[i] + k]) << "row " << i;
        }
        KP_OK(MatRestoreRow(C, i, &nb, &cb, &vb));
      }
    }
    KP_OK(MatDestroy(&B));
    KP_OK(MatDestroy(&A));
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, PetscSizes, ::testing::ValuesIn(Sizes()));

/* products of one device matrix with Vecs of two types in turn (a solver's own Vecs and the user's of another type):
   each product is right, and the ghost exchange of each type is created once and kept, not created again at every
   change of type (checked Vec types stand for host and device Vecs; 2 ranks, so that there are ghosts) */
TEST(PetscSysMPI2, DeviceMatKeepsTheGhostExchangeOfTwoVecTypes)
{
  PetscMPIInt size;
  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  if (size != 2) GTEST_SKIP() << "needs 2 ranks";
  const PetscInt   n = 41;
  Mat              A;
  PetscKPDeviceMat dm;
  Vec              x[2], y, yref;
  char             type[2][32];
  PetscInt         rs, re;
  KP_OK(MatCreateAIJ(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, n, n, 3, nullptr, 2, nullptr, &A));
  KP_OK(MatGetOwnershipRange(A, &rs, &re));
  for (PetscInt i = rs; i < re; i++) {
    const PetscInt    c[3] = {i - 1, i, i + 1};
    const PetscScalar v[3] = {-1.0, 2.0 + 0.01 * i, -1.5};
    const PetscInt    first = i ? 0 : 1, last = i == n - 1 ? 2 : 3; /* the couplings inside the grid */
    KP_OK(MatSetValues(A, 1, &i, last - first, c + first, v + first, INSERT_VALUES));
  }
  KP_OK(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  KP_OK(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  KP_OK(PetscKPDeviceMatCreate(A, PETSCKP_FORMAT_CSR, &dm));
  KP_OK(MatCreateVecs(A, &y, &yref));
  for (int t = 0; t < 2; t++) {
    KP_OK(CheckedVecType(PETSC_COMM_WORLD, t ? 'b' : 'a', type[t], sizeof(type[t])));
    KP_OK(VecCreate(PETSC_COMM_WORLD, &x[t]));
    KP_OK(VecSetSizes(x[t], re - rs, n));
    KP_OK(VecSetType(x[t], type[t]));
    for (PetscInt i = rs; i < re; i++) KP_OK(VecSetValue(x[t], i, 1.0 + 0.1 * i, INSERT_VALUES));
    KP_OK(VecAssemblyBegin(x[t]));
    KP_OK(VecAssemblyEnd(x[t]));
  }
  KP_OK(MatMult(A, x[0], yref));
  PetscInt64 id[2] = {-1, -1};
  for (int k = 0; k < 6; k++) {
    const int t = k % 2;
    PetscReal d, nr;
    KP_OK(petsckp::DeviceMatMultLocal(dm, x[t], y));
    KP_OK(VecAXPY(y, -1.0, yref));
    KP_OK(VecNorm(y, NORM_INFINITY, &d));
    KP_OK(VecNorm(yref, NORM_INFINITY, &nr));
    EXPECT_LE(d, 1e-14 * nr) << type[t] << ", product " << k;
    ASSERT_TRUE(dm->sct) << type[t];
    if (k < 2) id[t] = ((PetscObject)dm->sct)->id;
    else EXPECT_EQ(((PetscObject)dm->sct)->id, id[t]) << "the exchange of " << type[t] << " was created again at product " << k;
  }
  EXPECT_NE(id[0], id[1]);
  KP_OK(PetscKPDeviceMatDestroy(&dm));
  for (Vec &v : x) KP_OK(VecDestroy(&v));
  KP_OK(VecDestroy(&y));
  KP_OK(VecDestroy(&yref));
  KP_OK(MatDestroy(&A));
}

TEST(PetscSys, ShellMatrixInKSP)
{
  /* 1D Laplacian solved by CG on the petsckp SpMV shell */
  const Int n = 200;
  HostCsr   h;
  h.nrows = h.ncols = n;
  h.rowptr.push_back(0);
  for (Int i = 0; i < n; i++) {
    for (Int j = std::max<Int>(0, i - 1); j <= std::min<Int>(n - 1, i + 1); j++) {
      h.colidx.push_back(j);
      h.vals.push_back(i == j ? 2.0 : -1.0);
    }
    h.rowptr.push_back((Int)h.colidx.size());
  }
  Mat A, S;
  Vec x, b, r;
  KSP ksp;
  PetscReal rn, bn;
  CreateMat(h, &A);
  KP_OK(MatCreateKPShell(A, PETSCKP_FORMAT_SELL, &S));
  KP_OK(MatCreateVecs(S, &x, &b));
  KP_OK(VecDuplicate(b, &r));
  KP_OK(VecSet(b, 1.0));
  KP_OK(KSPCreate(PETSC_COMM_SELF, &ksp));
  KP_OK(KSPSetOperators(ksp, S, A));
  KP_OK(KSPSetType(ksp, KSPCG));
  KP_OK(KSPSetTolerances(ksp, 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, 1000));
  KP_OK(KSPSolve(ksp, b, x));
  KP_OK(MatMult(A, x, r));
  KP_OK(VecAXPY(r, -1.0, b));
  KP_OK(VecNorm(r, NORM_2, &rn));
  KP_OK(VecNorm(b, NORM_2, &bn));
  EXPECT_LE(rn / bn, 1e-9);
  KSPDestroy(&ksp);
  MatDestroy(&S);
  MatDestroy(&A);
  VecDestroy(&x);
  VecDestroy(&b);
  VecDestroy(&r);
}

TEST(PetscSys, ErrorsAreReported)
{
  Mat              D;
  PetscKPDeviceMat dm = nullptr;
  PetscErrorCode   ierr;
  KP_OK(MatCreateDense(PETSC_COMM_SELF, 4, 4, 4, 4, nullptr, &D));
  KP_OK(MatAssemblyBegin(D, MAT_FINAL_ASSEMBLY));
  KP_OK(MatAssemblyEnd(D, MAT_FINAL_ASSEMBLY));
  KP_OK(PetscPushErrorHandler(PetscReturnErrorHandler, nullptr));
  ierr = PetscKPDeviceMatCreate(D, PETSCKP_FORMAT_SELL, &dm);
  KP_OK(PetscPopErrorHandler());
  EXPECT_EQ((int)ierr, (int)PETSC_ERR_SUP);
  EXPECT_EQ(dm, nullptr);
  MatDestroy(&D);

  /* wrong vector sizes */
  HostCsr h = RandomCsr(10, 10, 3);
  Mat     A;
  Vec     x, y;
  CreateMat(h, &A);
  KP_OK(PetscKPDeviceMatCreate(A, PETSCKP_FORMAT_CSR, &dm));
  CreateVec(10, &x);
  CreateVec(9, &y);
  KP_OK(PetscPushErrorHandler(PetscReturnErrorHandler, nullptr));
  ierr = PetscKPDeviceMatMult(dm, x, y);
  KP_OK(PetscPopErrorHandler());
  EXPECT_EQ((int)ierr, (int)PETSC_ERR_ARG_SIZ);
  PetscKPDeviceMatDestroy(&dm);
  MatDestroy(&A);
  VecDestroy(&x);
  VecDestroy(&y);
}
