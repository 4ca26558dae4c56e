#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""python3's http.server with what the plain one cannot do, for tests/repos:
HTTPS with a certificate of the test's own CA, a transfer cut short on
purpose, a slow transfer.  Bound to 127.0.0.1 only; the chosen port is
written to --port-file; one log line per request ("GET PATH STATUS BYTES").

  server.py --dir D --port-file F --log L [--https CERT KEY]
            [--cut PATH]... [--slow PATH]...

--cut PATH    answer PATH with its full Content-Length but close the
              connection after half of the body (a truncated download)
--slow PATH   send PATH 4 KiB at a time, 0.2 s apart
"""
import argparse
import functools
import http.server
import os
import socketserver
import ssl
import sys
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--https", nargs=2, metavar=("CERT", "KEY"))
    ap.add_argument("--cut", action="append", default=[])
    ap.add_argument("--slow", action="append", default=[])
    a = ap.parse_args()
    log = open(a.log, "a", buffering=1)

    class Handler(http.server.SimpleHTTPRequestHandler):
        def log_message(self, fmt, *args):
            pass

        def do_GET(self):
            path = self.path.split("?", 1)[0]
            fs = self.translate_path(path)
            if path in a.cut or path in a.slow:
                try:
                    data = open(fs, "rb").read()
                except OSError:
                    self.send_error(404)
                    log.write("GET %s 404 0\n" % path)
                    return
                self.send_response(200)
                self.send_header("Content-Type", "application/x-rpm")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if path in a.cut:
                    self.wfile.write(data[: len(data) // 2])
                    self.wfile.flush()
                    log.write("GET %s 200 %d cut\n" % (path, len(data) // 2))
                    self.close_connection = True
                    return
                log.write("GET %s 200 0 slow-start\n" % path)
                for i in range(0, len(data), 4096):
                    self.wfile.write(data[i:i + 4096])
                    self.wfile.flush()
                    time.sleep(0.2)
                log.write("GET %s 200 %d slow\n" % (path, len(data)))
                return
            size = os.path.getsize(fs) if os.path.isfile(fs) else 0
            super().do_GET()
            log.write("GET %s %s %d\n" % (path, "200" if os.path.isfile(fs) else "404", size))

    class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
        daemon_threads = True
        allow_reuse_address = True

    srv = Server(("127.0.0.1", 0), functools.partial(Handler, directory=a.dir))
    if a.https:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(a.https[0], a.https[1])
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    with open(a.port_file + ".tmp", "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(a.port_file + ".tmp", a.port_file)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
