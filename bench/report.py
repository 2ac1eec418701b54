#!/usr/bin/env python3
"""Turns the raw results of bench/run_all.sh (JSON lines) into a markdown report with tables and PNG plots.

  python3 bench/report.py <results.jsonl> [more.jsonl ...] -o bench/results/REPORT.md [--main] [--bw GB/s]

Raw files from several machines (GPU kinds, the CPU) may be given together: every table and plot is per device and
vector type. For each part and problem the report gives our best solver, the best anchor (fastest time to solution
among the anchors that finished) and their ratio, then every row with iterations, setup, solve, time to solution,
time per iteration against the bandwidth model and the residual; the command lines and dates go below each table.
The main job's table (one row per solver and anchor, speed-up against the PETSc built-in) comes first.

Plots (PNG, next to the report; only with matplotlib, e.g. Debian's python3-matplotlib; without it the report is
written without them): time to solution and iterations against the number of unknowns per part, and the measured
time per iteration against the bandwidth model (bytes per unknown x unknowns / device bandwidth; the bandwidth is
the device copy rate measured by the sys part when present, else --bw, else the device's nominal rate).

--main writes only the main job's table (the README's table, on the CPU as on the GPU).
"""
import argparse
import collections
import json
import math
import os
import re
import sys

PART_TITLES = collections.OrderedDict([
    ('main', 'Main job: each solver next to the PETSc built-in'),
    ('sys', 'Shared layer: SpMV and CG on it (src/sys)'),
    ('dcg', 'KSPDCG + PCNEUMANN: bubbly-flow pressure (Gupta, van Gijzen, Vuik)'),
    ('psormg', 'PCPSORMG: obstacle problem and level-set segmentation (Klement, Oberhuber)'),
    ('lbfgsb', 'TAO lbfgsb: MINPACK-2 and CVT (Byrd, Lu, Nocedal, Zhu; Fei et al.)'),
    ('uaamg', 'PCUAAMG: Poisson against GAMG and BoomerAMG'),
    ('pscr', 'PCPSCR: Poisson against cuFFT and CG + GAMG'),
])
# nominal device bandwidth (GB/s) when the raw data hold no measured copy rate
NOMINAL_BW = [('H200', 4800.0), ('H100 80GB HBM3', 3350.0), ('H100', 2000.0), ('A100', 2039.0)]


def load(paths):
    recs = {}
    for p in paths:
        with open(p) as f:
            for i, l in enumerate(f):
                l = l.strip()
                if not l:
                    continue
                try:
                    r = json.loads(l)
                except ValueError as e:
                    sys.exit('report: %s:%d is not JSON: %s' % (p, i + 1, e))
                if not isinstance(r, dict):
                    sys.exit('report: %s:%d is not a JSON object (one row of bench/run_all.py)' % (p, i + 1))
                r.setdefault('extra', {})
                # a rerun of the same row on the same device and types replaces the older one
                key = (r.get('device'), r.get('types'), r.get('part'), r.get('problem'), r.get('size'), r.get('solver'),
                       r.get('ranks') or 1)
                if key not in recs or (r.get('date') or '') >= (recs[key].get('date') or ''):
                    recs[key] = r
    return list(recs.values())


def fmt(x, digits=4):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return '-'
    if isinstance(x, int):
        return str(x)
    if x != 0 and (abs(x) < 1e-3 or abs(x) >= 1e5):
        return '%.*e' % (digits - 2, x)
    return '%.*g' % (digits, x)


def esc(x):
    """a markdown table cell: a '|' would end the cell"""
    return str(x).replace('|', '\\|')


def ok(r):
    return r.get('status') in ('ok', 'published') and r.get('total_s') is not None


def machines(recs):
    """the machines of a set of rows, GPUs first (the report's order everywhere)"""
    return sorted({machine(r) for r in recs}, key=lambda m: (m.startswith('CPU'), m))


def speedup(group, r):
    """(ratio, lower bound?) of the time to solution of the PETSc built-in of a group of rows (one problem and size)
    over r's; a built-in killed at its time limit gives a lower bound (its limit is the wall clock of its process);
    None when there is nothing to compare"""
    ref = next((x for x in group if x.get('builtin') and ok(x)), None)
    slow = next((x for x in group if x.get('builtin') and x.get('status') == 'timeout' and x.get('timeout_s')), None)
    if not ok(r) or not r['total_s'] > 0:
        return None
    if ref is not None:
        return ref['total_s'] / r['total_s'], False
    if slow is not None:
        return slow['timeout_s'] / r['total_s'], True
    return None


