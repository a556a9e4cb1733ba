# The table played one tick per call, for tools/heap32.py: the firmware from a ROMFS image (in
# place), booted as the board's main.py does (program check, configuration file, their modules
# forgotten, then the table), then ROUNDS seven-seat rounds dealt from the shoe, with a
# supervisor's void and audit menu halfway (code that loads for them).  The driver
# calls step() until it returns 0, and the garbage is collected between two calls: the
# webassembly VM can collect only there (a collection asked for inside a call waits for the
# call to end, and an allocation that does not fit grows its heap instead of failing), and the
# unix VM does the same for a like-for-like figure.  step() notes, at each call's start (after
# the collection), the heap the firmware holds live and whether the VM's heap has grown.
#
# Arguments (sys.argv, or the ARGV global the webassembly runner defines), the ROMFS image
# last for the unix VM only (the webassembly runner gives the VM its image as a board's ROMFS
# partition):
#   program STATE [IMAGE]                 the boot's program check (check_program) alone,
#                                         on the unix VM (tools/heap32.py says why); prints its
#                                         findings
#   ROUNDS STATE ROOM [IMAGE]             the run: ROOM bytes of free heap for the firmware
#                                         (0: no ballast); the check's findings are read from
#                                         STATE/program.json (an argument of 255 characters
#                                         or more stops the unix VM at its start)
import gc
import json
import sys

TICK_MS = 20
BALLAST_HEADER = 16     # the bytearray object in front of its data (one GC block, 32-bit)

ARGS = globals().get("ARGV") or sys.argv[1:]
PROGRAM_CHECK = ARGS[0] == "program"
STATE_DIR = ARGS[1]
if not globals().get("ARGV") and len(ARGS) == (3 if PROGRAM_CHECK else 4):
    # the unix VM has no ROMFS partition: the image is read into its heap (outside the figures)
    import os

    import vfs

    _image = bytearray(os.stat(ARGS[-1])[6])
    with open(ARGS[-1], "rb") as _f:
        _f.readinto(_image)
    vfs.mount(vfs.VfsRom(_image), "/rom")
    sys.path.insert(0, "/rom")
if PROGRAM_CHECK:
    from boards.simulated import NAME
    from firmware.startup import check_program

    print("program", json.dumps(check_program(NAME, STATE_DIR)))
    raise SystemExit
ROUNDS = int(ARGS[0])
ROOM = int(ARGS[2])
with open(STATE_DIR + "/program.json") as _f:
    PROGRAM = json.load(_f)

from boards import simulated  # noqa: E402

table = simulated.make(STATE_DIR)
app = None
phases = None           # firmware.table.phases, once the table's code is loaded
clock = 0
left = 0                # ms still to tick before the plan's next action
base = 0                # heap in use before the firmware (the board, this program, the ballast)
total = 0               # the VM's heap (free + used) once the ballast is in: more means it grew
most = [0, ""]          # the most the firmware held live at a call's start, and in which phase
grew = []               # each time the VM's heap grew: the phase, by how many bytes
figures = {}
ballast = None
state = [12345]
NAMES = "23456789TJQKA"
SUITS = "cdhs"


def rand(n):
    state[0] = (state[0] * 1103515245 + 12345) & 0x7FFFFFFF
    return state[0] % n


def press(name, hold=100):
    """Plan steps: a button held for hold ms, then let go for 100 ms."""
    table.buttons[name].press()
    yield hold
    table.buttons[name].release()
    yield 100


def keyed(steps):
    """Plan steps: the supervisor key turned for steps."""
    table.key.level = 0
    yield 200
    yield from steps
    table.key.level = 1
    yield 200


def ram_clear():
    """Plan steps: the RAM clear (long OK, then OK to confirm) that opens a new table."""
    yield from press("OK", 1200)
    yield from press("OK")


def audit_menu():
    """Plan steps: the audit menu opened (long OK), paged (DOWN, OK) and closed (BACK)."""
    yield from press("OK", 1200)
    if app.controller.phase == phases.AUDIT:
        figures["audit_opened"] = figures.get("audit_opened", 0) + 1
    for name in ("DOWN", "OK", "BACK"):
        yield from press(name)


