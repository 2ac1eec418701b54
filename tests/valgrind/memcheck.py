#!/usr/bin/env python3
"""Runs a program under valgrind's memcheck and fails when an error has a petsckp frame in its stack.

  memcheck.py --valgrind /usr/bin/valgrind --lib libpetsckp --ours <example binary> -- program args...

Errors whose stacks lie entirely in other libraries (Open MPI's start-up, the dynamic loader, PETSc's own
allocations) are counted and printed but do not fail the test: they are not petsckp's to fix. A frame is petsckp's
when its object file path contains one of the --lib strings; an error whose faulting (innermost) frame lies in
the example program (--ours) counts too. Exit status: 0 clean, 1 petsckp errors, 2 the program
itself failed under valgrind.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--valgrind", default="valgrind")
    ap.add_argument("--lib", action="append", default=[], help="object path part of our library (any frame)")
    ap.add_argument("--ours", action="append", default=[], help="object path part of our program (faulting frame)")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    with tempfile.TemporaryDirectory() as tmp:
        xml = os.path.join(tmp, "vg.xml")
        vg = [a.valgrind, "--tool=memcheck", "--xml=yes", "--xml-file=" + xml, "--track-origins=no",
              "--leak-check=no", "--error-limit=no", "--num-callers=30"]
        p = subprocess.run(vg + cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        sys.stdout.write(p.stdout)
        try:
            root = ET.parse(xml).getroot()
        except (ET.ParseError, FileNotFoundError) as e:
            print(f"memcheck.py: no valgrind report ({e})")
            return 2
    ours, others = 0, 0
    for err in root.iter("error"):
        kind = err.findtext("kind")
        what = err.findtext("what") or (err.find("xwhat").findtext("text") if err.find("xwhat") is not None else "")
        if kind.startswith("Leak_"):
            continue  # leaks are not asked for (--leak-check=no); Open MPI's start-up reports some anyway
        frames = [(f.findtext("fn") or "?", f.findtext("obj") or "?") for f in err.iter("frame")]
        # ours: a frame in the library, or the faulting frame in the example itself (main() at the bottom of every
        # stack does not make an error in MPI or PETSc ours)
        mine = any(any(s in obj for s in a.lib) for _, obj in frames) or bool(frames and any(s in frames[0][1] for s in a.ours))
        if mine:
            ours += 1
            print(f"petsckp error: {kind}: {what}")
            for fn, obj in frames[:12]:
                print(f"    {fn}  ({obj})")
        else:
            others += 1
    print(f"memcheck: {ours} error(s) with a petsckp frame, {others} elsewhere (not ours); program exit {p.returncode}")
    if p.returncode != 0:
        return 2
    return 1 if ours else 0


if __name__ == "__main__":
    sys.exit(main())