def machine(r):
    g = r.get('gpus_on_machine') or 0
    return '%s%s, %s types' % (r.get('device', '?'), ' x%d' % g if g > 1 else '', r.get('types') or 'host')


def slug(s):
    return re.sub(r'[^a-z0-9]+', '-', s.lower()).strip('-')[:60]


def bandwidth(recs, device, override):
    if override:
        return override, 'given with --bw'
    cp = [r['extra'].get('copy_GBs') for r in recs if r.get('device') == device and r['extra'].get('copy_GBs')]
    if cp:
        return max(cp), 'device copy rate measured by bench_spmv'
    for k, v in NOMINAL_BW:
        if k in (device or ''):
            return v, 'nominal rate of the %s' % k
    return None, None


def model_ms(r, bw):
    if not r.get('model_bytes') or not bw or not r.get('unknowns'):
        return None
    return r['model_bytes'] * r['unknowns'] / (bw * 1e9) * 1e3


def status_cell(r):
    s = r.get('status')
    if s in ('ok', 'published'):
        return fmt(r.get('total_s'))
    if s == 'timeout':
        return '> %s (timeout)' % fmt(r.get('timeout_s'))
    if s == 'not converged':
        return '%s (not converged)' % fmt(r.get('total_s'))
    return '%s: %s' % (s, (r.get('reason') or '').replace('|', '/')[:90])


def size_key(r):
    return (r.get('unknowns') or 0, r.get('size') or '')


def best(rows, role):
    c = [r for r in rows if r.get('role') in role and ok(r) and r.get('status') != 'not converged']
    return min(c, key=lambda r: r['total_s']) if c else None


def commits(rows):
    """the petsckp commits of a set of rows (several device calls may have run different commits)"""
    state = collections.OrderedDict()
    for r in sorted(rows, key=lambda r: r.get('date') or ''):
        v = r.get('versions') or {}
        c, d = v.get('git') or '?', v.get('git_dirty')
        state[c] = state.get(c, False) or d if d is not None else (state.get(c, False) or None)
    return ', '.join(c + {True: ' (modified)', None: ' (modified: not known)'}.get(d, '') for c, d in state.items())


def setup_note(rows):
    """rows timed by -log_view whose KSPSetUp a GPU build prints as n/a"""
    n = [r for r in rows if r.get('status') == 'ok' and r.get('solve_s') is not None and r.get('setup_s') is None
         and (r.get('timing') or '').startswith('-log_view KSPSetUp')]
    if not n:
        return ''
    return (' Setup not recorded in %d rows timed by -log_view (a GPU build prints n/a for KSPSetUp, which does not wait'
            ' for the device), so they have no time to solution; examples/poisson -print_times gives device-synchronised'
            ' setup and solve times.' % len(n))


def commands_block(rows, out):
    cmds = [r for r in rows if r.get('command')]
    if not cmds:
        return
    dates = sorted(r['date'][:10] for r in rows if r.get('date'))
    out.append('')
    out.append('Dates: %s. Commands ($BUILD: the build directory):' % (
        dates[0] if dates[0] == dates[-1] else '%s to %s' % (dates[0], dates[-1])))
    out.append('')
    seen = collections.OrderedDict()  # one line per command (bench_spmv gives several rows)
    for r in cmds:
        c = r['command']
        if r.get('build'):  # at the start, or after a launcher (mpiexec -n 4 ...)
            c = re.sub(r'(^|\s)%s/' % re.escape(r['build']), lambda m: m.group(1) + '$BUILD/', c)
        seen.setdefault(c, []).append('%s, %s' % (r['solver'], r['size']))
    for i, (c, who) in enumerate(seen.items(), 1):
        out.append('%d. %s: `%s`' % (i, '; '.join(who), c))


