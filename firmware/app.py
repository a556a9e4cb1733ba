"""The thin shell: wires the round controller to the board's drivers and runs the loop.

    app = App(board, fs)           # board: boards.<name>.make() (or the simulated board)
    app.boot(now_ms, wall)         # reads critical memory, shows what it found
    app.step(now_ms, wall)         # one loop pass; allocates nothing in steady state
    run(hw, checks)                # on the board (main.py, tools/build.py): after
                                   # firmware.startup.main's checks, boot, then step every TICK_MS

A linked table (docs/link.md "Integration") is given a ``LinkSetup``
(``firmware.link.setup``, which only a linked table loads): at boot the app builds
the link's Station (MQTT client + TableLink) from critical memory, and every pass runs
``station.service`` and hands the link's state, pool and payouts to the controller.

Everything that talks to hardware is a driver given the board's buses; everything that
decides is the controller.  ``step`` polls the inputs into controller events, renders the
controller's view when it changed, lets each output driver do its per-tick work, and feeds
the watchdog only when every part of the pass checked in.
"""

from firmware.compat import const
from firmware.drivers import buttons as btn
from firmware.drivers import buzzer as buz
from firmware.drivers import shoe as shoemod
from firmware.drivers import spot_lights as lights
from firmware.drivers import spot_sensors as sensors
from firmware.drivers import watchdog as wd
from firmware.drivers.events import EMPTY, event_detail, event_kind
from firmware.drivers.fram import FRAM
from firmware.drivers.mcp23017 import MCP23017
from firmware.drivers.meter_sign import MAX_CENTS as SIGN_MAX_CENTS
from firmware.drivers.meter_sign import MeterSign
from firmware.drivers.oled import SSD1306
from firmware.drivers.ticks import ticks_add, ticks_diff
from firmware.heap import Stop
from firmware.store import eventlog as ev
from firmware.store.critical import CriticalMemory
from firmware.store.slots import FileSlot, FramSlot
from firmware.table import controller as tc

TICK_MS = const(20)
_EPOCH_2000 = const(946684800)    # seconds from 1970 to 2000 (ports whose time() counts from 2000)
_NTP_EVERY_S = const(3600)        # the clock is set from NTP again every hour (linked tables)
_NTP_RETRY_S = const(60)          # ... and every minute while it could not be set
_WIFI_CHECK_S = const(30)         # a linked table's Wi-Fi lost is joined again this often
_CLOCK_READ_MS = const(1000)      # the loop's wall clock is kept a second between its reads
# A clock reading before 2025-01-01 was never set: the Pico W starts its clock at 2021-01-01
# after every power cut, the ESP32 at 2000 (critical memory marks such times as not known)
_CLOCK_SET_FROM = 1735689600
_WATCHDOG_MS = const(2000)
_FRAM_COPY_BYTES = const(16384)
_SPOTS = const(16)                # both MCP23017 ports: jackpot spots GPA0-6, Ante GPB0-6
_MCP_CHECK_TICKS = const(50)      # re-read the expander's configuration once a second
# the loop pass count starts again here (248 days of 20 ms passes would take it past the
# small ints of a 32-bit board, allocating at every pass), at _PASS_RESTART: past
# _QUICK_PASSES, so a table that ran that long is never a quick boot (a reset loop's) when it
# faults; both multiples of _MCP_CHECK_TICKS and of the spot lights' pattern cycle (4000
# passes), so neither skips a beat
_PASS_WRAP = const(1000000000)
_PASS_RESTART = const(40000)
# the phases that hold the round's chips on their spots (the spot sensors let them stay there
# longer than a stuck sensor would: a jackpot may wait long for the supervisor)
_CHIPS_STAY = (tc.LOCKED, tc.CONFIRM, tc.CARD_ENTRY, tc.RESULTS)
_DISPLAY_RETRY_MS = const(2000)    # a dealer display (or meter sign) that stopped answering is
                                   # started again
