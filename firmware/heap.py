"""The heap's housekeeping, kept loaded while the table runs: garbage collected often while
code loads, modules let go after their use, and the heap's state said when the table stops.

    collect_often(True)      # while loading; collect_often(False) before the main loop
    forget("firmware.table.audit")
    print(stopped_line(error))

Code loaded for one use raises NotLoaded when it cannot be loaded (a full heap, a damaged
.mpy file, whose ValueError must not pass for a bad record or a bad setting).
"""

from firmware.compat import IS_MICROPYTHON


class Stop(BaseException):
    """The table must stop, and the watchdog restart it: no `except Exception` (the service
    console's, a supervisor's action) may catch it and play on.  (At the third boot in a row
    to stop so, firmware.app halts the table instead: a reset loop.)"""


class NotLoaded(Exception):
    """Code needed for a use could not be loaded (its module and the reason in the text)."""


def not_loaded(name, error):
    """The NotLoaded error for module `name`, which failed to load with `error`; the module
    is forgotten (a later use tries again)."""
    forget(name)
    return NotLoaded("cannot load %s: %s: %s" % (name, type(error).__name__, error))

LOADING_GC_BYTES = 4096                 # while loading: collect after this many bytes allocated


def collect_often(loading):
    """MicroPython: while the program loads (loading=True), collect garbage after every
    LOADING_GC_BYTES bytes allocated; afterwards only when the heap is full, as by default.

    Loading leaves garbage (the checks' work, each import's temporaries) between the objects
    that stay.  Collected only when the heap is full, that garbage becomes holes, and a later
    module's dictionary, which needs one piece, finds none.  Collected early, the objects
    that stay are packed together.  The main loop runs without it, so that a collection does
    not lengthen ticks any more often than the heap requires."""
    import gc

    if hasattr(gc, "threshold"):        # not in CPython
        gc.threshold(LOADING_GC_BYTES if loading else -1)


def forget(name):
    """Drop the module `name` from sys.modules and from its package, so its code can be
    collected once nothing refers to it (a later import loads it afresh)."""
    import sys

    sys.modules.pop(name, None)
    parts = name.rsplit(".", 1)
    parent = sys.modules.get(parts[0]) if len(parts) == 2 else None
    if parent is not None and hasattr(parent, parts[1]):
        delattr(parent, parts[1])


def let_go(name):
    """After a use of module `name` loaded only for it: forget it on MicroPython, where the
    heap is the budget.  CPython (the host's tests and tools) keeps it: loading it afresh at
    every call would only cost time (a millisecond a call)."""
    if IS_MICROPYTHON:
        forget(name)


def stopped_line(error):
    """One console line saying why the controller stopped, with the heap's state."""
    import gc

    line = "table controller stopped: %s: %s" % (type(error).__name__, error)
    if hasattr(gc, "mem_free"):         # MicroPython
        free = gc.mem_free()
        line += " (heap: %d bytes free of %d)" % (free, free + gc.mem_alloc())
    return line
