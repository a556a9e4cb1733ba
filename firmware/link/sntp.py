"""The wall clock of a linked table from NTP, asked from the main loop without ever holding it.

The boot sets the clock with ``ntptime`` (firmware.link.setup.set_clock), before the
watchdog starts.  After that the loop (firmware.app.run) asks again every hour (every minute
until one answers) with this client: one UDP datagram sent without waiting, the answer
picked up by later passes (``poll``), given up after ANSWER_MS.  Nothing here waits, and
nothing looks a name up with ``getaddrinfo``, which on a board waits for a DNS server that
does not answer far past the 2 s watchdog (it is given dotted addresses only, which it
converts without asking anyone): the server's name is looked up by a DNS query of its own to
the network's DNS server, sent and answered the same way, and looked up again after a failed
exchange (the pool's servers come and go).

An answer is taken only when it echoes the query's transmit time (its originate time), so a
stray or replayed datagram cannot set the clock.
"""

from firmware.compat import close_quietly, const
from firmware.drivers.ticks import ticks_diff

HOST = "pool.ntp.org"       # ntptime's server
NTP_PORT = const(123)
_DNS_PORT = const(53)
ANSWER_MS = const(1000)     # a query not answered within this is given up
_NTP_TO_UNIX = 2208988800   # seconds from 1900 to 1970
_ERA_START = 3913056000     # 2024-01-01 in NTP seconds: smaller ones are after 2036 (era 1)
_EAGAIN = (11, 35, 115, 119)

IDLE = const(0)
RESOLVING = const(1)
ASKING = const(2)


def _dotted(host):
    """True when host is an IPv4 address in dotted form."""
    parts = host.split(".")
    if len(parts) != 4:
        return False
    for part in parts:
        if not part.isdigit() or len(part) > 3 or int(part) > 255:
            return False
    return True


def dns_query(name, ident):
    """A DNS query (RFC 1035, recursion desired) for the IPv4 address of name (a trailing
    dot, a fully qualified name, is the same name); ValueError for an empty or long label."""
    q = bytearray((ident >> 8, ident & 0xFF, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0))
    for label in (name[:-1] if name.endswith(".") else name).split("."):
        if not label or len(label) > 63:
            raise ValueError("bad host name %r" % (name,))
        q.append(len(label))
        q.extend(label.encode())
    q.extend(b"\x00\x00\x01\x00\x01")
    return q


def _skip_name(data, pos):
    while True:
        n = data[pos]
        if n == 0:
            return pos + 1
        if n & 0xC0 == 0xC0:
            return pos + 2
        pos += n + 1


def dns_address(data, ident):
    """The first IPv4 address in the DNS answer data to query ident, or None."""
    try:
        if data[0] != ident >> 8 or data[1] != ident & 0xFF or not data[2] & 0x80 or data[3] & 0x0F:
            return None
        pos = 12
        for _ in range((data[4] << 8) | data[5]):
            pos = _skip_name(data, pos) + 4
        for _ in range((data[6] << 8) | data[7]):
            pos = _skip_name(data, pos)
            kind = (data[pos] << 8) | data[pos + 1]
            size = (data[pos + 8] << 8) | data[pos + 9]
            pos += 10
            if kind == 1 and size == 4 and pos + 4 <= len(data):
                return "%d.%d.%d.%d" % (data[pos], data[pos + 1], data[pos + 2], data[pos + 3])
            pos += size
    except IndexError:
        pass
    return None


def ntp_seconds(data, tag):
    """Seconds since 1970 from an NTP server's answer to the query whose transmit time was
    tag (8 bytes), or None when data is not such an answer."""
    if len(data) < 48 or data[0] & 7 != 4 or data[1] == 0 or bytes(data[24:32]) != tag:
        return None     # not a server's answer (mode 4), a kiss-o'-death (stratum 0), not ours
    t = (data[40] << 24) | (data[41] << 16) | (data[42] << 8) | data[43]
    if t == 0:
        return None
    if t < _ERA_START:
        t += 0x100000000
    return t - _NTP_TO_UNIX


class Sntp:
    """One NTP exchange at a time, never waiting: ``ask(now)``, then ``poll(now)`` every pass.

    dns_server(): the network's DNS server's IPv4 address, or None while there is no
    network; host: the NTP server's name or IPv4 address; socket_module: ``socket`` (tests
    pass a fake).  Addresses are kept as (dotted address, port)."""

    def __init__(self, dns_server, socket_module, host=HOST):
        self.dns_server = dns_server
        self.socket = socket_module
        self.host = host
        self.address = (host, NTP_PORT) if _dotted(host) else None
        self.sock = None
        self.state = IDLE
        self.sent = 0
        self.tag = b""
        self.asked = 0          # datagrams sent, for the technician and the tests

    def ask(self, now):
        """Start an exchange (a DNS lookup first when the address is not known); False when
        nothing could be sent (no network: try again later)."""
        self.close()
        if self.address is None:
            try:
                server = self.dns_server()
            except Exception:  # noqa: BLE001 - no network interface answer: later
                server = None
            if not server or server == "0.0.0.0" or not _dotted(server):
                return False
            try:
                query = dns_query(self.host, now & 0xFFFF)
            except ValueError:      # a name no DNS query holds (config refuses it)
                return False
            return self._send(now, RESOLVING, query, (server, _DNS_PORT))
        query = bytearray(48)
        query[0] = 0x1B         # version 3, client
        for i in range(4):      # a transmit time only we know: the answer must echo it
            query[44 + i] = (now >> (8 * i)) & 0xFF
        query[40] = self.asked & 0xFF
        self.tag = bytes(query[40:48])
        return self._send(now, ASKING, query, self.address)

    def _send(self, now, state, data, address):
        try:
            # a dotted address: getaddrinfo converts it without a DNS query, on every port
            to = self.socket.getaddrinfo(address[0], address[1])[0][-1]
            self.sock = self.socket.socket(self.socket.AF_INET, self.socket.SOCK_DGRAM)
            self.sock.setblocking(False)
            self.sock.sendto(data, to)
        except (OSError, MemoryError):  # a full heap too: the loop goes on, asked later
            self.close()
            return False
        self.state = state
        self.sent = now
        self.asked += 1
        return True

    def poll(self, now):
        """None while no answer is due; seconds since 1970 when the server answered; 0 when
        the exchange failed (no answer within ANSWER_MS, an error, a bad answer)."""
        if self.state == IDLE:
            return None
        try:
            data = self.sock.recv(512)      # (allocates: MemoryError on a full heap)
        except (OSError, MemoryError) as error:
            if error.args and error.args[0] in _EAGAIN and ticks_diff(now, self.sent) < ANSWER_MS:
                return None
            return self._fail()
        if self.state == RESOLVING:
            ip = dns_address(data, self.sent & 0xFFFF)
            if ip is None:
                return None if ticks_diff(now, self.sent) < ANSWER_MS else self._fail()
            self.address = (ip, NTP_PORT)
            return None if self.ask(now) else 0
        seconds = ntp_seconds(data, self.tag)
        if seconds is None:
            return None if ticks_diff(now, self.sent) < ANSWER_MS else self._fail()
        self.close()
        return seconds

    def _fail(self):
        if self.state == ASKING and not _dotted(self.host):
            self.address = None     # that server did not answer: look the name up again
        self.close()
        return 0

    def close(self):
        self.sock = close_quietly(self.sock)
        self.state = IDLE
