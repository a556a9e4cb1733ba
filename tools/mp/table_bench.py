# Table benchmark run inside MicroPython (from .mpy files): boots the whole firmware on the
# simulated board, plays ROUNDS rounds, and prints "key value" lines for tools/table_bench.py.
import gc
import sys
import time

import micropython

BALLAST_HEADER = 32     # the bytearray object in front of its data (one GC block on x64)
SPARE_GLOBALS = 64      # more than the names this script binds after its ballast
MAX_PLUGS = 4096        # the most holes' blocks plugged before the ballast (plug_holes)
PLUG_BATCH = 8          # blocks plugged between two tries of the rest in one piece
ONE_PIECE_SLACK = 1024  # "one piece": all the free heap but this much can be had at once (a
                        # few stray blocks stay free below it); the plugs stop at half of it


def heap_now():
    gc.collect()
    return gc.mem_alloc()


def free_now():
    gc.collect()
    return gc.mem_free()


def plug_holes():
    """Fill the free holes left between the live objects (the simulated board's and this
    script's garbage, which a board's heap at boot does not have) with one-block objects,
    lowest address first as MicroPython allocates, until the rest of the free heap is one
    piece (all of it but ONE_PIECE_SLACK can be had at once).  Returns the plugs (keep
    them)."""
    plugs = [None] * MAX_PLUGS
    count = 0
    while True:
        try:
            bytearray(free_now() - ONE_PIECE_SLACK // 2)    # garbage at once: just a try
            return plugs
        except MemoryError:
            pass
        if count + PLUG_BATCH > MAX_PLUGS:
            raise MemoryError("more than %d holes to plug" % MAX_PLUGS)
        for _ in range(PLUG_BATCH):
            plugs[count] = object()
            count += 1


# Arguments: rounds (R or R:S, below), state folder, install folder [, free heap for the firmware [, ROMFS
# image]]; or "free".  (The rules' pay math is timed by tools/mp/pay_math.py, in a VM of its
# own.)
ARGS = sys.argv[1:]
if ARGS[0] == "free":
    # tools/table_bench.py asks what a fresh VM of its heap size leaves free at this point
    print("free", free_now())
    sys.exit(0)
# "R" plays R rounds; "R:S" also has a supervisor void a seat's wager in round S (from 0) and
# open and close the audit menu after it
_rounds, _sep, _supervised = ARGS[0].partition(":")
ROUNDS = int(_rounds)
# The board's FRAM chip and flash live outside its heap: here they are files in this folder,
# with the table's configuration file (config.json, written by tools/table_bench.py).
STATE_DIR = ARGS[1]
# The flash filesystem's root for the program check: the .mpy folder, or for ROMFS the state
# folder (main.py's place; the program is checked in /rom); "-": no boot checks.
INSTALL = ARGS[2]

image = b""
if len(ARGS) > 4:
    # ROMFS: the program's .mpy files are in a ROMFS image mounted at /rom and run in place,
    # as on a board with a ROMFS partition in flash.  The unix VM has no flash, so the image
    # is read into this (larger) heap.
    import os

    import vfs

    image = bytearray(os.stat(ARGS[4])[6])
    with open(ARGS[4], "rb") as f:
        f.readinto(image)
    vfs.mount(vfs.VfsRom(image), "/rom")
    sys.path.insert(0, "/rom")
# The simulated board: the table's hardware, which on a board is not in the heap.
before_board = heap_now()
from boards import simulated  # noqa: E402

table = simulated.make(STATE_DIR)
fakes = heap_now() - before_board
# The benchmark's own records of the rounds, made here so that they are not counted in the
# firmware's heap either.
settle_ticks = [0] * ROUNDS  # per round: the longest tick of the SETTLE press (the round settled)
window = []                  # one press's tick times (us, run())
bus = []                     # one press's I2C bytes per tick (run())
tick_us = [0] * 64           # the tick times (us) around a LOCK after the rounds (run()): made
del tick_us[:]               # with room for them (del keeps it), sorted in place below
deck = list(range(52))       # each round's shuffled deck (reset in place, run below)
# The script's own global names: its dictionary is grown here to the size the names bound
# below need (spare entries made, then deleted: MicroPython does not shrink a dictionary), so
# that it does not take a new table, a kilobyte in one piece, from the firmware's room when
# the rounds bind their loop variables.
for _n in range(SPARE_GLOBALS):
    globals()["_spare%d" % _n] = 0
for _n in range(SPARE_GLOBALS):
    del globals()["_spare%d" % _n]
ballast = b""
plugs = None
held = len(image)
if len(ARGS) > 3:
    # Given the free heap of a fresh VM of the size under test, a ballast leaves exactly that
    # much free here: the firmware gets the same room, with the image and the simulated
    # hardware outside it, and in one piece, as a board's heap is when main.py starts (the
    # holes that building the simulated board and compiling this script left are plugged
    # first).  What the simulated hardware allocates while the table plays still comes out
    # of that room.
    before_plugs = heap_now()
    plugs = plug_holes()
    held += heap_now() - before_plugs
    ballast = bytearray(max(free_now() - int(ARGS[3]) - BALLAST_HEADER, 0))
    held += len(ballast)
    # the room is one piece
    room = free_now()
    try:
        whole = bytearray(room - ONE_PIECE_SLACK)
        whole = None
        print("room_one_piece", 1)
    except MemoryError:
        print("room_one_piece", 0)
# The image, the plugs and the ballast are not the firmware's: the heap figures below leave
# them out.
print("free_at_start", free_now())

start = heap_now()
# As the board's main.py: the boot checks (program verification and configuration file, whose
# modules are then forgotten, firmware.startup's own too), then the table's code.
from firmware.heap import collect_often, forget  # noqa: E402

collect_often(True)
import firmware.startup  # noqa: E402

program, options, link_settings, config_ok, config_text = firmware.startup.startup_checks(
    table.board.name, INSTALL, STATE_DIR + "/config.json")
forget("firmware.startup")          # as firmware.startup.main() does before returning
print("program_check", program["reason"])
print("config_check", "ok" if config_ok else config_text)
# The firmware a UTH table runs.
from firmware.app import TICK_MS, App  # noqa: E402
from firmware.drivers.spot_sensors import ante_spot  # noqa: E402
from firmware.store.slots import PathFS  # noqa: E402
from firmware.table.phases import AUDIT, OPEN  # noqa: E402

imported = heap_now()
app = App(table.board, PathFS(table.flash_dir), now=0, **options)
print("heap_firmware_modules", imported - start)
print("heap_simulated_board", fakes)
print("heap_table_objects", heap_now() - imported)
clock = [0]
state = [12345]


def rand(n):
    state[0] = (state[0] * 1103515245 + 12345) & 0x7FFFFFFF
    return state[0] % n


def run(ms, record=None, wire=None):
    """Tick the table for ms; record: a list that gets each tick's time (us), negative for a
    tick in which the garbage was collected (less heap in use after it than before); wire: a
    list that gets the bytes each tick clocked on the I2C bus."""
    end = clock[0] + ms
    while clock[0] < end:
        clock[0] += TICK_MS
        if record is not None:
            used = gc.mem_alloc()
        if wire is not None:
            sent = table.i2c.wire_bytes
        t0 = time.ticks_us()
        app.step(clock[0], 1000 + clock[0] // 1000)
        if record is not None:
            us = time.ticks_diff(time.ticks_us(), t0)
            record.append(-us if gc.mem_alloc() < used else us)
        if wire is not None:
            wire.append(table.i2c.wire_bytes - sent)


def press(name, hold=100, record=None, wire=None):
    table.buttons[name].press()
    run(hold, record, wire)
    table.buttons[name].release()
    run(100, record, wire)


def shoe(line):
    table.shoe.inject(line)
    run(2 * TICK_MS)


app.boot(0, 1000, program)
collect_often(False)                  # as firmware.app.run() before its loop
run(200)
table.key.level = 0
run(200)
press("OK", 1200)
press("OK")
table.key.level = 1
run(200)
print("boot_phase", app.controller.phase)

# Latency: ticks from a chip put on an empty spot to its ring showing PLACED (amber).
table.mcp.cover(0)
ticks = 0
while ticks < 50:
    clock[0] += TICK_MS
    app.step(clock[0], 3000)
    ticks += 1
    if table.strip.seat_colour(0) == "amber":
        break
print("chip_to_light_ticks", ticks)

table.mcp.uncover(0)
run(400)

names = "23456789TJQKA"
suits = "cdhs"
rounds_done = 0
jackpots = 0
supervised_round = int(_supervised) if _supervised else -1
audit_opened = 0
collected = [0, 0]    # rounds whose longest SETTLE tick included a collection, the longest
busiest = [0, 0]      # the most bytes a tick of a LOCK press, of a SETTLE press clocked on I2C
for _round in range(ROUNDS):
    for seat in range(7):
        table.mcp.cover(seat)
        table.mcp.cover(ante_spot(seat + 1))
    run(200)
    del bus[:]
    press("LOCK", wire=bus)
    busiest[0] = max(busiest[0], max(bus))
    if _round == supervised_round:
        # A supervisor's work in the run, so that the heap under test has room for it: seat 1's
        # jackpot wager voided after LOCK (key + BACK; its code loads for the action).
        table.key.level = 0
        run(200)
        press("BACK")
        table.key.level = 1
        run(200)
    for i in range(52):
        deck[i] = i
    for i in range(21):
        j = i + rand(52 - i)
        deck[i], deck[j] = deck[j], deck[i]
    k = 0
    for seat in range(1, 8):
        for _ in range(2):
            c = deck[k]
            k += 1
            shoe(b"S%d %s%s\n" % (seat, names[c >> 2], suits[c & 3]))
    for dest in "DDBBBBB":
        c = deck[k]
        k += 1
        shoe(b"%s %s%s\n" % (dest, names[c >> 2], suits[c & 3]))
    del window[:]
    del bus[:]
    press("SETTLE", record=window, wire=bus)
    busiest[1] = max(busiest[1], max(bus))
    longest = max(window, key=abs)
    settle_ticks[_round] = abs(longest)
    if longest < 0:
        collected[0] += 1
        collected[1] = max(collected[1], -longest)
    if app.controller.phase == 2:  # CONFIRM: a jackpot hand
        jackpots += 1
        table.key.level = 0
        run(200)
        press("OK")
        table.key.level = 1
        run(200)
    press("SETTLE")
    for seat in range(16):
        table.mcp.uncover(seat)
    run(200)
    if _round == supervised_round:
        # ... and, between rounds, the audit menu opened (key + long OK), paged, closed (BACK)
        table.key.level = 0
        run(200)
        press("OK", 1200)
        if app.controller.phase == AUDIT:
            audit_opened += 1
            # the VM's names with the menu open (its modules' names are interned the first
            # time it opens): "qstr pool: n_pool=P, n_qstr=N, ...", read by tools/table_bench.py
            micropython.qstr_info()
        press("DOWN")
        press("OK")
        press("BACK")
        table.key.level = 1
        run(200)
    rounds_done += 1
print("rounds", rounds_done)
# The code a standalone UTH table loads only for a use or only at boot, and lets go after
# (docs/performance.md): none of it may stay once the rounds (and the supervisor's void and
# audit menu) are done.
on_use_left = " ".join([name for name in (
    "firmware.table.linked", "firmware.link.setup", "firmware.table.supervisor",
    "firmware.table.audit", "firmware.store.eventnames", "firmware.jackpot.meternames",
    "firmware.table.othergames", "firmware.startup", "firmware.jackpot.restore",
    "firmware.jackpot.configcheck") if name in sys.modules]) or "none"
print("on_use_loaded", on_use_left)
settle_ticks.sort()
print("settle_tick_us_median", settle_ticks[len(settle_ticks) // 2])
print("settle_tick_us_max", settle_ticks[-1])
print("busiest_tick_i2c_bytes", "%d %d" % tuple(busiest))
print("settle_tick_collected", "%d %d" % tuple(collected))
print("jackpot_rounds", jackpots)
print("audit_problems", len(app.controller.jackpot.audit()))
wagers = app.controller.jackpot.table_meters()["wagers"]
print("jackpot_wagers", wagers)
voids = app.controller.jackpot.table_meters()["voids"]
print("supervisor", "%d %d" % (voids, audit_opened))
supervised = 1 if supervised_round >= 0 else 0
if wagers != 7 * ROUNDS or app.controller.jackpot.audit():
    # A round that ran short of heap may have been refused (a failed commit leaves the money
    # as committed): then this heap is not enough, whatever else completed.
    print("rounds short: %d jackpot wagers, expected %d" % (wagers, 7 * ROUNDS))
    sys.exit(2)
if voids != supervised or audit_opened != supervised or app.controller.phase != OPEN:
    # the supervisor's void or audit menu was refused (their code could not be loaded)
    print("supervisor refused: %d voids, audit opened %d times" % (voids, audit_opened))
    sys.exit(2)
if on_use_left != "none":
    print("modules loaded for a use were kept: " + on_use_left)
    sys.exit(2)
gc.collect()
if hasattr(micropython, "mem_peak"):  # not in the webassembly port
    print("mem_peak", micropython.mem_peak() - held)
print("mem_alloc_after", gc.mem_alloc() - held)

# Steady state: no input for 400 ticks; the tick must not allocate.  First let the last
# round's messages expire and the sign finish showing a win (15 s), which redraw once.
run(20000)
run(2 * TICK_MS)  # the first run() call creates its locals' cells; steady state from here
locked_ok = 1
micropython.heap_lock()
try:
    run(400 * TICK_MS)
except MemoryError as error:
    locked_ok = 0
    micropython.heap_unlock()
    sys.print_exception(error, sys.stderr)
micropython.heap_unlock()
print("steady_tick_no_alloc", locked_ok)

# Tick time while a round is played.
del tick_us[:]
for seat in range(7):
    table.mcp.cover(seat)
    table.mcp.cover(ante_spot(seat + 1))
run(400, tick_us)
press("LOCK")
run(400, tick_us)
for _i in range(len(tick_us)):
    tick_us[_i] = abs(tick_us[_i])
tick_us.sort()
print("tick_us_median", tick_us[len(tick_us) // 2])
print("tick_us_max", tick_us[-1])
