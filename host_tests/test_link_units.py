"""Link pieces without a broker: HMAC, the message codec, the replay window, the table's
state machine wired straight to an in-process controller, and the controller's ledger."""

import hashlib
import hmac
import json
import random
import sqlite3

import pytest

from firmware.link import codec, hmac256
from firmware.link.tablelink import DOWN, MISMATCH, SYNCING, UP, TableLink
from host_tests.link_support import SEEDED, SEEDED_SPLIT
from tools import link_controller
from tools.link_controller import Controller, load_keys, read_ledger

KEY = hashlib.sha256(b"unit key 1").digest()
KEY2 = hashlib.sha256(b"unit key 2").digest()
NOW = 1800000000


# ---------------------------------------------------------------- HMAC

@pytest.mark.parametrize("key,message,expected", [
    # RFC 4231 test cases 1, 2 and 6 (HMAC-SHA-256 values from the RFC)
    (b"\x0b" * 20, b"Hi There", "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
    (b"Jefe", b"what do ya want for nothing?",
     "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
    (b"\xaa" * 131, b"Test Using Larger Than Block-Size Key - Hash Key First",
     "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
])
def test_hmac_matches_rfc4231(key, message, expected):
    assert hmac256.hexdigest(key, message) == expected.encode()


def test_hmac_matches_python_hmac_on_random_inputs():
    rng = random.Random(5)
    for _ in range(50):
        key = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 150)))
        msg = bytes(rng.randrange(256) for _ in range(rng.randrange(0, 300)))
        assert hmac256.digest(key, msg) == hmac.new(key, msg, hashlib.sha256).digest()


def test_equal_and_key_checks():
    assert hmac256.equal(b"abc", b"abc") and not hmac256.equal(b"abc", b"abd")
    assert not hmac256.equal(b"abc", b"ab")
    with pytest.raises(ValueError, match="at least 16 bytes"):
        hmac256.check_key(b"short")
    with pytest.raises(ValueError, match="must be bytes"):
        hmac256.digest("text key", b"m")


# ---------------------------------------------------------------- codec

def entry(n=1, e=codec.CONTRIBUTION, amount=300, count=3, hits=()):
    return codec.encode(KEY, codec.ENTRY, 1, 7, NOW, [n, e, 5, NOW, amount, count, list(hits)])


def resign(body):
    return hmac256.hexdigest(KEY, body) + body


def test_round_trip_of_every_kind():
    cases = [
        (codec.HELLO, [3, [300, 3, 0, 0, 0], [2]]),
        (codec.ENTRY, [1, codec.HIT, 5, NOW, 0, 0, [[1, 4, 100], [7, 0, 100]]]),
        (codec.PING, [3, []]),
        (codec.STATUS, [3, [300, 3, 0, 0, 0], [1000210], 100]),
        (codec.PAID, [2, [[1, 4, 1000210, 0]], [1000210], [1000000]]),
        (codec.PAYS, [[100, 150, 500, 1000, 10000, 0, 0, 0, 10, 100]]),
    ]
    for kind, values in cases:
        payload = codec.encode(KEY, kind, 12, 99, NOW, values)
        msg = codec.decode(KEY, payload, (kind,))
        assert (msg.kind, msg.table, msg.seq, msg.ts) == (kind, 12, 99, NOW)
        assert [msg.get(name) for name in codec.FIELDS[kind]] == values
        assert payload[:64] == hmac256.hexdigest(KEY, payload[64:])


def test_forged_messages_are_refused():
    payload = entry()
    with pytest.raises(codec.LinkError) as err:
        codec.decode(KEY2, payload, codec.UP_KINDS)
    assert err.value.reason == codec.FORGED
    tampered = payload.replace(b'"a":300', b'"a":900')
    with pytest.raises(codec.LinkError) as err:
        codec.decode(KEY, tampered, codec.UP_KINDS)
    assert err.value.reason == codec.FORGED


@pytest.mark.parametrize("payload,words", [
    ("text", "not bytes"),
    (b"x" * 2000, "exceeds"),
    (b"abc", "too short"),
    (b"Z" * 64 + b"{}", "hex"),
    (resign(b"{not json"), "JSON object"),
    (resign(b"[1,2]"), "JSON object"),
    (resign(b'{"v":1,"k":"boom","tb":1,"sq":1,"ts":1}'), "kind"),
    (resign(b'{"v":1,"k":"ping","tb":1,"sq":1,"ts":1,"n":0}'), "missing"),
    (resign(b'{"v":1,"k":"ping","tb":1,"sq":1,"ts":1,"n":0,"hw":[],"x":1}'), "unknown"),
    # the right number of fields, but a common one swapped for another: named, not a KeyError
    (resign(b'{"x":1,"k":"ping","tb":1,"sq":1,"ts":1,"n":0,"hw":[]}'), "ping has no field v"),
    (resign(b'{"v":1,"k":"ping","tb":1,"x":1,"ts":1,"n":0,"hw":[]}'), "ping has no field sq"),
    (resign(b'{"v":1,"k":"ping","tb":1,"sq":1,"ts":1,"n":true,"hw":[]}'), "field n"),
    (resign(b'{"v":1,"k":"ping","tb":1,"sq":1,"ts":1,"n":1.5,"hw":[]}'), "field n"),
    (resign(b'{"v":2,"k":"ping","tb":1,"sq":1,"ts":1,"n":0,"hw":[]}'), "field v"),
    (resign(b'{"v":1,"k":"ping","tb":0,"sq":1,"ts":1,"n":0,"hw":[]}'), "field tb"),
    (resign(b'{"v":1,"k":"ping","tb":1,"sq":0,"ts":1,"n":0,"hw":[]}'), "field sq"),
    (resign(b'{"v":1,"k":"ping","tb":1,"sq":1,"ts":1,"n":0,"hw":[0]}'), "field hw"),
    (resign(b'{"v":1,"k":"entry","tb":1,"sq":1,"ts":1,"n":1,"e":3,"r":1,"lt":1,"a":0,"c":0,"h":[]}'),
     "no hits"),
    (resign(b'{"v":1,"k":"entry","tb":1,"sq":1,"ts":1,"n":1,"e":1,"r":1,"lt":1,"a":1,"c":1,'
            b'"h":[[1,1,100]]}'), "carries hits"),
    (resign(b'{"v":1,"k":"entry","tb":1,"sq":1,"ts":1,"n":1,"e":3,"r":1,"lt":1,"a":0,"c":0,'
            b'"h":[[8,1,100]]}'), "field h"),
    (resign(b'{"v":1,"k":"entry","tb":1,"sq":1,"ts":1,"n":1,"e":3,"r":1,"lt":1,"a":0,"c":0,'
            b'"h":[[1,5,100]]}'), "field h"),
    (resign(b'{"v":1,"k":"entry","tb":1,"sq":1,"ts":1,"n":1,"e":1,"r":1,"lt":1,"a":-5,"c":1,"h":[]}'),
     "field a"),
])
def test_malformed_messages_are_refused_with_the_reason(payload, words):
    with pytest.raises(codec.LinkError) as err:
        codec.decode(KEY, payload, codec.UP_KINDS)
    assert err.value.reason == codec.MALFORMED
    assert words in str(err.value)


