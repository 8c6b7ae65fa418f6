"""p50/p95 of `Masker.mask` in-process on two ~1 KB support answers: as the desk writes them, and PII-dense.

.venv/bin/python -m evals.benchmarks.bench_masker [--runs N]
"""

from __future__ import annotations

import argparse
import statistics
import time

from guards.masker import SUPPORTED_TYPES, Masker

#: Six PII types and many look-alike numbers in one answer: a worst case, not what the desk writes.
DENSE_ANSWER = (
    "Hi Marta, thanks for getting in touch about order ORD-10042 placed on 2024-03-15. The parcel "
    "(tracking 1Z999AA10123456784) left our warehouse yesterday and should reach 742 Evergreen Terrace, "
    "Apt 3B, Springfield, IL 62704 by Friday. The order total was $1,234.56 including $12.99 shipping; "
    "the refund of $45.00 for the damaged mug went back to the card ending 1111 — the full number you sent, "
    "4111 1111 1111 1111, has been removed from our notes. If the courier cannot find the address they "
    "will call you on (415) 555-0132 or e-mail marta.kowalska@example.com. For the bank transfer refund "
    "we will use IBAN DE89 3704 0044 0532 0130 00 as requested. Our records show the last login from "
    "203.0.113.42. Your loyalty balance is 1,250 points, and the next delivery window is 09:00–12:00. "
    "Items: 2 × Ceramic Mug (SKU MUG-0042), 1 × Linen Tea Towel (SKU TWL-0007), 3 × Coaster Set. "
    "If anything else is wrong, reply to this message and quote ORD-10042; we answer within 24 hours. "
    "Kind regards, the Supportdesk team."
)


#: An answer as the desk's agent writes them (order ids, dates, amounts, a tracking number) that
#: repeats the customer's e-mail address and phone number: the leak the masker exists to catch.
DESK_ANSWER = (
    "Thanks for waiting, Jordan, and sorry for the delay. Here is everything on your account, newest first:\n"
    "- ORD-10043: shipped on 2026-11-02 with tracking 1Z999AA10123456784, total $49.98; the courier "
    "expects to deliver it on Friday 6 November between 09:00 and 12:00.\n"
    "- ORD-10044: out for delivery since this morning, total $404.75 (Linen Tea Towel x2, Ceramic Mug x1).\n"
    "- ORD-10045: delivered on 2026-10-27, total $557.97. If anything arrived damaged, reply with a photo "
    "and we will arrange a return label within 24 hours.\n"
    "- ORD-10046: returned; the refund of $129.95 went back to your original payment method on 2026-10-29 "
    "and usually shows within 3-5 business days.\n"
    "- ORD-10047: cancelled before dispatch, so nothing was charged.\n"
    "We will send delivery updates to jordan.baker@example.com and text (415) 555-0132 if the driver "
    "cannot find the entrance. Your loyalty balance is 1,250 points, and orders placed before 14:00 leave "
    "our warehouse the same day. Is there anything else I can help you with today?"
)
#: The 1 KB answers the round-trip benchmarks send, by label.
ANSWERS = {"desk answer": DESK_ANSWER, "PII-dense answer": DENSE_ANSWER}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2000)
    args = parser.parse_args()
    masker = Masker(SUPPORTED_TYPES)
    for label, answer in ANSWERS.items():
        for _ in range(50):  # warm the regex and phonenumbers metadata caches
            masker.mask(answer)
        samples = []
        for _ in range(args.runs):
            started = time.perf_counter()
            masker.mask(answer)
            samples.append((time.perf_counter() - started) * 1000)
        cuts = statistics.quantiles(samples, n=100)
        redactions = len(masker.mask(answer).redactions)
        print(f"masker in-process, {label} ({len(answer.encode())} bytes, {redactions} redactions, "
              f"{args.runs} runs): p50 {cuts[49]:.3f} ms  p95 {cuts[94]:.3f} ms")

if __name__ == "__main__":
    main()
