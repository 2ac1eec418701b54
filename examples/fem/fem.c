static char help[] = "Poisson's equation -laplace u = f with u = 0 on the boundary, P1 finite elements on a DMPlex triangle mesh:\n\
the 2D test meshes of Wang, Hu, Cohen and Xu, \"A parallel auxiliary grid algebraic multigrid method for graphic\n\
processing units\" (SIAM J. Sci. Comput. 35(3), 2013, Section 5.2). The example writes the base mesh as a Gmsh\n\
(format 2.2) file, reads it with DMPlexCreateGmshFromFile, distributes it and refines it uniformly (DMRefine);\n\
Dirichlet vertices are constrained in the PetscSection, so that the unknowns are the interior vertices, as in the\n\
paper. The exact solution is manufactured; the example checks that the nodal error is O(h^2).\n\n\
Options:\n\
  -mesh <uniform|quasiuniform|graded|disk> : the base mesh (default quasiuniform):\n\
       uniform      : (0,1)^2, base_n x base_n squares cut into right triangles (all diagonals alike)\n\
       quasiuniform : (0,1)^2, Delaunay triangulation of 15 interior and 16 boundary vertices (4 segments a side)\n\
       graded       : (0,1)^2, Delaunay triangulation of 40 interior and 26 boundary vertices graded towards (0,0)\n\
                      by p -> p |p|_inf^(grading - 1)\n\
       disk         : unit disk, disk_rings rings of 6i vertices around the centre; the boundary vertices of each\n\
                      refinement are projected onto the circle\n\
  -refine <n>         : uniform refinements of the base mesh (default 3)\n\
  -base_n <n>         : squares per side of the uniform base mesh (default 2)\n\
  -disk_rings <m>     : rings of the disk's base mesh (default 4)\n\
  -grading <a>        : grading exponent of the graded mesh, >= 1 (default 2; 1: quasi-uniform)\n\
  -coordinates <pc|dm> : pc: PCSetCoordinates with the vertex coordinates of the unknowns (default); dm: the PC\n\
                        gets the DMPlex (KSPSetDM, not active) and takes the coordinates from it\n\
  -mesh_out <file>    : keep the base mesh in this Gmsh file (default: a temporary file, removed)\n\
  -error_bound <c>    : fail unless max |u - u_h| <= c h^2, h the longest edge (default 2)\n\
  -max_its_expected <m> : fail if the solver needs more iterations (default: no check)\n\
  -print_times        : print the wall-clock times of KSPSetUp and KSPSolve (device synchronised; Kokkos and the device\n\
                        initialised before)\n\
  -solver_view        : KSPView after the timed solve (e.g. the levels and complexities of the multigrid)\n\
  -extra_solvers <p1_,p2_,...> : then solve the same system with the KSPs of these options prefixes (e.g.\n\
                        -p1_ksp_type cg -p1_pc_type gamg), each timed and in its own -log_view stage, the mesh made once\n\n\
The default solver is CG with rtol 1e-10; e.g. -ksp_type fcg -pc_type uaamg for the auxiliary-grid AMG.\n\n";

#include <petscdmplex.h>
#include <petscsf.h>
#include <petscksp.h>
#include <petsckp.h>
#include <unistd.h>

typedef enum {
  MESH_UNIFORM,
  MESH_QUASIUNIFORM,
  MESH_GRADED,
  MESH_DISK
} MeshType;
static const char *const MeshTypes[] = {"uniform", "quasiuniform", "graded", "disk", "MeshType", "MESH_", NULL};

/* ---- base meshes (points and triangles, on rank 0) */
typedef struct {
  PetscInt   nv, nt, nb; /* vertices, triangles, boundary vertices */
  PetscReal *x;          /* 2 nv coordinates */
  PetscInt  *t;          /* 3 nt vertex numbers, counter-clockwise */
} BaseMesh;

/* deterministic jitter in [-1, 1] */
static PetscReal Jitter(PetscInt k)
{
  PetscReal s = PetscSinReal(12.9898 * (PetscReal)(k + 1) + 78.233) * 43758.5453;
  return 2.0 * (s - PetscFloorReal(s)) - 1.0;
}

static PetscReal Orient(const PetscReal *a, const PetscReal *b, const PetscReal *c)
{
  return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
}

/* > 0 when d lies inside the circumcircle of the counter-clockwise triangle (a, b, c) */
static PetscReal InCircle(const PetscReal *a, const PetscReal *b, const PetscReal *c, const PetscReal *d)
{
  PetscReal adx = a[0] - d[0], ady = a[1] - d[1], bdx = b[0] - d[0], bdy = b[1] - d[1], cdx = c[0] - d[0], cdy = c[1] - d[1];
  PetscReal ad = adx * adx + ady * ady, bd = bdx * bdx + bdy * bdy, cd = cdx * cdx + cdy * cdy;

  return adx * (bdy * cd - bd * cdy) - ady * (bdx * cd - bd * cdx) + ad * (bdx * cdy - bdy * cdx);
}

/* Bowyer-Watson Delaunay triangulation of the m->nv points in m->x (a convex domain whose boundary vertices are
   among the points); small point sets only (quadratic cost) */