def test_encode_refuses_bad_fields():
    with pytest.raises(ValueError, match="needs 7 fields"):
        codec.encode(KEY, codec.ENTRY, 1, 1, NOW, [1, 2])
    with pytest.raises(ValueError, match="unknown link message kind"):
        codec.encode(KEY, "nope", 1, 1, NOW, [])
    with pytest.raises(ValueError, match="field c"):
        codec.encode(KEY, codec.ENTRY, 1, 1, NOW, [1, 1, 1, NOW, 100, 8, []])


def test_replay_window_accepts_reordered_numbers_once():
    top, window = 0, 0
    accepted = []
    for seq in (1, 3, 2, 2, 3, 40, 9, 8, 41, 39):
        ok, top, window = codec.replay_check(seq, top, window)
        accepted.append(ok)
    # 9 is 31 below 40 (inside the 32-wide window); 8 is 32 below; 39 fresh inside it
    assert accepted == [True, True, True, False, False, True, True, True, True, True]
    ok, top, window = codec.replay_check(5, top, window)  # 36 below 41: too old
    assert not ok


# ---------------------------------------------------------------- table <-> controller in memory

class Wire:
    """A TableLink and an in-process Controller joined by lists instead of a broker."""

    def __init__(self, tmp_path, tables=(1,), config=SEEDED):
        self.to_controller = []
        self.to_tables = []
        self.now = 1000
        self.clock = [NOW]
        self.events = {t: [] for t in tables}
        keys = {t: hashlib.sha256(b"unit key %d" % t).digest() for t in tables}
        self.keys = keys
        self.db = str(tmp_path / "ledger.db")
        self.controller = Controller(self.db, keys, lambda t, p: self.to_tables.append((t, p)),
                                     clock_s=lambda: self.clock[0], order_window=0, broadcast_every=0,
                                     config=config)
        self.links = {t: TableLink(t, keys[t], self._sender(), lambda c, x, t=t: self.events[t].append(c))
                      for t in tables}

    def _sender(self):
        return lambda topic, payload: self.to_controller.append((topic, payload)) or True

    def step(self, ms=100, rounds=1):
        for _ in range(rounds):
            self.now += ms
            for link in self.links.values():
                link.service(self.now, self.clock[0], True)
            up, self.to_controller = self.to_controller, []
            for topic, payload in up:
                self.controller.on_message(topic, payload, self.now)
            self.controller.service(self.now)
            down, self.to_tables = self.to_tables, []
            for topic, payload in down:
                for link in self.links.values():
                    link.on_message(topic, payload, self.now)


def test_table_starts_down_reconciles_then_opens_wagering(tmp_path):
    w = Wire(tmp_path)
    link = w.links[1]
    assert link.state == DOWN and not link.wagers_open()
    assert link.sign_text(1500) == "LINK dn" and link.sign_text(2500) is None
    assert link.fault_text() == "LINK dn"
    w.step(100, 1)
    assert link.state in (SYNCING, UP)
    w.step(100, 3)
    assert link.state == UP and link.wagers_open() and link.sign_text(1500) is None
    assert link.amounts() == [1000000]
    assert w.events[1][:2] == ["link reconciling", "link up"]


def test_silence_takes_the_link_down_and_logs_it(tmp_path):
    w = Wire(tmp_path)
    link = w.links[1]
    w.step(100, 5)
    assert link.state == UP
    link.service(link.heard + link.link_timeout - 1, NOW, True)
    assert link.state == UP
    link.service(link.heard + link.link_timeout + 1, NOW, True)
    assert link.state == DOWN and not link.wagers_open() and w.events[1][-1] == "link down"
    link.service(link.heard + link.link_timeout + 2, NOW, False)
    assert link.state == DOWN


def test_power_cut_before_the_ack_resends_and_the_controller_applies_once(tmp_path):
    w = Wire(tmp_path)
    w.step(100, 5)
    link = w.links[1]
    link.contribute(1, NOW, 3, 300)
    saved = link.section()
    w.step(100, 1)  # entry applied; its ack is still on the way
    assert w.controller.totals(1)[0] == 300
    # power cut: the table comes back from its committed section, entry still unacknowledged
    back = TableLink.restore(1, w.keys[1], w._sender(), saved)
    assert back.entries and back.sq > link.sq - 1  # message numbers continue after the lease
    back.saved()    # the renewed lease committed, as the table does at its first link poll
    w.links[1] = back
    w.to_tables.clear()
    w.step(100, 20)
    assert back.state == UP and back.entries == []
    assert w.controller.totals(1) == [300, 3, 0, 0, 0] == back.totals
    assert read_ledger(w.db)["tables"][1]["last_n"] == 1


def test_ledger_disagreement_is_a_mismatch_that_keeps_wagering_closed(tmp_path):
    w = Wire(tmp_path)
    w.step(100, 5)
    link = w.links[1]
    link.contribute(1, NOW, 2, 200)
    w.step(100, 5)
    assert link.state == UP
    link.totals[0] += 1  # a table meter that no longer matches what the controller applied
    link.state = DOWN
    w.step(100, 5)
    assert link.state == MISMATCH and not link.wagers_open()
    assert link.sign_text(1000) == "LINK Err" == link.fault_text()
    assert "link mismatch" in w.events[1]
    events = read_ledger(w.db)["events"]
    assert any(e[1] == "mismatch" for e in events)


def test_hits_are_queued_until_paid_and_results_survive_a_power_cut(tmp_path):
    w = Wire(tmp_path)
    w.step(100, 5)
    link = w.links[1]
    link.contribute(1, NOW, 2, 200)
    n = link.hit(1, NOW, [[2, 1, 100]])  # a full house: 150 to 1
    assert link.awaiting == [[n, 1]]
    w.step(100, 5)
    assert link.awaiting == [] and link.totals[3:] == [15000, 1]
    back = TableLink.restore(1, w.keys[1], w._sender(), link.section())
    results = back.take_results()
    assert [(r.entry, r.round, r.rows, r.total()) for r in results] == [(n, 1, [[2, 1, 15000, 0]], 15000)]
    assert back.take_results() == [] and back.dirty


