"""What the scenario scripts share: a checker that counts failures, a printer of settlement
results, and a seeded generator.

Both run unchanged on CPython and MicroPython, so a scenario prints the same on both.
"""

import sys


class Checker:
    """Prints one line per check and exits non-zero at the end if any check failed."""

    def __init__(self, width=44):
        self.failures = 0
        self.width = width

    def check(self, label, got, want):
        """Compare got with want and print the verdict; return True when they match."""
        ok = got == want
        if not ok:
            self.failures += 1
        print("%-*s %s" % (self.width, label, "ok" if ok else "GOT %r WANT %r" % (got, want)))
        return ok

    def rejected(self, label, function, *args, **kwargs):
        """Call function(*args, **kwargs): it must raise ValueError, whose message is printed."""
        try:
            function(*args, **kwargs)
        except ValueError as error:
            self.check(label, "rejected", "rejected")
            print("  ", error)
            return
        self.check(label, "accepted", "rejected")

    def finish(self):
        """Print the failure count and exit with status 1 if there was any."""
        print("failures", self.failures)
        if self.failures:
            sys.exit(1)


def show_round(result, width=8):
    """Print every wager result of a settlement RoundResult (one line each, the wager name
    `width` wide); return {(seat, wager): (outcome, returned, won)}."""
    table = {}
    for seat in result.seats:
        for w in seat.wagers:
            print("  seat %d %-*s %6d %-4s returned %7d won %7d cut %d %s %s" % (
                seat.seat, width, w.wager, w.amount, w.outcome, w.returned, w.won, w.cap_cut,
                w.hand_name, w.line))
            table[(seat.seat, w.wager)] = (w.outcome, w.returned, w.won)
    return table


def money_problems(result, staked):
    """How many ways a settled round fails to account for its money: a wager paid other than
    returned + won, a stake neither returned whole nor kept, or round totals that differ from
    what was staked and from the sum of the wagers paid."""
    problems = 0
    total = 0
    for seat in result.seats:
        for w in seat.wagers:
            if w.paid != w.returned + w.won or w.returned not in (0, w.amount):
                problems += 1
            total += w.paid
    if result.wagered != staked or result.paid != total:
        problems += 1
    return problems


class Lcg:
    """A small linear congruential generator: the same numbers on every runtime."""

    def __init__(self, seed):
        self.seed = seed

    def below(self, n):
        """A number 0..n-1."""
        self.seed = (self.seed * 1103515245 + 12345) & 0x7FFFFFFF
        return (self.seed >> 8) % n

    def shuffle(self, items):
        """Shuffle a list in place (Fisher-Yates) and return it."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]
        return items


class AppClock:
    """Runs a firmware.app.App loop pass by pass on a clock of its own (ms ticks from 0; the
    wall clock 1000 s later, in seconds), as the board's main loop does."""

    def __init__(self, app, tick_ms):
        self.app = app
        self.tick_ms = tick_ms
        self.now = 0

    def run(self, ms):
        """Run loop passes for ms milliseconds."""
        end = self.now + ms
        while self.now < end:
            self.now += self.tick_ms
            self.app.step(self.now, 1000 + self.now // 1000)
