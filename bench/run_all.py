#!/usr/bin/env python3
"""Runs every petsckp solver next to its anchors and writes the raw results as JSON lines (bench/run_all.sh).

  bench/run_all.py --build <build dir> --out <dir> [--cpu] [--toy] [--types cuda|kokkos|host] [--part-budget S]
                   [--timeout-scale F] [--resume earlier.jsonl ...] [--share-gpus] [--list] [part ...]
  bench/run_all.py --out <dir> --reparse

Parts (each fits one 10-minute device call on one H100 at the default sizes; run several in one call as time allows):

  sys     SpMV of the shared layer (SELL-C, CSR) against PETSc's MatMult; CG + Jacobi on our SpMV against PETSc's
  dcg     KSPDCG + PCNEUMANN on 3D bubbly flow against CG + Jacobi / GAMG / PCDEFLATION (bench/run_bubbly.sh's table)
  psormg  PCPSORMG on the 2D obstacle problem against SNESVI (snes ex9) and TAO gpcg; the level-set segmentation
          against the published times of Klement and Oberhuber (bench/run_psormg.sh, run_segmentation.sh)
  lbfgsb  TAO lbfgsb on MINPACK-2 dsscfg/ssc and the CVT energy against TAO BLMVM and BQNLS (bench/run_lbfgsb.sh)
  uaamg   PCUAAMG + FCG on 3D/2D Poisson against GAMG (unsmoothed and smoothed aggregation) and hypre BoomerAMG
  pscr    PCPSCR (direct) on 2D/3D Poisson against a cuFFT Poisson solve (bench/bench_pscr -summary) and CG + GAMG
  main    the main job: one problem per solver next to PETSc's built-ins (the README's table; bench/main_job.sh)
  scaling every solver on 1, 2 and 4 GPUs (mpiexec, one rank per GPU), strong and weak, next to its PETSc built-in,
          with the largest -log_view events of each row (bench/gpu/multi_gpu.sh runs it within one device call);
          rows of more ranks than the machine has GPUs are skipped unless --share-gpus

Every row runs under a time limit (a killed row is recorded with status "timeout"; the same solver is then not run
on the same problem at that size or a larger one); a part stops starting rows once its budget is spent (status
"skipped"), so that a part ends within 9 minutes. --resume runs only the rows that earlier raw files do not hold for
this device, types and sizes (a part split over device calls). A row whose PC, KSP or Tao type is not registered in this build, or
whose program was not built, is recorded as "skipped" with the reason, so the hooks for solvers under construction
(uaamg, pscr) run as soon as the types exist. Each record holds the device, the versions (PETSc, Kokkos, CUDA, MPI,
git commit), the command, the date, iterations, setup / solve / total seconds and the residual where the program
reports them; the full output of each row is kept under <out>/logs/.
"""
import argparse
import datetime
import glob
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from report import load  # noqa: E402  (the reader of raw results, for --resume)

TYPES = {
    'cuda': '-vec_type cuda -mat_type aijcusparse -dm_vec_type cuda -dm_mat_type aijcusparse -use_gpu_aware_mpi 0',
    'kokkos': '-vec_type kokkos -mat_type aijkokkos -dm_vec_type kokkos -dm_mat_type aijkokkos -use_gpu_aware_mpi 0',
    'host': '',
}

# Bytes moved per unknown in one iteration (8 B scalars, 4 B column indices, 7-point stencil; counted in
# bench/run_bubbly.sh): the bandwidth model of the time per iteration.
MODEL = {'spmv': 104, 'dcgblocks': 472, 'dcgplanes': 492, 'adef2': 524, 'cgneu': 448, 'jacobi': 240,
         'lbfgsb': 360}  # lbfgsb: ~45 vector passes of 8 B per iteration (bench/results/lbfgsb_gpu.md)


