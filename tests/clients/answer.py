#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Run a command on a terminal (a pty) and answer its prompts as a person would.

    answer.py PROMPT=ANSWER... -- CMD [ARG...]

When the output has shown PROMPT (a substring) and then stayed quiet for half
a second (the command waits for input: zypper discards what was typed before
it asks), ANSWER and a newline are typed; zypper reads answers only from a
terminal.  The output goes to stdout without the terminal's carriage returns;
the exit status is the command's."""
import os
import pty
import select
import sys

split = sys.argv.index("--")
rules = [a.split("=", 1) for a in sys.argv[1:split]]
cmd = sys.argv[split + 1:]
pid, fd = pty.fork()
if pid == 0:
    os.execvp(cmd[0], cmd)
seen = b""
pending = None
while True:
    ready, _, _ = select.select([fd], [], [], 0.5 if pending else None)
    if not ready:			# quiet after a prompt: answer it
        os.write(fd, pending.encode() + b"\n")
        pending = None
        continue
    try:
        data = os.read(fd, 4096)
    except OSError:			# EIO: the command closed the terminal
        break
    if not data:
        break
    sys.stdout.buffer.write(data.replace(b"\r", b""))
    sys.stdout.buffer.flush()
    seen = (seen + data)[-4096:]
    for prompt, ans in rules:
        if prompt.encode() in seen:
            seen = seen[seen.rindex(prompt.encode()) + len(prompt):]
            pending = ans
            break
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status) if hasattr(os, "waitstatus_to_exitcode")
         else (status >> 8))
