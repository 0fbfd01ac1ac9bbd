"""A realistic ~300-line module used by BenchmarkParsePython."""
from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Callable, Iterable, Optional

from . import metrics
from .money import Money, convert
from ..db.session import Session, transaction
from ..util.retry import retry as with_retry

try:
    import orjson as json
except ImportError:  # pragma: no cover
    import json

log = logging.getLogger(__name__)

DEFAULT_CURRENCY = "EUR"
MAX_ITEMS = 250
_counter = 0


class OrderStatus(str, Enum):
    DRAFT = "draft"
    PLACED = "placed"
    PAID = "paid"
    SHIPPED = "shipped"
    CANCELLED = "cancelled"

    @property
    def terminal(self) -> bool:
        return self in (OrderStatus.SHIPPED, OrderStatus.CANCELLED)


class OrderError(Exception):
    def __init__(self, message: str, order_id: Optional[str] = None) -> None:
        super().__init__(message)
        self.order_id = order_id


@dataclass
class LineItem:
    sku: str
    quantity: int
    unit_price: Money

    def total(self, currency: str) -> Money:
        price = convert(self.unit_price, currency)
        return Money(price.amount * self.quantity, currency)


@dataclass
class Order:
    id: str
    customer_id: str
    status: OrderStatus = OrderStatus.DRAFT
    items: list[LineItem] = field(default_factory=list)
    created_at: float = field(default_factory=time.time)
    updated_at: float = field(default_factory=time.time)
    notes: Optional[str] = None

    def to_json(self) -> bytes:
        return json.dumps(
            {
                "id": self.id,
                "customer_id": self.customer_id,
                "status": self.status.value,
                "items": [{"sku": i.sku, "quantity": i.quantity} for i in self.items],
                "notes": self.notes,
            }
        )

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> "Order":
        return cls(
            id=row["id"],
            customer_id=row["customer_id"],
            status=OrderStatus(row["status"]),
            notes=row.get("notes"),
        )


def new_order_id(prefix: str = "ord") -> str:
    global _counter
    _counter += 1
    return f"{prefix}_{int(time.time() * 1000):x}_{_counter}"


def sum_items(items: Iterable[LineItem], currency: str) -> Money:
    total = Money(0, currency)
    for item in items:
        total = Money(total.amount + item.total(currency).amount, currency)
    return total


class PricingRule:
    name = "rule"

    def applies(self, order: Order) -> bool:
        raise NotImplementedError

    def adjust(self, total: Money, order: Order) -> Money:
        raise NotImplementedError


class BulkDiscount(PricingRule):
    name = "bulk"

    def applies(self, order: Order) -> bool:
        return sum(i.quantity for i in order.items) >= 100

    def adjust(self, total: Money, order: Order) -> Money:
        return Money(round(total.amount * 0.95), total.currency)


class LoyaltyDiscount(PricingRule):
    name = "loyalty"

    def applies(self, order: Order) -> bool:
        return order.customer_id.startswith("vip-")

    def adjust(self, total: Money, order: Order) -> Money:
        return Money(max(0, total.amount - 500), total.currency)


DEFAULT_RULES: tuple[PricingRule, ...] = (BulkDiscount(), LoyaltyDiscount())


class PriceCalculator:
    def __init__(self, rules: Iterable[PricingRule] = DEFAULT_RULES, currency: str = DEFAULT_CURRENCY):
        self.rules = list(rules)
        self.currency = currency

    def add_rule(self, rule: PricingRule) -> "PriceCalculator":
        self.rules.append(rule)
        return self

    def total(self, order: Order) -> Money:
        total = sum_items(order.items, self.currency)
        for rule in self.rules:
            if rule.applies(order):
                total = rule.adjust(total, order)
                metrics.increment("pricing.rule_applied", rule=rule.name)
        return total

    @property
    def rule_names(self) -> list[str]:
        return [r.name for r in self.rules]