# the dealer display's settings and picture are sent again this often: one that lost its power
# for a moment comes back dark, and writes to it still succeed (the meter sign does the same)
_DISPLAY_REFRESH_MS = const(10000)
_OLED_LINES = const(8)
_NEWLINE = const(10)
_RETURN = const(13)
_CONSOLE_CHUNK = const(64)        # bytes ConsoleWatch takes a pass (firmware.service.READ_CHUNK)
_LINE_TIMEOUT_MS = const(2000)    # firmware.service.LINE_TIMEOUT_MS
# A fault that stops the table (an exception out of its boot or its loop) is logged
# (eventlog.LOOP_FAULT) and resets the board through the watchdog, but the table halts, with
# no more resets, at the STOP_FAULTS-th boot in a row to end in a fault, each boot after the
# first within _QUICK_PASSES loop passes (10 minutes) of its start: a reset loop, whose
# power-ups would push every older record out of the event log
STOP_FAULTS = const(3)
_QUICK_PASSES = const(30000)
_FAULT_LOOK_BACK = const(64)      # the newest entries searched for the boot before's fault
_HALT_FEED_MS = const(200)

# Beep pattern of each controller beep (index = tc.BEEP_*).
BEEPS = (None, buz.ACCEPT, buz.ERROR, buz.TAMPER, buz.JACKPOT)
REPEATING = (False, False, False, False, False)


class _Inverted:
    """A pin read upside down (a switch that closes in the state the driver calls idle)."""

    def __init__(self, pin):
        self.pin = pin

    def value(self):
        return 0 if self.pin.value() else 1


def make_memory(board, fs):
    """Critical memory on the board: FRAM + flash file when there is FRAM, else two files."""
    if board.has_fram:
        fram = FRAM(board.i2c, board.fram_addr)
        copies = [FramSlot(fram, 0, _FRAM_COPY_BYTES, "fram"), FileSlot(fs, "cm_a.bin")]
    else:
        copies = [FileSlot(fs, "cm_a.bin"), FileSlot(fs, "cm_b.bin")]
    return CriticalMemory(copies, fs)


