"""The real jackpot pools (firmware/jackpot) as the model the power-cut harness drives.

The state is ``firmware.jackpot.record.encode(jp)`` bytes, committed as the "jackpot" section.
The script: full UTH rounds with all seven seats on the jackpot, a round with a flush and a
royal (11.10 order, shortfall, reset), a round voided after "No more bets" (contributions
reversed), an operator addition and a pool configuration change that waits for the next hit.
The conservation check recomputes the pool from the meters here, with a 333/1000 rate so
fractions of a cent carry.  Runs on CPython (tests below) and MicroPython (test_store_powercut).
"""

from firmware.jackpot import config as jcfg
from firmware.jackpot import meters as jm
from firmware.jackpot import record as jrecord
from firmware.jackpot.pools import Jackpot
from firmware.poker import cards
from firmware.store import eventlog
from firmware.store.critical import STEP_CONFIRM, STEP_LOCK, STEP_SETTLE, STEP_VOID

RATE = (333, 1000)       # a third of each wager, so contributions carry fractions of a cent
CONFIG = {"main": {"rate": RATE, "reset": 1000000}}     # a pool seeded with $10,000
SEATS = [1, 2, 3, 4, 5, 6, 7]
FLOP = "Ah Kh Qh"
# seat 3 makes the royal (Jh Th + flop), seat 5 a flush (9h 2h + flop), the others nothing
HOLES = {1: "2c 3d", 2: "4c 5d", 3: "Jh Th", 4: "6c 7d", 5: "9h 2h", 6: "8c 8d", 7: "3c 4d"}
SF_FLOP = "9s Ts Js"
# seat 2 makes a straight flush (Qs Ks + flop); it applies the pending reset change
SF_HOLES = {1: "2c 3d", 2: "Qs Ks", 3: "4c 5d", 4: "6c 7d", 5: "8c 8d", 6: "2h 3h", 7: "4h 5h"}
MISS_FLOP = "2s 7s Jd"
MISS_HOLES = {1: "3s 4s", 2: "5c 6d", 3: "9c Tc", 4: "Ks 2d", 5: "8s 9d", 6: "Qc Qd", 7: "Ac 5h"}


def fresh():
    return jrecord.encode(Jackpot(CONFIG))


def decode(data):
    """The state bytes, after checking they decode (record.decode refuses unbalanced books)."""
    jrecord.decode(bytes(data))
    return bytes(data)


encode = bytes


def conservation_error(state):
    """None if pool and carry equations hold to the cent (recomputed from the meters here)."""
    return pool_error(jrecord.decode(state))


def pool_error(jp):
    """The check of conservation_error on a Jackpot object."""
    pm = jp.pool_meters(jcfg.MAIN)
    value = (pm["operator_additions"] + pm["reserve_funded"] + pm["contributions"]
             - pm["contributions_reversed"] - (pm["overflow"] - pm["overflow_reversed"])
             - (pm["paid"] - pm["shortfall"]) + pm["moved_in"] - pm["moved_out"])
    if value != jp.value[jcfg.MAIN]:
        return "pool %d != meters %d" % (jp.value[jcfg.MAIN], value)
    net = pm["wagered"] - pm["voided"]
    if pm["contributions"] - pm["contributions_reversed"] != net * RATE[0] // RATE[1]:
        return "contributions %d != %d x %d/%d" % (
            pm["contributions"] - pm["contributions_reversed"], net, RATE[0], RATE[1])
    return None


def _hands(holes):
    return [(seat, cards.parse(holes[seat]), True) for seat in SEATS]


def _step(change):
    def run(state):
        jp = jrecord.decode(state)
        change(jp)
        return jrecord.encode(jp)
    return run


