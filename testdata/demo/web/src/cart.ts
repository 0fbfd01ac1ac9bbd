import { formatCents } from "./format";

export interface CartItem {
  sku: string;
  quantity: number;
  price: number;
}

export class Cart {
  private items: CartItem[] = [];

  add(item: CartItem): void {
    // TODO: merge quantities when the same sku is added twice.
    this.items.push(item);
  }

  total(): number {
    return this.items.reduce((sum, i) => sum + i.price * i.quantity, 0);
  }

  label(): string {
    return `${this.items.length} items, ${formatCents(this.total())}`;
  }
}
