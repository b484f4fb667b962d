"""A real SMTP server for the notices tests: aiosmtpd (Debian's python3-aiosmtpd) on a free
port of 127.0.0.1, keeping each message it accepts as a file.

Usage: /usr/bin/python3 tests/smtp/sink.py DIR

It prints `PORT` once it listens, then writes every accepted message to DIR/NNNN.eml (the
envelope's recipients in DIR/NNNN.rcpt, one per line; its plain-text part, decoded by Python's
email package, in DIR/NNNN.txt), in the order accepted. While a file
DIR/refuse exists, it answers every message `451 4.3.0 try again later` (a relay that is
busy); its text, when not empty, is the answer instead (e.g. `550 5.1.1 no such user`). A
refused message is kept too, in DIR/refused/ (the same three files), so a test can compare
a try with its retry.

While a file DIR/stall exists, a message's DATA waits unanswered (a relay that hangs mid-send)
and DIR/stalled is created; once DIR/stall is gone the message is kept as usual, unless its
client has hung up meanwhile (killed mid-send): that one is dropped, as a relay that never
answered the DATA does not deliver it. A file DIR/delay holding a number of seconds makes each
accepted message wait that long before its answer (a slow relay).
"""

import asyncio
import email
import email.policy
import os
import socket
import sys

from aiosmtpd.controller import Controller


class Keep:
    def __init__(self, folder):
        self.folder = folder
        self.count = 0
        self.refused = 0

    async def handle_DATA(self, server, session, envelope):
        stall = os.path.join(self.folder, "stall")
        if os.path.exists(stall):
            open(os.path.join(self.folder, "stalled"), "w").close()
            while os.path.exists(stall):
                await asyncio.sleep(0.05)
            if server.transport is None or server.transport.is_closing():
                return "421 4.4.2 the client went away"
        data = envelope.original_content or envelope.content
        refuse = os.path.join(self.folder, "refuse")
        if os.path.exists(refuse):
            with open(refuse, encoding="utf-8") as f:
                answer = f.read().strip()
            self.refused += 1
            keep(os.path.join(self.folder, "refused"), self.refused, data, envelope)
            return answer or "451 4.3.0 try again later"
        delay = os.path.join(self.folder, "delay")
        if os.path.exists(delay):
            with open(delay, encoding="utf-8") as f:
                await asyncio.sleep(float(f.read().strip() or "0"))
        self.count += 1
        keep(self.folder, self.count, data, envelope)
        return "250 2.0.0 kept"


def keep(folder, number, data, envelope):
    """Writes message `data` as folder/NNNN.eml, with its .rcpt and .txt beside it."""
    os.makedirs(folder, exist_ok=True)
    base = os.path.join(folder, "%04d" % number)
    message = email.message_from_bytes(data, policy=email.policy.default)
    plain = message.get_body(preferencelist=("plain",))
    with open(base + ".txt", "w", encoding="utf-8") as f:
        f.write(plain.get_content() if plain is not None else "")
    with open(base + ".tmp", "wb") as f:
        f.write(data)
    with open(base + ".rcpt", "w", encoding="utf-8") as f:
        f.write("\n".join(envelope.rcpt_tos) + "\n")
    os.rename(base + ".tmp", base + ".eml")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    folder = sys.argv[1]
    port = free_port()
    controller = Controller(Keep(folder), hostname="127.0.0.1", port=port)
    controller.start()
    print(port, flush=True)
    try:
        asyncio.new_event_loop().run_forever()
    finally:
        controller.stop()


if __name__ == "__main__":
    main()
