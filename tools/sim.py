"""`make sim`: the real firmware main loop on the simulated table, in the terminal.

    python -m tools.sim                      # interactive (a terminal), state kept in .sim/
    python -m tools.sim --script FILE        # replay a scenario file and print what is seen
    python -m tools.sim --fresh              # start with blank critical memory
    python -m tools.sim --state DIR          # keep the table's FRAM and flash files in DIR
    python -m tools.sim --game fcp           # a Four Card Poker (or brs: Big Raise Stud) table
    python -m tools.sim --service            # the service protocol on stdin/stdout (serve())
    python -m tools.sim --link HOST:PORT --table-id N --key-file F
                                             # a linked table on a real broker and link controller

Everything shown is read back from the wire-level fakes, as a person at the table would see
it: the seat rings' colours from the WS2812 bytes, the meter sign's digits from the MAX7219
register writes, the dealer display's text from the SSD1306 pixels.

Script commands (one per line, # starts a comment):

    press LOCK|SETTLE|UP|DOWN|OK|BACK     a short press
    hold LOCK|SETTLE|UP|DOWN|OK|BACK      a long press (1.2 s)
    key on|off        door open|shut      supervisor key switch, logic door
    chip N [off]      ante N [off]        a chip put on (taken off) seat N's jackpot / Ante spot
    shoe TEXT         a line from the card-reading shoe, e.g. "shoe S3 As"
    deal [SEED]       random cards for every seat with a chip, the dealer and the board
    wait MS           let the table run (at most 600000 ms at a time)
    show              print the table
    expect meter N TEXT      meter sign line N (0 the top) shows TEXT
    expect display TEXT      the dealer display shows TEXT somewhere
    expect light N COLOUR    seat N's ring is COLOUR (green, red, off, mixed ...)
    expect pattern N NAME    seat N's ring shows the pattern NAME (ACCEPTED, LATE ...)
    expect phase NAME        the round is in phase NAME (OPEN, LOCKED, RAM ERROR ...)

Every line of a script is checked before the table runs: a line with a word missing, extra or
out of range is reported as "FILE line N: 'LINE': what is wrong" and nothing runs (exit
status 2, also for a script that cannot be read or a --state folder that cannot be used).
A failed expectation is reported the same way with the table as it is, and ends the replay
(exit status 1); a replay that runs to its end says so in its last line: "FILE: N commands
replayed, M expectations met; the table is in PHASE".
"""

import argparse
import fcntl
import os
import random
import re
import select
import signal
import sys
import time

from boards import simulated
from firmware.app import TICK_MS, App
from firmware.drivers import spot_lights
from firmware.drivers.spot_sensors import ante_spot, jackpot_spot
from firmware.poker import cards as cardlib
from firmware.store.slots import PathFS
from firmware.table import controller as tc
from firmware.table.roundrecord import NO_CARD
from host_tests.fakes.flash import MemFS

SHORT_MS = 100
LONG_MS = 1200
LEGEND_CYCLE_MS = 4000   # every spot-light pattern repeats within this (spot_lights' cycle)
SETTLE_MS = 400          # long enough for debounce, the OLED pages and the beeps
DEFAULT_STATE = ".sim"
CHIPS_FILE = "chips.txt"  # in the state folder: the spots a chip lies on, kept across restarts
LOCK_FILE = "sim.lock"    # in the state folder: locked while a simulator process runs on it
_HELD = {}                # state folder -> its locked file, for this process's lifetime
# The simulated UTH table's operator seeds the jackpot pool with $10,000.00, as
# docs/table-config.example.json does (the firmware's own default, rules.md: no seed).
DEMO_JACKPOT = {"main": {"reset": 1000000}}
# Lines of at most HELP_WIDTH characters: the interactive screen shows them beside the dealer
# display, so that the whole screen fits an 80 x 24 terminal.
KEYS_HELP = (
    "1-7 chip on/off jackpot spot  shift+1-7 (!@#$%^&) Ante\n"
    "l LOCK  s SETTLE  u UP  d DOWN  o OK  b BACK   q quit\n"
    "capital letter = hold: a long press (V is the long DOWN)\n"
    "k supervisor key on/off  D door open/shut  c deal cards\n"
    "t type a shoe line (S3 Ah, D Kc)   OPEN: S last results\n"
    "Key on (k), OPEN: O audit, S configuration, L test mode\n"
    "  (b leaves them) CONFIRM: o pays the jackpot, l sends back\n"
    "  LOCKED: b voids the seat at the cursor, B voids the round\n"
    "  (B also at CONFIRM)   RAM ERROR: O, then o, clears memory\n"
    "LOCKED, no key needed: O enters a card (u/d change,\n"
    "  o next field, l adds it, b done; key: s takes one out)"
)
HELP_WIDTH = 59
TYPE_PROMPT = "shoe line, e.g. S3 Ah, D Kc or B 7d (Enter alone: nothing): "
ANSI_COLOURS = {
    "off": "90", "red": "31", "green": "32", "blue": "34", "white": "97", "yellow": "93",
    "amber": "33", "magenta": "35", "cyan": "36", "pink": "95", "violet": "35", "lime": "92",
    "mixed": "37",
}
BUTTON_KEYS = {"l": "LOCK", "s": "SETTLE", "u": "UP", "d": "DOWN", "o": "OK", "b": "BACK"}
LONG_KEYS = {"L": "LOCK", "S": "SETTLE", "U": "UP", "V": "DOWN", "O": "OK", "B": "BACK"}
DOOR_KEY = "D"
ANTE_KEYS = "!@#$%^&"


