"""p50/p95 of `Masker.mask` in-process on a ~1 KB support answer holding a few PII items.

.venv/bin/python -m evals.benchmarks.bench_masker [--runs N]
"""

from __future__ import annotations

import argparse
import statistics
import time

from guards.masker import SUPPORTED_TYPES, Masker

ANSWER = (
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2000)
    args = parser.parse_args()
    masker = Masker(SUPPORTED_TYPES)
    for _ in range(50):  # warm the regex and phonenumbers metadata caches
        masker.mask(ANSWER)
    samples = []
    for _ in range(args.runs):
        started = time.perf_counter()
        masker.mask(ANSWER)
        samples.append((time.perf_counter() - started) * 1000)
    cuts = statistics.quantiles(samples, n=100)
    redactions = masker.mask(ANSWER).redactions
    print(f"masker in-process: {len(ANSWER.encode())} bytes, {len(redactions)} redactions, {args.runs} runs")
    print(f"p50 {cuts[49]:.3f} ms  p95 {cuts[94]:.3f} ms")


if __name__ == "__main__":
    main()
