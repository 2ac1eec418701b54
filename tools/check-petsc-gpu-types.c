static const char help[] = "Checks a PETSc build's GPU vector and matrix types against its host types, operation by operation.\n\
petsckp reads and writes PETSc's GPU Vecs and Mats in place and leaves the operations between them to PETSc; when a PETSc\n\
build's GPU backend is wrong (e.g. built against Kokkos and Kokkos Kernels versions that do not work together), petsckp's\n\
solvers fail with it. This program tells the two apart.\n\
  -check_vec_type <type>  the GPU vector type, e.g. kokkos or cuda (default: the -vec_type option)\n\
  -check_mat_type <type>  the GPU matrix type, e.g. aijkokkos or aijcusparse (default: the -mat_type option)\n\
  -n <n>                  the grid is n x (n - 2), n odd (default 61)\n\
Exit status 0 when every operation agrees with the host types to 1e-10 (relative), known PETSc defects that petsckp\n\
avoids (reported) apart.\n";

/*
   Each check does the same operation on the host types (VECSTANDARD, MATAIJ) and on the GPU types, and compares the
   results on the host: Vec operations (AXPY, WAXPY, AXPBY, AXPBYPCZ, MAXPY, pointwise product, dot products and norms),
   the ghost exchange of a 2D DMDA (DMGlobalToLocal, DMLocalToGlobal with ADD_VALUES), and the matrix operations that
   PETSc's solvers and petsckp's anchors use (MatMult, MatMultTranspose(Add), MatMatMult, MatPtAP with an interpolation).
*/
#include <petscdmda.h>
#include "petsckp_compat.h" /* PETSC_SUCCESS before PETSc 3.19 */

typedef struct {
  PetscInt  nchecks, nfailed, nknown;
  PetscReal tol;
} Report;

