"""A hostile origin for the browser tests of tregd's sign-in (issue 31):
HTTPS on another port of the same host (127.0.0.1), so the same site as
tregd but another origin, the case SameSite cookies do not cover.

    python3 attacker_origin.py CERT KEY PORT_FILE TREGD_BASE ATTACKER_TOKEN ATTACKER_SESSION

Pages:
  /login-csrf   a form that posts the attacker's token to tregd's /login at load
  /logout-csrf  a form that posts to tregd's /logout at load
  /toss         script that plants session cookies for tregd's paths: the old
                name with Path=/r/ (what tossed a victim's pages onto the
                attacker's team before), and __Host-treg_session with Path=/r/
                (which a browser must refuse: __Host- means Path=/)
Each page says when it is done with <body data-done="1"> (the forms navigate
away).  Writes its port to PORT_FILE once listening."""
import html
import http.server
import ssl
import sys

cert, key, port_file, base, token, session = sys.argv[1:7]


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def page(self, body):
        data = ("<!doctype html><html><body>%s</body></html>" % body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        b = html.escape(base, quote=True)
        if self.path == "/login-csrf":
            self.page('<form id="f" method="post" action="%s/login">'
                      '<input name="token" value="%s"><input name="next" value="/"></form>'
                      '<script>document.getElementById("f").submit()</script>'
                      % (b, html.escape(token, quote=True)))
        elif self.path == "/logout-csrf":
            self.page('<form id="f" method="post" action="%s/logout"></form>'
                      '<script>document.getElementById("f").submit()</script>' % b)
        elif self.path == "/toss":
            self.page('<script>'
                      'document.cookie = "treg_session=%s; Path=/r/; Secure; SameSite=Strict";'
                      'document.cookie = "__Host-treg_session=%s; Path=/r/; Secure; SameSite=Strict";'
                      'document.body.dataset.done = "1";</script>' % (session, session))
        else:
            self.send_error(404)


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(cert, key)
server.socket = ctx.wrap_socket(server.socket, server_side=True)
with open(port_file + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
import os
os.rename(port_file + ".tmp", port_file)
server.serve_forever()