def main_table(recs, out, title_level='##'):
    """the main job: one row per solver and anchor, speed-up against the PETSc built-in of its problem"""
    main = [r for r in recs if r.get('part') == 'main']
    for m in machines(main):
        rows = [r for r in main if machine(r) == m]
        out.append('%s Main job (%s)' % (title_level, m))
        out.append('')
        out.append('| problem | solver | iterations | setup (s) | solve (s) | time to solution (s) | speed-up vs PETSc built-in |')
        out.append('|---|---|---|---|---|---|---|')
        order = []
        for r in rows:
            p = (r['problem'], r['size'])
            if p not in order:
                order.append(p)
        for p in order:
            g = [r for r in rows if (r['problem'], r['size']) == p]
            first = True
            for r in sorted(g, key=lambda r: (r.get('role') != 'ours', r.get('status') != 'ok')):
                q = speedup(g, r)
                sp = '-' if q is None else ('> %.3gx' if q[1] else '%.3gx') % q[0]
                if r.get('builtin'):
                    sp = '**1 (built-in)**' if q is not None and not q[1] else 'built-in'
                name = ('**%s**' % esc(r['solver'])) if r.get('role') == 'ours' else esc(r['solver'])
                if r.get('status') not in ('ok', 'published'):
                    its = setup = solve = '-'
                else:
                    its, setup, solve = fmt(r.get('iterations')), fmt(r.get('setup_s')), fmt(r.get('solve_s'))
                out.append('| %s | %s | %s | %s | %s | %s | %s |' % (esc('%s, %s' % p) if first else '', name, its, setup, solve,
                                                                     status_cell(r), sp))
                first = False
        v = rows[0].get('versions', {})
        out.append('')
        out.append('Device %s; PETSc %s, Kokkos %s%s, petsckp %s. Times in seconds (setup + solve = time to solution;'
                   ' where the program reports no setup, the time to solution is its solve). Bold: petsckp solvers.'
                   ' "> N": the built-in was killed at its time limit, the wall clock of its process, which over our time'
                   ' to solution is a lower bound.%s' % (
                       rows[0].get('device'), v.get('petsc') or '?', v.get('kokkos') or '?',
                       ', CUDA %s' % v['cuda'] if v.get('cuda') else '', commits(rows), setup_note(rows)))
        commands_block(rows, out)
        out.append('')


def part_section(recs, part, out, plots, outdir, bwo):
    rows_p = [r for r in recs if r.get('part') == part]
    if not rows_p:
        return
    out.append('## %s' % PART_TITLES.get(part, part))
    out.append('')
    for m in machines(rows_p):
        rows_m = [r for r in rows_p if machine(r) == m]
        dev = rows_m[0].get('device')
        bw, bwsrc = bandwidth(recs, dev, bwo)
        out.append('### %s' % m)
        out.append('')
        problems = []
        for r in rows_m:
            if r['problem'] not in problems:
                problems.append(r['problem'])
        # summary: ours vs the best anchor
        out.append('| problem | size | our best | time (s) | best anchor | time (s) | anchor / ours |')
        out.append('|---|---|---|---|---|---|---|')
        for p in problems:
            for sz in sorted({(r.get('unknowns') or 0, r['size']) for r in rows_m if r['problem'] == p}):
                g = [r for r in rows_m if r['problem'] == p and r['size'] == sz[1]]
                o, a = best(g, ('ours',)), best(g, ('anchor', 'published'))
                ratio = '-'
                if o and a and o['total_s'] > 0:
                    ratio = '**%.3gx**' % (a['total_s'] / o['total_s'])
                elif o and not a:
                    lower = [r for r in g if r.get('role') == 'anchor' and r.get('status') == 'timeout']
                    if lower and o['total_s'] > 0:
                        ratio = '> %.3gx (anchors timed out)' % (min(r['timeout_s'] for r in lower) / o['total_s'])
                    else:
                        ratio = 'no anchor finished' if any(r.get('role') == 'anchor' for r in g) else 'no anchor'
                out.append('| %s | %s | %s | %s | %s | %s | %s |' % (
                    esc(p), sz[1], esc(o['solver']) if o else (g[0]['reason'] or '-') if all(r.get('status') == 'skipped' for r in g if r.get('role') == 'ours')
                    else 'no time to solution (setup not recorded)' if any(r.get('status') == 'ok' for r in g if r.get('role') == 'ours') else 'none finished',
                    fmt(o['total_s']) if o else '-', esc(a['solver']) if a else '-', fmt(a['total_s']) if a else '-', ratio))
        out.append('')
        # every row
        out.append('| problem | size | solver | status / time to solution (s) | iterations | setup (s) | solve (s) | ms / iteration | model ms / iteration | residual |')
        out.append('|---|---|---|---|---|---|---|---|---|---|')
        for p in problems:
            for r in sorted([r for r in rows_m if r['problem'] == p], key=lambda r: (size_key(r), r.get('role') != 'ours')):
                mm = model_ms(r, bw)
                mcell = '-'
                if mm:
                    mcell = fmt(mm, 3) + (' (%.2gx)' % (r['ms_per_iteration'] / mm) if r.get('ms_per_iteration') and r.get('status') == 'ok' else '')
                res = fmt(r.get('residual'), 3) if r.get('residual') is not None else '-'
                out.append('| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |' % (
                    esc(p), r['size'], ('**%s**' % esc(r['solver'])) if r.get('role') == 'ours' else esc(r['solver']), status_cell(r),
                    fmt(r.get('iterations')), fmt(r.get('setup_s')), fmt(r.get('solve_s')), fmt(r.get('ms_per_iteration'), 3), mcell, res))
        kinds = sorted({r.get('residual_kind') for r in rows_m if r.get('residual_kind')})
        out.append('')
        out.append('Bold: petsckp. Anchor / ours = time to solution of the best anchor over ours (> 1: ours is faster).'
                   + (' Model = bytes per unknown and iteration x unknowns / %.0f GB/s (%s); in brackets measured / model.' % (bw, bwsrc)
                      if bw and any(r.get('model_bytes') for r in rows_m) else '')
                   + (' Residual: %s.' % '; '.join(kinds) if kinds else '') + setup_note(rows_m))
        v = rows_m[0].get('versions', {})
        out.append('PETSc %s, Kokkos %s%s, petsckp %s.' % (v.get('petsc') or '?', v.get('kokkos') or '?',
                                                       ', CUDA %s' % v['cuda'] if v.get('cuda') else '', commits(rows_m)))
        commands_block(rows_m, out)
        out.append('')
        for f in plots(rows_m, part, m, bw, outdir):
            out.append('![%s](%s)' % (os.path.splitext(f)[0], f))
        out.append('')


