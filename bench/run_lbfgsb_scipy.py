#!/usr/bin/python3
"""scipy's L-BFGS-B (the reference Fortran L-BFGS-B 3.0) on the CPU on the DSSCFG problem of bench/run_lbfgsb.sh.

  /usr/bin/python3 bench/run_lbfgsb_scipy.py [--sizes 128 256 512 1024] [--pg 1e-6] [--m 8] [--time-limit 60]
                                              [--check-exe build/examples/minpack2] [--out table.md]

The problem is examples/minpack2 -problem dsscfg, i.e. MINPACK-2 steady-state combustion as cuLBFGSB's example
examples/dsscfg defines it: lambda = 1, no bounds, the triangles anchored at interior grid points only, start
lambda/(lambda+1) sqrt(min(min(i, nx-i) hx, min(j, ny-j) hy)); f and g in numpy, the same formulas as the example.
The stopping test is the one every solver gets in run_lbfgsb.sh: ||P(x - g) - x||_inf <= pg (scipy's gtol, which is
L-BFGS-B's pgtol on that norm), with the relative-f test off (ftol = 0, like -tao_lbfgsb_factr 0). A size that
does not finish within --time-limit seconds is reported with the iterations done. Prints a markdown table
(iterations, f/g evaluations, time to solution, f/g time, solver-only ms/iteration = (total - f/g) / iterations).
--check-exe: first compares f at the start with the example's device and host f (-check_fg -info, 17 x 13 grid).
"""
import argparse
import os
import platform
import re
import subprocess
import sys
import time

try:
    import numpy as np
    import scipy
    from scipy.optimize import minimize
except ImportError as e:  # pragma: no cover
    print('SKIP: %s has no numpy/scipy (%s); use Debian\'s /usr/bin/python3 with python3-scipy' % (sys.executable, e))
    sys.exit(77)


def dsscfg(nx, ny, lam=1.0):
    """(fg, x0): f and gradient of examples/minpack2 -problem dsscfg on an nx x ny interior grid (x[j * nx + i])"""
    hx, hy = 1.0 / (nx + 1), 1.0 / (ny + 1)
    area = 0.5 * hx * hy

    def fg(x):
        V = np.zeros((ny + 2, nx + 2))
        V[1:-1, 1:-1] = x.reshape(ny, nx)
        E = np.exp(V)
        G = np.zeros_like(V)
        c = (slice(1, -1), slice(1, -1))                          # anchors (interior points)
        va, ea = V[c], E[c]
        f = 0.0
        # lower triangles (i, j), (i + 1, j), (i, j + 1); upper triangles (i, j), (i - 1, j), (i, j - 1)
        for s in (1, -1):
            b = (slice(1, -1), slice(1 + s, V.shape[1] - 1 + s))  # (i + s, j)
            cc = (slice(1 + s, V.shape[0] - 1 + s), slice(1, -1))  # (i, j + s)
            vb, vc, eb, ec = V[b], V[cc], E[b], E[cc]
            dx, dy = (vb - va) / hx, (vc - va) / hy
            f += np.sum(0.5 * area * (dx * dx + dy * dy)) - area * lam / 3.0 * np.sum(ea + eb + ec)
            G[c] += area * (-dx / hx - dy / hy) - area * lam / 3.0 * ea
            G[b] += area * dx / hx - area * lam / 3.0 * eb
            G[cc] += area * dy / hy - area * lam / 3.0 * ec
        return f, G[1:-1, 1:-1].ravel().copy()

    i = np.arange(nx)[None, :]
    j = np.arange(ny)[:, None]
    d = np.minimum(np.minimum(i, nx - i) * hx, np.minimum(j, ny - j) * hy)
    x0 = (lam / (lam + 1.0) * np.sqrt(d)).ravel()
    return fg, x0


class TimeUp(Exception):
    pass


