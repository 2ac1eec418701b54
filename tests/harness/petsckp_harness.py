#!/usr/bin/env python3
"""Test harness in PETSc's style for petsc-kokkos-plugins.

Each example ends with a /*TEST ... TEST*/ block (PETSc's format: `test:` and `testset:` entries with
`suffix`, `nsize`, `args`, `requires`, `output_file`, `filter`, `tolerance`; `{{a b c}}` in `nsize` or `args`
expands into one test per value, all compared with the same output file). `expect_error: <regex>` makes a test of
bad input: the example must fail (nonzero exit code) with an error message that matches the regular expression.

  petsckp_harness.py cmake --source ex.c --target ex --features "mpi;cuda" --out tests.cmake
      writes the add_test() calls for CTest
  petsckp_harness.py run --exe ./ex --nsize 2 --args "..." --output output/ex.out [--filter CMD] [--tolerance R]
      runs the example (under mpiexec when nsize > 1), compares its output with the expected file:
      text must match after white space is folded, numbers must agree to a relative tolerance.
      PETSCKP_TEST_ARGS (environment) is appended to the arguments (e.g. GPU types);
      PETSCKP_HARNESS_UPDATE=1 writes the output file instead of comparing.
  petsckp_harness.py run --exe ./ex --nsize 1 --args "..." --expect-error REGEX
      passes when the example fails and its output (stdout and stderr) matches REGEX
"""
import argparse
import itertools
import os
import re
import shlex
import subprocess
import sys

NUM = re.compile(r'[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|[-+]?(?:inf|nan)\b', re.IGNORECASE)


def parse_block(text):
    """Parse the /*TEST ... TEST*/ block into a list of test dicts (testset keys are inherited)."""
    m = re.search(r'/\*TEST(.*?)TEST\*/', text, re.S)
    if not m:
        return []
    lines = [l.rstrip() for l in m.group(1).splitlines()]
    entries = []  # (indent, key, value)
    for l in lines:
        if not l.strip() or l.strip().startswith('#'):
            continue
        ind = len(l) - len(l.lstrip())
        key, _, val = l.strip().partition(':')
        entries.append((ind, key.strip(), val.strip()))
    tests = []
    i = 0

    def read_block(start, base_ind):
        """Read key/values at indentation > base_ind, return (dict, children list, next index)."""
        d, children, j = {}, [], start
        while j < len(entries) and entries[j][0] > base_ind:
            ind, key, val = entries[j]
            if key in ('test', 'testset') and val == '':
                sub, subch, j = read_block(j + 1, ind)
                children.append((key, sub, subch))
            else:
                d[key] = val
                j += 1
        return d, children, j

    while i < len(entries):
        ind, key, val = entries[i]
        if key in ('test', 'testset'):
            d, ch, i = read_block(i + 1, ind)
            if key == 'test' or not ch:
                tests.append(d)
            else:
                for _, sub, _ in ch:
                    merged = dict(d)
                    for k, v in sub.items():
                        if k == 'args' and 'args' in d:
                            merged['args'] = d['args'] + ' ' + v
                        else:
                            merged[k] = v
                    tests.append(merged)
        else:
            i += 1  # build: and other top-level keys
            while i < len(entries) and entries[i][0] > ind:
                i += 1
    return tests


def expand(value):
    """Expand {{a b c}} groups into the list of alternatives (cartesian product)."""
    groups = re.findall(r'\{\{(.*?)\}(?:[^}]*)\}', value)
    if not groups:
        return [(value, '')]
    parts = re.split(r'\{\{.*?\}(?:[^}]*)\}', value)
    out = []
    for combo in itertools.product(*[g.split() for g in groups]):
        s = parts[0]
        for c, p in zip(combo, parts[1:]):
            s += c + p
        out.append((s, '_'.join(combo)))
    return out


def requires_ok(req, features):
    for r in req.replace(',', ' ').split():
        neg = r.startswith('!')
        name = r[1:] if neg else r
        if (name in features) == neg:
            return False
    return True


def cmd_cmake(a):
    src = a.source
    name = a.target
    features = set(f for f in a.features.split(';') if f)
    with open(src) as f:
        tests = parse_block(f.read())
    exdir = os.path.dirname(os.path.abspath(src))
    lines = []
    for t in tests:
        if not requires_ok(t.get('requires', ''), features):
            continue
        suffix = t.get('suffix', '')
        out = t.get('output_file', 'output/%s%s.out' % (name, '_' + suffix if suffix else ''))
        for args, atag in expand(t.get('args', '')):
            for ns, _ in expand(t.get('nsize', '1')):
                tname = 'ex/%s%s%s_np%s' % (name, '_' + suffix if suffix else '', '_' + atag if atag else '', ns)
                cmd = [sys.executable, os.path.abspath(__file__), 'run', '--exe', '$<TARGET_FILE:%s>' % name,
                       '--nsize', ns, '--args', args, '--output', os.path.join(exdir, out)]
                if 'filter' in t:
                    cmd += ['--filter', t['filter']]
                if 'tolerance' in t:
                    cmd += ['--tolerance', t['tolerance']]
                if 'expect_error' in t:
                    cmd += ['--expect-error', t['expect_error']]
                q = ' '.join('"%s"' % c.replace('\\', '\\\\').replace('"', '\\"') for c in cmd)
                lines.append('add_test(NAME %s COMMAND %s)' % (tname, q))
                lines.append('set_tests_properties(%s PROPERTIES PROCESSORS %s LABELS "example" TIMEOUT %s)'
                             % (tname, ns, t.get('timeout', '600')))
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out, 'w') as f:
        f.write('\n'.join(lines) + '\n')


