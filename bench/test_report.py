#!/usr/bin/env python3
"""ctest of the benchmark chain (label bench).

  test_report.py --sample <raw.jsonl> --out <dir>      report.py on a committed sample of raw results
  test_report.py --build <build dir> --out <dir>       run_all.py --cpu --toy main on this build, then report.py --main
  test_report.py --build <build dir> --out <dir> --part scaling
                                                     run_all.py --cpu --toy scaling (1, 2 and 4 ranks), then report.py

Checks that the markdown is written with its tables (the main job's table with its speed-up column, the per-part
tables), that skipped rows carry their reason, and that the PNG plots exist when matplotlib can be imported (the
report says why they are missing otherwise).
"""
import argparse
import glob
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def fail(msg):
    print('FAILED: ' + msg)
    sys.exit(1)


def report(raw, out, *extra):
    os.makedirs(out, exist_ok=True)
    for f in glob.glob(os.path.join(out, '*.png')) + glob.glob(os.path.join(out, '*.md')):
        os.remove(f)
    md = os.path.join(out, 'REPORT.md')
    p = subprocess.run([sys.executable, os.path.join(HERE, 'report.py'), raw, '-o', md] + list(extra), capture_output=True, text=True)
    print(p.stdout + p.stderr)
    if p.returncode != 0:
        fail('report.py exited with %d' % p.returncode)
    if not os.path.exists(md):
        fail('report.py wrote no %s' % md)
    return open(md).read()


def check_main_table(text):
    if '| problem | solver | iterations | setup (s) | solve (s) | time to solution (s) | speed-up vs PETSc built-in |' not in text:
        fail("no main job table header")
    if '**1 (built-in)**' not in text:
        fail('no PETSc built-in reference row in the main table')
    if 'Commands ($BUILD: the build directory)' not in text:
        fail('no command lines below the table')


def check_scaling(recs, text):
    """every solver of ours ran at 1, 2 and 4 ranks, strong and weak, with its -log_view events; the report has the
    scaling table and the table of events"""
    runs = {}
    for r in recs:
        if r['role'] == 'ours':
            runs.setdefault((r['extra'].get('solver_part'), r['extra'].get('scaling')), set()).add(r['ranks'])
            if r['status'] == 'ok' and not r['extra'].get('events'):
                fail('%s at %d ranks: no -log_view events recorded' % (r['solver'], r['ranks']))
            if not r['command'].startswith('mpiexec -n %d ' % r['ranks']):
                fail('%s: not launched on %d ranks: %s' % (r['solver'], r['ranks'], r['command']))
    for part in ('dcg', 'psormg', 'lbfgsb', 'uaamg', 'pscr'):
        for kind in ('strong', 'weak'):
            if runs.get((part, kind)) != {1, 2, 4}:
                fail('%s, %s scaling: ranks %s, not 1, 2 and 4' % (part, kind, sorted(runs.get((part, kind), []))))
    for h in ('## Several GPUs: strong and weak scaling', '| solver | scaling | problem | size | ranks | GPUs | unknowns per rank |',
              '| solver | problem | event | 1 rank | 2 ranks | 4 ranks |', '$BUILD/examples/'):
        if h not in text:
            fail('REPORT.md lacks %r' % h)