def test_bad_table_calls_change_nothing(tmp_path):
    link = TableLink(1, KEY, lambda t, p: True)
    with pytest.raises(ValueError, match="at least one wager"):
        link.contribute(1, NOW, 0, 0)
    with pytest.raises(ValueError, match="field h"):
        link.hit(1, NOW, [[9, 1, 100]])
    with pytest.raises(ValueError, match="table number"):
        TableLink(0, KEY, None)
    with pytest.raises(ValueError, match="not a version 1 link state"):
        TableLink.restore(1, KEY, None, b"[2]")
    assert link.last_n == 0 and link.entries == [] and link.totals == [0, 0, 0, 0, 0]
    for i in range(32):
        link.contribute(i + 1, NOW, 1, 100)
    with pytest.raises(ValueError, match="queue full"):
        link.contribute(99, NOW, 1, 100)
    assert link.last_n == 32


def test_table_rejects_forged_replayed_stale_and_malformed_controller_messages(tmp_path):
    w = Wire(tmp_path)
    w.step(100, 5)
    link = w.links[1]
    pool = list(link.amounts())
    base = link.down_sq + 1000
    good = codec.encode(w.keys[1], codec.STATUS, 1, base, NOW, [0, [0, 0, 0, 0, 0], pool, 100])
    assert link.on_message(link.topic_down, good, w.now)
    cases = [
        (codec.encode(KEY2, codec.STATUS, 1, base + 1, NOW, [0, [0, 0, 0, 0, 0], [5], 100]), "forged"),
        (good, "replayed"),
        (codec.encode(w.keys[1], codec.STATUS, 1, base + 2, NOW - 3600, [0, [0, 0, 0, 0, 0], [5], 100]),
         "stale"),
        (b"0" * 64 + b"{}", "forged"),
        (hmac256.hexdigest(w.keys[1], b"[]") + b"[]", "malformed"),
        (codec.encode(w.keys[1], codec.PING, 1, base + 3, NOW, [0, []]), "malformed"),
    ]
    for payload, reason in cases:
        count = link.rejects.get(reason, 0)
        before = (link.state, list(link.amounts()), link.down_sq, link.acked)
        assert not link.on_message(link.topic_down, payload, w.now)
        assert (link.state, list(link.amounts()), link.down_sq, link.acked) == before
        assert link.rejects[reason] == count + 1
    assert link.rejects == {"forged": 2, "replayed": 1, "stale": 1, "malformed": 2}
    assert w.events[1].count("link reject") == 6


def test_controller_refuses_unknown_tables_and_notes_conflicting_resends(tmp_path):
    w = Wire(tmp_path, tables=(1, 2))
    w.step(100, 5)
    stranger = codec.encode(KEY, codec.PING, 7, 1, NOW, [0, []])
    assert not w.controller.on_message("jackpot/link/7/up", stranger, w.now)
    assert not w.controller.on_message("jackpot/link/x/up", stranger, w.now)
    assert w.controller.rejects == {"unknown table": 1, "malformed": 1}
    # a table number no table can have, in the topic: refused and logged, the controller goes
    # on (SQLite cannot store a number this large: it ended the controller's process)
    for number in ("99999999999999999999", "0", "10000", "0001", "\u00b2", "1\u0663"):
        assert not w.controller.on_message("jackpot/link/%s/up" % number, stranger, w.now)
    assert w.controller.rejects == {"unknown table": 1, "malformed": 7}
    assert [e[1] for e in read_ledger(w.db)["events"]].count("reject malformed") == 7
    link = w.links[1]
    link.contribute(1, NOW, 1, 100)
    w.step(100, 3)
    # the same entry number with other contents (a bug or an attack with the key): not applied
    other = codec.encode(w.keys[1], codec.ENTRY, 1, link.sq + 5, NOW, [1, 1, 1, NOW, 700, 7, []])
    assert w.controller.on_message("jackpot/link/1/up", other, w.now)
    assert w.controller.totals(1) == [100, 1, 0, 0, 0]
    assert any(e[1] == "conflict" for e in read_ledger(w.db)["events"])


def test_controller_restart_keeps_down_link_numbers_increasing(tmp_path):
    w = Wire(tmp_path)
    w.step(100, 5)
    link = w.links[1]
    top = link.down_sq
    w.controller.close()
    w.controller = Controller(w.db, w.keys, lambda t, p: w.to_tables.append((t, p)),
                              clock_s=lambda: w.clock[0], order_window=0, broadcast_every=0)
    w.step(100, 3)
    assert link.state == UP and link.down_sq > top and link.rejects == {}


def test_load_keys_names_bad_entries(tmp_path):
    path = tmp_path / "keys.json"
    path.write_text(json.dumps({"1": "00" * 16}))
    assert load_keys(str(path)) == {1: bytes(16)}
    path.write_text(json.dumps({"1": "00" * 4}))
    with pytest.raises(ValueError, match="at least 16 bytes"):
        load_keys(str(path))
    path.write_text(json.dumps({"one": "00" * 16}))
    with pytest.raises(ValueError, match="table 'one'"):
        load_keys(str(path))
    # the same table twice under two spellings: one of the keys would be dropped unseen
    path.write_text(json.dumps({"1": "00" * 16, "01": "11" * 16}))
    with pytest.raises(ValueError, match="table '01' is given twice"):
        load_keys(str(path))
    path.write_text('{"1": "%s", "1": "%s"}' % ("00" * 16, "11" * 16))
    with pytest.raises(ValueError, match="table '1' is given twice"):
        load_keys(str(path))
    path.write_text('[["1", "%s"]]' % ("00" * 16))
    with pytest.raises(ValueError, match="expected a JSON object"):
        load_keys(str(path))


def test_split_pools_reach_every_table_and_a_straight_flush_pays_from_the_major(tmp_path):
    # Minor 20% / Major 50% of each wager, resets 1,000 and 10,000 dollars (config.py examples)
    w = Wire(tmp_path, tables=(1, 2), config=SEEDED_SPLIT)
    w.step(100, 5)
    assert w.links[1].amounts() == w.links[2].amounts() == [100000, 1000000]
    w.links[1].contribute(1, NOW, 7, 700)
    w.links[2].contribute(1, NOW, 3, 300)
    w.step(100, 5)
    assert w.links[2].amounts() == [100000 + 200, 1000000 + 500]
    w.links[2].hit(2, NOW, [[6, 3, 100]])  # straight flush: 1,000 to 1 or 10% of the Major
    w.step(100, 5)
    result = w.links[2].take_results()[0]
    # the greater of 1,000 x 100 = 100,000 and 10% of 1,000,500 = 100,050 [11.9]
    assert result.rows == [[6, 3, 100050, 0]]
    assert result.before == [100200, 1000500] and result.after == [100200, 900450]
    assert w.links[1].amounts() == [100200, 900450]
    ledger = read_ledger(w.db)
    assert ledger["pool_object"].audit(1000) == []
    with pytest.raises(ValueError, match="configuration differs"):
        Controller(w.db, w.keys, lambda t, p: None, config={"split": False})


