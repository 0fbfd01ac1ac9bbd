// A realistic ~300-line module used by BenchmarkParseTypeScript.
import { EventEmitter } from 'events';
import type { Logger } from '../logging/logger';
import { retry, sleep } from '../util/async';
import * as metrics from '../metrics';
import { Money, Currency, convert } from './money';
import Database, { Transaction } from '@acme/db';

export type OrderId = string & { readonly __brand: 'OrderId' };

export enum OrderStatus {
  Draft = 'draft',
  Placed = 'placed',
  Paid = 'paid',
  Shipped = 'shipped',
  Cancelled = 'cancelled',
}

export interface LineItem {
  sku: string;
  quantity: number;
  unitPrice: Money;
}

export interface Order {
  id: OrderId;
  customerId: string;
  status: OrderStatus;
  items: LineItem[];
  createdAt: Date;
  updatedAt: Date;
  notes?: string;
}

export interface OrderRepository {
  find(id: OrderId): Promise<Order | undefined>;
  save(order: Order, tx?: Transaction): Promise<void>;
  listByCustomer(customerId: string, limit?: number): Promise<Order[]>;
}

interface PricingRule {
  name: string;
  applies(order: Order): boolean;
  adjust(total: Money, order: Order): Money;
}

const DEFAULT_CURRENCY: Currency = 'EUR';
const MAX_ITEMS = 250;
let orderCounter = 0;

export class OrderError extends Error {
  constructor(message: string, public readonly orderId?: OrderId) {
    super(message);
    this.name = 'OrderError';
  }
}

export function newOrderId(prefix = 'ord'): OrderId {
  orderCounter += 1;
  const stamp = Date.now().toString(36);
  return `${prefix}_${stamp}_${orderCounter}` as OrderId;
}

export const isTerminal = (status: OrderStatus): boolean =>
  status === OrderStatus.Shipped || status === OrderStatus.Cancelled;

function sumItems(items: readonly LineItem[], currency: Currency): Money {
  let total: Money = { amount: 0, currency };
  for (const item of items) {
    const price = convert(item.unitPrice, currency);
    total = { amount: total.amount + price.amount * item.quantity, currency };
  }
  return total;
}

const bulkDiscount: PricingRule = {
  name: 'bulk',
  applies: (order) => order.items.reduce((n, i) => n + i.quantity, 0) >= 100,
  adjust: (total) => ({ ...total, amount: Math.round(total.amount * 0.95) }),
};

const loyaltyDiscount: PricingRule = {
  name: 'loyalty',
  applies: (order) => order.customerId.startsWith('vip-'),
  adjust: (total) => ({ ...total, amount: total.amount - 500 }),
};

export const defaultRules: readonly PricingRule[] = [bulkDiscount, loyaltyDiscount];

export class PriceCalculator {
  private readonly rules: PricingRule[];

  constructor(rules: readonly PricingRule[] = defaultRules, private currency: Currency = DEFAULT_CURRENCY) {
    this.rules = [...rules];
  }

  addRule(rule: PricingRule): this {
    this.rules.push(rule);
    return this;
  }

  total(order: Order): Money {
    let total = sumItems(order.items, this.currency);
    for (const rule of this.rules) {
      if (rule.applies(order)) {
        total = rule.adjust(total, order);
        metrics.increment('pricing.rule_applied', { rule: rule.name });
      }
    }
    if (total.amount < 0) {
      total = { ...total, amount: 0 };
    }
    return total;
  }

  get ruleNames(): string[] {
    return this.rules.map((r) => r.name);
  }
}

export class InMemoryOrderRepository implements OrderRepository {
  private readonly orders = new Map<OrderId, Order>();

  async find(id: OrderId): Promise<Order | undefined> {
    const order = this.orders.get(id);
    return order ? { ...order, items: [...order.items] } : undefined;
  }

  async save(order: Order): Promise<void> {
    this.orders.set(order.id, { ...order, updatedAt: new Date() });
  }

  async listByCustomer(customerId: string, limit = 50): Promise<Order[]> {
    const out: Order[] = [];
    for (const order of this.orders.values()) {
      if (order.customerId === customerId) {
        out.push(order);
        if (out.length >= limit) break;
      }
    }
    return out.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
  }
}

export class SqlOrderRepository implements OrderRepository {
  constructor(private readonly db: Database, private readonly log: Logger) {}

  async find(id: OrderId): Promise<Order | undefined> {
    const rows = await this.db.query<Order>('SELECT * FROM orders WHERE id = $1', [id]);
    if (rows.length === 0) {
      this.log.debug('order not found', { id });
      return undefined;
    }
    return rows[0];
  }

