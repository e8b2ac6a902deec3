#!/usr/bin/env python3
"""not_a_hub.py STATUS: what a proxy, captive portal or WAF in front of (or instead of)
the hub answers. Listens on 127.0.0.1 on a free port, prints the port on stdout, and
answers every request with STATUS and a small HTML page (a Location header for 3xx,
a JSON body of someone else's shape for 422) until killed."""
import http.server, socketserver, sys

status = int(sys.argv[1])


class Answer(http.server.BaseHTTPRequestHandler):
    def answer(self):
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        if status == 422:
            body, kind = b'{"detail": [{"msg": "field required"}]}', "application/json"
        else:
            body, kind = b"<html><body><h1>Access denied</h1>Please log in to the Wi-Fi.</body></html>", "text/html"
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        if 300 <= status < 400:
            self.send_header("Location", "http://127.0.0.1:9/login")
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_PUT = do_POST = answer

    def log_message(self, *args):
        pass


with socketserver.TCPServer(("127.0.0.1", 0), Answer) as server:
    print(server.server_address[1], flush=True)
    server.serve_forever()