COLOUR_NAMES = tuple(ANSI_COLOURS)   # every name host_tests/fakes/ws2812.py gives a ring
MAX_WAIT_MS = 600000                 # one wait: at most ten minutes of table time
BAD_SCRIPT = 2                       # exit status for a malformed script or a missing file
# What `make sim` replays without a terminal, per game (tools/sim_scripts/)
DEMO_SCRIPTS = {"uth": "demo.txt", "fcp": "demo_fcp.txt", "brs": "demo_brs.txt"}
USAGE = {
    "press": "press LOCK|SETTLE|UP|DOWN|OK|BACK",
    "hold": "hold LOCK|SETTLE|UP|DOWN|OK|BACK",
    "key": "key on|off",
    "door": "door open|shut",
    "chip": "chip N [off]",
    "ante": "ante N [off]",
    "shoe": "shoe TEXT",
    "deal": "deal [SEED]",
    "wait": "wait MS",
    "show": "show",
    "expect": "expect meter N TEXT | display TEXT | light N COLOUR | pattern N NAME | phase NAME",
    "expect meter": "expect meter N TEXT",
    "expect display": "expect display TEXT",
    "expect light": "expect light N COLOUR",
    "expect pattern": "expect pattern N NAME",
    "expect phase": "expect phase NAME",
}
COMMANDS = [verb for verb in USAGE if " " not in verb]


_legend = []


