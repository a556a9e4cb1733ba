"""Fakes of the chips and buses, decoding what the drivers send on the wire."""
