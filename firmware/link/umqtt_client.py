"""The board's MQTT client: MicroPython's standard umqtt.simple behind mqtt.Client's interface.

``UmqttClient`` offers what the Station uses of ``mqtt.Client`` (``subscribe``, ``publish``,
``connected``, ``service(now)``, ``close``, ``error``, ``connects``) and leaves the protocol to
``umqtt.simple.MQTTClient`` (installed on the board by ``mpremote mip install umqtt.simple``,
tools/deploy.py).  umqtt.simple is a blocking client; the main loop must not stall, so:

- umqtt's ``connect()`` opens a blocking TCP connection (an unreachable broker would hold the
  loop for the whole TCP timeout, far past the watchdog).  Before each attempt a non-blocking
  probe (``mqtt.tcp_opener``) connects to the broker's port; connect() is called only once the
  probe has connected (then the probe is closed), with mqtt.Client's growing back-off between
  attempts and its limit on how long a TCP connect may take;
- after connect() the socket umqtt uses is wrapped (``_Wire``): every operation umqtt would
  block in (writes, the rest of a packet, the SUBACK) is bounded to IO_TIMEOUT_S, a short
  read is an error, and every byte read counts as the broker being heard;
- ``service(now)`` sends a PINGREQ every keepalive/2, runs ``check_msg()`` (non-blocking for
  the first byte) at most MAX_MESSAGES times, and drops the connection when the broker has been
  silent for 1.5 keep-alive times (the keep-alive is also in CONNECT, so the broker drops a
  silent table).  Any failure of umqtt (OSError, MQTTException, or the assertion / index errors
  it raises on a malformed or cut stream) drops the connection, names the reason in ``error``
  and reconnects after the back-off: nothing raises out of ``service``, ``publish`` or ``close``.

connect() itself, once the probe got through, is bounded to IO_TIMEOUT_S too when umqtt's
connect() takes a timeout (the umqtt.simple mip installs for MicroPython 1.29 does; older ones,
like the 1.3.4 the host tests fetch, do not, and then a broker that accepts TCP but never sends
CONNACK holds the loop until the watchdog resets the board).  On the local network the
connect takes well under a millisecond and the SUBSCRIBE after it about 40 ms.

``factory(server, port)`` gives the Station a client maker (see firmware.link.station).
"""

from firmware.compat import const
from firmware.link import mqtt

IO_TIMEOUT_S = const(1)    # bound on one blocking socket step after connect (the watchdog is 2 s)
MAX_MESSAGES = mqtt.MAX_MESSAGES    # check_msg() calls per service(): bounded work per tick
PROBE_TIMEOUT = mqtt.CONNACK_TIMEOUT   # ms a TCP probe may take before it is given up

# What a second connect() on the non-blocking probe raises (Linux and MicroPython's own
# numbers, macOS, newlib/lwIP on the ESP32).  Connected: EISCONN (a first success may also
# return None).  Still under way: EALREADY, EINPROGRESS, EAGAIN.  Anything else: refused/failed.
_CONNECTED = (106, 56, 127)
_PENDING = (114, 37, 120, 115, 36, 119, 11, 35)
_ETIMEDOUT = const(110)  # the errno our own bounded-step errors carry (Linux's ETIMEDOUT)
# A topic or payload longer than this (the own client's buffer; link messages are at most 1 KB)
# is read and thrown away in small pieces, and umqtt is given b"" for it, which the link
# rejects as malformed: umqtt would allocate it whole (MemoryError on the board) and a retained
# one would come back at every reconnect, keeping the link down.  Longer than _MAX_SKIP: the
# connection is dropped rather than the loop held while it arrives.
MAX_READ = const(4096)
_MAX_SKIP = const(65536)
_SKIP_PIECE = const(256)

NO_MEMORY = "mqtt down: out of memory"

CLOSED = mqtt.CLOSED
PROBING = mqtt.CONNECTING
CONNECTED = mqtt.CONNECTED


def _why(error):
    name = type(error).__name__
    text = str(error)
    return name + (": " + text if text else "")


def _close(sock):
    if sock is not None:
        try:
            sock.close()
        except OSError:
            pass


