# Run by host_tests/test_startup.py on the MicroPython VM: a board's start-up.  The folder
# given stands for the flash filesystem, mounted at / and the current folder; a ROMFS image,
# when given (else "-"), is mounted at /rom (docs/romfs.md); sys.path is MicroPython's at
# start-up on such a board; then /main.py runs, as the board runs it.  If it stops, what the
# dealer display shows is printed ("display <line>").  Arguments: the image file or "-", the
# flash folder.
import os
import sys

import vfs

image = None
if sys.argv[1] != "-":
    image = bytearray(os.stat(sys.argv[1])[6])      # one allocation: a board maps it from flash
    with open(sys.argv[1], "rb") as f:
        f.readinto(image)
vfs.umount("/")
vfs.mount(vfs.VfsPosix(sys.argv[2]), "/")
if image is not None:
    vfs.mount(vfs.VfsRom(image), "/rom")
os.chdir("/")
sys.path[:] = ["", ".frozen", "/rom", "/rom/lib", "/lib"]
with open("/main.py") as f:
    main_py = f.read()
try:
    exec(main_py)
except Exception as error:
    print("stopped", type(error).__name__)
    table = getattr(sys.modules.get("board"), "table", None)
    if table is not None:
        for line in table.oled.lines():
            print("display", line)
