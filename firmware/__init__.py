"""Firmware of the table-side controller: runs unchanged on CPython 3.11 and MicroPython."""
