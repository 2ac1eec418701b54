/*
   kp_mg.hpp - the multigrid layer shared by the multigrid preconditioners of petsckp: the level hierarchy, the
   cycles and the coarsest-level direct solve. A multigrid PC (PCPSORMG, the auxiliary-grid AMG) owns an
   MGHierarchy, builds its levels with the MGHierarchy...() calls, and runs MGCycleApply() with an MGLevelOps of
   its own that supplies the smoother and, where it wants to, its own level operator, transfers and hooks.

   1. Hierarchy. Level 0 is the finest. Level l holds its operator A_l and the transfers between it and level l+1:
      P_l (n_l x n_{l+1}, prolongation) and R_l (restriction, R_l = P_l^T). An operator is
      - a device matrix Ad (PetscKPDeviceMat, CSR: the local block and, under MPI, the ghost block with the ghost
        exchange of kp_mat), and/or a PETSc Mat A (level 0: the PC's Pmat; below: the host Galerkin product), or
      - nothing the layer knows (MGHierarchyAddLevel): the PC keeps its own level storage (e.g. stencil arrays) and
        supplies Mult/Restrict/Prolong/Smooth through MGLevelOps; the layer gives it the level's vectors only.
      Coarse operators are Galerkin products A_{l+1} = R_l A_l P_l, made
      - on the device: P a device CSR given by the caller (R = P^T by CsrTranspose, R A P by GalerkinRapSymbolic of
        kp_galerkin), or, on one process, an aggregation (P piecewise constant, never formed; Ac by
        GalerkinAggregate); the coarse levels are then device CSR matrices without a PETSc Mat. Under MPI the caller
        gives its rows of P as a local and a ghost block, and R and R A P are distributed device matrices formed as
        PETSc's MatPtAP() of MPIAIJ matrices forms them (ghost rows of P fetched, off-process rows of R A P sent to
        their owners: MGRapDist below), with the kernels of the one-process path;
      - on the host (any number of processes): P a host AIJ Mat given by the caller, A_{l+1} = MatPtAP() on host
        AIJ copies (PETSc's cuSPARSE MatPtAP() returned zero operators when its A was itself such a product),
        converted to the fine operator's matrix type and copied to device CSR; P and R become device matrices too.
      A new matrix with the same pattern refreshes the values only (MGHierarchyRefreshFine, then
      MGHierarchyRefreshCoarse: numeric Galerkin products, and a new factorisation of the coarsest operator).

   2. Vectors. Each level below the finest has PETSc Vecs x (iterate or correction) and b (right-hand side), every
      level r (residual) and w (work), and, for the K-cycle, 1 + 2n vectors of the inner GCG iteration (made when
      first needed). The finest level's x and b are the caller's (MGCycleApply's arguments).
      Why PETSc Vecs and not bare device views: a level's layout is a distributed one (the ghost exchange of a
      PetscKPDeviceMat is a VecScatter between Vecs, the inner products of the K-cycle are MPI reductions, and a
      coarse level agglomerated onto fewer ranks is a Vec on a smaller communicator), the finest level's vectors are
      the user's Vecs of any type (host, CUDA, Kokkos), and the level vectors are made like them, so that they live
      in the same memory. A level's kernels still see views: DeviceVec (kp_vec) wraps the Vec's array without a copy
      wherever the execution space reaches it (always, for Vecs made like a device vector). A PC whose coarse levels
      are stencil arrays (views) gets the views of its level Vecs with DeviceVec in its MGLevelOps callbacks.

   3. Cycles (MGCycleApply: one application on level 0, B[b] or an iteration from x). On level l < coarsest:
        Smooth(pre sweeps, forward); b_{l+1} = R (b - A x) (SmoothResidualRestrict); BeginCoarse(l) hook;
        coarse correction x_{l+1}: V: one cycle from zero; W: two cycles, the first from zero; K: the nonlinear
          PCG of Algorithm 2.1 on level l+1 (below);
        x += P x_{l+1}; EndCoarse(l) hook; Smooth(post sweeps, backward) (ProlongSmooth).
      On the coarsest level: CoarseSolve(b, x) (default: the direct solve of 4.).
      With a symmetric smoother (the backward sweep the adjoint of the forward one, pre == post sweeps), an exact
      (or symmetric) coarsest solve and R = P^T, the V- and W-cycles from x = 0 are linear, symmetric positive
      definite preconditioners: usable under KSPCG.
      K-cycle (the nonlinear AMLI-cycle of L. Wang, X. Hu, J. Cohen and J. Xu, A parallel auxiliary grid algebraic
      multigrid method for graphic processing units, SIAM J. Sci. Comput. 35 (2013), Algorithms 2.1 and 2.2;
      Y. Notay and P. S. Vassilevski, Recursive Krylov-based multigrid cycles, Numer. Linear Algebra Appl. 15
      (2008)): the coarse correction on level k = l+1 is u_n of n steps of the generalised conjugate gradient
        u_0 = 0, r_0 = f; for i = 0 .. n-1:
          p_i = Bhat_k[r_i] - sum_{j<i} ((Bhat_k[r_i], A p_j) / (p_j, A p_j)) p_j   (full A-orthogonalisation)
          alpha_i = (r_i, p_i) / (p_i, A p_i); u_{i+1} = u_i + alpha_i p_i; r_{i+1} = r_i - alpha_i A p_i
      where Bhat_k is the cycle of Algorithm 2.2 on level k (smooth, K-cycle below, smooth) from zero, and Bhat is
      the direct solve on the coarsest level (where no GCG runs). Early exit (Notay and Vassilevski): with a
      threshold t > 0 the iteration stops after the first step when ||r_1|| <= t ||r_0||. With kcycle_last = k >= 0 the
      levels below k get V-cycle corrections instead of GCG (MGCycleParams). The K-cycle is a
      nonlinear preconditioner: the outer Krylov method must be flexible (KSPFCG, KSPGCR, KSPFGMRES).
      A breakdown of the inner iteration ((p, A p) <= 0 and finite) stops it with the iterate it has and is counted
      (MGHierarchyGetKCycleBreakdowns); a (p, A p) that is not finite goes on into u, where the outer method sees it.
      Every scalar of the inner iteration stays on the device (kp_kcycle: one fused reduction per inner product set,
      the ratios read by the kernels that need them); the host reads them only for the early exit (one read per
      K-cycle on a level, after its first step) and, under MPI, to add the ranks' partial sums.

   4. Coarse direct solve (MGCoarseDirect): the coarsest operator gathered to every rank as a dense matrix
      (MPI_Allgatherv of the local rows), factored by kp_dense (Cholesky of an SPD matrix, an explicit LU inverse of a
      nonsymmetric one, on the host with LAPACK), and solved on the device on every rank (the right-hand side is
      gathered, each rank keeps its rows of the solution). Projected (bounded) problems cannot use it: PCPSORMG keeps
      its projected SOR on the coarsest grid. For such iterative coarsest solves under MPI, MGCoarseReplica gathers
      the coarsest operator to every rank as a CSR matrix in global row order (its values again at every
      MGCoarseReplicaRefresh, for operators that change between solves, e.g. truncated ones) and the level vectors
      into replicated device views; the solve then runs on every rank, without the ghost exchange after every colour
      of every sweep that the distributed iteration needs, and each rank keeps its rows (MGCoarseReplicaScatter).

   5. Plugging a multigrid in (what PCPSORMG does, and what a second multigrid such as the auxiliary-grid AMG does):
      - setup: MGHierarchyCreate(comm, Pmat, device, H) for the finest level; per coarse level one of
        MGHierarchyAddLevelDevice (interpolation as device CSR), MGHierarchyAddLevelAggregation (aggregates, e.g.
        the cells of a quadtree), MGHierarchyAddLevelHost (host AIJ interpolation, any number of ranks) or
        MGHierarchyAddLevel (a level in the PC's own storage, e.g. stencil arrays made by its own kernels);
        MGHierarchySetUpVecs; for the coarsest level MGHierarchySetUpCoarseDirect (an operator of the layer) or
        MGCoarseDirectSetUp with the PC's coarsest rows as CSR with global columns (its own storage);
      - a subclass of MGLevelOps: Smooth always; Mult, Restrict, ProlongAdd (and CoarseSolve with its own
        MGCoarseDirect) for the levels in its own storage, reading the level Vecs through DeviceVec; the hooks
        only for a constrained cycle; optionally the fused steps, for fewer kernel launches where a GPU is
        latency-bound (ResidualRestrict, SmoothFromZero, SmoothResidualRestrict, ProlongSmooth, KCycleMultDots,
        CoarseSolveUsesGuess: the defaults call the separate steps, in the cycles' order);
      - replicated coarse levels (section 7): after MGHierarchySetUpVecs, MGHierarchyReplicateCoarsest, then T's
        levels, MGHierarchySetUpVecs(T) and T's coarsest solve; an MGLevelOps of T given to H's by SetReplicated;
      - apply: MGCycleApply(H, ops, params, b, x, true) (one B[b]); an iteration: MGCycleApply(..., false);
      - new values with the same pattern: MGHierarchyRefreshFine, the PC's checks of the fine operator,
        MGHierarchyRefreshCoarse, MGHierarchyRefreshReplicated, then the PC's own levels (and its own MGCoarseDirect).

   6. Truncated transfers (MGHierarchyTruncate): for the truncated monotone multigrid of obstacle problems
      (R. Kornhuber, Monotone multigrid methods for elliptic variational inequalities I, Numer. Math. 69 (1994);
      C. Graeser and R. Kornhuber, Multigrid methods for obstacle problems, J. Comput. Math. 27 (2009)) the coarse
      functions are truncated at the active fine points: P_l^t = D P_l, R_l^t = P_l^t^T = R_l D with D = diag(keep),
      so that the restriction ignores the residual at active points and the correction leaves them unchanged; the
      coarse operators R^t A P^t follow by the numeric Galerkin products of section 1 (patterns unchanged: the
      truncated entries stay as stored zeros). MGHierarchyUntruncate goes back to the transfers of the setup.
      Only the transfers of the level given are truncated (the finest one in the truncated monotone multigrid): the
      coarser levels see the truncated Galerkin operators, and their own transfers stay those of the setup.
      Cost on one process with the device setup (the refresh when the mask moved, e.g. once per cycle while the
      active set settles): one kernel for the changed points of the mask, one each for the changed rows of P and of
      R, two per coarse level for the changed rows of A P and R (A P), each row's flag found in the kernel that
      recomputes it; no host synchronisation and no copy (the count of rows recomputed stays on the device until
      MGHierarchyTruncatedRefreshRows asks for it). Under MPI and with the host setup every coarse operator is
      recomputed (numeric products) when some point of the mask changed, which takes one reduction to know.

   7. Replicated coarse levels (coarse-level replication, or agglomeration onto every process, as distributed AMG codes
      do it for the levels too small to keep a machine busy): below some level k the distributed levels cost one
      ghost exchange per sweep, per product and per transfer, and the K-cycle's GCG one reduction per inner product,
      each a round trip through the hosts on GPUs without GPU-aware MPI, while the levels hold little work.
      MGHierarchyReplicateCoarsest gathers the coarsest level k of a distributed hierarchy to every process (the
      operator in the rank-major order of its rows, MGCoarseReplica) and starts a second hierarchy T on
      PETSC_COMM_SELF whose level 0 is the whole level k; the caller adds T's coarser levels (which, being formed on
      one process, may aggregate rows of several processes) and T's coarsest solve. The cycles then run on T
      redundantly on every process, without communication: each visit of level k from level k-1 costs one
      MPI_Allgatherv of the restricted right-hand side (and of the iterate for the W-cycle's second pass), and each
      process takes its own rows of the correction back. The coarse correction of level k is what it would be on a
      distributed level k: the GCG of the K-cycle (Algorithm 2.1, here with local inner products) or one V/W cycle on T,
      with the cycle's operations of T given by the MGLevelOps of T (MGLevelOps::SetReplicated). Every process
      computes the same correction from the same data in the same order, so the V- and W-cycles stay symmetric.

   Nothing here is specific to one PC: grid geometry, colourings, bounds and monitors stay in the PCs.
*/
#pragma once

