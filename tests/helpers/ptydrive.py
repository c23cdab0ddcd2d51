#!/usr/bin/env python3
"""Drive an interactive ssh session through a real pty, as a person would.

ptydrive.py OUT -- ssh ARGS...

Runs the command on a fresh pty (80x24), then plays a script: waits for
the prompt-less markers the test prints, resizes the window, types ^C.
Everything the session printed is written to OUT.
"""
import fcntl, os, pty, select, signal, struct, sys, termios, time

out_path = sys.argv[1]
cmd = sys.argv[3:]
buf = b""


def set_size(fd, rows, cols):
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


pid, fd = pty.fork()
if pid == 0:
    set_size(0, 24, 80)
    os.execvp(cmd[0], cmd)


def read_until(marker, timeout=20):
    global buf
    end = time.time() + timeout
    while marker.encode() not in buf and time.time() < end:
        r, _, _ = select.select([fd], [], [], 0.2)
        if r:
            try:
                data = os.read(fd, 65536)
            except OSError:
                break
            if not data:
                break
            buf += data
    return marker.encode() in buf


def send(s):
    os.write(fd, s.encode() if isinstance(s, str) else s)


set_size(fd, 24, 80)
ok = read_until("$ ") or read_until("# ")
send("echo M1:$(stty size):$(hostname):M$((0+1))\r")
read_until(":M1\r")
set_size(fd, 40, 132)
os.kill(pid, signal.SIGWINCH)
time.sleep(1)
send("echo M2:$(stty size):M$((1+1))\r")
read_until(":M2\r")
send("sleep 100; echo AFTER-SLEEP\r")
time.sleep(1.5)
send(b"\x03")
time.sleep(0.5)
send("echo M3:alive:$?:M$((1+2))\r")
read_until(":M3\r")
send("exit 3\r")
end = time.time() + 20
status = None
while time.time() < end:
    r, _, _ = select.select([fd], [], [], 0.2)
    if r:
        try:
            data = os.read(fd, 65536)
            if not data:
                break
            buf += data
        except OSError:
            break
    p, st = os.waitpid(pid, os.WNOHANG)
    if p:
        status = st
        break
if status is None:
    _, status = os.waitpid(pid, 0)
open(out_path, "wb").write(buf)
print(os.waitstatus_to_exitcode(status))
