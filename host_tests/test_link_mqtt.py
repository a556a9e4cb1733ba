"""The MQTT client at the wire: a fake socket decodes every byte it sends (MQTT 3.1.1,
OASIS standard, sections 3.1-3.14) and feeds it broker bytes, whole or split anywhere."""

import errno

import pytest

from firmware.link import mqtt


class FakeSocket:
    """Records what the client sends; returns queued bytes, then EAGAIN (non-blocking)."""

    def __init__(self, chunk=None):
        self.sent = bytearray()
        self.incoming = bytearray()
        self.chunk = chunk
        self.closed = False
        self.blocking = True
        self.eof = False

    def setblocking(self, flag):
        self.blocking = flag

    def send(self, data):
        self.sent.extend(bytes(data))
        return len(data)

    def recv_into(self, view):
        if self.eof:
            return 0
        if not self.incoming:
            raise OSError(errno.EAGAIN, "would block")
        n = min(len(view), len(self.incoming), self.chunk or len(self.incoming))
        view[:n] = self.incoming[:n]
        del self.incoming[:n]
        return n

    def close(self):
        self.closed = True


def packets(data):
    """Split bytes into (first byte, body) MQTT packets (decoding the remaining length)."""
    out = []
    pos = 0
    while pos < len(data):
        head = data[pos]
        length, shift, pos = 0, 0, pos + 1
        while True:
            b = data[pos]
            pos += 1
            length |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                break
        out.append((head, bytes(data[pos:pos + length])))
        pos += length
    return out


def text(body, at):
    n = (body[at] << 8) | body[at + 1]
    return body[at + 2:at + 2 + n].decode(), at + 2 + n


class Rig:
    def __init__(self, chunk=None, keepalive=10):
        self.sockets = []
        self.got = []
        self.chunk = chunk
        self.client = mqtt.Client("table-7", self.open, lambda t, p: self.got.append((t, p)),
                                  keepalive=keepalive, will=("jackpot/link/7/state", b"gone", False))

    def open(self, now):
        s = FakeSocket(self.chunk)
        self.sockets.append(s)
        return s

    @property
    def sock(self):
        return self.sockets[-1]

    def connack(self, code=0):
        self.sock.incoming.extend(b"\x20\x02\x00" + bytes((code,)))


def test_connect_packet_fields():
    rig = Rig()
    rig.client.service(0)
    (head, body), = packets(rig.sock.sent)
    assert head == 0x10 and not rig.sock.blocking
    name, at = text(body, 0)
    assert name == "MQTT" and body[at] == 4  # protocol level 4 = 3.1.1
    assert body[at + 1] == 0x02 | 0x04  # clean session, will flag, will QoS 0, no retain
    assert (body[at + 2] << 8 | body[at + 3]) == 10  # keep-alive seconds
    client_id, at = text(body, at + 4)
    topic, at = text(body, at)
    will, at = text(body, at)
    assert (client_id, topic, will, at) == ("table-7", "jackpot/link/7/state", "gone", len(body))


def test_subscribes_after_connack_and_publishes_qos0():
    rig = Rig()
    rig.client.subscribe("jackpot/link/7/down")
    rig.client.service(0)
    assert not rig.client.publish("a", b"x")  # not connected yet: nothing sent
    rig.sock.sent.clear()
    rig.connack()
    assert rig.client.service(10)
    (head, body), = packets(rig.sock.sent)
    assert head == 0x82 and body[:2] == b"\x00\x01"
    topic, at = text(body, 2)
    assert topic == "jackpot/link/7/down" and body[at:] == b"\x00"
    rig.sock.sent.clear()
    assert rig.client.publish("jackpot/link/7/up", b"payload")
    (head, body), = packets(rig.sock.sent)
    topic, at = text(body, 0)
    assert head == 0x30 and topic == "jackpot/link/7/up" and body[at:] == b"payload"


@pytest.mark.parametrize("chunk", [None, 1, 3])
def test_incoming_publishes_reassembled_from_any_split(chunk):
    rig = Rig(chunk)
    rig.client.service(0)
    rig.connack()
    big = b"y" * 300  # a two-byte remaining length
    for payload in (b"one", big):
        body = b"\x00\x03a/b" + payload
        rig.sock.incoming.extend(mqtt.packet(0x30, body))
    for i in range(700):
        rig.client.service(i)
        if len(rig.got) == 2:
            break
    assert rig.got == [("a/b", b"one"), ("a/b", big)]


