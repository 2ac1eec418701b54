/*
   kp_galerkin.hpp - unsmoothed-aggregation transfers and Galerkin products on the device.

   A piecewise-constant prolongation P (n x nagg) is given by an aggregate id per fine row: P(i, agg(i)) = 1, and
   row i of P is zero when agg(i) < 0 (a row in no aggregate, e.g. an eliminated Dirichlet row). P is never formed:
   - AggProlong:  y = alpha P xc + beta y   (injection: y(i) += alpha xc(agg(i)))
   - AggRestrict: yc = P^T x                (sum over the members of each aggregate; a gather, no atomics)
   - GalerkinAggregate: Ac = Pr^T A Pc as a device CSR with sorted columns and summed duplicates, built with a
     segmented sort on the device, plus a map from fine entries to coarse entries; GalerkinAggregateNumeric
     refreshes the values of Ac (same pattern, new values of A) in a single kernel.
     Pr aggregates the rows of A, Pc its columns (pass the same Aggregation twice for a square local matrix; for
     the off-diagonal block of a rank, Pc maps ghost columns to ghost aggregates).

   General (e.g. interpolation-based) transfers: the Galerkin product C = R A P of device CSR matrices, row by row:
   - SpgemmSymbolic / SpgemmNumeric: C = A B (pattern, then values; the numeric phase alone refreshes C when the
     values of A or B change with the same patterns);
   - GalerkinRapSymbolic / GalerkinRapNumeric: C = R (A P) through the intermediate product AP (kept in a
     GalerkinRap work structure, so that the numeric phase is reusable for a SAME_NONZERO_PATTERN refresh).
   Pair it with CsrTranspose (kp_sparse.hpp) for R = P^T.

   Everything is deterministic (sums over a coarse entry run in ascending fine-entry order) and takes Kokkos views;
   nothing here knows about PETSc objects.
*/
#pragma once

#include "kp_sparse.hpp"

