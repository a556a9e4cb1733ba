"""Board modules: pin maps and bus construction; the only code that imports machine."""