class _Wire:
    """The socket umqtt.simple talks through, with every blocking step bounded.

    umqtt switches its socket between non-blocking (first byte of check_msg) and blocking;
    here "blocking" means a timeout of IO_TIMEOUT_S, and a read that comes back short (or with
    nothing) while blocking raises instead of handing umqtt half a packet."""

    def __init__(self, sock):
        self.sock = sock
        self.blocking = True
        self.heard = False  # set by every read that returned data; the client clears it
        sock.settimeout(IO_TIMEOUT_S)

    def setblocking(self, flag):
        self.blocking = bool(flag)
        if flag:
            self.sock.settimeout(IO_TIMEOUT_S)
        else:
            self.sock.setblocking(False)

    def read(self, n):
        if self.blocking and n > MAX_READ:
            self._skip(n)
            return b""
        data = self.sock.read(n)
        if data:
            self.heard = True
        if self.blocking and (data is None or len(data) < n):
            raise OSError(_ETIMEDOUT, "read %d of %d bytes" % (0 if data is None else len(data), n))
        return data

    def _skip(self, n):
        """Throw away the next n bytes of the stream (a topic or payload over MAX_READ)."""
        if n > _MAX_SKIP:
            raise OSError(_ETIMEDOUT, "packet part of %d bytes is over %d" % (n, _MAX_SKIP))
        left = n
        while left:
            piece = left if left < _SKIP_PIECE else _SKIP_PIECE
            data = self.sock.read(piece)
            if not data:
                raise OSError(_ETIMEDOUT, "read %d of %d bytes" % (n - left, n))
            self.heard = True
            left -= len(data)

    def write(self, data, n=None):
        want = len(data) if n is None else n
        done = self.sock.write(data) if n is None else self.sock.write(data, n)
        if done is None or done < want:
            raise OSError(_ETIMEDOUT, "write of %d bytes stalled" % want)
        return done

    def close(self):
        self.sock.close()