# ---------------------------------------------------------------------------------------------------- parsers
def fnum(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return None


def event(text, name):
    """max time over ranks of a -log_view event (None when absent or 'n/a')"""
    m = re.search(r'^%s\s+(\d+)\s+\S+\s+(\S+)' % re.escape(name), text, re.M)
    return fnum(m.group(2)) if m else None


def log_events(text, keep=12):
    """where the time goes, for the scaling tables: the events of a -log_view that took the largest share of the run
    (%T of the max-over-ranks time; events nest: KSPSolve holds MatMult, PCApply, ...) as [name, seconds, %T]. A GPU
    build prints n/a for the time of events that launch device work (they do not wait for it; -log_view_gpu_time
    would synchronise every event); %T is printed all the same, and the seconds are then %T of the logged run time."""
    t = re.search(r'^Time \(sec\):\s+(\S+)', text, re.M)
    total = fnum(t.group(1)) if t else None
    ev = {}
    # name, count, ratio, time, ratio, flop, ratio, messages, length, reductions, %T, ...
    for m in re.finditer(r'^([A-Za-z][A-Za-z0-9_+]*)\s+(\d+)\s+[\d.]+\s+(\S+)\s+\S+\s+\S+\s+\S+\s+\S+\s+\S+\s+\S+\s+(\d+)\s', text, re.M):
        pct, sec = int(m.group(4)), fnum(m.group(3))
        if sec is None and total is not None:
            sec = pct * total / 100.0
        if pct > 0 and (m.group(1) not in ev or pct > ev[m.group(1)][1]):
            ev[m.group(1)] = (sec, pct)
    top = sorted(ev.items(), key=lambda kv: -kv[1][1])[:keep]
    return {'events': [[k, v[0], v[1]] for k, v in top], 'logged_s': total} if top else {}


def parse_bubbly(text, rec):
    m = re.search(r'^iterations (\d+), true relative residual (\S+) \((\w+)\), time to solution (\S+) s \(setup (\S+) s, '
                  r'solve (\S+) s, (\S+) ms per iteration\)', text, re.M)
    if not m:
        return False
    rec.update(iterations=int(m.group(1)), residual=fnum(m.group(2)), residual_kind='true relative', reason=m.group(3),
               total_s=fnum(m.group(4)), setup_s=fnum(m.group(5)), solve_s=fnum(m.group(6)),
               ms_per_iteration=fnum(m.group(7)), timing='example wall clock, device synchronised')
    return True


def parse_ksp(text, rec):
    """programs run with -ksp_converged_reason -ksp_view_final_residual -log_view (e.g. examples/poisson)"""
    m = re.findall(r'Linear solve (?:converged|did not converge) due to (\w+) iterations (\d+)', text)
    if not m:
        return False
    rec.update(reason=m[-1][0], iterations=int(m[-1][1]))
    r = re.findall(r'KSP final norm of residual (\S+)', text)
    if r:
        rec.update(residual=fnum(r[-1]), residual_kind='final residual 2-norm (unscaled)')
    t = re.search(r'^times: setup (\S+) s, solve (\S+) s', text, re.M)
    if t:  # examples/poisson -print_times: device-synchronised wall clock (-log_view shows n/a for KSPSetUp on a GPU)
        su, so = fnum(t.group(1)), fnum(t.group(2))
        rec.update(setup_s=su, solve_s=so, timing='example wall clock of KSPSetUp / KSPSolve, device synchronised')
    else:
        su, so = event(text, 'KSPSetUp'), event(text, 'KSPSolve')
        rec.update(setup_s=su, solve_s=so, timing='-log_view KSPSetUp / KSPSolve (max over ranks)')
    if su is not None and so is not None:
        rec['total_s'] = su + so
    e = re.search(r'max error / h\^2 = (\S+)', text)
    if e:
        rec['extra']['error_over_h2'] = fnum(e.group(1))
    return rec['reason'].startswith('CONVERGED')


def parse_obstacle(text, rec):
    m = re.search(r'psormg cycles (\d+), setup time (\S+) s, solve time (\S+) s, time to solution (\S+) s', text)
    if not m:
        return False
    rec.update(iterations=int(m.group(1)), setup_s=fnum(m.group(2)), solve_s=fnum(m.group(3)), total_s=fnum(m.group(4)),
               timing='example wall clock, device synchronised')
    e = re.search(r'max error against the exact solution (\S+)', text)
    if e:
        rec['residual'] = fnum(e.group(1))
        rec['residual_kind'] = 'max error against the exact solution'
    return True


def parse_obstacle_ref(text, rec):
    m = re.search(r'reference (\w+) solve time (\S+) s \((converged|not converged)\)', text)
    if not m:
        return False
    rec.update(solve_s=fnum(m.group(2)), total_s=fnum(m.group(2)), reason=m.group(3),
               timing='example wall clock of the reference solve')
    it = re.findall(r'(?:TAO|Nonlinear) solve (?:converged|did not converge) due to \w+ iterations (\d+)', text)
    if it:
        rec['iterations'] = int(it[-1])
    return m.group(3) == 'converged'


def parse_ex9(text, rec):
    m = re.findall(r'Nonlinear solve (converged|did not converge) due to (\w+) iterations (\d+)', text)
    so = event(text, 'SNESSolve')
    rec.update(solve_s=so, timing='-log_view SNESSolve; total = wall clock of the program')
    rec['total_s'] = rec.get('wall_s')
    if m:
        rec.update(reason=m[-1][1], iterations=int(m[-1][2]))
    e = re.search(r'\|u-uexact\|_inf = (\S+)', text)
    if e:
        rec.update(residual=fnum(e.group(1)), residual_kind='max error against the exact solution')
    return bool(m) and m[-1][0] == 'converged'


def parse_summary(text, rec):
    """examples/minpack2 -summary (and any program printing 'SUMMARY key=value ...', e.g. bench_pscr -summary)"""
    m = re.findall(r'^SUMMARY (.*)$', text, re.M)
    if not m:
        return False
    d = dict(kv.split('=', 1) for kv in m[-1].split() if '=' in kv)
    its = d.get('its')
    rec.update(iterations=int(its) if its and its.isdigit() else None, solve_s=fnum(d.get('solve_s')),
               setup_s=fnum(d.get('setup_s')), reason=d.get('reason'), timing='program wall clock (SUMMARY line)')
    rec['total_s'] = fnum(d.get('total_s')) or (rec['solve_s'] + (rec['setup_s'] or 0) if rec['solve_s'] is not None else None)
    if 'pginf' in d:
        rec.update(residual=fnum(d['pginf']), residual_kind='pg_inf = max norm of P(x - g) - x')
    if 'relres' in d:
        rec.update(residual=fnum(d['relres']), residual_kind='relative residual')
    for k in ('f', 'fg', 'fg_s', 'solver_ms_per_it', 'first_s', 'backward', 'grid'):
        if k in d:
            rec['extra'][k] = fnum(d[k])
    if rec['extra'].get('solver_ms_per_it') is not None:
        rec['ms_per_iteration'] = rec['extra']['solver_ms_per_it']
    r = d.get('reason', 'CONVERGED')
    return not r.startswith('DIVERGED')  # DIVERGED_USER: stopped by -time_limit


def parse_tao_logview(text, rec):
    so = event(text, 'TaoSolve')
    if so is None:
        return False
    last = lambda pat: (re.findall(pat, text) or [None])[-1]
    its = last(r'total number of iterations=\s*(\d+)')
    rec.update(solve_s=so, total_s=so, iterations=int(its) if its else None, timing='-log_view TaoSolve')
    f = last(r'Objective value=\s*(\S+)')
    if f:
        rec['extra']['f'] = fnum(f)
    reason = last(r'(?:Solution converged|Solver terminated):\s*(.*)')
    if reason:
        rec['reason'] = reason.strip()
    return True


def parse_segmentation(text, rec):
    m = re.search(r'time: total (\S+) s, assembly (\S+) s, LCP solves (\S+) s', text)
    if not m:
        return False
    rec.update(total_s=fnum(m.group(1)), setup_s=fnum(m.group(2)), solve_s=fnum(m.group(3)),
               timing='example wall clock (setup = assembly of the time steps)')
    c = re.search(r'cycles per step: mean (\S+), max (\d+)', text)
    if c:
        rec['iterations'] = fnum(c.group(1).rstrip(','))
        rec['extra']['max_cycles_per_step'] = int(c.group(2))
    j = re.search(r'Jaccard index (\S+)', text)
    if j:
        rec['extra']['jaccard'] = fnum(j.group(1).rstrip(',;'))
    return True


def parse_spmv(text, rec):
    """bench_spmv: one row -> this record (the column named by rec['extra']['column'])"""
    m = re.search(r'^\| (\d+)\^3 \| (\d+) \| \d+ \| \S+ \| (\S+) \| (\S+) \([^)]*\) \| (\S+) \([^)]*\) \| (\S+) \([^)]*\) \|', text, re.M)
    if not m:
        return False
    col = {'sell': 4, 'csr': 5, 'matmult': 6}[rec['extra']['column']]
    ms = fnum(m.group(col))
    rec.update(iterations=1, solve_s=ms * 1e-3, total_s=ms * 1e-3, ms_per_iteration=ms, timing='mean of -reps calls, fenced')
    rec['extra']['copy_GBs'] = fnum(m.group(3))
    return True


PARSERS = {'bubbly': parse_bubbly, 'ksp': parse_ksp, 'obstacle': parse_obstacle, 'obstacle_ref': parse_obstacle_ref,
           'ex9': parse_ex9, 'summary': parse_summary, 'tao_logview': parse_tao_logview,
           'segmentation': parse_segmentation, 'spmv': parse_spmv}


# ---------------------------------------------------------------------------------------------------- rows
def row(part, problem, size, unknowns, solver, role, exe, args, parser, timeout, model=None, requires=(), builtin=False,
        extra=None, probe=None, published=None, ranks=1, host_types=False):
    """role: 'ours' (a petsckp solver), 'anchor' (what it is compared with), 'published' (a paper's number);
    builtin: the PETSc built-in the main table's speed-up is taken against; requires: ('pc'|'ksp'|'tao', type);
    ranks: MPI processes (mpiexec; one GPU each on a GPU machine); host_types: the row runs on PETSc's host vector and
    matrix types whatever --types says (an anchor that is faster there)"""
    return dict(part=part, problem=problem, size=size, unknowns=unknowns, solver=solver, role=role, exe=exe, args=args,
                parser=parser, timeout=timeout, model_bytes=MODEL.get(model) if model else None, requires=list(requires),
                builtin=builtin, extra=dict(extra or {}), probe=probe, published=published, ranks=ranks, host_types=host_types)


POISSON_PROBE = ['-dim', '2', '-n', '8', '-ksp_max_it', '1']


def poisson_problem(dim):
    return 'Poisson 3D, 7-point' if dim == 3 else 'Poisson 2D, 5-point'


def poisson(part, dim, n, solver, role, args, timeout, **kw):
    N = n ** dim
    a = ['-dim', str(dim), '-n', str(n), '-ksp_converged_reason', '-ksp_view_final_residual', '-log_view', '-print_times'] + args
    return row(part, poisson_problem(dim), '%d^%d' % (n, dim), N, solver,
               role, 'examples/poisson', a, 'ksp', timeout, probe=POISSON_PROBE, **kw)


def rows_sys(t):
    sizes = {'toy': [16], 'cpu': [32, 64], 'gpu': [128, 256]}[t]
    R = []
    for n in sizes:
        for col, label, role in (('sell', 'petsckp SpMV, SELL-C', 'ours'), ('csr', 'petsckp SpMV, CSR', 'ours'),
                                 ('matmult', 'PETSc MatMult', 'anchor')):
            R.append(row('sys', 'SpMV, 3D 7-point Laplacian', '%d^3' % n, n ** 3, label, role, 'bench/bench_spmv',
                         ['-n', str(n), '-reps', '50' if t == 'gpu' else '5'], 'spmv', 120, model='spmv',
                         builtin=role == 'anchor', extra={'column': col}))
        pn = {'toy': 12, 'cpu': 33, 'gpu': 129}[t] if n == sizes[0] else {'cpu': 65, 'gpu': 257}.get(t)
        if pn:
            R.append(poisson('sys', 3, pn, 'CG + Jacobi on petsckp SpMV', 'ours', ['-pc_type', 'jacobi', '-use_kp_operator'], 120, model='jacobi'))
            R.append(poisson('sys', 3, pn, 'PETSc CG + Jacobi', 'anchor', ['-pc_type', 'jacobi'], 120, model='jacobi', builtin=True))
    return R


def bubbly_rows(part, n, contrast, quick, timeout):
    P = ['-dim', '3', '-n', str(n), '-geometry', 'bubble8', '-contrast', contrast, '-dm_preallocate_only']
    prob = '3D bubbly flow, 8 bubbles, contrast %s' % contrast
    spec = [('dcg + neumann(2), 8x8x8 blocks', 'ours', 'dcgblocks', ['-ksp_type', 'dcg', '-ksp_dcg_blocks', '8,8,8', '-pc_type', 'neumann', '-pc_neumann_terms', '2'], True),
            ('dcg (single reduction) + neumann(2), 8x8x8 blocks', 'ours', 'dcgblocks', ['-ksp_type', 'dcg', '-ksp_dcg_pipelined', '-ksp_dcg_blocks', '8,8,8', '-pc_type', 'neumann', '-pc_neumann_terms', '2'], False),
            ('cg + neumann(2) + A-DEF2, 8x8x8 blocks', 'ours', 'adef2', ['-ksp_type', 'cg', '-pc_type', 'neumann', '-pc_neumann_terms', '2', '-pc_neumann_deflation_space', 'blocks', '-pc_neumann_deflation_blocks', '8,8,8'], True),
            ('dcg + neumann(2), planes', 'ours', 'dcgplanes', ['-ksp_type', 'dcg', '-ksp_dcg_space', 'chunks', '-ksp_dcg_subdomains', str(n), '-pc_type', 'neumann', '-pc_neumann_terms', '2'], False),
            ('cg + neumann(2), one level', 'ours', 'cgneu', ['-ksp_type', 'cg', '-pc_type', 'neumann', '-pc_neumann_terms', '2'], False),
            ('PETSc CG + Jacobi', 'anchor', 'jacobi', ['-ksp_type', 'cg', '-pc_type', 'jacobi'], True),
            ('PETSc CG + GAMG', 'anchor', None, ['-ksp_type', 'cg', '-pc_type', 'gamg'], True),
            ('PETSc CG + PCDEFLATION(jacobi), aggregation 512', 'anchor', None, ['-ksp_type', 'cg', '-pc_type', 'deflation', '-pc_deflation_compute_space', 'aggregation', '-pc_deflation_compute_space_size', '512', '-deflation_pc_pc_type', 'jacobi'], False)]
    return [row(part, prob, '%d^3' % n, n ** 3, label, role, 'examples/bubbly', P + a, 'bubbly', timeout, model=model,
                builtin='GAMG' in label) for label, role, model, a, q in spec if q or not quick]


def rows_dcg(t):
    sizes = {'toy': [16], 'cpu': [32, 48], 'gpu': [128, 256]}[t]
    R = []
    for n in sizes:
        for c in ('1e-3', '1e-6'):
            R += bubbly_rows('dcg', n, c, t == 'toy', 45)
    return R


def rows_psormg(t):
    sizes = {'toy': [33], 'cpu': [129, 257], 'gpu': [257, 513, 1025, 2049, 4097]}[t]
    amax = {'toy': 33, 'cpu': 257, 'gpu': 1025}[t]
    atmo = 60
    R = []
    for n in sizes:
        base = ['-problem', 'hemisphere', '-n', str(n), '-ksp_rtol', '1e-8', '-print_times']
        prob, sz = '2D obstacle (hemisphere)', '%d^2' % n
        R.append(row('psormg', prob, sz, n * n, 'richardson + psormg', 'ours', 'examples/obstacle', base + ['-ksp_converged_reason'], 'obstacle', 120))
        # Kornhuber's truncated monotone multigrid next to the default (monotone) restriction
        R.append(row('psormg', prob, sz, n * n, 'richardson + psormg, truncated restriction', 'ours', 'examples/obstacle',
                     base + ['-ksp_converged_reason', '-pc_psormg_obstacle_restriction', 'truncated'], 'obstacle', 120))
        if n <= amax:
            R.append(row('psormg', prob, sz, n * n, 'PETSc SNESVI vinewtonrsls, CG + GAMG (snes ex9)', 'anchor', 'tutorials/tutorial_snes_ex9',
                         ['-da_grid_x', str(n), '-da_grid_y', str(n), '-snes_type', 'vinewtonrsls', '-snes_max_it', '50', '-ksp_type', 'cg',
                          '-pc_type', 'gamg', '-snes_converged_reason', '-log_view'], 'ex9', atmo, builtin=True))
            R.append(row('psormg', prob, sz, n * n, 'PETSc TAO gpcg', 'anchor', 'examples/obstacle',
                         base + ['-compare', 'tao', '-require_reference', 'false', '-ref_tao_converged_reason'], 'obstacle_ref', atmo))
    # the level-set segmentation against Klement and Oberhuber's Tables I/II (GTX 480; seconds as published)
    paper = {256: (2.6, 25.3, 6.4), 512: (25, 368, 61), 1024: (267, 5431, 935)}
    for n in {'toy': [64], 'cpu': [128, 256], 'gpu': [256, 512, 1024]}[t]:
        prob, sz = 'level-set segmentation, 20 steps', '%d^2' % n
        for label, extra in (('richardson + psormg', []), ('richardson + psormg, truncated restriction', ['-pc_psormg_obstacle_restriction', 'truncated'])):
            R.append(row('psormg', prob, sz, n * n, label, 'ours', 'examples/segmentation',
                         ['-n', str(n), '-sigma_domain', '0.00390625', '-tau', '2e-2', '-steps', '20', '-ksp_rtol', '1e-6', '-max_cycles', '3000',
                          '-check_every_step', 'false', '-verbose'] + extra, 'segmentation', 100))
        if n in paper:
            for label, v in zip(('Klement & Oberhuber, GTX 480', 'Klement & Oberhuber, 1 CPU core', 'Klement & Oberhuber, 12-core OpenMP'), paper[n]):
                R.append(row('psormg', prob, sz, n * n, label, 'published', None, [], None, 0, published=v))
    return R


def rows_lbfgsb(t):
    R = []
    pg, tlim = '1e-6', {'toy': 10, 'cpu': 20, 'gpu': 55}[t]  # 4096^2 dsscfg: lbfgsb needs ~50 s on an H100
    stop = ['-check', '0', '-require_convergence', '0', '-pg_stop', pg, '-time_limit', str(tlim), '-tao_max_it', '100000',
            '-tao_max_funcs', '2000000', '-summary', '-log_view']
    for prob, sizes, solvers in (
            ('dsscfg', {'toy': [32], 'cpu': [128, 256], 'gpu': [1024, 2048, 4096]}[t],
             [('lbfgsb m=8', 'ours', ['-tao_type', 'lbfgsb', '-tao_lbfgsb_m', '8', '-tao_lbfgsb_factr', '0']),
              ('TAO blmvm', 'anchor', ['-tao_type', 'blmvm']), ('TAO bqnls', 'anchor', ['-tao_type', 'bqnls'])]),
            ('ssc', {'toy': [32], 'cpu': [128], 'gpu': [1024]}[t],
             [('lbfgsb m=5', 'ours', ['-tao_type', 'lbfgsb', '-tao_lbfgsb_m', '5', '-tao_lbfgsb_factr', '0']),
              ('lbfgsb m=5, approximate Cauchy point', 'ours', ['-tao_type', 'lbfgsb', '-tao_lbfgsb_m', '5', '-tao_lbfgsb_factr', '0', '-tao_lbfgsb_cauchy', 'approximate']),
              ('TAO blmvm', 'anchor', ['-tao_type', 'blmvm']), ('TAO bqnls', 'anchor', ['-tao_type', 'bqnls'])])):
        for n in sizes:
            for label, role, a in solvers:
                R.append(row('lbfgsb', 'MINPACK-2 %s to pg_inf <= %s' % (prob, pg), '%d^2' % n, n * n, label, role,
                             'examples/minpack2', ['-problem', prob, '-nx', str(n), '-ny', str(n)] + stop + a, 'summary',
                             tlim + 60, model='lbfgsb' if 'lbfgsb' in label else None, builtin=label == 'TAO blmvm'))
    for sites, res in {'toy': [(200, 64)], 'cpu': [(2000, 256)], 'gpu': [(20000, 2048)]}[t]:
        for label, role, a in (('lbfgsb m=8', 'ours', ['-tao_type', 'lbfgsb', '-tao_lbfgsb_m', '8']), ('TAO blmvm', 'anchor', ['-tao_type', 'blmvm'])):
            R.append(row('lbfgsb', 'CVT energy, %d^2 samples, 200 iterations' % res, '%d sites' % sites, 2 * sites, label, role,
                         'examples/cvt', ['-nsites', str(sites), '-res', str(res), '-require_convergence', '0', '-tao_max_it', '200',
                                          '-tao_view', '-log_view'] + a, 'tao_logview', 90, builtin=role == 'anchor'))
    return R


def rows_uaamg(t):
    R = []
    cases = {'toy': [(3, 17), (2, 33)], 'cpu': [(3, 33), (3, 65), (2, 257)], 'gpu': [(3, 129), (3, 257), (2, 2048)]}[t]
    tol = ['-ksp_rtol', '1e-8', '-ksp_norm_type', 'unpreconditioned', '-coordinates', 'pc']  # the same test for FCG and CG
    for dim, n in cases:
        R.append(poisson('uaamg', dim, n, 'FGMRES + uaamg', 'ours', tol + ['-ksp_type', 'fgmres', '-pc_type', 'uaamg'], 120, requires=[('pc', 'uaamg')]))
        R.append(poisson('uaamg', dim, n, 'PETSc CG + GAMG, unsmoothed', 'anchor', tol + ['-ksp_type', 'cg', '-pc_type', 'gamg', '-pc_gamg_agg_nsmooths', '0'], 120))
        R.append(poisson('uaamg', dim, n, 'PETSc CG + GAMG, smoothed', 'anchor', tol + ['-ksp_type', 'cg', '-pc_type', 'gamg', '-pc_gamg_agg_nsmooths', '1'], 120, builtin=True))
        R.append(poisson('uaamg', dim, n, 'hypre BoomerAMG + CG', 'anchor', tol + ['-ksp_type', 'cg', '-pc_type', 'hypre', '-pc_hypre_type', 'boomeramg'], 120,
                         requires=[('pc', 'hypre')]))
    return R


def rows_pscr(t):
    """PCPSCR as a direct solver (preonly) on the Poisson example (time to solution through PETSc), the PSCR kernels
    alone next to a periodic cuFFT Poisson solve of the next power-of-two grid in the same process (bench/bench_pscr
    -summary pscr|cufft), at every size first; then CG + GAMG (up to the 'gamg' sizes), the slowest rows."""
    R = []
    cases = {'toy': [(2, 63), (3, 15)], 'cpu': [(2, 511), (3, 63)], 'gpu': [(2, 4095), (2, 8191), (3, 255), (3, 511)]}[t]
    gamg_max = {'toy': 10 ** 9, 'cpu': 10 ** 9, 'gpu': 140 * 10 ** 6}[t]
    for dim, n in cases:
        sz, m = '%d^%d' % (n, dim), n + 1  # the grids are 2^k - 1 points per direction: cuFFT on 2^k
        bench = ['-dim', str(dim), '-n', str(n), '-reps', '10', '-fft_n', str(m)]
        R.append(poisson('pscr', dim, n, 'PSCR (preonly)', 'ours', ['-ksp_type', 'preonly', '-pc_type', 'pscr', '-coordinates', 'dm'], 150, requires=[('pc', 'pscr')]))
        R.append(row('pscr', poisson_problem(dim), sz, n ** dim, 'PSCR kernels, one application (bench_pscr)', 'ours', 'bench/bench_pscr',
                     bench + ['-summary', 'pscr'], 'summary', 120))
        if t == 'gpu':  # bench_pscr has cuFFT only in a CUDA build
            R.append(row('pscr', poisson_problem(dim), sz, n ** dim, 'cuFFT periodic Poisson, %d^%d (bench_pscr)' % (m, dim), 'anchor',
                         'bench/bench_pscr', bench + ['-summary', 'cufft'], 'summary', 120))
    for dim, n in cases:
        if n ** dim <= gamg_max:
            R.append(poisson('pscr', dim, n, 'PETSc CG + GAMG', 'anchor', ['-ksp_type', 'cg', '-pc_type', 'gamg'], 150, builtin=True))
    return R


def rows_main(t):
    """the main job (README): one problem per solver, each next to the PETSc built-in most users would reach for"""
    pn, bn, on, mn = {'toy': (17, 16, 33, 32), 'cpu': (65, 48, 257, 256), 'gpu': (129, 128, 1025, 1024)}[t]
    R = [poisson('main', 3, pn, 'CG + Jacobi on petsckp SpMV', 'ours', ['-pc_type', 'jacobi', '-use_kp_operator'], 120, model='jacobi'),
         poisson('main', 3, pn, 'PETSc CG + Jacobi', 'anchor', ['-pc_type', 'jacobi'], 120, model='jacobi'),
         poisson('main', 3, pn, 'FGMRES + uaamg', 'ours', ['-ksp_type', 'fgmres', '-pc_type', 'uaamg', '-coordinates', 'pc'], 120, requires=[('pc', 'uaamg')]),
         poisson('main', 3, pn, 'PETSc CG + GAMG', 'anchor', ['-pc_type', 'gamg'], 120, builtin=True),
         poisson('main', 3, pn, 'PSCR (preonly)', 'ours', ['-ksp_type', 'preonly', '-pc_type', 'pscr', '-coordinates', 'dm'], 120, requires=[('pc', 'pscr')])]
    R += [r for r in bubbly_rows('main', bn, '1e-6', True, 60)]
    base = ['-problem', 'hemisphere', '-n', str(on), '-ksp_rtol', '1e-8', '-print_times']
    R += [row('main', '2D obstacle (hemisphere)', '%d^2' % on, on * on, 'richardson + psormg', 'ours', 'examples/obstacle', base, 'obstacle', 120),
          row('main', '2D obstacle (hemisphere)', '%d^2' % on, on * on, 'PETSc SNESVI vinewtonrsls', 'anchor', 'examples/obstacle',
              base + ['-compare', 'snesvi', '-require_reference', 'false'], 'obstacle_ref', 60, builtin=True)]  # TAO gpcg: in the psormg part (it needs minutes from 257^2 on)
    stop = ['-check', '0', '-require_convergence', '0', '-pg_stop', '1e-6', '-time_limit', '30', '-tao_max_it', '100000',
            '-tao_max_funcs', '2000000', '-summary', '-log_view']
    for prob in ('pjb', 'ssc'):
        for label, role, a in (('lbfgsb', 'ours', ['-tao_type', 'lbfgsb', '-tao_lbfgsb_factr', '0']), ('TAO blmvm', 'anchor', ['-tao_type', 'blmvm']),
                               ('TAO bqnls', 'anchor', ['-tao_type', 'bqnls'])):
            R.append(row('main', 'MINPACK-2 %s to pg_inf <= 1e-6' % prob, '%d^2' % mn, mn * mn, label, role, 'examples/minpack2',
                         ['-problem', prob, '-nx', str(mn), '-ny', str(mn)] + stop + a, 'summary', 90, builtin=label == 'TAO blmvm'))
    return R


def rows_scaling(t):
    """several GPUs, one MPI rank per GPU (PETSc gives rank r the GPU r % GPUs of its node, and petsckp's Kokkos runs
    on PETSc's device): strong scaling (one problem on 1, 2 and 4 GPUs) and weak scaling (about the same unknowns per
    GPU) of every solver, each with its PETSc built-in counterpart in the same run. The strong sizes are those whose
    one-GPU time to solution is about a second for our solver on an H100 (the anchors need 10-50x longer there); the
    weak sizes start from the main job's (rows 'per GPU' in the report)."""
    R = []
    ranks = (1, 2, 4)
    g = {'toy': 0, 'cpu': 1, 'gpu': 2}[t]

    def add(kind, part, problem, n_of, size_of, unknowns_of, solver, role, exe, args_of, parser, timeout, **kw):
        for r in ranks:
            n = n_of(r)
            R.append(row('scaling', '%s, %s scaling: %s' % (part, kind, problem), size_of(n), unknowns_of(n), solver, role, exe, args_of(n),
                         parser, timeout, ranks=r, extra={'scaling': kind, 'solver_part': part}, **kw))

    strong = lambda n: (lambda r: n)
    weak3 = lambda n: (lambda r: int(round(n * r ** (1.0 / 3.0))))
    weak2 = lambda n: (lambda r: int(round((n - 1) * r ** 0.5)) + 1)
    cube, square = (lambda n: '%d^3' % n), (lambda n: '%d^2' % n)
    n3, n2 = (lambda n: n ** 3), (lambda n: n * n)
    lv = ['-log_view']
    for kind, ns in (('strong', strong), ('weak', None)):
        # dcg + neumann on the bubbly flow, CG + Jacobi the built-in (CG + GAMG's setup alone is 4 s at 128^3)
        # (grids of a multiple of 8 points per direction: with 8x8x8 deflation blocks that do not divide the grid the
        # iterations jump, e.g. 29 at 40^3 and 49 at 41^3 on the CPU)
        nb = ns([16, 48, 256][g]) if ns else (lambda r, n0=[32, 32, 128][g]: 8 * int(round(n0 * r ** (1.0 / 3.0) / 8)))
        bub = lambda n: ['-dim', '3', '-n', str(n), '-geometry', 'bubble8', '-contrast', '1e-6', '-dm_preallocate_only'] + lv
        add(kind, 'dcg', '3D bubbly flow, contrast 1e-6', nb, cube, n3, 'dcg + neumann(2), 8x8x8 blocks', 'ours', 'examples/bubbly',
            lambda n: bub(n) + ['-ksp_type', 'dcg', '-ksp_dcg_blocks', '8,8,8', '-pc_type', 'neumann', '-pc_neumann_terms', '2'],
            'bubbly', 60, model='dcgblocks')
        add(kind, 'dcg', '3D bubbly flow, contrast 1e-6', nb, cube, n3, 'PETSc CG + Jacobi', 'anchor', 'examples/bubbly',
            lambda n: bub(n) + ['-ksp_type', 'cg', '-pc_type', 'jacobi'], 'bubbly', 60, model='jacobi', builtin=True)
        # psormg on the obstacle; PETSc's SNESVI below, on its own smaller problem
        no = ns([33, 257, 4097][g]) if ns else weak2([33, 257, 1025][g])
        add(kind, 'psormg', '2D obstacle (hemisphere)', no, square, n2, 'richardson + psormg', 'ours', 'examples/obstacle',
            lambda n: ['-problem', 'hemisphere', '-n', str(n), '-ksp_rtol', '1e-8', '-print_times', '-ksp_converged_reason'] + lv,
            'obstacle', 60)
        # lbfgsb on MINPACK-2 dsscfg, TAO BLMVM the built-in
        nl = ns([32, 128, 1024][g]) if ns else (lambda r: int(round([32, 128, 1024][g] * r ** 0.5)))
        stop = ['-check', '0', '-require_convergence', '0', '-pg_stop', '1e-6', '-time_limit', '20', '-tao_max_it', '100000',
                '-tao_max_funcs', '2000000', '-summary'] + lv
        ml = lambda n: ['-problem', 'dsscfg', '-nx', str(n), '-ny', str(n)] + stop
        add(kind, 'lbfgsb', 'MINPACK-2 dsscfg to pg_inf <= 1e-6', nl, square, n2, 'lbfgsb m=8', 'ours', 'examples/minpack2',
            lambda n: ml(n) + ['-tao_type', 'lbfgsb', '-tao_lbfgsb_m', '8', '-tao_lbfgsb_factr', '0'], 'summary', 60, model='lbfgsb')
        if kind == 'strong':
            add(kind, 'lbfgsb', 'MINPACK-2 dsscfg to pg_inf <= 1e-6', nl, square, n2, 'TAO blmvm', 'anchor', 'examples/minpack2',
                lambda n: ml(n) + ['-tao_type', 'blmvm'], 'summary', 60, builtin=True)
        # uaamg on 3D Poisson, CG + GAMG (smoothed aggregation) the built-in
        nu = ns([17, 49, 193][g]) if ns else weak3([17, 33, 129][g])
        tol = ['-ksp_rtol', '1e-8', '-ksp_norm_type', 'unpreconditioned', '-coordinates', 'pc']
        pois = lambda d: (lambda n: ['-dim', str(d), '-n', str(n), '-ksp_converged_reason', '-ksp_view_final_residual', '-log_view', '-print_times'])
        add(kind, 'uaamg', 'Poisson 3D, 7-point', nu, cube, n3, 'FGMRES + uaamg', 'ours', 'examples/poisson',
            lambda n: pois(3)(n) + tol + ['-ksp_type', 'fgmres', '-pc_type', 'uaamg'], 'ksp', 60, requires=[('pc', 'uaamg')], probe=POISSON_PROBE)
        add(kind, 'uaamg', 'Poisson 3D, 7-point', nu, cube, n3, 'PETSc CG + GAMG, smoothed', 'anchor', 'examples/poisson',
            lambda n: pois(3)(n) + tol + ['-ksp_type', 'cg', '-pc_type', 'gamg', '-pc_gamg_agg_nsmooths', '1'], 'ksp', 60, builtin=True)
        # pscr (direct) on 2D Poisson, gathered to one process; CG + GAMG the built-in
        npp = ns([63, 511, 2047][g]) if ns else weak2([63, 511, 2047][g])
        add(kind, 'pscr', 'Poisson 2D, 5-point', npp, square, n2, 'PSCR (preonly)', 'ours', 'examples/poisson',
            lambda n: pois(2)(n) + ['-ksp_type', 'preonly', '-pc_type', 'pscr', '-coordinates', 'dm'], 'ksp', 60,
            requires=[('pc', 'pscr')], probe=POISSON_PROBE)
        if kind == 'strong':
            add(kind, 'pscr', 'Poisson 2D, 5-point', npp, square, n2, 'PETSc CG + GAMG', 'anchor', 'examples/poisson',
                lambda n: pois(2)(n) + ['-ksp_type', 'cg', '-pc_type', 'gamg', '-ksp_rtol', '1e-10'], 'ksp', 60, builtin=True)
    # PETSc's SNESVI does not finish the obstacle at 257^2 within a minute on one GPU with GPU types (REPORT.md, psormg
    # part): it runs on host types here, where it is faster (the example's -compare snesvi, as in the main job), next
    # to psormg on the same problem
    ns_ = [33, 129, 257][g]
    add('strong', 'psormg', '2D obstacle (hemisphere), SNESVI size', strong(ns_), square, n2, 'richardson + psormg', 'ours', 'examples/obstacle',
        lambda n: ['-problem', 'hemisphere', '-n', str(n), '-ksp_rtol', '1e-8', '-print_times', '-ksp_converged_reason'] + lv, 'obstacle', 60)
    add('strong', 'psormg', '2D obstacle (hemisphere), SNESVI size', strong(ns_), square, n2,
        'PETSc SNESVI vinewtonrsls, host types', 'anchor', 'examples/obstacle',
        lambda n: ['-problem', 'hemisphere', '-n', str(n), '-ksp_rtol', '1e-8', '-print_times', '-compare', 'snesvi',
                   '-require_reference', 'false'] + lv, 'obstacle_ref', 30, builtin=True, host_types=True)
    return R


PARTS = {'sys': rows_sys, 'dcg': rows_dcg, 'psormg': rows_psormg, 'lbfgsb': rows_lbfgsb, 'uaamg': rows_uaamg,
         'pscr': rows_pscr, 'main': rows_main, 'scaling': rows_scaling}
# seconds a part may spend starting rows (the rows already running finish under their own limits)
# (budget + the longest row limit < 9 minutes)
BUDGET = {'sys': 300, 'dcg': 420, 'psormg': 380, 'lbfgsb': 380, 'uaamg': 380, 'pscr': 360, 'main': 380, 'scaling': 420}


# ---------------------------------------------------------------------------------------------------- environment
def sh(cmd, timeout=30):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=timeout).stdout.strip()
    except Exception:
        return ''


