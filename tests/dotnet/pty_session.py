#!/usr/bin/env python3
"""Runs a command on a pseudo-terminal of its own, as a person at a terminal would, and types at it.

  pty_session.py TRANSCRIPT [--stdin-null] STEP... -- COMMAND ARGS...

The command leads a session of its own whose controlling terminal is the pseudo-terminal, in the terminal's
foreground (Ctrl-C reaches it, and it may read what is typed); its stdout and stderr are the terminal, and
so is its stdin unless --stdin-null (then /dev/null). The terminal keeps its usual modes: line editing,
echo, Enter typed as a carriage return. The steps, in order:
  wait:TEXT     until TEXT is on the terminal (60 s at most)
  send:KEYS     type KEYS, read with Python's escapes: \\r is Enter, \\x03 Ctrl-C
  hold:SECONDS  the command must still be running SECONDS later
Then it waits for the command to end (120 s at most). TRANSCRIPT gets the lines as the terminal shows them
(a line rewritten with carriage returns, as a progress line is, shows its last text) and TRANSCRIPT.raw
everything the terminal received. Prints "status N" (the command's exit status; 128 + the signal that ended
it) and "ms M" (from the last key typed to the command's end). Exit status 1, with the reason, when a step
fails or the command does not end: its process group is then killed.
"""
import os
import pty
import select
import signal
import sys
import time


class Failed(Exception):
    pass


def main(argv):
    if len(argv) < 4 or "--" not in argv:
        sys.exit(__doc__)
    transcript = argv[1]
    split = argv.index("--")
    options, command = argv[2:split], argv[split + 1:]
    stdin_null = "--stdin-null" in options
    steps = [o.partition(":")[::2] for o in options if o != "--stdin-null"]
    for kind, _ in steps:
        if kind not in ("wait", "send", "hold"):
            sys.exit(f"pty_session.py: unknown step '{kind}' (wait:TEXT, send:KEYS, hold:SECONDS)")

    pid, fd = pty.fork()
    if pid == 0:  # the child: the terminal is its controlling terminal and stdin, stdout, stderr
        if stdin_null:
            null = os.open(os.devnull, os.O_RDONLY)
            os.dup2(null, 0)
            os.close(null)
        try:
            os.execvp(command[0], command)
        except OSError as e:
            os.write(2, f"pty_session.py: cannot run {command[0]}: {e.strerror}\n".encode())
        os._exit(127)

    shown = bytearray()
    status = None
    open_terminal = True

    def pump(seconds):
        """Reads what the terminal shows for up to `seconds`, and notes the command's end."""
        nonlocal status, open_terminal
        if open_terminal:
            ready, _, _ = select.select([fd], [], [], seconds)
            if ready:
                try:
                    data = os.read(fd, 65536)
                except OSError:  # EIO: no process holds the terminal any more
                    data = b""
                if data:
                    shown.extend(data)
                else:
                    open_terminal = False
        else:
            time.sleep(seconds)
        if status is None:
            done, code = os.waitpid(pid, os.WNOHANG)
            if done:
                status = os.waitstatus_to_exitcode(code)
                status = status if status >= 0 else 128 - status

    sent = time.monotonic()
    try:
        for kind, value in steps:
            if kind == "wait":
                deadline = time.monotonic() + 60
                while value.encode() not in shown:
                    if status is not None:
                        raise Failed(f"the command ended (status {status}) before '{value}' showed")
                    if time.monotonic() > deadline:
                        raise Failed(f"'{value}' did not show within 60 s")
                    pump(0.05)
            elif kind == "send":
                # The escapes read, the other characters kept as their UTF-8 bytes.
                os.write(fd, value.encode("utf-8").decode("unicode_escape").encode("latin-1"))
                sent = time.monotonic()
            else:
                until = time.monotonic() + float(value)
                while time.monotonic() < until:
                    pump(0.05)
                    if status is not None:
                        raise Failed(f"the command ended (status {status}) within {value} s of the keys typed")
        deadline = time.monotonic() + 120
        while status is None:
            if time.monotonic() > deadline:
                raise Failed("the command did not end within 120 s of the last step")
            pump(0.05)
        took = time.monotonic() - sent
        end = time.monotonic() + 1  # what it wrote last, unless something it started holds the terminal
        while open_terminal and time.monotonic() < end:
            pump(0.05)
    except Failed as e:
        try:
            os.killpg(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        if status is None:
            os.waitpid(pid, 0)
        print(f"pty_session.py: {e}")
        return 1
    finally:
        with open(transcript + ".raw", "wb") as out:
            out.write(shown)
        with open(transcript, "w", encoding="utf-8", errors="replace") as out:
            for line in shown.decode("utf-8", errors="replace").split("\n"):
                out.write(line.rstrip("\r").split("\r")[-1] + "\n")
        os.close(fd)
    print(f"status {status}")
    print(f"ms {int(took * 1000)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
