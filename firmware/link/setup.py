"""What a linked table needs before its loop starts: the LinkSetup the app builds its link
from, and on a board the Wi-Fi, the clock (NTP) and the link key (docs/link.md
"Integration").  Only a linked table loads this module (firmware.app.start and run).
"""

from firmware.compat import const
from firmware.drivers.ticks import ticks_diff

WIFI_WAIT_MS = const(15000)      # boot waits this long for Wi-Fi before the loop starts


class LinkSetup:
    """What a linked table needs to build its link: table number, key (bytes), an opener
    (``firmware.link.mqtt.tcp_opener(host, port)``) and optional TableLink timings (ms).

    client_factory makes the MQTT client (``firmware.link.station.Station``; None: the own
    ``mqtt.Client``); client_name says which one, for the log."""

    def __init__(self, table, key, opener, timings=None, keepalive=None, client_factory=None,
                 client_name="mqtt.Client"):
        self.table = table
        self.key = key
        self.opener = opener
        self.timings = timings or {}
        self.keepalive = keepalive
        self.client_factory = client_factory
        self.client_name = client_name
        self.clock_retry = False  # board_link: NTP did not set the clock at boot
        self.sntp = None          # board_link: the loop's clock (firmware.link.sntp.Sntp)
        self.wlan = None          # board_link: the network.WLAN, its network and password
        self.ssid = self.password = ""

    def rejoin(self):
        """The loop's look at the Wi-Fi, every 30 s (firmware.app): joined again when it is not
        connected and the file names its network (an access point restarted, or not up at
        boot: the Pico W's radio does not join again by itself, and the link would stay down
        until the table restarted).  connect() does not wait; True when it was called."""
        wlan = self.wlan
        if wlan is None or not self.ssid or wlan.isconnected():
            return False
        try:
            wlan.connect(self.ssid, self.password)
        except Exception:  # noqa: BLE001 - refused (a join under way), or the ESP32's
            pass           # RuntimeError for an ESP-IDF code: tried again in 30 s, no reset
        return True

    def station(self, section, log):
        """The Station (MQTT client + TableLink), restored from its section when there is one;
        heap.NotLoaded when its code cannot load (a damaged .mpy's ValueError is no bad record)."""
        try:
            from firmware.link.station import KEEPALIVE, Station
        except Exception as error:  # noqa: BLE001 - a full heap, a damaged .mpy
            from firmware.heap import not_loaded

            raise not_loaded("firmware.link.station", error) from None
        station = Station(self.table, self.key, self.opener, log, section,
                          self.keepalive or KEEPALIVE, self.client_factory)
        for name in self.timings:
            setattr(station.link, name, self.timings[name])
        return station


def board_link(hw, settings, clock=None, sleep=None, wait_ms=WIFI_WAIT_MS):
    """(LinkSetup or None, problem text): Wi-Fi joined, clock set, key read for a linked table.

    settings: the configuration file's LinkConfig.  Wi-Fi is started here and waited for at
    most wait_ms (the MQTT client keeps retrying afterwards, the loop joins it again:
    rejoin); the clock is set from NTP
    because link messages more than 300 s off the controller's clock are refused.
    The MQTT client is umqtt.simple when it can be imported (the deploy step installs it with
    mip), else the own mqtt.Client; ``setup.client_name`` says which.
    clock() / sleep(ms) default to time.ticks_ms / time.sleep_ms (tests pass their own)."""
    import time

    from firmware.link import mqtt, umqtt_client

    clock = clock or time.ticks_ms
    sleep = sleep or time.sleep_ms
    try:
        key = read_link_key(settings.key_file)
    except (OSError, ValueError) as error:
        return None, "link key %s: %s" % (settings.key_file, error)
    if hw.make_wlan is None:
        return None, "link: board %s has no Wi-Fi" % hw.name
    wlan = hw.make_wlan()
    wlan.active(True)
    if settings.wifi_ssid and not wlan.isconnected():
        wlan.connect(settings.wifi_ssid, settings.wifi_password)
    start = clock()
    while not wlan.isconnected() and ticks_diff(clock(), start) < wait_ms:
        sleep(100)
    retry = not set_clock(settings.ntp_server)
    factory, name = None, "mqtt.Client (umqtt.simple not installed)"
    try:
        opener = mqtt.tcp_opener(settings.broker, settings.port)
        if umqtt_client.available():
            factory, name = umqtt_client.factory(settings.broker, settings.port), "umqtt.simple"
    except OSError as error:
        return None, "link broker %s: %s" % (settings.broker, error)
    setup = LinkSetup(settings.table, key, opener, client_factory=factory, client_name=name)
    setup.clock_retry = retry       # the loop tries again within a minute, not an hour
    setup.sntp = _loop_clock(wlan, settings.ntp_server)
    setup.wlan, setup.ssid, setup.password = wlan, settings.wifi_ssid, settings.wifi_password
    return setup, ""


def _loop_clock(wlan, server=None):
    """The NTP client of the loop (app.run) asking `server` (None: sntp.HOST): it never waits,
    nor looks a name up by getaddrinfo; the DNS server is the one the network gave the Wi-Fi."""
    import socket

    from firmware.link.sntp import HOST, Sntp

    def dns_server():
        return wlan.ifconfig()[3]

    return Sntp(dns_server, socket, server or HOST)


def set_clock(server=None):
    """Set the RTC from NTP server `server` (None: ntptime's own) once, at boot (ntptime waits
    for the name lookup and 1 s for the answer: before the watchdog starts only); True when it
    was set (a failure is left to the loop's clock, firmware.link.sntp: the link stays DOWN
    meanwhile, its messages being refused as stale, which keeps jackpot wagering closed)."""
    try:
        import ntptime
        if server:
            ntptime.host = server
        ntptime.settime()
        return True
    except Exception:  # noqa: BLE001 - no network, no NTP answer: try again later
        return False


def read_link_key(path):
    """The link key from its file: hex digits (32..128 of them), whitespace ignored."""
    with open(path) as f:
        text = f.read(300)
    return parse_link_key(text)


def parse_link_key(text):
    """Key bytes from hex text; ValueError saying what is wrong (never the key itself)."""
    digits = "".join(text.split())
    if len(digits) < 32 or len(digits) > 128 or len(digits) % 2:
        raise ValueError("expected 32..128 hex digits (16..64 bytes), got %d characters" % len(digits))
    try:
        return bytes.fromhex(digits)
    except ValueError:
        raise ValueError("not hex digits") from None
