"""A NOR-flash block device for ``vfs.VfsLfs2`` that can lose power at any operation.

``Supply`` numbers every program, erase (flash) and byte write (FRAM) of every device that
shares it, and fails at operation number ``cut_at``: that operation is torn (only part of it
reaches the chip).  The flash device then answers littlefs with an I/O error (-EIO), for that
operation and every later one, so objects left over from the old "boot" (littlefs file
finalisers) cannot touch the memory the next boot mounts; littlefs turns it into an OSError
at the file call.  It never raises from inside littlefs: a Python exception thrown through
littlefs' C code leaves its state half-updated and crashed the VM now and then.  (The FRAM
fake, plain Python, raises ``PowerCut``.)  A reboot is a new device object on the same
backing ``bytearray``.

``FlashDevice`` behaves like NOR flash: erase sets a whole block to 0xFF, program can only
clear bits (the stored byte becomes old AND new), and it counts programs, erases and bytes,
which is what tools/wear_bench.py reports.  ``MemFS`` is a dict filesystem with littlefs'
atomic file replace, for fast CPython tests of the FRAM side.
"""

ERASED = 0xFF
EIO_RESULT = -5  # what a block device returns to littlefs for an I/O error (-EIO)
IOCTL_INIT = 1
IOCTL_DEINIT = 2
IOCTL_SYNC = 3
IOCTL_BLOCK_COUNT = 4
IOCTL_BLOCK_SIZE = 5
IOCTL_BLOCK_ERASE = 6


class PowerCut(Exception):
    """The supply failed during a write."""


class Supply:
    """Power shared by the devices of one board; fails at operation number cut_at (0-based)."""

    def __init__(self, cut_at=None):
        self.cut_at = cut_at
        self.ops = 0
        self.off = False

    def spend(self, counted=True):
        """Account for one write operation: 'ok', 'cut' (this one is torn) or 'dead'.
        A device whose operations are not `counted` never triggers the cut, but dies with it."""
        if self.off:
            return "dead"
        if not counted:
            return "ok"
        if self.cut_at is not None and self.ops >= self.cut_at:
            self.off = True
            return "cut"
        self.ops += 1
        return "ok"


def torn_length(length, cut_at):
    """How much of a torn operation reaches the chip: 1/8 .. 7/8 of it, varying with the cut."""
    return length * (1 + cut_at % 7) // 8


class FlashDevice:
    """Block device over `memory` (bytearray, a whole number of blocks) for vfs.VfsLfs2."""

    def __init__(self, memory, block_size=4096, supply=None, counted=True):
        if len(memory) % block_size:
            raise ValueError("flash memory of %d bytes is not whole %d-byte blocks"
                             % (len(memory), block_size))
        self.memory = memory
        self.block_size = block_size
        self.block_count = len(memory) // block_size
        self.supply = supply if supply is not None else Supply()
        self.counted = counted
        self.programs = 0
        self.erases = 0
        self.bytes_programmed = 0
        self.overprograms = 0
        self.erase_counts = [0] * self.block_count

    def readblocks(self, block, buf, offset=0):
        if self.supply.off:
            return EIO_RESULT  # dead: a finaliser of the old boot may read with the heap locked
        start = block * self.block_size + offset
        n = len(buf)
        buf[0:n] = self.memory[start:start + n]
        return 0

    def writeblocks(self, block, buf, offset=None):
        if offset is None:
            # simple block interface: erase the blocks, then program them
            for i in range(len(buf) // self.block_size):
                result = self._erase(block + i)
                if result:
                    return result
            offset = 0
        return self._program(block * self.block_size + offset, buf)

    def ioctl(self, op, arg):
        if op == IOCTL_BLOCK_COUNT:
            return self.block_count
        if op == IOCTL_BLOCK_SIZE:
            return self.block_size
        if op == IOCTL_BLOCK_ERASE:
            return self._erase(arg)
        return 0

    def _erase(self, block):
        """Erase one block: 0, or EIO_RESULT when the power fails now or has failed."""
        state = self.supply.spend(self.counted)
        if state == "dead":
            return EIO_RESULT
        start = block * self.block_size
        n = self.block_size
        if state == "cut":
            n = torn_length(n, self.supply.cut_at)
        memory = self.memory
        for i in range(start, start + n):
            memory[i] = ERASED
        if state == "cut":
            return EIO_RESULT  # torn after n bytes
        self.erases += 1
        self.erase_counts[block] += 1
        return 0

    def _program(self, start, buf):
        """Program bytes (bits can only clear): 0, or EIO_RESULT when the power fails."""
        state = self.supply.spend(self.counted)
        if state == "dead":
            return EIO_RESULT
        n = len(buf)
        if state == "cut":
            n = torn_length(n, self.supply.cut_at)
        memory = self.memory
        for i in range(n):
            old = memory[start + i]
            new = old & buf[i]
            if new != buf[i]:
                self.overprograms += 1
            memory[start + i] = new
        if state == "cut":
            if n < len(buf):
                # the byte being programmed when the power went: only some of its bits cleared
                memory[start + n] &= buf[n] | 0x0F
            return EIO_RESULT
        self.programs += 1
        self.bytes_programmed += len(buf)
        return 0


class _MemFile:
    def __init__(self, fs, name, mode):
        self.fs = fs
        self.name = name
        self.writing = "w" in mode
        if self.writing:
            self.data = bytearray()
        else:
            if name not in fs.files:
                raise OSError(2)  # ENOENT
            self.data = fs.files[name]
        self.pos = 0

    def read(self, n=-1):
        end = len(self.data) if n is None or n < 0 else min(len(self.data), self.pos + n)
        data = bytes(self.data[self.pos:end])
        self.pos = end
        return data

    def seek(self, offset, whence=0):
        self.pos = offset if whence == 0 else (self.pos + offset if whence == 1
                                               else len(self.data) + offset)
        return self.pos

    def readinto(self, buf):
        count = min(len(buf), len(self.data) - self.pos)
        buf[:count] = self.data[self.pos:self.pos + count]
        self.pos += count
        return count

    def write(self, data):
        self.data += data
        return len(data)

    def close(self):
        if self.writing:
            self.fs.files[self.name] = bytes(self.data)  # appears whole, like littlefs on close
            self.writing = False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


class MemFS:
    """Filesystem object (open/rename/remove) over a dict name -> bytes."""

    def __init__(self, files=None):
        self.files = files if files is not None else {}

    def open(self, name, mode):
        return _MemFile(self, name, mode)

    def rename(self, old, new):
        if old not in self.files:
            raise OSError(2)
        self.files[new] = self.files.pop(old)

    def remove(self, name):
        if name not in self.files:
            raise OSError(2)
        del self.files[name]
