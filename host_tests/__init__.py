"""Host test suite: pytest on CPython, and scenarios run on both CPython and MicroPython."""