namespace petsckp
{
struct Aggregation {
  Int       n = 0, nagg = 0;
  View<Int> agg;  /* n: aggregate of each fine row, -1 for none */
  View<Int> ptr;  /* nagg + 1: members of aggregate J are rows(ptr(J) .. ptr(J+1)-1), ascending */
  View<Int> rows; /* ptr(nagg) <= n */
};

/* builds the aggregation from agg (n entries, values in [-1, nagg)); agg is copied. Returns the number of entries
   outside [-1, nagg) (they are treated as -1); 0 means success. */
Int AggregationCreate(Int n, Int nagg, UView<const Int> agg, Aggregation &P);

/* number of aggregates with no member (empty aggregates give zero rows and columns in Ac) */
Int AggregationCountEmpty(const Aggregation &P);

/* the piecewise-constant prolongation as a device CSR (n x nagg, P(i, agg(i)) = 1, no entry in a row in no aggregate):
   for the general Galerkin products (SpgemmSymbolic, the distributed R A P), e.g. as the reference of the aggregation
   products */
void AggregationToCsr(const Aggregation &P, CsrMatrix &M);

/* renumbers the aggregates to drop the empty ones (e.g. auxiliary-grid cells that hold no DoF), keeping their
   order: aggregate J becomes newid(J), or -1 when empty. newid may be an empty view when not wanted (else nagg
   entries, the old count). Returns the new number of aggregates. */
Int AggregationCompact(Aggregation &P, UView<Int> newid = UView<Int>());

/* yc = P^T x (yc has nagg entries; x has n); yc must not alias x */
void AggRestrict(const Aggregation &P, UView<const Scalar> x, UView<Scalar> yc);

/* yc = P^T (b - Ad x - Ao g): the residual of a CSR level and its restriction in one kernel (one thread per
   aggregate, members ascending; the residual is never stored). Ad: the local block (P.n rows, columns of x), Ao: the
   off-process block with the ghost values g (Ao.nrows == 0 when there is none). Each residual entry is formed as
   b_i - ((Ao g)_i + (Ad x)_i), each product summed in storage order, as Spmv and AggRestrict do one after the other */
void AggResidualRestrict(const Aggregation &P, const CsrMatrix &Ad, const CsrMatrix &Ao, UView<const Scalar> g, UView<const Scalar> b, UView<const Scalar> x, UView<Scalar> yc);

/* y = alpha P xc + beta y (y has n entries, xc has nagg); beta == 0: y is not read. Rows in no aggregate get
   beta y(i). y must not alias xc */
void AggProlong(const Aggregation &P, Scalar alpha, UView<const Scalar> xc, Scalar beta, UView<Scalar> y);

/* map of the Galerkin product: fine entry k of A contributes to coarse entry fine2coarse(k) (-1: dropped, its row or
   column is in no aggregate); coarse entry e is the sum of A.vals(perm(q)) for q in [cptr(e), cptr(e+1)) */
struct GalerkinMap {
  Int       nnzf = 0, nnzc = 0, nrows = 0, ncols = 0;
  View<Int> fine2coarse; /* nnzf */
  View<Int> cptr;        /* nnzc + 1 */
  View<Int> perm;        /* cptr(nnzc) */
};

/* Ac = Pr^T A Pc (pattern and values), Pr.nagg x Pc.nagg. Requires Pr.n == A.nrows and Pc.n == A.ncols: returns
   false otherwise, without touching Ac (the caller raises the PETSc error). */
bool GalerkinAggregate(const CsrMatrix &A, const Aggregation &Pr, const Aggregation &Pc, CsrMatrix &Ac, GalerkinMap &map);

/* new values of Ac from new values of A with the pattern it had in GalerkinAggregate (one kernel) */
void GalerkinAggregateNumeric(UView<const Scalar> Avals, const GalerkinMap &map, CsrMatrix &Ac);

/* pattern of C = A B (A.nrows x B.ncols), ascending columns in every row, values allocated but not computed.
   One thread per row of C: the candidate columns of row i (the columns of the rows of B that A's row i selects)
   are gathered into a segment of a buffer of sum_i sum_{k in row i} |row k of B| 32-bit entries, heap-sorted and
   made unique. Requires A.ncols == B.nrows: returns false otherwise, without touching C. Entries structurally
   present in A and B are kept even when their product is zero (no cancellation dropping). */
bool SpgemmSymbolic(const CsrMatrix &A, const CsrMatrix &B, CsrMatrix &C);

/* the same for A given by its two column blocks [A | Ao] (Ao.ncols columns after A's, e.g. the local and the ghost
   block of a process's rows: row i of C = (row i of A) B(0 .. A.ncols-1, :) + (row i of Ao) B(A.ncols .., :)), without
   forming [A | Ao]; an Ao without row offsets (CsrMatrix()) stands for none. Requires A.ncols + Ao.ncols ==
   B.nrows and Ao.nrows == A.nrows. */
bool SpgemmSymbolic(const CsrMatrix &A, const CsrMatrix &Ao, const CsrMatrix &B, CsrMatrix &C);

/* values of C = A B on the pattern made by SpgemmSymbolic(A, B, C) with the same patterns of A and B. One thread
   per row, no atomics: C(i, j) is summed in ascending order of the entries of row i of A and of each row of B
   (deterministic); the position of j in row i of C is found by binary search. */
void SpgemmNumeric(const CsrMatrix &A, const CsrMatrix &B, CsrMatrix &C);
/* values of C = [A | Ao] B (SpgemmSymbolic(A, Ao, B, C)), summed in the order of the entries of [A | Ao]: the same bits
   as SpgemmNumeric of the concatenated matrix */
void SpgemmNumeric(const CsrMatrix &A, const CsrMatrix &Ao, const CsrMatrix &B, CsrMatrix &C);
/* the same for the rows i of C with rowflag(i) != 0 only (the other rows keep their values): the refresh of a product
   whose inputs changed in a few rows (CsrFlagRows of kp_sparse finds them); an empty rowflag means every row */
void SpgemmNumeric(const CsrMatrix &A, const CsrMatrix &B, CsrMatrix &C, UView<const Int> rowflag);
/* The refresh of a product whose inputs changed in a few rows, with the flags found in the same kernel (no host
   synchronisation): row i of C is recomputed when rowflag(i) != 0 (row i of A changed), or when row i of A has an
   entry in a column k with bflag(k) != 0 (row k of B changed), or, with self (a square A), when bflag(i) != 0; the
   other rows keep their values. flagout (C.nrows entries, or empty) receives the flags of the rows recomputed (1) and
   of the others (0): the rows of C that changed, for the next product of a chain (R (A P) after A P). Empty rowflag /
   bflag views flag nothing on their side; both empty: nothing is recomputed. */
void SpgemmNumericChanged(const CsrMatrix &A, const CsrMatrix &B, CsrMatrix &C, UView<const Int> rowflag, UView<const Int> bflag, bool self, UView<Int> flagout);

/* the work of a Galerkin product C = R A P: the intermediate product AP */
struct GalerkinRap {
  CsrMatrix AP;
};

/* pattern and values of C = R A P (R.nrows x P.ncols) as C = R (A P); returns false (C untouched) when the sizes do
   not chain (R.ncols == A.nrows, A.ncols == P.nrows) */
bool GalerkinRapSymbolic(const CsrMatrix &R, const CsrMatrix &A, const CsrMatrix &P, GalerkinRap &work, CsrMatrix &C);

/* new values of C = R A P (same patterns as in GalerkinRapSymbolic, e.g. new values of A): two numeric products */
void GalerkinRapNumeric(const CsrMatrix &R, const CsrMatrix &A, const CsrMatrix &P, GalerkinRap &work, CsrMatrix &C);
/* C = R [A | Ao] P with A given by its two column blocks (SpgemmSymbolic with Ao), and its numeric phase */
bool GalerkinRapSymbolic(const CsrMatrix &R, const CsrMatrix &A, const CsrMatrix &Ao, const CsrMatrix &P, GalerkinRap &work, CsrMatrix &C);
void GalerkinRapNumeric(const CsrMatrix &R, const CsrMatrix &A, const CsrMatrix &Ao, const CsrMatrix &P, GalerkinRap &work, CsrMatrix &C);

/* The change flags of a 0/1 mask (e.g. the kept points of truncated transfers): flag(i) = 1 where newkeep(i) differs
   from keep(i), else 0 (an empty newkeep: all ones). Returns the number of changes. */
Int MaskChanges(UView<const Scalar> keep, UView<const Scalar> newkeep, UView<Int> flag);
/* The same without a host synchronisation, and the mask taken over: flag(i) = 1 where newkeep(i) differs from keep(i)
   (an empty newkeep: all ones), and keep(i) = newkeep(i) there; the count stays on the device (none is returned). */
void MaskUpdate(UView<Scalar> keep, UView<const Scalar> newkeep, UView<Int> flag);
/* the sum of the entries of flag (e.g. the rows recomputed by SpgemmNumericChanged; a host read) */
Int FlagCount(UView<const Int> flag);
} // namespace petsckp