def test_qos1_publish_from_the_broker_is_acknowledged():
    rig = Rig()
    rig.client.service(0)
    rig.connack()
    rig.client.service(1)
    rig.sock.sent.clear()
    rig.sock.incoming.extend(mqtt.packet(0x32, b"\x00\x01t\x12\x34hello"))
    rig.client.service(2)
    assert rig.got == [("t", b"hello")]
    assert packets(rig.sock.sent) == [(0x40, b"\x12\x34")]


def test_keepalive_ping_and_silent_broker_dropped_then_reconnected():
    rig = Rig(keepalive=2)
    rig.client.subscribe("s")
    rig.client.service(0)
    rig.connack()
    rig.client.service(0)
    rig.sock.sent.clear()
    rig.client.service(999)
    assert rig.sock.sent == b""
    rig.client.service(1000)  # half the keep-alive without sending: PINGREQ
    assert packets(rig.sock.sent) == [(0xC0, b"")]
    rig.client.service(3001)  # nothing heard for 1.5 keep-alives: the broker is gone
    assert not rig.client.connected() and rig.sockets[0].closed
    assert "silent" in rig.client.error
    rig.client.service(3400)  # back-off 500 ms
    assert len(rig.sockets) == 1
    rig.client.service(3501)
    assert len(rig.sockets) == 2
    rig.connack()
    rig.client.service(3502)
    assert rig.client.connected() and rig.client.connects == 2
    assert [p[0] for p in packets(rig.sock.sent)] == [0x10, 0x82]  # connect, subscribe again


def test_refused_connection_and_closed_socket_are_dropped():
    rig = Rig()
    rig.client.service(0)
    rig.connack(5)  # not authorised
    rig.client.service(1)
    assert not rig.client.connected() and "refused" in rig.client.error
    rig.client.service(600)
    rig.connack()
    rig.client.service(601)
    assert rig.client.connected()
    rig.sock.eof = True
    rig.client.service(602)
    assert not rig.client.connected() and "closed" in rig.client.error
    rig.client.service(2000)
    rig.connack()
    rig.client.service(2001)
    assert rig.client.connected()


@pytest.mark.parametrize("chunk", [None, 1000, 7])
def test_a_packet_larger_than_the_buffer_is_skipped_and_the_connection_kept(chunk):
    # a retained one would come back at every reconnect: dropping the connection for it kept
    # the link down for good
    rig = Rig(chunk)
    rig.client.service(0)
    rig.connack()
    huge = mqtt.packet(0x30, b"\x00\x03a/b" + b"x" * 5000)
    rig.sock.incoming.extend(mqtt.packet(0x30, b"\x00\x03a/b" + b"before") + huge
                             + mqtt.packet(0x30, b"\x00\x03a/b" + b"after"))
    for i in range(1, 2000):
        rig.client.service(i)
        if len(rig.got) == 2:
            break
    assert rig.client.connected() and rig.client.connects == 1
    assert rig.got == [("a/b", b"before"), ("a/b", b"after")]
    assert "5008 bytes exceeds 4096: skipped" in rig.client.error


def test_keepalive_out_of_range_is_refused():
    with pytest.raises(ValueError, match="keepalive"):
        mqtt.Client("x", None, None, keepalive=0)


class ConnectingSocket(FakeSocket):
    """A TCP connect still under way for `pending` sends (ENOTCONN), or refused outright."""

    def __init__(self, pending, refuse=False):
        super().__init__()
        self.pending = pending
        self.refuse = refuse

    def send(self, data):
        if self.refuse:
            raise OSError(errno.ECONNREFUSED, "refused")
        if self.pending:
            self.pending -= 1
            raise OSError(errno.ENOTCONN, "not connected yet")
        return super().send(data)


def test_a_slow_tcp_connect_never_blocks_and_connect_follows_when_it_is_up():
    sockets = []

    def opener(now):
        sockets.append(ConnectingSocket(pending=3))
        return sockets[-1]

    client = mqtt.Client("table-7", opener, lambda t, p: None)
    for now in (0, 20, 40):
        assert client.service(now) is False
        assert client.state == mqtt.CONNECTING and not sockets[-1].sent
    client.service(60)
    assert client.state == mqtt.WAITING
    assert [head for head, _ in packets(sockets[-1].sent)] == [0x10]