def test_a_controller_that_forgot_acknowledged_entries_is_a_mismatch(tmp_path):
    import shutil

    w = Wire(tmp_path)
    w.step(100, 5)

    def reopen():
        w.clock[0] += 5  # time passes between a stop and a start
        w.controller = Controller(w.db, w.keys, lambda t, p: w.to_tables.append((t, p)),
                                  clock_s=lambda: w.clock[0], order_window=0, broadcast_every=0)

    w.controller.close()  # a backup of the ledger taken now, before the table's first entry
    shutil.copy(w.db, str(tmp_path / "backup.db"))
    reopen()
    link = w.links[1]
    link.contribute(1, NOW, 2, 200)
    w.step(100, 5)
    assert link.state == UP and link.acked == 1
    w.controller.close()  # the ledger is restored from that backup
    for suffix in ("-wal", "-shm"):
        if (tmp_path / ("ledger.db" + suffix)).exists():
            (tmp_path / ("ledger.db" + suffix)).unlink()
    shutil.copy(str(tmp_path / "backup.db"), w.db)
    reopen()
    w.step(100, 15)
    assert link.state == MISMATCH and not link.wagers_open()
    assert "lost entries" in link.mismatch_text
    link.clear_mismatch()
    assert link.state == DOWN


def test_a_late_status_neither_rolls_the_meter_back_nor_raises_a_mismatch(tmp_path):
    w = Wire(tmp_path)
    w.step(100, 5)
    link = w.links[1]
    link.contribute(1, NOW, 2, 200)
    w.step(100, 3)
    base = link.down_sq
    older = codec.encode(w.keys[1], codec.STATUS, 1, base + 1, NOW, [0, [0, 0, 0, 0, 0], [1000000], 100])
    newer = codec.encode(w.keys[1], codec.STATUS, 1, base + 2, NOW, [1, [200, 2, 0, 0, 0], [1000140], 100])
    assert link.on_message(link.topic_down, newer, w.now)
    assert link.on_message(link.topic_down, older, w.now)  # accepted once (inside the window)...
    assert link.state == UP and link.amounts() == [1000140] and link.acked == 1  # ...but not applied
    assert not link.on_message(link.topic_down, older, w.now)  # and a second copy is a replay


def test_sign_texts_fit_the_seven_segment_meter_line():
    from firmware.drivers import meter_sign
    from firmware.link import tablelink

    for text in (tablelink.SIGN_LINK_DOWN, tablelink.SIGN_LINK_ERROR):
        assert len(meter_sign.encode_text(text)) == meter_sign._DIGITS  # ValueError if it does not fit


@pytest.mark.parametrize("content,words", [
    (None, "No such file"),
    ('{"1": "zz"}', "table '1'"),
    ("{not json", "Expecting property name"),
])
def test_the_controller_names_a_bad_keys_file_and_stops_before_it_starts(tmp_path, capsys, content,
                                                                          words):
    keys = tmp_path / "keys.json"
    if content is not None:
        keys.write_text(content)
    with pytest.raises(SystemExit) as stop:
        link_controller.main(["--db", str(tmp_path / "l.db"), "--keys", str(keys)])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "--keys %s" % keys in err and words in err


@pytest.mark.parametrize("content,words", [
    (None, "No such file"),
    ("{not json", "Expecting property name"),
    ('{"wager": -1}', "config wager: -1 is not an integer"),
    ('{"envy": {"royal_flush": 50000}}', "config envy: the envy bonus is a standalone table's"),
    ('[1]', "expected a JSON object of configuration keys"),       # was a traceback
    ('null', "expected a JSON object of configuration keys"),      # was the defaults, unsaid
])
def test_the_controller_names_a_bad_config_file_and_stops_before_it_starts(tmp_path, capsys,
                                                                            content, words):
    keys = tmp_path / "keys.json"
    keys.write_text('{"1": "%s"}' % ("00" * 32))
    config = tmp_path / "pool.json"
    if content is not None:
        config.write_text(content)
    with pytest.raises(SystemExit) as stop:
        link_controller.main(["--db", str(tmp_path / "l.db"), "--keys", str(keys),
                              "--config", str(config)])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "--config %s" % config in err and words in err
    assert not (tmp_path / "l.db").exists()          # nothing started


class RoyalSender:
    """Tables 1..n, each with its own key, that send the controller c a royal: a one-wager
    contribution, then the hit entry, locked `locked` seconds from NOW, arriving at `now`."""

    def __init__(self, tables):
        self.keys = {t: hashlib.sha256(b"k%d" % t).digest() for t in tables}
        self.seq = dict.fromkeys(tables, 0)
        self.c = None

    def royal(self, table, locked, now):
        for n, kind, amount, count, rows in ((1, codec.CONTRIBUTION, 100, 1, []),
                                              (2, codec.HIT, 0, 0, [[1, 4, 100]])):
            self.seq[table] += 1
            payload = codec.encode(self.keys[table], codec.ENTRY, table, self.seq[table], NOW,
                                   [n, kind, 1, NOW + locked, amount, count, rows])
            assert self.c.on_message("jackpot/link/%d/up" % table, payload, now)


def test_a_hit_is_paid_only_after_its_own_ordering_window(tmp_path):
    # rules.md 11.11: hits at linked tables are paid in the order the hands were dealt.  A
    # royal locked at -10 s arrives at 0 ms; one locked at -5 s at 900 ms; one locked at -7 s
    # at 1,100 ms, inside the second one's window: the order is -10, -7, -5.
    tables = RoyalSender((1, 2, 3))
    c = tables.c = Controller(str(tmp_path / "l.db"), tables.keys, lambda t, p: None,
                              clock_s=lambda: NOW, order_window=1000)
    royal = tables.royal
    royal(1, -10, 0)
    c.service(0)
    royal(2, -5, 900)
    for now in range(900, 1100, 50):
        c.service(now)
    royal(3, -7, 1100)
    for now in range(1100, 3000, 50):
        c.service(now)
    paid = sorted(c.ledger()["paid"], key=lambda row: row[5])
    assert [(row[0], row[3] - NOW) for row in paid] == [(1, -10), (3, -7), (2, -5)]