class App:
    """The table: drivers around a RoundController."""

    def __init__(self, board, fs, memory=None, jackpot_config=None, hand_rule=tc.HOLE2_BOARD3,
                 ante_sensors=True, now=0, link=None, game=tc.UTH, seats=None, aces_up_alone=True,
                 trips_rule=None):
        """link: a firmware.link.setup.LinkSetup for a linked table (None: standalone);
        seats: the seats in play (the configuration's rules.seats), at most the board's;
        aces_up_alone: Four Card Poker's rules.aces_up_alone; trips_rule: UTH's
        rules.trips_hand_rule where it is not the hand rule."""
        self.board = board
        self.memory = memory or make_memory(board, fs)
        seats = board.seats if seats is None else min(seats, board.seats)
        self.controller = tc.RoundController(self.memory, jackpot_config, hand_rule, ante_sensors,
                                             seats, game, aces_up_alone, trips_rule)
        self.controller.chord_ms = tc.CHORD_MS    # the panel's buttons can be hit together
        self.controller.batch = True    # its view drawn once a pass (_render), not per event
        self.link_setup = link
        self.station = None      # firmware.link.station.Station of a linked table, after boot
        if link is not None:
            self.controller.link_factory = self._open_station
        spot_pins = getattr(board, "spot_pins", None)
        # the spot sensors' bits: from the MCP23017, or from direct GPIO when the board says so
        self.mcp = None if spot_pins else MCP23017(board.i2c, board.mcp23017_addr)
        self.inputs = sensors.PinInputs(spot_pins) if spot_pins else self.mcp
        self.spots = sensors.SpotSensors(len(spot_pins) if spot_pins else _SPOTS)
        buttons = [board.buttons[name] for name in btn.BUTTON_NAMES]
        door = board.door if board.door_open_level == 0 else _Inverted(board.door)
        # the buttons' debounce is the spots': a chip moved as LOCK is pressed is seen in the
        # same pass as the press (before it), however long the passes between
        self.panel = btn.Panel(buttons, board.key, door, now, self.spots.debounce_ms)
        self.shoe = shoemod.Shoe(board.shoe_uart, rxbuf=board.shoe_rxbuf)
        # every ring the board has: those of seats not in play stay OFF (dark after a reset)
        self.lights = lights.SpotLights(_Strip(board.write_pixels), board.seats, TICK_MS)
        self.sign = MeterSign(board.spi, board.cs, board.meter_modules)
        self.oled = SSD1306(board.i2c, board.oled_addr)
        self.buzzer = buz.Buzzer(board.buzzer)
        wdt = board.make_wdt(_WATCHDOG_MS) if board.make_wdt else None
        self.watchdog = wd.Watchdog(wdt, wd.SENSORS | wd.PANEL | wd.DISPLAY | wd.CONTROLLER)
        self.ticks = 0
        self.rendered = -1
        self.win_serial = 0
        self.beep_serial = 0
        self.beeping = 0         # the controller's beep the buzzer plays (if busy)
        self.meter_shown = [-1, -1, -1]
        self.test_shown = -1     # test mode step the outputs show (-1: not in test mode)
        self.fault_shown = None
        self.service = None      # firmware.service.Service, polled each pass when set
        self.display_ok = True   # the dealer display answers on the bus
        self.display_retry = 0   # tick when a display that stopped answering is tried again
        self.display_refresh = 0     # tick when the display's settings and picture go again
        self.sign_ok = True      # the meter sign's SPI writes go through
        self.sign_retry = 0      # tick when a sign whose writes failed is started again

    def _open_station(self, section, log):
        if self.station is not None:
            self.station.close()
        self.station = self.link_setup.station(section, log)
        return self.station.link

    def boot(self, now, wall, program=None):
        """Start every part, read critical memory and show the table's state.

        program: firmware.startup.program_facts() of the boot-time program check (None: not
        checked, as in the simulator); a failed check keeps jackpot wagering closed, and an
        unkeyed one at a table that ran keyed stops in RAM ERROR (RoundController.unkeyed)."""
        if self.mcp is not None:
            try:
                self.mcp.configure()
            except OSError:
                pass    # its reads fail: the spots show a bus fault; check() configures it later
        try:
            self.sign.begin(now)
            sign_ok = True
        except OSError:
            sign_ok = False      # told to the controller once it has booted
        cause = getattr(self.board, "reset_cause", 0) or 0
        if program is not None:
            # a keyed program marks critical memory in the boot's commit
            self.controller.memory.key = program["authenticated"]
            # at a marked table, an unkeyed program stops in the boot, before any round work
            self.controller.unkeyed = program["ok"] and not program["authenticated"]
        self.controller.boot(now, wall, cause, getattr(self.board, "reset_cause_name", ""))
        # The panel reports changes only: a key left on, or a door opened while the power was
        # off, is told to the controller here (the door is logged).
        if self.panel.key_on():
            self.controller.panel(btn.KEY_ON, 0, now)
        if self.panel.door_open():
            self.controller.panel(btn.DOOR_OPEN, 0, now)
        if not sign_ok:
            self._sign_failed(now)
        self._display_begin(now)
        if program is not None:
            self.controller.set_program(program["ok"], program["text"], program["digest"])
        self._render(now, True)
        return self.controller.phase

    def clock_set(self):
        """The wall clock the loop passes on is a real time now (NTP answered): the log's
        times are known again (docs/critical-memory.md, "Times")."""
        self.controller.clock_set()

    def step(self, now, wall):
        """One loop pass at tick ``now`` (ms) and wall-clock ``wall`` (s)."""
        c = self.controller
        self.ticks += 1
        if self.ticks >= _PASS_WRAP:
            self.ticks = _PASS_RESTART
        dog = self.watchdog
        if self.mcp is not None and self.ticks % _MCP_CHECK_TICKS == 0:
            self.mcp.check()
        self.spots.chips_stay = c.phase in _CHIPS_STAY
        self.spots.scan(self.inputs.read(), now)
        dog.check_in(wd.SENSORS)
        event = self.spots.events.pop()
        while event != EMPTY:
            spot = event_detail(event)
            c.spot(event_kind(event), spot, now, self.spots.fault(spot))
            event = self.spots.events.pop()
        self.panel.poll(now)
        dog.check_in(wd.PANEL)
        event = self.panel.events.pop()
        while event != EMPTY:
            c.panel(event_kind(event), event_detail(event), now)
            event = self.panel.events.pop()
        self.shoe.poll(now)
        event = self.shoe.events.pop()
        while event != EMPTY:
            kind = event_kind(event)
            if kind == shoemod.CARD:
                c.card(shoemod.card_dest(event), shoemod.card_of(event), now)
            elif kind == shoemod.REJECT:
                c.shoe_reject(event_detail(event), now)
            event = self.shoe.events.pop()
        station = self.station
        if station is not None:
            station.service(now, wall, c.link_stop())
            c.link(station.link.wagers_open(), now)
            c.link_poll(now)
        c.tick(now, wall)
        if self.service is not None:
            self.service.poll(now)
        dog.check_in(wd.CONTROLLER)
        self._render(now, False)
        self.lights.render(self.ticks)
        if self.sign_ok or ticks_diff(now, self.sign_retry) >= 0:
            try:
                if not self.sign_ok:
                    self.sign.begin(now)    # every module set up and every digit sent again
                    self.sign_ok = True
                    c.set_display(True, now, tc.SIGN)
                self.sign.tick(now)
            except OSError:
                self._sign_failed(now)
        if self.display_ok:
            try:
                if ticks_diff(now, self.display_refresh) >= 0:
                    self.display_refresh = ticks_add(now, _DISPLAY_REFRESH_MS)
                    self.oled.refresh()
                self.oled.update()
            except OSError:
                self._display_failed(now)
        elif ticks_diff(now, self.display_retry) >= 0 and self._display_begin(now):
            self._render(now, True)
        self.buzzer.tick(now)
        dog.check_in(wd.DISPLAY)
        dog.tick()

    def _render(self, now, force):
        view = self.controller.view
        if view.version == self.rendered and not force:
            return
        self.rendered = view.version
        self.controller.draw()      # the pass's events drawn once, however many came
        for seat in range(len(view.seat_light)):
            self.lights.set(seat, view.seat_light[seat])
        for row in range(_OLED_LINES):
            self.oled.write_line(row, view.lines[row])
        slots = view.meter_slots
        for line in range(self.board.meter_modules):
            # a module with no pool, or a pool not known, shows no amount: dark, or the fault
            # text alone
            self.sign.blank(line, line >= len(slots) or view.meter[slots[line]] < 0)
        for line in range(len(slots)):
            if view.meter[slots[line]] < 0:
                continue
            # a pool above the sign's range (no ceiling, reset near the largest one) shows its
            # largest amount, $10737418 in whole dollars: a ValueError would stop the loop at
            # every boot
            cents = min(view.meter[slots[line]], SIGN_MAX_CENTS)
            if cents != self.meter_shown[line]:
                # the first amount after a boot is shown as it is: counting up from zero
                # would tell the players the pool had been reset
                first = self.meter_shown[line] < 0
                self.meter_shown[line] = cents
                self.sign.set_amount(line, cents, now, first)
        if view.meter_fault != self.fault_shown:
            self.fault_shown = view.meter_fault
            for line in range(self.board.meter_modules):
                if view.meter_fault:
                    self.sign.set_fault(line, view.meter_fault)
                else:
                    self.sign.clear_fault(line)
        if view.win_serial != self.win_serial:
            wins = view.wins                # every win since the last render, in order
            first = max(0, len(wins) - (view.win_serial - self.win_serial))
            self.win_serial = view.win_serial
            for i in range(first, len(wins)):
                line, seat, amount, new = wins[i]
                if not seat:        # the wins that waited at CONFIRM: paid, sent back or void
                    self.sign.end_wins(line)
                    continue
                self.sign.show_win(line, seat, min(amount, SIGN_MAX_CENTS),
                                   min(new, SIGN_MAX_CENTS), now)
        c = self.controller
        step = c.test_step if c.phase == tc.TEST else -1
        if step != self.test_shown:
            self._show_test(step, now)
        if view.beep_serial != self.beep_serial:
            self.beep_serial = view.beep_serial
            beep = view.beep
            # never a tamper's alarm cut down to a blip by a refusal's beep that follows it
            if BEEPS[beep] and (not self.buzzer.busy()
                                or tc.BEEP_RANK[beep] >= tc.BEEP_RANK[self.beeping]):
                self.buzzer.play(BEEPS[beep], now, REPEATING[beep])
                self.beeping = beep


    def _display_begin(self, now):
        """Start the dealer display with all of its picture to send; False, and a retry due
        in _DISPLAY_RETRY_MS, if it does not answer.  The table plays on without it (the
        controller puts the fault on the meter sign), and resetting would not bring it back."""
        try:
            self.oled.begin()
        except OSError:
            self._display_failed(now)
            return False
        self.oled.touch()
        self.display_refresh = ticks_add(now, _DISPLAY_REFRESH_MS)
        if not self.display_ok:
            self.display_ok = True
            self.controller.set_display(True, now)
        return True

    def _display_failed(self, now):
        self.display_retry = ticks_add(now, _DISPLAY_RETRY_MS)
        if self.display_ok:
            self.display_ok = False
            self.controller.set_display(False, now)

    def _sign_failed(self, now):
        """A write to the meter sign raised (a port whose SPI driver reports a failed
        transfer): the table plays on, the dealer display says so, and the sign is started
        again every _DISPLAY_RETRY_MS, as the dealer display is."""
        self.sign_retry = ticks_add(now, _DISPLAY_RETRY_MS)
        if self.sign_ok:
            self.sign_ok = False
            self.controller.set_display(False, now, tc.SIGN)

    def _show_test(self, step, now):
        """Test mode's outputs besides the rings (which the controller cycles) and the
        sensors (on the display): every segment of every sign digit lit, the display
        inverted on odd steps (every pixel lit around the text), one beep per step.  Leaving
        test mode (step -1) puts them back."""
        testing = step >= 0
        if testing != (self.test_shown >= 0):
            try:
                self.sign.lamp_test(testing)    # (kept for the sign's restart if it fails)
            except OSError:
                self._sign_failed(now)
        try:
            # set on a display not answering too: it is sent again when it answers, never
            # left inverted by a test mode that ended meanwhile
            self.oled.invert(testing and step & 1)
        except OSError:
            if self.display_ok:
                self._display_failed(now)
        if testing:
            self.buzzer.play(BEEPS[tc.BEEP_OK], now)
            self.beeping = tc.BEEP_OK
        self.test_shown = step


