"""The one place that papers over CPython / MicroPython differences.

Firmware modules import ``const`` and ``micropython`` from here.  On MicroPython these are
the real ones (the compiler still sees ``@micropython.native`` and ``const()`` in the source);
on CPython ``micropython`` is a stand-in whose decorators return the function unchanged and
whose heap functions do nothing, so the same source runs on both.
"""

try:
    import micropython
    from micropython import const
    IS_MICROPYTHON = True
except ImportError:
    IS_MICROPYTHON = False

    def const(value):
        """Return value unchanged (MicroPython folds it at compile time)."""
        return value

    def _same(function):
        return function

    class _MicroPythonStandIn:
        """Decorators and heap controls with MicroPython's names, for CPython."""

        native = staticmethod(_same)
        viper = staticmethod(_same)
        const = staticmethod(const)

        @staticmethod
        def heap_lock():
            return 0

        @staticmethod
        def heap_unlock():
            return 0

        @staticmethod
        def mem_peak():
            return 0

    micropython = _MicroPythonStandIn()

_ENOENT = const(2)      # a file that is not there: the same number on every port and CPython


def file_missing(error):
    """True when the OSError `error` says the file is not there (not that it could not be
    read): a missing file is a state to handle, a failing one a fault to report."""
    return (error.args[0] if error.args else 0) == _ENOENT


def close_quietly(thing):
    """Close `thing` (None: nothing to close), ignoring the OSError of one already broken (a
    socket whose peer or network went away); returns None, for ``sock = close_quietly(sock)``."""
    if thing is not None:
        try:
            thing.close()
        except OSError:
            pass
    return None
