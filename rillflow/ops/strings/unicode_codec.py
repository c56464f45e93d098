"""Decoding bytes to code points as TensorFlow's Unicode ops do (ICU's
converters): each character with the byte offset where it starts.

Invalid input follows ICU, which is the Unicode standard's "maximal
subpart" practice: in UTF-8 a truncated or broken sequence is one error
covering its valid prefix (the next byte starts again), a byte that cannot
start a sequence is one error; in UTF-16-BE an unpaired surrogate or a
trailing odd byte is one error (a high surrogate and an odd byte after it,
one together); in UTF-32-BE each 4-byte unit above
U+10FFFF or in the surrogate range, and a trailing partial unit, is one
error. With `replace_control_characters` the C0 controls (U+0000-U+001F)
count as errors too. An error becomes `replacement_char` ('replace'), is
dropped ('ignore') or raises InvalidArgumentError ('strict').

Other encoding names go through Python's codecs (byte offsets from its
incremental decoder), which agree with ICU on valid input.
"""
import codecs

from ...framework import errors

__all__ = ["decode", "check_decode_attrs", "encode", "ERRORS_MODES"]

ERRORS_MODES = ("strict", "replace", "ignore")
OUTPUT_ENCODINGS = ("UTF-8", "UTF-16-BE", "UTF-32-BE")
_BAD = -1     # an invalid sequence, before the errors mode applies

# The second byte's range after each lead byte; the rest are 0x80-0xBF.
_SECOND = {0xE0: (0xA0, 0xBF), 0xED: (0x80, 0x9F), 0xF0: (0x90, 0xBF), 0xF4: (0x80, 0x8F)}


def _utf8(b):
    """(code point or _BAD, start offset) pairs of UTF-8 bytes `b`."""
    out = []
    i, n = 0, len(b)
    while i < n:
        c = b[i]
        if c < 0x80:
            out.append((c, i))
            i += 1
            continue
        if 0xC2 <= c <= 0xDF:
            need, cp = 1, c & 0x1F
        elif 0xE0 <= c <= 0xEF:
            need, cp = 2, c & 0x0F
        elif 0xF0 <= c <= 0xF4:
            need, cp = 3, c & 0x07
        else:
            out.append((_BAD, i))
            i += 1
            continue
        lo, hi = _SECOND.get(c, (0x80, 0xBF))
        j = i + 1
        ok = True
        for k in range(need):
            if j >= n or not (lo <= b[j] <= hi if k == 0 else 0x80 <= b[j] <= 0xBF):
                ok = False
                break
            cp = (cp << 6) | (b[j] & 0x3F)
            j += 1
        out.append((cp if ok else _BAD, i))
        i = j
    return out


def _utf16be(b):
    out = []
    i, n = 0, len(b)
    while i + 1 < n:
        u = (b[i] << 8) | b[i + 1]
        if 0xD800 <= u <= 0xDBFF:
            if i + 3 < n:
                u2 = (b[i + 2] << 8) | b[i + 3]
                if 0xDC00 <= u2 <= 0xDFFF:
                    out.append((0x10000 + ((u - 0xD800) << 10) + (u2 - 0xDC00), i))
                    i += 4
                    continue
            else:
                # A high surrogate and a truncated (or no) next unit: one error.
                out.append((_BAD, i))
                return out
            out.append((_BAD, i))
        elif 0xDC00 <= u <= 0xDFFF:
            out.append((_BAD, i))
        else:
            out.append((u, i))
        i += 2
    if i < n:
        out.append((_BAD, i))
    return out


def _utf32be(b):
    out = []
    n = len(b)
    for i in range(0, n - n % 4, 4):
        u = int.from_bytes(b[i:i + 4], "big")
        out.append((_BAD if u > 0x10FFFF or 0xD800 <= u <= 0xDFFF else u, i))
    if n % 4:
        out.append((_BAD, n - n % 4))
    return out


def _python_codec(name):
    def decode(b):
        dec = codecs.getincrementaldecoder(name)("replace")
        out, start = [], 0
        for i in range(len(b)):
            text = dec.decode(b[i:i + 1])
            for ch in text:
                out.append((_BAD if ch == "\ufffd" else ord(ch), start))
            if text:
                start = i + 1
        for ch in dec.decode(b"", final=True):
            out.append((_BAD if ch == "\ufffd" else ord(ch), start))
        return out
    return decode


_EXACT = {"utf-8": _utf8, "utf-16-be": _utf16be, "utf-32-be": _utf32be}


def _decoder(encoding, op_name):
    try:
        name = codecs.lookup(encoding).name
    except (LookupError, TypeError):
        raise errors.InvalidArgumentError(
            None, None, f"Could not create converter for input encoding: {encoding} "
                        f"[Op:{op_name}]") from None
    return _EXACT.get(name) or _python_codec(name)


def check_decode_attrs(op_name, errors_mode, replacement_char):
    """TensorFlow's checks of the errors mode and the replacement character."""
    if errors_mode not in ERRORS_MODES:
        raise errors.InvalidArgumentError(
            None, None, f"Value for attr 'errors' of \"{errors_mode}\" is not in the list of "
                        f"allowed values: \"strict\", \"replace\", \"ignore\" [Op:{op_name}]")
    if not 0 <= int(replacement_char) <= 0x10FFFF:
        raise errors.InvalidArgumentError(
            None, None, f"replacement_char out of unicode codepoint range [Op:{op_name}]")


def decode(strings, encoding, errors_mode, replacement_char, replace_control, op_name):
    """For each bytes object, its (code points, start offsets) lists."""
    dec = _decoder(encoding, op_name)
    result = []
    for b in strings:
        cps, offs = [], []
        for cp, off in dec(bytes(b)):
            if cp == _BAD or (replace_control and cp < 0x20):
                if errors_mode == "strict":
                    raise errors.InvalidArgumentError(
                        None, None, f"Invalid formatting on input string [Op:{op_name}]")
                if errors_mode == "ignore":
                    continue
                cp = replacement_char
            cps.append(cp)
            offs.append(off)
        result.append((cps, offs))
    return result


def encode(code_points, encoding):
    """Code points as bytes in one of TensorFlow's output encodings; a
    surrogate code point (which no encoder writes) becomes U+FFFD."""
    text = "".join(chr(0xFFFD if 0xD800 <= c <= 0xDFFF else c) for c in code_points)
    return text.encode({"UTF-8": "utf-8", "UTF-16-BE": "utf-16-be",
                        "UTF-32-BE": "utf-32-be"}[encoding])