static PetscErrorCode RecordAs(Report *r, const char what[], PetscReal err, PetscBool known)
{
  const PetscBool bad = (PetscBool)(PetscIsInfOrNanReal(err) || err > r->tol);

  PetscFunctionBeginUser;
  r->nchecks++;
  if (bad && known) r->nknown++;
  else if (bad) r->nfailed++;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-50s relative difference %9.2e  %s\n", what, (double)err, bad ? (known ? "WRONG (a known PETSc defect that petsckp avoids)" : "WRONG") : "ok"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Record(Report *r, const char what[], PetscReal err)
{
  return RecordAs(r, what, err, PETSC_FALSE);
}

/* max |a - b| / max(max |b|, tiny) over all processes, read on the host (the Vecs may have different types) */
static PetscErrorCode VecRelDiff(Vec a, Vec b, PetscReal *err)
{
  const PetscScalar *x, *y;
  PetscInt           n, nb;
  PetscReal          loc[2] = {0, 0}, glob[2];

  PetscFunctionBeginUser;
  PetscCall(VecGetLocalSize(a, &n));
  PetscCall(VecGetLocalSize(b, &nb));
  PetscCheck(n == nb, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "local sizes %" PetscInt_FMT " and %" PetscInt_FMT, n, nb);
  PetscCall(VecGetArrayRead(a, &x));
  PetscCall(VecGetArrayRead(b, &y));
  for (PetscInt i = 0; i < n; i++) {
    loc[0] = PetscMax(loc[0], PetscAbsScalar(x[i] - y[i]));
    loc[1] = PetscMax(loc[1], PetscAbsScalar(y[i]));
    if (PetscIsInfOrNanScalar(x[i])) loc[0] = PETSC_INFINITY;
  }
  PetscCall(VecRestoreArrayRead(a, &x));
  PetscCall(VecRestoreArrayRead(b, &y));
  PetscCallMPI(MPIU_Allreduce(loc, glob, 2, MPIU_REAL, MPIU_MAX, PetscObjectComm((PetscObject)a)));
  *err = glob[0] / PetscMax(glob[1], PETSC_SMALL);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Record() of the difference between the GPU-type result a and the host-type result b */
static PetscErrorCode RecordVecs(Report *r, const char what[], Vec a, Vec b)
{
  PetscReal err;

  PetscFunctionBeginUser;
  PetscCall(VecRelDiff(a, b, &err));
  PetscCall(Record(r, what, err));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscReal ScalarRelDiff(PetscScalar a, PetscScalar b)
{
  return PetscAbsScalar(a - b) / PetscMax(PetscAbsScalar(b), PETSC_SMALL);
}

/* v(i) = a smooth function of the global index, set on the host whatever the type */
static PetscErrorCode VecFill(Vec v, PetscReal k, PetscReal shift)
{
  PetscScalar *x;
  PetscInt     lo, hi;

  PetscFunctionBeginUser;
  PetscCall(VecGetOwnershipRange(v, &lo, &hi));
  PetscCall(VecGetArrayWrite(v, &x));
  for (PetscInt i = lo; i < hi; i++) x[i - lo] = PetscSinReal(k * (PetscReal)i + 0.1) + shift;
  PetscCall(VecRestoreArrayWrite(v, &x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* || A - B ||_F / || B ||_F, on host AIJ copies */
static PetscErrorCode MatRelDiff(Mat A, Mat B, PetscReal *err)
{
  Mat       Ah, Bh;
  PetscReal nd, nb;

  PetscFunctionBeginUser;
  PetscCall(MatConvert(A, MATAIJ, MAT_INITIAL_MATRIX, &Ah));
  PetscCall(MatConvert(B, MATAIJ, MAT_INITIAL_MATRIX, &Bh));
  PetscCall(MatNorm(Bh, NORM_FROBENIUS, &nb));
  PetscCall(MatAXPY(Ah, -1.0, Bh, DIFFERENT_NONZERO_PATTERN));
  PetscCall(MatNorm(Ah, NORM_FROBENIUS, &nd));
  *err = nd / PetscMax(nb, PETSC_SMALL);
  PetscCall(MatDestroy(&Ah));
  PetscCall(MatDestroy(&Bh));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckVecOps(Report *r, VecType gtype, PetscInt n)
{
  Vec         x[2], y[2], w[2], z[2], m[2][3];
  PetscScalar d[2], t[2], md[2][3];
  PetscReal   nrm[2][3], err;
  NormType    nt[3] = {NORM_1, NORM_2, NORM_INFINITY};

  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < 2; k++) {
    const VecType type = k == 0 ? VECSTANDARD : gtype;
    Vec          *v[4] = {&x[k], &y[k], &w[k], &z[k]};
    for (PetscInt j = 0; j < 4; j++) {
      PetscCall(VecCreate(PETSC_COMM_WORLD, v[j]));
      PetscCall(VecSetSizes(*v[j], PETSC_DECIDE, n));
      PetscCall(VecSetType(*v[j], type));
    }
    for (PetscInt j = 0; j < 3; j++) {
      PetscCall(VecDuplicate(x[k], &m[k][j]));
      PetscCall(VecFill(m[k][j], 0.05 * (j + 1), 0.1 * j));
    }
    PetscCall(VecFill(x[k], 0.37, 0.0));
    PetscCall(VecFill(y[k], 0.11, 0.5));
    PetscCall(VecFill(z[k], 0.23, -0.2));
    PetscCall(VecAXPY(y[k], 0.7, x[k]));
    PetscCall(VecWAXPY(w[k], -1.3, x[k], y[k]));
    PetscCall(VecAXPBY(z[k], 0.5, -0.25, w[k]));
    PetscCall(VecAXPBYPCZ(z[k], 2.0, -1.0, 0.5, x[k], y[k]));
    {
      PetscScalar a[3] = {0.3, -0.6, 1.1};
      PetscCall(VecMAXPY(z[k], 3, a, m[k]));
    }
    PetscCall(VecPointwiseMult(w[k], z[k], x[k]));
    PetscCall(VecScale(w[k], 1.5));
    PetscCall(VecDot(w[k], y[k], &d[k]));
    PetscCall(VecTDot(z[k], x[k], &t[k]));
    PetscCall(VecMDot(z[k], 3, m[k], md[k]));
    for (PetscInt j = 0; j < 3; j++) PetscCall(VecNorm(z[k], nt[j], &nrm[k][j]));
  }
  PetscCall(RecordVecs(r, "VecAXPY", y[1], y[0]));
  PetscCall(RecordVecs(r, "VecWAXPY, VecAXPBY, VecAXPBYPCZ, VecMAXPY", z[1], z[0]));
  PetscCall(RecordVecs(r, "VecPointwiseMult, VecScale", w[1], w[0]));
  PetscCall(Record(r, "VecDot", ScalarRelDiff(d[1], d[0])));
  PetscCall(Record(r, "VecTDot", ScalarRelDiff(t[1], t[0])));
  err = 0;
  for (PetscInt j = 0; j < 3; j++) err = PetscMax(err, ScalarRelDiff(md[1][j], md[0][j]));
  PetscCall(Record(r, "VecMDot", err));
  err = 0;
  for (PetscInt j = 0; j < 3; j++) err = PetscMax(err, ScalarRelDiff(nrm[1][j], nrm[0][j]));
  PetscCall(Record(r, "VecNorm (1, 2, infinity)", err));
  for (PetscInt k = 0; k < 2; k++) {
    PetscCall(VecDestroy(&x[k]));
    PetscCall(VecDestroy(&y[k]));
    PetscCall(VecDestroy(&w[k]));
    PetscCall(VecDestroy(&z[k]));
    for (PetscInt j = 0; j < 3; j++) PetscCall(VecDestroy(&m[k][j]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 5-point operator with a variable coefficient, assembled by stencil */
static PetscErrorCode FillOperator(DM da, Mat A)
{
  PetscInt xs, ys, xm, ym, mx, my;

  PetscFunctionBeginUser;
  PetscCall(DMDAGetInfo(da, NULL, &mx, &my, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  PetscCall(DMDAGetCorners(da, &xs, &ys, NULL, &xm, &ym, NULL));
  for (PetscInt j = ys; j < ys + ym; j++)
    for (PetscInt i = xs; i < xs + xm; i++) {
      MatStencil  row = {0}, col[5] = {{0}};
      PetscScalar v[5];
      PetscInt    nc = 0;
      PetscReal   c  = 1.0 + 0.5 * PetscSinReal(0.3 * i) * PetscCosReal(0.2 * j);
      row.i          = i;
      row.j          = j;
      col[nc].i      = i;
      col[nc].j      = j;
      v[nc++]        = 4.0 * c + 0.01;
      if (i > 0) col[nc].i = i - 1, col[nc].j = j, v[nc++] = -c;
      if (i < mx - 1) col[nc].i = i + 1, col[nc].j = j, v[nc++] = -c;
      if (j > 0) col[nc].i = i, col[nc].j = j - 1, v[nc++] = -c;
      if (j < my - 1) col[nc].i = i, col[nc].j = j + 1, v[nc++] = -c;
      PetscCall(MatSetValuesStencil(A, 1, &row, nc, col, v, INSERT_VALUES));
    }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatConvert() with MAT_INITIAL_MATRIX of the host interpolation to the GPU type, then A P with the new matrix. PETSc's
   conversion of MPIAIJ to MPIAIJKOKKOS converts the blocks of its input instead of the new matrix's (up to at least
   PETSc 3.25): the product then fails, and the input changed. Errors are caught and reported. */
static PetscErrorCode CheckConvertInitial(Report *r, Mat A, Mat Ph, MatType gmtype, Mat APref)
{
  Mat            Pin, P = NULL, AP = NULL, Ad, Ao;
  PetscErrorCode ierr;
  PetscReal      err = PETSC_INFINITY;
  PetscBool      mpi, seqblocks = PETSC_TRUE;

  PetscFunctionBeginUser;
  PetscCall(MatDuplicate(Ph, MAT_COPY_VALUES, &Pin));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MatConvert(Pin, gmtype, MAT_INITIAL_MATRIX, &P);
  if (!ierr) ierr = MatMatMult(A, P, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &AP);
  PetscCall(PetscPopErrorHandler());
  if (!ierr) PetscCall(MatRelDiff(AP, APref, &err));
  PetscCall(RecordAs(r, "MatConvert (MAT_INITIAL_MATRIX), MatMatMult", err, PETSC_TRUE));
  if (ierr) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "    (PETSc error %d in the conversion or the product)\n", (int)ierr));
  PetscCall(PetscObjectTypeCompare((PetscObject)Pin, MATMPIAIJ, &mpi));
  if (mpi) {
    PetscCall(MatMPIAIJGetSeqAIJ(Pin, &Ad, &Ao, NULL));
    PetscCall(PetscObjectTypeCompare((PetscObject)Ad, MATSEQAIJ, &seqblocks));
  }
  PetscCall(RecordAs(r, "MatConvert (MAT_INITIAL_MATRIX) leaves its input", seqblocks ? 0.0 : PETSC_INFINITY, PETSC_TRUE));
  if (!ierr) { /* after an error, the matrices PETSc left are not destroyed: that may fail too */
    PetscCall(MatDestroy(&AP));
    PetscCall(MatDestroy(&P));
  }
  PetscCall(MatDestroy(&Pin));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* z = y + A^T x into a z that held 7 (z != y). PETSc's aijcusparse without an explicit transpose (MatMultAddKernel_
   SeqAIJCUSPARSE with trans: beta = 1 whenever y is given, then z += y) returns z_old + y + A^T x, i.e. the GPU result
   minus the host result is 7 everywhere: reported as that defect. petsckp never calls MatMultTranspose(Add); the
   option -mat_form_explicit_transpose (MAT_FORM_EXPLICIT_TRANSPOSE) avoids it, and PCMG/GAMG call it only with z == y. */
static PetscErrorCode CheckMultTransposeAdd(Report *r, Vec cg, Vec ch, MatType gmtype)
{
  PetscReal err, erro;
  Vec       t;

  PetscFunctionBeginUser;
  PetscCall(VecRelDiff(cg, ch, &err));
  if (PetscIsInfOrNanReal(err) || err > r->tol) {
    PetscCall(VecDuplicate(ch, &t));
    PetscCall(VecCopy(ch, t));
    PetscCall(VecShift(t, 7.0));
    PetscCall(VecRelDiff(cg, t, &erro));
    PetscCall(VecDestroy(&t));
    if (erro <= r->tol) {
      PetscCall(RecordAs(r, "MatMultTransposeAdd (z != y): adds the old z", err, PETSC_TRUE));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "    (%s without an explicit transpose; -mat_form_explicit_transpose avoids it)\n", gmtype));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  PetscCall(Record(r, "MatMultTransposeAdd", err));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckDMAndMat(Report *r, VecType gvtype, MatType gmtype, PetscInt n)
{
  DM        da[2], dc;
  Vec       g[2], l[2], b[2], c[2], d[2], yv[2];
  Mat       A[2], P[2], AP[2], PtAP[2], Ph;
  PetscReal err;

  PetscFunctionBeginUser;
  PetscCall(DMDACreate2d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_BOX, n, n - 2, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, &da[0]));
  PetscCall(DMSetFromOptions(da[0]));
  PetscCall(DMSetUp(da[0]));
  PetscCall(DMClone(da[0], &da[1]));
  PetscCall(DMSetVecType(da[0], VECSTANDARD));
  PetscCall(DMSetMatType(da[0], MATAIJ));
  PetscCall(DMSetVecType(da[1], gvtype));
  PetscCall(DMSetMatType(da[1], gmtype));
  /* the coarse grid of a factor-2 interpolation (n odd: the grids are nested) */
  PetscCall(DMCoarsen(da[0], PETSC_COMM_WORLD, &dc));
  PetscCall(DMSetVecType(dc, VECSTANDARD));
  PetscCall(DMSetMatType(dc, MATAIJ));
  PetscCall(DMCreateInterpolation(dc, da[0], &Ph, NULL));
  for (PetscInt k = 0; k < 2; k++) {
    PetscCall(DMCreateGlobalVector(da[k], &g[k]));
    PetscCall(DMCreateLocalVector(da[k], &l[k]));
    PetscCall(VecDuplicate(g[k], &b[k]));
    PetscCall(VecDuplicate(g[k], &c[k]));
    PetscCall(VecDuplicate(g[k], &d[k]));
    PetscCall(VecDuplicate(g[k], &yv[k]));
    PetscCall(VecFill(g[k], 0.013, 1.0));
    PetscCall(DMGlobalToLocalBegin(da[k], g[k], INSERT_VALUES, l[k]));
    PetscCall(DMGlobalToLocalEnd(da[k], g[k], INSERT_VALUES, l[k]));
    PetscCall(VecSet(b[k], 0.0));
    PetscCall(DMLocalToGlobalBegin(da[k], l[k], ADD_VALUES, b[k]));
    PetscCall(DMLocalToGlobalEnd(da[k], l[k], ADD_VALUES, b[k]));
    PetscCall(DMCreateMatrix(da[k], &A[k]));
    PetscCall(FillOperator(da[k], A[k]));
    PetscCall(MatMult(A[k], g[k], yv[k]));
    PetscCall(MatMultTranspose(A[k], yv[k], d[k]));
    PetscCall(VecSet(c[k], 7.0)); /* old values of the output, which MatMultTransposeAdd overwrites */
    PetscCall(MatMultTransposeAdd(A[k], yv[k], g[k], c[k]));
    if (k == 0) PetscCall(PetscObjectReference((PetscObject)Ph));
    if (k == 0) P[k] = Ph;
    else {
      /* a copy converted in place: see CheckConvertInitial() */
      PetscCall(MatDuplicate(Ph, MAT_COPY_VALUES, &P[k]));
      PetscCall(MatConvert(P[k], gmtype, MAT_INPLACE_MATRIX, &P[k]));
    }
    PetscCall(MatMatMult(A[k], P[k], MAT_INITIAL_MATRIX, PETSC_DETERMINE, &AP[k]));
    PetscCall(MatPtAP(A[k], P[k], MAT_INITIAL_MATRIX, PETSC_DETERMINE, &PtAP[k]));
  }
  PetscCall(RecordVecs(r, "DMGlobalToLocal (2D DMDA, box stencil)", l[1], l[0]));
  PetscCall(RecordVecs(r, "MatMult", yv[1], yv[0]));
  PetscCall(RecordVecs(r, "DMLocalToGlobal (ADD_VALUES)", b[1], b[0]));
  PetscCall(RecordVecs(r, "MatMultTranspose", d[1], d[0]));
  PetscCall(CheckMultTransposeAdd(r, c[1], c[0], gmtype));
  PetscCall(MatRelDiff(AP[1], AP[0], &err));
  PetscCall(Record(r, "MatMatMult (A P)", err));
  PetscCall(MatRelDiff(PtAP[1], PtAP[0], &err));
  PetscCall(Record(r, "MatPtAP", err));
  PetscCall(CheckConvertInitial(r, A[1], Ph, gmtype, AP[0]));
  for (PetscInt k = 0; k < 2; k++) {
    PetscCall(VecDestroy(&g[k]));
    PetscCall(VecDestroy(&l[k]));
    PetscCall(VecDestroy(&b[k]));
    PetscCall(VecDestroy(&c[k]));
    PetscCall(VecDestroy(&d[k]));
    PetscCall(VecDestroy(&yv[k]));
    PetscCall(MatDestroy(&A[k]));
    PetscCall(MatDestroy(&P[k]));
    PetscCall(MatDestroy(&AP[k]));
    PetscCall(MatDestroy(&PtAP[k]));
    PetscCall(DMDestroy(&da[k]));
  }
  PetscCall(MatDestroy(&Ph));
  PetscCall(DMDestroy(&dc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char        vtype[64] = VECSTANDARD, mtype[64] = MATAIJ;
  PetscInt    n         = 61;
  PetscMPIInt size;
  Report      r = {0, 0, 0, 1e-10};

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-vec_type", vtype, sizeof(vtype), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-mat_type", mtype, sizeof(mtype), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-check_vec_type", vtype, sizeof(vtype), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-check_mat_type", mtype, sizeof(mtype), NULL));
  /* the types are given to the GPU objects explicitly: -mat_type left in the database would make DMCreateMatrix() of
     the host DMDA (MatSetFromOptions()) a GPU matrix beside its host vectors, whose products PETSc's optimized builds
     do not check (a segmentation fault, not a comparison) */
  PetscCall(PetscOptionsClearValue(NULL, "-vec_type"));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_type"));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCheck(n >= 7 && n % 2 == 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-n %" PetscInt_FMT ": give an odd n >= 7", n);
  {
    PetscBool hostv, hostm;
    PetscCall(PetscStrcmp(vtype, VECSTANDARD, &hostv));
    PetscCall(PetscStrcmp(mtype, MATAIJ, &hostm));
    PetscCheck(!hostv || !hostm, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "Nothing to check: give the GPU types with -check_vec_type (e.g. kokkos, cuda) and -check_mat_type (aijkokkos, aijcusparse)");
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "PETSc's %s and %s against %s and %s (%d processes, grid %" PetscInt_FMT " x %" PetscInt_FMT "):\n", vtype, mtype, VECSTANDARD, MATAIJ, size, n, n - 2));
  PetscCall(CheckVecOps(&r, vtype, n * (n - 2)));
  PetscCall(CheckDMAndMat(&r, vtype, mtype, n));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %" PetscInt_FMT " of %" PetscInt_FMT " operations differ from the host types (and %" PetscInt_FMT " known PETSc defects that petsckp avoids)\n", r.nfailed ? "BROKEN" : "OK", r.nfailed, r.nchecks, r.nknown));
  PetscCall(PetscFinalize());
  return r.nfailed ? 1 : 0;
}