# -log_view events of the benchmark programs' own matrix assembly and checks, not of the solvers, and the generic PC
# events that repeat a PC's own setup and apply events
PROGRAM_EVENTS = {'DMCreateMat', 'MatAssemblyBegin', 'BuildTwoSided', 'BuildTwoSidedF', 'MatMult'}
NESTED_EVENTS = {'PCSetUp', 'PCApply'}


def scaling_section(recs, out, plots, outdir):
    """several GPUs: per machine, solver and kind (strong: one problem on 1, 2, 4 GPUs; weak: about fixed unknowns per
    GPU) the time to solution, the speed-up over one GPU, the parallel efficiency and the built-in's time at the same
    GPUs; then where the time goes (the largest -log_view events of our solver at 1 GPU and at the most GPUs)"""
    rows_s = [r for r in recs if r.get('part') == 'scaling']
    if not rows_s:
        return
    out.append('## Several GPUs: strong and weak scaling')
    out.append('')
    out.append('One MPI rank per GPU (PETSc gives rank r the GPU r % GPUs; petsckp runs on PETSc\'s device and stream). '
               'Strong: one problem on p = 1, 2 and 4 ranks, efficiency = T(1) / (p T(p)); weak: about the same unknowns per '
               'rank, efficiency = T(1) / T(p) (not normalised: compare the unknowns per rank, and the iterations, which '
               'grow with the problem for most methods); per iteration: the same efficiency of the time per iteration, which '
               'leaves the growth of the iterations out. vs built-in = the built-in\'s time to solution over ours at the '
               'same ranks. GPUs: the GPUs the ranks ran on (fewer than the ranks: shared; 0: host types on the CPU).')
    out.append('')
    for m in sorted({machine(r) for r in rows_s}):
        rows_m = [r for r in rows_s if machine(r) == m]
        out.append('### %s' % m)
        out.append('')
        out.append('| solver | scaling | problem | size | ranks | GPUs | unknowns per rank | iterations | time to solution (s) | speed-up over 1 rank | efficiency | per iteration | vs built-in |')
        out.append('|---|---|---|---|---|---|---|---|---|---|---|---|---|')
        groups = collections.OrderedDict()
        for r in rows_m:
            groups.setdefault((r['extra'].get('solver_part', ''), r['extra'].get('scaling', ''), r['problem'], r['solver']), []).append(r)
        for (part, kind, prob, solver), g in groups.items():
            g = sorted(g, key=lambda r: r.get('ranks') or 1)
            base = next((r for r in g if (r.get('ranks') or 1) == 1 and ok(r)), None)
            for r in g:
                p = r.get('ranks') or 1
                sp = eff = effit = vs = '-'
                if ok(r) and r['total_s'] > 0 and base is not None:
                    sp = '%.2fx' % (base['total_s'] / r['total_s']) if kind == 'strong' else '-'
                    eff = '%.0f%%' % (100 * base['total_s'] / r['total_s'] / (p if kind == 'strong' else 1))
                    if r.get('iterations') and base.get('iterations'):  # the same, per iteration: the distribution alone
                        effit = '%.0f%%' % (100 * (base['total_s'] / base['iterations']) / (r['total_s'] / r['iterations']) / (p if kind == 'strong' else 1))
                if r.get('role') == 'ours':
                    same = [x for x in rows_m if x['problem'] == r['problem'] and x.get('size') == r.get('size')
                            and (x.get('ranks') or 1) == p]
                    q = speedup(same, r)
                    if q is not None:
                        vs = ('> %.3gx' if q[1] else '%.3gx') % q[0]
                name = ('**%s**' % esc(solver)) if r.get('role') == 'ours' else esc(solver)
                g_ = r.get('gpus')
                gcell = '-' if g_ is None else '%d%s' % (g_, ' (shared)' if 0 < g_ < p else '')
                out.append('| %s | %s | %s | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s |' % (
                    name, kind, esc(prob.split(': ', 1)[-1]), r['size'], p, gcell, fmt(int(round((r.get('unknowns') or 0) / p))),
                    fmt(r.get('iterations')) if r.get('status') in ('ok', 'not converged') else '-', status_cell(r), sp, eff, effit, vs))
        out.append('')
        # where the time goes: our solvers' largest events, strong scaling, at 1, 2 and 4 GPUs
        ev_rows = [r for r in rows_m if r.get('role') == 'ours' and r['extra'].get('events')]
        if ev_rows:
            out.append('Where the time goes (strong scaling): the -log_view events with the largest share of the run (%%T: '
                       'percent of the logged run time, which includes the program\'s own assembly; max over ranks), as '
                       'seconds (%%T). A GPU build prints n/a for the time of events that launch device work without waiting '
                       'for it; their seconds are then %%T of the run time (the host time of the event). Events nest: '
                       'KSPSolve holds the PC\'s apply events. Left out: the programs\' own assembly and checks (%s) and the '
                       'generic PC events that repeat the PC\'s own (%s).' % (', '.join(sorted(PROGRAM_EVENTS)), ', '.join(sorted(NESTED_EVENTS))))
            out.append('')
            out.append('| solver | problem | event | 1 rank | 2 ranks | 4 ranks |')
            out.append('|---|---|---|---|---|---|')
            for (part, kind, prob, solver), g in groups.items():
                if kind != 'strong':
                    continue
                byp = {(r.get('ranks') or 1): {e[0]: e[1:] for e in r['extra'].get('events') or []}
                       for r in g if r.get('role') == 'ours' and r['extra'].get('events')}
                if not byp:
                    continue
                top = max(byp)
                names = [k for k, _ in sorted(byp[top].items(), key=lambda kv: -kv[1][1]) if k not in PROGRAM_EVENTS | NESTED_EVENTS][:6]
                cell = lambda v: '-' if v is None else '%s (%d%%)' % (fmt(v[0], 3), v[1])
                for i, e in enumerate(names):
                    out.append('| %s | %s | %s | %s |' % (esc(solver) if i == 0 else '', esc(prob.split(': ', 1)[-1]) if i == 0 else '', e,
                                                         ' | '.join(cell(byp.get(p, {}).get(e)) for p in (1, 2, 4))))
            out.append('')
        v = rows_m[0].get('versions', {})
        out.append('PETSc %s, Kokkos %s%s, MPI %s, petsckp %s.' % (v.get('petsc') or '?', v.get('kokkos') or '?',
                                                               ', CUDA %s' % v['cuda'] if v.get('cuda') else '', (v.get('mpi') or '?')[:40], commits(rows_m)))
        commands_block(rows_m, out)
        out.append('')
        for f in getattr(plots, 'scaling', lambda *a: [])(rows_m, m, outdir):
            out.append('![%s](%s)' % (os.path.splitext(f)[0], f))
        out.append('')


