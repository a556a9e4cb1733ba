"""The card-reading shoe: lines from a fake UART parsed into cards for seats, dealer and board;
every kind of bad input rejected with its reason, and the loop never interrupted."""

import pytest

from firmware.drivers import shoe
from firmware.drivers.events import EMPTY, event_detail, event_kind
from firmware.drivers.shoe import (
    BAD_CARD,
    BAD_CHECKSUM,
    BAD_DEST,
    BAD_FORMAT,
    BOARD,
    CARD,
    DEALER,
    GARBAGE,
    HEARTBEAT,
    OVERRUN,
    PARTIAL,
    REJECT,
    TOO_LONG,
    Shoe,
    card_dest,
    card_of,
)
from firmware.poker import cards
from host_tests import runtimes
from host_tests.fakes.pins import FakeUART


def feed(data, polls=3, start=0, step=20, reader=None):
    uart = FakeUART(fifo=8192) if reader is None else reader._uart
    reader = reader or Shoe(uart)
    uart.inject(data)
    now = start
    for _ in range(polls):
        reader.poll(now)
        now += step
    return reader, read_events(reader)


def read_events(reader):
    out = []
    while True:
        event = reader.events.pop()
        if event == EMPTY:
            return out
        kind = event_kind(event)
        if kind == CARD:
            out.append(("card", card_dest(event), cards.name(card_of(event))))
        elif kind == REJECT:
            out.append(("reject", event_detail(event)))
        elif kind == HEARTBEAT:
            out.append(("heartbeat",))
        else:
            out.append(("unknown event", kind))


def test_a_hand_dealt_to_seats_dealer_and_board():
    # Card ints checked against firmware.poker.cards.parse_card, the project's card reading.
    reader, events = feed(b"S1 As\nS3 Kd\nD 10h\nB 2c\nS7 Tc\n")
    assert events == [("card", 1, "As"), ("card", 3, "Kd"), ("card", DEALER, "Th"),
                      ("card", BOARD, "2c"), ("card", 7, "Tc")]
    assert reader.cards == 5


def test_case_crlf_and_extra_spaces_are_accepted():
    reader, events = feed(b"s2 qH\r\n  d   jS  \r\nb 10D\r\n")
    assert events == [("card", 2, "Qh"), ("card", DEALER, "Js"), ("card", BOARD, "Td")]


def test_checksummed_lines():
    # XOR of the bytes of "S3 As" is 0x72, of "D Kd" 0x4B (worked by hand in docs/shoe-protocol.md).
    reader, events = feed(b"S3 As*72\nD Kd*4b\nS3 As*73\nS3 As*7\nS3 As*ZZ\n")
    assert events == [("card", 3, "As"), ("card", DEALER, "Kd"), ("reject", BAD_CHECKSUM),
                      ("reject", BAD_FORMAT), ("reject", BAD_CHECKSUM)]


def test_spaces_after_the_checksum_are_spaces_at_the_end_of_the_line():
    # docs/shoe-protocol.md: spaces at the end of a line are ignored, checksum or not
    reader, events = feed(b"S3 As*72 \nD Kd*4B  \r\n")
    assert events == [("card", 3, "As"), ("card", DEALER, "Kd")]


def test_heartbeat_and_blank_lines():
    reader, events = feed(b"H\n\n\r\nh\n", start=100)
    assert events == [("heartbeat",), ("heartbeat",)]
    assert reader.last_heard == 100


def test_a_line_of_spaces_is_an_empty_line():
    # spaces at the start and end of a line are ignored, and empty lines are (the protocol)
    reader, events = feed(b"   \n \r\nS1 As\n")
    assert events == [("card", 1, "As")]
    assert reader.rejects == [0] * len(reader.rejects)


@pytest.mark.parametrize("line", [b"S3 A\rs\n", b"S\r3 As\n", b"\rS3 As\n", b"S3 As\r\r\n"])
def test_a_cr_anywhere_but_before_the_lf_is_garbage(line):
    # a damaged line must not become a card by losing a byte: only CR LF ends a line
    reader, events = feed(line)
    assert events == [("reject", GARBAGE)]


