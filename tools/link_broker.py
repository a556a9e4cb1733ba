"""A private Mosquitto broker on a free loopback port, for the link demo and benchmark.

Only 127.0.0.1 is used; the configuration is a temporary file, nothing is persisted.
Install the broker with tools/ensure_mosquitto.sh.
"""

import os
import shutil
import socket
import subprocess
import tempfile
import time

INSTALL_HINT = ("mosquitto is not installed: run `bash tools/ensure_mosquitto.sh` "
                "(apt-get install -y mosquitto)")


def mosquitto_binary():
    """Path of the mosquitto program; RuntimeError with the install command if missing."""
    found = shutil.which("mosquitto")
    if not found and os.path.exists("/usr/sbin/mosquitto"):
        found = "/usr/sbin/mosquitto"
    if not found:
        raise RuntimeError(INSTALL_HINT)
    return found


def stop_process(proc, grace_s=5):
    """Ask a child process to end; kill it if it has not within grace_s.  None is a no-op."""
    if proc is None or proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(grace_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(grace_s)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class LocalBroker:
    """start(), kill() (a crash), stop(); the port stays the same across restarts."""

    def __init__(self, folder=None):
        self.binary = mosquitto_binary()
        self.folder = folder or tempfile.mkdtemp(prefix="link-broker-")
        self.port = free_port()
        self.conf = os.path.join(self.folder, "mosquitto.conf")
        with open(self.conf, "w") as f:
            f.write("listener %d 127.0.0.1\nallow_anonymous true\npersistence false\n"
                    "max_queued_messages 100000\n" % self.port)
        self.proc = None

    def start(self, timeout=5.0):
        self.proc = subprocess.Popen([self.binary, "-c", self.conf], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return self
            except OSError:
                time.sleep(0.02)
        raise RuntimeError("mosquitto did not listen on 127.0.0.1:%d" % self.port)

    def kill(self):
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait(5)
            self.proc = None

    def stop(self):
        stop_process(self.proc)
        self.proc = None


def write_keys(path, tables, key_of):
    """Write the controller's key file for tables, key_of(table) -> bytes."""
    import json

    with open(path, "w") as f:
        json.dump({str(t): key_of(t).hex() for t in tables}, f)


class ControllerProcess:
    """tools/link_controller.py in a subprocess; start() waits for its READY line."""

    def __init__(self, folder, port, keys_path, *options):
        self.db = os.path.join(folder, "ledger.db")
        self.command = ["-m", "tools.link_controller", "--db", self.db, "--keys", keys_path,
                        "--port", str(port)] + list(options)
        self.proc = None

    def start(self, python=None, quiet=True, timeout=10.0):
        import sys

        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        env = dict(os.environ)
        env["PYTHONPATH"] = root
        command = [python or sys.executable] + self.command + (["--quiet"] if quiet else [])
        self.proc = subprocess.Popen(command, cwd=root, env=env, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True, bufsize=1)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if line.startswith("READY"):
                return self
            if not line and self.proc.poll() is not None:
                break
        raise RuntimeError("link controller did not start")

    def kill(self):
        self.proc.kill()
        self.proc.wait(5)

    def stop(self):
        stop_process(self.proc)