class _Strip:
    """The pixel chain as SpotLights wants it: an object with write(buf)."""

    def __init__(self, write):
        self.write = write


def run(hw, checks):
    """Start the table on the board `hw` with firmware.startup's checks and run the loop for
    ever (the second half of the board's boot, after firmware.startup.main; main.py says
    on the console why it stopped, if it does).  A fault that stops the table is logged,
    and the table halts at the STOP_FAULTS-th boot in a row to end in one (log_fault)."""
    app, link = start(hw, checks)
    try:
        _loop(app, link)
    except (Exception, Stop) as error:     # never KeyboardInterrupt (the technician's Ctrl-C)
        _fault(app, error)
        raise               # main.py says why, and the watchdog resets the board


def _loop(app, link):
    import time

    offset = _wall_offset()
    # a clock NTP did not set at boot (the network came up after the boot's wait, as after a
    # power cut of the whole floor) has every link message refused as stale: jackpot wagering
    # stays closed until it is set, so it is tried again every minute, not after an hour.
    # The loop's NTP client (firmware.link.sntp) never waits: an answer comes passes later,
    # and corrects the wall clock the loop passes on (the RTC is set at boot only)
    sntp = link.sntp if link is not None else None
    retry = link is not None and link.clock_retry
    # Seconds since 1970 are past 2**30: each time.time(), and the wall clock made of it, is
    # a new int on a 32-bit board's heap, which the idle loop must not fill.  Every pass is
    # handed the same wall clock until its second is over: the clock is read again from a
    # pass before the second's end, at every pass until it has moved on (2 or 3 reads a
    # second, not 100; a clock that jumps is seen within the second).
    clock = time.time()                                 # a float on the unix port
    wall = int(clock) + offset
    read_ms = time.ticks_ms()
    next_ntp = clock + (_NTP_RETRY_S if retry else _NTP_EVERY_S)
    next_wifi = clock + _WIFI_CHECK_S
    while True:
        start_ms = time.ticks_ms()
        if ticks_diff(start_ms, read_ms) >= 0:
            clock = time.time()
            if int(clock) + offset != wall:
                wall = int(clock) + offset
                read_ms = ticks_add(start_ms, _CLOCK_READ_MS - TICK_MS)
        app.step(start_ms, wall)
        if sntp is not None:
            got = sntp.poll(start_ms)
            if got:
                clock = time.time()
                offset = got - int(clock)
                wall = int(clock) + offset
                next_ntp = clock + _NTP_EVERY_S
                app.clock_set()                 # the log's times are known again
            elif clock >= next_ntp:
                sntp.ask(start_ms)
                next_ntp = clock + _NTP_RETRY_S   # again in a minute unless it answers
            if clock >= next_wifi:
                next_wifi = clock + _WIFI_CHECK_S
                link.rejoin()           # (link.setup: the Wi-Fi joined again if it was lost)
        spent = time.ticks_diff(time.ticks_ms(), start_ms)
        if spent < TICK_MS:
            time.sleep_ms(TICK_MS - spent)


