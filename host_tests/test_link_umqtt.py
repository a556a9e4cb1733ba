"""The umqtt.simple adapter (firmware/link/umqtt_client.py) against a stand-in for umqtt's
MQTTClient and stand-in sockets: the probe comes before every connect (never a blocking
connect while the broker's port does not answer), back-off, reconnect after any umqtt failure,
keep-alive pings, subscriptions renewed, bounded reads, and service() never raises.  The real
umqtt.simple under the MicroPython VM is tested in test_link_umqtt_micropython.py."""

import errno
import random
import socket
import sys
import types

import pytest

from firmware.link import mqtt, umqtt_client
from firmware.link.station import Station

ADDRESS = ("192.0.2.1", 1883)  # TEST-NET-1 (RFC 5737): never contacted, the sockets are fakes
PUBLISH_MARK = b"\x30"
PINGRESP_MARK = b"\xd0"


class FakeMQTTException(Exception):
    pass


class Broker:
    """The broker as the fakes see it: does its port answer, and what it received."""

    def __init__(self):
        self.port = "silent"      # "silent" (SYN unanswered), "refused", "open"
        self.connack = 0          # CONNACK return code; non-zero: umqtt raises MQTTException
        self.connect_calls = []   # port state at each MQTTClient.connect() call
        self.conns = []
        self.probes = []
        self.clients = []
        self.timeouts = []        # the timeout each connect() got (umqtt.simple that takes one)

    @property
    def conn(self):
        return self.conns[-1]


class Probe:
    """The non-blocking socket from the opener; connect() again answers like Linux does."""

    def __init__(self, broker, now):
        self.broker = broker
        self.opened = now
        self.checks = 0
        self.closed = False

    def connect(self, address):
        assert address == ADDRESS
        self.checks += 1
        if self.broker.port == "refused":
            raise OSError(errno.ECONNREFUSED, "refused")
        if self.broker.port == "silent":
            raise OSError(errno.EALREADY, "under way")
        if self.checks > 1:
            raise OSError(errno.EISCONN, "connected")  # Linux returns None only the first time

    def close(self):
        self.closed = True


class Conn:
    """The socket umqtt's connect() made: queued broker events, what the client wrote."""

    def __init__(self):
        self.events = []          # ("msg", topic bytes, payload) / ("pingresp",) / ("eof",)
        self.written = []
        self.fail = None          # an exception every read and write raises
        self.fail_write = None    # an exception every write raises
        self.timeout = "blocking"
        self.blocking_log = []
        self.closed = False

    def settimeout(self, value):
        self.timeout = value
        self.blocking_log.append(value)

    def setblocking(self, flag):
        self.timeout = "blocking" if flag else 0
        self.blocking_log.append(self.timeout)

    def read(self, n):
        if self.fail:
            raise self.fail
        if not self.events:
            return None if self.timeout == 0 else b""
        kind = self.events[0][0]
        if kind == "eof":
            return b""
        return PINGRESP_MARK if kind == "pingresp" else PUBLISH_MARK

    def write(self, data, n=None):
        if self.fail or self.fail_write:
            raise self.fail or self.fail_write
        self.written.append(bytes(data if n is None else data[:n]))
        return len(data) if n is None else n

    def close(self):
        self.closed = True