def test_a_table_asking_for_its_payouts_gets_them_before_the_status_with_the_pool_now(tmp_path):
    # a paid message carries the pool as it was after that payment; the status, sent last,
    # leaves the table showing the pool as it is
    key = hashlib.sha256(b"k1").digest()
    sent = []
    c = Controller(str(tmp_path / "l.db"), {1: key}, lambda t, p: sent.append(p), clock_s=lambda: NOW,
                   order_window=0)
    for sq, n, kind, amount, count, rows in ((1, 1, codec.CONTRIBUTION, 100, 1, []),
                                             (2, 2, codec.HIT, 0, 0, [[1, 2, 100]])):
        payload = codec.encode(key, codec.ENTRY, 1, sq, NOW, [n, kind, 1, NOW, amount, count, rows])
        assert c.on_message("jackpot/link/1/up", payload, 0)
    c.service(0)                                   # paid (order window 0)
    sent.clear()
    ping = codec.encode(key, codec.PING, 1, 3, NOW, [2, [2]])   # "I still wait for entry 2"
    assert c.on_message("jackpot/link/1/up", ping, 10)
    kinds = [json.loads(p[64:])["k"] for p in sent]
    assert kinds == [codec.PAID, codec.STATUS]


def test_a_flood_of_rejects_is_pruned_to_the_newest_and_keeps_every_other_event(tmp_path, monkeypatch):
    monkeypatch.setattr(link_controller, "MAX_EVENTS_KEPT", 50)
    monkeypatch.setattr(link_controller, "_PRUNE_EVERY", 10)
    w = Wire(tmp_path, tables=(1,))
    w.step(100, 5)
    stranger = codec.encode(KEY, codec.PING, 7, 1, NOW, [0, []])
    for _ in range(200):
        assert not w.controller.on_message("jackpot/link/7/up", stranger, w.now)
    events = read_ledger(w.db)["events"]
    kinds = [e[1] for e in events]
    assert kinds.count("reject unknown table") <= 50 + 10
    assert "start" in kinds                       # not a reject: kept
    assert w.controller.rejects == {"unknown table": 200}   # every one still counted


def test_a_hit_held_for_an_earlier_locked_one_does_not_flood_the_tables_with_status(tmp_path):
    # while the first hit in lock order waits for its window, a later one's window has passed:
    # nothing can be paid, and the pool goes out no oftener than broadcast_every
    tables = RoyalSender((1, 2))
    sent = []
    c = tables.c = Controller(str(tmp_path / "l.db"), tables.keys, lambda t, p: sent.append(p),
                              clock_s=lambda: NOW, order_window=1000, broadcast_every=1000)
    royal = tables.royal
    royal(1, -5, 0)              # due at 1,000 ms
    royal(2, -9, 900)            # locked earlier: due at 1,900 ms, and table 1's waits for it
    c.service(950)
    sent.clear()
    for now in range(1000, 1900, 2):
        c.service(now)
    statuses = [p for p in sent if json.loads(p[64:])["k"] == codec.STATUS]
    assert len(statuses) <= 2 * 2                  # at most one broadcast a second, 2 tables
    assert c.ledger()["paid"] == []
    for now in range(1900, 2100, 2):
        c.service(now)
    assert [row[0] for row in sorted(c.ledger()["paid"], key=lambda row: row[5])] == [2, 1]


def test_a_claim_for_a_hand_the_linked_pay_table_does_not_pay_is_refused_not_paid_nothing(tmp_path):
    # the table's pay table pays a flush, the controller's (flush 0 to 1 and 0%) does not: the
    # claim is refused for the supervisor (empty payout, "hit refused" naming the hand), not
    # "paid" $0.00 and counted as a jackpot hit on both ledgers
    w = Wire(tmp_path, config={"pay": {"flush": [0, 0]}})
    w.step(100, 5)
    link = w.links[1]
    link.contribute(1, NOW, 1, 100)
    n = link.hit(1, NOW, [[3, 0, 100]])
    w.step(100, 5)
    result = link.take_results()[0]
    assert (result.entry, result.rows) == (n, [])
    assert link.totals[3:] == [0, 0] and w.controller.totals(1)[3:] == [0, 0]
    refused = [e[2] for e in read_ledger(w.db)["events"] if e[1] == "hit refused"]
    assert len(refused) == 1 and "Flush" in refused[0] and "seat 3" in refused[0]
    assert link.state == UP


def test_a_hand_the_linked_pay_table_does_not_pay_is_refused_alone_and_the_other_hands_are_paid(
        tmp_path):
    # one round: a royal at seat 1 and a flush at seat 3, which the link's pay table does not
    # pay: the royal is paid, the flush refused with its reason (a [seat, hand, why] row, the
    # controller's "hit refused" event), not the whole claim (nobody paid) as before
    w = Wire(tmp_path, config={"main": {"reset": 1000000}, "pay": {"flush": [0, 0]}})
    w.links[1].paytable = w.controller.pays()   # (a table that takes refused rows says so)
    w.step(100, 5)
    link = w.links[1]
    link.contribute(1, NOW, 2, 200)
    n = link.hit(1, NOW, [[1, 4, 100], [3, 0, 100]])
    w.step(100, 5)
    result = link.take_results()[0]
    assert result.entry == n and result.rows[0][:2] == [1, 4] and result.rows[0][2] > 1000000
    assert result.rows[1:] == [[3, 0, codec.REFUSED_HAND]]
    assert link.totals[3:] == [result.rows[0][2], 1] == w.controller.totals(1)[3:]
    assert result.total() == result.rows[0][2] and result.hits() == 1
    refused = [e[2] for e in read_ledger(w.db)["events"] if e[1] == "hit refused"]
    assert len(refused) == 1 and "seat 3" in refused[0] and "Flush" in refused[0]
    assert "entry %d round 1" % n in refused[0]
    assert read_ledger(w.db)["paid"][0][6]["refused"] == [[3, 0, codec.REFUSED_HAND]]
    assert link.state == UP and w.controller.ledger()["audit"] == []
    # the refused row has a form of its own, and a reason in range (a table before it: malformed)
    for bad in (b"[[3,0,0]]", b"[[3,0,3]]", b"[[3,0]]"):
        body = (b'{"v":1,"k":"paid","tb":1,"sq":5,"ts":1,"n":1,"pay":' + bad
                + b',"pb":[1],"pa":[1]}')
        with pytest.raises(codec.LinkError, match="field pay"):
            codec.decode(KEY, resign(body), codec.DOWN_KINDS)


def test_pay_tables_are_compared_only_between_peers_that_send_them(tmp_path, monkeypatch):
    # docs/link.md: a table that gives its pay table is not UP before the link's answer agrees;
    # a table before the pays message never gets one (the controller only answers them), and a
    # controller before it rejects the table's as malformed: that table stays closed
    w = Wire(tmp_path, tables=(1, 2))
    own = [100, 150, 500, 1000, 10000, 0, 0, 0, 10, 100]
    w.links[1].paytable = own
    w.step(100, 5)
    assert w.links[1].state == UP and w.links[1].link_pays == own
    assert w.links[2].state == UP and w.links[2].link_pays is None     # asked nothing, told nothing
    monkeypatch.setattr(codec, "UP_KINDS", (codec.HELLO, codec.ENTRY, codec.PING))
    (tmp_path / "old").mkdir()
    w3 = Wire(tmp_path / "old", tables=(3,))
    w3.links[3].paytable = own
    w3.step(100, 30)                    # 3 s: a hello and a pays each second
    assert w3.links[3].state == SYNCING and not w3.links[3].wagers_open()
    assert w3.controller.rejects == {codec.MALFORMED: 3}


