"""A minimal MQTT 3.1.1 client (QoS 0) that never blocks, for CPython and MicroPython alike.

It runs over any socket-like object from ``opener(now)`` (a socket connected, or still
connecting without blocking as ``tcp_opener`` gives it; switched to non-blocking here):
CONNECT/CONNACK, SUBSCRIBE, PUBLISH in both directions, PINGREQ and
_DISCONNECT.  ``service(now)`` is called from the main loop with a millisecond tick count: it
reads what has arrived, hands each PUBLISH to ``on_message(topic, payload)``, sends keep-alive
pings, notices a dead broker (socket closed or no answer within the keep-alive time) and
reconnects with a growing back-off.  Delivery is at most once: the link protocol above
(sequence numbers, acknowledgements, resends) makes it reliable end to end.
"""

from firmware.compat import close_quietly, const

CONNECT = const(0x10)
CONNACK = const(0x20)
PUBLISH = const(0x30)
_PUBACK = const(0x40)
SUBSCRIBE = const(0x82)
SUBACK = const(0x90)
PINGREQ = const(0xC0)
PINGRESP = const(0xD0)
_DISCONNECT = const(0xE0)

_PROTOCOL_LEVEL = const(4)  # MQTT 3.1.1
_FLAG_CLEAN = const(0x02)
_FLAG_WILL = const(0x04)
_FLAG_WILL_RETAIN = const(0x20)
_FLAG_PASSWORD = const(0x40)
_FLAG_USERNAME = const(0x80)

_BUFFER_SIZE = const(4096)
_MAX_READS = const(16)  # socket reads per service() call: bounded work per tick
MAX_MESSAGES = const(8)  # PUBLISHes handed on per service() call (each is a MAC to check)
HOST_BATCH = const(0x3FFFFFFF)  # max_messages of a host's client: bounded by the reads only
_MAX_WRITE_TRIES = const(200)
CONNACK_TIMEOUT = const(3000)
_BACKOFF_FIRST = const(500)
BACKOFF_MAX = const(8000)
_EAGAIN = (11, 35, 115, 119)  # EAGAIN/EWOULDBLOCK, EINPROGRESS, (lwIP) on the ports we run on
# A TCP connect still under way: the above, or ENOTCONN (Linux 107, macOS 57, lwIP 128).
_NOT_YET = (11, 35, 115, 119, 107, 57, 128)
_TICKS_MASK = const(0x3FFFFFFF)
_TICKS_HALF = const(0x20000000)

CLOSED = const(0)
WAITING = const(1)  # CONNECT sent, no CONNACK yet
CONNECTED = const(2)
CONNECTING = const(3)  # TCP connect under way, CONNECT not sent yet


def ticks_diff(later, earlier):
    """Signed milliseconds from earlier to later on a 2**30 wrapping tick counter."""
    return ((later - earlier + _TICKS_HALF) & _TICKS_MASK) - _TICKS_HALF


def _varint(n):
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _text(value):
    if isinstance(value, str):
        value = value.encode()
    return bytes((len(value) >> 8, len(value) & 0xFF)) + value


def packet(kind, body):
    """One MQTT control packet: fixed header byte, remaining length, body."""
    return bytes((kind,)) + _varint(len(body)) + body


def _errno(error):
    return error.args[0] if error.args else 0


def next_backoff(backoff):
    """The wait (ms) before the next connection attempt after one that failed having waited
    backoff (0: the first failure): _BACKOFF_FIRST, doubling up to BACKOFF_MAX."""
    return _BACKOFF_FIRST if backoff == 0 else min(backoff * 2, BACKOFF_MAX)


class Session:
    """What every MQTT client here keeps the same way (this one and the board's umqtt
    adapter): the topics to subscribe after each connect, the connection state, the retry
    back-off, keep-alive timing, and the last error.  A subclass provides _drop(now, why),
    _ping(now) and _subscribe(topic)."""

    def __init__(self, client_id, on_message, keepalive, log):
        if keepalive < 1 or keepalive > 600:
            raise ValueError("MQTT keepalive %r is not 1..600 seconds" % (keepalive,))
        self.client_id = client_id
        self.on_message = on_message
        self.keepalive = keepalive
        self.keepalive_ms = keepalive * 1000
        self.log = log
        self.topics = []
        self.state = CLOSED
        self.next_try = 0
        self.backoff = 0
        self.last_sent = 0
        self.last_heard = 0
        self.since = 0
        self.connects = 0
        self.error = ""

    def subscribe(self, topic):
        """Subscribe now if connected, and again after every reconnect."""
        if topic not in self.topics:
            self.topics.append(topic)
        if self.state == CONNECTED:
            self._subscribe(topic)

    def connected(self):
        return self.state == CONNECTED

    def _retry_due(self, now):
        """True when a closed connection may be tried again (at once after a success)."""
        return self.backoff == 0 or ticks_diff(now, self.next_try) >= 0

    def _keep_alive(self, now):
        """Connected: drop a broker silent for 1.5 keep-alive times, else ping every half."""
        if ticks_diff(now, self.last_heard) > self.keepalive_ms + self.keepalive_ms // 2:
            self._drop(now, "broker silent for %d ms" % ticks_diff(now, self.last_heard))
        elif ticks_diff(now, self.last_sent) >= self.keepalive_ms // 2:
            self._ping(now)

    def _closed(self, now):
        """The connection is gone: wait longer before the next try."""
        self.state = CLOSED
        self.backoff = next_backoff(self.backoff)
        self.next_try = (now + self.backoff) & _TICKS_MASK

    def _up(self):
        """The broker accepted the connection."""
        self.state = CONNECTED
        self.backoff = 0
        self.connects += 1
        self._note("mqtt up")

    def _note(self, text):
        self.error = text
        if self.log:
            try:
                self.log(text)
            except MemoryError:  # a full heap must not escape service()
                pass


