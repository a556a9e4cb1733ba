"""Critical memory: checked, mirrored records, the round journal and the event log (see
docs/critical-memory.md).  Talks only to the FRAM driver and filesystem objects it is given."""
