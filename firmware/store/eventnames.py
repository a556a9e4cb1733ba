"""Names for people of the event log's kinds and CM_ERROR reason codes
(firmware.store.eventlog): the audit menu and the host's audit tool load this module; the
table's round loop does not, so the names take no room in its heap."""

from firmware.store import eventlog as ev

NAMES = {
    ev.POWER_UP: "power up", ev.POWER_DOWN: "power down", ev.CM_ERROR: "critical memory error",
    ev.CM_RECOVERED: "critical memory recovered", ev.RAM_CLEAR: "RAM clear", ev.LOCK: "lock",
    ev.VOID: "void", ev.JACKPOT_HIT: "jackpot hit",
    ev.SUPERVISOR_CONFIRM: "supervisor confirmation", ev.CONFIG_CHANGE: "configuration change",
    ev.DOOR_OPEN: "door open", ev.DOOR_CLOSE: "door close", ev.TAMPER: "tamper",
    ev.LINK_DOWN: "link down", ev.LINK_UP: "link up", ev.SETTLE: "settle",
    ev.LOG_ERROR: "event log error", ev.OPERATOR_ADDITION: "operator addition",
    ev.LINK_REJECT: "link message rejected", ev.LINK_MISMATCH: "link ledger mismatch",
    ev.LINK_CLAIM: "jackpot hit claimed on the link", ev.SHOE_REJECT: "shoe line rejected",
    ev.SENSOR_FAULT: "spot sensor fault", ev.DISPLAY_FAULT: "display fault",
    ev.CARD_DUPLICATE: "card dealt twice", ev.LINK_REFUSED: "jackpot claim refused by the link",
    ev.JACKPOT_ENVY: "envy bonus", ev.JACKPOT_SENT_BACK: "jackpot hands sent back unpaid",
    ev.CARD_REMOVED: "card removed by the supervisor",
    ev.LOOP_FAULT: "table stopped by a fault",
}

# Names short enough for a dealer-display line with a leading column (at most 15 characters,
# all different): the audit menu shows these.
SHORT_NAMES = {
    ev.POWER_UP: "power up", ev.POWER_DOWN: "power down", ev.CM_ERROR: "CM error",
    ev.CM_RECOVERED: "CM recovered", ev.RAM_CLEAR: "RAM clear", ev.LOCK: "lock",
    ev.VOID: "void", ev.JACKPOT_HIT: "jackpot hit", ev.SUPERVISOR_CONFIRM: "supervisor OK",
    ev.CONFIG_CHANGE: "config", ev.DOOR_OPEN: "door open", ev.DOOR_CLOSE: "door close",
    ev.TAMPER: "tamper", ev.LINK_DOWN: "link down", ev.LINK_UP: "link up",
    ev.SETTLE: "settle", ev.LOG_ERROR: "log error", ev.OPERATOR_ADDITION: "addition",
    ev.LINK_REJECT: "link reject", ev.LINK_MISMATCH: "link mismatch",
    ev.LINK_CLAIM: "link claim", ev.SHOE_REJECT: "shoe reject",
    ev.SENSOR_FAULT: "sensor fault", ev.DISPLAY_FAULT: "display fault",
    ev.CARD_DUPLICATE: "card twice", ev.LINK_REFUSED: "link refused",
    ev.JACKPOT_ENVY: "envy", ev.JACKPOT_SENT_BACK: "unpaid",
    ev.CARD_REMOVED: "card removed", ev.LOOP_FAULT: "fault",
}

# Short names of the CM_ERROR reason codes (eventlog.REASON_*), indexed by code
REASON_NAMES = ("", "blank", "bad magic", "bad crc", "truncated", "stale", "readback", "I/O",
                "other", "bad state")
