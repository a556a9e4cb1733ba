"""Exact share arithmetic: the split computation equals Python's big-int divmod."""

from hypothesis import given
from hypothesis import strategies as st

from firmware.jackpot import carry

UNIT = 1_000_000


@given(st.integers(-1_000_000, 1_000_000), st.integers(0, UNIT), st.integers(0, UNIT - 1))
def test_share_is_divmod_of_the_exact_product(amount, ppm, owed):
    assert carry.share(amount, ppm, owed) == divmod(amount * ppm + owed, UNIT)


@given(st.integers(-1_000_000, 1_000_000), st.integers(0, UNIT), st.integers(0, UNIT - 1))
def test_share_stays_below_2_30(amount, ppm, owed):
    # The largest intermediates of carry.share, written out here.
    high = amount * (ppm // 1000)
    rest = (high % 1000) * 1000 + amount * (ppm % 1000) + owed
    assert abs(high) < 2**30 and abs(rest) < 2**30


def test_share_examples_by_hand():
    # 0.7 cent owed per 100-cent wager at 7/1000 (7,000 ppm): 100 * 7,000 = 700,000 millionths.
    assert carry.share(100, 7_000, 0) == (0, 700_000)
    assert carry.share(100, 7_000, 700_000) == (1, 400_000)
    # Reversal undoes it: -100 * 7,000 + 400,000 = -300,000 -> -1 cent, 700,000 carried.
    assert carry.share(-100, 7_000, 400_000) == (-1, 700_000)


@given(st.integers(0, 10**12), st.integers(0, 100))
def test_percent_of_is_the_floor(amount, percent):
    assert carry.percent_of(amount, percent) == amount * percent // 100


def test_owed_cents_is_the_ceiling():
    assert carry.owed_cents([0, 0]) == 0
    assert carry.owed_cents([1, 0]) == 1
    assert carry.owed_cents([500_000, 500_000]) == 1
    assert carry.owed_cents([500_000, 500_001]) == 2
