import type { GNode } from './model';

/** symbolDefinition is "path:line" for a symbol node. */
export function symbolDefinition(n: GNode): string {
  let path = n.path;
  if (!path && n.id.startsWith('symbol:')) {
    const rest = n.id.slice('symbol:'.length);
    const hash = rest.lastIndexOf('#');
    path = hash >= 0 ? rest.slice(0, hash) : rest;
  }
  const where = n.line ? `${path ?? '?'}:${n.line}` : (path ?? '?');
  return n.symbol_kind ? `${where} (${n.symbol_kind})` : where;
}
