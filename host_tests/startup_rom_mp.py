# Run by host_tests/test_startup.py on the MicroPython VM: a board's start-up with the program
# installed as a ROMFS image (docs/romfs.md).  The folder given stands for the flash
# filesystem, mounted at / and the current folder; the image is mounted at /rom; sys.path is
# MicroPython's at start-up on such a board; then /main.py runs, as the board runs it.
# Arguments: the image file, the flash folder.
import os
import sys

import vfs

image = bytearray(os.stat(sys.argv[1])[6])      # one allocation: a board maps it from flash
with open(sys.argv[1], "rb") as f:
    f.readinto(image)
vfs.umount("/")
vfs.mount(vfs.VfsPosix(sys.argv[2]), "/")
vfs.mount(vfs.VfsRom(image), "/rom")
os.chdir("/")
sys.path[:] = ["", ".frozen", "/rom", "/rom/lib", "/lib"]
del image, f
with open("/main.py") as f:
    main_py = f.read()
exec(main_py)