@pytest.mark.parametrize("line, reason", [
    (b"S8 As", BAD_DEST),
    (b"S0 As", BAD_DEST),
    (b"X As", BAD_DEST),
    (b"SS As", BAD_DEST),
    (b"S10 As", BAD_DEST),
    (b"S3 Ax", BAD_CARD),
    (b"S3 1s", BAD_CARD),
    (b"S3 11h", BAD_CARD),
    (b"S3 A", BAD_CARD),
    (b"S3 Asd", BAD_CARD),
    (b"S3", BAD_FORMAT),
    (b"S3 As Kd", BAD_FORMAT),
    (b"H As", BAD_FORMAT),
    (b"S3 A*s", BAD_FORMAT),
    (b"*00", BAD_FORMAT),                  # a checksum of nothing: no card, not an empty line
    (b"   *20", BAD_FORMAT),               # (0x20: the XOR of the three spaces)
    (b"S3 \x00s", GARBAGE),
    (b"\xff\xfe\xfd", GARBAGE),
    (b"S3 As\x1b", GARBAGE),
    (b"S3 As" + b" " * 20, TOO_LONG),
    (b"Z" * 5000, TOO_LONG),
])
def test_bad_lines_are_rejected_with_their_reason(line, reason):
    reader, events = feed(line + b"\nS5 9d\n", polls=100)
    assert events == [("reject", reason), ("card", 5, "9d")]
    assert reader.rejects[reason] == 1
    assert reader.last_reason == reason
    assert shoe.REASONS[reason] in reader.reject_text()


def test_reject_text_shows_the_line_safely():
    reader, events = feed(b"S9 \x01s\n")
    # the unprintable byte as \x01, one backslash: the line as a technician would type it
    assert reader.reject_text() == "shoe line rejected (garbage bytes): 'S9 \\x01s'"


def test_a_line_cut_short_is_dropped_after_the_partial_timeout():
    uart = FakeUART()
    reader = Shoe(uart, partial_ms=500)
    uart.inject(b"S4 K")                 # the cable is pulled mid-line
    for now in range(0, 480, 20):
        reader.poll(now)
    assert read_events(reader) == []
    reader.poll(520)
    assert read_events(reader) == [("reject", PARTIAL)]
    uart.inject(b"d\nS4 Kd\n")            # the rest arrives much later: "d" alone, then a good line
    reader.poll(600)
    assert read_events(reader) == [("reject", BAD_FORMAT), ("card", 4, "Kd")]


def test_a_shoe_ending_its_lines_with_cr_alone_shows_the_cr_in_the_rejected_line():
    # A shoe set up for CR line ends, dealing a card a second: each line ends in a pause, not
    # a LF.  The technician's text must show the CR that is the fault, not a card-shaped line
    # that reads as a pulled cable.
    uart = FakeUART()
    reader = Shoe(uart, partial_ms=500)
    uart.inject(b"S4 Kd\r")
    reader.poll(0)
    reader.poll(520)
    assert read_events(reader) == [("reject", PARTIAL)]
    assert reader.reject_text() == "shoe line rejected (partial line): 'S4 Kd\\x0d'"
    uart.inject(b"S4 Kd\n")                  # the line after it is read normally
    reader.poll(540)
    assert read_events(reader) == [("card", 4, "Kd")]


def test_a_line_split_across_polls_is_joined():
    uart = FakeUART()
    reader = Shoe(uart)
    for now, piece in enumerate([b"S", b"6 ", b"Q", b"c\r", b"\n"]):
        uart.inject(piece)
        reader.poll(now * 10)
    assert read_events(reader) == [("card", 6, "Qc")]


def test_a_burst_is_read_a_chunk_per_poll_without_losing_lines():
    uart = FakeUART(fifo=4096)
    reader = Shoe(uart)
    burst = b"".join([b"S%d %s\n" % (1 + n % 7, name.encode()) for n, name in
                      enumerate(["As", "Kd", "Qh", "Jc", "Ts", "9d", "8h", "7c", "6s", "5d"] * 10)])
    uart.inject(burst)
    reader.poll(0)
    assert uart.any() == len(burst) - shoe.READ_CHUNK      # one chunk per poll: the tick stays short
    events = read_events(reader)
    for now in range(1, 40):
        reader.poll(now)
        events += read_events(reader)
    assert len(events) == 100 and all(e[0] == "card" for e in events)