def ring_legend():
    """Each spot-light pattern's name (firmware.drivers.spot_lights.STATE_NAMES) with the
    colours it shows, found by running the driver itself into the WS2812 fake for one cycle of
    every pattern and naming what the pixels show, e.g. "ACCEPTED green", "LATE red flashing",
    "LOCKED dim red 2 of 8" (a steady pattern that lights part of the ring)."""
    if _legend:
        return _legend[0]
    from host_tests.fakes.ws2812 import FakeWS2812

    parts = []
    for state, name in enumerate(spot_lights.STATE_NAMES):
        strip = FakeWS2812(pixels=spot_lights.PIXELS_PER_SEAT)
        lights = spot_lights.SpotLights(strip, seats=1, tick_ms=TICK_MS)
        lights.set(0, state)
        seen, dark, top, frames = [], False, 0, set()
        for tick in range(LEGEND_CYCLE_MS // TICK_MS):
            lights.render(tick)
            names = strip.seat_names(0)
            frames.add(tuple(names))
            dark = dark or names.count("off") == len(names)
            for n in names:
                if n != "off" and n not in seen:
                    seen.append(n)
            top = max(top, strip.level(0))
        if not seen:
            parts.append("%s dark" % name)
            continue
        words = ["rainbow"] if len(seen) > 3 else ["/".join(seen)]
        if top * 2 < lights.brightness:
            words.insert(0, "dim")
        if dark:
            words.append("flashing")
        elif len(frames) > 1:
            words.append("moving")
        else:
            lit = len(names) - names.count("off")
            if lit < len(names):    # a steady pattern told apart by its shape too
                words.append("%d of %d" % (lit, len(names)))
        parts.append("%s %s" % (name, " ".join(words)))
    _legend.append(parts)
    return parts


def legend_text(width=80):
    """The ring legend, 'Rings: OFF dark, IDLE blue moving, ...', on lines of at most width
    characters, never breaking one pattern's entry."""
    lines = ["Rings:"]
    for entry in ring_legend():
        if len(lines[-1]) + len(entry) + 2 > width:
            lines[-1] += ","
            lines.append("      ")
        elif lines[-1] != "Rings:":
            lines[-1] += ","
        lines[-1] += " " + entry
    return "\n".join(lines)


class ScriptError(Exception):
    """A script line that could not be carried out, or an expectation that failed."""


class Simulation:
    """The app on a simulated table, with a clock that the caller advances.

    link: a firmware.link.setup.LinkSetup for a linked table; its clock then follows real time (the
    broker and the link controller live in real time), and ``companions`` (other linked
    Simulations) are stepped along whenever this one runs, so several tables keep their links
    alive in one thread.  wall: the board's clock at power-up (seconds; default the host's)."""

    def __init__(self, state_dir=None, fresh=False, link=None, game="uth", before_boot=None,
                 wall=None):
        if state_dir:
            _hold(state_dir)
        if state_dir and fresh:
            _wipe(state_dir)
        self.table = simulated.make(state_dir)
        # The chips on the felt outlast a power cut, as the critical memory does: a resumed
        # locked round finds its wagers where they were (no "chip off at boot" tamper).
        self.chips_path = os.path.join(state_dir, CHIPS_FILE) if state_dir else None
        for pin in _read_chips(self.chips_path):
            self.table.mcp.cover(pin)
        if before_boot is not None:
            before_boot(self.table)      # what the hardware is like at power-up (tests)
        fs = PathFS(self.table.flash_dir) if state_dir else MemFS()
        self.now = 0
        self.wall = int(time.time()) if wall is None else wall   # (tests: the board's clock)
        self.realtime = link is not None
        self.started = time.monotonic()
        self.companions = []
        self.app = App(self.table.board, fs, now=self.now, link=link, game=game,
                       jackpot_config=DEMO_JACKPOT if game == "uth" and link is None else None)
        self.pending_lines = []
        self.releases = {}       # button name -> table time its push() lets go of it
        self.app.boot(self.now, self.wall)
        self.run(SETTLE_MS)

    @property
    def controller(self):
        return self.app.controller

    @property
    def link(self):
        """The TableLink of a linked table (None when standalone or before boot)."""
        return self.app.station.link if self.app.station is not None else None

    def run(self, ms):
        """Let the table run for ms milliseconds, one loop tick at a time."""
        end = self.now + ms
        while self.now < end:
            if self.realtime:
                ahead = self.started + (self.now + TICK_MS) / 1000 - time.monotonic()
                if ahead > 0:
                    time.sleep(ahead)
            self._tick()
            for other in self.companions:
                other.catch_up()

    def catch_up(self):
        """Run the ticks real time has made due (a companion of the table that is running)."""
        due = int((time.monotonic() - self.started) * 1000)
        for _ in range(100):
            if self.now + TICK_MS > due:
                return
            self._tick()

    def _tick(self):
        for name in [n for n, at in self.releases.items() if self.now >= at]:
            self.table.buttons[name].release()
            del self.releases[name]
        self.now += TICK_MS
        self.table.pwm.now = self.now
        if self.pending_lines:
            self.table.shoe.inject(self.pending_lines.pop(0))
        self.app.step(self.now, self.wall + self.now // 1000)

    def run_until(self, done, timeout_ms):
        """Run until done() is true (checked every tick); False after timeout_ms."""
        for _ in range(timeout_ms // TICK_MS + 1):
            if done():
                return True
            self.run(TICK_MS)
        return done()

    def press(self, name, long=False):
        pin = self.table.buttons[name]
        pin.press()
        self.run(LONG_MS if long else SHORT_MS)
        pin.release()
        self.run(SHORT_MS)

    def push(self, name, long=False):
        """Press button name and let go of it after a short (long) press's hold of table time,
        without waiting: the table runs on and the release comes in a later tick, as when a
        dealer presses a key in the terminal.  Pushing a button still held lets go of it
        first, so two pushes are two presses."""
        pin = self.table.buttons[name]
        if name in self.releases:
            self.run_until(lambda: name not in self.releases, LONG_MS)
            self.run(SHORT_MS)
        pin.press()
        self.releases[name] = self.now + (LONG_MS if long else SHORT_MS)

    def key(self, on):
        self.table.key.level = 0 if on else 1
        self.run(SETTLE_MS)

    def door(self, opened):
        self.table.open_door(opened)
        self.run(SETTLE_MS)

    def chip(self, seat, ante=False, on=True):
        pin = ante_spot(seat) if ante else jackpot_spot(seat)
        if on:
            self.table.mcp.cover(pin)
        else:
            self.table.mcp.uncover(pin)
        self._save_chips()
        self.run(SETTLE_MS)

    def _save_chips(self):
        if self.chips_path is None:
            return
        levels = self.table.mcp.levels()
        pins = [str(pin) for pin in range(16) if (levels >> pin) & 1 == 0]
        with open(self.chips_path, "w") as f:
            f.write(" ".join(pins) + "\n")

    def toggle_chip(self, seat, ante=False):
        covered = self.covered(seat, ante)
        self.chip(seat, ante, not covered)

    def covered(self, seat, ante=False):
        """True while a chip sits on seat's jackpot (or Ante) spot."""
        pin = ante_spot(seat) if ante else jackpot_spot(seat)
        return (self.table.mcp.levels() >> pin) & 1 == 0

    def shoe(self, text):
        """Send text and a LF from the shoe, on its UART (the firmware judges the line)."""
        self.pending_lines.append(text.encode("utf-8", "surrogateescape") + b"\n")
        self.run(10 * TICK_MS)  # the display sends one page a tick

    def type_line(self, text):
        """Send one line typed at the keyboard (its own line end dropped) from the shoe, the
        way dealt cards go, so the firmware accepts it or rejects it and shows why.  Returns
        the line sent; '' (nothing sent) for a blank line.  ValueError if text holds more than
        one line."""
        if text.endswith("\n"):
            text = text[:-1]
        if "\n" in text:
            raise ValueError("type one shoe line at a time, got %r" % text)
        if not text.strip():
            return ""
        self.shoe(text)
        return text

    def deal(self, seed=None):
        """Random cards, as a shoe deals them, for every seat with a chip (or an Ante marked
        on the panel) that the table does not know to have no wager (a jackpot chip without
        an Ante plays no hand), the dealer and board: only the places still empty, from the
        cards the table has not seen, so that cards typed first are kept and a second deal
        sends nothing (a card sent twice is refused and logged as a possibly fouled deck).
        Returns the lines sent."""
        rng = random.Random(seed)
        c = self.controller
        rec = c.rec
        seen = set(rec.hole) | set(rec.dealer) | set(rec.board)
        deck = [card for card in range(52) if card not in seen]
        rng.shuffle(deck)
        # (a jackpot chip is no wager at a game without the progressive; an Ante the dealer
        # marked on the panel is one)
        seats = [s for s in range(1, c.seats + 1)
                 if (self.covered(s) and c.game == tc.UTH or self.covered(s, True)
                     or c.ante_marked & (1 << (s - 1)))
                 and not c.no_wager(s - 1) and not rec.voided & (1 << (s - 1))]
        wanted = [("S%d" % s, c.seat_cards - len(c._hole(s - 1))) for s in seats]
        wanted.append(("D", c.dealer_cards - len(c._cards_of(rec.dealer))))
        wanted.append(("B", c.board_cards - len(c._cards_of(rec.board))))
        lines = []
        for dest, count in wanted:
            lines += ["%s %s" % (dest, cardlib.name(deck.pop())) for _ in range(count)]
        for line in lines:
            self.pending_lines.append(line.encode() + b"\n")
        self.run(TICK_MS * (len(lines) + 5))
        return lines

    def cards_taken(self):
        """How many cards the round holds (seats, dealer and board)."""
        rec = self.controller.rec
        return len([card for buf in (rec.hole, rec.dealer, rec.board) for card in buf
                    if card != NO_CARD])

    # ------------------------------------------------------------------ what a person sees

    def meter_text(self, line):
        return self.table.chain.text(line).strip()

    def display(self):
        return self.table.oled.lines()

    def light(self, seat):
        """The colour of seat's ring, decoded from the WS2812 bytes ('green', 'off', 'mixed')."""
        return self.table.strip.seat_colour(seat - 1)

    def pattern(self, seat):
        """The name of the pattern the spot-light driver shows on seat's ring ('ACCEPTED')."""
        return spot_lights.STATE_NAMES[self.app.lights.state(seat - 1)]

    def snapshot(self, colour=False):
        """The table as text: meter sign, seat rings and spots, dealer display, panel."""
        top, display, panel = self.snapshot_parts(colour)
        title = "  dealer display (inverted: lit background):" if self.table.oled.inverse \
            else "  dealer display:"
        return "\n".join(top + [title] + ["   |%-16s|" % t for t in display] + [panel])

    def snapshot_parts(self, colour=False):
        """The snapshot's parts: (lines above the dealer display, its eight lines, the panel's
        line: key, door, buzzer)."""
        c = self.controller
        out = []
        out.append("Table simulator  round %d  phase %s  memory: %s" % (
            c.rec.round_no, tc.PHASE_NAMES[c.phase], self.app.memory.status_text(c.stopped_text())))
        if self.link is not None:
            lk = self.link
            # at most 80 characters: the interactive screen fits an 80 x 24 terminal
            out.append("  linked table %d  link %s  JP wagers %s  unconfirmed %d  hits queued %d"
                       % (lk.table, lk.state_name(), "OPEN" if c.jackpot_open() else "closed",
                          len(lk.entries), len(lk.awaiting)))
        names = ("JACKPOT", "MAJOR") if len(c.view.meter_slots) == 1 else ("MINOR", "MAJOR")
        if c.game != tc.UTH:
            names = ("", "")        # no progressive: the sign shows only a fault (rAM Err)
        for line in range(len(c.view.meter_slots)):
            out.append("  meter sign %d %-7s [%8s]" % (line, names[line], self.table.chain.text(line)))
        seats = range(1, c.seats + 1)
        rows = [("seat", ["S%d" % s for s in seats])]
        if colour:
            rows.append(("ring", ["\x1b[%sm(@@@@@)\x1b[0m  " % ANSI_COLOURS.get(self.light(s), "37")
                                  for s in seats]))
        rows.append(("colour" if colour else "ring", [self.light(s) for s in seats]))
        rows.append(("pattern", [self.pattern(s) for s in seats]))
        rows.append(("JP", ["[chip]" if self.covered(s) else "[    ]" for s in seats]))
        rows.append(("Ante", ["[chip]" if self.covered(s, True) else "[    ]" for s in seats]))
        for label, cells in rows:
            out.append("  %-8s" % label + "".join([
                cell if cell.startswith("\x1b") else "%-9s" % cell for cell in cells]).rstrip())
        panel = "  key %s  door %s  buzzer %s" % (
            "ON" if self.table.key.level == 0 else "off", "OPEN" if self.table.door.level else "shut",
            "sounding" if self.table.pwm.sounding() else "quiet")
        return out, self.display(), panel

    # ------------------------------------------------------------------ scripts

    def command(self, line):
        """Carry out one script line; return text to print (or None).  ScriptError, naming
        what is wrong, for a malformed line (nothing is done) or a failed expectation."""
        step = self.parse(line)
        return None if step is None else self.perform(step)

    def parse(self, line):
        """The script line checked, as a step for perform(); None for a blank or comment line.
        ScriptError naming what is wrong if any word is missing, extra or out of range."""
        text = line.split("#", 1)[0].strip()
        if not text:
            return None
        parts = text.split(None, 1)
        verb = parts[0].lower()
        rest = parts[1].strip() if len(parts) > 1 else ""
        words = rest.split()
        if verb not in COMMANDS:
            raise ScriptError("unknown command %r (commands: %s)" % (parts[0], ", ".join(COMMANDS)))
        if verb in ("press", "hold"):
            _count(verb, words, 1)
            return (verb, _button(words[0]))
        if verb == "key":
            _count(verb, words, 1)
            return (verb, _one_of(words[0], ("on", "off"), "key") == "on")
        if verb == "door":
            _count(verb, words, 1)
            return (verb, _one_of(words[0], ("open", "shut"), "door") == "open")
        if verb in ("chip", "ante"):
            _count(verb, words, 1, 2)
            on = len(words) == 1 or _one_of(words[1], ("on", "off"), "the word after the seat") == "on"
            return (verb, self._seat(words[0]), on)
        if verb == "shoe":
            if not rest:
                raise ScriptError("shoe needs the line the shoe sends (usage: %s)" % USAGE[verb])
            return (verb, rest)
        if verb == "deal":
            _count(verb, words, 0, 1)
            return (verb, _whole(words[0], "deal SEED", 0, None) if words else None)
        if verb == "wait":
            _count(verb, words, 1)
            return (verb, _whole(words[0], "wait MS", 0, MAX_WAIT_MS))
        if verb == "show":
            _count(verb, words, 0)
            return (verb,)
        return self._parse_expect(words, rest)

    def _parse_expect(self, words, rest):
        if not words:
            raise ScriptError("expect needs what to check (usage: %s)" % USAGE["expect"])
        what = words[0].lower()
        if what == "meter":
            _count("expect meter", words[1:], 2, None)
            lines = len(self.controller.view.meter_slots)
            if not lines:
                raise ScriptError("this table's sign shows no amount (no progressive at a %s "
                                  "table)" % self.controller.game.upper())
            try:
                line = _whole(words[1], "meter line", 0, lines - 1)
            except ScriptError as error:
                raise ScriptError("%s (this table's sign has %d line%s, the top one is 0)" % (
                    error, lines, "" if lines == 1 else "s")) from None
            return ("expect", what, line, " ".join(words[2:]))
        if what == "display":
            _count("expect display", words[1:], 1, None)
            return ("expect", what, None, rest.split(None, 1)[1])
        if what in ("light", "pattern"):
            _count("expect " + what, words[1:], 2)
            if what == "light":
                want = _one_of(words[2], COLOUR_NAMES, "colour")
            else:
                want = _one_of(words[2], spot_lights.STATE_NAMES, "pattern")
            return ("expect", what, self._seat(words[1]), want)
        if what == "phase":
            _count("expect phase", words[1:], 1, 2)
            return ("expect", what, None, _one_of(" ".join(words[1:]), tc.PHASE_NAMES, "phase"))
        raise ScriptError("cannot expect %r (meter, display, light, pattern, phase)" % words[0])

    def _seat(self, text):
        return _whole(text, "seat", 1, self.controller.seats)

    def perform(self, step):
        """Carry out a step from parse(); return text to print (or None)."""
        verb = step[0]
        try:
            if verb == "press":
                self.press(step[1])
            elif verb == "hold":
                self.press(step[1], long=True)
            elif verb == "key":
                self.key(step[1])
            elif verb == "door":
                self.door(step[1])
            elif verb in ("chip", "ante"):
                self.chip(step[1], verb == "ante", step[2])
            elif verb == "shoe":
                self.shoe(step[1])
            elif verb == "deal":
                return "dealt: " + (", ".join(self.deal(step[1]))
                                    or "nothing, every hand has its cards")
            elif verb == "wait":
                self.run(step[1])
            elif verb == "show":
                return self.snapshot()
            else:
                self.expect(step[1], step[2], step[3])
        except ValueError as error:
            raise ScriptError(str(error)) from None
        return None

    def expect(self, what, which, want):
        """ScriptError unless what (meter line / light or pattern of seat ``which``, phase,
        display) shows want; the display need only contain want."""
        if what == "meter":
            got = " ".join(self.meter_text(which).split())
        elif what == "display":
            got = "\n".join(self.display())
            if want in got:
                return
        elif what == "light":
            got = self.light(which)
        elif what == "pattern":
            got = self.pattern(which)
        else:
            got = tc.PHASE_NAMES[self.controller.phase]
        if got != want:
            where = "" if which is None else " %d" % which
            raise ScriptError("expected %s%s %s, saw %r" % (what, where, want, got))


def _count(verb, words, least, most=-1):
    """ScriptError unless there are least..most words after verb (most None: no limit)."""
    most = least if most == -1 else most
    if len(words) < least or most is not None and len(words) > most:
        if most is None:
            wanted = "at least %d" % least
        elif least == most:
            wanted = "%d" % least
        else:
            wanted = "%d or %d" % (least, most)
        one = most == 1 or most is None and least == 1
        raise ScriptError("%s takes %s word%s after it, got %d (usage: %s)" % (
            verb, wanted, "" if one else "s", len(words), USAGE[verb]))


def _button(word):
    if word.upper() not in BUTTON_KEYS.values():
        raise ScriptError("button must be one of %s, got %r" % (", ".join(BUTTON_KEYS.values()), word))
    return word.upper()


def _one_of(word, choices, what):
    """word as it is spelt in choices (any case); else ScriptError."""
    for form in (word, word.lower(), word.upper()):
        if form in choices:
            return form
    wanted = " or ".join(choices) if len(choices) == 2 else "one of " + ", ".join(choices)
    raise ScriptError("%s must be %s, got %r" % (what, wanted, word))


def _whole(word, what, low, high):
    """The whole number word is, low..high (high None: no limit); else ScriptError."""
    # ASCII digits only: isdigit() also takes '\u00b2' and the like, which int() refuses
    if not word.isdigit() or not word.isascii() or int(word) < low or high is not None and int(word) > high:
        if high is None:
            wanted = "a whole number"
        elif low == high:
            wanted = "%d" % low
        else:
            wanted = "%d..%d" % (low, high)
        raise ScriptError("%s must be %s, got %r" % (what, wanted, word))
    return int(word)


def _read_chips(path):
    """The spot pins a chip was left on (CHIPS_FILE), or none: no file, or not one we wrote."""
    if path is None:
        return []
    try:
        with open(path) as f:
            words = f.read(200).split()
    except (OSError, UnicodeDecodeError):
        return []
    if not all(word.isdigit() and word.isascii() and int(word) < 16 for word in words):
        return []
    return [int(word) for word in words]


def _hold(state_dir):
    """Lock state_dir for this process, or OSError when another process holds it: two tables
    on one set of files (make sim and tools.audit --sim --state .sim at once) overwrite each
    other's commits without a word.  A new Simulation in the same process is a restart of
    the table and keeps the lock."""
    key = os.path.realpath(state_dir)
    if key in _HELD:
        return
    if not os.path.exists(state_dir):
        os.mkdir(state_dir)
    held = open(os.path.join(state_dir, LOCK_FILE), "a")
    try:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        held.close()
        raise OSError("another simulator is running on it (quit that one first, or give "
                      "another --state)") from None
    _HELD[key] = held


def _wipe(state_dir):
    """Blank the table kept in state_dir: remove the FRAM image, the chips file and the
    files in the flash folder, and nothing else (the folder may hold other things: --state .)."""
    flash = os.path.join(state_dir, simulated.FLASH_DIR)
    paths = [os.path.join(state_dir, simulated.FRAM_IMAGE), os.path.join(state_dir, CHIPS_FILE)]
    if os.path.isdir(flash):
        paths += [os.path.join(flash, name) for name in os.listdir(flash)]
    for path in paths:
        if os.path.isfile(path):
            os.remove(path)


def _where(source, number, line, error):
    return "%s line %d: %r: %s\n" % (source, number, line.strip(), error)


def run_script(sim, lines, out=None, source="script", err=None, heading=None):
    """Replay script lines (source names them in messages); return 0 when all ran.
    heading, if given, is written to out (with a blank line) once the lines are checked.

    Every line is checked before any runs: at the first malformed one, "SOURCE line N: 'LINE':
    what is wrong" goes to err and nothing runs (returns BAD_SCRIPT).  A failed expectation
    is reported the same way, followed by the table, and ends the replay (returns 1).  A
    replay that ends well says so in its last line: the commands run, the expectations met
    and the table's phase."""
    out = out or sys.stdout
    err = err or out
    steps = []
    for number, line in enumerate(lines, 1):
        try:
            steps.append(sim.parse(line))
        except ScriptError as error:
            err.write(_where(source, number, line, error))
            return BAD_SCRIPT
    if heading:
        out.write(heading + "\n\n")
    for number, (line, step) in enumerate(zip(lines, steps), 1):
        if step is None:
            continue
        try:
            text = sim.perform(step)
        except ScriptError as error:
            err.write(_where(source, number, line, error))
            err.write(sim.snapshot() + "\n")
            return 1
        if text:
            out.write(text + "\n")
    ran = [step for step in steps if step is not None]
    met = len([step for step in ran if step[0] == "expect"])
    out.write("%s: %d command%s replayed, %d expectation%s met; the table is in %s\n" % (
        source, len(ran), "" if len(ran) == 1 else "s", met, "" if met == 1 else "s",
        tc.PHASE_NAMES[sim.controller.phase]))
    return 0


def interactive(sim):
    """The table in the terminal: keys drive the panel, chips and shoe; redrawn as it changes."""
    import termios
    import tty

    fd = sys.stdin.fileno()
    saved = termios.tcgetattr(fd)

    def ask():
        # The terminal's own line editing and echo while the line is typed; the table waits.
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)
        try:
            sys.stdout.write("\n" + TYPE_PROMPT)
            sys.stdout.flush()
            return os.read(fd, 4096).decode("utf-8", "surrogateescape")
        finally:
            tty.setcbreak(fd)

    # Continued after Ctrl-Z (fg): the shell had the terminal in line mode with echo meanwhile
    resumed = []
    previous = signal.signal(signal.SIGCONT, lambda signum, frame: resumed.append(signum))
    notice = "Press a key (they are listed beside the dealer display)."
    try:
        tty.setcbreak(fd)
        last_draw, last_size, pending = "", None, ""
        while True:
            if resumed:
                del resumed[:]
                tty.setcbreak(fd)
                last_size = None    # and the screen drawn again whole
            ready, _, _ = select.select([fd], [], [], TICK_MS / 1000)
            keys = []
            if ready:
                # os.read, not sys.stdin.read: keys typed together all arrive, none wait in a buffer
                try:
                    data = os.read(fd, 64)
                except OSError:
                    data = b""
                if not data:
                    return          # the end of input: the terminal is gone (closed, hung up)
                keys, pending = split_keys(pending + data.decode("utf-8", "surrogateescape"))
            elif pending:           # a lone Escape, nothing after it
                keys, pending = [pending], ""
            for key in keys:
                if key == "q":
                    return
                notice = press_key(sim, key, ask)
                last_draw = ""
            sim.run(TICK_MS)
            size = _terminal_size(fd)
            if size != last_size:   # resized: drawn again whole, at the new size
                last_size, last_draw = size, ""
            screen = fit_screen(screen_text(sim, notice), *size)
            if screen != last_draw:
                # no newline after the last line: on a 24-line terminal it would scroll the top away
                sys.stdout.write("\x1b[H\x1b[2J" + screen)
                sys.stdout.flush()
                last_draw = screen
    except KeyboardInterrupt:
        return              # Ctrl-C quits as q does, without a traceback
    finally:
        signal.signal(signal.SIGCONT, previous)
        try:
            termios.tcsetattr(fd, termios.TCSADRAIN, saved)
            sys.stdout.write("\n")
            sys.stdout.flush()
        except OSError:
            pass            # a terminal that is gone has no settings to put back


def _terminal_size(fd):
    """(columns, lines) of the terminal on fd; 80 x 24 when it cannot say."""
    try:
        size = os.get_terminal_size(fd)
    except OSError:
        return (80, 24)
    return (size.columns or 80, size.lines or 24)


def fit_screen(screen, columns, lines):
    """screen as it is when the terminal has room for it; else, rather than a table whose top
    scrolls away, its first line (round and phase), the size the terminal needs and its
    last line (what the last key did), each cut to the terminal's width."""
    rows = screen.split("\n")
    width = max(len(_ANSI.sub("", row)) for row in rows)
    if columns >= width and lines >= len(rows):
        return screen
    say = ["this terminal is %d x %d: make it %d x %d (q quits)"
           % (columns, lines, max(width, 80), max(len(rows), 24))]
    if lines >= 3:
        say = [rows[0]] + say + [rows[-1]]
    return "\n".join(_clip(_ANSI.sub("", row), columns) for row in say[:max(1, lines)])


# An escape sequence, as the terminal sends an arrow, function, Home... key (CSI "ESC [",
# SS3 "ESC O"), or ESC and a character (an Alt key): its bytes are not keys of their own
_ESCAPE = re.compile(r"\x1b(\[[\x20-\x3f]*[\x40-\x7e]|O.|[^\x1b\[O])", re.S)
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def split_keys(text):
    """The keys in text read from the terminal: one character each, but an escape sequence
    (an arrow, a function key, an Alt key) is one key, never its bytes (the left arrow,
    ESC [ D, is not the door's D).  Returns (keys, rest): rest is an escape sequence cut off
    at the end of text, to be put before the next read."""
    keys = []
    at = 0
    while at < len(text):
        if text[at] != "\x1b":
            keys.append(text[at])
            at += 1
            continue
        match = _ESCAPE.match(text, at)
        if match is None:
            if re.fullmatch(r"\x1b(\[[\x20-\x3f]*|O)?", text[at:]):
                return keys, text[at:]          # cut off: the rest comes with the next read
            keys.append("\x1b")                  # Escape alone, another Escape after it
            at += 1
            continue
        keys.append(match.group())
        at = match.end()
    return keys, ""


def screen_text(sim, notice):
    """The interactive screen, at most 80 x 24: the table in colour, the dealer display with the
    keys beside it, the ring legend, the notice."""
    top, display, panel = sim.snapshot_parts(colour=True)
    top[0] = top[0].replace("Table simulator  ", "", 1)
    top = [_clip(line) for line in top]
    # the panel's key, door and buzzer beside the (first) meter sign line, if there is one
    for i in range(len(top)):
        if top[i].startswith("  meter sign"):
            top[i] = _clip(top[i] + "    " + panel.strip())
            break
    else:
        top.append(panel)
    # test mode's odd steps light every pixel around the text: the same text read back
    title = "  +INVERTED display+" if sim.table.oled.inverse else "  +dealer display--+"
    box = ([title] + ["  |%-16s|" % text for text in display]
           + ["  +----------------+"])
    keys = KEYS_HELP.splitlines()
    beside = []
    for i in range(max(len(box), len(keys))):
        left = box[i] if i < len(box) else ""
        right = keys[i] if i < len(keys) else ""
        beside.append(("%-20s %s" % (left, right)).rstrip())
    return "\n".join(top + beside + [legend_text(), _clip("  " + notice)])


def _clip(line, width=80):
    """line cut to width characters, marked with '...' where it was cut (colour codes take
    no room)."""
    return line if len(_ANSI.sub("", line)) <= width else line[:width - 3] + "..."


def _ask_stdin():
    sys.stdout.write(TYPE_PROMPT)
    sys.stdout.flush()
    return sys.stdin.readline()


def press_key(sim, ch, ask=_ask_stdin):
    """Carry out the interactive key ch (KEYS_HELP) on sim; return what was done, for the
    screen.  Buttons are pushed (pressed, then let go while the table runs), never left held.
    ``t`` calls ask() for the shoe line to type."""
    if ch.startswith("\x1b"):
        return "an arrow, function or Alt key does nothing (u UP, d DOWN; keys listed above)"
    if len(ch) != 1:
        return "one key at a time, got %r" % ch
    if "1" <= ch <= "7":
        seat = int(ch)
        sim.toggle_chip(seat)
        done = "seat %d jackpot spot: chip %s" % (seat, "on" if sim.covered(seat) else "off")
        if sim.controller.game != tc.UTH:       # a spot this game does not use: say where to bet
            done += " (no jackpot at %s: the Ante is '%s')" % (
                sim.controller.game.upper(), ANTE_KEYS[seat - 1])
        return done
    if ch in ANTE_KEYS:
        seat = ANTE_KEYS.index(ch) + 1
        sim.toggle_chip(seat, ante=True)
        return "seat %d Ante spot: chip %s" % (seat, "on" if sim.covered(seat, True) else "off")
    if ch == DOOR_KEY:           # before the buttons: D is the door, V the long DOWN
        opened = not sim.table.door.level
        sim.table.open_door(opened)
        return "logic door %s" % ("opened" if opened else "shut")
    if ch in LONG_KEYS:
        sim.push(LONG_KEYS[ch], long=True)
        return "%s held (a long press)" % LONG_KEYS[ch]
    if ch in BUTTON_KEYS:
        sim.push(BUTTON_KEYS[ch])
        return "%s pressed" % BUTTON_KEYS[ch]
    if ch == "k":
        sim.table.key.level = 0 if sim.table.key.level else 1
        return "supervisor key %s" % ("on" if sim.table.key.level == 0 else "off")
    if ch == "c":
        before = sim.cards_taken()
        lines = sim.deal()
        if not lines:
            return "nothing to deal: every hand has its cards"
        taken = sim.cards_taken() - before
        if taken == len(lines):
            return "dealt: " + ", ".join(lines)
        # the firmware's reason, as for t: the dealer display has room for its first words
        return "%s of the %d cards taken (%s): %s" % (
            taken or "none", len(lines), sim.controller.last_refusal, ", ".join(lines))
    if ch == "t":
        rejected = sum(sim.app.shoe.rejects)
        try:
            line = sim.type_line(ask())
        except ValueError as error:
            return str(error)
        if not line:
            return "nothing typed"
        # a byte that is not UTF-8 (a Latin-1 terminal) shown escaped: a UTF-8 terminal
        # cannot be sent it as it is
        line = line.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
        if sum(sim.app.shoe.rejects) > rejected:
            # the dealer display has room for "Shoe line bad" only; say the firmware's reason
            return "typed to the shoe: %s  -> %s" % (line, sim.app.shoe.reject_text())
        return "typed to the shoe: %s" % line
    return "key %r does nothing (the keys are listed above)" % ch


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="The table firmware on a simulated table.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="keys, in a terminal:\n  " + KEYS_HELP.replace("\n", "\n  ")
        + "\n\nscript lines (--script FILE, e.g. tools/sim_scripts/demo.txt;\none command a line, "
        "# starts a comment):\n  " + "\n  ".join(USAGE[v] for v in USAGE if v != "expect"))
    parser.add_argument("--script", help="replay this scenario file instead of reading keys")
    parser.add_argument("--state", default=DEFAULT_STATE,
                        help="directory for the table's FRAM and flash files (default .sim)")
    parser.add_argument("--memory", action="store_true", help="keep critical memory in memory only")
    parser.add_argument("--fresh", action="store_true", help="start with blank critical memory")
    parser.add_argument("--game", choices=("uth", "fcp", "brs"), default="uth",
                        help="the game dealt: UTH with its progressive (default), Four Card Poker, "
                        "Big Raise Stud")
    parser.add_argument("--service", action="store_true",
                        help="speak the service protocol on stdin/stdout (tools/audit.py --sim)")
    parser.add_argument("--link", metavar="HOST:PORT",
                        help="a linked table: the MQTT broker the link controller uses")
    parser.add_argument("--table-id", type=int, help="linked table number (1..9999)")
    parser.add_argument("--key-file", help="file with the table's link key in hex")
    args = parser.parse_args(argv)
    state = None if args.memory else args.state
    link = None
    if args.link or args.table_id is not None or args.key_file:
        try:
            link = link_setup(args.link, args.table_id, args.key_file)
        except ValueError as error:
            parser.error(str(error))
    if args.service:
        sim = _start(state, args.fresh, link, args.game)
        return BAD_SCRIPT if sim is None else serve(sim)
    if args.script is None and not sys.stdin.isatty():
        # the game's own demo: a UTH table's (demo.txt) would look for the progressive
        args.script = os.path.join(os.path.dirname(__file__), "sim_scripts",
                                   DEMO_SCRIPTS[args.game])
        state, args.fresh = None, True
        print("No terminal to read keys from: replaying %s\n" % args.script)
    if args.script:
        lines = read_script(args.script, sys.stderr)
        if lines is None:
            return BAD_SCRIPT
    sim = _start(state, args.fresh, link, args.game)
    if sim is None:
        return BAD_SCRIPT
    if args.script:
        return run_script(sim, lines, source=args.script, err=sys.stderr, heading=legend_text())
    interactive(sim)
    return 0


def read_script(path, err):
    """The lines of the script file at path, or None when it cannot be read: said on err in
    one line, naming the line and column of a byte that is not UTF-8.  A byte order mark (a
    Windows editor's) is not part of the first line."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as error:
        err.write("sim: cannot read the script %s: %s\n" % (path, error.strerror or error))
        return None
    try:
        return data.decode("utf-8-sig").splitlines()
    except UnicodeDecodeError as error:
        start = data.rfind(b"\n", 0, error.start) + 1
        err.write("%s line %d: byte 0x%02x at column %d is not UTF-8 text\n" % (
            path, data.count(b"\n", 0, start) + 1, data[error.start], error.start - start + 1))
        return None


def _start(state, fresh, link, game):
    """The Simulation main() runs, or None when its state folder cannot be used (a file of
    that name, no permission): said on stderr in one line."""
    try:
        return Simulation(state, fresh=fresh, link=link, game=game)
    except OSError as error:
        sys.stderr.write("sim: cannot keep the table's state in %s: %s\n"
                         % (state, getattr(error, "strerror", None) or error))
        return None


def link_setup(address, table_id, key_file, timings=None):
    """A LinkSetup from the command line's --link HOST:PORT, --table-id and --key-file."""
    from firmware.link import mqtt
    from firmware.link.setup import LinkSetup, read_link_key

    if not address or table_id is None or not key_file:
        raise ValueError("a linked table needs --link HOST:PORT, --table-id N and --key-file F")
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit() or not 1 <= int(port) <= 65535:
        raise ValueError("--link %r is not HOST:PORT" % address)
    if not 1 <= table_id <= 9999:
        raise ValueError("--table-id %d is not 1..9999" % table_id)
    try:
        key = read_link_key(key_file)
    except OSError as error:
        raise ValueError("--key-file %s: %s" % (key_file, error)) from None
    except ValueError as error:
        raise ValueError("--key-file %s: %s" % (key_file, error)) from None
    return LinkSetup(table_id, key, mqtt.tcp_opener(host, int(port)), timings)


# ---------------------------------------------------------------------- service mode (issue 7)

SERVICE_CHUNK = 64          # bytes put on the simulated service port per loop tick
SERVICE_FIFO = 4 * SERVICE_CHUNK
SERVICE_REPLY_TICKS = 100   # loop ticks to wait for the reply to a line


class _ServicePort:
    """The simulated table's service port: a receive FIFO and what the firmware wrote."""

    def __init__(self):
        from host_tests.fakes.pins import FakeUART
        self.rx = FakeUART(fifo=SERVICE_FIFO)
        self.tx = bytearray()

    def any(self):
        return self.rx.any()

    def readinto(self, buf):
        return self.rx.readinto(buf)

    def write(self, data):
        self.tx += data


def serve(sim, stdin=None, stdout=None):
    """Speak the service protocol (firmware/service.py) on stdin/stdout through the app's loop.

    Each line read goes to the table's service port a chunk per tick, a chunk only when the
    port's FIFO has room for it (as a USB console's flow control holds the sender back), and
    the loop runs until the firmware's reply to each line end in it (CR, LF or CR LF) comes
    back, which is written out; at the end of input a line left without its end gets the
    reply the table gives it after its timeout.  A line starting with "sim " is a simulator
    script command instead (e.g. "sim key on"), answered with one JSON line, so a host tool
    can turn the supervisor key or play a round.  Returns 0 at end of input."""
    import json

    from firmware.service import LINE_TIMEOUT_MS, Service
    stdin = stdin or sys.stdin.buffer
    stdout = stdout or sys.stdout.buffer
    port = _ServicePort()
    sim.app.service = Service(sim.controller, port, shoe=sim.app.shoe)
    due = 0             # line ends sent whose replies are still to come
    unended = False     # bytes sent after the last line end
    while True:
        line = stdin.readline()
        if not line:
            if unended:             # the table drops it after LINE_TIMEOUT_MS, and says so
                _replies(sim, port, 1, LINE_TIMEOUT_MS // TICK_MS + SERVICE_REPLY_TICKS, stdout)
            return 0
        if line.startswith(b"sim "):
            try:
                text = sim.command(line[4:].decode("ascii", "replace"))
                reply = {"ok": True, "cmd": "sim", "text": text or ""}
            except ScriptError as error:
                reply = {"ok": False, "cmd": "sim", "code": "bad-argument", "error": str(error)}
            due = _replies(sim, port, due, 0, stdout)      # those before it first
            stdout.write((json.dumps(reply) + "\n").encode())
            stdout.flush()
            continue
        due += line.count(b"\r") + line.count(b"\n") - line.count(b"\r\n")
        for start in range(0, len(line), SERVICE_CHUNK):
            for _ in range(SERVICE_REPLY_TICKS):   # (a table that reads nothing: dropped)
                if port.rx.any() <= SERVICE_FIFO - SERVICE_CHUNK:
                    break
                sim.run(TICK_MS)
            port.rx.inject(line[start:start + SERVICE_CHUNK])
            sim.run(TICK_MS)
        unended = line[-1:] not in (b"\r", b"\n")
        due = _replies(sim, port, due, SERVICE_REPLY_TICKS, stdout)


def _replies(sim, port, due, ticks, stdout):
    """Run the loop until `due` more reply lines have come (waiting at most `ticks` ticks
    with none coming), write out what the port holds; return the replies still due."""
    waited = 0
    while port.tx.count(b"\n") < due and waited < ticks:
        before = len(port.tx)
        sim.run(TICK_MS)
        waited = 0 if len(port.tx) != before else waited + 1
    due -= port.tx.count(b"\n")
    stdout.write(bytes(port.tx))
    stdout.flush()
    port.tx[:] = b""
    return due if due > 0 else 0


if __name__ == "__main__":
    sys.exit(main())