def _wall_offset():
    """Seconds to add to time.time() for seconds since 1970 (the boards count from 2000)."""
    import time

    return _EPOCH_2000 if time.gmtime(0)[0] == 2000 else 0


def start(hw, checks):
    """(App, LinkSetup or None): the table built on the board `hw` with firmware.startup's
    checks and booted, ready for its loop; the heap back to collecting only when full."""
    import time

    from firmware.store.slots import PathFS

    program, options, link_settings, config_ok, config_text = checks
    print("boot: reset cause %s (%d)" % (hw.reset_cause_name, hw.reset_cause))
    link = None
    if link_settings is not None:
        from firmware.link.setup import board_link  # a standalone table never loads it

        link, problem = board_link(hw, link_settings)
        if problem:
            config_ok, config_text = False, problem
        else:
            print("link: table %d through %s" % (link.table, link.client_name))
    app = App(hw, PathFS("/data") if _has_dir("/data") else PathFS(""), now=time.ticks_ms(),
              link=link, **options)
    app.controller.memory.clock_from = _CLOCK_SET_FROM
    try:
        app.boot(time.ticks_ms(), int(time.time()) + _wall_offset(), program)
        if link is not None and not link.clock_retry:
            app.clock_set()             # NTP set the clock at boot: a real time
        app.controller.set_config_status(config_ok, config_text)
        if link_settings is not None and link is None:
            # configured as linked but the link cannot be built: never fall back to the
            # local pool
            app.controller.link_required = True
            app.controller.link(False, time.ticks_ms())
        app.service = ConsoleWatch(app, program)
    except (Exception, Stop) as error:     # after the power-up's commit, as in the loop
        _fault(app, error)
        raise
    from firmware.heap import collect_often

    collect_often(False)                # loaded: the loop collects only when the heap is full
    return app, link