def test_a_flood_of_garbage_never_crashes_and_the_next_good_line_works():
    uart = FakeUART(fifo=8192)
    reader = Shoe(uart)
    noise = bytes([(n * 73 + 11) % 256 for n in range(6000)])
    uart.inject(noise)
    for now in range(0, 3000, 20):
        reader.poll(now)
    read_events(reader)
    uart.inject(b"\nB Ah\n")
    reader.poll(3100)
    assert read_events(reader)[-1] == ("card", BOARD, "Ah")


def test_a_line_of_exactly_max_line_bytes_is_read_normally():
    # 16 is the documented limit (docs/shoe-protocol.md), written out here, not taken from the code.
    line = b"S3 As" + b" " * 11
    assert len(line) == 16
    reader, events = feed(line + b"\n")
    assert events == [("card", 3, "As")]


def test_the_cr_of_a_cr_lf_end_is_not_counted_in_the_16_bytes():
    reader, events = feed(b"S3 As" + b" " * 11 + b"\r\n")
    assert events == [("card", 3, "As")]


def test_last_heard_is_the_last_good_line_not_a_rejected_one():
    # docs/shoe-protocol.md: a card or a heartbeat, not a line the driver threw away
    reader, events = feed(b"S3 As\n", start=100)
    feed(b"S9 As\n\x00\n", start=500, reader=reader)
    assert reader.last_heard == 100
    feed(b"H\n", start=900, reader=reader)
    assert reader.last_heard == 900


def test_a_stream_with_no_lf_is_rejected_once_as_soon_as_it_is_too_long():
    uart = FakeUART(fifo=8192)
    reader = Shoe(uart, partial_ms=500)
    uart.inject(b"ABCDEFGHIJKLMNOP")           # 16 bytes, no LF: could still be a line
    reader.poll(0)
    assert read_events(reader) == []
    uart.inject(b"Q")                          # the 17th byte: too long, reported at once
    reader.poll(20)
    assert read_events(reader) == [("reject", TOO_LONG)]
    assert reader.rejects[TOO_LONG] == 1
    assert bytes(reader.last_rejected[:reader.last_rejected_len]) == b"ABCDEFGHIJKLMNOP"
    assert reader.reject_text() == "shoe line rejected (line too long): 'ABCDEFGHIJKLMNOP'"
    # Seconds more of the same line, bytes every tick, still no LF: nothing more is reported,
    # not even a card-shaped piece in the middle of it.
    now = 40
    for n in range(250):
        uart.inject(b"RSTUV S1 As\r" if n % 50 == 0 else b"\x55\xaa\x00")
        reader.poll(now)
        now += 20
    assert read_events(reader) == []
    assert reader.rejects == [0, 0, 1, 0, 0, 0, 0, 0, 0]
    uart.inject(b"\nS2 Jh\n")                  # its LF ends it silently; the next line is a card
    reader.poll(now)
    assert read_events(reader) == [("card", 2, "Jh")]
    assert reader.rejects[TOO_LONG] == 1
    assert bytes(reader.last_rejected[:reader.last_rejected_len]) == b"ABCDEFGHIJKLMNOP"


def test_the_line_after_a_too_long_one_is_read_in_the_same_poll():
    reader, events = feed(b"x" * 40 + b"\nS4 Qs\n", polls=1)
    assert events == [("reject", TOO_LONG), ("card", 4, "Qs")]


def test_a_too_long_line_that_goes_quiet_is_not_reported_again_as_partial():
    uart = FakeUART()
    reader = Shoe(uart, partial_ms=500)
    uart.inject(b"Z" * 30)
    reader.poll(0)
    assert read_events(reader) == [("reject", TOO_LONG)]
    reader.poll(600)                          # the partial timeout ends the line, silently
    assert read_events(reader) == []
    uart.inject(b"S6 2d\n")                   # after the pause a new line starts
    reader.poll(620)
    assert read_events(reader) == [("card", 6, "2d")]
    assert reader.rejects[TOO_LONG] == 1 and reader.rejects[PARTIAL] == 0