def types_section(recs, out):
    """rows run on one device with two of PETSc's GPU vector and matrix types (--types cuda and --types kokkos: a PETSc
    built with CUDA alone, and one with its own Kokkos), side by side: how much the types cost petsckp's solvers
    (read and written in place in both) and PETSc's anchors"""
    by = collections.defaultdict(dict)
    for r in recs:
        if r.get('part') == 'scaling' or r.get('types') not in ('cuda', 'kokkos'):
            continue
        g = r.get('gpus_on_machine') or 0
        dev = '%s%s' % (r.get('device', '?'), ' x%d' % g if g > 1 else '')  # machine() without the types
        by[(dev, r.get('part'), r.get('problem'), r.get('size'), r.get('solver'), r.get('ranks') or 1)][r['types']] = r
    pairs = [(k, v) for k, v in by.items() if len(v) == 2]
    if not pairs:
        return
    out.append('## PETSc\'s Kokkos types against its CUDA types')
    out.append('')
    out.append('The same rows on the same device with `-vec_type kokkos -mat_type aijkokkos` (PETSc built with its own Kokkos and '
               'Kokkos Kernels) and with `-vec_type cuda -mat_type aijcusparse` (PETSc built with CUDA alone). petsckp reads '
               'and writes both in place; the anchors are PETSc\'s own implementations of each type.')
    out.append('')
    out.append('| device | problem | size | solver | iterations (cuda / kokkos) | time to solution, cuda (s) | kokkos (s) | kokkos / cuda |')
    out.append('|---|---|---|---|---|---|---|---|')
    for k, v in sorted(pairs, key=lambda kv: (kv[0][0] or '', kv[0][1] or '', kv[0][2] or '', size_key(kv[1]['cuda']),
                                              kv[1]['cuda'].get('role') != 'ours', kv[0][4] or '')):
        c, q = v['cuda'], v['kokkos']
        ratio = fmt(q['total_s'] / c['total_s'], 3) + 'x' if ok(c) and ok(q) and c['total_s'] > 0 else '-'
        name = '**%s**' % esc(k[4]) if c.get('role') == 'ours' else esc(k[4])
        out.append('| %s | %s | %s | %s | %s / %s | %s | %s | %s |' % (esc(k[0]), esc(k[2]), esc(k[3]), name, fmt(c.get('iterations')),
                                                               fmt(q.get('iterations')), status_cell(c), status_cell(q), ratio))
    out.append('')


