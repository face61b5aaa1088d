# SPDX-License-Identifier: GPL-2.0-only
"""The driver process and its answers (docs/driver.md).

One ``nxsim -`` process per :class:`Nxsim`.  Every command answers exactly
one line, ``OK values`` or ``ERR -EXXX message``, so a call writes one
line and reads one.  Blank and comment lines get no answer, and neither
does an ``expect`` that holds: the client checks expects itself, against
the answer it read, with the driver's rules.
"""
import errno as _errno
import os
import re
import shutil
import subprocess

from .words import quote, split

# include/linux/errno.h codes user space's errno module lacks
_KERNEL_ERRNOS = {"ERESTARTNOINTR": 513}


def _errno_of(name):
    """-EINVAL -> -22; a number as it is; 0 when unknown."""
    bare = name.lstrip("-")
    if bare.isdigit():
        return -int(bare)
    code = getattr(_errno, bare, None) or _KERNEL_ERRNOS.get(bare, 0)
    return -code


class Answer(dict):
    """An ``OK`` answer: its ``key=value`` words as a dict (values as the
    driver wrote them, unquoted), every word in order in :attr:`words`,
    and the words without a ``=`` in :attr:`values`.  :attr:`line` is the
    answer as the driver wrote it."""

    def __init__(self, line, words):
        super().__init__()
        self.line = line
        self.words = words[1:]
        self.values = []
        for w in self.words:
            key, eq, val = w.partition("=")
            if eq and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]*", key):
                self[key] = val
            else:
                self.values.append(w)

    def num(self, key):
        """The value of @key as an int or a float."""
        v = self[key]
        try:
            return int(v, 0)
        except ValueError:
            return float(v)


class NxsimError(Exception):
    """An ``ERR`` answer.

    :attr:`errno` is the negative errno (-22), :attr:`name` its name
    (``-EINVAL``), :attr:`message` the text after it, :attr:`reason` what
    is wrong: the library's detail after the errno's text
    ("guest_phys_addr 0x1001 is not a multiple of 4096"), or the script
    error after ``line N:``, with :attr:`line` N; :attr:`command` is what
    was sent."""

    def __init__(self, command, line):
        self.command = command
        self.answer = line
        rest = line[4:] if line.startswith("ERR ") else line
        self.name, _, self.message = rest.partition(" ")
        self.errno = _errno_of(self.name)
        self.line = None
        m = re.match(r"line (\d+): (.*)", self.message)
        if m:
            self.line = int(m.group(1))
            self.reason = m.group(2)
        else:
            text = os.strerror(-self.errno) if self.errno else ""
            if text and self.message.startswith(text + ": "):
                self.reason = self.message[len(text) + 2:]
            else:
                self.reason = self.message
        super().__init__("%s: %s" % (command, line))


class NxsimExpectError(AssertionError):
    """An ``expect`` that did not hold: :attr:`want` the expect's words,
    :attr:`got` the answer, :attr:`lineno` the script line."""

    def __init__(self, want, got, lineno=None):
        self.want, self.got, self.lineno = want, got, lineno
        where = "line %d: " % lineno if lineno else ""
        super().__init__("%sexpectation failed\n  want: %s\n  got:  %s" %
                         (where, " ".join(want), got))


def _verbs(binary):
    """python name -> the verb's words, from ``nxsim --help``'s table."""
    text = subprocess.run([binary, "--help"], check=True,
                          capture_output=True, text=True).stdout
    verbs = {}
    for line in text.splitlines():
        m = re.match(r"  ([a-z][a-z0-9-]*)(?: ([a-z][a-z0-9-]*))?(?:\s|$)",
                     line)
        if not m or line.startswith("  expect"):
            continue
        # a second word in upper case is an argument, not the verb's name
        words = [w for w in m.groups() if w]
        verbs["_".join(words).replace("-", "_")] = words
    return verbs


def _find_binary(binary):
    found = binary or os.environ.get("NXSIM") or shutil.which("nxsim")
    if not found:
        raise FileNotFoundError("no nxsim driver: pass binary=, set NXSIM "
                                "or put nxsim on the PATH")
    return found