def cache_vars(build):
    d = {}
    try:
        for l in open(os.path.join(build, 'CMakeCache.txt'), errors='replace'):
            m = re.match(r'^([A-Za-z0-9_]+):[A-Z]+=(.*)$', l.strip())
            if m:
                d[m.group(1)] = m.group(2)
    except OSError:
        pass
    return d


def environment(build, cpu):
    c = cache_vars(build)
    dev = '' if cpu else sh('nvidia-smi --query-gpu=name --format=csv,noheader | head -1')
    if not dev:
        m = re.search(r'^model name\s*:\s*(.*)$', open('/proc/cpuinfo').read(), re.M) if os.path.exists('/proc/cpuinfo') else None
        dev = 'CPU: ' + (m.group(1).strip() if m else 'unknown') + ' (%d cores)' % os.cpu_count()
    kokkos = ''
    kdir = c.get('Kokkos_DIR', '')
    for f in glob.glob(os.path.join(kdir, '*ConfigVersion.cmake')):
        m = re.search(r'set\(PACKAGE_VERSION "([^"]+)"', open(f).read())
        kokkos = m.group(1) if m else ''
    petsc = c.get('PETSC_VERSION', '') or c.get('PETSC_MODULE_VERSION', '')
    v = {'petsc': petsc, 'petsc_prefix': c.get('PETSCKP_PETSC_PREFIX', ''), 'kokkos': kokkos, 'kokkos_dir': kdir,
         'kokkos_devices': c.get('PETSCKP_KOKKOS_DEVICES', ''), 'petsckp_kokkos_source': c.get('PETSCKP_KOKKOS_SOURCE', ''),
         'mpi': sh('mpiexec --version 2>&1 | head -1'),
         'openblas_num_threads': os.environ.get('OPENBLAS_NUM_THREADS', ''),
         'cuda': '' if cpu else (sh("nvcc --version 2>/dev/null | sed -n 's/.*release \\([0-9.]*\\).*/\\1/p'") or
                                 sh("nvidia-smi 2>/dev/null | grep -o 'CUDA Version: [0-9.]*' | head -1 | cut -d' ' -f3")),
         'driver': '' if cpu else sh('nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1'),
         'compiler': c.get('CMAKE_CXX_COMPILER', ''), 'build_type': c.get('CMAKE_BUILD_TYPE', ''),
         # a copy of the tree whose .git is not its commit (a device machine's) names the commit in PETSCKP_GIT_COMMIT
         # and whether the tree differs from it in PETSCKP_GIT_DIRTY (0 or 1; unset: not known)
         'git': os.environ.get('PETSCKP_GIT_COMMIT') or sh('git -C %s rev-parse --short=12 HEAD' % shlex.quote(SRC)),
         'git_dirty': ({'0': False, '1': True}.get(os.environ.get('PETSCKP_GIT_DIRTY', '')) if os.environ.get('PETSCKP_GIT_COMMIT')
                       else bool(sh('git -C %s status --porcelain --untracked-files=no' % shlex.quote(SRC))))}
    return dev, v, sh('hostname')