namespace petsckp
{
/* Building blocks of the distributed Galerkin product (kp_mg under MPI: the local rows of R A P with the ghost rows
   of P and the off-process rows of R A P, as PETSc's MatPtAP() of MPIAIJ matrices forms them). The communication
   is the caller's; these kernels only reshape device CSR matrices, and each has a numeric phase that refreshes the
   values on the same pattern. */

/* C = [[A | B]; G]: row i < A.nrows holds the entries of row i of A, then those of row i of B with their columns moved
   to A.ncols + bmap(c) (bmap empty: A.ncols + c); then come the rows of G (columns as they are). C has ncols columns;
   the values are copied. Requires A.nrows == B.nrows (false otherwise, C untouched). Column order within a row is
   kept (not sorted). One pass: the row offsets are those of A and B added (row i of [A | B] starts at entry
   A.rowptr(i) + B.rowptr(i)), without a scan; the leading A.nrows rows of C are [A | B] (CsrLeadingRowsShared with
   A.nnz + B.nnz entries). */
bool CsrConcatBlocks(const CsrMatrix &A, const CsrMatrix &B, UView<const Int> bmap, const CsrMatrix &G, Int ncols, CsrMatrix &C);
/* the values of C = [[A | B]; G] on the pattern of CsrConcatBlocks */
void CsrConcatBlocksNumeric(const CsrMatrix &A, const CsrMatrix &B, const CsrMatrix &G, CsrMatrix &C);
/* the values of C = [A | B] (e.g. the leading rows of a CsrConcatBlocks) */
void CsrConcatColumnsNumeric(const CsrMatrix &A, const CsrMatrix &B, CsrMatrix &C);
/* the first nrows rows of A (nnz entries: A.rowptr(nrows), which the caller knows) sharing A's views, no copy */
CsrMatrix CsrLeadingRowsShared(const CsrMatrix &A, Int nrows, Int nnz);

/* B = the rows rows(0..k-1) of A (in that order), with src(q) the entry of A that entry q of B copies; values copied */
void CsrExtractRows(const CsrMatrix &A, UView<const Int> rows, CsrMatrix &B, View<Int> &src);

/* The same for the rows of [A | B] (the leading rows of CsrConcatBlocks without a map) without forming it: E = those rows (B's columns
   moved to A.ncols + c), src(q) the entry of [A | B] that entry q of E copies (row i of [A | B] starts at entry
   A.rowptr(i) + B.rowptr(i)). Requires A.nrows == B.nrows (false otherwise, E untouched). */
bool CsrExtractRows(const CsrMatrix &A, const CsrMatrix &B, UView<const Int> rows, CsrMatrix &E, View<Int> &src);

/* out(q) = v(idx(q)) for q < idx.extent(0) */
void GatherValues(UView<const Scalar> v, UView<const Int> idx, UView<Scalar> out);
/* the same for integers, e.g. the composition of two source maps (the entries that a copy of a copy reads) */
void GatherInts(UView<const Int> v, UView<const Int> idx, UView<Int> out);

/* in place: columns c >= nfirst of A become nfirst + map(c - nfirst); A.ncols = ncols */
void CsrRemapColumns(CsrMatrix &A, Int nfirst, UView<const Int> map, Int ncols);

/* perm(q) = the entry of A that entry q of At = A^T (CsrTranspose, sorted) comes from: At.vals(q) = A.vals(perm(q)) */
void CsrTransposePerm(const CsrMatrix &A, CsrMatrix &At, View<Int> &perm);

/* S: row i holds the entries of row i of A, then those of row i of B (A.nrows == B.nrows, the same column space;
   false otherwise), src(k) the entry of the concatenated values [A.vals(0 .. A.nnz-1), B.vals(0 .. B.nnz-1)] that
   entry k of S copies. Duplicate columns are kept (sum them with CsrSumDuplicates). */
bool CsrInterleaveRows(const CsrMatrix &A, const CsrMatrix &B, CsrMatrix &S, View<Int> &src);
void CsrInterleaveRowsNumeric(UView<const Scalar> avals, UView<const Scalar> bvals, UView<const Int> src, CsrMatrix &S);

/* The rows of A that a merge must sort and sum, ascending and without repetition: the rows whose columns are not
   strictly ascending (a repeated or unsorted column) and the rows extra(0 .. k-1) (any order, repetitions allowed,
   each in [0, A.nrows)), e.g. the rows that receive entries from other processes. Returns their number. */
Int CsrRowsToMerge(const CsrMatrix &A, UView<const Int> extra, View<Int> &rows);

/* C = A with row rows(r) replaced by row r of B (rows ascending, without repetition, B.nrows entries in [0, A.nrows);
   false otherwise, C untouched), C.ncols = max(A.ncols, B.ncols); src(q) the entry of the concatenated values
   [A.vals(0 .. A.nnz-1), B.vals(0 .. B.nnz-1)] that entry q of C copies (the numeric phase is CsrInterleaveRowsNumeric
   with this src). With B = the merged rows (CsrSumDuplicates of a few rows), the rows of A that need no merge are copied
   as they are: the merge costs one pass over A and a sort over the merged rows only. */
bool CsrReplaceRows(const CsrMatrix &A, UView<const Int> rows, const CsrMatrix &B, CsrMatrix &C, View<Int> &src);

/* CsrReplaceRows and CsrSplitColumns (at nsplit) in one: D and O are the local and the ghost block of A with row
   rows(r) replaced by row r of B, without forming that matrix (one pass over A's rows to count and flag the ghost
   columns, one to fill); used as CsrSplitColumns gives it; dsrc / osrc the entries of the concatenated values
   [A.vals(0 .. A.nnz-1), B.vals(0 .. B.nnz-1)] that the entries of D / O copy (the numeric phase is
   CsrInterleaveRowsNumeric with these sources and D / O as the target). The columns: max(A.ncols, B.ncols). False
   (nothing touched) under the conditions of CsrReplaceRows. */
bool CsrReplaceRowsSplit(const CsrMatrix &A, UView<const Int> rows, const CsrMatrix &B, Int nsplit, CsrMatrix &D, CsrMatrix &O, View<Int> &used, View<Int> &dsrc, View<Int> &osrc);

/* C = S with the columns of every row sorted and duplicates summed (in ascending entry order: deterministic), map for
   the numeric phase GalerkinAggregateNumeric(S.vals, map, C) (the Galerkin product with identity aggregations) */
void CsrSumDuplicates(const CsrMatrix &S, CsrMatrix &C, GalerkinMap &map);

/* Splits C by columns: D = the columns < nsplit (local block, D.ncols = nsplit), O = the columns >= nsplit that occur in
   some row, renumbered 0 .. O.ncols-1 in ascending order (ghost block); used(g) = the column of C (minus nsplit) of
   ghost column g; dsrc / osrc: the entries of C that the entries of D / O copy (CsrReplaceRowsSplit without rows) */
void CsrSplitColumns(const CsrMatrix &C, Int nsplit, CsrMatrix &D, CsrMatrix &O, View<Int> &used, View<Int> &dsrc, View<Int> &osrc);
} // namespace petsckp