#include "kp_sys.hpp"
#include "kp_dense.hpp"
#include "kp_galerkin.hpp"
#include "kp_colour.hpp"
#include "kp_kcycle.hpp"
#include <memory>
#include <vector>

namespace petsckp
{
/* the coarsest-level direct solve (section 4) */
struct MGCoarseDirect {
  Int                      n = 0, rstart = 0, nlocal = 0; /* global size, this rank's first row and number of rows */
  PetscMPIInt              size = 1, rank = 0;            /* ranks of the communicator, this rank */
  DenseSpd                 S;                             /* factor (or inverse) of the gathered operator, on the device */
  std::vector<PetscMPIInt> counts, displs;                /* rows of each rank (gathers) */
  View<Scalar>             bfull, xfull;                  /* n: gathered right-hand side and solution (MPI only) */
  HostView<Scalar>         hlocal, hfull;                 /* host staging of the gathers (MPI only) */
  bool                     ready = false;
};

/* Factors the operator whose local rows (rows rstart .. rstart + A.nrows - 1 of an n x n matrix) are given as a
   device CSR matrix with GLOBAL column indices; collective. rtol: the relative pivot below which the operator
   counts as singular (an error naming the pivot). Use it for coarse levels the layer does not store (e.g. stencil
   arrays converted to CSR by the PC). */
PetscErrorCode MGCoarseDirectSetUp(MPI_Comm comm, Int n, Int rstart, const CsrMatrix &Aglobal, Real rtol, MGCoarseDirect &D);
/* the same for a device matrix of the layer (local block plus ghost block under MPI) */
PetscErrorCode MGCoarseDirectSetUp(MPI_Comm comm, PetscKPDeviceMat A, Real rtol, MGCoarseDirect &D);
/* x = A^-1 b (b, x: Vecs with the layout of the operator's rows; collective) */
PetscErrorCode MGCoarseDirectSolve(MPI_Comm comm, MGCoarseDirect &D, Vec b, Vec x);
PetscErrorCode MGCoarseDirectReset(MGCoarseDirect &D);

/* the coarsest operator replicated on every rank (section 4) */
struct MGCoarseReplica {
  Int                      n = 0, rstart = 0, nlocal = 0; /* global size, this rank's first row and number of rows */
  CsrMatrix                A;                             /* n x n, global row and column numbers, on the device */
  std::vector<PetscMPIInt> counts, displs;                /* rows of each rank */
  std::vector<PetscMPIInt> ncounts, ndispls;              /* stored entries of each rank's rows */
  std::vector<Int>         perm;     /* entry k of the local block, then of the ghost block -> its place in A's local rows */
  Int                      nnzd = 0; /* entries of the local block (the rest: ghost block) */
  HostView<Scalar>         hvfull;   /* host staging of the values */
  bool                     ready = false;
};

/* gathers the structure and values of a device matrix of the layer (square; local and ghost blocks) to every rank;
   collective */
PetscErrorCode MGCoarseReplicaSetUp(MPI_Comm comm, PetscKPDeviceMat A, MGCoarseReplica &R);
/* gathers A's values again (the pattern of the setup); collective */
PetscErrorCode MGCoarseReplicaRefresh(MPI_Comm comm, PetscKPDeviceMat A, MGCoarseReplica &R);
/* in one MPI_Allgatherv: A's values again (A may be NULL: not gathered) and the whole of the nv vectors v[q] into
   full[q] (each at least n entries); for an iterative coarsest solve each of whose gathers would otherwise cost a
   round trip through the hosts on GPUs without GPU-aware MPI; collective */
PetscErrorCode MGCoarseReplicaGatherAll(MPI_Comm comm, PetscKPDeviceMat A, MGCoarseReplica &R, PetscInt nv, const Vec v[], const View<Scalar> full[]);
/* full(0 .. n-1) = the whole of v (a Vec with the layout of the operator's rows); collective */
PetscErrorCode MGCoarseReplicaGather(MPI_Comm comm, MGCoarseReplica &R, Vec v, const View<Scalar> &full);
/* this rank's rows of full into v */
PetscErrorCode MGCoarseReplicaScatter(MGCoarseReplica &R, const View<Scalar> &full, Vec v);
/* gathers the integers of this rank's rows (e.g. the colour of each row) into full (n entries, every rank); collective */
PetscErrorCode MGCoarseReplicaGatherInt(MPI_Comm comm, const MGCoarseReplica &R, const std::vector<Int> &local, std::vector<Int> &full);

/* The distributed device Galerkin product (section 1, kp_mg_dist.cxx), in the design of PETSc's MatPtAP() for MPIAIJ
   matrices: with P's local rows [Pd | Po] (local block, ghost block) and A's [Ad | Ao],
   1. the ghost rows of P (the rows of the fine points of A's ghost columns) are fetched from their owners (the owners
      learn which rows are wanted by an exchange of O(ghost) indices; a PetscSF over those rows, then one over their
      entries; the numeric phase sends the values again);
   2. AP = [Ad | Ao] [P_local; P_ghost] (from the two blocks of A, no copy of A) and C = P_local^T AP are formed on
      the device (kp_galerkin), in a compact column space of this rank: its coarse columns, then the ghost coarse
      columns that occur (E, ascending); the one transpose P_local^T also gives the distributed R = P^T (its leading
      rows, and the rows of P's ghost columns sent to their owners as in step 3);
   3. the rows of C of the ghost coarse points (the contributions of this rank to rows owned by others, P_o^T A P) are
      sent to their owners (MGDistRows), who add them to their own rows and split the sum into a local and a ghost
      block. Only the rows that receive entries (O(surface) of them) are sorted and summed; the others are copied.
   Everything after the exchange of step 1 is O(local) work on each rank. */

/* Rows of a distributed matrix made from this rank's rows Top and rows Off owned by other ranks (their global row
   indices offrows): the owners receive them (a PetscSF from the entries of Off to receive slots) and add them to
   their Top rows (duplicates summed in a fixed order; the rows of Top that receive nothing, and have ascending columns,
   are copied as they are). Columns of Top and Off: the local columns of the column
   layout, then the global columns ig (ascending, others' columns). The result: D (local block), O (ghost block) and
   garray (the global columns of O, ascending); the numeric phase refreshes their values on the same patterns. */
struct MGDistRows {
  PetscSF             sf = nullptr; /* leaves: the entries of Off; roots: the receive slots of this rank */
  std::vector<Scalar> hsend, hrecv; /* host staging of the values */
  View<Scalar>        drecv;
  View<Int>           mrows;      /* the rows merged (sorted and summed): those that receive entries, O(surface) */
  CsrMatrix           TopM, RecvM; /* their rows of Top, and their received entries (slot order within a row) */
  View<Int>           recvperm;    /* the receive slot of each entry of RecvM */
  View<Int>           tsrc;        /* the entries of Top that TopM copies */
  CsrMatrix           S, Cm;      /* S = [TopM RecvM] row by row, Cm its sum */
  View<Int>           ssrc;       /* the entries of [TopM, RecvM] that S copies */
  View<Int>           dsrc, osrc; /* the entries of [Top, Cm] that D / O copy (Top with the rows of Cm, split: CsrReplaceRowsSplit) */
  GalerkinMap         smap;
  CsrMatrix           D, O;
  std::vector<PetscInt> garray;
};
/* collective; Top's ghost columns are renumbered in place (its values stay the source of the numeric phase) */
PetscErrorCode MGDistRowsSetUp(MPI_Comm comm, PetscLayout rowmap, PetscLayout colmap, CsrMatrix &Top, const std::vector<PetscInt> &ig, const CsrMatrix &Off, const std::vector<PetscInt> &offrows, MGDistRows &M);
PetscErrorCode MGDistRowsNumeric(MGDistRows &M, const CsrMatrix &Top, const CsrMatrix &Off);
PetscErrorCode MGDistRowsReset(MGDistRows &M);

/* the work of the distributed Galerkin product of one level */
struct MGRapDist {
  bool                 active = false;
  PetscSF              sfrow = nullptr, sfent = nullptr; /* ghost rows of P: over the rows, over their entries */
  CsrMatrix            Pext, Ploc, Rext, Cx, Top, Off; /* P_ext = [P_local; P_ghost], P_local its leading rows (shared) */
  View<Int>            reqsrc, rperm, offsrc;
  View<Scalar>         dsend;
  std::vector<Scalar>  hsend, hrecv;
  GalerkinRap          rap;
  MGDistRows           merge;
};

/* C = P^T A P of distributed device matrices A (fine x fine) and P (fine x coarse), collective: the blocks of this
   rank's rows of C in W.merge (D, O, garray), and R = P^T as a distributed device matrix when R is not NULL (the
   transpose of P's rows that the product forms anyway: the rows of P's ghost columns sent to their owners); the
   numeric phase after new values of A or P (same patterns) */
PetscErrorCode MGRapDistSetUp(MPI_Comm comm, PetscKPDeviceMat A, PetscKPDeviceMat P, MGRapDist &W, PetscKPDeviceMat *R = nullptr);
PetscErrorCode MGRapDistNumeric(PetscKPDeviceMat A, PetscKPDeviceMat P, MGRapDist &W);
/* The aggregation of A's ghost columns for a piecewise-constant P whose aggregates hold the rows of one rank each:
   garray the global coarse numbers (ascending) of the aggregates of the ghost columns' fine points (their owners
   number their aggregates after those of the ranks before them), Pg (A->nghost fine columns, garray.size()
   aggregates) the position of each ghost column's aggregate in garray, -1 for a fine point in no aggregate. One
   exchange of an integer per ghost column (a PetscSF over A's ghost columns); collective. Then
   C = [P^T Ad P | P^T Ao Pg] is this rank's rows of P^T A P with no rows sent to other ranks. */
PetscErrorCode MGGhostAggregation(MPI_Comm comm, PetscKPDeviceMat A, const Aggregation &agg, Aggregation &Pg, std::vector<PetscInt> &garray);
PetscErrorCode MGRapDistReset(MGRapDist &W);

/* one level (section 1) */
struct MGLevel {
  /* the operator */
  Mat              A  = nullptr; /* PETSc operator: level 0 the caller's (referenced), below the host Galerkin product; NULL for device-only levels */
  Mat              Ah = nullptr; /* host AIJ copy of A for the host Galerkin product (A itself, referenced, when A is host AIJ) */
  PetscKPDeviceMat Ad = nullptr; /* device CSR copy of A (or the device Galerkin product itself); NULL for levels the PC stores */
  PetscInt         nlocal = 0;   /* local rows (of Ad when there is one) */
  /* the transfers to and from level l+1 (none on the coarsest level) */
  Mat              P = nullptr, Ph = nullptr, R = nullptr; /* host setup: P of the operator's type, its host AIJ Ph, R = P^T */
  PetscKPDeviceMat Pd = nullptr, Rd = nullptr;             /* device P and R (CSR transfers) */
  Aggregation      agg;                                     /* aggregation transfers (when aggregated): P piecewise constant, never formed */
  bool             aggregated = false;
  /* the work of the device Galerkin product that makes level l+1 (numeric refresh) */
  GalerkinRap rap;
  GalerkinMap gmap;
  GalerkinMap gmapo; /* an aggregated level under MPI: the ghost block's (A's ghost columns to ghost aggregates) */
  MGRapDist   dist;  /* under MPI */
  /* truncated transfers (MGHierarchyTruncate): the values of P and R (local and ghost blocks) and Ph of the setup,
     the mask the transfers are truncated with (all ones when not truncated), and the row flags of the incremental
     refresh (changed points of the mask, or changed rows of A on a coarse level; changed rows of A P) */
  View<Scalar> pvals0[2], rvals0[2];
  Mat          Ph0 = nullptr;
  View<Scalar> keep;
  View<Int>    tflag, rflag;
  bool         truncated = false;
  /* vectors (section 2) */
  Vec              x = nullptr, b = nullptr; /* below level 0 only */
  Vec              r = nullptr, w = nullptr;
  std::vector<Vec> kv; /* K-cycle: residual, p_0 .. p_{n-1}, A p_0 .. A p_{n-1} */
  KCycleScalars    ks; /* K-cycle: the inner products of the inner iteration, on the device (kp_kcycle) */
};

struct MGReplicatedLevels;

struct MGHierarchy {
  MPI_Comm             comm = MPI_COMM_NULL;
  std::vector<MGLevel> levels;
  bool                 device = false;      /* coarse operators formed on the device (section 1) */
  MGCoarseDirect       coarse;              /* direct solve of the coarsest level (MGHierarchySetUpCoarseDirect) */
  Real                 coarse_rtol = 1e-13; /* its singularity threshold */
  PetscInt             truncated_refresh_rows = 0; /* coarse rows recomputed by the last MGHierarchyTruncate (all of them on the host and MPI paths) */
  /* the incremental refresh of one process leaves its count on the device (the flags of the levels below
     truncated_refresh_level, up to truncated_refresh_last, plus truncated_refresh_full rows of full products):
     MGHierarchyTruncatedRefreshRows reads it; -1: truncated_refresh_rows is up to date */
  PetscInt truncated_refresh_level = -1, truncated_refresh_last = -1, truncated_refresh_full = 0;
  std::shared_ptr<MGReplicatedLevels> replicated; /* the levels below the coarsest one, replicated on every process (section 7) */
};

/* the replicated coarse levels (section 7) */
struct MGReplicatedLevels {
  MGCoarseReplica R;                  /* the gather of the first replicated level (the distributed hierarchy's coarsest) */
  MGHierarchy     T;                  /* on PETSC_COMM_SELF: level 0 the whole first replicated level, then the coarser ones */
  View<Scalar>    bfull, xfull;       /* the gathered right-hand side and iterate of level 0 */
  Vec             b = nullptr, x = nullptr; /* the same as Vecs of T's level 0 */
};

/* Starts a hierarchy (freeing an old one) on the operator A of level 0 (referenced), copied to a device CSR matrix.
   device: the coarse operators will be formed on the device (MGHierarchyAddLevelDevice, MGHierarchyAddLevelAggregation,
   MGHierarchyAddLevel); else on the host (MGHierarchyAddLevelHost). */
PetscErrorCode MGHierarchyCreate(MPI_Comm comm, Mat A, bool device, MGHierarchy &H);
/* frees everything */
PetscErrorCode MGHierarchyReset(MGHierarchy &H);

/* Adds the level below the coarsest one by a Galerkin product (device setup): P (fine rows, coarse columns, device
   CSR, kept) with R = P^T (one process; the fine level must have Ad). */
PetscErrorCode MGHierarchyAddLevelDevice(MGHierarchy &H, const CsrMatrix &P);
/* The same on any number of processes: this rank's rows of P as a local block Pd (fine rows x this rank's coarse
   columns, whose number sets the coarse layout) and a ghost block Po (fine rows x gP.size()) whose column g is the
   global coarse column gP[g] (ascending, owned by other ranks). Collective. R = P^T and A_c = R A P are distributed
   device matrices (section 1, MGRapDist); on one process Po must be empty and this is the call above. */
PetscErrorCode MGHierarchyAddLevelDevice(MGHierarchy &H, const CsrMatrix &Pd, const CsrMatrix &Po, const std::vector<PetscInt> &gP);
/* Adds the level below the coarsest one for a piecewise-constant P given by this rank's aggregates of its own fine
   rows (agg.n local rows; agg.nagg sets the coarse layout), on any number of processes. The coarse operator is the
   aggregation product of the local and ghost blocks of A (kp_galerkin's GalerkinAggregate; under MPI the ghost
   columns' aggregates by MGGhostAggregation), P and R are never formed: the cycles restrict and prolong with the
   aggregation kernels. Collective. Under MPI this is the result of MGHierarchyAddLevelDevice with P = the
   aggregation, without sending rows or forming R. */
PetscErrorCode MGHierarchyAddLevelAggregation(MGHierarchy &H, const Aggregation &agg);
/* Adds the level below the coarsest one by a Galerkin product on the host: Ph a host AIJ interpolation (fine rows,
   coarse columns, assembled; the hierarchy takes the reference) */
PetscErrorCode MGHierarchyAddLevelHost(MGHierarchy &H, Mat Ph);
/* Adds a level the PC stores itself (nlocal local rows): the layer gives it vectors only, the PC's MGLevelOps
   supply the operator and the transfers to it (Restrict, Prolong of the level above) */
PetscErrorCode MGHierarchyAddLevel(MGHierarchy &H, PetscInt nlocal);
/* Replicates the coarsest level k of H (distributed, with a device operator) on every process (section 7): gathers its
   operator (MGCoarseReplicaSetUp) and starts H.replicated->T on PETSC_COMM_SELF with the whole of it as level 0 (the
   views of the replica shared, vectors of the sequential type of level k's), device = true. The caller then adds T's
   coarser levels (MGHierarchyAddLevelAggregation, ...), calls MGHierarchySetUpVecs(T) and sets up T's coarsest solve;
   H keeps no coarsest solve of its own. On one process an error. Collective. */
PetscErrorCode MGHierarchyReplicateCoarsest(MGHierarchy &H);
/* after new values of H's coarse operators (MGHierarchyRefreshCoarse(H)): the first replicated level's values gathered
   again, then T's numeric Galerkin products (MGHierarchyRefreshCoarse(T)); collective */
PetscErrorCode MGHierarchyRefreshReplicated(MGHierarchy &H);
/* Finishes the setup: the device copies of the host setup, the vectors r, w (and x, b below level 0) of every level
   (of the type of MatCreateVecs() of A where the level has A, else of level 0's type) */
PetscErrorCode MGHierarchySetUpVecs(MGHierarchy &H);
/* Factors the coarsest operator for the default CoarseSolve (section 4); the coarsest level must have Ad */
PetscErrorCode MGHierarchySetUpCoarseDirect(MGHierarchy &H);

/* Numeric refresh after new values of level 0's operator (same pattern): first the fine level's device copy (and
   host AIJ copy), then every coarse operator (numeric Galerkin products) and the coarsest factorisation */
PetscErrorCode MGHierarchyRefreshFine(MGHierarchy &H);
PetscErrorCode MGHierarchyRefreshCoarse(MGHierarchy &H);

/* Truncated transfers (section 6): the rows of P_l and the columns of R_l = P_l^T scaled by keep (a Vec of level l,
   1 at kept and 0 at truncated fine points), from the values of the setup (kept aside at the first call), and the
   coarse operators below level l made the Galerkin products of the truncated transfers: on one process with the
   device setup only the rows that change with the mask since the last call are recomputed (the rows of A_l P_l next
   to a changed point, the coarse rows they reach, and so on down the levels), without a host synchronisation (the
   caller calls only when it knows the mask moved); under MPI and on the host every level is recomputed when some
   point changed. The rows of a
   coarse function truncated away entirely are zero (the coloured sweeps leave rows with a zero diagonal alone).
   Collective. The transfers of level l must be interpolation matrices (MGHierarchyAddLevelDevice or
   MGHierarchyAddLevelHost). keep NULL: back to the transfers of the setup (and the coarse operators, the same way).
   MGHierarchyRefreshCoarse keeps a truncation (its products use the truncated transfers). The coarsest direct solve
   (MGHierarchySetUpCoarseDirect) is not refactored: a truncated coarsest operator may be singular (zero rows), the
   truncation is for cycles that solve their coarsest level iteratively (projected SOR). */
PetscErrorCode MGHierarchyTruncate(MGHierarchy &H, PetscInt l, Vec keep);
/* the number of coarse rows recomputed by the last MGHierarchyTruncate (over all ranks; on one process with the device
   setup a reduction of the device flags, read from the device only here, e.g. for a monitor) */
PetscErrorCode MGHierarchyTruncatedRefreshRows(MGHierarchy &H, PetscInt *rows);
/* restores the transfers of the setup on every level; refresh: the coarse operators too (as MGHierarchyTruncate(H, l,
   NULL)); without refresh the caller must refresh them, e.g. by MGHierarchyRefreshCoarse after new values of the
   fine operator */
PetscErrorCode MGHierarchyUntruncate(MGHierarchy &H, bool refresh);
/* whether the transfers of level l are truncated */
bool MGHierarchyTruncated(const MGHierarchy &H, PetscInt l);

/* Checks the finest operator (its device copy) for what a smoother that divides by the diagonal needs: finite entries
   and a positive diagonal. Errors name the first offending global row; name is the PC's ("PCPSORMG"), need says what
   the PC needs ("PCPSORMG needs a positive diagonal (projected SOR on an SPD M-matrix)"). Collective. */
PetscErrorCode MGHierarchyCheckOperator(MGHierarchy &H, const char name[], const char need[]);

/* the number of inner GCG iterations of the K-cycle stopped by a breakdown since the hierarchy was made (counted on the
   device, read here; collective) */
PetscErrorCode MGHierarchyGetKCycleBreakdowns(MGHierarchy &H, PetscInt *n);

/* sizes for views: global rows and nonzeros of level l (nnz -1 where the layer does not store the operator) */
PetscErrorCode MGHierarchyLevelInfo(MGHierarchy &H, PetscInt l, PetscInt *rows, PetscInt *nnz);

enum class MGCycleType {
  V,
  W,
  K
};
enum class MGSweepDirection {
  Forward, /* pre-smoothing */
  Backward /* post-smoothing: the adjoint sweep for a symmetric cycle */
};

struct MGCycleParams {
  MGCycleType type        = MGCycleType::V;
  PetscInt    pre         = 1, post = 1; /* sweeps before / after the coarse correction */
  PetscInt    kcycle_its  = 2;           /* n of Algorithm 2.1, >= 1 */
  PetscReal   kcycle_rtol = 0;           /* early exit threshold t (0: never) */
  PetscInt    kcycle_last = -1;          /* the deepest level whose coarse correction is the GCG of the K-cycle (-1: all);
                                            the corrections of deeper levels are V-cycles (fewer launches and reductions
                                            on small levels, where a GPU is latency-bound) */
};

/* What a multigrid plugs into the cycle. Level numbers l are those of the hierarchy; every Vec has level l's layout
   (or level l+1's for the coarse argument of Restrict/Prolong). The defaults use the hierarchy's device matrices. */
class MGLevelOps {
public:
  explicit MGLevelOps(MGHierarchy &H) : H_(H) { }
  virtual ~MGLevelOps() = default;
  MGHierarchy &Hierarchy() const { return H_; }
  /* the operations of the replicated levels H.replicated->T (section 7); needed when H has them */
  MGLevelOps *Replicated() const { return rep_; }
  void        SetReplicated(MGLevelOps *ops) { rep_ = ops; }

