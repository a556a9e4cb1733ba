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
    hold OK                               a long press (1.2 s)
    key on|off        door open|shut      supervisor key switch, logic door
    chip N [off]      ante N [off]        a chip put on (taken off) seat N's jackpot / Ante spot
    shoe TEXT         a line from the card-reading shoe, e.g. "shoe S3 As"
    deal SEED         random cards for every seat with a chip, the dealer and the board
    wait MS           let the table run
    show              print the table
    expect meter N TEXT | expect display TEXT | expect light N COLOUR | expect phase NAME
"""

import argparse
import os
import random
import select
import sys
import time

from boards import simulated
from firmware.app import TICK_MS, App
from firmware.drivers.spot_sensors import ante_spot, jackpot_spot
from firmware.poker import cards as cardlib
from firmware.store.slots import PathFS
from firmware.table import controller as tc
from host_tests.fakes.flash import MemFS

SHORT_MS = 100
LONG_MS = 1200
SETTLE_MS = 400          # long enough for debounce, the OLED pages and the beeps
DEFAULT_STATE = ".sim"
KEYS_HELP = (
    "1-7 chip on/off jackpot spot   shift+1-7 (!@#$%^&) chip on/off Ante spot\n"
    "l LOCK  s SETTLE  u UP  d DOWN  o OK  b BACK  (capital letter = hold for a long press;\n"
    "  V is the long DOWN, as D is the door)\n"
    "k supervisor key on/off   D door open/shut   c deal cards from the shoe\n"
    "t type a shoe line (S3 Ah, D Kc, B 7d)   q quit"
)
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


class ScriptError(Exception):
    """A script line that could not be carried out, or an expectation that failed."""


class Simulation:
    """The app on a simulated table, with a clock that the caller advances.

    link: a firmware.app.LinkSetup for a linked table; its clock then follows real time (the
    broker and the link controller live in real time), and ``companions`` (other linked
    Simulations) are stepped along whenever this one runs, so several tables keep their links
    alive in one thread."""

    def __init__(self, state_dir=None, fresh=False, link=None, game="uth"):
        if state_dir and fresh:
            _wipe(state_dir)
        self.table = simulated.make(state_dir)
        fs = PathFS(self.table.flash_dir) if state_dir else MemFS()
        self.now = 0
        self.wall = int(time.time())
        self.realtime = link is not None
        self.started = time.monotonic()
        self.companions = []
        self.app = App(self.table.board, fs, now=self.now, link=link, game=game)
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
        self.run(SETTLE_MS)

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
        """Random cards, as a shoe deals them, for every seat with a chip, the dealer and board."""
        rng = random.Random(seed)
        deck = list(range(52))
        rng.shuffle(deck)
        seats = [s for s in range(1, 8) if self.covered(s) or self.covered(s, True)]
        c = self.controller
        lines = []
        for seat in seats:
            lines += ["S%d %s" % (seat, cardlib.name(deck.pop())) for _ in range(c.seat_cards)]
        lines += ["D %s" % cardlib.name(deck.pop()) for _ in range(c.dealer_cards)]
        lines += ["B %s" % cardlib.name(deck.pop()) for _ in range(c.board_cards)]
        for line in lines:
            self.pending_lines.append(line.encode() + b"\n")
        self.run(TICK_MS * (len(lines) + 5))
        return lines

    # ------------------------------------------------------------------ what a person sees

    def meter_text(self, line):
        return self.table.chain.text(line).strip()

    def display(self):
        return self.table.oled.lines()

    def light(self, seat):
        return self.table.strip.seat_colour(seat - 1)

    def snapshot(self, colour=False):
        """The table as text: meter sign, seat rings and spots, dealer display, panel."""
        c = self.controller
        out = []
        out.append("Table simulator  round %d  phase %s  memory: %s" % (
            c.rec.round_no, tc.PHASE_NAMES[c.phase], self.app.memory.status_text()))
        if self.link is not None:
            lk = self.link
            out.append("  linked table %d  link %s  jackpot wagers %s  unconfirmed %d  hits queued %d"
                       % (lk.table, lk.state_name(), "OPEN" if c.jackpot_open() else "closed",
                          len(lk.entries), len(lk.awaiting)))
        names = ("JACKPOT", "MAJOR") if len(c.view.meter_slots) == 1 else ("MINOR", "MAJOR")
        for line in range(len(c.view.meter_slots)):
            out.append("  meter sign %-7s [%8s]" % (names[line], self.table.chain.text(line)))
        row_light = "  ring   "
        row_names = "         "
        row_jp = "  JP     "
        row_ante = "  Ante   "
        for seat in range(1, 8):
            name = self.light(seat)
            cell = "%-8s" % name
            if colour:
                cell = "\x1b[%sm%s\x1b[0m" % (ANSI_COLOURS.get(name, "37"), "(@@@@@) ")
                row_names += "%-8s" % name
            row_light += cell
            row_jp += "%-8s" % ("[chip]" if self.covered(seat) else "[    ]")
            row_ante += "%-8s" % ("[chip]" if self.covered(seat, True) else "[    ]")
        out.append("  seat   " + "".join(["%-8s" % ("S%d" % s) for s in range(1, 8)]))
        out.append(row_light)
        if colour:
            out.append(row_names)
        out.append(row_jp)
        out.append(row_ante)
        out.append("  dealer display:")
        for text in self.display():
            out.append("   |%-16s|" % text)
        out.append("  key %s  door %s  buzzer %s" % (
            "ON" if self.table.key.level == 0 else "off", "OPEN" if self.table.door.level else "shut",
            "sounding" if self.table.pwm.sounding() else "quiet"))
        return "\n".join(out)

    # ------------------------------------------------------------------ scripts

    def command(self, line):
        """Carry out one script line; return text to print (or None)."""
        words = line.split("#", 1)[0].split()
        if not words:
            return None
        verb, args = words[0].lower(), words[1:]
        try:
            if verb == "press":
                self.press(_button(args))
            elif verb == "hold":
                self.press(_button(args), long=True)
            elif verb == "key":
                self.key(_one_of(args, ("on", "off")) == "on")
            elif verb == "door":
                self.door(_one_of(args, ("open", "shut")) == "open")
            elif verb in ("chip", "ante"):
                if not args:
                    raise ScriptError("%s needs a seat number 1..7" % verb)
                self.chip(_seat(args[0]), verb == "ante", not (len(args) > 1 and args[1] == "off"))
            elif verb == "shoe":
                self.shoe(" ".join(args))
            elif verb == "deal":
                return "dealt: " + ", ".join(self.deal(int(args[0]) if args else None))
            elif verb == "wait":
                self.run(_number(args))
            elif verb == "show":
                return self.snapshot()
            elif verb == "expect":
                self.expect(args)
            else:
                raise ScriptError("unknown command %r" % verb)
        except ValueError as error:
            raise ScriptError(str(error)) from None
        return None

    def expect(self, args):
        if len(args) < 2:
            raise ScriptError("expect needs what and a value")
        what = args[0]
        if what == "meter":
            got, want = self.meter_text(int(args[1])), " ".join(args[2:])
        elif what == "display":
            want = " ".join(args[1:])
            got = "\n".join(self.display())
            if want in got:
                return
        elif what == "light":
            got, want = self.light(_seat(args[1])), " ".join(args[2:])
        elif what == "phase":
            got, want = tc.PHASE_NAMES[self.controller.phase], " ".join(args[1:])
        else:
            raise ScriptError("cannot expect %r (meter, display, light, phase)" % what)
        if got != want:
            raise ScriptError("expected %s %s, saw %r" % (what, want, got))


def _button(args):
    if len(args) != 1 or args[0].upper() not in BUTTON_KEYS.values():
        raise ScriptError("button must be one of %s, got %r" % (", ".join(BUTTON_KEYS.values()), args))
    return args[0].upper()


def _one_of(args, choices):
    if len(args) != 1 or args[0] not in choices:
        raise ScriptError("expected %s, got %r" % (" or ".join(choices), " ".join(args)))
    return args[0]


def _seat(text):
    if not text.isdigit() or not 1 <= int(text) <= 7:
        raise ScriptError("seat must be 1..7, got %r" % text)
    return int(text)


def _number(args):
    if len(args) != 1 or not args[0].isdigit():
        raise ScriptError("expected a number of milliseconds, got %r" % " ".join(args))
    return int(args[0])


def _wipe(state_dir):
    for root, _dirs, files in os.walk(state_dir, topdown=False):
        for name in files:
            os.remove(os.path.join(root, name))


def run_script(sim, lines, out=sys.stdout):
    """Replay script lines; return 0, or 1 at the first failing line (reported with its number)."""
    for number, line in enumerate(lines, 1):
        try:
            text = sim.command(line)
        except ScriptError as error:
            out.write("line %d: %s: %s\n" % (number, line.strip(), error))
            out.write(sim.snapshot() + "\n")
            return 1
        if text:
            out.write(text + "\n")
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

    notice = "Press a key (list below)."
    try:
        tty.setcbreak(fd)
        last_draw = ""
        while True:
            ready, _, _ = select.select([fd], [], [], TICK_MS / 1000)
            if ready:
                # os.read, not sys.stdin.read: keys typed together all arrive, none wait in a buffer
                for ch in os.read(fd, 64).decode("utf-8", "surrogateescape"):
                    if ch == "q":
                        return
                    notice = press_key(sim, ch, ask)
                    last_draw = ""
            sim.run(TICK_MS)
            screen = sim.snapshot(colour=True) + "\n\n" + KEYS_HELP + "\n\n  " + notice
            if screen != last_draw:
                sys.stdout.write("\x1b[H\x1b[2J" + screen + "\n")
                sys.stdout.flush()
                last_draw = screen
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


def _ask_stdin():
    sys.stdout.write(TYPE_PROMPT)
    sys.stdout.flush()
    return sys.stdin.readline()


def press_key(sim, ch, ask=_ask_stdin):
    """Carry out the interactive key ch (KEYS_HELP) on sim; return what was done, for the
    screen.  Buttons are pushed (pressed, then let go while the table runs), never left held.
    ``t`` calls ask() for the shoe line to type."""
    if len(ch) != 1:
        return "one key at a time, got %r" % ch
    if "1" <= ch <= "7":
        seat = int(ch)
        sim.toggle_chip(seat)
        return "seat %d jackpot spot: chip %s" % (seat, "on" if sim.covered(seat) else "off")
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
        return "dealt: " + ", ".join(sim.deal())
    if ch == "t":
        rejected = sum(sim.app.shoe.rejects)
        try:
            line = sim.type_line(ask())
        except ValueError as error:
            return str(error)
        if not line:
            return "nothing typed"
        if sum(sim.app.shoe.rejects) > rejected:
            # the dealer display has room for "Shoe line bad" only; say the firmware's reason
            return "typed to the shoe: %s  -> %s" % (line, sim.app.shoe.reject_text())
        return "typed to the shoe: %s" % line
    return "key %r does nothing (the keys are listed above)" % ch


def main(argv=None):
    parser = argparse.ArgumentParser(description="The table firmware on a simulated table.")
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
    if args.link or args.table_id or args.key_file:
        try:
            link = link_setup(args.link, args.table_id, args.key_file)
        except ValueError as error:
            parser.error(str(error))
    if args.service:
        return serve(Simulation(state, fresh=args.fresh, link=link))
    if args.script is None and not sys.stdin.isatty():
        args.script = os.path.join(os.path.dirname(__file__), "sim_scripts", "demo.txt")
        state, args.fresh = None, True
        print("No terminal to read keys from: replaying %s\n" % args.script)
    sim = Simulation(state, fresh=args.fresh, link=link, game=args.game)
    if args.script:
        with open(args.script) as f:
            return run_script(sim, f.readlines())
    interactive(sim)
    return 0


def link_setup(address, table_id, key_file, timings=None):
    """A LinkSetup from the command line's --link HOST:PORT, --table-id and --key-file."""
    from firmware.app import LinkSetup, read_link_key
    from firmware.link import mqtt

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
SERVICE_REPLY_TICKS = 100   # loop ticks to wait for the reply to a line