# ---------------------------------------------------------------------------------------------------- running
def run(cmd, timeout, log):
    t0 = time.time()
    with open(log, 'w') as f:
        f.write(' '.join(shlex.quote(x) for x in cmd) + '\n')
        f.flush()
        p = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            rc = p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            rc = 124
    return rc, time.time() - t0, open(log, errors='replace').read()


PROBES = {}


def registered(build, exe, probe, kind, name, types):
    """None when the type is registered, else the reason (the program refused the type on a tiny problem)"""
    key = (exe, kind, name)
    if key not in PROBES:
        flag = {'pc': '-pc_type', 'ksp': '-ksp_type', 'tao': '-tao_type'}[kind]
        cmd = [os.path.join(build, exe)] + (probe or []) + [flag, name] + types.split()
        try:
            out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=60).stdout
        except subprocess.TimeoutExpired:
            out = ''
        m = re.search(r'Unable to find requested \w+ type|Unknown type', out)
        PROBES[key] = None if not m else '%s type %s is not registered in this build' % (kind.upper(), name)
    return PROBES[key]


def firsterr(text):
    m = re.search(r'PETSC ERROR: ([A-Z][^\n]*)', text)
    if m:
        return m.group(1).strip()[:160]
    lines = [l for l in text.strip().splitlines() if l.strip()]
    return lines[-1][:160] if lines else ''


