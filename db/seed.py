"""Idempotent demo data: customers (argon2-hashed demo password) and their orders.

Re-running inserts nothing twice; a changed demo password re-hashes only the users whose stored
hash no longer verifies.
"""

from __future__ import annotations

import asyncio
import json
import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import yaml
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from db.connect import connection
from pipeline.core.errors import ConfigError
from pipeline.core.settings import Settings

SEED_FILE = Path(__file__).parent / "seed_data.yaml"
#: Orders are dated back from this fixed instant so every seed produces the same rows.
SEED_EPOCH = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


@dataclass(frozen=True)
class SeedSummary:
    customers: list[str]
    orders: int


def demo_orders(data: dict) -> list[dict]:
    """Deterministic orders: each customer gets every status, newest first by date."""
    rng = random.Random(20261101)
    statuses = data["statuses"]
    number = data["first_order_number"]
    orders = []
    for index, customer in enumerate(data["customers"]):
        for k in range(data["orders_per_customer"]):
            picks = rng.sample(data["catalogue"], rng.randint(1, 3))
            items = [{"name": p["name"], "qty": rng.randint(1, 2), "price": p["price"]} for p in picks]
            total = sum(Decimal(str(i["price"])) * i["qty"] for i in items)
            orders.append({
                "order_id": f"ORD-{number}",
                "customer_email": customer["email"],
                "delivery_address": customer["address"],
                "status": statuses[(k + index) % len(statuses)],
                "items": items,
                "order_date": SEED_EPOCH - timedelta(days=3 * k + rng.randint(0, 2), hours=rng.randint(0, 23)),
                "total_amount": total.quantize(Decimal("0.01")),
            })
            number += 1
    return orders


async def seed(settings: Settings, seed_file: Path = SEED_FILE) -> SeedSummary:
    if settings.supportdesk_demo_password is None:
        raise ConfigError("SUPPORTDESK_DEMO_PASSWORD is required to seed demo customers")
    password = settings.supportdesk_demo_password.get_secret_value()
    data = yaml.safe_load(await asyncio.to_thread(seed_file.read_text, encoding="utf-8"))
    hasher = PasswordHasher()
    orders = demo_orders(data)
    async with connection(settings) as conn, conn.transaction():
        for customer in data["customers"]:
            stored = await conn.fetchval("SELECT password_hash FROM users WHERE email = $1", customer["email"])
            if stored is not None:
                try:
                    hasher.verify(stored, password)
                    continue
                except (VerificationError, InvalidHashError):
                    pass
            await conn.execute(
                "INSERT INTO users (email, full_name, password_hash) VALUES ($1, $2, $3) "
                "ON CONFLICT (email) DO UPDATE SET password_hash = EXCLUDED.password_hash",
                customer["email"], customer["full_name"], hasher.hash(password))
        await conn.executemany(
            "INSERT INTO customer_orders (order_id, customer_email, delivery_address, status, items, "
            "order_date, total_amount) VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7) "
            "ON CONFLICT (order_id) DO NOTHING",
            [(o["order_id"], o["customer_email"], o["delivery_address"], o["status"], json.dumps(o["items"]),
              o["order_date"], o["total_amount"]) for o in orders])
    return SeedSummary(customers=[c["email"] for c in data["customers"]], orders=len(orders))
