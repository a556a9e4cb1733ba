# The table's link state machine on both runtimes, driven by signed controller messages made
# here with the per-table key: DOWN -> SYNCING -> UP, resend after a lost ack, a queued hit paid,
# every kind of bad message refused, the sign alternating with LINK DOWN, and an idle tick that
# allocates nothing (heap locked).
import sys

from firmware.compat import micropython
from firmware.link import codec
from firmware.link.tablelink import TableLink

KEY = b"scenario key of table 3 ........"
OTHER = b"some other table's key .........."
NOW = 1800000000
sent = []
events = []
failures = []


def check(what, got, want):
    if got != want:
        failures.append(what)
        print("MISMATCH", what, got, want)


def send(topic, payload):
    sent.append((topic, codec.decode(KEY, payload, codec.UP_KINDS)))
    return True


link = TableLink(3, KEY, send, lambda code, text: events.append(code))
down = [0]


def status(n, tot, pool, key=KEY, ts=NOW, seq=None):
    down[0] += 1
    return codec.encode(key, codec.STATUS, 3, seq or down[0], ts, [n, tot, pool, 100])


t = 10000
link.service(t, NOW, True)
print("start", link.state_name(), link.wagers_open(), sent[-1][1].kind)
check("hello first", sent[-1][1].kind, "hello")
link.on_message(link.topic_down, status(0, [0, 0, 0, 0, 0], [1000000]), t)
print("after status", link.state_name(), link.wagers_open(), link.amounts())
check("up", link.state_name(), "UP")

# a round locked: the entry goes out; its ack is lost, so it is sent again after a second
n = link.contribute(1, NOW, 4, 400)
print("entry", n, sent[-1][1].kind, sent[-1][1].get("a"))
count = len(sent)
t += 1100
link.service(t, NOW, True)
resent = [m for _, m in sent[count:] if m.kind == "entry"]
print("resent", [m.get("n") for m in resent])
check("resent", len(resent), 1)
link.on_message(link.topic_down, status(1, [400, 4, 0, 0, 0], [1000280]), t)
print("acked", link.acked, link.entries, link.amounts())

# a hit is queued until the controller pays it
h = link.hit(2, NOW, [[5, 4, 100]])
print("awaiting", link.awaiting)
down[0] += 1
paid = codec.encode(KEY, codec.PAID, 3, down[0], NOW, [h, [[5, 4, 1000280, 0]], [1000280], [1000000]])
link.on_message(link.topic_down, paid, t)
results = link.take_results()
print("paid", [(r.entry, r.round, r.total()) for r in results], link.totals, link.amounts())
check("royal paid", results[0].total(), 1000280)

# bad messages: each refused, nothing changed
before = (link.state_name(), link.amounts(), link.acked, link.totals)
bad = [status(9, [0, 0, 0, 0, 0], [1], key=OTHER), status(2, [400, 4, 0, 1000280, 1], [7], seq=1),
       status(2, [400, 4, 0, 1000280, 1], [7], ts=NOW - 1000), b"0" * 64 + b"{}", b"short"]
for payload in bad:
    link.on_message(link.topic_down, payload, t)
print("rejects", sorted(link.rejects.items()))
check("unchanged", (link.state_name(), link.amounts(), link.acked, link.totals), before)
check("reject count", sum(link.rejects.values()), 5)

# an idle tick allocates nothing
link.on_message(link.topic_down, status(2, [400, 4, 0, 1000280, 1], [1000000]), t)
link.service(t + 1, NOW, True)
micropython.heap_lock()
try:
    for i in range(200):
        link.service(t + 2 + i, NOW, True)
    alloc = "no"
except MemoryError:
    alloc = "yes"
micropython.heap_unlock()
print("idle tick allocates:", alloc)
check("no alloc", alloc, "no")

# silence: DOWN, the sign alternates, wagering closed, and the event is logged
t += 5000
link.service(t, NOW, True)
print("silent", link.state_name(), link.wagers_open(), [link.sign_text(x) for x in (0, 1000, 2000)])
check("down", link.state_name(), "DOWN")
print("events", events)
section = link.section()
back = TableLink.restore(3, KEY, send, section)
print("restored", back.last_n, back.acked, back.totals, back.amounts(), back.sq >= link.sq)
check("restore", (back.last_n, back.totals), (link.last_n, link.totals))
if failures:
    sys.exit(1)