def test_a_table_kept_syncing_by_an_older_controller_says_why(tmp_path, monkeypatch):
    # a controller before the pays message keeps a table that sends one SYNCING with its
    # jackpot closed (above): the table's link_problem (service status, audit menu) said
    # nothing, so a technician saw only LINK dn; it now names the missing pay table, and
    # says nothing once the link is UP
    own = [100, 150, 500, 1000, 10000, 0, 0, 0, 10, 100]
    monkeypatch.setattr(codec, "UP_KINDS", (codec.HELLO, codec.ENTRY, codec.PING))
    w = Wire(tmp_path, tables=(3,))
    w.links[3].paytable = own
    w.step(100, 30)
    assert w.links[3].state == SYNCING
    assert w.links[3].mismatch_text == ("no pay table from the link yet (an older link "
                                        "controller sends none)")
    monkeypatch.undo()                  # the controller updated: it answers the pays message
    w.step(100, 30)
    assert w.links[3].state == UP and w.links[3].mismatch_text == ""


def test_the_controller_logs_every_disagreement_the_table_finds_once_with_both_figures(tmp_path):
    # docs/link.md: ledgers that disagree are a MISMATCH and both sides log the figures; a
    # table in MISMATCH says hello every second, which must not add an event every second
    w = Wire(tmp_path)
    w.step(100, 5)
    link = w.links[1]
    link.contribute(1, NOW, 2, 200)
    w.step(100, 5)

    def mismatches():
        return [e[2] for e in read_ledger(w.db)["events"] if e[1] == "mismatch"]

    link.totals[3] += 500  # the table's paid meter no longer matches the controller's
    link.state = DOWN
    w.step(100, 50)
    assert link.state == MISMATCH and "payouts differ" in link.mismatch_text
    assert mismatches() == ["payouts differ: table totals [200, 2, 0, 500, 0], ledger [200, 2, 0, 0, 0]"]
    link.totals[3] -= 500
    link.totals[0] += 1  # now the wagers differ: a new disagreement, logged once more
    link.clear_mismatch()
    w.step(100, 50)
    assert link.state == MISMATCH
    assert mismatches()[1:] == ["table totals [201, 2, 0, 0, 0], ledger [200, 2, 0, 0, 0]"]
    link.last_n = 0  # the table lost its entry: the ledger has one the table never made
    link.totals[0] -= 1
    link.clear_mismatch()
    w.step(100, 20)
    assert mismatches()[2:] == ["ledger applied entry 1, the table made only 0"]


def test_a_hit_of_a_table_taken_off_the_keys_file_is_paid_without_stopping_the_controller(tmp_path):
    # the controller stopped inside a hit's ordering window; the table was then taken off
    # keys.json: the restarted controller pays the hit in its ledger (the player won it) and
    # goes on serving the other tables, instead of ending on a KeyError with nobody to sign for
    tables = RoyalSender((1, 2))
    db = str(tmp_path / "l.db")
    c = tables.c = Controller(db, tables.keys, lambda t, p: None, clock_s=lambda: NOW,
                              order_window=60000)
    tables.royal(2, -3, 0)
    c.close()
    sent = []
    c = Controller(db, {1: tables.keys[1]}, lambda t, p: sent.append(t), clock_s=lambda: NOW,
                   order_window=0)
    c.service(link_controller.now_ms() + 10)
    assert [(row[0], row[6]["rows"][0][:2]) for row in read_ledger(db)["paid"]] == [(2, [1, 4])]
    assert "jackpot/link/2/down" not in sent and "jackpot/link/1/down" in sent


def test_both_sides_judge_two_ledgers_alike():
    # codec.compare_totals is the one rule the table (status) and the controller (hello) use:
    # totals [wagered, wagers, reversed, paid, hits]
    table = [200, 2, 0, 500, 1]
    assert codec.compare_totals(table, [200, 2, 0, 500, 1], False) == codec.AGREE
    assert codec.compare_totals(table, [300, 3, 0, 500, 1], False) == codec.TOTALS_DIFFER
    assert codec.compare_totals(table, [200, 2, 100, 500, 1], False) == codec.TOTALS_DIFFER
    assert codec.compare_totals(table, [200, 2, 0, 400, 1], False) == codec.PAYOUTS_DIFFER
    assert codec.compare_totals(table, [200, 2, 0, 0, 0], False) == codec.PAYOUTS_DIFFER
    # the link paid one more hit: on its way if the table waits for a payout, else unclaimed
    assert codec.compare_totals(table, [200, 2, 0, 900, 2], True) == codec.PAYOUT_COMING
    assert codec.compare_totals(table, [200, 2, 0, 900, 2], False) == codec.UNCLAIMED_PAID


def test_no_message_number_is_sent_beyond_the_last_committed_lease():
    # a link whose commits keep failing (a store fault, the table in RAM ERROR) went on
    # numbering past its committed lease; after a restart those numbers came again and the
    # controller refused them as replayed.  It now stops sending at the committed lease and
    # goes on once the renewed lease is committed.
    sent = []
    link = TableLink(1, KEY, lambda topic, payload: sent.append(json.loads(payload[64:])["sq"]) or True)
    link.saved()                                # the new link's lease (1024) committed
    now = 0
    for _ in range(3000):
        now += 1000
        link.service(now, NOW, True)            # a hello a second; nothing commits it again
    assert link.dirty and sent == list(range(1, 1024))
    link.saved()                                # the renewed lease committed: numbering goes on
    link.service(now + 1000, NOW, True)
    assert sent[-1] == 1024 and link.sq <= link.sq_floor
    # a link restored from its section starts at the committed lease, above every number sent
    back = TableLink.restore(1, KEY, lambda t, p: sent.append(json.loads(p[64:])["sq"]) or True,
                             link.section())
    # ... and sends nothing until its renewed lease is committed: a cut before that would
    # send the same numbers again
    count = len(sent)
    back.service(0, NOW, True)
    assert len(sent) == count and back.dirty
    back.saved()
    back.service(1000, NOW, True)
    assert len(sent) > count and sent[-1] > 1024


