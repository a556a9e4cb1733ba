"""The strict JSON check that runs before json.loads on the configuration file and the
service's config_set: CPython's json module (which follows RFC 8259, but also takes NaN and
Infinity) is the oracle for what is JSON."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware import jsoncheck

DEEP = 64       # deeper than any test value below nests

values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12)


def cpython_takes(text):
    """True if CPython's json module reads text as RFC 8259 JSON (its NaN and Infinity
    extensions are not JSON)."""
    try:
        json.loads(text, parse_constant=lambda name: (_ for _ in ()).throw(ValueError(name)))
    except (ValueError, RecursionError):
        return False
    return True


def check_takes(text):
    try:
        jsoncheck.check(text, DEEP)
    except ValueError:
        return False
    return True


@given(values, st.sampled_from([None, 2]), st.booleans())
def test_what_json_dumps_writes_passes(value, indent, ascii_only):
    text = json.dumps(value, indent=indent, ensure_ascii=ascii_only)
    jsoncheck.check(text, DEEP)


@settings(max_examples=500)
@given(values, st.data())
def test_a_damaged_text_passes_exactly_when_cpython_reads_it(value, data):
    text = json.dumps(value)
    at = data.draw(st.integers(0, len(text)))
    how = data.draw(st.sampled_from(["drop", "insert", "replace"]))
    piece = data.draw(st.sampled_from(list(',:{}[]"\\ 0123456789-+.eEtfn\x01') + ["tru", "nul"]))
    if how == "drop":
        damaged = text[:at] + text[at + 1:]
    elif how == "insert":
        damaged = text[:at] + piece + text[at:]
    else:
        damaged = text[:at] + piece + text[at + 1:]
    assert check_takes(damaged) == cpython_takes(damaged), damaged


@pytest.mark.parametrize("text,problem", [
    ('{"wager": 300,}', "not valid JSON: expected a key in double quotes at line 1 column 15"),
    ('[1, 2,]', "not valid JSON: expected a value at line 1 column 7"),
    ('{"wager" 300}', "not valid JSON: expected ':' after the key at line 1 column 10"),
    ('{"a": 1 "b": 2}', "not valid JSON: expected ',' or '}' at line 1 column 9"),
    ('{"a": 0200}', "not valid JSON: leading zero in a number at line 1 column 7"),
    ('{"a": 1.}', "not valid JSON: bad number at line 1 column 7"),
    ('{"a": +1}', "not valid JSON: expected a value at line 1 column 7"),
    ('{"a": NaN}', "not valid JSON: expected a value at line 1 column 7"),
    ('{"a": "x\\qy"}', "not valid JSON: bad escape in a string at line 1 column 9"),
    ('{"a": "x\\u12"}', "not valid JSON: \\u needs four hex digits at line 1 column 9"),
    ('{"a": "line\nbreak"}', "not valid JSON: control character in a string at line 1 column 12"),
    ('{"a": "open}', "not valid JSON: string not closed at line 1 column 7"),
    ('{"a": 1}\n{"b": 2}', "not valid JSON: text after the end at line 2 column 1"),
    ('{"a": [1, 2]', "not valid JSON: the text ends too soon at line 1 column 13"),
    ('', "not valid JSON: the text ends too soon at line 1 column 1"),
    ('{"a":\n  {"b": {"c": {"d": [1]}}}}', "nested deeper than 4 levels at line 2 column 21"),
])
def test_each_problem_is_named_with_its_line_and_column(text, problem):
    with pytest.raises(ValueError) as error:
        jsoncheck.check(text, jsoncheck.MAX_DEPTH)
    assert str(error.value) == problem


def test_nesting_far_past_the_limit_is_refused_before_any_parser_recurses():
    text = "[" * 100000 + "]" * 100000
    with pytest.raises(ValueError, match="nested deeper than 4 levels at line 1 column 5"):
        jsoncheck.check(text, jsoncheck.MAX_DEPTH)


@pytest.mark.parametrize("text,problem", [
    ('{"a": 1, "a": 2}', 'the key "a" is given twice in one object at line 1 column 10'),
    ('{"wager": 1,\n "w\\u0061ger": 5}', 'the key "w\\u0061ger" is given twice in one object '
     'at line 2 column 2'),
    ('{"j": {"m": {"r": 1, "r": 2}}}', 'the key "r" is given twice in one object at line 1 column 22'),
])
def test_unique_refuses_a_key_given_twice_in_one_object(text, problem):
    # json.loads keeps the last one silently, on both runtimes
    with pytest.raises(ValueError) as error:
        jsoncheck.check(text, jsoncheck.MAX_DEPTH, True)
    assert str(error.value) == problem
    jsoncheck.check(text, jsoncheck.MAX_DEPTH)      # syntax alone: JSON all the same


@pytest.mark.parametrize("text", [
    '{"a": {"a": 1}, "b": {"a": 2}}', '[{"a": 1}, {"a": 2}]', '{"a": [1, 1], "b": {}}',
    '{"a": 1, "A": 2}', '{"a\\"": 1, "a": 2}',
])
def test_unique_takes_the_same_key_in_different_objects(text):
    jsoncheck.check(text, jsoncheck.MAX_DEPTH, True)


@given(st.dictionaries(st.text(max_size=3), values, max_size=6), st.booleans())
def test_unique_takes_what_json_dumps_writes(value, ascii_only):
    jsoncheck.check(json.dumps({"x": value, "y": [value]}, ensure_ascii=ascii_only), DEEP, True)