class FakeMQTTClient:
    """umqtt.simple.MQTTClient's interface, keeping its habits: connect() blocks (here: it
    records whether the port answered), subscribe() needs the callback, check_msg() makes the
    socket non-blocking for the first byte and blocking again after it, an end of stream on
    that first byte raises OSError(-1)."""

    broker = None

    def __init__(self, client_id, server, port=0, user=None, password=None, keepalive=0, ssl=False):
        self.client_id = client_id
        self.keepalive = keepalive
        self.sock = None
        self.cb = None
        self.subscribed = []
        self.published = []
        self.pings = 0
        self.broker.clients.append(self)

    def set_callback(self, f):
        self.cb = f

    def connect(self, clean_session=True):
        b = self.broker
        b.connect_calls.append(b.port)
        if b.port != "open":
            raise OSError(errno.ETIMEDOUT, "the real connect() would have blocked here")
        self.conn = self.sock = Conn()
        b.conns.append(self.conn)
        self.subscribed = []
        if b.connack:
            raise FakeMQTTException(b.connack)
        return 0

    def subscribe(self, topic, qos=0):
        assert self.cb is not None, "Subscribe callback is not set"
        self.sock.write(b"SUBSCRIBE " + topic.encode())
        self.subscribed.append(topic)

    def publish(self, topic, msg, retain=False, qos=0):
        self.sock.write(b"PUBLISH " + topic.encode())
        self.sock.write(msg)
        self.published.append((topic, msg))

    def ping(self):
        self.sock.write(b"\xc0\x00")
        self.pings += 1

    def disconnect(self):
        self.sock.write(b"\xe0\x00")
        self.sock.close()

    def check_msg(self):
        self.sock.setblocking(False)
        first = self.sock.read(1)
        self.sock.setblocking(True)
        if first is None:
            return None
        if first == b"":
            raise OSError(-1)
        event = self.conn.events.pop(0)
        if event[0] == "msg":
            self.cb(event[1], event[2])
            return None
        if event[0] == "op":
            return event[1]
        return None


class FakeNewMQTTClient(FakeMQTTClient):
    """umqtt.simple as mip installs it for MicroPython 1.29: connect(clean_session, timeout)."""

    def connect(self, clean_session=True, timeout=None):
        self.broker.timeouts.append(timeout)
        return FakeMQTTClient.connect(self, clean_session)


class Rig:
    def __init__(self, keepalive=5, log=None, base=FakeMQTTClient):
        self.broker = Broker()
        self.got = []
        cls = type("BoundFake", (base,), {"broker": self.broker})
        self.client = umqtt_client.UmqttClient("table-7", self.open, lambda t, p: self.got.append((t, p)),
                                               keepalive, "192.0.2.1", 1883, ADDRESS, cls, log)
        self.client.subscribe("jackpot/link/7/down")

    def open(self, now):
        p = Probe(self.broker, now)
        self.broker.probes.append(p)
        return p

    @property
    def mq(self):
        return self.broker.clients[-1]

    def up(self, now=0):
        self.broker.port = "open"
        assert self.client.service(now)
        return now


def test_no_connect_while_the_port_does_not_answer_and_the_back_off_grows():
    rig = Rig()
    now = 0
    while now <= 45000:
        assert rig.client.service(now) is False
        now += 20
    assert rig.broker.connect_calls == []  # umqtt's blocking connect() was never called
    opened = [p.opened for p in rig.broker.probes]
    # each probe given up after 3 s (mqtt.CONNACK_TIMEOUT), then 0.5, 1, 2, 4 s... of back-off
    gaps = [b - a for a, b in zip(opened, opened[1:], strict=False)]
    assert gaps == [3020 + 500, 3020 + 1000, 3020 + 2000, 3020 + 4000, 3020 + 8000, 3020 + 8000]
    assert all(p.closed for p in rig.broker.probes[:-1])
    assert "TCP connect took over 3000 ms" in rig.client.error
    rig.broker.port = "refused"
    for _ in range(2000):
        now += 20
        rig.client.service(now)
    assert rig.broker.connect_calls == []
    assert rig.client.error.startswith("mqtt down: broker unreachable (")
    assert "[Errno %d] refused" % errno.ECONNREFUSED in rig.client.error
    refused = [p.opened for p in rig.broker.probes if p.checks and p.opened > opened[-1]]
    gaps = [b - a for a, b in zip(refused, refused[1:], strict=False)]
    assert gaps and set(gaps) == {8000}  # the back-off stays at its 8 s ceiling (mqtt.BACKOFF_MAX)