class Client(Session):
    """Non-blocking MQTT 3.1.1 client; see the module docstring."""

    def __init__(self, client_id, opener, on_message, keepalive=10, username=None, password=None,
                 will=None, log=None, max_messages=MAX_MESSAGES):
        """max_messages: PUBLISHes handed on per service() call; the rest wait for the next
        (a table's loop must not stall; a host with no watchdog batches more: HOST_BATCH)."""
        Session.__init__(self, client_id, on_message, keepalive, log)
        self.max_messages = max_messages
        self.opener = opener
        self.username = username
        self.password = password
        self.will = will  # (topic, payload, retain) or None
        self.sock = None
        self.buf = bytearray(_BUFFER_SIZE)
        self.view = memoryview(self.buf)
        self.fill = 0
        self.skip = 0  # bytes of a packet too large for the buffer still to be thrown away
        self.budget = 0  # PUBLISHes this service() call may still hand on

    # -- public -----------------------------------------------------------------------------

    def publish(self, topic, payload, retain=False):
        """Send a QoS 0 message; returns False (and drops the connection) if it cannot be sent."""
        if self.state != CONNECTED:
            return False
        head = PUBLISH | (1 if retain else 0)
        return self._send(packet(head, _text(topic) + bytes(payload)))

    def service(self, now):
        """Read, dispatch, keep alive, reconnect; bounded work per call.  Returns connected()."""
        if self.state == CLOSED:
            if self._retry_due(now):
                self._open(now)
            return False
        if self.state == CONNECTING:
            self._try_connect(now)
            return False
        self.budget = self.max_messages
        self._read(now)
        if self.state == WAITING and ticks_diff(now, self.since) > CONNACK_TIMEOUT:
            self._drop(now, "no CONNACK within %d ms" % CONNACK_TIMEOUT)
        elif self.state == CONNECTED:
            self._keep_alive(now)
        return self.state == CONNECTED

    def close(self):
        """Say goodbye to the broker (if connected) and close the socket."""
        if self.state == CONNECTED:
            self._send(packet(_DISCONNECT, b""))
        self._close_socket()
        self.state = CLOSED

    # -- internals --------------------------------------------------------------------------

    def _ping(self, now):
        self._send(packet(PINGREQ, b""), now)

    def _close_socket(self):
        self.sock = close_quietly(self.sock)
        self.fill = 0
        self.skip = 0       # a packet being skipped ends with its connection

    def _drop(self, now, why):
        self._note("mqtt down: " + why)
        self._close_socket()
        self._closed(now)

    def _open(self, now):
        try:
            self.sock = self.opener(now)
            self.sock.setblocking(False)
        except OSError as error:
            self.sock = None
            self._drop(now, "connect failed (%s)" % (error,))
            return
        self.state = CONNECTING
        self.since = now
        self._try_connect(now)

    def _connect_packet(self):
        flags = _FLAG_CLEAN
        body = _text("MQTT") + bytes((_PROTOCOL_LEVEL,))
        tail = _text(self.client_id)
        if self.will:
            flags |= _FLAG_WILL | (_FLAG_WILL_RETAIN if self.will[2] else 0)
            tail += _text(self.will[0]) + _text(self.will[1])
        if self.username is not None:
            flags |= _FLAG_USERNAME
            tail += _text(self.username)
            if self.password is not None:
                flags |= _FLAG_PASSWORD
                tail += _text(self.password)
        body += bytes((flags, self.keepalive >> 8, self.keepalive & 0xFF)) + tail
        return packet(CONNECT, body)

    def _try_connect(self, now):
        """Send CONNECT once the TCP connection is up; never wait for it (one try per call)."""
        data = self._connect_packet()
        try:
            n = self.sock.send(data)
        except OSError as error:
            if _errno(error) not in _NOT_YET:
                self._drop(now, "connect failed (%s)" % (error,))
            elif ticks_diff(now, self.since) > CONNACK_TIMEOUT:
                self._drop(now, "TCP connect took over %d ms" % CONNACK_TIMEOUT)
            return
        self.state = WAITING
        self.since = now
        self.last_heard = now
        self.last_sent = now
        if n < len(data):
            self._send(data[n:], now)

    def _subscribe(self, topic):
        # packet id 1 is enough: we never wait for a SUBACK to match anything
        self._send(packet(SUBSCRIBE, b"\x00\x01" + _text(topic) + b"\x00"))

    def _send(self, data, now=None):
        view = memoryview(data)
        sent = 0
        tries = 0
        while sent < len(data):
            tries += 1
            if tries > _MAX_WRITE_TRIES or self.sock is None:
                self._drop(self.last_sent if now is None else now, "send stalled")
                return False
            try:
                n = self.sock.send(view[sent:])
            except OSError as error:
                if _errno(error) in _EAGAIN:
                    continue
                self._drop(self.last_sent if now is None else now, "send failed (%s)" % (error,))
                return False
            if n:
                sent += n
        if now is not None:
            self.last_sent = now
        return True

    def _read(self, now):
        # what a flood left in the buffer last time goes first; nothing more is read while
        # this call's budget of messages is spent (the rest waits in the socket)
        self._packets(now)
        for _ in range(_MAX_READS):
            if self.sock is None or self.budget <= 0:
                return
            room = _BUFFER_SIZE - self.fill
            if room == 0:
                self._drop(now, "packet larger than %d bytes" % _BUFFER_SIZE)
                return
            # Slicing a memoryview allocates; with nothing half-read (every idle tick) the read
            # goes straight into the whole buffer.
            target = self.view if self.fill == 0 else self.view[self.fill:]
            try:
                if hasattr(self.sock, "recv_into"):
                    n = self.sock.recv_into(target)
                else:
                    n = self.sock.readinto(target)
            except OSError as error:
                if _errno(error) in _EAGAIN:
                    return
                self._drop(now, "receive failed (%s)" % (error,))
                return
            if n is None:
                return
            if n == 0:
                self._drop(now, "broker closed the connection")
                return
            self.fill += n
            self.last_heard = now
            if self.skip:
                self._skip()
            self._packets(now)

    def _packets(self, now):
        while self.fill >= 2 and self.sock is not None and self.budget > 0:
            length = 0
            shift = 0
            pos = 1
            while True:
                if pos >= self.fill:
                    return  # length not complete yet
                byte = self.buf[pos]
                length |= (byte & 0x7F) << shift
                pos += 1
                if not byte & 0x80:
                    break
                shift += 7
                if shift > 21:
                    self._drop(now, "bad remaining length")
                    return
            end = pos + length
            if end > _BUFFER_SIZE:
                # thrown away, not the connection: a broker would deliver a retained one again
                # at every reconnect, and the link would never come up
                self._note("packet of %d bytes exceeds %d: skipped" % (end, _BUFFER_SIZE))
                self.skip = end
                self._skip()
                continue
            if end > self.fill:
                return
            self._handle(self.buf[0], pos, end, now)
            if self.sock is None:
                return  # the packet ended the connection (and emptied the buffer)
            rest = self.fill - end
            if rest:
                self.buf[0:rest] = self.buf[end:self.fill]
            self.fill = rest

    def _skip(self):
        """Throw away the received bytes of the packet being skipped."""
        if self.fill <= self.skip:
            self.skip -= self.fill
            self.fill = 0
            return
        rest = self.fill - self.skip
        self.buf[0:rest] = self.buf[self.skip:self.fill]
        self.fill = rest
        self.skip = 0

    def _handle(self, head, start, end, now):
        kind = head & 0xF0
        if kind == CONNACK:
            if end - start != 2 or self.buf[start + 1] != 0:
                self._drop(now, "connection refused (code %d)" % self.buf[start + 1])
                return
            self._up()
            for topic in self.topics:
                self._subscribe(topic)
        elif kind == PUBLISH:
            qos = (head >> 1) & 3
            tlen = (self.buf[start] << 8) | self.buf[start + 1] if end - start >= 2 else 0
            at = start + 2 + tlen
            try:
                if at + (2 if qos else 0) > end:
                    raise ValueError("topic longer than the packet")
                topic = bytes(self.buf[start + 2:at]).decode()
            except ValueError as error:     # UnicodeError too: no broker sends either
                self._drop(now, "bad PUBLISH (%s)" % (error,))
                return
            if qos:
                packet_id = bytes(self.buf[at:at + 2])
                at += 2
                self._send(packet(_PUBACK, packet_id), now)
            payload = bytes(self.buf[at:end])
            self.budget -= 1
            if self.on_message is not None:
                self.on_message(topic, payload)
        # SUBACK, PINGRESP, _PUBACK: nothing to do beyond noting the broker is alive


def tcp_opener(host, port):
    """An opener for Client: a new TCP socket to host:port whose connect does not block.

    The address is resolved once, here (give the broker as an IP address on the board: a name
    lookup may block).  The connect is started without waiting; the client sends CONNECT when
    the connection is up, so an unreachable broker never stalls the main loop."""
    import socket

    address = socket.getaddrinfo(host, port)[0][-1]

    def open_socket(now):
        sock = socket.socket()
        sock.setblocking(False)
        try:
            sock.connect(address)
        except OSError as error:
            if _errno(error) not in _NOT_YET:
                sock.close()
                raise
        return sock

    return open_socket
