"""Session fixture: the whole desk on loopback — PostgreSQL, Toolbox, Judge, Masker — and a Desk;
and a fresh customer of its own for a test that needs one."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest
import yaml
from argon2 import PasswordHasher

from db.connect import connection
from pipeline.core.settings import Settings
from pipeline.desk import Desk
from services.tests.fixtures import GuardEndpoint
from toolbox.server import ToolboxServer


@pytest.fixture(scope="session")
async def desk(desk_settings: Settings, toolbox_server: ToolboxServer, judge_service: GuardEndpoint,
               masker_service: GuardEndpoint) -> AsyncIterator[Desk]:
    pipeline = await Desk.build(desk_settings)
    yield pipeline
    await pipeline.aclose()


@dataclass(frozen=True)
class FreshCustomer:
    email: str
    order_id: str


@pytest.fixture()
async def fresh_customer(desk_settings: Settings, demo_password: str) -> AsyncIterator[FreshCustomer]:
    """A customer no other test knows (so their memories are theirs alone): the demo password and one
    shipped order. Memories stay behind under the unique email; the rows are removed."""
    email = f"fresh-{uuid.uuid4().hex[:12]}@example.com"
    async with connection(desk_settings) as conn:
        taken = {r[0] for r in await conn.fetch("SELECT order_id FROM customer_orders")}
        order_id = next(f"ORD-{n}" for n in range(90000, 100000) if f"ORD-{n}" not in taken)
        await conn.execute("INSERT INTO users (email, full_name, password_hash) VALUES ($1, 'Fresh Customer', $2)",
                           email, PasswordHasher().hash(demo_password))
        await conn.execute(
            "INSERT INTO customer_orders (order_id, customer_email, delivery_address, status, items, order_date, "
            "total_amount) VALUES ($1, $2, '7 Test Lane, Testford', 'shipped', '[\"kettle\"]', now(), 20)",
            order_id, email)
    yield FreshCustomer(email, order_id)
    async with connection(desk_settings) as conn:
        for table in ("actions_log", "customer_orders", "users"):
            column = "email" if table == "users" else "customer_email"
            await conn.execute(f"DELETE FROM {table} WHERE {column} = $1", email)


#: Two items, so a request can be about some of an order or all of it.
SHOP_ITEMS = [{"name": "Trail running shoes", "qty": 1, "price": 129.95},
              {"name": "Cast iron skillet 26 cm", "qty": 1, "price": 42.50}]


@dataclass(frozen=True)
class ShopCustomer:
    email: str
    #: One order per status of the schema, each holding SHOP_ITEMS.
    orders: dict[str, str]


@pytest.fixture()
async def shop_customer(desk_settings: Settings, demo_password: str) -> AsyncIterator[ShopCustomer]:
    """A customer no other test knows with one order in each status (rows removed afterwards)."""
    from db.seed import SEED_FILE

    statuses = yaml.safe_load(SEED_FILE.read_text(encoding="utf-8"))["statuses"]
    email = f"shop-{uuid.uuid4().hex[:12]}@example.com"
    async with connection(desk_settings) as conn:
        taken = {r[0] for r in await conn.fetch("SELECT order_id FROM customer_orders")}
        free = (f"ORD-{n}" for n in range(90000, 100000) if f"ORD-{n}" not in taken)
        orders = {status: next(free) for status in statuses}
        await conn.execute("INSERT INTO users (email, full_name, password_hash) VALUES ($1, 'Shop Customer', $2)",
                           email, PasswordHasher().hash(demo_password))
        for status, order_id in orders.items():
            await conn.execute(
                "INSERT INTO customer_orders (order_id, customer_email, delivery_address, status, items, "
                "order_date, total_amount) VALUES ($1, $2, '7 Test Lane, Testford', $3, $4::jsonb, now(), 172.45)",
                order_id, email, status, json.dumps(SHOP_ITEMS))
    yield ShopCustomer(email, orders)
    async with connection(desk_settings) as conn:
        for table in ("actions_log", "customer_orders", "users"):
            column = "email" if table == "users" else "customer_email"
            await conn.execute(f"DELETE FROM {table} WHERE {column} = $1", email)
