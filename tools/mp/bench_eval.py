# Evaluator benchmark run inside MicroPython (bytecode or native .mpy): prints one line
# "key value" per figure for tools/bench.py to read. Hands come from a small LCG so both
# runtimes could see the same deals without the random module.
import gc
import sys
import time

from firmware.compat import micropython

gc.collect()
before = gc.mem_alloc()
from firmware.poker import hands  # noqa: E402

gc.collect()
print("module_bytes", gc.mem_alloc() - before)

N = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
state = [12345]


def draw(count):
    deck = list(range(52))
    out = []
    for i in range(count):
        state[0] = (state[0] * 1103515245 + 12345) & 0x7FFFFFFF
        j = i + state[0] % (52 - i)
        deck[i], deck[j] = deck[j], deck[i]
        out.append(deck[i])
    return out


five = [draw(5) for _ in range(N)]
seven = [draw(7) for _ in range(N)]
holes = [h[:2] for h in seven]
boards = [h[2:] for h in seven]
sink = [0]


def run5():
    f = hands.best5
    for h in five:
        sink[0] = f(h)


def run7():
    f = hands.best5
    for h in seven:
        sink[0] = f(h)


def run_nz():
    f = hands.hole2_board3
    for i in range(N):
        sink[0] = f(holes[i], boards[i])


for name, fn in (("five", run5), ("seven", run7), ("nz", run_nz)):
    fn()
    gc.collect()
    best = 0
    for _ in range(5):  # best of five: other processes on the host only ever slow a run down
        t0 = time.ticks_us()
        fn()
        dt = time.ticks_diff(time.ticks_us(), t0)
        best = max(best, N * 1000000 // dt)
    print("per_second_" + name, best)
    gc.collect()
    a0 = gc.mem_alloc()
    gc.disable()
    fn()
    a1 = gc.mem_alloc()
    gc.enable()
    print("heap_bytes_per_eval_" + name, (a1 - a0) // N)

locked_ok = 1
micropython.heap_lock()
try:
    run7()
    run_nz()
except MemoryError:
    locked_ok = 0
micropython.heap_unlock()
print("runs_under_heap_lock", locked_ok)
