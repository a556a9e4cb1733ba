"""Option checks shared by the host tools' command lines."""

import argparse


def at_least(low):
    """An argparse type: a whole number not below `low`; anything else is refused by name."""
    def check(text):
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < low:
            raise argparse.ArgumentTypeError("must be a whole number of at least %d, got %r" % (low, text))
        return value
    return check