@pytest.mark.parametrize("damage,words", [
    ("garbage", "file is not a database"),
    ("truncated", "malformed"),
    ("pool", "stored pool state"),
    ("no pool", "has no 'pool'"),
    ("no config", "has entries but no configuration"),
    ("config", "configuration differs"),
])
def test_a_damaged_ledger_is_named_and_left_as_it_was(tmp_path, capsys, damage, words):
    # a ledger cut short, overwritten or edited ended the controller on a Python traceback
    # (or, with its configuration row gone, started a new pool over the tables' rows); it is
    # now refused with the file and what is wrong, and not written to
    tables = RoyalSender((1,))
    keys = tmp_path / "keys.json"
    keys.write_text('{"1": "%s"}' % tables.keys[1].hex())
    db = str(tmp_path / "l.db")
    c = tables.c = Controller(db, tables.keys, lambda t, p: None, clock_s=lambda: NOW)
    tables.royal(1, -3, 0)
    c.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    if damage == "pool":
        c.db.execute("UPDATE meta SET value='{\"value\": 1}' WHERE name='pool'")
    elif damage == "no pool":
        c.db.execute("DELETE FROM meta WHERE name='pool'")
    elif damage == "no config":
        c.db.execute("DELETE FROM meta WHERE name='config'")
    c.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    c.close()
    data = open(db, "rb").read()
    if damage == "garbage":
        data = b"x" * len(data)
    elif damage == "truncated":
        data = data[:len(data) // 2]
    with open(db, "wb") as f:
        f.write(data)
    argv = ["--db", db, "--keys", str(keys), "--port", "1", "--duration", "0.01"]
    if damage == "config":
        (tmp_path / "pool.json").write_text('{"wager": 500}')
        argv += ["--config", str(tmp_path / "pool.json")]
    assert link_controller.main(argv) == 2
    err = capsys.readouterr().err
    assert "refused: the ledger %s" % db in err and words in err
    assert open(db, "rb").read() == data


def test_the_ledger_report_keeps_a_table_taken_off_the_keys_file_and_checks_the_pool_by_it(tmp_path):
    # --ledger-out listed only the tables in keys.json: a table taken off it vanished from
    # the report while its wagers stayed in the pool, so the tables' totals no longer added
    # up to the pool's meters.  Every table of the ledger is listed (as read_ledger does) and
    # the audit checks the pool's net wagers against all of them.
    tables = RoyalSender((1, 2))
    db = str(tmp_path / "l.db")
    c = tables.c = Controller(db, tables.keys, lambda t, p: None, clock_s=lambda: NOW)
    tables.royal(1, -3, 0)
    tables.royal(2, -2, 0)
    c.close()
    c = Controller(db, {1: tables.keys[1]}, lambda t, p: None, clock_s=lambda: NOW)
    report = c.ledger()
    assert sorted(report["tables"]) == [1, 2] == sorted(read_ledger(db)["tables"])
    assert report["tables"][2] == read_ledger(db)["tables"][2]
    assert report["audit"] == []
    c.db.execute("UPDATE tables SET wagers=wagers+1 WHERE tb=2")
    assert any("tables'" in p for p in c.ledger()["audit"])


@pytest.mark.parametrize("option,value,words", [
    ("--order-window", "-5000", "--order-window -5000 is not 0..3600000 ms"),
    ("--order-window", "999999999", "--order-window 999999999 is not 0..3600000 ms"),
    ("--broadcast", "-1", "--broadcast -1 is not 0..3600000 ms"),
    ("--commit-delay", "-1", "--commit-delay -1.0 is not 0..3600000 ms"),
    ("--port", "70000", "--port 70000 is not 1..65535"),
])
def test_the_controller_names_an_option_out_of_range_and_stops_before_it_starts(tmp_path, capsys,
                                                                                option, value, words):
    # a negative --order-window paid every hit at once (rules.md 11.11's order lost), one past
    # the tick range never; a negative --commit-delay ended the controller inside its first
    # transaction; --port 70000 was reported as "connection refused"
    keys = tmp_path / "keys.json"
    keys.write_text('{"1": "%s"}' % ("00" * 32))
    with pytest.raises(SystemExit) as stop:
        link_controller.main(["--db", str(tmp_path / "l.db"), "--keys", str(keys), option, value])
    assert stop.value.code == 2
    assert words in capsys.readouterr().err
    assert not (tmp_path / "l.db").exists()


def test_a_ledger_in_a_folder_that_does_not_exist_is_named_not_a_traceback(tmp_path, capsys):
    keys = tmp_path / "keys.json"
    keys.write_text('{"1": "%s"}' % ("00" * 32))
    db = str(tmp_path / "no such folder" / "l.db")
    assert link_controller.main(["--db", db, "--keys", str(keys), "--port", "1"]) == 2
    err = capsys.readouterr().err
    assert "refused: the ledger %s" % db in err and "No such file" in err


def test_a_sqlite_file_that_is_not_a_link_ledger_is_refused_and_left_as_it_was(tmp_path, capsys):
    # a wrong --db (another program's SQLite file) was given the ledger's tables and a new pool
    keys = tmp_path / "keys.json"
    keys.write_text('{"1": "%s"}' % ("00" * 32))
    db = str(tmp_path / "other.db")
    other = sqlite3.connect(db)
    other.execute("CREATE TABLE notes (t TEXT)")
    other.commit()
    other.close()
    before = open(db, "rb").read()
    assert link_controller.main(["--db", db, "--keys", str(keys), "--port", "1",
                                 "--duration", "0.01"]) == 2
    err = capsys.readouterr().err
    assert "refused: the ledger %s" % db in err and "not a link controller's ledger" in err
    assert "notes" in err and open(db, "rb").read() == before


def test_a_linked_pool_past_what_a_message_can_carry_does_not_stop_the_controller(tmp_path):
    # The link's money fields are 30-bit (codec.MAX_MONEY, $10,737,418.23).  A pool without a
    # ceiling that grew past it made every status message fail to encode: the controller
    # stopped, and stopped again at every restart.  The ledger keeps the pool's true value;
    # the tables are sent the most a message can carry, as their 8-digit signs show anyway.
    start = codec.MAX_MONEY - 1                  # the largest seed a pool may have, less a cent
    w = Wire(tmp_path, config={"main": {"reset": start}})
    w.step(100, 5)
    link = w.links[1]
    assert w.controller.pool.value[0] == start
    for r in range(1, 26):                       # 25 rounds of 7 wagers: 70% of $7.00 each
        link.contribute(r, NOW, 7, 700)
        w.step(100, 2)
    assert link.state == UP and link.entries == []
    assert w.controller.pool.value[0] == start + 25 * 490    # the ledger keeps its own value
    assert link.amounts() == [codec.MAX_MONEY]
    # a hit paid from such a pool still reaches the table (its pool before and after are sent
    # at the most a message carries)
    n = link.hit(26, NOW, [[3, 0, 100]])         # seat 3, a flush: 100 to 1
    w.step(100, 5)
    assert link.awaiting == [] and link.totals[3:] == [10000, 1], link.awaiting
    held = w.controller.pool.value[0]
    assert n and held > codec.MAX_MONEY
    w.controller.close()
    sent = []
    again = Controller(w.db, w.keys, lambda t, p: sent.append(p), clock_s=lambda: NOW)
    again.send_status(1)                         # a restart comes back up and answers
    assert again.pool.value[0] == held and len(sent) == 1


def test_a_ledger_report_that_cannot_be_written_is_refused_before_the_controller_starts(tmp_path, capsys):
    # --ledger-out in a folder that does not exist had ended the controller's clean stop in a
    # NotADirectoryError traceback, the report lost, after the whole run
    keys = tmp_path / "keys.json"
    keys.write_text('{"1": "%s"}' % ("00" * 32))
    out = tmp_path / "keys.json" / "ledger.json"
    with pytest.raises(SystemExit) as stop:
        link_controller.main(["--db", str(tmp_path / "l.db"), "--keys", str(keys), "--port", "1",
                              "--duration", "0.01", "--ledger-out", str(out)])
    assert stop.value.code == 2
    assert "--ledger-out %s: no folder %s to write it in" % (out, out.parent) in capsys.readouterr().err
    assert not (tmp_path / "l.db").exists()

def test_a_royal_paying_a_pool_past_what_a_money_field_carries_reaches_the_table(tmp_path):
    # A royal pays the whole pool; with the pool above codec.MAX_MONEY the payment was
    # committed, then its `paid` message failed to encode: the controller stopped, and
    # stopped again at every restart as soon as the table asked for that payout (hw)
    start = codec.MAX_MONEY - 1
    w = Wire(tmp_path, config={"main": {"reset": start}})
    w.step(100, 5)
    link = w.links[1]
    link.contribute(1, NOW, 7, 700)
    w.step(100, 2)
    pool = w.controller.pool.value[0]
    assert pool > codec.MAX_MONEY
    n = link.hit(2, NOW, [[3, 4, 100]])                 # seat 3, a royal: 100% of the pool
    w.step(100, 5)
    assert link.awaiting == [] and link.totals[3:] == [pool, 1]
    (result,) = link.take_results()
    assert result.rows == [[3, 4, pool, 0]] and result.after == [start]
    assert link.state == UP and w.controller.totals(1)[3:] == [pool, 1]
    w.controller.close()
    sent = []
    again = Controller(w.db, w.keys, lambda t, p: sent.append(p), clock_s=lambda: NOW)
    ping = codec.encode(w.keys[1], codec.PING, 1, link.sq + 1, NOW, [n, [n]])
    assert again.on_message("jackpot/link/1/up", ping, 10)     # the payout asked for again
    paid = codec.decode(w.keys[1], sent[0], (codec.PAID,))
    assert paid.get("pay") == [[3, 4, pool, 0]]


@pytest.mark.parametrize("host", ["no-such-broker.invalid", "a..b"])
def test_a_broker_name_that_does_not_resolve_is_named_not_a_traceback(tmp_path, capsys, host):
    # it stopped with socket.gaierror "Name or service not known" (or a UnicodeError) and a
    # traceback that did not say which name
    keys = tmp_path / "keys.json"
    keys.write_text('{"1": "%s"}' % ("00" * 32))
    argv = ["--db", str(tmp_path / "l.db"), "--keys", str(keys), "--host", host]
    assert link_controller.main(argv) == 2
    err = capsys.readouterr().err
    assert "refused: the broker %s port 1883: " % host in err and "Traceback" not in err


def test_a_hand_refused_alone_is_logged_once_though_the_payout_commit_failed(tmp_path):
    # the controller's "hit refused" event is the payout's: logged in its transaction, not
    # before it, so a commit that failed (a full disk, a process killed mid-commit) and was
    # made again does not log the refusal twice for the supervisor
    w = Wire(tmp_path, config={"main": {"reset": 1000000}, "pay": {"flush": [0, 0]}})
    w.step(100, 5)
    link = w.links[1]
    link.contribute(1, NOW, 2, 200)
    link.hit(1, NOW, [[1, 4, 100], [3, 0, 100]])
    failed = []

    def fail_once(what):
        if what.startswith("pay") and not failed:
            failed.append(what)
            raise sqlite3.OperationalError("disk I/O error")

    w.controller._pause = fail_once
    with pytest.raises(sqlite3.OperationalError):
        w.step(100, 5)
    assert failed and read_ledger(w.db)["paid"] == []
    w.step(100, 5)
    assert len(read_ledger(w.db)["paid"]) == 1
    refused = [e[2] for e in read_ledger(w.db)["events"] if e[1] == "hit refused"]
    assert len(refused) == 1 and "seat 3" in refused[0]


def test_a_table_before_the_refused_rows_is_paid_its_round_s_other_hands(tmp_path, monkeypatch):
    # a table on firmware before the [seat, hand, why] rows rejects a paid carrying one as
    # malformed and keeps the whole hit unpaid (its royal too, which the link's pool has paid
    # out): such a table, which never sends its pay table (pays came with those rows), is sent
    # the paid hands alone, and a table that has sent one is remembered across a restart
    config = {"main": {"reset": 1000000}, "pay": {"flush": [0, 0]}}
    w = Wire(tmp_path, tables=(1, 2), config=config)
    w.links[2].paytable = w.controller.pays()
    w.step(100, 5)
    w.controller.close()
    w.controller = Controller(w.db, w.keys, lambda t, p: w.to_tables.append((t, p)),
                              clock_s=lambda: w.clock[0], order_window=0, broadcast_every=0)
    sent = []
    w.controller._send = lambda table, kind, values, send=w.controller._send: (
        sent.append((table, kind, values)), send(table, kind, values))
    for tb in (1, 2):
        w.links[tb].contribute(1, NOW, 2, 200)
        w.links[tb].hit(1, NOW, [[1, 4, 100], [3, 0, 100]])
        w.step(100, 5)
    paid = {tb: values[1] for tb, kind, values in sent if kind == codec.PAID}
    assert [len(row) for row in paid[1]] == [4]           # what an older table's codec takes
    assert [len(row) for row in paid[2]] == [4, 3] and paid[2][1] == [3, 0, codec.REFUSED_HAND]
    assert w.links[1].take_results()[0].rows == paid[1]
    assert w.links[1].totals[3:] == w.controller.totals(1)[3:] and w.links[1].state == UP
    refused = [e for e in read_ledger(w.db)["events"] if e[1] == "hit refused"]
    assert [e[0] for e in refused] == [1, 2]              # the supervisor still hears of both
    # a board re-enrolled at table 2 (the controller stopped) says again what its firmware is
    from tools import link_reenrol

    w.controller.close()
    link_reenrol.reenrol(w.db, 2)
    assert Controller(w.db, w.keys, lambda t, p: None, clock_s=lambda: NOW).pays_tables == set()
