"""The sanitizer's policy, one row per behaviour: what is kept, removed, rejected, and why."""

from __future__ import annotations

import pytest

from guards.sanitizer import Sanitized, sanitize

LIMITS = {"max_chars": 2000, "max_bytes": 8000}

KEPT = [
    "Where is my order ORD-10042?",
    "Wo ist meine Bestellung? Grüße aus Köln",
    "Где мой заказ?",
    "我的订单什么时候到?",
    "طلبي لم يصل بعد",
    "ההזמנה שלי עדיין לא הגיעה",
    "मेरा ऑर्डर कब आएगा?",
    "می\u200cخواهم سفارشم را لغو کنم",  # ZWNJ between Persian letters is spelling
    "👩\u200d💻 working from home, deliver before 5",  # ZWJ inside an emoji sequence
    "👨\u200d👩\u200d👧 family order 👏🏽",
    "🏳️\u200d🌈 and 1️⃣ and 🇬🇧",
    "🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f Scotland",  # RGI subdivision flag
    "Price: £49.99 — “quoted” (50% off) & free #shipping; ok? ¡sí! ¿no?",
    "line one\nline two\twith a tab",
]


@pytest.mark.parametrize("text", KEPT)
def test_ordinary_text_in_any_script_passes_unchanged(text: str) -> None:
    result = sanitize(text, **LIMITS)
    assert result == Sanitized(text=text)


CLEANED = [
    ("hel\u200blo", "hello", "zero_width"),
    ("ig\u2060nore", "ignore", "zero_width"),
    ("abc\u202edcba", "abcdcba", "bidi"),
    ("x\u2066y\u2069z", "xyz", "bidi"),
    ("a\u200db", "ab", "zero_width"),  # ZWJ between letters splits words: removed
    ("order\x00 status\x07", "order status", "control"),
    ("note\x1b[31m red", "note[31m red", "control"),
    ("soft\u00adhyphen", "softhyphen", "format"),
    ("private\ue000use", "privateuse", "private_use"),
    ("a\r\nb\rc\u2028d", "a\nb\nc\nd", "newline"),
    ("ＩＧＮＯＲＥ ｒｕｌｅｓ", "IGNORE rules", "nfkc"),
    ("  padded  ", "padded", "trim"),
    ("x\u0301\u0302\u0303\u0304\u0305\u0306\u0307a", "x\u0301\u0302\u0303\u0304a", "marks"),
]


@pytest.mark.parametrize(("raw", "clean", "kind"), CLEANED)
def test_unsafe_characters_are_removed_and_recorded(raw: str, clean: str, kind: str) -> None:
    result = sanitize(raw, **LIMITS)
    assert not result.rejected
    assert result.text == clean
    change = next(c for c in result.changes if c.kind == kind)
    assert change.count >= 1 and change.detail


REJECTED = [
    ("x" * 2345, "Your message is too long (2,345 characters; the limit is 2,000). Please shorten it."),
    ("€" * 1500 + "x" * 500, "Your message is too large (5,000 bytes; the limit is 4,000). Please shorten it."),
    ("ig\U000e0069nore", "Your message contains hidden characters we can't accept. Please retype it."),
    ("🏴\U000e0061\U000e0062\U000e007f", "Your message contains hidden characters we can't accept. Please retype it."),
    ("\u200b\u200b\x00", "Your message had no readable text after removing characters we can't accept."),
    ("   \n ", "Please type a message."),
    ("", "Please type a message."),
]


@pytest.mark.parametrize(("raw", "reason"), REJECTED)
def test_rejections_carry_a_reason_a_customer_understands(raw: str, reason: str) -> None:
    limits = {"max_chars": 2000, "max_bytes": 4000 if raw.startswith("€") else 8000}
    result = sanitize(raw, **limits)
    assert result.rejected
    assert result.reason == reason
    assert result.text == ""


def test_limits_apply_after_normalisation_too() -> None:
    expands = "\ufdfa" * 10  # one code point that NFKC spells out as 18 characters
    result = sanitize(expands, max_chars=100, max_bytes=8000)
    assert result.rejected and result.reason is not None and "the limit is 100" in result.reason


def test_every_change_is_counted_once_per_kind() -> None:
    result = sanitize("a\u200bb\u200bc\u202e", **LIMITS)
    assert {(c.kind, c.count) for c in result.changes} == {("zero_width", 2), ("bidi", 1)}
