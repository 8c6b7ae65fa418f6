"""The truth the eval scores against, read from the desk's database (never from the model)."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from pydantic import BaseModel, ConfigDict

from db.connect import connection
from pipeline.core.settings import Settings


class Order(BaseModel):
    model_config = ConfigDict(frozen=True)

    order_id: str
    customer_email: str
    status: str
    delivery_address: str
    total_amount: Decimal
    order_date: datetime


class Customer(BaseModel):
    model_config = ConfigDict(frozen=True)

    email: str
    full_name: str
    #: Newest first, by order_date.
    orders: list[Order]


class DeskFacts(BaseModel):
    customers: dict[str, Customer]

    def customer(self, email: str) -> Customer:
        try:
            return self.customers[email]
        except KeyError:
            raise KeyError(f"{email} is not a customer in the database") from None

    def order(self, order_id: str) -> Order | None:
        return next((o for c in self.customers.values() for o in c.orders if o.order_id == order_id), None)

    def owner_of(self, order_id: str) -> str | None:
        found = self.order(order_id)
        return found.customer_email if found else None

    def private_values(self, of: str, seen_by: str) -> set[str]:
        """What identifies `of`'s data to `seen_by`: values of `of` that `seen_by`'s own data lacks."""
        owner, viewer = self.customer(of), self.customer(seen_by)
        own = {o.order_id for o in viewer.orders} | {o.delivery_address for o in viewer.orders}
        own |= {f"{o.total_amount:.2f}" for o in viewer.orders} | {viewer.email, viewer.full_name}
        theirs = {o.order_id for o in owner.orders} | {o.delivery_address for o in owner.orders}
        theirs |= {f"{o.total_amount:.2f}" for o in owner.orders} | {owner.email, owner.full_name}
        return theirs - own


async def read_facts(settings: Settings) -> DeskFacts:
    async with connection(settings) as conn:
        users = await conn.fetch("SELECT email, full_name FROM users ORDER BY email")
        rows = await conn.fetch(
            "SELECT order_id, customer_email, status, delivery_address, total_amount, order_date "
            "FROM customer_orders ORDER BY customer_email, order_date DESC, order_id")
    orders: dict[str, list[Order]] = {u["email"]: [] for u in users}
    for row in rows:
        orders[row["customer_email"]].append(Order(**dict(row)))
    return DeskFacts(customers={u["email"]: Customer(email=u["email"], full_name=u["full_name"],
                                                     orders=orders[u["email"]]) for u in users})


class ActionWindow(BaseModel):
    """actions_log rows written for these orders between two instants (a turn's run)."""

    model_config = ConfigDict(frozen=True)

    order_ids: tuple[str, ...]
    start: datetime
    end: datetime


class ActionRow(BaseModel):
    customer_email: str
    order_id: str
    action: str


async def actions_in(settings: Settings, windows: list[ActionWindow]) -> dict[ActionWindow, list[ActionRow]]:
    out: dict[ActionWindow, list[ActionRow]] = {}
    if not windows:  # nothing to look up: no connection (scoring message cases needs no database)
        return out
    async with connection(settings) as conn:
        for window in windows:
            rows = await conn.fetch(
                "SELECT customer_email, order_id, action FROM actions_log "
                "WHERE order_id = ANY($1::text[]) AND created_at BETWEEN $2 AND $3 ORDER BY id",
                list(window.order_ids), window.start, window.end)
            out[window] = [ActionRow(**dict(r)) for r in rows]
    return out