def test_connect_follows_the_probe_subscribes_and_sets_the_keepalive():
    lines = []
    rig = Rig(log=lines.append)
    rig.client.service(0)
    assert rig.broker.connect_calls == [] and rig.client.state == umqtt_client.PROBING
    rig.broker.port = "open"
    assert rig.client.service(20) is True
    probe = rig.broker.probes[0]
    assert probe.closed and rig.broker.connect_calls == ["open"] and len(rig.broker.probes) == 1
    assert rig.mq.keepalive == 5 and rig.mq.client_id == "table-7"
    assert rig.mq.subscribed == ["jackpot/link/7/down"]
    assert rig.broker.conn.timeout == umqtt_client.IO_TIMEOUT_S  # umqtt's socket bounded
    assert rig.client.connects == 1 and lines == ["mqtt up"]
    rig.client.subscribe("extra/topic")
    assert rig.mq.subscribed == ["jackpot/link/7/down", "extra/topic"]
    assert rig.client.publish("jackpot/link/7/up", b"hello")
    assert rig.mq.published == [("jackpot/link/7/up", b"hello")]


def test_connect_is_bounded_when_umqtt_takes_a_timeout_and_works_without_one():
    rig = Rig(base=FakeNewMQTTClient)
    rig.up(0)
    rig.broker.conn.fail = OSError(errno.ECONNRESET, "reset")
    rig.client.service(10)
    assert rig.client.service(510)
    assert rig.broker.timeouts == [umqtt_client.IO_TIMEOUT_S] * 2 and rig.client.connects == 2
    old = Rig()  # umqtt.simple 1.3.4: connect(clean_session) only
    old.up(0)
    old.broker.conn.fail = OSError(errno.ECONNRESET, "reset")
    old.client.service(10)
    assert old.client.service(510)
    assert old.broker.connect_calls == ["open", "open"] and not old.client.connect_timeout


def test_messages_are_delivered_as_text_topic_and_bytes_with_bounded_work_per_call():
    rig = Rig()
    rig.up()
    for i in range(20):
        rig.broker.conn.events.append(("msg", b"jackpot/link/7/down", bytearray(b"m%d" % i)))
    rig.client.service(10)
    first = len(rig.got)
    assert 0 < first <= umqtt_client.MAX_MESSAGES
    for now in (20, 30, 40):
        rig.client.service(now)
    assert rig.got == [("jackpot/link/7/down", b"m%d" % i) for i in range(20)]
    assert all(type(t) is str and type(p) is bytes for t, p in rig.got)
    # check_msg's first read is non-blocking; after it umqtt's socket is bounded again
    assert rig.broker.conn.blocking_log[-2:] == [0, umqtt_client.IO_TIMEOUT_S]


def test_pings_every_half_keepalive_and_a_silent_broker_is_dropped():
    rig = Rig(keepalive=2)
    rig.up(0)
    rig.client.service(999)
    assert rig.mq.pings == 0
    rig.client.service(1000)  # half the keep-alive without sending: PINGREQ
    assert rig.mq.pings == 1
    rig.broker.conn.events.append(("pingresp",))
    rig.client.service(1500)
    rig.client.service(2000)
    assert rig.mq.pings == 2 and rig.client.connected()
    rig.client.service(4000)  # 2.5 s after the PINGRESP, 4 s after the connect: still alive
    assert rig.client.connected()
    rig.client.service(4501)  # nothing heard since 1500 for 1.5 keep-alives: gone
    assert not rig.client.connected() and "silent" in rig.client.error
    assert rig.broker.conn.closed


def test_a_publish_counts_as_traffic_for_the_keepalive():
    rig = Rig(keepalive=2)
    rig.up(0)
    rig.client.service(900)
    assert rig.client.publish("t", b"x")
    rig.client.service(1000)
    assert rig.mq.pings == 0
    rig.client.service(1900)
    assert rig.mq.pings == 1


