"""First guard of every turn: make a customer's message safe to hand to anything else.

Policy (an allow-list by Unicode general category, so any language passes):
- letters, marks, numbers, punctuation, symbols (emoji are symbols) and spaces are kept;
  `\\n` and `\\t` are kept, `\\r\\n`/`\\r` and line/paragraph separators become `\\n`;
- other control, format, private-use, surrogate and unassigned code points are removed and recorded;
- bidi overrides/isolates/marks and zero-width characters are removed: they hide or reorder text;
- ZWJ (U+200D) is kept only *inside* an emoji sequence (emoji on both sides, e.g. 👩‍💻): that is the
  only place it is meaningful, and there it cannot split a word to dodge the Judge. ZWNJ (U+200C) is
  kept only between two non-ASCII letters (Persian, Indic scripts need it);
- Unicode tag characters (U+E0000 block) reject the message: they are an invisible smuggling
  channel. The one legitimate use, the three RGI subdivision flags (England, Scotland, Wales), is
  let through as an exact sequence;
- more than `MAX_MARKS` combining marks on one base character ("Zalgo" text) are cut down.
Length is checked in characters and UTF-8 bytes, on the raw input (so cleaning cannot be made
expensive) and again after NFKC (which can expand text).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter

from pydantic import BaseModel, Field

MAX_MARKS = 4
_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_ZERO_WIDTH = frozenset("\u180e\u200b\u200c\u200d\u2060\u2061\u2062\u2063\u2064\ufeff")
_ZWJ, _ZWNJ = "\u200d", "\u200c"
_EMOJI_TRAILERS = frozenset("\ufe0f\ufe0e\u20e3") | frozenset(chr(c) for c in range(0x1F3FB, 0x1F400))
_FLAG_TAGS = re.compile("\U0001f3f4(?:\U000e0067\U000e0062(?:\U000e0065\U000e006e\U000e0067"
                        "|\U000e0073\U000e0063\U000e0074|\U000e0077\U000e006c\U000e0073))\U000e007f")
_TAG = re.compile("[\U000e0000-\U000e007f]")
_NEWLINES = re.compile("\r\n?|[\u2028\u2029\x85]")
_KEPT_CATEGORIES = ("L", "M", "N", "P", "S", "Zs")


class Change(BaseModel):
    kind: str
    detail: str
    count: int = Field(ge=1)


class Sanitized(BaseModel):
    """Cleaned text (empty when rejected), what was changed and why, and a customer-facing reason."""

    text: str
    changes: list[Change] = Field(default_factory=list)
    rejected: bool = False
    reason: str | None = None


_WHY = {
    "control": "control characters are not text",
    "bidi": "bidirectional controls can reorder or hide text",
    "zero_width": "zero-width characters can hide or split words",
    "format": "invisible formatting characters are not text",
    "private_use": "private-use or unassigned characters have no agreed meaning",
    "marks": f"more than {MAX_MARKS} combining marks on one character",
    "newline": "line breaks normalised to \\n",
    "nfkc": "compatibility characters normalised (NFKC)",
    "trim": "surrounding whitespace removed",
}


def _too_long(n: int, limit: int, unit: str) -> str:
    noun = "too long" if unit == "characters" else "too large"
    return f"Your message is {noun} ({n:,} {unit}; the limit is {limit:,}). Please shorten it."


def _length_problem(text: str, max_chars: int, max_bytes: int) -> str | None:
    if len(text) > max_chars:
        return _too_long(len(text), max_chars, "characters")
    size = len(text.encode("utf-8", "surrogatepass"))
    return _too_long(size, max_bytes, "bytes") if size > max_bytes else None


def _is_emoji(ch: str) -> bool:
    return unicodedata.category(ch) in ("So", "Sk") or ch in _EMOJI_TRAILERS


def _keep_joiner(text: str, i: int) -> bool:
    before, after = text[i - 1 : i], text[i + 1 : i + 2]
    if not before or not after:
        return False
    if text[i] == _ZWJ:
        return _is_emoji(before) and unicodedata.category(after) == "So"
    return before.isalpha() and after.isalpha() and not before.isascii() and not after.isascii()


def _classify(text: str, i: int, marks_run: int) -> str | None:
    """The change kind that removes text[i], or None to keep it."""
    ch = text[i]
    if ch in "\n\t":
        return None
    if ch in _BIDI:
        return "bidi"
    if _TAG.match(ch):
        return None  # only the allowed flag sequences get here: `sanitize` rejected any other tag

    if ch in _ZERO_WIDTH:
        return None if ch in (_ZWJ, _ZWNJ) and _keep_joiner(text, i) else "zero_width"
    cat = unicodedata.category(ch)
    if cat.startswith("M") and marks_run >= MAX_MARKS:
        return "marks"
    if cat.startswith(_KEPT_CATEGORIES):
        return None
    return {"Cc": "control", "Cf": "format"}.get(cat, "private_use")


def _clean(text: str, changes: Counter[str]) -> str:
    out: list[str] = []
    marks_run = 0
    for i, ch in enumerate(text):
        kind = _classify(text, i, marks_run)
        marks_run = marks_run + 1 if unicodedata.category(ch).startswith("M") else 0
        if kind is None:
            out.append(ch)
        else:
            changes[kind] += 1
    return "".join(out)


def sanitize(text: str, *, max_chars: int, max_bytes: int) -> Sanitized:
    """Clean one customer message, or reject it with a reason the customer can act on."""
    if problem := _length_problem(text, max_chars, max_bytes):
        return Sanitized(text="", rejected=True, reason=problem)
    changes: Counter[str] = Counter()
    tags = len(_TAG.findall(_FLAG_TAGS.sub("", text)))
    if tags:
        return Sanitized(
            text="", rejected=True,
            changes=[Change(kind="tag", detail="Unicode tag characters (invisible text)", count=tags)],
            reason="Your message contains hidden characters we can't accept. Please retype it.",
        )
    text, newlines = _NEWLINES.subn("\n", text)
    changes["newline"] += newlines
    normalised = unicodedata.normalize("NFKC", text)
    changes["nfkc"] += int(normalised != text)
    cleaned = _clean(normalised, changes)
    stripped = cleaned.strip()
    changes["trim"] += int(stripped != cleaned)
    recorded = [Change(kind=k, detail=_WHY[k], count=n) for k, n in changes.items() if n]
    if problem := _length_problem(stripped, max_chars, max_bytes):
        return Sanitized(text="", changes=recorded, rejected=True, reason=problem)
    if not stripped:
        reason = ("Your message had no readable text after removing characters we can't accept."
                  if text.strip() else "Please type a message.")
        return Sanitized(text="", changes=recorded, rejected=True, reason=reason)
    return Sanitized(text=stripped, changes=recorded)