static PetscErrorCode Delaunay(BaseMesh *m)
{
  PetscInt   n = m->nv, cap = 8 * (n + 3) + 16, nt = 0, *tri, *alive, *edge, ne;
  PetscReal *p;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc4(2 * (n + 3), &p, 3 * cap, &tri, cap, &alive, 6 * cap, &edge));
  PetscCall(PetscArraycpy(p, m->x, 2 * n));
  /* super triangle far outside the domain */
  p[2 * n] = -1e3, p[2 * n + 1] = -1e3, p[2 * n + 2] = 1e3, p[2 * n + 3] = -1e3, p[2 * n + 4] = 0, p[2 * n + 5] = 1e3;
  tri[0] = n, tri[1] = n + 1, tri[2] = n + 2, alive[0] = 1, nt = 1;
  for (PetscInt k = 0; k < n; k++) {
    ne = 0;
    for (PetscInt t = 0; t < nt; t++) {
      if (!alive[t] || InCircle(&p[2 * tri[3 * t]], &p[2 * tri[3 * t + 1]], &p[2 * tri[3 * t + 2]], &p[2 * k]) <= 0) continue;
      alive[t] = 0;
      for (PetscInt e = 0; e < 3; e++) { /* an edge shared by two removed triangles is interior to the cavity */
        PetscInt a = tri[3 * t + e], b = tri[3 * t + (e + 1) % 3], dup = -1;
        for (PetscInt f = 0; f < ne; f++)
          if (edge[2 * f] == b && edge[2 * f + 1] == a) dup = f;
        if (dup >= 0) {
          edge[2 * dup] = edge[2 * (ne - 1)], edge[2 * dup + 1] = edge[2 * (ne - 1) + 1];
          ne--;
        } else edge[2 * ne] = a, edge[2 * ne + 1] = b, ne++;
      }
    }
    for (PetscInt f = 0; f < ne; f++) {
      PetscCheck(nt < cap, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Delaunay: triangle storage exhausted");
      tri[3 * nt] = edge[2 * f], tri[3 * nt + 1] = edge[2 * f + 1], tri[3 * nt + 2] = k, alive[nt++] = 1;
    }
  }
  m->nt = 0;
  PetscCall(PetscMalloc1(3 * nt, &m->t));
  for (PetscInt t = 0; t < nt; t++) {
    if (!alive[t] || tri[3 * t] >= n || tri[3 * t + 1] >= n || tri[3 * t + 2] >= n) continue;
    PetscCheck(Orient(&p[2 * tri[3 * t]], &p[2 * tri[3 * t + 1]], &p[2 * tri[3 * t + 2]]) > 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Delaunay: a degenerate triangle");
    for (PetscInt e = 0; e < 3; e++) m->t[3 * m->nt + e] = tri[3 * t + e];
    m->nt++;
  }
  PetscCall(PetscFree4(p, tri, alive, edge));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* (0,1)^2: k boundary points on [0,1] per side (corners included once), points listed counter-clockwise */
static void SquareBoundary(const PetscInt nside[4], PetscReal alpha, PetscReal *x, PetscInt *nb)
{
  /* sides: bottom (graded towards x = 0 when alpha > 1), right, top (reversed), left (graded towards y = 0) */
  PetscInt b = 0;

  for (PetscInt s = 0; s < 4; s++)
    for (PetscInt i = 0; i < nside[s]; i++) {
      PetscReal t = (PetscReal)i / nside[s];
      switch (s) {
      case 0:
        x[2 * b] = PetscPowReal(t, alpha), x[2 * b + 1] = 0;
        break;
      case 1:
        x[2 * b] = 1, x[2 * b + 1] = t;
        break;
      case 2:
        x[2 * b] = 1 - t, x[2 * b + 1] = 1;
        break;
      default:
        x[2 * b] = 0, x[2 * b + 1] = PetscPowReal(1 - t, alpha);
      }
      b++;
    }
  *nb = b;
}

static PetscErrorCode BaseMeshCreate(MeshType type, PetscInt base_n, PetscInt rings, PetscReal grading, BaseMesh *m)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(m, sizeof(*m)));
  switch (type) {
  case MESH_UNIFORM: {
    PetscInt n = base_n, np = n + 1;

    m->nv = np * np, m->nt = 2 * n * n, m->nb = 4 * n;
    PetscCall(PetscMalloc1(2 * m->nv, &m->x));
    PetscCall(PetscMalloc1(3 * m->nt, &m->t));
    for (PetscInt j = 0; j < np; j++)
      for (PetscInt i = 0; i < np; i++) m->x[2 * (j * np + i)] = (PetscReal)i / n, m->x[2 * (j * np + i) + 1] = (PetscReal)j / n;
    for (PetscInt j = 0, t = 0; j < n; j++)
      for (PetscInt i = 0; i < n; i++, t += 2) { /* diagonal from (i, j) to (i + 1, j + 1) */
        PetscInt v00 = j * np + i, v10 = v00 + 1, v01 = v00 + np, v11 = v01 + 1;
        m->t[3 * t] = v00, m->t[3 * t + 1] = v10, m->t[3 * t + 2] = v11;
        m->t[3 * t + 3] = v00, m->t[3 * t + 4] = v11, m->t[3 * t + 5] = v01;
      }
  } break;
  case MESH_QUASIUNIFORM:
  case MESH_GRADED: {
    /* quasi-uniform: 16 boundary vertices (4 segments a side) and 15 interior vertices in 5 staggered rows of 3;
       graded: 26 boundary and 40 interior vertices (8 staggered rows of 5) mapped by p -> p |p|_inf^(alpha - 1),
       which keeps the square and concentrates the vertices towards (0, 0) */
    PetscBool graded = type == MESH_GRADED ? PETSC_TRUE : PETSC_FALSE;
    PetscInt  qside[4] = {4, 4, 4, 4}, gside[4] = {7, 6, 6, 7}, rows = graded ? 8 : 5, cols = graded ? 5 : 3, nb;
    PetscReal alpha = graded ? grading : 1.0;
    BaseMesh  tmp;

    m->nv = 4 * 4 + 15;
    if (graded) m->nv = 26 + 40;
    PetscCall(PetscMalloc1(2 * m->nv, &m->x));
    SquareBoundary(graded ? gside : qside, alpha, m->x, &nb);
    m->nb = nb;
    for (PetscInt r = 0, v = nb; r < rows; r++)
      for (PetscInt c = 0; c < cols; c++, v++) {
        PetscReal x = (c + 0.5 + ((r % 2) ? 0.25 : -0.25)) / cols, y = (r + 1.0) / (rows + 1);
        x += 0.05 / cols * Jitter(2 * v), y += 0.05 / (rows + 1) * Jitter(2 * v + 1);
        if (graded) {
          PetscReal s = PetscPowReal(PetscMax(x, y), alpha - 1);
          x *= s, y *= s;
        }
        m->x[2 * v] = x, m->x[2 * v + 1] = y;
      }
    tmp = *m;
    PetscCall(Delaunay(&tmp));
    m->t  = tmp.t;
    m->nt = tmp.nt;
  } break;
  case MESH_DISK: {
    /* vertex 0 is the centre; ring i (1..rings) has 6 i vertices at radius i / rings; each of the 6 sectors of ring
       i holds i triangles pointing inwards and i - 1 pointing outwards */
    PetscInt m6 = rings, t = 0;

    m->nv = 1 + 3 * m6 * (m6 + 1), m->nt = 6 * m6 * m6, m->nb = 6 * m6;
    PetscCall(PetscMalloc1(2 * m->nv, &m->x));
    PetscCall(PetscMalloc1(3 * m->nt, &m->t));
    m->x[0] = m->x[1] = 0;
    for (PetscInt i = 1; i <= m6; i++) {
      PetscInt first = 1 + 3 * i * (i - 1), prev = i > 1 ? 1 + 3 * (i - 1) * (i - 2) : 0;
      for (PetscInt k = 0; k < 6 * i; k++) {
        PetscReal a = 2 * PETSC_PI * k / (6 * i), r = (PetscReal)i / m6;
        m->x[2 * (first + k)] = r * PetscCosReal(a), m->x[2 * (first + k) + 1] = r * PetscSinReal(a);
      }
      for (PetscInt s = 0; s < 6; s++) {
        for (PetscInt j = 0; j < i; j++) {
          PetscInt o0 = first + (s * i + j) % (6 * i), o1 = first + (s * i + j + 1) % (6 * i);
          PetscInt in = i > 1 ? prev + (s * (i - 1) + j) % (6 * (i - 1)) : 0;
          m->t[3 * t] = in, m->t[3 * t + 1] = o0, m->t[3 * t + 2] = o1, t++;
          if (j < i - 1) {
            PetscInt in1 = prev + (s * (i - 1) + j + 1) % (6 * (i - 1));
            m->t[3 * t] = in, m->t[3 * t + 1] = o1, m->t[3 * t + 2] = in1, t++;
          }
        }
      }
    }
    PetscCheck(t == m->nt, PETSC_COMM_SELF, PETSC_ERR_PLIB, "disk mesh: %" PetscInt_FMT " triangles, expected %" PetscInt_FMT, t, m->nt);
  } break;
  }
  /* a triangulation of a simply connected domain: nt = 2 nv - nb - 2, all triangles counter-clockwise */
  PetscCheck(m->nt == 2 * m->nv - m->nb - 2, PETSC_COMM_SELF, PETSC_ERR_PLIB, "base mesh has %" PetscInt_FMT " triangles, not 2 V - B - 2 = %" PetscInt_FMT, m->nt, 2 * m->nv - m->nb - 2);
  for (PetscInt t = 0; t < m->nt; t++)
    PetscCheck(Orient(&m->x[2 * m->t[3 * t]], &m->x[2 * m->t[3 * t + 1]], &m->x[2 * m->t[3 * t + 2]]) > 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "base mesh triangle %" PetscInt_FMT " is not counter-clockwise", t);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Gmsh 2.2 ASCII: nodes and 3-node triangles (element type 2) with physical and elementary tag 1 */
static PetscErrorCode BaseMeshWriteGmsh(const BaseMesh *m, const char *file)
{
  FILE *fp;

  PetscFunctionBeginUser;
  PetscCall(PetscFOpen(PETSC_COMM_SELF, file, "w", &fp));
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n%" PetscInt_FMT "\n", m->nv));
  for (PetscInt v = 0; v < m->nv; v++) PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "%" PetscInt_FMT " %.17g %.17g 0\n", v + 1, (double)m->x[2 * v], (double)m->x[2 * v + 1]));
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "$EndNodes\n$Elements\n%" PetscInt_FMT "\n", m->nt));
  for (PetscInt t = 0; t < m->nt; t++) PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "%" PetscInt_FMT " 2 2 1 1 %" PetscInt_FMT " %" PetscInt_FMT " %" PetscInt_FMT "\n", t + 1, m->t[3 * t] + 1, m->t[3 * t + 1] + 1, m->t[3 * t + 2] + 1));
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "$EndElements\n"));
  PetscCall(PetscFClose(PETSC_COMM_SELF, fp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- manufactured solutions: sin(pi x) sin(pi y) on the square, (1 - r^2)(1 + x y) on the unit disk */
static PetscReal Exact(MeshType type, const PetscReal *x)
{
  if (type == MESH_DISK) return (1 - x[0] * x[0] - x[1] * x[1]) * (1 + x[0] * x[1]);
  return PetscSinReal(PETSC_PI * x[0]) * PetscSinReal(PETSC_PI * x[1]);
}

static PetscReal Rhs(MeshType type, const PetscReal *x)
{
  if (type == MESH_DISK) return 4 + 12 * x[0] * x[1];
  return 2 * PETSC_PI * PETSC_PI * PetscSinReal(PETSC_PI * x[0]) * PetscSinReal(PETSC_PI * x[1]);
}

/* the boundary faces and vertices of the serial base mesh: the label "dirichlet" (value 1) goes with the mesh through
   DMPlexDistribute and DMRefine (new points inherit the label of their parent), whereas marking faces of one support
   on a distributed mesh would also catch the faces between ranks */
static PetscErrorCode MarkBoundary(DM dm)
{
  DMLabel label;

  PetscFunctionBeginUser;
  PetscCall(DMCreateLabel(dm, "dirichlet"));
  PetscCall(DMGetLabel(dm, "dirichlet", &label));
  PetscCall(DMPlexMarkBoundaryFaces(dm, 1, label));
  PetscCall(DMPlexLabelComplete(dm, label));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the disk: move the boundary vertices of a refined mesh onto the unit circle */
static PetscErrorCode ProjectBoundaryToCircle(DM dm)
{
  DMLabel      label;
  Vec          cl;
  PetscSection cs;
  PetscScalar *c;
  PetscInt     vStart, vEnd;

  PetscFunctionBeginUser;
  PetscCall(DMGetLabel(dm, "dirichlet", &label));
  PetscCall(DMPlexGetDepthStratum(dm, 0, &vStart, &vEnd));
  PetscCall(DMGetCoordinatesLocal(dm, &cl));
  PetscCall(DMGetCoordinateSection(dm, &cs));
  PetscCall(VecGetArray(cl, &c));
  for (PetscInt v = vStart; v < vEnd; v++) {
    PetscInt  val, off;
    PetscReal r;

    PetscCall(DMLabelGetValue(label, v, &val));
    if (val != 1) continue;
    PetscCall(PetscSectionGetOffset(cs, v, &off));
    r = PetscSqrtReal(PetscSqr(PetscRealPart(c[off])) + PetscSqr(PetscRealPart(c[off + 1])));
    c[off] /= r, c[off + 1] /= r;
  }
  PetscCall(VecRestoreArray(cl, &c));
  PetscCall(DMSetCoordinatesLocal(dm, cl));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The P1 matrix, preallocated from the mesh: an interior vertex couples to the vertices at the other end of its edges
   (DMCreateMatrix's general adjacency computation takes longer than the solve on the paper's meshes). A vertex on the
   boundary between ranks has edges on both: the counts are summed to the owner over the point SF (an upper bound) */
static PetscErrorCode CreateMatrix(DM dm, Vec u, Mat *A)
{
  PetscSection gs;
  PetscSF      sf;
  PetscInt     pStart, pEnd, vStart, vEnd, rstart, nloc, N, *dnnz, *onnz, *lcnt, *rcnt;

  PetscFunctionBeginUser;
  PetscCall(DMGetGlobalSection(dm, &gs));
  PetscCall(DMGetPointSF(dm, &sf));
  PetscCall(DMPlexGetChart(dm, &pStart, &pEnd));
  PetscCall(DMPlexGetDepthStratum(dm, 0, &vStart, &vEnd));
  PetscCall(VecGetOwnershipRange(u, &rstart, NULL));
  PetscCall(VecGetLocalSize(u, &nloc));
  PetscCall(VecGetSize(u, &N));
  PetscCall(PetscCalloc4(nloc + 1, &dnnz, nloc + 1, &onnz, pEnd - pStart, &lcnt, pEnd - pStart, &rcnt));
  for (PetscInt v = vStart; v < vEnd; v++) {
    PetscCall(DMPlexGetSupportSize(dm, v, &lcnt[v - pStart]));
    rcnt[v - pStart] = lcnt[v - pStart];
  }
  PetscCall(PetscSFReduceBegin(sf, MPIU_INT, lcnt, rcnt, MPI_SUM));
  PetscCall(PetscSFReduceEnd(sf, MPIU_INT, lcnt, rcnt, MPI_SUM));
  for (PetscInt v = vStart; v < vEnd; v++) {
    PetscInt dof, cdof, off, nedges = rcnt[v - pStart];

    PetscCall(PetscSectionGetDof(gs, v, &dof));
    PetscCall(PetscSectionGetConstraintDof(gs, v, &cdof));
    PetscCall(PetscSectionGetOffset(gs, v, &off));
    if (dof - cdof <= 0 || off < 0) continue;
    PetscCheck(off >= rstart && off < rstart + nloc, PETSC_COMM_SELF, PETSC_ERR_PLIB, "vertex %" PetscInt_FMT ": global offset %" PetscInt_FMT " is not owned", v, off);
    dnnz[off - rstart] = PetscMin(1 + nedges, nloc), onnz[off - rstart] = PetscMin(nedges, N - nloc);
  }
  PetscCall(MatCreate(PetscObjectComm((PetscObject)dm), A));
  PetscCall(MatSetSizes(*A, nloc, nloc, N, N));
  PetscCall(MatSetType(*A, MATAIJ));
  PetscCall(MatSetFromOptions(*A));
  PetscCall(MatXAIJSetPreallocation(*A, 1, dnnz, onnz, NULL, NULL));
  PetscCall(PetscFree4(dnnz, onnz, lcnt, rcnt));
  PetscCall(MatSetOption(*A, MAT_SPD, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* P1 stiffness matrix and load vector (edge-midpoint quadrature, exact for quadratics) over the local cells */
static PetscErrorCode Assemble(DM dm, MeshType type, Mat A, Vec b, PetscReal *hmax)
{
  PetscInt     cStart, cEnd;
  Vec          cl, bl;
  DM           cdm;
  PetscSection cs;
  PetscReal    h = 0;

  PetscFunctionBeginUser;
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  PetscCall(DMGetCoordinatesLocal(dm, &cl));
  PetscCall(DMGetCoordinateDM(dm, &cdm));
  PetscCall(DMGetLocalSection(cdm, &cs));
  PetscCall(DMGetLocalVector(dm, &bl));
  PetscCall(VecZeroEntries(bl));
  for (PetscInt c = cStart; c < cEnd; c++) {
    PetscScalar *xc = NULL, K[9], F[3];
    PetscInt     nx;
    PetscReal    x[3][2], g[3][2], det, mid[3][2];

    PetscCall(DMPlexVecGetClosure(cdm, cs, cl, c, &nx, &xc));
    /* 3 vertices with 2 coordinates, or 3 when the reader embeds the mesh in 3D (z = 0) */
    PetscCheck(nx == 6 || nx == 9, PETSC_COMM_SELF, PETSC_ERR_SUP, "cell %" PetscInt_FMT " is not a triangle in the plane (%" PetscInt_FMT " coordinates)", c, nx);
    for (PetscInt i = 0; i < 3; i++) x[i][0] = PetscRealPart(xc[nx / 3 * i]), x[i][1] = PetscRealPart(xc[nx / 3 * i + 1]);
    PetscCall(DMPlexVecRestoreClosure(cdm, cs, cl, c, &nx, &xc));
    det = (x[1][0] - x[0][0]) * (x[2][1] - x[0][1]) - (x[1][1] - x[0][1]) * (x[2][0] - x[0][0]);
    /* gradients of the barycentric coordinates: grad l_i = rot(x_{i+2} - x_{i+1}) / det */
    for (PetscInt i = 0; i < 3; i++) {
      PetscInt j = (i + 1) % 3, k = (i + 2) % 3;
      g[i][0] = (x[j][1] - x[k][1]) / det, g[i][1] = (x[k][0] - x[j][0]) / det;
      mid[i][0] = 0.5 * (x[j][0] + x[k][0]), mid[i][1] = 0.5 * (x[j][1] + x[k][1]); /* opposite vertex i */
      h = PetscMax(h, PetscSqrtReal(PetscSqr(x[j][0] - x[k][0]) + PetscSqr(x[j][1] - x[k][1])));
    }
    for (PetscInt i = 0; i < 3; i++) {
      PetscInt j = (i + 1) % 3, k = (i + 2) % 3;
      for (PetscInt l = 0; l < 3; l++) K[3 * i + l] = 0.5 * PetscAbsReal(det) * (g[i][0] * g[l][0] + g[i][1] * g[l][1]);
      /* phi_i is 1/2 at the midpoints of the two edges through vertex i, 0 at the third */
      F[i] = PetscAbsReal(det) / 6.0 * 0.5 * (Rhs(type, mid[j]) + Rhs(type, mid[k]));
    }
    PetscCall(DMPlexMatSetClosure(dm, NULL, NULL, A, c, K, ADD_VALUES));
    PetscCall(DMPlexVecSetClosure(dm, NULL, bl, c, F, ADD_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(VecZeroEntries(b));
  PetscCall(DMLocalToGlobalBegin(dm, bl, ADD_VALUES, b));
  PetscCall(DMLocalToGlobalEnd(dm, bl, ADD_VALUES, b));
  PetscCall(DMRestoreLocalVector(dm, &bl));
  PetscCall(MPIU_Allreduce(&h, hmax, 1, MPIU_REAL, MPIU_MAX, PetscObjectComm((PetscObject)dm)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the coordinates of the owned unknowns (interlaced, in the order of the global vector) and the exact solution there */
static PetscErrorCode UnknownCoordinates(DM dm, MeshType type, PetscReal **coords, Vec u)
{
  PetscSection gs, cs;
  Vec          cl;
  PetscInt     vStart, vEnd, rstart, nloc;
  PetscScalar *ua;
  const PetscScalar *c;

  PetscFunctionBeginUser;
  PetscCall(DMGetGlobalSection(dm, &gs));
  PetscCall(DMGetCoordinateSection(dm, &cs));
  PetscCall(DMGetCoordinatesLocal(dm, &cl));
  PetscCall(DMPlexGetDepthStratum(dm, 0, &vStart, &vEnd));
  PetscCall(VecGetOwnershipRange(u, &rstart, NULL));
  PetscCall(VecGetLocalSize(u, &nloc));
  PetscCall(PetscMalloc1(2 * nloc + 1, coords));
  PetscCall(VecGetArrayRead(cl, &c));
  PetscCall(VecGetArray(u, &ua));
  for (PetscInt v = vStart; v < vEnd; v++) {
    PetscInt  dof, cdof, off, coff;
    PetscReal x[2];

    PetscCall(PetscSectionGetDof(gs, v, &dof));
    PetscCall(PetscSectionGetConstraintDof(gs, v, &cdof));
    PetscCall(PetscSectionGetOffset(gs, v, &off));
    if (dof - cdof <= 0 || off < 0) continue; /* Dirichlet vertex, or owned by another rank */
    PetscCall(PetscSectionGetOffset(cs, v, &coff));
    x[0] = PetscRealPart(c[coff]), x[1] = PetscRealPart(c[coff + 1]);
    off -= rstart;
    PetscCheck(off >= 0 && off < nloc, PETSC_COMM_SELF, PETSC_ERR_PLIB, "vertex %" PetscInt_FMT " has local offset %" PetscInt_FMT " outside [0, %" PetscInt_FMT ")", v, off, nloc);
    (*coords)[2 * off] = x[0], (*coords)[2 * off + 1] = x[1];
    ua[off] = Exact(type, x);
  }
  PetscCall(VecRestoreArray(u, &ua));
  PetscCall(VecRestoreArrayRead(cl, &c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  MPI_Comm           comm;
  PetscMPIInt        rank, size;
  DM                 dm, dmd;
  DMLabel            label;
  PetscSection       s;
  Mat                A;
  Vec                u, uh, b;
  KSP                ksp;
  PC                 pc;
  MeshType           type = MESH_QUASIUNIFORM;
  PetscInt           refine = 3, base_n = 2, rings = 4, pStart, pEnd, vStart, vEnd, N, its, maxits = -1, nloc;
  PetscReal          hmax, err, bound = 2.0, grading = 2.0, *coords = NULL;
  PetscBool          usedm = PETSC_FALSE, keep = PETSC_FALSE, ishypre;
  char               file[PETSC_MAX_PATH_LEN] = "", cdir[8] = "pc", tmp[PETSC_MAX_PATH_LEN];
  PetscBool          times = PETSC_FALSE;
  PetscReal          bnorm;
  PetscLogDouble     t0, t1, t2;
  char              *extra[16];
  PetscInt           nextra = 16;
  KSPConvergedReason reason;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscKPRegisterAll());
  comm = PETSC_COMM_WORLD;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscOptionsBegin(comm, NULL, "P1 FEM Poisson example options", NULL);
  PetscCall(PetscOptionsEnum("-mesh", "base mesh", NULL, MeshTypes, (PetscEnum)type, (PetscEnum *)&type, NULL));
  PetscCall(PetscOptionsInt("-refine", "uniform refinements", NULL, refine, &refine, NULL));
  PetscCall(PetscOptionsInt("-base_n", "squares per side of the uniform base mesh", NULL, base_n, &base_n, NULL));
  PetscCall(PetscOptionsInt("-disk_rings", "rings of the disk's base mesh", NULL, rings, &rings, NULL));
  PetscCall(PetscOptionsReal("-grading", "grading exponent of the graded mesh", NULL, grading, &grading, NULL));
  PetscCall(PetscOptionsString("-coordinates", "pc: PCSetCoordinates; dm: the PC takes them from the DM", NULL, cdir, cdir, sizeof(cdir), NULL));
  PetscCall(PetscOptionsString("-mesh_out", "keep the base mesh in this Gmsh file", NULL, file, file, sizeof(file), &keep));
  PetscCall(PetscOptionsReal("-error_bound", "fail unless max |u - u_h| <= c h^2", NULL, bound, &bound, NULL));
  PetscCall(PetscOptionsInt("-max_its_expected", "fail if the solver needs more iterations", NULL, maxits, &maxits, NULL));
  PetscCall(PetscOptionsBool("-print_times", "print the times of KSPSetUp and KSPSolve", NULL, times, &times, NULL));
  PetscCall(PetscOptionsStringArray("-extra_solvers", "options prefixes of further solvers of the same system", NULL, extra, &nextra, NULL));
  PetscOptionsEnd();
  PetscCheck(refine >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-refine must be >= 0");
  PetscCheck(base_n >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-base_n must be >= 1");
  PetscCheck(grading >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-grading must be >= 1");
  PetscCheck(rings >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-disk_rings must be >= 1");
  PetscCheck(!strcmp(cdir, "pc") || !strcmp(cdir, "dm"), comm, PETSC_ERR_ARG_OUTOFRANGE, "-coordinates must be pc or dm, not %s", cdir);
  usedm = !strcmp(cdir, "dm") ? PETSC_TRUE : PETSC_FALSE;

  /* 1. base mesh: written on rank 0 as a Gmsh file, read by PETSc, distributed, refined */
  if (!keep) {
    PetscMPIInt pid = 0;

    PetscCall(PetscGetTmp(comm, tmp, sizeof(tmp)));
    if (rank == 0) pid = (PetscMPIInt)getpid();
    PetscCallMPI(MPI_Bcast(&pid, 1, MPI_INT, 0, comm));
    PetscCall(PetscSNPrintf(file, sizeof(file), "%s/petsckp_fem_%s_%d.msh", tmp, MeshTypes[type], (int)pid));
  }
  if (rank == 0) {
    BaseMesh m;

    PetscCall(BaseMeshCreate(type, base_n, rings, grading, &m));
    PetscCall(BaseMeshWriteGmsh(&m, file));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "base mesh %s: %" PetscInt_FMT " vertices (%" PetscInt_FMT " on the boundary), %" PetscInt_FMT " triangles\n", MeshTypes[type], m.nv, m.nb, m.nt));
    PetscCall(PetscFree(m.x));
    PetscCall(PetscFree(m.t));
  }
  PetscCallMPI(MPI_Barrier(comm));
  PetscCall(DMPlexCreateGmshFromFile(comm, file, PETSC_TRUE, &dm));
  PetscCall(MarkBoundary(dm));
  if (!keep && rank == 0) PetscCheck(remove(file) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "cannot remove %s", file);
  PetscCall(DMPlexDistribute(dm, 0, NULL, &dmd));
  if (dmd) {
    PetscCall(DMDestroy(&dm));
    dm = dmd;
  }
  for (PetscInt r = 0; r < refine; r++) {
    PetscCall(DMRefine(dm, comm, &dmd));
    PetscCall(DMDestroy(&dm));
    dm = dmd;
    if (type == MESH_DISK) PetscCall(ProjectBoundaryToCircle(dm));
  }
  PetscCall(DMSetFromOptions(dm));

  /* 2. one unknown per vertex, the boundary vertices constrained (eliminated from the global system) */
  PetscCall(DMGetLabel(dm, "dirichlet", &label));
  PetscCall(DMPlexGetChart(dm, &pStart, &pEnd));
  PetscCall(DMPlexGetDepthStratum(dm, 0, &vStart, &vEnd));
  PetscCall(PetscSectionCreate(comm, &s));
  PetscCall(PetscSectionSetChart(s, pStart, pEnd));
  for (PetscInt v = vStart; v < vEnd; v++) {
    PetscInt val;

    PetscCall(PetscSectionSetDof(s, v, 1));
    PetscCall(DMLabelGetValue(label, v, &val));
    if (val == 1) PetscCall(PetscSectionSetConstraintDof(s, v, 1));
  }
  PetscCall(PetscSectionSetUp(s));
  for (PetscInt v = vStart; v < vEnd; v++) {
    PetscInt       cdof;
    const PetscInt zero = 0;

    PetscCall(PetscSectionGetConstraintDof(s, v, &cdof));
    if (cdof) PetscCall(PetscSectionSetConstraintIndices(s, v, &zero));
  }
  PetscCall(DMSetLocalSection(dm, s));
  PetscCall(PetscSectionDestroy(&s));
  PetscCall(DMCreateGlobalVector(dm, &u));
  PetscCall(VecDuplicate(u, &uh));
  PetscCall(VecDuplicate(u, &b));
  PetscCall(VecGetSize(u, &N));
  PetscCall(VecGetLocalSize(u, &nloc));
  PetscCall(CreateMatrix(dm, u, &A));
  { /* the vectors follow the matrix's type (e.g. -mat_type aijcusparse without -dm_vec_type cuda): PETSc's device MatMult
       with host vectors of the DM gives wrong products, so that every Krylov method then stops at a wrong answer */
    Vec       t;
    VecType   mt, vt;
    PetscBool same;

    PetscCall(MatCreateVecs(A, &t, NULL));
    PetscCall(VecGetType(t, &mt));
    PetscCall(VecGetType(u, &vt));
    PetscCall(PetscStrcmp(mt, vt, &same));
    if (!same) {
      PetscCall(DMSetVecType(dm, mt));
      PetscCall(VecDestroy(&u));
      PetscCall(VecDestroy(&uh));
      PetscCall(VecDestroy(&b));
      PetscCall(DMCreateGlobalVector(dm, &u));
      PetscCall(VecDuplicate(u, &uh));
      PetscCall(VecDuplicate(u, &b));
    }
    PetscCall(VecDestroy(&t));
  }
  PetscCall(Assemble(dm, type, A, b, &hmax));
  PetscCall(UnknownCoordinates(dm, type, &coords, u));
  PetscCall(PetscPrintf(comm, "%s mesh, %" PetscInt_FMT " refinements: N = %" PetscInt_FMT " unknowns (interior vertices)\n", MeshTypes[type], refine, N));

  /* 3. solve */
  PetscCall(KSPCreate(comm, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  if (usedm) {
    PetscCall(KSPSetDM(ksp, dm));
    PetscCall(PetscKPKSPSetDMActive(ksp, PETSC_FALSE));
  }
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPSetTolerances(ksp, 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, 1000));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPGetPC(ksp, &pc));
  /* BoomerAMG does not use coordinates for a scalar problem, and PETSc's PCSetCoordinates_HYPRE aborts inside hypre's
     device memcpy (cudaErrorInvalidValue) when hypre is built with CUDA: hypre is not given them */
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCHYPRE, &ishypre));
  if (!usedm && !ishypre) PetscCall(PCSetCoordinates(pc, 2, nloc, coords)); /* after the PC's type is set, or it is ignored */
  /* setup and solve timed separately; a norm (a value on the host) waits for the device. With -print_times, Kokkos
     and the device are initialised before (a device copy of A, made and destroyed), so that no solver's setup time
     holds this one-time cost */
  if (times) {
    PetscKPDeviceMat dA;

    PetscCall(PetscKPDeviceMatCreate(A, PETSCKP_FORMAT_CSR, &dA));
    PetscCall(PetscKPDeviceMatDestroy(&dA));
  }
  PetscCall(VecNorm(b, NORM_2, &bnorm));
  PetscCallMPI(MPI_Barrier(comm));
  PetscCall(PetscTime(&t0));
  PetscCall(KSPSetUp(ksp));
  PetscCall(VecNorm(b, NORM_2, &bnorm));
  PetscCallMPI(MPI_Barrier(comm));
  PetscCall(PetscTime(&t1));
  PetscCall(KSPSolve(ksp, b, uh));
  PetscCall(VecNorm(uh, NORM_2, &bnorm));
  PetscCallMPI(MPI_Barrier(comm));
  PetscCall(PetscTime(&t2));
  PetscCall(KSPViewFromOptions(ksp, NULL, "-solver_view")); /* outside the timed part */
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCheck(reason > 0, comm, PETSC_ERR_NOT_CONVERGED, "the solver did not converge: %s after %" PetscInt_FMT " iterations", KSPConvergedReasons[reason], its);
  PetscCall(PetscPrintf(comm, "iterations %" PetscInt_FMT "\n", its));
  if (times) PetscCall(PetscPrintf(comm, "times: setup %.4e s, solve %.4e s, iterations %" PetscInt_FMT "\n", t1 - t0, t2 - t1, its));
  if (maxits >= 0) {
    PetscCheck(its <= maxits, comm, PETSC_ERR_NOT_CONVERGED, "%" PetscInt_FMT " iterations, more than the %" PetscInt_FMT " expected", its, maxits);
    PetscCall(PetscPrintf(comm, "iteration check (<= %" PetscInt_FMT "): passed\n", maxits));
  }

  /* 4. discretisation error at the vertices */
  PetscCall(VecAXPY(uh, -1.0, u));
  PetscCall(VecNorm(uh, NORM_INFINITY, &err));
  PetscCall(PetscPrintf(comm, "h = %.4e, max |u - u_h| = %.3e, max error / h^2 = %.4f\n", (double)hmax, (double)err, (double)(err / (hmax * hmax))));
  PetscCheck(err <= bound * hmax * hmax, comm, PETSC_ERR_NOT_CONVERGED, "discretisation error %g is more than %g h^2", (double)err, (double)bound);
  PetscCall(PetscPrintf(comm, "error check: passed\n"));

  /* 5. the same system with further solvers (options prefixes), each in its own log stage: the mesh is made once */
  for (PetscInt k = 0; k < nextra; k++) {
    KSP           kx;
    PetscLogStage stage;

    PetscCall(PetscLogStageRegister(extra[k], &stage));
    PetscCall(PetscLogStagePush(stage));
    PetscCall(KSPCreate(comm, &kx));
    PetscCall(KSPSetOptionsPrefix(kx, extra[k]));
    PetscCall(KSPSetOperators(kx, A, A));
    PetscCall(KSPSetType(kx, KSPCG));
    PetscCall(KSPSetTolerances(kx, 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, 1000));
    PetscCall(KSPSetFromOptions(kx));
    PetscCall(KSPGetPC(kx, &pc));
    PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCHYPRE, &ishypre));
    if (!ishypre) PetscCall(PCSetCoordinates(pc, 2, nloc, coords));
    PetscCall(VecZeroEntries(uh));
    PetscCall(VecNorm(b, NORM_2, &bnorm));
    PetscCallMPI(MPI_Barrier(comm));
    PetscCall(PetscTime(&t0));
    PetscCall(KSPSetUp(kx));
    PetscCall(VecNorm(b, NORM_2, &bnorm));
    PetscCallMPI(MPI_Barrier(comm));
    PetscCall(PetscTime(&t1));
    PetscCall(KSPSolve(kx, b, uh));
    PetscCall(VecNorm(uh, NORM_2, &bnorm));
    PetscCallMPI(MPI_Barrier(comm));
    PetscCall(PetscTime(&t2));
    PetscCall(KSPViewFromOptions(kx, NULL, "-solver_view"));
    PetscCall(PetscLogStagePop());
    PetscCall(KSPGetIterationNumber(kx, &its));
    PetscCall(KSPGetConvergedReason(kx, &reason));
    PetscCall(VecAXPY(uh, -1.0, u));
    PetscCall(VecNorm(uh, NORM_INFINITY, &err));
    PetscCall(PetscPrintf(comm, "solver %s: %s, times: setup %.4e s, solve %.4e s, iterations %" PetscInt_FMT ", max |u - u_h| = %.3e\n", extra[k], KSPConvergedReasons[reason], t1 - t0, t2 - t1, its, (double)err));
    PetscCall(KSPDestroy(&kx));
  }

  for (PetscInt k = 0; k < nextra; k++) PetscCall(PetscFree(extra[k]));
  PetscCall(PetscFree(coords));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(MatDestroy(&A));
  PetscCall(VecDestroy(&u));
  PetscCall(VecDestroy(&uh));
  PetscCall(VecDestroy(&b));
  PetscCall(DMDestroy(&dm));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  # the paper's four 2D meshes, FCG + uaamg (K-cycle) to rtol 1e-10: one rank records the iteration count
  testset:
    args: -ksp_type fcg -pc_type uaamg
    test:
      suffix: uniform
      args: -mesh uniform -refine 5 -max_its_expected 20
    test:
      suffix: quasiuniform
      args: -mesh quasiuniform -refine 4 -max_its_expected 30
    test:
      suffix: graded
      args: -mesh graded -refine 3 -max_its_expected 22
    test:
      suffix: disk
      args: -mesh disk -refine 3 -max_its_expected 25

  # 2 and 4 ranks: the same mesh and error, the iteration count is checked by the example (-max_its_expected)
  testset:
    nsize: {{2 4}}
    args: -ksp_type fcg -pc_type uaamg
    filter: grep -v "^iterations"
    test:
      suffix: uniform_par
      args: -mesh uniform -refine 5 -max_its_expected 20
    test:
      suffix: quasiuniform_par
      args: -mesh quasiuniform -refine 4 -max_its_expected 30
    test:
      suffix: graded_par
      args: -mesh graded -refine 3 -max_its_expected 22
    test:
      suffix: disk_par
      args: -mesh disk -refine 3 -max_its_expected 25

  # the graded mesh two refinements further (52,833 unknowns): the adaptive auxiliary tree splits the crowded cells
  # (the paper's uniform tree, -pc_uaamg_fine_agg_max 0, puts up to 384 unknowns into one aggregate and needs 56
  # iterations); 1, 2 and 4 ranks
  test:
    suffix: graded_refine5
    nsize: {{1 2 4}}
    args: -mesh graded -refine 5 -ksp_type fcg -pc_type uaamg -max_its_expected 30
    filter: grep -v "^iterations"
  # the adaptive tree in -ksp_view: split cells, aggregate sizes, the CSR levels and their colours
  test:
    suffix: graded_view
    args: -mesh graded -refine 3 -ksp_type fcg -pc_type uaamg -ksp_view
    filter: grep "fine aggregates\|adaptive auxiliary tree\|split\|level [0-9]:\|^iterations"

  # ranks without rows (4 unknowns on 3 and 4 ranks) in the ghost exchanges of the setup and the smoother, with the
  # coarse levels of the device and the host setup
  test:
    suffix: empty_ranks
    nsize: {{3 4}}
    args: -mesh uniform -refine 0 -base_n 3 -ksp_type fcg -pc_type uaamg -pc_uaamg_coarse_size 1 -pc_uaamg_device_setup {{true false}} -max_its_expected 5
    filter: grep -v "^iterations"

  # the PC takes the vertex coordinates of the unknowns from the DMPlex (no PCSetCoordinates)
  test:
    suffix: dm_coordinates
    nsize: {{1 2}}
    args: -mesh disk -refine 3 -ksp_type fcg -pc_type uaamg -coordinates dm -max_its_expected 25
    filter: grep -v "^iterations"
    output_file: output/fem_disk_par.out

  # the linear V- and W-cycles under plain CG
  test:
    suffix: quasiuniform_vcycle
    nsize: {{1 2}}
    args: -mesh quasiuniform -refine 4 -ksp_type cg -pc_type uaamg -pc_uaamg_cycle {{v w}} -max_its_expected 30
    filter: grep -v "^iterations"
    output_file: output/fem_quasiuniform_par.out

TEST*/