@pytest.mark.parametrize("fault, words", [
    (OSError(errno.ECONNRESET, "reset"),
     "receive failed (ConnectionResetError: [Errno %d] reset)" % errno.ECONNRESET),
    (IndexError("index out of range"), "receive failed (IndexError"),  # umqtt on a cut stream
    ("eof", "receive failed (OSError"),
    ("op", "unexpected packet 0x90"),
])
def test_a_receive_failure_drops_then_reconnects_and_subscribes_again(fault, words):
    rig = Rig()
    rig.up(0)
    conn = rig.broker.conn
    if fault == "eof":
        conn.events.append(("eof",))
    elif fault == "op":
        conn.events.append(("op", 0x90))
    else:
        conn.fail = fault
    assert rig.client.service(10) is False
    assert words in rig.client.error and conn.closed
    assert not rig.client.publish("t", b"x")  # nothing sent while down
    rig.client.service(509)  # back-off 500 ms
    assert len(rig.broker.conns) == 1
    assert rig.client.service(510) is True
    assert len(rig.broker.probes) == 2 and rig.broker.probes[1].closed
    assert rig.mq.subscribed == ["jackpot/link/7/down"] and rig.client.connects == 2


def test_a_publish_or_ping_failure_drops_and_returns_false():
    rig = Rig()
    rig.up(0)
    rig.broker.conn.fail_write = OSError(errno.EPIPE, "broken pipe")
    assert rig.client.publish("t", b"x") is False
    assert "publish failed" in rig.client.error and not rig.client.connected()
    rig.client.service(500)
    assert rig.client.connected()
    rig.broker.conn.fail_write = OSError(errno.ETIMEDOUT, "timed out")
    rig.client.service(3000)  # keep-alive ping due
    assert "ping failed" in rig.client.error and not rig.client.connected()


def test_refused_connack_and_subscribe_failure_back_off():
    rig = Rig()
    rig.broker.port = "open"
    rig.broker.connack = 5  # not authorised
    assert rig.client.service(0) is False
    assert "connect failed (FakeMQTTException: 5)" in rig.client.error
    assert rig.broker.conn.closed
    rig.client.service(499)
    assert len(rig.broker.connect_calls) == 1
    rig.client.service(500)
    assert len(rig.broker.connect_calls) == 2
    rig.broker.connack = 0
    rig.client.service(1499)
    assert len(rig.broker.connect_calls) == 2  # 1 s back-off after the second failure
    assert rig.client.service(1500)


def test_close_says_goodbye_and_never_raises():
    rig = Rig()
    rig.up(0)
    conn = rig.broker.conn
    rig.client.close()
    assert conn.written[-1] == b"\xe0\x00" and conn.closed and not rig.client.connected()
    rig.client.service(10)
    conn = rig.broker.conn
    conn.fail = OSError(errno.EPIPE, "gone")
    rig.client.close()  # the goodbye fails: closed all the same
    assert conn.closed and not rig.client.connected()
    rig.broker.port = "silent"
    rig.client.service(20)
    assert rig.client.state == umqtt_client.PROBING
    rig.client.close()  # while probing: the probe is closed
    assert rig.broker.probes[-1].closed and rig.client.state == umqtt_client.CLOSED


def test_wire_bounds_umqtt_reads_and_writes():
    conn = Conn()
    wire = umqtt_client._Wire(conn)
    assert conn.timeout == umqtt_client.IO_TIMEOUT_S
    with pytest.raises(OSError, match="read 0 of 1 bytes"):
        wire.read(1)  # nothing within the timeout while "blocking"
    wire.setblocking(False)
    assert wire.read(1) is None and not wire.heard  # non-blocking: nothing yet is fine
    conn.events.append(("pingresp",))
    assert wire.read(1) == PINGRESP_MARK and wire.heard

    class Short(Conn):
        def write(self, data, n=None):
            return 1

    with pytest.raises(OSError, match="write of 4 bytes stalled"):
        umqtt_client._Wire(Short()).write(b"abcd")


def test_keepalive_out_of_range_is_refused():
    with pytest.raises(ValueError, match="keepalive"):
        umqtt_client.UmqttClient("x", None, None, 0, "h", 1, ADDRESS, FakeMQTTClient)