def mpiexec_cmd(n):
    exe = os.environ.get('MPIEXEC', 'mpiexec')
    cmd = [exe, '-n', str(n)]
    try:
        v = subprocess.run([exe, '--version'], capture_output=True, text=True, timeout=30).stdout
    except Exception:
        v = ''
    if 'Open MPI' in v or 'OpenRTE' in v:
        cmd += ['--oversubscribe', '--bind-to', 'none']
        if os.geteuid() == 0:
            cmd += ['--allow-run-as-root']
    return cmd


def compare(got, exp, rtol, atol=1e-12):
    g = [l for l in (x.strip() for x in got.splitlines()) if l]
    e = [l for l in (x.strip() for x in exp.splitlines()) if l]
    if len(g) != len(e):
        return 'line count differs: got %d, expected %d' % (len(g), len(e))
    for k, (lg, le) in enumerate(zip(g, e)):
        tg, te = ' '.join(NUM.sub('#', lg).split()), ' '.join(NUM.sub('#', le).split())
        if tg != te:
            return 'line %d text differs:\n  got:      %s\n  expected: %s' % (k + 1, lg, le)
        for ng, ne in zip(NUM.findall(lg), NUM.findall(le)):
            fg, fe = float(ng), float(ne)
            if fg != fg or fe != fe:
                if not (fg != fg and fe != fe):
                    return 'line %d: NaN mismatch %s vs %s' % (k + 1, ng, ne)
                continue
            if abs(fg - fe) > max(atol, rtol * max(abs(fg), abs(fe))):
                return 'line %d number differs: got %s, expected %s (rtol %g)\n  got:      %s\n  expected: %s' % (
                    k + 1, ng, ne, rtol, lg, le)
    return None


def cmd_run(a):
    args = shlex.split(a.args) + shlex.split(os.environ.get('PETSCKP_TEST_ARGS', ''))
    n = int(a.nsize)
    cmd = ([] if n == 1 else mpiexec_cmd(n)) + [a.exe] + args
    env = dict(os.environ)
    env.setdefault('OMPI_MCA_rmaps_base_oversubscribe', '1')
    print('running:', ' '.join(shlex.quote(c) for c in cmd), flush=True)
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    out = p.stdout
    if a.expect_error:
        # bad input: the run must fail, with the expected message
        print(out)
        print(p.stderr)
        if p.returncode == 0:
            print('FAILED: the run succeeded; expected an error matching %r' % a.expect_error)
            return 1
        if not re.search(a.expect_error, out + p.stderr, re.M):
            print('FAILED: exit code %d, but no error message matches %r' % (p.returncode, a.expect_error))
            return 1
        print('ok (error as expected)')
        return 0
    if p.returncode != 0:
        print(out)
        print(p.stderr, file=sys.stderr)
        print('FAILED: exit code %d' % p.returncode)
        return 1
    if a.filter:
        out = subprocess.run(['bash', '-c', a.filter], input=out, capture_output=True, text=True).stdout
    if a.expect:
        # pass when every regular expression matches the output (stdout and stderr)
        both = out + p.stderr
        missing = [r for r in a.expect if not re.search(r, both, re.M)]
        print(both)
        if missing:
            print('FAILED: output does not match %s' % missing)
            return 1
        print('ok')
        return 0
    if os.environ.get('PETSCKP_HARNESS_UPDATE') == '1':
        os.makedirs(os.path.dirname(a.output), exist_ok=True)
        with open(a.output, 'w') as f:
            f.write(out)
        print('updated', a.output)
        return 0
    if not os.path.exists(a.output):
        print(out)
        print('FAILED: expected output file %s is missing (PETSCKP_HARNESS_UPDATE=1 writes it)' % a.output)
        return 1
    with open(a.output) as f:
        exp = f.read()
    err = compare(out, exp, float(a.tolerance))
    if err:
        print(out)
        print('FAILED: output differs from %s: %s' % (a.output, err))
        return 1
    print(out)
    print('ok')
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sp = ap.add_subparsers(dest='cmd', required=True)
    c = sp.add_parser('cmake')
    c.add_argument('--source', required=True)
    c.add_argument('--target', required=True)
    c.add_argument('--features', default='')
    c.add_argument('--out', required=True)
    r = sp.add_parser('run')
    r.add_argument('--exe', required=True)
    r.add_argument('--nsize', default='1')
    r.add_argument('--args', default='')
    r.add_argument('--output', default='')
    r.add_argument('--expect', action='append', default=[], help='regular expression the output must match')
    r.add_argument('--expect-error', default='', help='the run must fail with output matching this regular expression')
    r.add_argument('--filter', default='')
    r.add_argument('--tolerance', default=os.environ.get('PETSCKP_DIFF_RTOL', '1e-4'))
    a = ap.parse_args()
    return cmd_cmake(a) if a.cmd == 'cmake' else cmd_run(a)


if __name__ == '__main__':
    sys.exit(main())
