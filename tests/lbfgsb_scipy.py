#!/usr/bin/env python3
"""Iterate-by-iterate comparison of TAO lbfgsb with the reference L-BFGS-B 3.0 (scipy's fmin_l_bfgs_b wrapper).

  lbfgsb_scipy.py --exe build/examples/bounded --problem driver1 --n 25 --m 5 [--nsize 2] [--rtol 1e-10]

Runs the example `bounded` with -tao_type lbfgsb -print_iterates (under mpiexec when --nsize > 1), solves the same
problem (the formulas of examples/lbfgsb/bounded.c) with scipy.optimize.minimize(method='L-BFGS-B') with the same
memory, factr = 1e7 and pgtol = 1e-5, and requires the same number of iterations and the same f at every iteration
to a relative tolerance. Exits 0 on agreement, 1 on disagreement; prints a skip message and exits 77 (the CTest
SKIP_RETURN_CODE) when the Python running it has no scipy.
"""
import argparse
import os
import re
import shlex
import subprocess
import sys

try:
    import numpy as np
    import scipy
    from scipy.optimize import minimize
except ImportError as e:  # pragma: no cover
    print(f'SKIP: {sys.executable} has no numpy/scipy ({e}); install Debian\'s python3-scipy to run the L-BFGS-B agreement tests')
    sys.exit(77)


def problem(name, n):
    """(f_and_g, x0, bounds or None), with the formulas of examples/lbfgsb/bounded.c"""
    i = np.arange(n, dtype=float)
    inf = np.inf
    if name == 'driver1':
        def fg(x):
            f = 0.25 * (x[0] - 1.0) ** 2 + np.sum((x[1:] - x[:-1] ** 2) ** 2)
            t = x[1:] - x[:-1] ** 2
            g = np.zeros(n)
            g[0] = 2.0 * (x[0] - 1.0) - 16.0 * x[0] * t[0]
            g[1:-1] = 8.0 * t[:-1] - 16.0 * x[1:-1] * t[1:]
            g[-1] = 8.0 * t[-1]
            return 4.0 * f, g
        lo = np.where(np.arange(n) % 2 == 0, 1.0, -100.0)
        return fg, np.full(n, 3.0), list(zip(lo, np.full(n, 100.0)))
    if name == 'rosenbrock':
        def fg(x):
            a = x[1:] - x[:-1] ** 2
            b = 1.0 - x[:-1]
            g = np.zeros(n)
            g[:-1] += -400.0 * x[:-1] * a - 2.0 * b
            g[1:] += 200.0 * a
            return np.sum(100.0 * a * a + b * b), g
        return fg, np.where(np.arange(n) % 2 == 0, -1.2, 1.0), None
    if name == 'onesided':
        def fg(x):
            a = x - np.cos(i)
            f = np.sum((i + 1) * a * a / n)
            g = 2.0 * (i + 1) * a / n
            d = x[1:] - x[:-1]
            f += np.sum(0.5 * d * d)
            g[:-1] -= d
            g[1:] += d
            return f, g
        b = [(0.0, None) if k % 2 == 0 else (None, 0.3) for k in range(n)]
        return fg, np.ones(n), b
    if name == 'atbounds':
        def fg(x):
            f = np.sum((x - 2.0) ** 2) + 0.1 * np.sum(x[:-1] * x[1:])
            g = 2.0 * (x - 2.0)
            g[:-1] += 0.1 * x[1:]
            g[1:] += 0.1 * x[:-1]
            return f, g
        return fg, np.full(n, 0.5), [(0.0, 1.0)] * n
    if name == 'degenerate':
        def fg(x):
            s = np.sum(x)
            return np.sum((x + 1.0) ** 2) + 0.1 * s * s, 2.0 * (x + 1.0) + 0.2 * s
        return fg, np.ones(n), [(0.0, 10.0)] * n
    if name == 'tridiag':
        b = np.sin(i + 1)
        def fg(x):
            ax = 2.5 * x
            ax[1:] -= x[:-1]
            ax[:-1] -= x[1:]
            return np.sum(0.5 * x * ax - b * x), ax - b
        return fg, np.zeros(n), [(-0.2, 0.2)] * n
    raise SystemExit(f'unknown problem {name}')