class UmqttClient(mqtt.Session):
    """umqtt.simple with a non-blocking probe, back-off and bounded work; see the module."""

    def __init__(self, client_id, opener, on_message, keepalive=10, server="", port=1883,
                 address=None, mqtt_class=None, log=None):
        """opener(now): a socket whose connect to the broker is under way (mqtt.tcp_opener);
        address: what to give that socket's connect() to ask whether it is up (resolved from
        server and port when None); mqtt_class: umqtt.simple.MQTTClient or a stand-in."""
        mqtt.Session.__init__(self, client_id, on_message, keepalive, log)
        if mqtt_class is None:
            from umqtt.simple import MQTTClient as mqtt_class
        if address is None:
            import socket
            address = socket.getaddrinfo(server, port)[0][-1]
        self.opener = opener
        self.address = address
        self.mq = mqtt_class(client_id, server, port, keepalive=keepalive)
        self.mq.set_callback(self._deliver)
        self.connect_timeout = True  # this umqtt's connect() takes a timeout (until it refuses one)
        self.wire = None
        self.probe = None
        self.now = 0
        self.probes = 0

    # -- public: mqtt.Client's interface ----------------------------------------------------

    def publish(self, topic, payload, retain=False):
        """Send a QoS 0 message; returns False (and drops the connection) if it cannot be sent."""
        if self.state != CONNECTED:
            return False
        try:
            self.mq.publish(topic, payload, retain)
        except Exception as error:  # noqa: BLE001 - any umqtt failure is a lost connection
            self._drop(self.now, "publish failed", error)
            return False
        self.last_sent = self.now
        return True

    def service(self, now):
        """Probe, connect, read, keep alive, reconnect; bounded work per call.  Returns connected()."""
        self.now = now
        if self.state == CLOSED:
            if self._retry_due(now):
                self._open_probe(now)
            return self.state == CONNECTED
        if self.state == PROBING:
            self._check_probe(now)
            return self.state == CONNECTED
        self._read(now)
        if self.state != CONNECTED:
            return False
        self._keep_alive(now)
        return self.state == CONNECTED

    def close(self):
        """Say goodbye to the broker (if connected) and close the sockets."""
        if self.state == CONNECTED:
            try:
                self.mq.disconnect()
            except Exception:  # noqa: BLE001 - leaving anyway; the socket is closed below
                pass
        self._close_sockets()
        self.state = CLOSED

    # -- internals --------------------------------------------------------------------------

    def _subscribe(self, topic):
        try:
            self.mq.subscribe(topic)
        except Exception as error:  # noqa: BLE001 - any umqtt failure is a lost connection
            self._drop(self.now, "subscribe failed", error)

    def _ping(self, now):
        try:
            self.mq.ping()
            self.last_sent = now
        except Exception as error:  # noqa: BLE001 - any umqtt failure is a lost connection
            self._drop(now, "ping failed", error)

    def _close_sockets(self):
        _close(self.probe)
        _close(self.wire)
        self.probe = None
        self.wire = None

    def _drop(self, now, what, error=None):
        try:
            self._note("mqtt down: " + (what if error is None else "%s (%s)" % (what, _why(error))))
        except MemoryError:  # umqtt's reads allocate: a full heap must not escape service()
            self._note(NO_MEMORY)
        self._close_sockets()
        self._closed(now)

    def _open_probe(self, now):
        self.probes += 1
        try:
            self.probe = self.opener(now)
        except Exception as error:  # noqa: BLE001 - OSError, or MemoryError for the new socket
            self.probe = None
            self._drop(now, "broker unreachable", error)
            return
        self.state = PROBING
        self.since = now
        self._check_probe(now)

    def _check_probe(self, now):
        """connect() once the probe's TCP connection is up; never wait for it."""
        try:
            self.probe.connect(self.address)
        except OSError as error:
            code = error.args[0] if error.args else 0
            if code in _PENDING:
                if mqtt.ticks_diff(now, self.since) > PROBE_TIMEOUT:
                    self._drop(now, "TCP connect took over %d ms" % PROBE_TIMEOUT)
                return
            if code not in _CONNECTED:
                self._drop(now, "broker unreachable", error)
                return
        self.probe.close()
        self.probe = None
        self._connect(now)

    def _connect(self, now):
        mq = self.mq
        try:
            if self.connect_timeout:
                try:
                    mq.connect(True, IO_TIMEOUT_S)
                except TypeError:
                    # umqtt.simple before connect(clean_session, timeout): no bound on connect
                    self.connect_timeout = False
                    mq.connect(True)
            else:
                mq.connect(True)
            self.wire = _Wire(mq.sock)
            mq.sock = self.wire
            self.state = CONNECTED
            for topic in self.topics:
                mq.subscribe(topic)
        except Exception as error:  # noqa: BLE001 - any umqtt failure is a failed connect
            if self.wire is None and getattr(mq, "sock", None) is not None:
                self.wire = mq.sock  # connect() failed half-way: close its socket too
            self._drop(now, "connect failed", error)
            return
        self.last_sent = now
        self.last_heard = now
        self._up()

    def _deliver(self, topic, payload, retained=False):
        if self.on_message is not None:
            if not isinstance(topic, str):
                topic = bytes(topic).decode()
            self.on_message(topic, bytes(payload))

    def _read(self, now):
        wire = self.wire
        for _ in range(MAX_MESSAGES):
            wire.heard = False
            try:
                op = self.mq.check_msg()
            except Exception as error:  # noqa: BLE001 - any umqtt failure is a lost connection
                self._drop(now, "receive failed", error)
                return
            if op is not None and op & 0xF0 != mqtt.PUBLISH:
                # umqtt leaves the rest of a packet it does not handle in the stream
                self._drop(now, "unexpected packet 0x%02x" % op)
                return
            if not wire.heard:
                return
            self.last_heard = now


def factory(server, port, mqtt_class=None):
    """A client maker for ``Station(..., client_factory=...)``: an UmqttClient for server:port
    (the address is resolved once, here, as mqtt.tcp_opener does: give an IP address)."""
    import socket

    address = socket.getaddrinfo(server, port)[0][-1]

    def make(client_id, opener, on_message, keepalive):
        return UmqttClient(client_id, opener, on_message, keepalive, server, port, address, mqtt_class)

    return make


def available():
    """True when umqtt.simple can be imported (on a board after the deploy step's mip install)
    with its client in it.  A broken one (an empty /lib/umqtt/simple/ folder, which
    MicroPython imports as a package with nothing in it; an .mpy the VM refuses) is as none:
    the program check does not cover it, and it must not stop the table."""
    try:
        from umqtt.simple import MQTTClient  # noqa: F401
    except Exception:  # noqa: BLE001 - ImportError, or ValueError of an .mpy it refuses
        return False
    return True