def test_a_tcp_connect_that_never_completes_or_is_refused_is_dropped_and_retried():
    made = []

    def opener(now):
        made.append(ConnectingSocket(pending=10**6, refuse=len(made) == 1))
        return made[-1]

    client = mqtt.Client("table-7", opener, lambda t, p: None)
    now = 0
    client.service(now)
    assert client.state == mqtt.CONNECTING
    while client.state != mqtt.CLOSED and now < 10000:
        now += 20
        client.service(now)
    assert "TCP connect took over" in client.error and made[0].closed
    while len(made) < 2 and now < 20000:
        now += 20
        client.service(now)
    assert "connect failed" in client.error and made[1].closed


def test_a_connection_lost_while_skipping_a_large_packet_leaves_the_next_one_whole():
    rig = Rig()
    rig.client.service(0)
    rig.connack()
    huge = mqtt.packet(0x30, b"\x00\x03a/b" + b"x" * 20000)
    rig.sock.incoming.extend(huge[:6000])      # part of it, then the broker goes away
    rig.client.service(1)
    rig.sock.eof = True
    rig.client.service(2)
    assert not rig.client.connected()
    for now in range(600, 5000, 100):          # the next connection: its CONNACK is read
        rig.client.service(now)
        if rig.client.connects == 1 and len(rig.sockets) == 2:
            rig.connack()
            rig.client.service(now + 1)
            break
    assert rig.client.connected() and rig.client.connects == 2


def test_a_flood_of_messages_is_handed_on_a_few_per_call_none_lost():
    # every message costs the link a MAC check: 4 KB of small PUBLISHes handled in one pass
    # (up to 16 reads of it) held the main loop past the watchdog; the umqtt adapter's bound
    rig = Rig()
    rig.client.service(0)
    rig.connack()
    rig.client.service(1)
    sent = [b"m%d" % i for i in range(300)]
    for payload in sent:
        rig.sock.incoming.extend(mqtt.packet(0x30, b"\x00\x03a/b" + payload))
    calls = 0
    while len(rig.got) < len(sent) and calls < 100:
        before = len(rig.got)
        assert rig.client.service(2 + calls)
        assert len(rig.got) - before <= mqtt.MAX_MESSAGES
        calls += 1
    assert [p for _, p in rig.got] == sent and rig.client.connected()


@pytest.mark.parametrize("body", [
    b"\x00\x02\xff\xfepayload",            # a topic that is not UTF-8
    b"\x00\x40a/b",                        # a topic longer than the packet
    b"\x00",                               # no room for the topic's length
])
def test_a_malformed_publish_drops_the_connection_and_never_raises(body):
    # the topic's decode raised out of service(): the table's main loop (and the link
    # controller, which runs the same client) stopped on one bad packet from the wire
    rig = Rig()
    rig.client.service(0)
    rig.connack()
    rig.client.service(1)
    rig.sock.incoming.extend(mqtt.packet(0x30, body))
    assert not rig.client.service(2)
    assert rig.sock.closed and "bad PUBLISH" in rig.client.error and rig.got == []
    rig.client.service(600)                  # back-off over: a new connection
    rig.connack()
    rig.sock.incoming.extend(mqtt.packet(0x30, b"\x00\x03a/bok"))
    assert rig.client.service(601) and rig.got == [("a/b", b"ok")]


def test_a_hosts_client_hands_on_what_arrived_together_in_one_call():
    # the link controller batches what arrived together into one transaction (group commit):
    # the table's per-call bound would cut its batches to 8 messages, an fsync each
    got = []
    sock = FakeSocket()
    client = mqtt.Client("link-controller", lambda now: sock, lambda t, p: got.append(p),
                         max_messages=mqtt.HOST_BATCH)
    client.service(0)
    sock.incoming.extend(b"\x20\x02\x00\x00")
    client.service(1)
    for i in range(100):
        sock.incoming.extend(mqtt.packet(0x30, b"\x00\x03a/b" + b"%d" % i))
    client.service(2)
    assert len(got) == 100


def test_a_socket_that_fails_to_close_is_let_go_quietly_and_other_errors_still_raise():
    # the MQTT client and the NTP client let go of a broken socket: its close may fail too
    from firmware.compat import close_quietly

    class Broken:
        closed = 0

        def close(self):
            self.closed += 1
            raise OSError(errno.ENOTCONN, "not connected")

    sock = Broken()
    assert close_quietly(sock) is None and sock.closed == 1
    assert close_quietly(None) is None

    class Buggy:
        def close(self):
            raise TypeError("a bug, not a broken socket")

    with pytest.raises(TypeError):
        close_quietly(Buggy())