def make_plotter(enabled):
    if not enabled:
        return lambda *a: [], None
    try:
        import matplotlib
        matplotlib.use('Agg')
        import matplotlib.pyplot as plt
    except Exception as e:  # no matplotlib: the report without plots
        return (lambda *a: []), 'matplotlib is not available (%s); install Debian\'s python3-matplotlib for the plots' % e

    def series(rows, ykey):
        s = collections.OrderedDict()
        for r in sorted(rows, key=size_key):
            y = r.get(ykey)
            if r.get('status') in ('ok', 'published') and y is not None and r.get('unknowns') and y > 0:
                s.setdefault(r['solver'], []).append((r['unknowns'], y, r.get('role')))
        return s

    def plots(rows, part, m, bw, outdir):
        files = []
        problems = []
        for r in rows:
            if r['problem'] not in problems:
                problems.append(r['problem'])
        base = 'report_%s_%s' % (slug(m), part)
        for ykey, ylabel, tag in (('total_s', 'time to solution (s)', 'time'), ('iterations', 'iterations', 'iterations')):
            fig, axes = plt.subplots(1, len(problems), figsize=(5.2 * len(problems), 4.2), squeeze=False)
            drawn = False
            for ax, p in zip(axes[0], problems):
                for solver, pts in series([r for r in rows if r['problem'] == p], ykey).items():
                    xs, ys, roles = zip(*pts)
                    style = '-o' if roles[0] == 'ours' else '--s' if roles[0] == 'anchor' else ':^'
                    ax.plot(xs, ys, style, label=solver, linewidth=2 if roles[0] == 'ours' else 1)
                    drawn = True
                ax.set_xscale('log')
                ax.set_yscale('log')
                ax.set_xlabel('unknowns')
                ax.set_ylabel(ylabel)
                ax.set_title(p, fontsize=9)
                ax.grid(True, which='both', alpha=0.3)
                if ax.get_legend_handles_labels()[0]:
                    ax.legend(fontsize=7)
            fig.suptitle('%s: %s (%s)' % (part, ylabel, m), fontsize=10)
            fig.tight_layout()
            if drawn:
                f = '%s_%s.png' % (base, tag)
                fig.savefig(os.path.join(outdir, f), dpi=90)
                files.append(f)
            plt.close(fig)
        pts = [(model_ms(r, bw), r['ms_per_iteration'], r) for r in rows
               if r.get('status') == 'ok' and r.get('ms_per_iteration') and model_ms(r, bw)]
        if pts:
            fig, ax = plt.subplots(figsize=(5.5, 4.5))
            for solver in sorted({r['solver'] for _, _, r in pts}):
                q = [(x, y) for x, y, r in pts if r['solver'] == solver]
                ax.loglog([x for x, _ in q], [y for _, y in q], 'o', label=solver)
            lo, hi = min(min(x, y) for x, y, _ in pts) / 2, max(max(x, y) for x, y, _ in pts) * 2
            ax.loglog([lo, hi], [lo, hi], 'k-', linewidth=0.8, label='measured = model')
            ax.loglog([lo, hi], [2 * lo, 2 * hi], 'k:', linewidth=0.8, label='2x model')
            ax.set_xlabel('bandwidth model, ms per iteration (%.0f GB/s)' % bw)
            ax.set_ylabel('measured ms per iteration')
            ax.set_title('%s: time per iteration vs bandwidth model' % part, fontsize=9)
            ax.grid(True, which='both', alpha=0.3)
            ax.legend(fontsize=7)
            fig.tight_layout()
            f = '%s_model.png' % base
            fig.savefig(os.path.join(outdir, f), dpi=90)
            plt.close(fig)
            files.append(f)
        return files

    def headline(recs, outdir):
        """speed-up of our best solver over the PETSc built-in, per problem of the main job, one panel per machine; a
        built-in that hit its time limit gives a lower bound (hatched bar, '>')"""
        main = [r for r in recs if r.get('part') == 'main']
        panels = []
        for m in machines(main):
            labels, vals, lower = [], [], []
            for p in collections.OrderedDict(((r['problem'], r['size']), 1) for r in main if machine(r) == m):
                g = [r for r in main if machine(r) == m and (r['problem'], r['size']) == p]
                o = best(g, ('ours',))
                q = speedup(g, o) if o else None
                if q is not None:
                    b = next(r for r in g if r.get('builtin'))
                    labels.append('%s\n%s\n%s\nvs %s' % (p[0][:26], p[1], o['solver'][:26], b['solver'][:26]))
                    vals.append(q[0])
                    lower.append(q[1])
            if vals:
                panels.append((m, labels, vals, lower))
        if not panels:
            return None
        width = max(6, 2.6 * max(len(p[2]) for p in panels))
        fig, axes = plt.subplots(len(panels), 1, figsize=(width, 5 * len(panels)), squeeze=False)
        for ax, (m, labels, vals, lower) in zip(axes[:, 0], panels):
            bars = ax.bar(range(len(vals)), vals, color=['tab:green' if v >= 1 else 'tab:red' for v in vals],
                          hatch=None)
            for b, lo in zip(bars, lower):
                if lo:
                    b.set_hatch('//')
            ax.axhline(1, color='k', linewidth=0.8)
            ax.set_yscale('log')
            ax.set_xticks(range(len(vals)))
            ax.set_xticklabels(labels, fontsize=7)
            ax.set_ylabel('speed-up over the PETSc built-in\n(time to solution)')
            ax.set_title('petsckp main job, %s' % m, fontsize=10)
            for b, v, lo in zip(bars, vals, lower):
                ax.text(b.get_x() + b.get_width() / 2, v, ('> %.3gx' if lo else '%.3gx') % v, ha='center', va='bottom', fontsize=8)
        fig.tight_layout()
        f = 'report_headline.png'
        fig.savefig(os.path.join(outdir, f), dpi=90)
        plt.close(fig)
        return f

    def scaling(rows, m, outdir):
        """strong scaling: time to solution against GPUs (log-log, with the ideal 1/p line of our solvers); weak
        scaling: efficiency T(1)/T(p) against GPUs; one panel per solver"""
        files = []
        for kind in ('strong', 'weak'):
            rk = [r for r in rows if r['extra'].get('scaling') == kind]
            parts = list(collections.OrderedDict((r['extra'].get('solver_part', ''), 1) for r in rk))
            if not parts:
                continue
            fig, axes = plt.subplots(1, len(parts), figsize=(4.2 * len(parts), 4.0), squeeze=False)
            drawn = False
            for ax, part in zip(axes[0], parts):
                series = collections.OrderedDict()
                for r in sorted(rk, key=lambda r: r.get('ranks') or 1):
                    if r['extra'].get('solver_part') == part and ok(r) and r['total_s'] > 0:
                        series.setdefault((r['problem'].split(': ', 1)[-1], r['solver'], r.get('role')), []).append((r.get('ranks') or 1, r['total_s']))
                for (prob, solver, role), pts in series.items():
                    xs, ys = zip(*pts)
                    if kind == 'strong':
                        ax.plot(xs, ys, '-o' if role == 'ours' else '--s', label='%s (%s)' % (solver[:32], prob[:22]),
                                linewidth=2 if role == 'ours' else 1)
                        if role == 'ours' and xs[0] == 1:
                            ax.plot(xs, [ys[0] / x for x in xs], 'k:', linewidth=0.8)
                    elif xs[0] == 1:
                        ax.plot(xs, [ys[0] / y for y in ys], '-o' if role == 'ours' else '--s', label=solver[:32],
                                linewidth=2 if role == 'ours' else 1)
                    drawn = True
                ax.set_xscale('log', base=2)
                ax.set_xticks([1, 2, 4])
                ax.set_xticklabels(['1', '2', '4'])
                ax.set_xlabel('GPUs')
                if kind == 'strong':
                    ax.set_yscale('log')
                    ax.set_ylabel('time to solution (s); dotted: ideal')
                else:
                    ax.set_ylim(0, 1.2)
                    ax.axhline(1, color='k', linewidth=0.8, linestyle=':')
                    ax.set_ylabel('weak efficiency T(1) / T(p)')
                ax.set_title(part, fontsize=9)
                ax.grid(True, which='both', alpha=0.3)
                if ax.get_legend_handles_labels()[0]:
                    ax.legend(fontsize=6)
            fig.suptitle('%s scaling (%s)' % (kind, m), fontsize=10)
            fig.tight_layout()
            if drawn:
                f = 'report_%s_scaling_%s.png' % (slug(m), kind)
                fig.savefig(os.path.join(outdir, f), dpi=90)
                files.append(f)
            plt.close(fig)
        return files

    plots.headline = headline
    plots.scaling = scaling
    return plots, None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('raw', nargs='+', help='results.jsonl files written by bench/run_all.sh')
    ap.add_argument('-o', '--output', required=True, help='markdown file to write (plots go next to it)')
    ap.add_argument('--main', action='store_true', help="only the main job's table")
    ap.add_argument('--no-plots', action='store_true')
    ap.add_argument('--bw', type=float, help='device bandwidth in GB/s for the model (default: measured or nominal)')
    a = ap.parse_args()
    recs = load(a.raw)
    if not recs:
        sys.exit('report: no records in %s' % ' '.join(a.raw))
    outdir = os.path.dirname(os.path.abspath(a.output))
    os.makedirs(outdir, exist_ok=True)
    out = []
    if a.main:
        if not any(r.get('part') == 'main' for r in recs):
            sys.exit('report: no rows of the main part in %s (bench/run_all.sh <build> <out> main)' % ' '.join(a.raw))
        main_table(recs, out, '###')
    else:
        plots, why = make_plotter(not a.no_plots)
        devices = machines(recs)
        out.append('# petsckp benchmark report')
        out.append('')
        out.append('Written by `bench/report.py` from the raw results of `bench/run_all.sh` (%s). Machines: %s.' % (
            ', '.join(os.path.basename(p) for p in a.raw), '; '.join(devices)))
        out.append('Rerun: `bench/run_all.sh <build> <out> [part ...]` on each machine, then '
                   '`python3 bench/report.py <out>/results.jsonl ... -o bench/results/REPORT.md`.')
        out.append('')
        st = collections.Counter(r.get('status') for r in recs)
        out.append('Rows: %s.' % ', '.join('%d %s' % (v, k) for k, v in sorted(st.items())))
        if why:
            out.append('')
            out.append('Plots not drawn: %s.' % why)
        out.append('')
        h = getattr(plots, 'headline', None)
        hf = h(recs, outdir) if h else None
        if hf:
            out.append('![speed-up of petsckp over the PETSc built-in](%s)' % hf)
            out.append('')
        out.append('| machine | PETSc | Kokkos | CUDA | MPI | petsckp commit | dates |')
        out.append('|---|---|---|---|---|---|---|')
        for m in devices:
            rs = [r for r in recs if machine(r) == m]
            v = rs[0].get('versions', {})
            ds = sorted(r['date'][:10] for r in rs if r.get('date'))
            out.append('| %s | %s | %s %s | %s | %s | %s | %s |' % (m, v.get('petsc') or '?', v.get('kokkos') or '?',
                                                               '(%s)' % v['kokkos_devices'] if v.get('kokkos_devices') else '',
                                                               v.get('cuda') or '-', (v.get('mpi') or '?')[:40], commits(rs),
                                                               ds[0] if ds and ds[0] == ds[-1] else ' to '.join([ds[0], ds[-1]]) if ds else '?'))
        out.append('')
        main_table(recs, out)
        for p in list(PART_TITLES)[1:] + sorted({r.get('part') for r in recs} - set(PART_TITLES) - {'scaling'}):
            part_section(recs, p, out, plots, outdir, a.bw)
        scaling_section(recs, out, plots, outdir)
        types_section(recs, out)
    with open(a.output, 'w') as f:
        f.write('\n'.join(out).rstrip() + '\n')
    print('report: wrote %s (%d rows)' % (a.output, len(recs)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
