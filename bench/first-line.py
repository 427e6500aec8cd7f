#!/usr/bin/env python3
"""How soon `kapi check` prints its first finding, and its whole run, cold (.kapi/work removed).

Run in a project folder: `python3 bench/first-line.py BIN [BIN...]` (each binary 15 times,
medians). Reads stdout through a pipe as a terminal user's pager would.
"""
import subprocess, time, sys, shutil, statistics
def run(binary):
    shutil.rmtree('.kapi/work', ignore_errors=True)
    t=time.perf_counter()
    p=subprocess.Popen([binary,'check'],stdout=subprocess.PIPE)
    p.stdout.readline(); first=time.perf_counter()-t
    p.stdout.read(); p.wait(); total=time.perf_counter()-t
    return first,total
for b in sys.argv[1:]:
    rs=[run(b) for _ in range(15)]
    print(b, 'first line %.1f ms'%(1000*statistics.median(r[0] for r in rs)), 'total %.1f ms'%(1000*statistics.median(r[1] for r in rs)))
