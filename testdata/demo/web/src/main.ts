import { Cart } from "./cart";
import { fetchInvoice, invoiceSummary } from "./api";

const cart = new Cart();
cart.add({ sku: "mug", quantity: 2, price: 500 });

export async function render(root: HTMLElement, token: string): Promise<void> {
  root.textContent = cart.label();
  const invoice = await fetchInvoice(token, 1);
  root.title = invoiceSummary(invoice);
}
