# The loop's NTP client (firmware.link.sntp) on both runtimes, over a fake UDP network: the
# name looked up by its own DNS query, the NTP answer checked and converted, a silent server
# given up after a second, a cut DNS answer never raising; and over the real socket module to
# a port where nothing answers: every call returns at once.  And the loop's look at the Wi-Fi
# (firmware.link.setup.LinkSetup.rejoin): a network lost is joined again, never raising.
import time

from firmware.link import sntp
from firmware.link.setup import LinkSetup
from host_tests.scenario_support import Checker


class Net:
    AF_INET = 2
    SOCK_DGRAM = 2

    def __init__(self):
        self.sent = []
        self.answers = []

    def getaddrinfo(self, host, port):
        if not sntp._dotted(host):
            raise OSError("a name lookup in the loop")
        return [(2, 2, 17, "", (host, port))]

    def socket(self, family, kind):
        return Udp(self)


class Udp:
    def __init__(self, net):
        self.net = net

    def setblocking(self, flag):
        pass

    def sendto(self, data, address):
        self.net.sent.append((bytes(data), address))

    def recv(self, n):
        if not self.net.answers:
            raise OSError(11)
        return self.net.answers.pop(0)

    def close(self):
        pass


c = Checker()
net = Net()
client = sntp.Sntp(lambda: "192.168.1.1", net)
c.check("DNS query sent", client.ask(1000), True)
query = net.sent[-1][0]
c.check("to the DNS server", net.sent[-1][1], ("192.168.1.1", 53))
answer = (bytes((query[0], query[1], 0x81, 0x80, 0, 1, 0, 1, 0, 0, 0, 0)) + query[12:]
          + b"\xc0\x0c\x00\x01\x00\x01\x00\x00\x00\x3c\x00\x04" + bytes((10, 0, 0, 7)))
c.check("no answer yet", client.poll(1100), None)
net.answers.append(answer)
c.check("resolved, NTP query out", client.poll(1200), None)
c.check("to the server found", net.sent[-1][1], ("10.0.0.7", 123))
ntp_query = net.sent[-1][0]
reply = bytearray(48)
reply[0] = 0x24
reply[1] = 2
reply[24:32] = ntp_query[40:48]
t = 1800000000 + 2208988800
reply[40:44] = bytes(((t >> 24) & 255, (t >> 16) & 255, (t >> 8) & 255, t & 255))
net.answers.append(bytes(reply))
c.check("seconds since 1970", client.poll(1300), 1800000000)
c.check("asked again", client.ask(5000), True)
c.check("silent: waiting", client.poll(5999), None)
c.check("silent: given up", client.poll(6000), 0)
cut = 0
for n in range(len(answer)):
    if sntp.dns_address(answer[:n], query[0] << 8 | query[1]) is not None:
        cut += 1
c.check("a cut DNS answer gives nothing", cut, 0)

import socket  # noqa: E402

real = sntp.Sntp(lambda: None, socket, host="127.0.0.1")
start = time.ticks_ms() if hasattr(time, "ticks_ms") else int(time.time() * 1000)
got = [real.ask(0), real.poll(1), real.poll(2), real.poll(2000)]
took = (time.ticks_ms() if hasattr(time, "ticks_ms") else int(time.time() * 1000)) - start
c.check("real socket: sent, nothing, nothing, failed", got, [True, None, None, 0])
c.check("real socket: no call waited", took < 200, True)


class Wlan:
    def __init__(self):
        self.up = True
        self.calls = []

    def isconnected(self):
        return self.up

    def connect(self, ssid, password):
        self.calls.append((ssid, password))


def refuse(ssid, password):
    raise OSError(16)


def no_memory(ssid, password):
    # the ESP32 port's WLAN raises RuntimeError for an ESP-IDF code it has no OSError for
    # (ESP_ERR_NO_MEM, 0x101; ESP_ERR_INVALID_ARG, 0x102)
    raise RuntimeError("Wifi Unknown Error 0x0101")


setup = LinkSetup(1, b"k" * 32, None)
c.check("rejoin: no Wi-Fi set up", setup.rejoin(), False)
wlan = Wlan()
setup.wlan, setup.ssid, setup.password = wlan, "pit", "pw"
c.check("rejoin: joined, left alone", (setup.rejoin(), wlan.calls), (False, []))
wlan.up = False
c.check("rejoin: lost, joined again", (setup.rejoin(), wlan.calls), (True, [("pit", "pw")]))
wlan.connect = refuse
c.check("rejoin: a refused connect never raises", setup.rejoin(), True)
wlan.connect = no_memory
c.check("rejoin: the ESP32's unknown Wi-Fi error never raises", setup.rejoin(), True)
c.finish()