def test_service_never_raises_whatever_the_broker_does():
    rig = Rig(keepalive=2)
    rng = random.Random(20261130)
    faults = [OSError(errno.ECONNRESET, "reset"), IndexError("cut"), AssertionError(),
              TypeError("'NoneType' object is not subscriptable"), FakeMQTTException(5)]
    up_calls = 0
    now = 0
    for _ in range(6000):
        now += rng.choice((1, 20, 20, 50, 400))
        r = rng.random()
        if r < 0.01:
            rig.broker.port = rng.choice(("silent", "refused", "open", "open"))
        elif r < 0.03 and rig.broker.conns:
            rig.broker.conn.fail = rng.choice(faults)
        elif r < 0.10 and rig.broker.conns:
            rig.broker.conn.events.append(rng.choice((("msg", b"a", b"p"), ("pingresp",), ("eof",),
                                                      ("op", 0x40))))
        elif r < 0.12:
            rig.broker.connack = rng.choice((0, 0, 0, 3))
        rig.client.service(now)
        if rng.random() < 0.2:
            rig.client.publish("t", b"x")
        up_calls += rig.client.connected()
    assert set(rig.broker.connect_calls) == {"open"}  # connect() only ever after the probe got through
    assert rig.client.connects > 5 and up_calls > 100


def test_with_real_sockets_the_probe_waits_for_a_listening_port():
    """CPython's own sockets: nothing listening -> refused, no connect(); listening -> connect()."""
    broker = Broker()
    broker.port = "open"
    cls = type("BoundFake", (FakeMQTTClient,), {"broker": broker})
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    client = umqtt_client.factory("127.0.0.1", port, cls)("table-1", mqtt.tcp_opener("127.0.0.1", port),
                                                          None, 5)
    client.service(0)  # the port is bound but not listening: refused
    assert broker.connect_calls == [] and "broker unreachable" in client.error
    listener.listen(1)
    now = 500
    for _ in range(100):
        if client.service(now):
            break
        now += 20
    assert client.connected() and broker.connect_calls == ["open"]
    client.close()
    listener.close()


# -- Station and board_link ------------------------------------------------------------------

def test_station_uses_the_given_client_factory_and_defaults_to_the_own_client():
    made = []

    def factory(client_id, opener, on_message, keepalive):
        rig = Rig(keepalive)
        made.append((client_id, opener, keepalive))
        return rig.client

    station = Station(3, b"k" * 32, "opener", client_factory=factory, keepalive=4)
    assert made == [("table-3", "opener", 4)]
    assert isinstance(station.client, umqtt_client.UmqttClient)
    assert station.client.topics == ["jackpot/link/7/down", "jackpot/link/3/down"]
    assert isinstance(Station(3, b"k" * 32, lambda now: None).client, mqtt.Client)


def _fake_umqtt_modules(monkeypatch, broker):
    package = types.ModuleType("umqtt")
    simple = types.ModuleType("umqtt.simple")
    simple.MQTTClient = type("BoundFake", (FakeMQTTClient,), {"broker": broker})
    simple.MQTTException = FakeMQTTException
    package.simple = simple
    monkeypatch.setitem(sys.modules, "umqtt", package)
    monkeypatch.setitem(sys.modules, "umqtt.simple", simple)


class Settings:
    """The configuration file's LinkConfig, as board_link reads it."""

    def __init__(self, key_file):
        self.table = 9
        self.broker = "127.0.0.1"
        self.port = 1884
        self.key_file = key_file
        self.wifi_ssid = ""
        self.wifi_password = ""
        self.ntp_server = None


class Board:
    name = "pico_w"

    def make_wlan(self):
        return types.SimpleNamespace(active=lambda on: None, isconnected=lambda: True)


