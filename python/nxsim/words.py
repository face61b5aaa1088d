# SPDX-License-Identifier: GPL-2.0-only
"""Words of the line protocol: split a line as the driver does, and quote
a value so that the driver reads it back as itself (docs/driver.md: blanks
separate words, "..." parts are C strings, '#' at a word's start begins a
comment)."""

_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"',
            "'": "'", "a": "\a", "b": "\b", "f": "\f", "v": "\v",
            "e": "\x1b"}
_QUOTES = {v: k for k, v in _ESCAPES.items() if k not in "'e"}


def split(line):
    """The words of @line, unquoted; the comment is dropped.

    Raises ValueError for an unterminated string or an unknown escape,
    as the driver answers ERR -EINVAL for them.
    """
    words, cur, in_word, i, n = [], [], False, 0, len(line)
    while i < n:
        c = line[i]
        if c in " \t" :
            if in_word:
                words.append("".join(cur))
                cur, in_word = [], False
            i += 1
            continue
        if c == "#" and not in_word:
            break
        in_word = True
        if c != '"':
            cur.append(c)
            i += 1
            continue
        i += 1
        while True:
            if i >= n:
                raise ValueError("unterminated string")
            c = line[i]
            if c == '"':
                i += 1
                break
            if c != "\\":
                cur.append(c)
                i += 1
                continue
            i += 1
            if i >= n:
                raise ValueError("unterminated string")
            e = line[i]
            if e in _ESCAPES:
                cur.append(_ESCAPES[e])
                i += 1
            elif e == "x":
                digits = ""
                while i + 1 < n and len(digits) < 2 and \
                        line[i + 1] in "0123456789abcdefABCDEF":
                    digits += line[i + 1]
                    i += 1
                if not digits:
                    raise ValueError("\\x without hex digits")
                cur.append(chr(int(digits, 16)))
                i += 1
            elif e in "01234567":
                digits = e
                while i + 1 < n and len(digits) < 3 and \
                        line[i + 1] in "01234567":
                    digits += line[i + 1]
                    i += 1
                cur.append(chr(int(digits, 8)))
                i += 1
            else:
                raise ValueError("unknown escape \\" + e)
    if in_word:
        words.append("".join(cur))
    return words


def _bare(s):
    return s != "" and not s.startswith("#") and all(
        0x20 < ord(c) < 0x7f and c not in '"\\' for c in s)


def quote(value):
    """@value as one word: bare when it reads back as itself, else a C
    string ("never\\n").  Numbers and booleans are written as the driver
    reads them (True is 1)."""
    if isinstance(value, bool):
        value = int(value)
    s = str(value)
    if _bare(s):
        return s
    out = []
    for c in s:
        if c in _QUOTES:
            out.append("\\" + _QUOTES[c])
        elif ord(c) < 0x20 or ord(c) == 0x7f:
            out.append("\\%03o" % ord(c))
        else:
            out.append(c)
    return '"' + "".join(out) + '"'
