"""Per-rank log copier, at pipe speed (caller: capture.sh; contract: docs/run-dir.md).

python3 capture.py FILE < PIPE > JOB_OUTPUT

Copies the rank's stream (stdin) byte-exact to FILE (appended) and to stdout (the job's output),
and appends to FILE.ts one line per line of the stream: Unix time with microseconds ("%d.%06d") of
the read that delivered the line's newline (a last line without one: of the end of file). Blocks
of up to 64 KiB are written through before the next is read: memory stays bounded for any line.

Slurm's signals to the step are ignored: the copier ends when the rank's writers close the pipe,
after writing everything it read. A failing output is reported once and skipped; the pipe is
always drained, so the rank never blocks on it. Python 3.4+, standard library only.
"""

import os
import signal
import sys
import time

BLOCK = 1 << 16
MODE = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)

TIME_NS = getattr(time, "time_ns", None)  # Python 3.7+


def stamp():
    us = TIME_NS() // 1000 if TIME_NS else int(time.time() * 1000000)
    return ("%d.%06d\n" % (us // 1000000, us % 1000000)).encode("ascii")


class Sink:
    """An output that, once it fails, is reported once and then skipped."""

    def __init__(self, fd, name):
        self.fd, self.name, self.ok = fd, name, fd >= 0

    def write(self, data):
        if not self.ok:
            return
        view = memoryview(data)
        try:
            while view:
                n = os.write(self.fd, view)
                view = view[n:]
        except OSError as e:
            self.ok = False
            complain("cannot write %s (%s); the rank's output goes on elsewhere" % (self.name, e.strerror))


def complain(msg):
    try:
        os.write(2, ("track-launch: capture: %s\n" % msg).encode("utf-8", "replace"))
    except OSError:
        pass


def open_append(path):
    try:
        return os.open(path, MODE, 0o666)
    except OSError as e:
        complain("cannot open %s (%s)" % (path, e.strerror))
        return -1


def ready():
    """The handshake of capture.sh's tl_run_captured: one byte to TL_CAPTURE_READY_FD once the outputs
    are open and the next thing is reading, so the rank starts only then."""
    fd = os.environ.pop("TL_CAPTURE_READY_FD", "")
    if not fd.isdigit():
        return
    try:
        os.write(int(fd), b"r")
        os.close(int(fd))
    except OSError:
        pass  # the waiting side is gone or gave up: nothing to tell


def main(argv):
    if len(argv) != 2:
        complain("usage: capture.py FILE")
        return 2
    for name in ("SIGUSR1", "SIGUSR2", "SIGTERM", "SIGINT", "SIGHUP", "SIGPIPE"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_IGN)
    path = argv[1]
    log = Sink(open_append(path), path)
    stamps = Sink(open_append(path + ".ts"), path + ".ts")
    job = Sink(1, "the job's output")
    ready()
    partial = False  # the last byte read was not a newline
    while True:
        data = os.read(0, BLOCK)  # retried by Python on EINTR
        if not data:
            break
        now = stamp()
        log.write(data)
        n = data.count(b"\n")
        if n:
            stamps.write(now * n)
        partial = data[-1:] != b"\n"
        job.write(data)
    if partial:
        stamps.write(stamp())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
