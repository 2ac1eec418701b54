#!/usr/bin/env python3
"""Run a PETSc program with -log_view and write the times of chosen events as one markdown table row.

  bench/logview.py --label "cg+jacobi" --events KSPSolve,PCApply,MatMult --out bench/results/poisson.md \
      -- mpiexec -n 1 build/examples/poisson -dim 3 -n 65

  bench/logview.py --breakdown <log file>

writes the Main Stage event table of a -log_view output as markdown (the kernel breakdown): calls, wall time, flop,
Mflop/s, GPU Mflop/s and the GPU time derived from them (flop / GPU flop rate; with -log_view_gpu_time the GPU rate
is measured with device timers around the kernels, i.e. PetscLogGpuTimeBegin/End), followed by the raw table.

The row holds: label, ranks, the events' max time over ranks in seconds (and call counts), the whole program's
time, the iteration count if the program printed one, the device and the command. A header is written when the
file is new. Exit code is the program's.
"""
import argparse
import datetime
import os
import re
import shlex
import subprocess
import sys


def device():
    try:
        out = subprocess.run(['nvidia-smi', '--query-gpu=name', '--format=csv,noheader'], capture_output=True,
                             text=True, timeout=20).stdout.strip().splitlines()
        if out:
            return out[0]
    except Exception:
        pass
    try:
        with open('/proc/cpuinfo') as f:
            for l in f:
                if l.startswith('model name'):
                    return 'CPU: ' + l.split(':', 1)[1].strip()
    except Exception:
        pass
    return 'unknown'


def parse(text, events):
    res = {}
    for e in events:
        m = re.search(r'^%s\s+(\d+)\s+[\d.]+\s+([\d.eE+-]+|n/a)' % re.escape(e), text, re.M)
        if m:  # 'n/a': GPU event timed only with -log_view_gpu_time
            res[e] = (int(m.group(1)), float('nan') if m.group(2) == 'n/a' else float(m.group(2)))
    m = re.search(r'^Time \(sec\):\s+([\d.eE+-]+)', text, re.M)
    total = float(m.group(1)) if m else float('nan')
    its = re.findall(r'(?:iterations|its)[ =:]+(\d+)', text)
    return res, total, its[-1] if its else ''


def breakdown(path):
    text = open(path, errors='replace').read()
    lines = text.splitlines()
    try:
        start = next(i for i, l in enumerate(lines) if l.startswith('--- Event Stage 0'))
    except StopIteration:
        print('(no -log_view event table in the output)')
        print()
        print('```')
        print('\n'.join(lines[-40:]))
        print('```')
        return 1
    rows, raw = [], []
    for l in lines[start + 1:]:
        if l.startswith('---') or l.startswith('Object Type') or l.startswith('====='):
            break
        t = l.split()
        if len(t) < 21 or not t[1].isdigit():
            continue
        raw.append(l)

        def num(x):
            try:
                return float(x)
            except ValueError:
                return float('nan')
        name, calls, wall, flop, mf = t[0], int(t[1]), num(t[3]), num(t[5]), num(t[20])
        gmf = num(t[21]) if len(t) > 21 else float('nan')
        gpu = flop / (gmf * 1e6) if flop > 0 and gmf > 0 else float('nan')
        rows.append((name, calls, wall, flop, mf, gmf, gpu))
    rows.sort(key=lambda r: -r[2])
    print('| event | calls | wall time (s) | flop | Mflop/s | GPU Mflop/s | GPU time (s) = flop / GPU rate | GPU ms per call |')
    print('|---|---|---|---|---|---|---|---|')
    for name, calls, wall, flop, mf, gmf, gpu in rows:
        f = lambda x, fmt: '-' if x != x else fmt % x
        print('| %s | %d | %s | %s | %s | %s | %s | %s |' % (name, calls, f(wall, '%.4g'), f(flop, '%.3g'), f(mf, '%.0f'),
                                                       f(gmf, '%.0f'), f(gpu, '%.4g'), f(gpu * 1e3 / calls if calls else float('nan'), '%.4g')))
    print()
    print('Events without flops have no GPU rate, hence no derived GPU time. Raw Main Stage table:')
    print()
    print('```')
    print('\n'.join(lines[max(0, start - 8):start + 1] + raw))
    print('```')
    return 0


def main():
    if len(sys.argv) == 3 and sys.argv[1] == '--breakdown':
        return breakdown(sys.argv[2])
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--label', required=True)
    ap.add_argument('--events', default='KSPSolve,PCSetUp,PCApply,MatMult')
    ap.add_argument('--out', required=True)
    ap.add_argument('cmd', nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == '--' else a.cmd
    events = [e for e in a.events.split(',') if e]
    p = subprocess.run(cmd + ['-log_view'], capture_output=True, text=True)
    sys.stdout.write(p.stdout[-3000:])
    sys.stderr.write(p.stderr[-3000:])
    res, total, its = parse(p.stdout, events)
    ranks = '1'
    if cmd and 'mpiexec' in os.path.basename(cmd[0]) and '-n' in cmd:
        ranks = cmd[cmd.index('-n') + 1]
    new = not os.path.exists(a.out)
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out, 'a') as f:
        if new:
            f.write('| label | ranks | its | ' + ' | '.join('%s s (calls)' % e for e in events) +
                    ' | total s | device | date | command |\n')
            f.write('|' + '---|' * (len(events) + 7) + '\n')
        cells = ['%.4g (%d)' % (res[e][1], res[e][0]) if e in res else '-' for e in events]
        f.write('| %s | %s | %s | %s | %.4g | %s | %s | `%s` |\n' % (
            a.label, ranks, its, ' | '.join(cells), total, device(), datetime.date.today().isoformat(),
            ' '.join(shlex.quote(c) for c in cmd)))
    return p.returncode


if __name__ == '__main__':
    sys.exit(main())
