// A thin client for services/api. Field names follow schemas/invoice.schema.json.
import { formatCents } from "./format";

export interface Invoice {
  number: string;
  lines: { sku: string; quantity: number; price: number }[];
  tax: number;
  total: number;
}

export async function fetchInvoice(token: string, seq: number): Promise<Invoice> {
  const res = await fetch(`/api/invoices/${seq}`, {
    headers: { Authorization: `Bearer ${token}` },
  });
  if (!res.ok) throw new Error(`invoice ${seq}: ${res.status}`);
  return (await res.json()) as Invoice;
}

export function invoiceSummary(inv: Invoice): string {
  return `${inv.number}: ${formatCents(inv.total)}`;
}