def _fault(app, error):
    """The table booted as `app` stopped on `error`: logged, and halted (never returns) at
    the STOP_FAULTS-th boot in a row to end in a fault; else the caller raises it."""
    faults = log_fault(app, error)
    if faults >= STOP_FAULTS:
        halt(app, error, faults)


def log_fault(app, error):
    """Commit a LOOP_FAULT entry for `error`, which stops the table booted as `app`; its count
    of boots in a row to end in a fault, which it returns: the count of the boot before's
    fault + 1 when that boot ended in one and this one came within _QUICK_PASSES passes of its
    start, else 1.  The boot before's is the newest LOOP_FAULT entry with one power-up after it
    (this boot's), among the log's newest _FAULT_LOOK_BACK entries.  0: nothing logged (the
    memory cannot commit, or the fault cut a commit short, which left its copies unknown)."""
    import gc

    from firmware.store.crc32 import crc32

    gc.collect()            # what the failed pass left (a full heap is a likely fault)
    try:
        memory = app.controller.memory
        log = memory.log
        if memory.cut_short():
            return 0
        count = boots = 0
        if app.ticks < _QUICK_PASSES:
            for entry in log.events(max(log.first_available(), log.count - _FAULT_LOOK_BACK)):
                if entry[3] == ev.LOOP_FAULT:
                    count, boots = entry[4], 0
                elif entry[3] == ev.POWER_UP:
                    boots += 1
        count = min(count + 1, 0xFFFF) if boots == 1 else 1
        what = crc32(("%s: %s" % (type(error).__name__, error)).encode()) & 0x7FFFFFFF
        # with the entries the pass held for its tick (a sensor fault, a tamper, the door),
        # timed as the table logs: its last pass's clock, shifted on after a restart or set
        # by the loop's NTP, which the RTC's own reading is not
        events = app.controller._take_held([(ev.LOOP_FAULT, count, what, app.ticks)])[1]
        memory.commit_admin(None, events, app.controller.wall & 0xFFFFFFFF)
    except Exception:       # noqa: BLE001 - the fault's own reset goes ahead
        return 0
    return count