# 100 KB without a LF, read a chunk per poll as the loop does, with the heap locked on
# MicroPython (on CPython the lock is the compat stand-in, so only the counts are checked there).
FLOOD_SCRIPT = r'''
from firmware.compat import micropython
from firmware.drivers import shoe
from firmware.drivers.events import EMPTY, event_detail, event_kind
from host_tests.fakes.pins import FakeUART

uart = FakeUART(fifo=1024)
reader = shoe.Shoe(uart)
piece = bytearray(b"\x55\xaaBABBLE  S1 As " * 16)    # 256 bytes, never a LF
tail = b"\nS1 As\n"
kinds = [0, 0, 0, 0]
reasons = [0] * len(shoe.REASONS)


def drain():
    while True:
        event = reader.events.pop()
        if event == EMPTY:
            return
        kinds[event_kind(event)] += 1
        if event_kind(event) == shoe.REJECT:
            reasons[event_detail(event)] += 1


def flood(pieces, now):
    for _ in range(pieces):
        uart.inject(piece)
        for _ in range(4):                  # 64 bytes a poll, a poll every 20 ms
            reader.poll(now)
            now += 20
            drain()
    return now


now = flood(1, 0)                           # warm up: every path has run once, on a line
uart.inject(b"\n")                          # that then ends, so the flood below is a new one
reader.poll(now)
drain()
for i in range(len(kinds)):
    kinds[i] = 0
for i in range(len(reasons)):
    reasons[i] = 0
before_lf = [0]
allocated = "not run"                       # bound now: a new global would allocate
micropython.heap_lock()
try:
    now = flood(400, now)                   # 400 * 256 = 102400 bytes
    before_lf[0] = kinds[shoe.REJECT]
    uart.inject(tail)
    reader.poll(now)
    drain()
    allocated = "no"
except MemoryError:
    allocated = "yes"
micropython.heap_unlock()
print("allocated", allocated)
print("bytes", uart.received, "overruns", uart.overruns)
print("rejects before the LF", before_lf[0])
print("cards", kinds[shoe.CARD], "rejects", kinds[shoe.REJECT], "heartbeats", kinds[shoe.HEARTBEAT])
print("too long", reasons[shoe.TOO_LONG], "counted with the warm-up", reader.rejects[shoe.TOO_LONG])
print("dropped", reader.events.dropped, "cards read", reader.cards)
'''


@pytest.mark.parametrize("run", [runtimes.run_cpython, runtimes.run_micropython],
                         ids=["cpython", "micropython"])
