# Link messages on both runtimes: the same signed bytes for every kind (so a board and the
# controller agree on every MAC), and the same rejection reason for every bad payload.
import sys

from firmware.link import codec, hmac256

KEY = b"scenario key of table 12 ......."
NOW = 1800000000
failures = []


def resign(body):
    return hmac256.hexdigest(KEY, body) + body


cases = [
    (codec.HELLO, [3, [300, 3, 0, 0, 0], [2]]),
    (codec.ENTRY, [1, codec.HIT, 5, NOW, 0, 0, [[1, 4, 100], [7, 0, 100]]]),
    (codec.PING, [3, []]),
    (codec.STATUS, [3, [300, 3, 0, 0, 0], [1000210, 5], 100]),
    (codec.PAID, [2, [[1, 4, 1000210, 0]], [1000210], [1000000]]),
]
for kind, values in cases:
    payload = codec.encode(KEY, kind, 12, 99, NOW, values)
    msg = codec.decode(KEY, payload, (kind,))
    back = [msg.get(name) for name in codec.FIELDS[kind]]
    print(kind, payload[:16], len(payload), back == values)
    if back != values:
        failures.append(kind)

bad = [
    b"abc",
    b"Z" * 64 + b"{}",
    b"0" * 64 + b'{"v":1}',
    resign(b"{not json"),
    resign(b"[1,2]"),
    resign(b'{"v":1,"k":"ping","tb":1,"sq":1,"ts":1,"n":0}'),
    resign(b'{"v":1,"k":"ping","tb":1,"sq":1,"ts":1,"n":true,"hw":[]}'),
    resign(b'{"v":1,"k":"ping","tb":1,"sq":1,"ts":1,"n":1.5,"hw":[]}'),
    resign(b'{"v":1,"k":"ping","tb":1,"sq":1,"ts":1,"n":1e400,"hw":[]}'),
    resign(b'{"v":1,"k":"ping","tb":1,"sq":1,"ts":1,"n":-1,"hw":[]}'),
    resign(b'{"v":1,"k":"ping","tb":1,"sq":1,"ts":1,"n":"7","hw":[]}'),
    resign(b'{"v":1,"k":"status","tb":1,"sq":1,"ts":1,"n":0,"tot":[0,0,0,0,0],"pool":[]}'),
    resign(b'{"v":1,"k":"entry","tb":1,"sq":1,"ts":1,"n":1,"e":3,"r":1,"lt":1,"a":0,"c":0,"h":[]}'),
    resign(b'{"v":1,"k":"entry","tb":1,"sq":1,"ts":1,"n":1,"e":3,"r":1,"lt":1,"a":0,"c":0,"h":[[1,9,100]]}'),
]
for payload in bad:
    try:
        codec.decode(KEY, payload, codec.UP_KINDS + codec.DOWN_KINDS)
        print("ACCEPTED", payload[64:])
        failures.append(payload)
    except codec.LinkError as error:
        print(error.reason, "|", error.text[:60])

window = []
top, mask = 0, 0
for seq in (5, 7, 6, 6, 40, 8, 9, 41, 9):
    ok, top, mask = codec.replay_check(seq, top, mask)
    window.append(1 if ok else 0)
print("replay window", window)
if window != [1, 1, 1, 0, 1, 1, 1, 1, 0]:
    failures.append("window")
if failures:
    sys.exit(1)