  /* nsweeps sweeps of the smoother of level l on A_l x = b, in the given direction; zero: x is zero on entry (a
     smoother may skip its first residual). nsweeps may be 0 (nothing to do). Required. */
  virtual PetscErrorCode Smooth(PetscInt l, Vec b, Vec x, PetscInt nsweeps, MGSweepDirection dir, bool zero) = 0;
  /* x = (approximately) A_l^-1 b on the coarsest level, x the initial guess; default: the direct solve */
  virtual PetscErrorCode CoarseSolve(PetscInt l, Vec b, Vec x);
  /* y = A_l x */
  virtual PetscErrorCode Mult(PetscInt l, Vec x, Vec y);
  /* r = b - A_l x (r is level l's r in the cycles) */
  virtual PetscErrorCode Residual(PetscInt l, Vec b, Vec x, Vec r);
  /* bc = R_l r (bc on level l+1) */
  virtual PetscErrorCode Restrict(PetscInt l, Vec r, Vec bc);
  /* bc = R_l (b - A_l x) (bc on level l+1); default: Residual into level l's r, then Restrict. A PC overrides it
     with one fused kernel where it can (fewer launches; level l's r is then not set) */
  virtual PetscErrorCode ResidualRestrict(PetscInt l, Vec b, Vec x, Vec bc);
  /* the first smoothing of a cycle from zero: x = 0, then Smooth(l, b, x, nsweeps, dir, true); default: VecSet and
     Smooth. A PC overrides it to fold the zeroing into its first sweep (nsweeps may be 0: then x = 0 only) */
  virtual PetscErrorCode SmoothFromZero(PetscInt l, Vec b, Vec x, PetscInt nsweeps, MGSweepDirection dir);
  /* whether CoarseSolve reads its initial guess x (default true; the direct solve does not, and then the cycles do
     not zero x before it) */
  virtual bool CoarseSolveUsesGuess(PetscInt l) const;
  /* x += P_l ec (ec on level l+1; level l's w may be used as work) */
  virtual PetscErrorCode ProlongAdd(PetscInt l, Vec ec, Vec x);
  /* hooks of a projected (constrained) V/W cycle: after the restriction of the residual of level l (b_{l+1} set,
     e.g. to restrict the gaps of the bounds), and after x += P e on level l (e.g. to project x onto the bounds) */
  virtual PetscErrorCode BeginCoarse(PetscInt l, Vec b, Vec x);
  virtual PetscErrorCode EndCoarse(PetscInt l, Vec b, Vec x);