def scipy_run(name, n, m):
    fg, x0, bounds = problem(name, n)
    fs = []
    res = minimize(fg, x0, jac=True, method='L-BFGS-B', bounds=bounds, callback=lambda xk: fs.append(fg(xk)[0]),
                   options=dict(maxcor=m, ftol=1e7 * np.finfo(float).eps, gtol=1e-5, maxls=20, maxiter=15000, maxfun=15000))
    if bounds is not None:  # L-BFGS-B projects an infeasible x0 first
        lo = np.array([-np.inf if b[0] is None else b[0] for b in bounds])
        hi = np.array([np.inf if b[1] is None else b[1] for b in bounds])
        x0 = np.clip(x0, lo, hi)
    return [fg(x0)[0]] + fs, res


def mpiexec(nsize):
    if nsize == 1:
        return []
    cmd = shlex.split(os.environ.get('MPIEXEC', 'mpiexec')) + ['-n', str(nsize)]
    if 'mpich' not in ' '.join(cmd):
        cmd += ['--oversubscribe', '--bind-to', 'none']
    return cmd


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--exe', required=True)
    ap.add_argument('--problem', required=True)
    ap.add_argument('--n', type=int, required=True)
    ap.add_argument('--m', type=int, default=10)
    ap.add_argument('--nsize', type=int, default=1)
    ap.add_argument('--rtol', type=float, default=1e-10)
    ap.add_argument('--extra', default='')
    ap.add_argument('--loose-after', type=int, default=-1,
                    help='compare iterations beyond this one only to --loose-rtol (round-off grows on ill-conditioned problems)')
    ap.add_argument('--loose-rtol', type=float, default=1e-6)
    a = ap.parse_args()
    env = dict(os.environ)
    env.setdefault('OMPI_ALLOW_RUN_AS_ROOT', '1')
    env.setdefault('OMPI_ALLOW_RUN_AS_ROOT_CONFIRM', '1')
    cmd = mpiexec(a.nsize) + [a.exe, '-problem', a.problem, '-n', str(a.n), '-tao_type', 'lbfgsb', '-tao_lbfgsb_m', str(a.m),
                              '-print_iterates', '-tao_max_it', '15000', '-tao_max_funcs', '15000'] + shlex.split(a.extra)
    cmd += shlex.split(os.environ.get('PETSCKP_TEST_ARGS', ''))
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        print(' '.join(cmd))
        print(p.stdout, p.stderr)
        print('FAIL: the example failed')
        return 1
    ours = [float(mm.group(2)) for mm in re.finditer(r'^iter\s+(\d+) f (\S+)', p.stdout, re.M)]
    ref, res = scipy_run(a.problem, a.n, a.m)
    print(f'{a.problem} n={a.n} m={a.m} ranks={a.nsize}: lbfgsb {len(ours) - 1} iterations, scipy {scipy.__version__} '
          f'{res.nit} iterations ({res.message}), f* {ours[-1]:.16e} vs {res.fun:.16e}')
    ok = True
    if len(ours) != len(ref):
        print(f'FAIL: {len(ours) - 1} iterations, scipy {len(ref) - 1}')
        ok = False
    scale0 = max(abs(ref[0]), 1.0)
    worst = 0.0
    for k, (fa, fb) in enumerate(zip(ours, ref)):
        # relative to the size of f, with the initial f as the floor when f goes to 0 (driver1 ends at 1e-9)
        err = abs(fa - fb) / max(abs(fb), 1e-6 * scale0)
        tol = a.rtol if a.loose_after < 0 or k <= a.loose_after else a.loose_rtol
        if tol == a.rtol:
            worst = max(worst, err)
        if err > tol:
            print(f'FAIL: iteration {k}: f = {fa:.17e}, scipy {fb:.17e}, relative difference {err:.2e} > {tol:.0e}')
            ok = False
            break
    upto = 'all iterations' if a.loose_after < 0 else f'iterations 0..{a.loose_after}, later ones within {a.loose_rtol:.0e}'
    print(f'largest relative difference of f ({upto}): {worst:.2e} (tolerance {a.rtol:.0e})')
    print('agreement: ' + ('passed' if ok else 'FAILED'))
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