def solve(n, pg, m, tlimit):
    fg, x0 = dsscfg(n, n)
    st = {'nfg': 0, 'tfg': 0.0, 'its': 0, 'f': None, 'x': x0}
    t0 = time.perf_counter()

    def fun(x):
        if time.perf_counter() - t0 > tlimit:
            raise TimeUp()
        a = time.perf_counter()
        r = fg(x)
        st['tfg'] += time.perf_counter() - a
        st['nfg'] += 1
        return r

    def cb(xk):
        st['its'] += 1
        st['x'] = xk.copy()

    reason = ''
    try:
        res = minimize(fun, x0, jac=True, method='L-BFGS-B', callback=cb,
                       options=dict(maxcor=m, gtol=pg, ftol=0.0, maxiter=10 ** 7, maxfun=10 ** 7, maxls=20))
        its, f, x, reason = res.nit, res.fun, res.x, res.message if isinstance(res.message, str) else res.message.decode()
    except TimeUp:
        its, x = st['its'], st['x']
        f = fg(x)[0]
        reason = 'not reached in %g s' % tlimit
    total = time.perf_counter() - t0
    g = fg(x)[1]
    return dict(n=n * n, its=its, nfg=st['nfg'], total=total, tfg=st['tfg'], f=f, pginf=np.max(np.abs(g)), reason=reason)


def check(exe):
    fg, x0 = dsscfg(17, 13)
    f = fg(x0)[0]
    out = subprocess.run([exe, '-problem', 'dsscfg', '-nx', '17', '-ny', '13', '-check_fg', '-info'],
                         capture_output=True, text=True).stdout
    m = re.search(r'f at the start: device (\S+), host (\S+)', out)
    if not m:
        sys.exit('no "f at the start" line from %s -check_fg -info:\n%s' % (exe, out[-2000:]))
    fd, fh = float(m.group(1)), float(m.group(2))
    ok = abs(fd - f) <= 1e-13 * abs(f) and abs(fh - f) <= 1e-13 * abs(f)
    print('check against %s: f(x0) numpy %.16e, example device %s, host %s: %s' % (exe, f, m.group(1), m.group(2),
                                                                                  'agree' if ok else 'DIFFER'))
    if not ok:
        sys.exit(1)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--sizes', type=int, nargs='+', default=[128, 256, 512, 1024])
    ap.add_argument('--pg', type=float, default=1e-6)
    ap.add_argument('--m', type=int, default=8)
    ap.add_argument('--time-limit', type=float, default=60.0)
    ap.add_argument('--check-exe', default='')
    ap.add_argument('--out', default='')
    a = ap.parse_args()
    if a.check_exe:
        check(a.check_exe)
    cpu = platform.processor() or platform.machine()
    try:
        with open('/proc/cpuinfo') as fh:
            cpu = next(l.split(':', 1)[1].strip() for l in fh if l.startswith('model name'))
    except Exception:
        pass
    lines = ['# scipy L-BFGS-B (Fortran L-BFGS-B 3.0) on the CPU, DSSCFG (cuLBFGSB\'s problem)', '',
             '- %s, 1 core, scipy %s, numpy %s; m = %d, gtol (||P(x - g) - x||_inf) = %g, ftol = 0, at most %g s per size.'
             % (cpu, scipy.__version__, np.__version__, a.m, a.pg, a.time_limit),
             '- Command: `/usr/bin/python3 bench/run_lbfgsb_scipy.py %s`' % ' '.join(sys.argv[1:]), '',
             '| n | iterations | f/g evals | time to solution s | f/g s | solver-only ms/iter | f | final pg_inf | result |',
             '|---|---|---|---|---|---|---|---|---|']
    print('\n'.join(lines), flush=True)
    for n in a.sizes:
        r = solve(n, a.pg, a.m, a.time_limit)
        l = '| %d^2 | %d | %d | %.3f | %.3f | %.3f | %.10e | %.3e | %s |' % (
            n, r['its'], r['nfg'], r['total'], r['tfg'], 1000.0 * (r['total'] - r['tfg']) / max(r['its'], 1), r['f'],
            r['pginf'], r['reason'])
        print(l, flush=True)
        lines.append(l)
    if a.out:
        with open(a.out, 'w') as fh:
            fh.write('\n'.join(lines) + '\n')


if __name__ == '__main__':
    main()