def test_board_link_picks_umqtt_when_it_is_installed_else_the_own_client(tmp_path, monkeypatch):
    from firmware.link import setup as linksetup

    path = tmp_path / "link.key"
    path.write_text("00112233445566778899aabbccddeeff")
    settings = Settings(str(path))
    assert not umqtt_client.available()  # CPython: no umqtt.simple
    setup, problem = linksetup.board_link(Board(), settings, lambda: 0, lambda ms: None)
    assert problem == "" and setup.client_factory is None
    assert setup.client_name == "mqtt.Client (umqtt.simple not installed)"
    assert isinstance(setup.station(None, None).client, mqtt.Client)
    broker = Broker()
    _fake_umqtt_modules(monkeypatch, broker)
    assert umqtt_client.available()
    setup, problem = linksetup.board_link(Board(), settings, lambda: 0, lambda ms: None)
    assert problem == "" and setup.client_name == "umqtt.simple"
    station = setup.station(None, None)
    client = station.client
    assert isinstance(client, umqtt_client.UmqttClient)
    assert client.address == ("127.0.0.1", 1884) and client.keepalive == 5  # Station's KEEPALIVE
    assert broker.clients[-1].client_id == "table-9"


@pytest.mark.parametrize("broken", ["folder", "mpy"])
def test_a_broken_umqtt_simple_is_as_none_not_a_stopped_table(tmp_path, monkeypatch, broken):
    """/lib/umqtt/simple/ left empty (MicroPython imports it as a package with no client in
    it), or a simple.mpy the VM refuses (another .mpy version, a copy cut short: ValueError):
    board_link stopped the boot, or the Station's client did at boot once the watchdog ran
    (a reset loop).  umqtt.simple is not covered by the program check; a broken one is as
    none, and the table's own MQTT client runs the link."""
    from firmware.link import setup as linksetup

    lib = tmp_path / "lib"
    if broken == "folder":
        (lib / "umqtt" / "simple").mkdir(parents=True)
    else:
        (lib / "umqtt").mkdir(parents=True)
        (lib / "umqtt" / "simple.py").write_text("raise ValueError('incompatible .mpy file')\n")
    monkeypatch.syspath_prepend(str(lib))
    for name in ("umqtt", "umqtt.simple"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    path = tmp_path / "link.key"
    path.write_text("00112233445566778899aabbccddeeff")
    assert not umqtt_client.available()
    setup, problem = linksetup.board_link(Board(), Settings(str(path)), lambda: 0, lambda ms: None)
    assert problem == "" and setup.client_factory is None
    assert isinstance(setup.station(None, None).client, mqtt.Client)


class Stream(Conn):
    """A socket that hands out the bytes of `data` as they are asked for."""

    def __init__(self, data):
        Conn.__init__(self)
        self.data = bytearray(data)
        self.asked = []

    def read(self, n):
        self.asked.append(n)
        if not self.data:
            return None if self.timeout == 0 else b""
        out = bytes(self.data[:n])
        del self.data[:n]
        return out


def test_an_oversized_topic_or_payload_is_skipped_not_allocated_and_the_stream_stays_aligned():
    # umqtt reads a payload with one read(size): a retained 20 KB message on the table's topic
    # was a 20 KB allocation (MemoryError on the board) at every reconnect, the link never up.
    # The wire reads it in small pieces and hands umqtt b"" (rejected by the link as malformed);
    # the packet after it is read as usual
    big = bytes(range(256)) * 80            # 20,480 bytes
    conn = Stream(big + b"\x30rest")
    wire = umqtt_client._Wire(conn)
    assert wire.read(len(big)) == b"" and wire.heard
    assert max(conn.asked) <= 256
    wire.setblocking(False)
    assert wire.read(1) == b"\x30"
    wire.setblocking(True)
    assert wire.read(4) == b"rest"
    limit = umqtt_client.MAX_READ             # up to the limit: read as usual
    assert umqtt_client._Wire(Stream(b"x" * limit)).read(limit) == b"x" * limit
    # larger than the skip bound: dropped (the loop is not held while it arrives), named
    with pytest.raises(OSError, match="packet part of 100000 bytes"):
        umqtt_client._Wire(Stream(b"")).read(100000)
    with pytest.raises(OSError, match="read 0 of 5000 bytes"):
        umqtt_client._Wire(Stream(b"")).read(5000)   # cut short inside the skip