  async save(order: Order, tx?: Transaction): Promise<void> {
    const run = async (t: Transaction) => {
      await t.execute(
        'INSERT INTO orders (id, customer_id, status, notes) VALUES ($1, $2, $3, $4) ' +
          'ON CONFLICT (id) DO UPDATE SET status = $3, notes = $4',
        [order.id, order.customerId, order.status, order.notes ?? null],
      );
      await t.execute('DELETE FROM order_items WHERE order_id = $1', [order.id]);
      for (const item of order.items) {
        await t.execute('INSERT INTO order_items (order_id, sku, quantity) VALUES ($1, $2, $3)', [
          order.id,
          item.sku,
          item.quantity,
        ]);
      }
    };
    if (tx) {
      await run(tx);
    } else {
      await this.db.transaction(run);
    }
  }

  async listByCustomer(customerId: string, limit = 50): Promise<Order[]> {
    return this.db.query<Order>(
      'SELECT * FROM orders WHERE customer_id = $1 ORDER BY created_at DESC LIMIT $2',
      [customerId, limit],
    );
  }
}

export type OrderEvent =
  | { type: 'placed'; order: Order }
  | { type: 'paid'; order: Order; amount: Money }
  | { type: 'cancelled'; order: Order; reason: string };

export class OrderService extends EventEmitter {
  private readonly calculator: PriceCalculator;

  constructor(
    private readonly repo: OrderRepository,
    private readonly log: Logger,
    calculator?: PriceCalculator,
  ) {
    super();
    this.calculator = calculator ?? new PriceCalculator();
  }

  async create(customerId: string, items: LineItem[]): Promise<Order> {
    if (items.length === 0) {
      throw new OrderError('an order needs at least one item');
    }
    if (items.length > MAX_ITEMS) {
      throw new OrderError(`an order holds at most ${MAX_ITEMS} items`);
    }
    const now = new Date();
    const order: Order = {
      id: newOrderId(),
      customerId,
      status: OrderStatus.Draft,
      items,
      createdAt: now,
      updatedAt: now,
    };
    await this.repo.save(order);
    this.log.info('order created', { id: order.id });
    return order;
  }

  async place(id: OrderId): Promise<Order> {
    const order = await this.load(id);
    if (order.status !== OrderStatus.Draft) {
      throw new OrderError(`cannot place an order that is ${order.status}`, id);
    }
    order.status = OrderStatus.Placed;
    await retry(() => this.repo.save(order), { attempts: 3 });
    this.emit('event', { type: 'placed', order } satisfies OrderEvent);
    return order;
  }

  async pay(id: OrderId, amount: Money): Promise<Order> {
    const order = await this.load(id);
    const due = this.calculator.total(order);
    if (convert(amount, due.currency).amount < due.amount) {
      throw new OrderError('payment does not cover the order total', id);
    }
    order.status = OrderStatus.Paid;
    await this.repo.save(order);
    this.emit('event', { type: 'paid', order, amount } satisfies OrderEvent);
    return order;
  }

  async cancel(id: OrderId, reason: string): Promise<void> {
    const order = await this.load(id);
    if (isTerminal(order.status)) {
      throw new OrderError(`cannot cancel an order that is ${order.status}`, id);
    }
    order.status = OrderStatus.Cancelled;
    order.notes = reason;
    await this.repo.save(order);
    this.emit('event', { type: 'cancelled', order, reason } satisfies OrderEvent);
  }

  async waitFor(id: OrderId, status: OrderStatus, timeoutMs = 10_000): Promise<Order> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const order = await this.repo.find(id);
      if (order?.status === status) {
        return order;
      }
      await sleep(100);
    }
    throw new OrderError(`timed out waiting for ${status}`, id);
  }

  private async load(id: OrderId): Promise<Order> {
    const order = await this.repo.find(id);
    if (!order) {
      throw new OrderError('no such order', id);
    }
    return order;
  }
}

export async function loadPlugins(names: string[]): Promise<PricingRule[]> {
  const rules: PricingRule[] = [];
  for (const name of names) {
    const mod = await import(`./plugins/${name}`);
    rules.push(mod.default as PricingRule);
  }
  const builtin = await import('./plugins/builtin');
  return rules.concat(builtin.rules);
}

export function summarize(orders: readonly Order[]): Record<OrderStatus, number> {
  const counts = {
    [OrderStatus.Draft]: 0,
    [OrderStatus.Placed]: 0,
    [OrderStatus.Paid]: 0,
    [OrderStatus.Shipped]: 0,
    [OrderStatus.Cancelled]: 0,
  };
  for (const o of orders) {
    counts[o.status] += 1;
  }
  return counts;
}

export default OrderService;
