#!/usr/bin/env python3
"""Runs an unmodified PETSc TAO tutorial with TAO BLMVM and with libpetsckp's lbfgsb (loaded with -dll_append) and
checks that lbfgsb reaches the same optimum (relative difference of f below --rtol) in no more iterations.

  lbfgsb_tutorial.py --exe tutorials/tutorial_jbearing2 --lib libpetsckp.so --nsize 2 --args "-mx 48 -my 48"
"""
import argparse
import os
import re
import shlex
import subprocess
import sys


def run(cmd, env):
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    out = p.stdout + p.stderr
    if p.returncode != 0:
        print(' '.join(cmd))
        print(out)
        sys.exit('FAIL: the tutorial failed')
    f = re.search(r'Objective value=\s*(\S+)', out)
    it = re.search(r'total number of iterations=\s*(\d+)', out)
    reason = re.search(r'Solution converged:\s*(.*)', out)
    if not (f and it and reason):
        print(out)
        sys.exit('FAIL: no converged TaoView in the output')
    return float(f.group(1)), int(it.group(1)), reason.group(1).strip()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--exe', required=True)
    ap.add_argument('--lib', required=True)
    ap.add_argument('--nsize', type=int, default=1)
    ap.add_argument('--args', default='')
    ap.add_argument('--rtol', type=float, default=1e-5)
    a = ap.parse_args()
    env = dict(os.environ)
    env.setdefault('OMPI_ALLOW_RUN_AS_ROOT', '1')
    env.setdefault('OMPI_ALLOW_RUN_AS_ROOT_CONFIRM', '1')
    pre = []
    if a.nsize > 1:
        pre = shlex.split(os.environ.get('MPIEXEC', 'mpiexec')) + ['-n', str(a.nsize), '--oversubscribe', '--bind-to', 'none']
    common = [a.exe] + shlex.split(a.args) + ['-tao_view'] + shlex.split(os.environ.get('PETSCKP_TEST_ARGS', ''))
    fb, ib, rb = run(pre + common + ['-tao_type', 'blmvm'], env)
    fl, il, rl = run(pre + common + ['-dll_append', a.lib, '-tao_type', 'lbfgsb'], env)
    print(f'{os.path.basename(a.exe)} on {a.nsize} ranks: blmvm f = {fb:.10g} in {ib} iterations ({rb}); '
          f'lbfgsb f = {fl:.10g} in {il} iterations ({rl})')
    ok = True
    if abs(fl - fb) > a.rtol * max(abs(fb), 1e-12):
        print(f'FAIL: optima differ by {abs(fl - fb) / abs(fb):.2e} relative (tolerance {a.rtol:.0e})')
        ok = False
    if il > ib:
        print('FAIL: lbfgsb needed more iterations than blmvm')
        ok = False
    print('tutorial check: ' + ('passed' if ok else 'FAILED'))
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