def script():
    """(round, step or None, state -> state, events) like test_store_standin.script."""
    wagers = [(eventlog.LOCK, 0, 7, 700)]
    return [
        (1, STEP_LOCK, _step(lambda jp: jp.contribute(1, SEATS)), wagers),
        (1, STEP_SETTLE, _step(lambda jp: jp.settle(1, 5000, cards.parse(MISS_FLOP), _hands(MISS_HOLES))),
         [(eventlog.SETTLE, 0, 0, 0)]),
        (2, STEP_LOCK, _step(lambda jp: jp.contribute(2, SEATS)), wagers),
        (2, STEP_CONFIRM, lambda s: s, [(eventlog.SUPERVISOR_CONFIRM, 1, 2, 0)]),
        (2, STEP_SETTLE, _step(lambda jp: jp.settle(2, 5001, cards.parse(FLOP), _hands(HOLES))),
         [(eventlog.JACKPOT_HIT, 5, 1, 10000), (eventlog.JACKPOT_HIT, 3, 5, 0), (eventlog.SETTLE, 0, 2, 0)]),
        (3, STEP_LOCK, _step(lambda jp: jp.contribute(3, SEATS)), wagers),
        (3, STEP_VOID, _step(lambda jp: jp.void_round(3)), [(eventlog.VOID, 0, 7, 0)]),
        (3, None, _step(lambda jp: jp.add(jcfg.MAIN, 12345)), [(eventlog.OPERATOR_ADDITION, 0, 0, 12345)]),
        (3, None, _step(lambda jp: jp.set_config({"main": {"reset": 900000}})),
         [(eventlog.CONFIG_CHANGE, 1, 1000000, 900000)]),
        (4, STEP_LOCK, _step(lambda jp: jp.contribute(4, SEATS)), wagers),
        (4, STEP_SETTLE, _step(lambda jp: jp.settle(4, 5002, cards.parse(MISS_FLOP), _hands(MISS_HOLES))),
         [(eventlog.SETTLE, 0, 0, 0)]),
        (5, STEP_LOCK, _step(lambda jp: jp.contribute(5, SEATS)), wagers),
        (5, STEP_CONFIRM, lambda s: s, [(eventlog.SUPERVISOR_CONFIRM, 1, 1, 0)]),
        (5, STEP_SETTLE, _step(lambda jp: jp.settle(5, 5003, cards.parse(SF_FLOP), _hands(SF_HOLES))),
         [(eventlog.JACKPOT_HIT, 2, 4, 100000), (eventlog.SETTLE, 0, 1, 0)]),
    ]


class JackpotModel:
    name = "jackpot"
    fresh = staticmethod(fresh)
    encode = staticmethod(encode)
    decode = staticmethod(decode)
    conservation_error = staticmethod(conservation_error)
    script = staticmethod(script)


# --- CPython checks of the model: the script does what it says --------------------------
def test_script_pays_the_flush_then_the_royal_and_reconciles():
    state = fresh()
    states = [state]
    for item in script():
        state = item[2](state)
        states.append(state)
        assert conservation_error(state) is None
    jp = jrecord.decode(state)
    before_sf = jrecord.decode(states[-2]).value[jcfg.MAIN]
    pm = jp.pool_meters(jcfg.MAIN)
    # 5 rounds x 7 seats x 100 cents wagered, round 3 voided
    assert pm["wagered"] == 3500 and pm["voided"] == 700
    # a third of 2,800 net cents: 932.4 -> 932 credited, the 0.4 carried
    assert pm["contributions"] - pm["contributions_reversed"] == 932
    assert pm["hits_flush"] == 1 and pm["hits_royal_flush"] == 1 and pm["hits_straight_flush"] == 1
    assert pm["paid_flush"] == 100 * 100  # rules.md 2, 11.9: flush 100 to 1 on a 100-cent wager
    # rules.md 2, 11.9: straight flush 1,000 to 1 or 10% of the pool, whichever is greater
    assert before_sf > 1000000
    assert pm["paid_straight_flush"] == max(1000 * 100, before_sf // 10)
    assert jp.pending[jcfg.MAIN] is None and jp.config.pools[jcfg.MAIN].reset == 900000


def test_conservation_check_can_fail():
    jp = Jackpot(CONFIG)
    jp.contribute(1, SEATS)
    jp.meters[jcfg.MAIN][jm.CONTRIB] += 1
    jp.value[jcfg.MAIN] += 1
    assert "contributions" in pool_error(jp)
    jp.value[jcfg.MAIN] += 5
    assert "pool" in pool_error(jp)
