"""Cards, hand evaluation, pay tables and settlement: pure, no I/O, no clock."""