def plan():
    """The run as plan steps: each yields the ms to tick before the next (0: a call boundary,
    so the garbage is collected, and nothing ticked)."""
    global app, base, ballast, total, phases
    if ROOM:
        # the firmware gets exactly ROOM free, as a fresh VM of the size under test has
        total = gc.mem_alloc() + gc.mem_free()
        ballast = bytearray(max(gc.mem_free() - ROOM - BALLAST_HEADER, 0))
        if gc.mem_alloc() + gc.mem_free() > total:
            raise MemoryError("the ballast did not fit the heap in one piece")
    yield 0
    base = gc.mem_alloc()
    total = gc.mem_alloc() + gc.mem_free()
    import firmware.startup
    from firmware.heap import collect_often, forget

    options, _link, config_ok, config_text = firmware.startup.check_config(
        table.board.name, STATE_DIR + "/config.json")
    forget("firmware.startup")
    figures["config_check"] = "ok" if config_ok else config_text
    yield 0
    collect_often(True)
    from firmware.app import App
    from firmware.drivers.spot_sensors import ante_spot
    from firmware.store.slots import PathFS
    from firmware.table import phases

    yield 0
    figures["heap_firmware_modules"] = gc.mem_alloc() - base
    app = App(table.board, PathFS(table.flash_dir), now=0, **options)
    yield 0
    figures["heap_table_objects"] = gc.mem_alloc() - base - figures["heap_firmware_modules"]
    app.boot(0, 1000, PROGRAM)
    collect_often(False)
    yield 200
    yield from keyed(ram_clear())
    deck = list(range(52))
    for r in range(ROUNDS):
        for seat in range(7):
            table.mcp.cover(seat)
            table.mcp.cover(ante_spot(seat + 1))
        yield 200
        yield from press("LOCK")
        if r == ROUNDS // 2:
            # a supervisor's work halfway, whose code loads for it: seat 1's jackpot wager
            # voided after LOCK (key + BACK) ...
            yield from keyed(press("BACK"))
        for i in range(52):
            deck[i] = i
        for i in range(21):
            j = i + rand(52 - i)
            deck[i], deck[j] = deck[j], deck[i]
        dests = ["S%d" % (s // 2 + 1) for s in range(14)] + list("DDBBBBB")
        for k in range(21):
            table.shoe.inject(b"%s %s%s\n" % (dests[k], NAMES[deck[k] >> 2], SUITS[deck[k] & 3]))
            yield 2 * TICK_MS
        yield from press("SETTLE")
        if app.controller.phase == phases.CONFIRM:  # a jackpot hand: the supervisor confirms
            yield from keyed(press("OK"))
        yield from press("SETTLE")
        for spot in range(16):
            table.mcp.uncover(spot)
        yield 200
        if r == ROUNDS // 2:
            # ... and the audit menu opened (key + long OK), paged and closed (BACK)
            yield from keyed(audit_menu())
        figures["rounds"] = figures.get("rounds", 0) + 1


_plan = plan()


def note():
    """The figures of the call just ended, taken after the collection between calls."""
    global total
    if not base:
        return
    phase = phases.PHASE_NAMES[app.controller.phase] if app is not None else "boot"
    now = gc.mem_alloc() + gc.mem_free()
    if now > total:
        grew.append("%s +%d" % (phase, now - total))
        total = now
    if gc.mem_alloc() - base > most[0]:
        most[0], most[1] = gc.mem_alloc() - base, phase


def step():
    """One call's work: one tick, or the plan's next step; 0 when the run is over.  It ends
    asking for a collection, which the webassembly VM makes once the call has returned."""
    global left, clock
    note()
    if left <= 0:
        try:
            left = next(_plan)
        except StopIteration:
            report()
            return 0
    else:
        clock += TICK_MS
        app.step(clock, 1000 + clock // 1000)
        left -= TICK_MS
    gc.collect()
    return 1


def report():
    meters = app.controller.jackpot.table_meters()
    figures["jackpot_wagers"] = meters["wagers"]
    figures["audit_problems"] = len(app.controller.jackpot.audit())
    figures["voids"] = meters["voids"]
    figures["phase_at_end"] = phases.PHASE_NAMES[app.controller.phase]
    figures["live_max"] = most[0]
    figures["live_max_phase"] = most[1]
    figures["heap_grew"] = ", ".join(grew) or "never"
    for key in figures:
        print(key, figures[key])


if not globals().get("ARGV"):
    # the unix VM: the same calls
    while step():
        pass
