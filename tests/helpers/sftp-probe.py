#!/usr/bin/env python3
# sftp-probe.py [huge] -- COMMAND...: speak SFTP to COMMAND (ssh -s HOST
# sftp): INIT, then one request with a chosen id, then (with "huge") a
# packet whose length is past any SFTP limit.  Prints what came back, one
# line each: "version N", "status ID CODE MESSAGE", "eof".
import struct, subprocess, sys

def send(w, body):
    w.write(struct.pack('>I', len(body)) + body)
    w.flush()

def recv(r):
    h = r.read(4)
    if len(h) < 4:
        return None
    n = struct.unpack('>I', h)[0]
    return r.read(n)

def show(p):
    if p is None:
        print("eof")
    elif p[0] == 2:
        print("version %d" % struct.unpack('>I', p[1:5]))
    elif p[0] == 101:
        rid, code, ml = struct.unpack('>III', p[1:13])
        print("status %d %d %s" % (rid, code, p[13:13 + ml].decode()))
    else:
        print("type %d" % p[0])
    sys.stdout.flush()

sep = sys.argv.index('--')
huge = 'huge' in sys.argv[1:sep]
proc = subprocess.Popen(sys.argv[sep + 1:], stdin=subprocess.PIPE,
                        stdout=subprocess.PIPE)
r, w = proc.stdout, proc.stdin
send(w, struct.pack('>BI', 1, 3))
show(recv(r))
# SSH_FXP_REALPATH "." with id 16909060
send(w, struct.pack('>BII', 16, 16909060, 1) + b'.')
show(recv(r))
if huge:
    w.write(struct.pack('>I', 0x7fffffff) + b'\x03')
    w.flush()
    show(recv(r))
w.close()
proc.wait()