  /* The two halves of a cycle on a level l below the coarsest, as the cycles call them; a PC overrides them to do a
     half in one kernel on small levels, where a GPU is bound by kernel launches.
     SmoothResidualRestrict: nsweeps forward sweeps (from x = 0 when zero), then bc = R_l (b - A_l x); default:
     SmoothFromZero (zero) or Smooth, then ResidualRestrict.
     ProlongSmooth: x += P_l ec, the EndCoarse hook, nsweeps backward sweeps; default: ProlongAdd, EndCoarse, Smooth. */
  virtual PetscErrorCode SmoothResidualRestrict(PetscInt l, Vec b, Vec x, PetscInt nsweeps, bool zero, Vec bc);
  virtual PetscErrorCode ProlongSmooth(PetscInt l, Vec ec, Vec b, Vec x, PetscInt nsweeps);
  /* The K-cycle's product and inner products of its step i on level l: Ap = A_l p, then step i's sums of S
     (KCycleStepDots: (p, Ap), (p, r) and, when rr, (r, r)), left on the device; default: Mult, then KCycleStepDots.
     A PC overrides it with one kernel where it can. */
  virtual PetscErrorCode KCycleMultDots(PetscInt l, Vec p, Vec Ap, Vec r, bool rr, const KCycleScalars &S, PetscInt i);

private:
  MGHierarchy &H_;
  MGLevelOps  *rep_ = nullptr;
};

/* One cycle on level 0 for A x = b (section 3): x is the initial guess, or zero (then x is set to 0 first; from
   zero the cycle is the preconditioner B[b]) */
PetscErrorCode MGCycleApply(MGHierarchy &H, MGLevelOps &ops, const MGCycleParams &p, Vec b, Vec x, bool zero);

/* nsweeps (projected) SOR sweeps on A_l x = b with level l's device operator: the colours of colourids (those present
   on some process, ascending) in turn, in reverse order when backward, each after a ghost exchange of x, rows of one
   colour updated at once (ColourSweep of kp_colour); lo / up: bounds of a projected sweep, NULL for none. The coloured
   Gauss-Seidel smoothers of the multigrids on levels stored as CSR. hybrid: one ghost exchange per sweep instead of one
   per colour, the other processes' values then held for the whole sweep (Gauss-Seidel inside each process, Jacobi
   between processes: the hybrid smoother of distributed AMG codes, e.g. hypre's hybrid Gauss-Seidel); the same as the
   coloured sweep on one process; only for omega <= 1 (over-relaxed Jacobi between processes need not converge: with
   omega > 1 the exchanges stay per colour). Collective. */
PetscErrorCode MGLevelColourSweeps(MGHierarchy &H, PetscInt l, const ColourPartition &colours, const std::vector<Int> &colourids, PetscInt nsweeps, Real omega, bool backward, Vec b, Vec x, Vec lo, Vec up, bool hybrid = false);

/* Collective check of a colouring of level l's rows against its device operator (local and ghost blocks): the
   global number of nonzero couplings inside a colour (GraphColourCheck of kp_colour, after a ghost exchange of the
   colours) */
PetscErrorCode MGLevelColourCheck(MGHierarchy &H, PetscInt l, UView<const Int> colour, Int ncolours, PetscInt *violations);
} // namespace petsckp
