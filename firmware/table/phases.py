"""What the round controller, its screens and its button handlers share: seat and display
sizes, card destinations, the phases of the dealer's round, beeps, hand rules, and the
supervisor's configuration menu."""

from firmware.compat import const
from firmware.jackpot import pools

SEATS = pools.MAX_SEATS
LINES = const(8)
WIDTH = const(16)
DEALER = const(0)
BOARD = const(8)
FLOP = const(3)
MESSAGE_MS = const(4000)
SUPERVISOR_ID = const(1)
CONFIRM_HITS = const(3)      # jackpot hits listed on the CONFIRM screen (two lines each)
# the parts that show what the table does, as DISPLAY_FAULT's a names them
DISPLAY = const(1)           # the dealer display
SIGN = const(2)              # the meter sign

# Phases.
OPEN = const(0)
LOCKED = const(1)
CONFIRM = const(2)
RESULTS = const(3)
RAM_ERROR = const(4)
RAM_CLEAR = const(5)
AUDIT = const(6)
CONFIG = const(7)
TEST = const(8)
CARD_ENTRY = const(9)
PHASE_NAMES = ("OPEN", "LOCKED", "CONFIRM", "RESULTS", "RAM ERROR", "RAM CLEAR", "AUDIT",
               "CONFIG", "TEST", "CARD ENTRY")

# Beep patterns the app's buzzer plays.
BEEP_OK = const(1)
BEEP_ERROR = const(2)
BEEP_ALARM = const(3)
BEEP_JACKPOT = const(4)
# Which beep outranks which (index: the beep): the alarm, the jackpot's, an error, OK.  A
# beep never cuts a higher one short, nor takes its place in the same loop pass.
BEEP_RANK = (0, 1, 2, 4, 3)

# The games [rules.md 2-4] and the cards each deals: (per seat, to the dealer, to the board).
UTH = "uth"
FCP = "fcp"
BRS = "brs"
GAME_CARDS = {UTH: (2, 2, 5), FCP: (5, 6, 0), BRS: (3, 0, 2)}
GAME_TITLES = {UTH: "ULTIMATE HOLDEM", FCP: "FOUR CARD POKER", BRS: "BIG RAISE STUD"}

# What the controller says of its program until the boot's check gives its result (the
# simulator, a test rig: no check made); the audit menu shows no "ok" for it.
NOT_CHECKED = "not checked"

# Hand rules, as in firmware.poker.uth.
HOLE2_BOARD3 = "hole2_board3"
BEST5OF7 = "best5of7"

# Configuration menu: (label, jackpot config key, choices in cents).
CONFIG_ITEMS = (
    ("JP wager", "wager", (100, 200, 500)),
    ("Reset", "reset", (0, 100000, 500000, 1000000)),     # 0: off (rules.md)
)