class _ServicePort:
    """The simulated table's service port: a receive FIFO and what the firmware wrote."""

    def __init__(self):
        from host_tests.fakes.pins import FakeUART
        self.rx = FakeUART(fifo=4 * SERVICE_CHUNK)
        self.tx = bytearray()

    def any(self):
        return self.rx.any()

    def readinto(self, buf):
        return self.rx.readinto(buf)

    def write(self, data):
        self.tx += data


def serve(sim, stdin=None, stdout=None):
    """Speak the service protocol (firmware/service.py) on stdin/stdout through the app's loop.

    Each line read goes to the table's service port a chunk per tick and the loop runs until
    the firmware's reply line comes back, which is written out.  A line starting with "sim "
    is a simulator script command instead (e.g. "sim key on"), answered with one JSON line,
    so a host tool can turn the supervisor key or play a round.  Returns 0 at end of input."""
    import json

    from firmware.service import Service
    stdin = stdin or sys.stdin.buffer
    stdout = stdout or sys.stdout.buffer
    port = _ServicePort()
    sim.app.service = Service(sim.controller, port)
    while True:
        line = stdin.readline()
        if not line:
            return 0
        if line.startswith(b"sim "):
            try:
                text = sim.command(line[4:].decode("ascii", "replace"))
                reply = {"ok": True, "cmd": "sim", "text": text or ""}
            except ScriptError as error:
                reply = {"ok": False, "cmd": "sim", "code": "bad-argument", "error": str(error)}
            port.tx += (json.dumps(reply) + "\n").encode()
        else:
            for start in range(0, len(line), SERVICE_CHUNK):
                port.rx.inject(line[start:start + SERVICE_CHUNK])
                sim.run(TICK_MS)
            for _ in range(SERVICE_REPLY_TICKS):
                if b"\n" in port.tx or not line.endswith(b"\n"):
                    break
                sim.run(TICK_MS)
        stdout.write(bytes(port.tx))
        stdout.flush()
        port.tx[:] = b""


if __name__ == "__main__":
    sys.exit(main())