def test_a_100_kb_flood_without_lf_is_one_reject_and_allocates_nothing(tmp_path, run):
    script = tmp_path / "flood.py"
    script.write_text(FLOOD_SCRIPT)
    result = run(script, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines() == [
        "allocated no",
        "bytes %d overruns 0" % (256 + 1 + 400 * 256 + 7),
        "rejects before the LF 1",
        "cards 1 rejects 1 heartbeats 0",
        "too long 1 counted with the warm-up 2",
        "dropped 0 cards read 1",
    ]


def test_queue_overflow_drops_newest_and_counts():
    uart = FakeUART(fifo=4096)
    reader = Shoe(uart, queue=4)
    uart.inject(b"S1 2c\n" * 10)
    reader.poll(0)
    assert len(reader.events) == 4
    assert reader.events.dropped == 6


def poll_for(reader, start, ms):
    events = []
    for now in range(start, start + ms, 20):
        reader.poll(now)
        events += read_events(reader)
    return events


def test_bytes_lost_in_a_full_receive_buffer_never_join_into_a_wrong_card():
    # The loop stalls while a shoe without checksums keeps sending: the 512-byte receive buffer
    # fills and the UART drops what comes next, as a real one does, without telling anyone.
    uart = FakeUART(fifo=512)
    reader = Shoe(uart, rxbuf=512)
    uart.inject(b"H\n" * 254 + b"S1 A")          # 512 bytes: the buffer is full mid-line
    uart.inject(b"h\nS2 Kd\nS4 Q")               # lost: "S1 Ah", "S2 Kd" and most of "S4 Qd"
    assert uart.overruns == 12
    events = poll_for(reader, 0, 60)
    uart.inject(b"d\nS5 9c\n")                   # the loop runs again: the rest of "S4 Qd"...
    events += poll_for(reader, 60, 400)
    uart.inject(b"S6 Jc\n")
    events += poll_for(reader, 460, 60)
    assert ("card", 1, "Ad") not in events        # "S1 A" + "d": a card nobody dealt
    assert events.count(("heartbeat",)) == 254    # what came before the loss is read
    assert [e for e in events if e[0] != "heartbeat"] == [("reject", OVERRUN), ("card", 6, "Jc")]
    assert reader.rejects[OVERRUN] == 1
    assert reader.reject_text() == "shoe line rejected (bytes lost): 'S1 A'"


def test_a_full_buffer_at_a_line_end_still_reports_the_lines_lost():
    uart = FakeUART(fifo=512)
    reader = Shoe(uart, rxbuf=512)
    uart.inject(b"S1 Ah\n" * 85 + b"H\n")        # 512 bytes, ending with a whole line
    uart.inject(b"S2 Kd\nS3 Qd\n")              # two whole cards lost
    events = poll_for(reader, 0, 400)
    uart.inject(b"S4 2c\n")
    events += poll_for(reader, 400, 40)
    assert events.count(("card", 1, "Ah")) == 85
    assert events[-2:] == [("reject", OVERRUN), ("card", 4, "2c")]


def test_a_backlog_below_the_full_mark_is_read_whole():
    uart = FakeUART(fifo=512)
    reader = Shoe(uart, rxbuf=512)
    uart.inject(b"S1 Ah\n" * 60)                  # 360 bytes waiting: a long tick, nothing lost
    events = poll_for(reader, 0, 200)
    assert events == [("card", 1, "Ah")] * 60


def test_lines_arriving_while_a_full_buffer_drains_are_refused_up_to_a_line_end():
    # Bytes that arrive while the full buffer is read may follow the lost ones: they are
    # thrown away up to the first line end after them; the line after it is a card again.
    uart = FakeUART(fifo=512)
    reader = Shoe(uart, rxbuf=512)
    uart.inject(b"H\n" * 256)
    uart.inject(b"S1 As\n")                       # lost
    reader.poll(0)
    uart.inject(b"S2 K")                          # arrives while the loop reads the backlog
    events = read_events(reader) + poll_for(reader, 20, 200)
    uart.inject(b"d\nS3 Qh\n")
    events += poll_for(reader, 220, 60)
    assert [e for e in events if e[0] != "heartbeat"] == [("reject", OVERRUN), ("card", 3, "Qh")]


class IdfUART(FakeUART):
    """A receive side like ESP-IDF's driver: a 128-byte hardware FIFO moved into the buffer a
    load at a time (at 120 bytes, or when the line goes quiet); a load that does not fit is
    kept aside until a read makes room, and meanwhile the FIFO overflows and is reset.  So the
    buffer may be 'full' well short of its size, and the gap lies after the load kept aside."""

    def __init__(self, fifo=512):
        super().__init__(fifo)
        self.hw = bytearray()
        self.aside = None

    def inject(self, data):
        for byte in data:
            if len(self.hw) == 128:
                self.hw = bytearray()          # FIFO overflow: its bytes are lost
                self.overruns += 128
            self.hw.append(byte)
            if len(self.hw) >= 120:
                self._move()
        self._move()

    def _move(self):
        if self.aside is None and self.hw:
            if self.any() + len(self.hw) <= len(self._fifo):
                FakeUART.inject(self, bytes(self.hw))
            else:
                self.aside = bytes(self.hw)
            self.hw = bytearray()

    def readinto(self, buf, nbytes=None):
        got = super().readinto(buf, nbytes)
        if self.aside is not None and self.any() + len(self.aside) <= len(self._fifo):
            FakeUART.inject(self, self.aside)
            self.aside = None
            self._move()
        return got


@pytest.mark.parametrize("uart_type", [FakeUART, IdfUART], ids=["rp2", "idf"])
def test_stalls_while_a_shoe_sends_nonstop_never_make_a_card_it_did_not_send(uart_type):
    # A shoe without checksums sends random lines in bursts; the loop now and then stalls for
    # 0.4 to 1.6 s.  Every card taken must be one the shoe sent, in order.
    import random
    rnd = random.Random(7)
    uart = uart_type(512)
    reader = Shoe(uart, rxbuf=512)
    sent, taken, lost, pending, burst, now = [], [], 0, bytearray(), 0, 0
    for _ in range(1500):
        if rnd.random() < 0.05:
            burst = rnd.randint(5, 200)             # ticks of sending without a pause
        for _ in range(1 if rnd.random() > 0.03 else rnd.randint(20, 80)):
            if burst:
                burst -= 1
                while len(pending) < 40:
                    dest, card = rnd.randint(0, 8), rnd.randrange(52)
                    sent.append((dest, card))
                    name = "D" if dest == DEALER else "B" if dest == BOARD else "S%d" % dest
                    pending += b"%s %s\n" % (name.encode(), cards.name(card).encode())
            uart.inject(bytes(pending[:19]))          # 9600 baud: 19 bytes in 20 ms
            del pending[:19]
            now += 20
        reader.poll(now)
        for event in read_events(reader):
            if event[0] == "card":
                taken.append((event[1], cards.parse(event[2])[0]))
            else:
                assert event == ("reject", OVERRUN)
                lost += 1
    assert lost > 10 and len(taken) > len(sent) // 2
    position = 0
    for card in taken:                                # a subsequence of what was sent
        while sent[position] != card:
            position += 1
        position += 1


# Stalls that lose bytes, one after another, read as the loop does with the heap locked on
# MicroPython: the loss is found and reported, and nothing is allocated.
OVERRUN_SCRIPT = r'''
from firmware.compat import micropython
from firmware.drivers import shoe
from firmware.drivers.events import EMPTY, event_detail, event_kind
from host_tests.fakes.pins import FakeUART

uart = FakeUART(fifo=512)
reader = shoe.Shoe(uart, rxbuf=512)
full = b"H\n" * 254 + b"S1 A"
lost = b"h\nS2 Kd\nS4 Q"
counts = [0, 0, 0, 0]          # cards, wrong cards, overruns, other rejects


def drain():
    while True:
        event = reader.events.pop()
        if event == EMPTY:
            return
        kind = event_kind(event)
        if kind == shoe.CARD:
            counts[0] += 1
            if shoe.card_dest(event) == 1:
                counts[1] += 1
        elif kind == shoe.REJECT:
            counts[2 if event_detail(event) == shoe.OVERRUN else 3] += 1


def stall(now):
    uart.inject(full)
    uart.inject(lost)
    for _ in range(3):
        reader.poll(now)
        now += 20
        drain()
    uart.inject(b"d\n")
    for _ in range(20):
        reader.poll(now)
        now += 20
        drain()
    uart.inject(b"S6 Jc\n")
    reader.poll(now)
    drain()
    return now + 20


now = stall(0)
for i in range(len(counts)):
    counts[i] = 0
allocated = "not run"
micropython.heap_lock()
try:
    for _ in range(50):
        now = stall(now)
    allocated = "no"
except MemoryError:
    allocated = "yes"
micropython.heap_unlock()
print("allocated", allocated)
print("cards", counts[0], "wrong", counts[1], "overruns", counts[2], "other rejects", counts[3])
'''


@pytest.mark.parametrize("run", [runtimes.run_cpython, runtimes.run_micropython],
                         ids=["cpython", "micropython"])
def test_bytes_lost_are_found_without_allocating(tmp_path, run):
    script = tmp_path / "overrun.py"
    script.write_text(OVERRUN_SCRIPT)
    result = run(script, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines() == [
        "allocated no",
        "cards 50 wrong 0 overruns 50 other rejects 0",
    ]


def test_bad_constructor_arguments():
    with pytest.raises(ValueError, match="partial_ms"):
        Shoe(FakeUART(), partial_ms=0)
    with pytest.raises(ValueError, match="rxbuf"):
        Shoe(FakeUART(), rxbuf=100)


def test_reason_table_of_the_protocol_document_names_every_reason():
    # docs/shoe-protocol.md's table of reasons is what the display, the log and the service say
    text = (runtimes.ROOT / "docs" / "shoe-protocol.md").read_text().split("| Reason ", 1)[1]
    rows = [line for line in text.splitlines()[2:] if line.startswith("|")]
    documented = [row.strip("|").split("|")[0].strip() for row in rows]
    assert documented == list(shoe.REASONS[1:])
