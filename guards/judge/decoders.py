"""Views of a message that undo common obfuscation, so the rule patterns see what a model would.

Each view is cheap and only produced when the text shows a hint of it (a long base64-, base32- or
binary-looking token, `%xx` escapes, a non-ASCII letter, digits inside words, spaced-out letters,
the word "rot13", upside-down letters, or English function words that only appear once the text is
read backwards or its letters shifted), so an ordinary message yields one or two variants.
Decoding is bounded: at most `max_depth` rounds of decoding applied to decoded text, `max_variants`
variants in all, and encoded tokens of at most `max_token_chars` characters. Every variant is
lower-cased, ready for the lower-case patterns. `decode` also says which views are sentences hidden
in an encoding or a cipher (`Views.hidden`), which the Judge blocks whatever they say, and which
views read as English that the message itself disguises (`Views.plain`), which the Judge's model
reads too.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import html
import re
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from itertools import islice
from string import ascii_lowercase
from urllib.parse import unquote_plus

from guards.judge import alphabets

# Latin look-alikes from other scripts that NFKC leaves alone (Unicode TR39 confusables, the
# subset that spells English attack words). NFKC already folds full-width and math alphabets.
_CONFUSABLE_PAIRS = (
    "аa әa вb гr дd еe ёe єe һh іi їi јj кk ӏl мm нh оo рp ԛq ѕs тt уy ԝw хx үy сc "  # Cyrillic
    "ɑa αa βb εe ιi κk νv οo ρp τt υu χx γy "  # Greek
    "ɡg ɪi ʀr ɴn ᴀa ᴇe ᴏo ᴜu ѵv ɩi ʙb ᴄc ᴅd ꜰf ɢg ʜh ᴊj ᴋk ʟl ᴍm ᴘp ꜱs ᴛt ᴠv ᴡw ʏy ᴢz "  # small caps, IPA
    "օo սu ոn հh"  # Armenian
)
_CONFUSABLES = str.maketrans({pair[0]: pair[1] for pair in _CONFUSABLE_PAIRS.split(" ")})
_LEET = str.maketrans("0134578@$!|+", "oieastbasilt")
_LEET_HINT = re.compile(r"[a-z][0134578@$|+][a-z]|\b[0134578@$][a-z]{2}|[a-z]{2}[0134578@$]\b")
_SPACED = re.compile(r"\b(?:[^\W_](?P<sep>[ .\-_*|/~]))(?:[^\W_](?P=sep))+[^\W_]\b")
_WORD_GAP = re.compile(r"\s{2,}")
_B64 = re.compile(r"[A-Za-z0-9+/_-]{16,}={0,2}")
_B32 = re.compile(r"\b[A-Z2-7]{16,}={0,6}")
_BINARY = re.compile(r"\b(?:[01]{8}\s?){4,}")
_HEX = re.compile(r"(?:\\x[0-9a-fA-F]{2}){4,}|\b(?:[0-9a-fA-F]{2}[ :]?){8,}\b")
_PERCENT = re.compile(r"%[0-9a-fA-F]{2}")
_UNICODE_ESCAPES = re.compile(r"(?:\\u[0-9a-fA-F]{4}|\\U[0-9a-fA-F]{8}){4,}")
_UNICODE_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})|\\U([0-9a-fA-F]{8})")
#: Bytes written as numbers: eight or more decimal (32–126) or three-digit octal values in a row.
_NUMBERS = re.compile(r"\b(?:\d{2,3}[\s,;]+){7,}\d{2,3}\b")
#: Ascii85 (between its delimiters or bare) or base85: a long token of their alphabets.
_A85 = re.compile(r"<~[!-uz\s]{10,}~>|[!-uz]{20,}|[0-9A-Za-z!#$%&()*+\-;<=>?@^_`{|}~]{20,}")
# ROT13 text reads as gibberish to the patterns, and a model only follows it when told to decode it.
_ROT13_HINT = re.compile(r"\brot[\s_-]?13\b|\bcaesar\b", re.IGNORECASE)
# Upside-down text: turned letters, read from the end; b/q, d/p and n/u swap places when turned.
_TURNED = str.maketrans("ɐɔǝɟƃɥᴉɾʞɯɹʇʌʍʎbqdpnu", "acefghijkmrtvwyqbpdun")
_TURNED_HINT = re.compile("[ɐɔǝɟƃɥᴉɾʞɯɹʇʌʍʎ][^ɐɔǝɟƃɥᴉɾʞɯɹʇʌʍʎ]*[ɐɔǝɟƃɥᴉɾʞɯɹʇʌʍʎ]")
# Words common in any English sentence, three letters or more (shorter ones turn up by chance when
# a language's letters are shifted). Text with few of them that gains many when reversed or
# letter-shifted (Caesar, ROT-n, Atbash) was enciphered English; real English or another language
# does not gain them that way.
_FUNCTION_WORDS = frozenset((
    "the", "and", "you", "your", "are", "all", "for", "with", "this", "that", "not", "what", "how",
    "please", "now", "from", "any", "every", "give", "tell", "show", "list", "can", "will", "was", "have",
))
_WORD = re.compile(r"[a-z]+")
#: Ciphered views are sought in this many leading characters; the whole text is decoded once found.
_CIPHER_PROBE_CHARS = 2000
_SHIFTS = tuple(str.maketrans(ascii_lowercase, ascii_lowercase[k:] + ascii_lowercase[:k]) for k in range(1, 26))
_ATBASH = str.maketrans(ascii_lowercase, ascii_lowercase[::-1])
_FORMAT_CHARS = re.compile(r"[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]")


@dataclass(frozen=True)
class DecodeLimits:
    max_depth: int = 2
    max_variants: int = 8
    max_token_chars: int = 4096
    max_tokens: int = 4


def _readable(raw: bytes) -> str | None:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    printable = sum(ch.isprintable() or ch in "\n\t" for ch in text)
    return text if text and printable >= 0.9 * len(text) else None


def _encoded(tokens: re.Pattern[str], to_bytes: Callable[[str], bytes | None], text: str,
             limits: DecodeLimits) -> Iterator[str]:
    """The readable text behind each of the first `max_tokens` tokens `tokens` finds, when the token
    is no longer than `max_token_chars` and `to_bytes` can decode it (None: not this encoding)."""
    for match in islice(tokens.finditer(text), limits.max_tokens):
        if len(token := match.group(0)) > limits.max_token_chars:
            continue
        try:
            raw = to_bytes(token)
        except (binascii.Error, ValueError):
            continue
        if raw is not None and (decoded := _readable(raw)) is not None:
            yield decoded


def _base64_bytes(token: str) -> bytes | None:
    if token.isalpha() or token.isdigit():
        return None
    padded = token + "=" * (-len(token) % 4)
    return base64.b64decode(padded.replace("-", "+").replace("_", "/"), validate=True)


def _base32_bytes(token: str) -> bytes:
    unpadded = token.rstrip("=")
    return base64.b32decode(unpadded + "=" * (-len(unpadded) % 8))


def _hex_bytes(token: str) -> bytes | None:
    digits = re.sub(r"\\x|[ :]", "", token)
    if len(digits) % 2:
        return None
    return bytes.fromhex(digits)


def _binary_bytes(token: str) -> bytes:
    bits = "".join(token.split())
    return int(bits, 2).to_bytes(len(bits) // 8, "big")


def _numbers_bytes(token: str) -> bytes | None:
    values = re.split(r"[\s,;]+", token)
    if all(len(v) == 3 and set(v) <= set("01234567") for v in values) and any(v.startswith("1") for v in values):
        return bytes(int(v, 8) for v in values)  # octal letters run 101–172
    return bytes(int(v) for v in values) if all(32 <= int(v) <= 126 for v in values) else None


def _base85_bytes(token: str) -> bytes:
    if token.startswith("<~"):
        return base64.a85decode(token, adobe=True, ignorechars=b" \t\n\r")
    try:
        return base64.b85decode(token)
    except ValueError:
        return base64.a85decode(token)


def _unescaped(text: str, limits: DecodeLimits) -> Iterator[str]:
    if _PERCENT.search(text):
        yield unquote_plus(text)
    if "&" in text and ";" in text:
        yield html.unescape(text)
    if _UNICODE_ESCAPES.search(text):
        yield _UNICODE_ESCAPES.sub(lambda run: _UNICODE_ESCAPE.sub(_character, run.group(0)), text)


def _character(escape: re.Match[str]) -> str:
    """The character a `\\u`/`\\U` escape names; an escape of no character (past U+10FFFF, or half
    of a surrogate pair) stays as typed, since a view must be text every later step can encode."""
    code = int(escape.group(1) or escape.group(2), 16)
    return escape.group(0) if code > 0x10FFFF or 0xD800 <= code <= 0xDFFF else chr(code)


def _skeleton(text: str, limits: DecodeLimits) -> Iterator[str]:
    if not text.isascii():
        folded = unicodedata.normalize("NFKD", text.lower().translate(_CONFUSABLES))
        yield "".join(ch for ch in folded if not unicodedata.combining(ch))


def _leet(text: str, limits: DecodeLimits) -> Iterator[str]:
    lowered = text.lower()
    if _LEET_HINT.search(lowered):
        yield lowered.translate(_LEET)


def _despaced(text: str, limits: DecodeLimits) -> Iterator[str]:
    if _SPACED.search(text):
        yield _SPACED.sub(lambda m: m.group(0).replace(m.group("sep"), ""), text)
    # Every character spaced out, words set apart by wider gaps ("s h o w   m e"): the gaps are the
    # word breaks, which also rejoins the words of one or two letters the pattern above leaves.
    tokens = text.split()
    if len(tokens) >= 6 and sum(len(token) == 1 for token in tokens) >= 0.6 * len(tokens) and _WORD_GAP.search(text):
        yield " ".join("".join(word.split()) for word in _WORD_GAP.split(text.strip()))


def _rot13(text: str, limits: DecodeLimits) -> Iterator[str]:
    if _ROT13_HINT.search(text):
        yield codecs.encode(text, "rot13")


def _upside_down(text: str, limits: DecodeLimits) -> Iterator[str]:
    if _TURNED_HINT.search(text):
        yield text.lower().translate(_TURNED)[::-1]


def _common(words: list[str]) -> int:
    return sum(word in _FUNCTION_WORDS for word in words)


def _read(text: str, cipher: dict[int, int] | None) -> str:
    """`text` backwards (`cipher` None) or through a letter-substitution table."""
    return text[::-1] if cipher is None else text.translate(cipher)


def _enciphered(text: str, limits: DecodeLimits) -> Iterator[str]:
    """Reversed or letter-shifted English: the one reading that gains the most function words, when
    it gains at least three and they are a quarter of its words."""
    probe = text[:_CIPHER_PROBE_CHARS].lower()
    if not probe.isascii():
        return
    # Reading backwards or through a cipher maps letters to letters, so the words stay where they
    # are: split once, and read only the words (27 readings of every ASCII message).
    words = _WORD.findall(probe)
    if len(words) < 3:
        return
    joined, before = " ".join(words), _common(words)
    best: dict[int, int] | None = None
    gain = 0
    for cipher in (None, _ATBASH, *_SHIFTS):
        found = _common(_read(joined, cipher).split())
        if found - before > gain and found >= 3 and 4 * found >= len(words):
            best, gain = cipher, found - before
    if gain:
        yield _read(text.lower(), best)


#: Each decoder, and whether what it finds is hidden text: an encoding or a cipher that nobody uses to
#: write to a shop (escapes, accents, look-alikes, leetspeak and spacing are ordinary typing too).
_DECODERS: tuple[tuple[Callable[[str, DecodeLimits], Iterator[str]], bool], ...] = (
    (partial(_encoded, _B64, _base64_bytes), True), (partial(_encoded, _B32, _base32_bytes), True),
    (partial(_encoded, _HEX, _hex_bytes), True), (partial(_encoded, _BINARY, _binary_bytes), True),
    (partial(_encoded, _NUMBERS, _numbers_bytes), True), (partial(_encoded, _A85, _base85_bytes), True),
    (partial(_encoded, alphabets.MORSE_RUN, alphabets.morse), True),
    (partial(_encoded, alphabets.BRAILLE_RUN, alphabets.braille), True),
    (partial(_encoded, alphabets.NATO_RUN, alphabets.nato), True),
    (_unescaped, False),
    (_skeleton, False), (_leet, False), (_despaced, False), (_rot13, False), (_upside_down, True),
    (_enciphered, True),
)


#: A view is plain English the message disguises when it holds this many more common English words
#: than the message: "1gn0r3 4ll", "s h o w  m e", "Ignоrе аll" (Cyrillic о, е, а), "Ígnóré áll". A
#: Russian or French message folded to Latin look-alikes or stripped of its accents gains none.
_PLAIN_GAIN = 2


@dataclass(frozen=True)
class Views:
    #: The lower-cased message followed by its decoded views, breadth first, without duplicates.
    all: list[str]
    #: Decoded views that hide English sentences in an encoding or a cipher (`_prose`).
    hidden: list[str]

    @property
    def plain(self) -> list[str]:
        """Views, other than hidden ones, that read as English the message disguises (`_PLAIN_GAIN`):
        a model reading the message as typed sees spacing, leetspeak or look-alikes, not the words."""
        typed = _common(_WORD.findall(self.all[0]))
        return [view for view in self.all[1:]
                if view not in self.hidden and _common(_WORD.findall(view)) - typed >= _PLAIN_GAIN]


def _prose(text: str) -> bool:
    """At least three words, one of them a common English word: a sentence, not a token or a key."""
    words = _WORD.findall(text)
    return len(words) >= 3 and _common(words) >= 1


def decode(text: str, limits: DecodeLimits = DecodeLimits()) -> Views:
    seen: dict[str, None] = {}
    hidden: list[str] = []
    frontier = [(unicodedata.normalize("NFKC", _FORMAT_CHARS.sub("", text)), False)]
    for depth in range(limits.max_depth + 1):
        found: list[tuple[str, bool]] = []
        for candidate, hides in frontier:
            key = candidate.lower()
            if key in seen:
                continue
            seen[key] = None
            if hides and _prose(key):
                hidden.append(key)
            if len(seen) >= limits.max_variants:
                return Views(list(seen), hidden)
            if depth < limits.max_depth:
                found.extend((out, hides or hiding) for decoder, hiding in _DECODERS
                             for out in decoder(candidate, limits))
        frontier = found
    return Views(list(seen), hidden)


def variants(text: str, limits: DecodeLimits = DecodeLimits()) -> list[str]:
    """The lower-cased message followed by its decoded views, breadth first, without duplicates."""
    return decode(text, limits).all
