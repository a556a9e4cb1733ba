"""How a person reads a 7-segment digit: the table FakeMax7219Chain reads its digits with.

Written from the segment letters (A top, B top right, C bottom right, D bottom, E bottom
left, F top left, G middle), independent of the driver's font.  Shapes a person reads as a
lower case letter are read as lower case (``b c d h n o r t u y``); ``S`` reads as ``5``.

It is a module of its own, imported when a sign is first read, so that a simulated table
that never reads its sign (tools/mp/table_bench.py on the MicroPython VM) does not intern
its forty shape strings in the VM's names (docs/performance.md).
"""

_SEGMENT_BITS = {"A": 0x40, "B": 0x20, "C": 0x10, "D": 0x08, "E": 0x04, "F": 0x02, "G": 0x01}
_READING = {
    "0": "ABCDEF", "1": "BC", "2": "ABDEG", "3": "ABCDG", "4": "BCFG", "5": "ACDFG",
    "6": "ACDEFG", "7": "ABC", "8": "ABCDEFG", "9": "ABCDFG",
    "A": "ABCEFG", "b": "CDEFG", "C": "ADEF", "c": "DEG", "d": "BCDEG", "E": "ADEFG",
    "F": "AEFG", "G": "ACDEF", "H": "BCEFG", "h": "CEFG", "I": "EF", "J": "BCDE", "K": "ACEFG",
    "L": "DEF", "M": "ACE", "N": "ABCEF", "n": "CEG", "o": "CDEG", "P": "ABEFG", "q": "ABCFG",
    "r": "EG", "t": "DEFG", "U": "BCDEF", "u": "CDE", "y": "BCDFG",
    "-": "G", "_": "D", "=": "DG", " ": "",
}


def _shape(letters):
    bits = 0
    for letter in letters:
        bits |= _SEGMENT_BITS[letter]
    return bits


BY_SHAPE = {}   # segment bits (DP off): the character a person reads
for _char, _letters in _READING.items():
    BY_SHAPE[_shape(_letters)] = _char