class Nxsim:
    """One driver process.

    ``Nxsim(binary=None, args=())`` starts ``binary [args] -`` (binary:
    the argument, else $NXSIM, else nxsim on the PATH).  Every verb of
    ``nxsim --help`` is a method, its words joined by ``_`` (``host
    create`` is :meth:`host_create`, ``trace replay-tlb`` is
    ``trace_replay_tlb``): positional arguments follow the verb, keyword
    arguments are ``key=value`` words, each quoted when it must be.  A
    call returns the :class:`Answer` or raises :class:`NxsimError`.
    """

    def __init__(self, binary=None, args=()):
        self.binary = _find_binary(binary)
        self._verbs = _verbs(self.binary)
        self.last = None
        self._proc = subprocess.Popen(
            [self.binary, *args, "-"], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, text=True, bufsize=1,
            encoding="utf-8", errors="backslashreplace")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        """End the script: the driver destroys what it made and exits.
        Returns its exit status."""
        if self._proc.poll() is None:
            self._proc.stdin.close()
            self._proc.wait()
            self._proc.stdout.close()
        return self._proc.returncode

    def cmd(self, line, check=True):
        """Send one command line; return its answer.  An ``ERR`` raises
        :class:`NxsimError` unless @check is false (then the error is
        returned)."""
        if "\n" in line:
            raise ValueError("one command a call: no newline")
        words = split(line)
        if not words:
            raise ValueError("blank and comment lines get no answer")
        if words[0] == "expect":
            raise ValueError("use expect() for expect lines")
        self._proc.stdin.write(line + "\n")
        self._proc.stdin.flush()
        got = self._proc.stdout.readline()
        if not got:
            raise EOFError("nxsim exited (status %s) after: %s" %
                           (self._proc.wait(), line))
        got = got.rstrip("\n")
        self.last = got
        if got.startswith("OK"):
            return Answer(got, split(got))
        err = NxsimError(line, got)
        if check:
            raise err
        return err

    def call(self, *words, check=True, **options):
        """``call("vm", "create", "v1")``: the words, then key=value."""
        parts = [quote(w) for w in words]
        parts += ["%s=%s" % (k, quote(v)) for k, v in options.items()]
        return self.cmd(" ".join(parts), check=check)

    def __getattr__(self, name):
        verbs = self.__dict__.get("_verbs") or {}
        if name not in verbs:
            raise AttributeError("nxsim has no verb %r (nxsim --help)" % name)
        words = verbs[name]

        def verb(*args, check=True, **options):
            return self.call(*words, *args, check=check, **options)

        verb.__name__ = name
        verb.__doc__ = "nxsim verb \"%s\"" % " ".join(words)
        return verb

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._verbs))

    def expect(self, status, *words, lineno=None):
        """Check the last answer as an ``expect`` line does: @status OK
        or ERR; after OK, words must be the answer's exactly ("*" any one,
        a final "..." any rest); after ERR they must begin it."""
        want = [status, *words]
        if self.last is None:
            raise NxsimExpectError(want, "(no answer yet)", lineno)
        try:
            got = split(self.last)
        except ValueError:
            got = self.last.split()
        if not _holds(want, got):
            raise NxsimExpectError(want, self.last, lineno)

    def run_script(self, text):
        """Run a script's lines: commands go to the driver, ``expect``
        lines are checked here, blank and comment lines skipped.  An
        ``ERR`` is an answer (an expect may want it).  Returns the answers
        in order; raises :class:`NxsimExpectError` at the first expect
        that fails."""
        answers = []
        for lineno, line in enumerate(text.splitlines(), 1):
            line = line.rstrip("\r")
            words = split(line)
            if not words:
                continue
            if words[0] == "expect":
                if len(words) < 2 or words[1] not in ("OK", "ERR"):
                    raise ValueError("line %d: expect needs OK or ERR" %
                                     lineno)
                self.expect(*words[1:], lineno=lineno)
                continue
            answers.append(self.cmd(line, check=False))
        return answers


def _holds(want, got):
    if not got or got[0] != want[0]:
        return False
    if len(want) == 1:
        return True
    for i in range(1, len(want)):
        if want[i] == "..." and i == len(want) - 1:
            return True
        if i >= len(got):
            return False
        if want[i] != "*" and want[i] != got[i]:
            return False
    return len(got) == len(want) or want[0] == "ERR"