def halt(app, error, faults):
    """Stop the table for good: the fault said on the console and the dealer display (TABLE
    STOPPED, the error's type and its text), the buzzer silent, the seats' rings dark, and
    STOPPED on the meter sign (never an amount frozen as it counted), then feed the watchdog
    and nothing else, until the power is cut (or Ctrl-C)."""
    import time

    from firmware.heap import stopped_line

    print(stopped_line(error))
    print("table halted: %d boots in a row ended in a fault; no more resets (the event log "
          "keeps its records): power off and on to try again" % faults)
    try:
        app.buzzer.stop()
        app.lights.set_all(lights.OFF)
        app.lights.render(0)
        for line in range(app.board.meter_modules):
            app.sign.blank(line, True)
            app.sign.set_fault(line, "STOPPED")
        app.sign.tick(time.ticks_ms())
    except Exception:       # noqa: BLE001 - the outputs may be the fault
        pass
    try:
        from firmware.startup import show_stop

        show_stop(app.board, error)
    except Exception:       # noqa: BLE001
        pass
    dog = app.watchdog
    while True:
        dog.feed_halted()
        time.sleep_ms(_HALT_FEED_MS)


def _has_dir(path):
    import os
    try:
        os.stat(path)
        return True
    except OSError:
        return False


def _service_error(text):
    """One error reply line of the service protocol (docs/service-protocol.md)."""
    return ('{"ok": false, "cmd": null, "code": "%s", "error": "%s"}\n'
            % (SERVICE_UNAVAILABLE, text.replace("\\", "/").replace('"', "'"))).encode()


SERVICE_UNAVAILABLE = "internal"    # firmware.service.INTERNAL: a failure on the table's side
SERVICE_NO_HEAP = _service_error("the service protocol could not be loaded: the heap is full; "
                                 "the table plays on, send the line again")


class ConsoleWatch:
    """Stands in for the service protocol on the USB serial console until a technician types.

    Polled each pass like a firmware.service.Service; at the first byte it loads the service
    module, puts the Service in its place (app.service) and hands it the byte, so the
    protocol's code is in the heap only on a table someone is servicing.  When the module
    cannot be loaded (a full heap), the table plays on: what arrived is dropped, each line
    gets an error reply in the protocol's form, and the next line tries again."""

    def __init__(self, app, program=None, port=None):
        if port is None:
            from firmware.console import ConsolePort
            port = ConsolePort()
        self.app = app
        self.port = port
        self.program = program
        self.refused = 0                # lines answered with SERVICE_UNAVAILABLE
        self._byte = bytearray(1)
        self._after_return = False
        self._error = None              # why the protocol did not load, while a line it
                                        # refused is still arriving: the rest is refused too
        self._last = 0                  # when a byte of that line last came

    def poll(self, now):
        if not self.port.any():
            return
        if self._error is not None and ticks_diff(now, self._last) < _LINE_TIMEOUT_MS:
            # a line whose start was dropped: never its end taken for a command (one left
            # unfinished is forgotten after the protocol's LINE_TIMEOUT_MS, as it does)
            self._last = now
            self._refuse(self._error)
            return
        self._last = now
        try:
            from firmware.service import Service
            service = Service(self.app.controller, self.port, self.program,
                              getattr(self.app, "shoe", None))
        except Exception as error:  # noqa: BLE001 - a reply, never a dead main loop
            self._refuse(error)
            return
        self.app.service = service
        service._after_return = self._after_return     # an LF after a CR answered here: its pair
        service.poll(now)

    def _refuse(self, error):
        # (a module whose import failed is not left in sys.modules: the next line loads afresh)
        port, byte = self.port, self._byte
        # a chunk a pass at most, and one reply: each reply blocks the loop on a 115,200-baud
        # console (159 bytes: 14 ms), and a chunk of line ends answered in one pass took 0.8 s
        # of the 2 s watchdog; the bytes after a line end wait in the port for the next pass
        for _ in range(_CONSOLE_CHUNK):
            if not (port.any() and port.readinto(byte)):
                return
            # a line ends at CR, LF or CR LF (counted once), as in firmware.service
            after_return = self._after_return
            self._after_return = byte[0] == _RETURN
            if byte[0] == _RETURN or (byte[0] == _NEWLINE and not after_return):
                self._error = None
                self.refused += 1
                # MemoryError: built without allocating, the heap being full
                port.write(SERVICE_NO_HEAP if isinstance(error, MemoryError) else
                           _service_error("the service protocol could not be loaded: %s %s"
                                          % (type(error).__name__, error)))
                return
            if byte[0] != _NEWLINE:     # (an LF here is a CR's pair: no line begun)
                self._error = error