class OrderRepository:
    def __init__(self, session: Session) -> None:
        self.session = session

    def find(self, order_id: str) -> Optional[Order]:
        row = self.session.fetch_one("SELECT * FROM orders WHERE id = %s", (order_id,))
        if row is None:
            log.debug("order %s not found", order_id)
            return None
        return Order.from_row(row)

    def save(self, order: Order) -> None:
        with transaction(self.session) as tx:
            tx.execute(
                "INSERT INTO orders (id, customer_id, status, notes) VALUES (%s, %s, %s, %s) "
                "ON CONFLICT (id) DO UPDATE SET status = EXCLUDED.status, notes = EXCLUDED.notes",
                (order.id, order.customer_id, order.status.value, order.notes),
            )
            tx.execute("DELETE FROM order_items WHERE order_id = %s", (order.id,))
            for item in order.items:
                tx.execute(
                    "INSERT INTO order_items (order_id, sku, quantity) VALUES (%s, %s, %s)",
                    (order.id, item.sku, item.quantity),
                )

    def list_by_customer(self, customer_id: str, limit: int = 50) -> list[Order]:
        rows = self.session.fetch_all(
            "SELECT * FROM orders WHERE customer_id = %s ORDER BY created_at DESC LIMIT %s",
            (customer_id, limit),
        )
        return [Order.from_row(r) for r in rows]


Listener = Callable[[str, Order], None]


class OrderService:
    def __init__(self, repo: OrderRepository, calculator: Optional[PriceCalculator] = None):
        self.repo = repo
        self.calculator = calculator or PriceCalculator()
        self._listeners: list[Listener] = []

    def subscribe(self, listener: Listener) -> None:
        self._listeners.append(listener)

    def _emit(self, event: str, order: Order) -> None:
        for listener in self._listeners:
            try:
                listener(event, order)
            except Exception:  # noqa: BLE001
                log.exception("listener failed for %s", event)

    def create(self, customer_id: str, items: list[LineItem]) -> Order:
        if not items:
            raise OrderError("an order needs at least one item")
        if len(items) > MAX_ITEMS:
            raise OrderError(f"an order holds at most {MAX_ITEMS} items")
        order = Order(id=new_order_id(), customer_id=customer_id, items=items)
        self.repo.save(order)
        log.info("order created: %s", order.id)
        return order

    def place(self, order_id: str) -> Order:
        order = self._load(order_id)
        if order.status is not OrderStatus.DRAFT:
            raise OrderError(f"cannot place an order that is {order.status.value}", order_id)
        order.status = OrderStatus.PLACED
        with_retry(lambda: self.repo.save(order), attempts=3)
        self._emit("placed", order)
        return order

    def pay(self, order_id: str, amount: Money) -> Order:
        order = self._load(order_id)
        due = self.calculator.total(order)
        if convert(amount, due.currency).amount < due.amount:
            raise OrderError("payment does not cover the order total", order_id)
        order.status = OrderStatus.PAID
        self.repo.save(order)
        self._emit("paid", order)
        return order

    def cancel(self, order_id: str, reason: str) -> None:
        order = self._load(order_id)
        if order.status.terminal:
            raise OrderError(f"cannot cancel an order that is {order.status.value}", order_id)
        order.status = OrderStatus.CANCELLED
        order.notes = reason
        self.repo.save(order)
        self._emit("cancelled", order)

    async def wait_for(self, order_id: str, status: OrderStatus, timeout: float = 10.0) -> Order:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            order = self.repo.find(order_id)
            if order is not None and order.status is status:
                return order
            await asyncio.sleep(0.1)
        raise OrderError(f"timed out waiting for {status.value}", order_id)

    def _load(self, order_id: str) -> Order:
        order = self.repo.find(order_id)
        if order is None:
            raise OrderError("no such order", order_id)
        return order


def load_plugins(names: Iterable[str]) -> list[PricingRule]:
    import importlib

    rules = []
    for name in names:
        module = importlib.import_module(f".plugins.{name}", __package__)
        rules.append(module.RULE)
    return rules


def summarize(orders: Iterable[Order]) -> dict[OrderStatus, int]:
    counts = {status: 0 for status in OrderStatus}
    for order in orders:
        counts[order.status] += 1
    return counts


def main(argv: Optional[list[str]] = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(description="order tool")
    parser.add_argument("customer")
    parser.add_argument("--limit", type=int, default=10)
    args = parser.parse_args(argv)
    repo = OrderRepository(Session.connect())
    for order in repo.list_by_customer(args.customer, args.limit):
        print(order.to_json().decode())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