def check_types(sample, out):
    """the same rows with --types cuda and --types kokkos on one device: the side-by-side table with their ratio"""
    os.makedirs(out, exist_ok=True)
    recs = [json.loads(l) for l in open(sample) if l.strip()]
    recs = [r for r in recs if r.get('status') == 'ok' and r.get('total_s')][:3]
    raw = os.path.join(out, 'types.jsonl')
    with open(raw, 'w') as f:
        for r in recs:
            for t, scale in (('cuda', 1.0), ('kokkos', 1.5)):
                q = dict(r, types=t, device='GPU X', total_s=r['total_s'] * scale)
                f.write(json.dumps(q) + '\n')
    text = report(raw, out, '--no-plots')
    if "## PETSc's Kokkos types against its CUDA types" not in text:
        fail('no table of the Kokkos types against the CUDA types')
    if text.count('| 1.5x |') != len(recs):
        fail('the Kokkos / CUDA ratio of %d rows is not 1.5x' % len(recs))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--sample')
    ap.add_argument('--build')
    ap.add_argument('--out', required=True)
    ap.add_argument('--part', default='main', choices=('main', 'scaling'))
    a = ap.parse_args()
    if a.sample:
        text = report(a.sample, a.out)
        check_main_table(text)
        for h in ('# petsckp benchmark report', '| problem | size | our best | time (s) | best anchor | time (s) | anchor / ours |',
                  '| problem | size | solver | status / time to solution (s) |', 'skipped: PC type uaamg is not registered'):
            if h not in text:
                fail('REPORT.md lacks %r' % h)
        try:
            import matplotlib  # noqa: F401
            pngs = glob.glob(os.path.join(a.out, '*.png'))
            if not pngs:
                fail('matplotlib is available but no plot was written')
            print('plots: %d PNG files' % len(pngs))
        except ImportError:
            if 'Plots not drawn: matplotlib is not available' not in text:
                fail('without matplotlib the report must say why it has no plots')
            print('plots: none (no matplotlib), as the report says')
        # --main alone
        text = report(a.sample, os.path.join(a.out, 'main'), '--main')
        check_main_table(text)
        check_types(a.sample, os.path.join(a.out, 'types'))
    if a.build:
        raw = os.path.join(a.out, 'results.jsonl')
        if os.path.exists(raw):
            os.remove(raw)
        p = subprocess.run([sys.executable, os.path.join(HERE, 'run_all.py'), '--build', a.build, '--out', a.out, '--cpu', '--toy', a.part],
                           capture_output=True, text=True)
        print(p.stdout + p.stderr)
        if p.returncode != 0:
            fail('run_all.py exited with %d' % p.returncode)
        recs = [json.loads(l) for l in open(raw)]
        for r in recs:
            for k in ('device', 'versions', 'date', 'command', 'status', 'iterations', 'setup_s', 'solve_s', 'total_s', 'residual'):
                if k not in r:
                    fail('record %s lacks %s' % (r.get('id'), k))
            if r['status'] == 'skipped' and not r.get('reason'):
                fail('skipped row %s without a reason' % r['id'])
            if r['role'] == 'ours' and r['status'] not in ('ok', 'skipped'):
                fail('%s, %s: %s (%s)' % (r['problem'], r['solver'], r['status'], r.get('reason')))
        if not any(r['status'] == 'ok' and r['role'] == 'ours' for r in recs):
            fail('no row of ours ran')
        if a.part == 'main':
            check_main_table(report(raw, a.out, '--main'))
            # --only: the rows of one solver alone (the rerun of some rows of a part in a later device call)
            sub = os.path.join(a.out, 'only')
            if os.path.exists(os.path.join(sub, 'results.jsonl')):
                os.remove(os.path.join(sub, 'results.jsonl'))
            p = subprocess.run([sys.executable, os.path.join(HERE, 'run_all.py'), '--build', a.build, '--out', sub, '--cpu', '--toy',
                                '--only', 'uaamg', 'main'], capture_output=True, text=True)
            if p.returncode != 0:
                fail('run_all.py --only exited with %d: %s' % (p.returncode, p.stdout + p.stderr))
            only = [json.loads(l) for l in open(os.path.join(sub, 'results.jsonl'))]
            if not only or any('uaamg' not in '%s | %s | %s' % (r['solver'], r['problem'], r['size']) for r in only):
                fail('run_all.py --only uaamg recorded %s' % [r['solver'] for r in only])
            print('--only uaamg: %d rows' % len(only))
        else:
            check_scaling(recs, report(raw, a.out))
    print('PASSED')


if __name__ == '__main__':
    main()
