"""A real SMTP server for the notices tests: aiosmtpd (Debian's python3-aiosmtpd) on a free
port of 127.0.0.1, keeping each message it accepts as a file.

Usage: /usr/bin/python3 tests/smtp/sink.py DIR

It prints `PORT` once it listens, then writes every accepted message to DIR/NNNN.eml (the
envelope's recipients in DIR/NNNN.rcpt, one per line; its plain-text part, decoded by Python's
email package, in DIR/NNNN.txt), in the order accepted. While a file
DIR/refuse exists, it answers every message `451 4.3.0 try again later` (a relay that is
busy); its text, when not empty, is the answer instead (e.g. `550 5.1.1 no such user`).
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

    async def handle_DATA(self, server, session, envelope):
        refuse = os.path.join(self.folder, "refuse")
        if os.path.exists(refuse):
            with open(refuse, encoding="utf-8") as f:
                answer = f.read().strip()
            return answer or "451 4.3.0 try again later"
        self.count += 1
        base = os.path.join(self.folder, "%04d" % self.count)
        data = envelope.original_content or envelope.content
        message = email.message_from_bytes(data, policy=email.policy.default)
        plain = message.get_body(preferencelist=("plain",))
        with open(base + ".txt", "w", encoding="utf-8") as f:
            f.write(plain.get_content() if plain is not None else "")
        with open(base + ".tmp", "wb") as f:
            f.write(data)
        with open(base + ".rcpt", "w", encoding="utf-8") as f:
            f.write("\n".join(envelope.rcpt_tos) + "\n")
        os.rename(base + ".tmp", base + ".eml")
        return "250 2.0.0 kept"


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
