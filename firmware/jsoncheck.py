"""Strict JSON syntax check, run before ``json.loads`` on text from outside.

MicroPython's ``json.loads`` takes text that is not JSON (a missing comma or colon, a trailing
comma, a leading zero), so a file that a laptop's check refuses would be read on the board;
the two runtimes' messages differ; and deep nesting makes either recurse until it fails.
``check(text, max_depth)`` raises ValueError naming the first problem and where it is, the
same on both runtimes; text that passes is JSON both parse to the same values.
``check(text, max_depth, True)`` also refuses a key given twice in one object, which both
parsers would take, keeping the last value (the configuration file and config_set).
"""

from firmware.compat import const

MAX_DEPTH = const(4)     # the configuration's nesting: {"jackpot": {"main": {"rate": [..]}}}

# what may come next
_VALUE = const(0)           # a value: the start, after ':', after ',' in a list
_VALUE_OR_CLOSE = const(1)  # after '['
_KEY_OR_CLOSE = const(2)    # after '{'
_KEY = const(3)             # after ',' in an object
_COLON = const(4)           # after a key
_AFTER_VALUE = const(5)     # ',' or the container's close
_END = const(6)             # the top value is complete: only white space

_SPACE = const(" \t\n\r")
_DIGITS = const("0123456789")
_ESCAPES = const('"\\/bfnrt')
_HEX = const("0123456789abcdefABCDEF")
_LITERALS = const(("true", "false", "null"))


def _fail(text, i, problem):
    line = text.count("\n", 0, i) + 1
    column = i - text.rfind("\n", 0, i)
    raise ValueError("%s at line %d column %d" % (problem, line, column))


def _string(text, i):
    """The index after the string that starts at text[i] (a double quote)."""
    n = len(text)
    j = i + 1
    while j < n:
        ch = text[j]
        if ch == '"':
            return j + 1
        if ch == "\\":
            escape = text[j + 1:j + 2]
            if escape == "u":
                digits = text[j + 2:j + 6]
                if len(digits) != 4 or any(d not in _HEX for d in digits):
                    _fail(text, j, "not valid JSON: \\u needs four hex digits")
                j += 6
            elif escape and escape in _ESCAPES:
                j += 2
            else:
                _fail(text, j, "not valid JSON: bad escape in a string")
        elif ord(ch) < 0x20:
            _fail(text, j, "not valid JSON: control character in a string")
        else:
            j += 1
    _fail(text, i, "not valid JSON: string not closed")


def _digits(text, j, i):
    """The index after the digits from j (at least one, else the number at i is bad)."""
    start = j
    while j < len(text) and text[j] in _DIGITS:
        j += 1
    if j == start:
        _fail(text, i, "not valid JSON: bad number")
    return j


def _number(text, i):
    """The index after the number that starts at text[i] (JSON's form: no leading zero,
    no leading '+', digits on both sides of a point)."""
    n = len(text)
    j = i + 1 if text[i] == "-" else i
    if text[j:j + 1] == "0":
        j += 1
        if j < n and text[j] in _DIGITS:
            _fail(text, i, "not valid JSON: leading zero in a number")
    else:
        j = _digits(text, j, i)
    if j < n and text[j] == ".":
        j = _digits(text, j + 1, i)
    if j < n and text[j] in "eE":
        j += 1
        if j < n and text[j] in "+-":
            j += 1
        j = _digits(text, j, i)
    return j


def _key(text, i, j):
    """The name of the key text[i:j] (a string with its quotes), its escapes decoded."""
    if "\\" not in text[i:j]:
        return text[i + 1:j - 1]
    import json
    return json.loads(text[i:j])


def check(text, max_depth, unique=False):
    """Raise ValueError unless text (str) is one JSON value with containers nested at most
    max_depth deep; the message names the problem, its line and column.  unique: a key given
    twice in one object is refused too (json.loads would keep the last one silently)."""
    n = len(text)
    open_ = []        # '{' or '[' of each container not yet closed
    keys = []         # unique: the keys seen so far in each object not yet closed
    state = _VALUE
    i = 0
    while True:
        while i < n and text[i] in _SPACE:
            i += 1
        if i == n:
            break
        ch = text[i]
        if state == _END:
            _fail(text, i, "not valid JSON: text after the end")
        if state == _VALUE or state == _VALUE_OR_CLOSE:
            if ch == "]" and state == _VALUE_OR_CLOSE:
                open_.pop()
                i += 1
            elif ch == "{" or ch == "[":
                if len(open_) >= max_depth:
                    _fail(text, i, "nested deeper than %d levels" % max_depth)
                open_.append(ch)
                if unique and ch == "{":
                    keys.append([])
                state = _KEY_OR_CLOSE if ch == "{" else _VALUE_OR_CLOSE
                i += 1
                continue
            elif ch == '"':
                i = _string(text, i)
            elif ch == "-" or ch in _DIGITS:
                i = _number(text, i)
            else:
                for word in _LITERALS:
                    if text.startswith(word, i):
                        i += len(word)
                        break
                else:
                    _fail(text, i, "not valid JSON: expected a value")
        elif state == _KEY_OR_CLOSE or state == _KEY:
            if ch == "}" and state == _KEY_OR_CLOSE:
                open_.pop()
                if unique:
                    keys.pop()
                i += 1
            elif ch == '"':
                j = _string(text, i)
                if unique:
                    name = _key(text, i, j)
                    if name in keys[-1]:
                        _fail(text, i, "the key %s is given twice in one object" % text[i:j])
                    keys[-1].append(name)
                i = j
                state = _COLON
                continue
            else:
                _fail(text, i, "not valid JSON: expected a key in double quotes")
        elif state == _COLON:
            if ch != ":":
                _fail(text, i, "not valid JSON: expected ':' after the key")
            state = _VALUE
            i += 1
            continue
        else:  # _AFTER_VALUE
            close = "}" if open_[-1] == "{" else "]"
            if ch == ",":
                state = _KEY if close == "}" else _VALUE
                i += 1
                continue
            if ch != close:
                _fail(text, i, "not valid JSON: expected ',' or '%s'" % close)
            open_.pop()
            if unique and close == "}":
                keys.pop()
            i += 1
        # a value (or a container) is complete
        state = _AFTER_VALUE if open_ else _END
    if state != _END:
        _fail(text, n, "not valid JSON: the text ends too soon")
