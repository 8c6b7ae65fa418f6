"""Views of a message that undo common obfuscation, so the rule patterns see what a model would.

Each view is cheap and only produced when the text shows a hint of it (a long base64-looking
token, `%xx` escapes, a non-ASCII letter, digits inside words, spaced-out letters, the word
"rot13"), so an ordinary message yields one or two variants. Decoding is bounded: at most `max_depth` rounds of decoding
applied to decoded text, `max_variants` variants in all, and encoded tokens of at most
`max_token_chars` characters. Every variant is lower-cased, ready for the lower-case patterns.
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
from urllib.parse import unquote_plus

# Latin look-alikes from other scripts that NFKC leaves alone (Unicode TR39 confusables, the
# subset that spells English attack words). NFKC already folds full-width and math alphabets.
_CONFUSABLE_PAIRS = (
    "аa әa вb гr дd еe ёe єe һh іi їi јj кk ӏl мm нh оo рp ԛq ѕs тt уy ԝw хx үy сc "  # Cyrillic
    "ɑa αa βb εe ιi κk νv οo ρp τt υu χx γy "  # Greek
    "ɡg ɪi ʀr ɴn ᴀa ᴇe ᴏo ᴜu ѵv ɩi "  # Latin small capitals and IPA
    "օo սu ոn հh"  # Armenian
)
_CONFUSABLES = str.maketrans({pair[0]: pair[1] for pair in _CONFUSABLE_PAIRS.split(" ")})
_LEET = str.maketrans("0134578@$!|+", "oieastbasilt")
_LEET_HINT = re.compile(r"[a-z][0134578@$|+][a-z]|\b[0134578@$][a-z]{2}|[a-z]{2}[0134578@$]\b")
_SPACED = re.compile(r"\b(?:[^\W_](?P<sep>[ .\-_*|/~]))(?:[^\W_](?P=sep))+[^\W_]\b")
_B64 = re.compile(r"[A-Za-z0-9+/_-]{16,}={0,2}")
_HEX = re.compile(r"(?:\\x[0-9a-fA-F]{2}){4,}|\b(?:[0-9a-fA-F]{2}[ :]?){8,}\b")
_PERCENT = re.compile(r"%[0-9a-fA-F]{2}")
# ROT13 text reads as gibberish to the patterns, and a model only follows it when told to decode it.
_ROT13_HINT = re.compile(r"\brot[\s_-]?13\b|\bcaesar\b", re.IGNORECASE)
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


def _base64(text: str, limits: DecodeLimits) -> Iterator[str]:
    for token in _B64.findall(text)[: limits.max_tokens]:
        if len(token) > limits.max_token_chars or token.isalpha() or token.isdigit():
            continue
        padded = token + "=" * (-len(token) % 4)
        try:
            raw = base64.b64decode(padded.replace("-", "+").replace("_", "/"), validate=True)
        except (binascii.Error, ValueError):
            continue
        if (decoded := _readable(raw)) is not None:
            yield decoded


def _hex(text: str, limits: DecodeLimits) -> Iterator[str]:
    for token in _HEX.findall(text)[: limits.max_tokens]:
        digits = re.sub(r"\\x|[ :]", "", token)
        if len(digits) > limits.max_token_chars or len(digits) % 2:
            continue
        if (decoded := _readable(bytes.fromhex(digits))) is not None:
            yield decoded


def _unescaped(text: str, limits: DecodeLimits) -> Iterator[str]:
    if _PERCENT.search(text):
        yield unquote_plus(text)
    if "&" in text and ";" in text:
        yield html.unescape(text)


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


def _rot13(text: str, limits: DecodeLimits) -> Iterator[str]:
    if _ROT13_HINT.search(text):
        yield codecs.encode(text, "rot13")


_DECODERS: tuple[Callable[[str, DecodeLimits], Iterator[str]], ...] = (
    _base64, _hex, _unescaped, _skeleton, _leet, _despaced, _rot13,
)


def variants(text: str, limits: DecodeLimits = DecodeLimits()) -> list[str]:
    """The lower-cased message followed by its decoded views, breadth first, without duplicates."""
    seen: dict[str, None] = {}
    frontier = [unicodedata.normalize("NFKC", _FORMAT_CHARS.sub("", text))]
    for depth in range(limits.max_depth + 1):
        found: list[str] = []
        for candidate in frontier:
            key = candidate.lower()
            if key in seen:
                continue
            seen[key] = None
            if len(seen) >= limits.max_variants:
                return list(seen)
            if depth < limits.max_depth:
                found.extend(out for decode in _DECODERS for out in decode(candidate, limits))
        frontier = found
    return list(seen)