def gpu_count(cpu):
    if cpu:
        return 0
    return len([l for l in sh('nvidia-smi -L').splitlines() if l.startswith('GPU ')])


def mpiexec(ranks):
    """the launcher of the scaling rows: one rank per GPU (PETSc maps rank r to GPU r % GPUs), not bound to cores (16
    or more per GPU on the device machines)"""
    return ['mpiexec', '-n', str(ranks), '--bind-to', 'none']


def reparse(out):
    """the -log_view events of the scaling rows read again from their logs (the other fields are as recorded)"""
    raw = os.path.join(out, 'results.jsonl')
    if not os.path.isfile(raw):
        sys.exit('run_all: --reparse: no %s' % raw)
    recs = [json.loads(l) for l in open(raw) if l.strip()]
    n = 0
    for r in recs:
        log = os.path.join(out, r['log']) if r.get('log') else None
        if r.get('part') == 'scaling' and log and os.path.isfile(log):
            r.setdefault('extra', {}).pop('events', None)
            r['extra'].update(log_events(open(log, errors='replace').read()))
            n += 1
    with open(raw + '.new', 'w') as f:
        for r in recs:
            f.write(json.dumps(r, sort_keys=True) + '\n')
    os.replace(raw + '.new', raw)
    print('run_all: --reparse: %d of %d rows read again from their logs in %s' % (n, len(recs), out))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--build')
    ap.add_argument('--out', required=True)
    ap.add_argument('--cpu', action='store_true', help='host vector and matrix types, CPU sizes, no nvidia-smi')
    ap.add_argument('--toy', action='store_true', help='toy sizes (seconds per part): a smoke test of the whole chain')
    ap.add_argument('--types', choices=sorted(TYPES), help='PETSc vector/matrix types (default: cuda, host with --cpu)')
    ap.add_argument('--part-budget', type=float, help='seconds per part for starting rows (default: per part, 300-420)')
    ap.add_argument('--timeout-scale', type=float, default=1.0, help='multiplies every row time limit')
    ap.add_argument('--list', action='store_true', help='print the rows and exit')
    ap.add_argument('--share-gpus', action='store_true',
                    help='run rows of more ranks than the machine has GPUs, ranks sharing GPUs (an MPI test on one GPU; '
                         'their times are no scaling study); without it such rows are skipped')
    ap.add_argument('--resume', action='append', metavar='JSONL', default=[],
                    help='raw results of an earlier run (another device call; the flag may be repeated): rows recorded there '
                         'on this device with these types and sizes, with any status but '
                         '"skipped" are not run again (report.py takes the newest record of each row from all files)')
    ap.add_argument('--reparse', action='store_true',
                    help='run nothing: read the logs of the rows in <out>/results.jsonl again (after a parser changed) '
                         'and rewrite that file; the logs are <out>/logs/<row id>.log as run_all wrote them')
    ap.add_argument('--only', metavar='REGEX',
                    help='run only the rows whose "solver | problem | size" matches this Python regular expression '
                         '(e.g. "uaamg" or "PSCR.*2047"); the others are neither run nor recorded')
    ap.add_argument('parts', nargs='*', help='parts to run (default: all): ' + ' '.join(PARTS))
    a = ap.parse_args()
    try:
        only = re.compile(a.only) if a.only else None
    except re.error as e:
        ap.error('--only %s: not a regular expression (%s)' % (a.only, e))
    if a.reparse:
        return reparse(a.out)
    if not a.build:
        ap.error('--build is needed (the petsckp build directory)')
    parts = a.parts or list(PARTS)
    for p in parts:
        if p not in PARTS:
            ap.error('unknown part %s (parts: %s)' % (p, ' '.join(PARTS)))
    tier = 'toy' if a.toy else 'cpu' if a.cpu else 'gpu'
    tname = a.types or ('host' if a.cpu else 'cuda')
    types = TYPES[tname]
    build = os.path.abspath(a.build)
    if a.list:
        for p in parts:
            for r in PARTS[p](tier):
                if only and not only.search('%s | %s | %s' % (r['solver'], r['problem'], r['size'])):
                    continue
                print('%-7s %-45s %-10s %-50s %s%s %s' % (p, r['problem'][:45], r['size'], r['solver'][:50],
                                                         '-n %d ' % r['ranks'] if r['ranks'] > 1 else '', r['exe'] or '-', ' '.join(r['args'])))
        return 0
    for f in a.resume:
        if not os.path.isfile(f):
            ap.error('--resume %s: no such file' % f)
    os.makedirs(os.path.join(a.out, 'logs'), exist_ok=True)
    os.environ.update(OMPI_ALLOW_RUN_AS_ROOT='1', OMPI_ALLOW_RUN_AS_ROOT_CONFIRM='1', OMPI_MCA_rmaps_base_oversubscribe='1')
    device, versions, host = environment(build, a.cpu)
    ngpu = gpu_count(a.cpu)
    raw = os.path.join(a.out, 'results.jsonl')
    counts = {}
    # rows an earlier run recorded, and the time limits rows hit there: (part, problem, solver) -> [(unknowns, limit s, size)]
    earlier, timed_out, other = set(), {}, 0
    for r in load(a.resume) if a.resume else []:  # report.py's reader: the newest record of each row
        if r.get('device') != device or r.get('types') != tname or r.get('tier') != tier:
            other += 1
            continue
        key = (r.get('part'), r.get('problem'), r.get('size'), r.get('solver'), r.get('ranks') or 1)
        if r.get('status') != 'skipped':
            earlier.add(key)
        if r.get('status') == 'timeout' and r.get('timeout_s'):
            timed_out.setdefault(key[:2] + key[3:], []).append((r.get('unknowns') or 0, r['timeout_s'], r.get('size')))
    if a.resume:
        print('run_all: --resume: %d rows recorded earlier%s' % (len(earlier), ', %d of other devices, types or sizes ignored' % other if other else ''))
    with open(raw, 'a') as out:
        for p in parts:
            start, budget = time.time(), a.part_budget or BUDGET[p]
            rows = PARTS[p](tier)
            if only:  # row ids keep their numbers in the part, so that records of several calls do not collide
                keep = [bool(only.search('%s | %s | %s' % (r['solver'], r['problem'], r['size']))) for r in rows]
            else:
                keep = [True] * len(rows)
            done = {}
            print('run_all: part %s, %d rows, budget %.0f s, %s, types %s' % (p, len(rows), budget, device, tname or 'host'), flush=True)
            for i, r in enumerate(rows):
                if not keep[i]:
                    continue
                if (p, r['problem'], r['size'], r['solver'], r['ranks']) in earlier:
                    print('  %-9s %-38s %-10s %s' % ('earlier', r['problem'][:38], r['size'], r['solver'][:45]), flush=True)
                    continue
                rec = {k: r[k] for k in ('part', 'problem', 'size', 'unknowns', 'solver', 'role', 'builtin', 'model_bytes', 'extra')}
                rec.update(id='%s-%02d' % (p, i), build=build, device=device, host=host, types=tname, tier=tier, versions=versions,
                           date=datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ'), ranks=r['ranks'],
                           gpus=min(r['ranks'], ngpu), gpus_on_machine=ngpu,
                           status='ok', reason=None, iterations=None, setup_s=None, solve_s=None, total_s=None,
                           ms_per_iteration=None, residual=None, residual_kind=None, wall_s=None, command=None, timeout_s=None)
                if r['role'] == 'published':
                    rec.update(total_s=r['published'], timing='published (seconds, as printed in the paper)', status='published')
                else:
                    exe = os.path.join(build, r['exe'])
                    tmo = r['timeout'] * a.timeout_scale
                    rtypes = types
                    if r['host_types'] and tname != 'host':
                        rtypes = '-use_gpu_aware_mpi 0'
                        rec['extra']['row_types'] = 'host'
                    cmd = (mpiexec(r['ranks']) if r['part'] == 'scaling' else []) + [exe] + r['args'] + rtypes.split()
                    rec.update(command=' '.join(shlex.quote(x) for x in cmd), timeout_s=tmo)
                    why = None
                    if not os.access(exe, os.X_OK):
                        why = '%s was not built in %s' % (r['exe'], build)
                    elif not a.cpu and r['ranks'] > ngpu and not a.share_gpus:
                        why = '%d GPUs needed, this machine has %d (--share-gpus runs the ranks on shared GPUs)' % (r['ranks'], ngpu)
                    elif time.time() - start > budget:
                        why = 'budget of part %s (%.0f s) spent' % (p, budget)
                    else:  # a row that hit its time limit on this problem at this size or a smaller one is not run larger
                        hit = [t for t in timed_out.get((p, r['problem'], r['solver'], r['ranks']), []) if t[0] <= r['unknowns'] and t[1] >= tmo]
                        if hit:
                            why = 'timed out at %s (%g s limit), not run at this size' % (hit[0][2], hit[0][1])
                    if not why:
                        for kind, name in r['requires']:
                            why = why or registered(build, r['exe'], r['probe'], kind, name, types)
                    if why:
                        rec.update(status='skipped', reason=why)
                    else:
                        log = os.path.join(a.out, 'logs', '%s.log' % rec['id'])
                        if rec['command'] in done:  # several rows from one run (bench_spmv's columns)
                            rc, wall, text, log = done[rec['command']]
                        else:
                            rc, wall, text = run(cmd, tmo, log)
                            done[rec['command']] = (rc, wall, text, log)
                        rec.update(wall_s=round(wall, 3), rc=rc, log=os.path.relpath(log, a.out))
                        ok = False
                        try:
                            ok = PARSERS[r['parser']](text, rec)
                        except Exception as e:  # a parser never stops the run
                            rec['reason'] = 'could not parse the output: %s' % e
                        if p == 'scaling':
                            rec['extra'].update(log_events(text))
                        if rc == 124:
                            rec.update(status='timeout', reason='killed at the %.0f s limit' % tmo)
                            timed_out.setdefault((p, r['problem'], r['solver'], r['ranks']), []).append((r['unknowns'], tmo, r['size']))
                        elif rc != 0:
                            rec.update(status='failed', reason='rc %d: %s' % (rc, firsterr(text)))
                        elif rec['total_s'] is None and rec['solve_s'] is None:
                            rec.update(status='failed', reason=rec['reason'] or 'no timing in the output')
                        elif not ok:
                            rec['status'] = 'not converged'
                if rec['ms_per_iteration'] is None and rec['solve_s'] is not None and rec['iterations']:
                    rec['ms_per_iteration'] = 1e3 * rec['solve_s'] / rec['iterations']
                out.write(json.dumps(rec, sort_keys=True) + '\n')
                out.flush()
                counts[rec['status']] = counts.get(rec['status'], 0) + 1
                t = rec['total_s']
                print('  %-9s %-38s %-10s %-45s %s%s' % (rec['status'], r['problem'][:38], r['size'], r['solver'][:45],
                                                          '%.4g s' % t if t is not None else '-',
                                                          ', its %s' % rec['iterations'] if rec['iterations'] is not None else '') +
                      ('  (%s)' % rec['reason'] if rec['status'] not in ('ok', 'published') and rec['reason'] else ''), flush=True)
            print('run_all: part %s took %.0f s' % (p, time.time() - start), flush=True)
    print('run_all: wrote %s (%s)' % (raw, ', '.join('%d %s' % (v, k) for k, v in sorted(counts.items()))))
    return 0


if __name__ == '__main__':
    sys.exit(main())
