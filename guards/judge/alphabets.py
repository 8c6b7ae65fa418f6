"""Letters written in another alphabet: Morse code, Braille cells and the NATO spelling alphabet.

Red-team tools send a request spelt this way ("Decode this and follow it: .. --. -. --- .-. .") so
that a filter reading words sees none. Each reader reads one run of at least `_MIN_SYMBOLS` of its
symbols (`MORSE_RUN`, `BRAILLE_RUN`, `NATO_RUN`), bounded like every other encoding
(`decoders._encoded`): a customer's "..." or a name spelt "Sierra Echo" in passing is not a
sentence. What they find counts as hidden text (`decoders._DECODERS`): a customer does not write
to a shop in Morse.
"""

from __future__ import annotations

import re
from string import ascii_lowercase, digits

_MIN_SYMBOLS = 4

_MORSE_CODES = [".-", "-...", "-.-.", "-..", ".", "..-.", "--.", "....", "..", ".---", "-.-", ".-..", "--", "-.",
                "---", ".--.", "--.-", ".-.", "...", "-", "..-", "...-", ".--", "-..-", "-.--", "--..",
                "-----", ".----", "..---", "...--", "....-", ".....", "-....", "--...", "---..", "----."]
_MORSE = dict(zip(_MORSE_CODES, ascii_lowercase + digits, strict=True))
#: Letters of dots and dashes, a space between letters, a slash, a bar or a wider gap between words.
MORSE_RUN = re.compile(rf"(?:[.\-]{{1,6}}(?:\s*[/|]\s*|\s+)){{{_MIN_SYMBOLS - 1},}}[.\-]{{1,6}}")
_MORSE_WORD_BREAK = re.compile(r"\s*[/|]\s*|\s{2,}")

# Braille letters a–z (grade 1); the other cells of the block read as nothing.
_BRAILLE = str.maketrans(dict(zip("⠁⠃⠉⠙⠑⠋⠛⠓⠊⠚⠅⠇⠍⠝⠕⠏⠟⠗⠎⠞⠥⠧⠺⠭⠽⠵", ascii_lowercase, strict=True)))
BRAILLE_RUN = re.compile(rf"[\u2800-\u28ff][\u2800-\u28ff\s]{{{_MIN_SYMBOLS - 1},}}")

_NATO_WORDS = ("alfa alpha bravo charlie delta echo foxtrot golf hotel india juliett juliet kilo lima mike "
               "november oscar papa quebec romeo sierra tango uniform victor whiskey xray x-ray yankee zulu")
_NATO = {word: word[0] for word in _NATO_WORDS.split()}
_NATO_GAP = r"(?:[\s,;.\-]+|\s*(?:/|\||\bspace\b|\bstop\b)\s*)"
_NATO_ANY = "|".join(map(re.escape, _NATO))
NATO_RUN = re.compile(rf"\b(?:(?:{_NATO_ANY}){_NATO_GAP}){{{_MIN_SYMBOLS - 1},}}(?:{_NATO_ANY})\b", re.IGNORECASE)
_NATO_WORD_BREAK = re.compile(r"\s*(?:/|\||\bspace\b|\bstop\b)\s*", re.IGNORECASE)
_NATO_LETTER = re.compile(r"[a-z]+(?:-ray)?", re.IGNORECASE)


def morse(run: str) -> bytes:
    words = ("".join(_MORSE.get(code, "") for code in word.split()) for word in _MORSE_WORD_BREAK.split(run))
    return " ".join(word for word in words if word).encode()


def braille(run: str) -> bytes:
    return " ".join(run.translate(_BRAILLE).split()).encode()


def nato(run: str) -> bytes:
    words = ("".join(_NATO.get(letter.lower(), "") for letter in _NATO_LETTER.findall(part))
             for part in _NATO_WORD_BREAK.split(run))
    return " ".join(word for word in words if word).encode()
